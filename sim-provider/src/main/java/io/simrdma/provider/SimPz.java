package io.simrdma.provider;

import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PzParams;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.VerbsException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Protection Zone (dat_pz_create(3DAT)): a verbs protection domain. LMRs, RMRs, endpoints and
 * SRQs of one PZ can be used together only.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimPz extends SimHandle implements ProtectionZone {

    final ProtectionDomain pd;
    private final AtomicInteger users = new AtomicInteger();

    SimPz(SimIa ia, ProtectionDomain pd) {
        super(ia, HandleType.PZ);
        this.pd = pd;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PZ;
    }

    void addUser() {
        users.incrementAndGet();
    }

    void removeUser() {
        users.decrementAndGet();
    }

    @Override
    public PzParams query() {
        checkHandle();
        return new PzParams(ia);
    }

    @Override
    public RemoteMemoryRegion createRmr() {
        checkHandle();
        if (ia.handleCount(SimRmr.class) >= ia.attributes().maxRmrs()) {
            throw insufficient(
                    DatReturnSubtype.RESOURCE_MEMORY_REGION,
                    "max_rmrs (" + ia.attributes().maxRmrs() + ") reached");
        }
        try {
            return ia.remember(new SimRmr(ia, this, pd.allocMw(io.simrdma.fabric.MwType.TYPE_1)));
        } catch (VerbsException e) {
            throw ia.resources(e, DatReturnSubtype.RESOURCE_MEMORY_REGION);
        }
    }

    /**
     * Frees the PZ (dat_pz_free(3DAT)).
     *
     * @throws io.simrdma.dat.DatException DAT_INVALID_STATE (PZ in use) while an LMR, RMR, EP or SRQ uses it
     */
    @Override
    public void free() {
        checkHandle();
        if (users.get() > 0) {
            throw invalidState(
                    DatReturnSubtype.INVALID_STATE_PZ_IN_USE,
                    users.get() + " LMR(s), RMR(s), EP(s) or SRQ(s) use this PZ (dat_pz_free(3DAT))");
        }
        destroy();
        ia.forget(this);
    }

    @Override
    void destroy() {
        if (freed) {
            return;
        }
        freed = true;
        try {
            pd.dealloc();
        } catch (VerbsException e) {
            // abrupt close: the fabric frees what remains
        }
    }

    @Override
    public String toString() {
        return "PZ[" + pd + "]";
    }
}
