package io.simrdma.provider;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.RmrBinding;
import io.simrdma.dat.RmrParams;
import io.simrdma.fabric.MemoryWindow;
import io.simrdma.fabric.VerbsException;
import java.util.Optional;
import java.util.Set;

/**
 * A Remote Memory Region (dat_rmr_create(3DAT)): a type 1 memory window, bound through an
 * endpoint's QP by dat_rmr_bind(3DAT); each bind returns a new rmr_context (the window's R_Key,
 * of which only the low 8 bits change), and a bind of length 0 unbinds it.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimRmr extends SimHandle implements RemoteMemoryRegion {

    final SimPz pz;
    final MemoryWindow mw;
    private volatile RmrBinding binding;
    private SimLmr boundLmr;
    /** The endpoint of the last bind posted, whose unsignalled binds complete without an event. */
    private volatile SimEp bindEp;

    SimRmr(SimIa ia, SimPz pz, MemoryWindow mw) {
        super(ia, HandleType.RMR);
        this.pz = pz;
        this.mw = mw;
        pz.addUser();
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RMR;
    }

    /**
     * Binds (or with a zero-length triplet unbinds) the RMR through {@code ep} (dat_rmr_bind(3DAT)).
     * The completion arrives on the endpoint's request EVD; the new rmr_context is returned now.
     */
    @Override
    public int bind(
            LmrTriplet lmrTriplet,
            Set<MemoryPrivilege> privileges,
            Endpoint ep,
            long userCookie,
            Set<CompletionFlag> completionFlags) {
        checkHandle();
        if (lmrTriplet == null || privileges == null || completionFlags == null) {
            throw DatException.invalidParameter("triplet, privileges and completion flags must not be null");
        }
        SimEp e = SimHandle.check(ep, SimEp.class, ia, DatReturnSubtype.INVALID_HANDLE_EP);
        SimLmr lmr = null;
        if (lmrTriplet.segmentLength() > 0) {
            lmr = ia.lmr(lmrTriplet.lmrContext());
            if (lmr == null) {
                throw new DatException(
                        DatReturnType.PRIVILEGES_VIOLATION,
                        DatReturnSubtype.NO_SUBTYPE,
                        "lmr_context 0x" + Integer.toHexString(lmrTriplet.lmrContext())
                                + " names no LMR (dat_rmr_bind(3DAT))");
            }
            if (lmr.pz != pz || e.config.pz() != pz) {
                throw new DatException(
                        DatReturnType.PROTECTION_VIOLATION,
                        DatReturnSubtype.NO_SUBTYPE,
                        "the LMR, the RMR and the endpoint must share one PZ (dat_rmr_bind(3DAT))");
            }
            // dat_rmr_bind(3DAT): remote read needs local read, remote write needs local write.
            if ((privileges.contains(MemoryPrivilege.REMOTE_WRITE) && !lmr.has(MemoryPrivilege.LOCAL_WRITE))
                    || (privileges.contains(MemoryPrivilege.REMOTE_READ) && !lmr.has(MemoryPrivilege.LOCAL_READ))) {
                throw new DatException(
                        DatReturnType.PRIVILEGES_VIOLATION,
                        DatReturnSubtype.NO_SUBTYPE,
                        "the LMR lacks the local privilege the remote privileges need (dat_rmr_bind(3DAT))");
            }
            if (!lmr.covers(lmrTriplet.virtualAddress(), lmrTriplet.segmentLength())) {
                throw DatException.invalidParameter("segment " + lmrTriplet + " lies outside its LMR");
            }
        }
        int rmrContext = e.posting.postBind(this, lmr, lmrTriplet, privileges, userCookie, completionFlags);
        bindEp = e;
        return rmrContext;
    }

    /** The bind of this RMR completed. Engine thread. */
    void bound(SimLmr lmr, LmrTriplet triplet, Set<MemoryPrivilege> privileges, int rkey, boolean success) {
        synchronized (this) {
            if (!success || freed) {
                return;
            }
            if (boundLmr != null) {
                boundLmr.boundRmrs.decrementAndGet();
            }
            boundLmr = lmr;
            if (lmr != null) {
                lmr.boundRmrs.incrementAndGet();
                binding = new RmrBinding(triplet, privileges, rkey);
            } else {
                binding = null;
            }
        }
    }

    @Override
    public RmrParams query() {
        checkHandle();
        SimEp e = bindEp;
        if (e != null && !e.freed) {
            // A bind posted with DAT_COMPLETION_SUPPRESS_FLAG has no completion: see whether it executed.
            ia.run(e.posting::retireSilent);
        }
        return new RmrParams(ia, pz, Optional.ofNullable(binding));
    }

    /** Frees the RMR (dat_rmr_free(3DAT)); a bound RMR is unbound. */
    @Override
    public void free() {
        checkHandle();
        destroy();
        ia.forget(this);
    }

    @Override
    void destroy() {
        synchronized (this) {
            if (freed) {
                return;
            }
            freed = true;
            if (boundLmr != null) {
                boundLmr.boundRmrs.decrementAndGet();
                boundLmr = null;
            }
            binding = null;
        }
        pz.removeUser();
        try {
            mw.dealloc();
        } catch (VerbsException e) {
            // abrupt close: the fabric releases it
        }
    }

    @Override
    public String toString() {
        return "RMR[" + mw + "]";
    }
}
