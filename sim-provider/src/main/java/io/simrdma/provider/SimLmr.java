package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.LmrParams;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.RegionDescription;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.VerbsException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Local Memory Region (dat_lmr_create(3DAT)): a verbs memory region over the consumer's buffer,
 * never copied. lmr_context is the L_Key; rmr_context the R_Key, given only when remote access
 * was requested. The DAT privileges are enforced when a DTO is posted; the region is registered
 * with the rights they imply (remote write implies local write to the verbs layer).
 *
 * <p>Thread safety: immutable but for the freed flag and the count of bound RMRs.
 */
final class SimLmr extends SimHandle implements LocalMemoryRegion {

    final SimPz pz;
    final MemoryRegion mr;
    final ByteBuffer buffer;
    private final RegionDescription region;
    private final EnumSet<MemoryPrivilege> privileges;
    private final long length;
    /** RMRs bound to this LMR; changed by binds (engine thread) and RMR frees (consumer threads). */
    final AtomicInteger boundRmrs = new AtomicInteger();

    private boolean deregistered;

    private SimLmr(
            SimIa ia,
            SimPz pz,
            MemoryRegion mr,
            ByteBuffer buffer,
            RegionDescription region,
            EnumSet<MemoryPrivilege> privileges,
            long length) {
        super(ia, HandleType.LMR);
        this.pz = pz;
        this.mr = mr;
        this.buffer = buffer;
        this.region = region;
        this.privileges = privileges;
        this.length = length;
    }

    static SimLmr create(SimIa ia, RegionDescription region, SimPz pz, Set<MemoryPrivilege> privileges) {
        ByteBuffer view;
        if (region instanceof RegionDescription.Virtual v) {
            view = range(v.buffer(), v.offset(), v.length());
        } else if (region instanceof RegionDescription.SharedVirtual sv) {
            view = range(sv.buffer(), sv.offset(), sv.length());
        } else {
            RegionDescription.Lmr l = (RegionDescription.Lmr) region;
            SimLmr other = SimHandle.check(l.lmr(), SimLmr.class, ia, DatReturnSubtype.INVALID_HANDLE_LMR);
            view = range(other.buffer, 0, other.buffer.capacity());
        }
        if (view.remaining() == 0) {
            throw new DatException(
                    io.simrdma.dat.DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG4,
                    "an LMR needs a non-empty region (dat_lmr_create(3DAT) length)");
        }
        EnumSet<MemoryPrivilege> privs =
                privileges.isEmpty() ? EnumSet.noneOf(MemoryPrivilege.class) : EnumSet.copyOf(privileges);
        EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.MW_BIND);
        if (privs.contains(MemoryPrivilege.LOCAL_WRITE) || privs.contains(MemoryPrivilege.REMOTE_WRITE)) {
            access.add(AccessFlag.LOCAL_WRITE);
        }
        if (privs.contains(MemoryPrivilege.REMOTE_READ)) {
            access.add(AccessFlag.REMOTE_READ);
        }
        if (privs.contains(MemoryPrivilege.REMOTE_WRITE)) {
            access.add(AccessFlag.REMOTE_WRITE);
            access.add(AccessFlag.REMOTE_ATOMIC);
        }
        MemoryRegion mr;
        try {
            mr = pz.pd.registerMemory(view.duplicate(), access);
        } catch (VerbsException e) {
            if (e.errno() == Errno.EACCES) {
                // dat_lmr_create(3DAT) lists no privileges violation: the privileges (argument 6) do not fit the
                // region.
                throw new DatException(
                        io.simrdma.dat.DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.INVALID_ARG6,
                        "a read-only buffer cannot be given write privileges");
            }
            throw ia.resources(e, DatReturnSubtype.RESOURCE_MEMORY_REGION);
        }
        pz.addUser();
        return new SimLmr(ia, pz, mr, view, region, privs, view.remaining());
    }

    private static ByteBuffer range(ByteBuffer b, int offset, int length) {
        ByteBuffer d = b.duplicate().order(b.order());
        d.clear();
        d.limit(offset + length).position(offset);
        return d.slice().order(b.order());
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_LMR;
    }

    @Override
    public int lmrContext() {
        return mr.lkey();
    }

    @Override
    public OptionalInt rmrContext() {
        return privileges.contains(MemoryPrivilege.REMOTE_READ) || privileges.contains(MemoryPrivilege.REMOTE_WRITE)
                ? OptionalInt.of(mr.rkey())
                : OptionalInt.empty();
    }

    @Override
    public long registeredSize() {
        return length;
    }

    @Override
    public long registeredAddress() {
        return mr.address();
    }

    boolean has(MemoryPrivilege p) {
        return privileges.contains(p);
    }

    /** True if [va, va + len) lies inside the region. */
    boolean covers(long va, long len) {
        long base = mr.address();
        return va >= base && len >= 0 && va - base <= length && len <= length - (va - base);
    }

    @Override
    public LmrParams query() {
        checkHandle();
        return new LmrParams(
                ia, region.memType(), region, length, pz, privileges, lmrContext(), rmrContext(), length, mr.address());
    }

    /**
     * Frees the LMR (dat_lmr_free(3DAT)).
     *
     * @throws DatException DAT_INVALID_STATE (LMR in use) while an RMR is bound to it
     */
    @Override
    public void free() {
        checkHandle();
        try {
            ia.run(() -> {
                if (boundRmrs.get() > 0) {
                    throw invalidState(
                            DatReturnSubtype.INVALID_STATE_LMR_IN_USE,
                            boundRmrs.get() + " RMR(s) are bound to this LMR (dat_lmr_free(3DAT))");
                }
                try {
                    mr.deregister();
                } catch (VerbsException e) {
                    if (e.errno() == Errno.EBUSY) {
                        // A window bound by a bind whose completion was suppressed or is not yet seen.
                        throw invalidState(
                                DatReturnSubtype.INVALID_STATE_LMR_IN_USE,
                                "an RMR is bound to this LMR (dat_lmr_free(3DAT)): " + e.getMessage());
                    }
                    throw e;
                }
                deregistered = true;
                destroy();
            });
        } finally {
            if (freed) {
                ia.forget(this);
            }
        }
    }

    @Override
    void destroy() {
        if (freed) {
            return;
        }
        freed = true;
        ia.lmrFreed(this);
        pz.removeUser();
        if (deregistered) {
            return;
        }
        try {
            mr.deregister();
        } catch (VerbsException e) {
            // abrupt close with windows still bound: the fabric releases it
        }
    }

    @Override
    public String toString() {
        return "LMR[" + mr + "]";
    }
}
