package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.MwType;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.SrqAttr;
import io.simrdma.fabric.VerbsException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Set;

/**
 * A protection domain (ibv_alloc_pd(3)): memory regions, memory windows, queue pairs and shared
 * receive queues created in one PD can be used together, and only together: every memory access
 * checks that the key's PD is the QP's.
 *
 * <p>Thread safety: thread-safe; creation and destruction run on the device's executor.
 */
public final class PdImpl implements ProtectionDomain {

    private final MemoryContext device;
    private final int handle;
    public int resources;
    private volatile boolean deallocated;

    public PdImpl(MemoryContext device, int handle) {
        this.device = device;
        this.handle = handle;
    }

    @Override
    public Device device() {
        return device.device();
    }

    /** The device that owns this PD, as the memory layer sees it. */
    public MemoryContext owner() {
        return device;
    }

    /** A number identifying this PD on its device. */
    public int handle() {
        return handle;
    }

    /**
     * Registers {@code buffer}'s bytes from its position to its limit (ibv_reg_mr(3)). Nothing is
     * copied: the region is the application's buffer, which it keeps owning and must keep alive
     * (not reuse for anything else) until the region is deregistered. The region gets a simulated
     * virtual address range chosen by the device ({@link MrImpl#address()}).
     *
     * @throws VerbsException EINVAL for REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE, or an
     *                        oversized buffer; EACCES for write access to a read-only buffer;
     *                        ENOMEM beyond max_mr. An empty buffer is a zero-length region, or
     *                        EINVAL on a device whose profile does not allow one.
     */
    public MrImpl registerMemory(ByteBuffer buffer, Set<AccessFlag> access) {
        return register(buffer, access, -1);
    }

    /**
     * Registers {@code buffer} with a chosen virtual base address (ibv_reg_mr_iova(3)):
     * remote and local addresses of the region start at {@code iova}.
     */
    public MrImpl registerMemory(ByteBuffer buffer, Set<AccessFlag> access, long iova) {
        if (iova < 0) {
            throw VerbsException.invalid("iova must not be negative: " + iova);
        }
        return register(buffer, access, iova);
    }

    private MrImpl register(ByteBuffer buffer, Set<AccessFlag> access, long iova) {
        Objects.requireNonNull(buffer, "buffer");
        int mask = AccessFlag.mask(Objects.requireNonNull(access, "access"));
        checkUsable();
        checkAccess(mask, buffer);
        // IBA 10.6.2: a region may be empty (length 0); its keys serve zero-length accesses only.
        // Devices whose driver pins pages refuse it (DeviceProfile ZERO_LENGTH_MR).
        int length = buffer.remaining();
        if (length == 0 && !device.profile().zeroLengthMr()) {
            throw VerbsException.invalid("device " + device.name() + " (profile "
                    + device.profile().name() + ") cannot register a zero-length region");
        }
        if (length > device.attributes().maxMrSize()) {
            throw VerbsException.invalid("region of " + length + " bytes exceeds max_mr_size "
                    + device.attributes().maxMrSize());
        }
        ByteBuffer view = buffer.slice().order(buffer.order());
        long base = (mask & AccessFlag.ZERO_BASED.bit()) != 0 ? 0 : iova;
        return created(device.executor().call(() -> device.memory().createMr(this, view, base, length, mask)));
    }

    /** Tells the fabric's observer, if any, that the application created {@code o}. Caller's thread. */
    private <T> T created(T o) {
        FabricObserver observer = device.observer();
        if (observer != null) {
            observer.created(o);
        }
        return o;
    }

    /**
     * The access checks of a registration or re-registration: EINVAL for remote write or atomic
     * access without local write (ibv_reg_mr(3)), EACCES for write access to a read-only buffer.
     */
    static void checkAccess(int mask, ByteBuffer buffer) {
        // ibv_reg_mr(3): remote write or atomic access requires local write access.
        if ((mask & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0
                && (mask & AccessFlag.LOCAL_WRITE.bit()) == 0) {
            throw VerbsException.invalid("REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (ibv_reg_mr(3))");
        }
        int writeBits = AccessFlag.LOCAL_WRITE.bit() | AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit();
        if (buffer.isReadOnly() && (mask & writeBits) != 0) {
            throw new VerbsException(Errno.EACCES, "write access requested for a read-only buffer");
        }
    }

    /**
     * Allocates a memory window of {@code type} (ibv_alloc_mw(3)); it starts unbound.
     *
     * @throws VerbsException EOPNOTSUPP on a device without memory windows (libibverbs, when the
     *                        provider has no alloc_mw); EINVAL for a type the device lacks; ENOMEM
     *                        beyond max_mw
     */
    public MwImpl allocMw(MwType type) {
        Objects.requireNonNull(type, "type");
        checkUsable();
        DeviceProfile profile = device.profile();
        if (!profile.supports(type)) {
            throw new VerbsException(
                    profile.memoryWindows().isEmpty() ? Errno.EOPNOTSUPP : Errno.EINVAL,
                    "device " + device.name() + " (profile " + profile.name() + ") has no " + type + " memory windows");
        }
        return created(device.executor().call(() -> device.memory().createMw(this, type)));
    }

    /**
     * Creates an address handle (ibv_create_ah(3)).
     *
     * @throws VerbsException EINVAL for a bad port, sgid_index, SL, flow label, hop limit or
     *                        traffic class; ENOENT once this PD is deallocated
     */
    @Override
    public io.simrdma.fabric.AddressHandle createAh(io.simrdma.fabric.AhAttr attr) {
        Objects.requireNonNull(attr, "attr");
        checkUsable();
        return created(device.executor().call(() -> device.createAh(this, attr)));
    }

    /** Creates a queue pair (ibv_create_qp(3)); it starts in RESET. */
    public QueuePair createQp(QpInitAttr attr) {
        Objects.requireNonNull(attr, "attr");
        checkUsable();
        return created(device.executor().call(() -> device.createQp(this, attr)));
    }

    /** Creates a shared receive queue (ibv_create_srq(3)); {@code attr.srqLimit()} is ignored. */
    public SharedReceiveQueue createSrq(SrqAttr attr) {
        return createSrq(attr, null);
    }

    /** Creates a shared receive queue with an application context (srq_context). */
    public SharedReceiveQueue createSrq(SrqAttr attr, Object context) {
        Objects.requireNonNull(attr, "attr");
        checkUsable();
        return created(device.executor().call(() -> device.createSrq(this, attr, context)));
    }

    /**
     * Deallocates this PD (ibv_dealloc_pd(3)).
     *
     * @throws VerbsException EBUSY while any MR, MW, QP or SRQ of it exists; ENOENT if already
     *                        deallocated (every call on a deallocated PD fails with ENOENT)
     */
    public void dealloc() {
        device.executor().call(() -> {
            if (deallocated) {
                throw VerbsException.stale("protection domain already deallocated");
            }
            if (resources > 0) {
                throw VerbsException.busy("protection domain still has " + resources + " MRs, MWs, QPs or SRQs");
            }
            deallocated = true;
            device.pdDeallocated(this);
            return null;
        });
        FabricObserver o = device.observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    /** Throws ENOENT once deallocated, ENODEV once the device is closed. */
    public void checkUsable() {
        if (deallocated) {
            throw VerbsException.stale("protection domain was deallocated");
        }
        device.checkOpen();
    }

    @Override
    public String toString() {
        return "PD[" + device.name() + "#" + handle + "]";
    }
}
