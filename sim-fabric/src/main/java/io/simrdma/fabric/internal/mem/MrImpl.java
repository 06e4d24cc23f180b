package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.ReregFlag;
import io.simrdma.fabric.VerbsException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A registered memory region (struct ibv_mr): an application buffer the HCA may access through
 * its L_Key (locally) and R_Key (remotely), within the rights it was registered with.
 *
 * <p>Addresses: the region occupies the simulated virtual range
 * [{@link #address()}, {@code address() + length()}); SGEs and remote addresses name bytes in that
 * range, never Java indexes.
 *
 * <p>Byte order: atomic operations on the region read and write their 8-byte operand in the
 * byte order the buffer had when it was registered (big-endian by default in Java; register a
 * buffer set to {@link ByteOrder#LITTLE_ENDIAN} to match what a C program on x86 sees).
 *
 * <p>Thread safety: thread-safe. The buffer itself stays the application's. A re-registration
 * changes the fields on the device executor, where the engine reads them; a post that names the
 * region's memory while it is being re-registered races it, as it would in C.
 */
public final class MrImpl implements MemoryRegion {

    // Not final: ibv_rereg_mr(3) changes them, on the device executor, where the engine reads them.
    private PdImpl pd;
    public ByteBuffer buf;
    private long iova;
    private int length;
    private int access;
    private int key;
    public volatile boolean valid = true;
    public int boundWindows;

    public MrImpl(PdImpl pd, ByteBuffer buf, long iova, int length, int access, int key) {
        this.pd = pd;
        this.buf = buf;
        this.iova = iova;
        this.length = length;
        this.access = access;
        this.key = key;
    }

    public PdImpl pd() {
        return pd;
    }

    /** Start of the region's virtual address range (0 for a ZERO_BASED region). */
    public long address() {
        return iova;
    }

    /** Length in bytes. */
    public int length() {
        return length;
    }

    /** The local key, for SGEs. */
    public int lkey() {
        return key;
    }

    /** The remote key, for the remote side's RDMA and atomic work requests. */
    public int rkey() {
        return key;
    }

    /** The access rights the region was registered with. */
    public java.util.Set<AccessFlag> access() {
        return AccessFlag.fromMask(access);
    }

    public int accessMask() {
        return access;
    }

    /** Byte order used for atomic operands in this region. */
    public ByteOrder byteOrder() {
        return buf.order();
    }

    @Override
    public ByteBuffer buffer() {
        return buf.duplicate().clear().order(buf.order());
    }

    /** False once deregistered. */
    public boolean isValid() {
        return valid;
    }

    /**
     * Deregisters the region (ibv_dereg_mr(3)). Work still referring to it afterwards fails with
     * a protection error.
     *
     * @throws VerbsException EBUSY while a memory window is bound to it; ENOENT if already deregistered
     */
    public void deregister() {
        pd.owner().executor().call(() -> {
            pd.owner().memory().destroyMr(this);
            return null;
        });
        FabricObserver o = pd.owner().observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    /**
     * Re-registers the region (ibv_rereg_mr(3)); see {@link io.simrdma.fabric.MemoryRegion#reregister}.
     * The argument checks libibverbs and uverbs make run here on the caller's thread; the change
     * itself runs on the device executor ({@link MemoryTable#reregister}).
     */
    @Override
    public void reregister(
            java.util.Set<ReregFlag> flags,
            ProtectionDomain newPd,
            ByteBuffer buffer,
            java.util.Set<AccessFlag> newAccess) {
        java.util.Objects.requireNonNull(flags, "flags");
        PdImpl current = pd;
        current.owner().checkOpen();
        // ibv_rereg_mr(3) / uverbs: no flag at all is an input error (IBV_REREG_MR_ERR_INPUT, EINVAL).
        if (flags.isEmpty()) {
            throw VerbsException.invalid("ibv_rereg_mr(3): flags must name at least one change");
        }
        boolean translation = flags.contains(ReregFlag.CHANGE_TRANSLATION);
        boolean changePd = flags.contains(ReregFlag.CHANGE_PD);
        boolean changeAccess = flags.contains(ReregFlag.CHANGE_ACCESS);
        int mask = access;
        if (changeAccess) {
            mask = AccessFlag.mask(java.util.Objects.requireNonNull(newAccess, "access"));
        } else if (newAccess != null && !newAccess.isEmpty()) {
            // libibverbs: access flags given without IBV_REREG_MR_CHANGE_ACCESS are an input error.
            throw VerbsException.invalid("ibv_rereg_mr(3): access flags given without CHANGE_ACCESS");
        }
        PdImpl target = current;
        if (changePd) {
            if (!(newPd instanceof PdImpl) || ((PdImpl) newPd).owner() != current.owner()) {
                throw VerbsException.invalid("ibv_rereg_mr(3): CHANGE_PD needs a PD of device "
                        + current.owner().name());
            }
            target = (PdImpl) newPd;
            target.checkUsable();
        }
        ByteBuffer view = buf;
        int len = length;
        if (translation) {
            // libibverbs: CHANGE_TRANSLATION with no address or a zero length is an input error.
            if (buffer == null || !buffer.hasRemaining()) {
                throw VerbsException.invalid("ibv_rereg_mr(3): CHANGE_TRANSLATION needs a non-empty buffer");
            }
            len = buffer.remaining();
            if (len > current.owner().attributes().maxMrSize()) {
                throw VerbsException.invalid("region of " + len + " bytes exceeds max_mr_size "
                        + current.owner().attributes().maxMrSize());
            }
            view = buffer.slice().order(buffer.order());
        }
        PdImpl.checkAccess(mask, view);
        PdImpl to = target;
        ByteBuffer v = view;
        int l = len;
        int m = mask;
        current.owner().executor().call(() -> {
            current.owner().memory().reregister(this, to, v, translation, l, m);
            return null;
        });
    }

    /** Installs a re-registration's result; {@link MemoryTable} only, on the device executor. */
    void rebind(PdImpl newPd, ByteBuffer newBuf, long newIova, int newLength, int newAccess, int newKey) {
        this.pd = newPd;
        this.buf = newBuf;
        this.iova = newIova;
        this.length = newLength;
        this.access = newAccess;
        this.key = newKey;
    }

    /** Buffer index of virtual address {@code va}; the caller has checked bounds. */
    public int indexOf(long va) {
        return (int) (va - iova);
    }

    @Override
    public String toString() {
        return "MR[lkey=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(iova) + ", len=" + length + "]";
    }
}
