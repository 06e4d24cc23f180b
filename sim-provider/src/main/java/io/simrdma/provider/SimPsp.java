package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PspParams;
import io.simrdma.dat.PublicServicePoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Public Service Point (dat_psp_create(3DAT), dat_psp_create_any(3DAT)): listens on a
 * connection qualifier for any number of requests. With {@link PspFlag#PROVIDER} each request
 * comes with an endpoint the provider made (TENTATIVE_CONNECTION_PENDING, no PZ and no EVDs, RDMA
 * read limits matching the request), which the consumer modifies and accepts with.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimPsp extends SimServicePoint implements PublicServicePoint {

    private static final Logger LOG = LoggerFactory.getLogger(SimPsp.class);

    private final PspFlag flag;

    private SimPsp(SimIa ia, SimEvd evd, PspFlag flag) {
        super(ia, HandleType.PSP, evd);
        this.flag = flag;
    }

    static SimPsp create(SimIa ia, long connQual, EventDispatcher evdHandle, PspFlag flag, boolean any) {
        SimEvd evd = checkEvd(ia, evdHandle);
        if (flag == null) {
            throw DatException.invalidParameter("psp_flags is null");
        }
        if (!any) {
            checkQual(connQual);
        }
        SimPsp psp = new SimPsp(ia, evd, flag);
        ia.run(() -> psp.listen(any ? 0 : connQual));
        return psp;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PSP;
    }

    @Override
    boolean arrived(SimCr cr) {
        if (flag == PspFlag.PROVIDER) {
            SimEp ep;
            try {
                ep = SimEp.create(ia, null, null, null, null, null, attributesFor(cr), true);
            } catch (DatException e) {
                LOG.debug("{}: no endpoint for a request: {}", this, e.getMessage());
                return false;
            }
            ia.remember(ep);
            cr.localEp(ep);
            if (!deliver(cr)) {
                ep.destroy();
                ia.forget(ep);
                return false;
            }
            return true;
        }
        return deliver(cr);
    }

    /** dat_psp_create(3DAT): the provider sets up endpoint attributes to match the active side's request. */
    private EpAttributes attributesFor(SimCr cr) {
        EpAttributes d = EpAttributeRules.defaults(ia);
        // The request, seen from this side: responder resources = the reads the requester will issue at most;
        // initiator depth = the reads it will answer at most.
        int in =
                Math.min(cr.requestParam().responderResources(), ia.attributes().maxRdmaReadIn());
        int out = Math.min(cr.requestParam().initiatorDepth(), ia.attributes().maxRdmaReadOut());
        return d.toBuilder().maxRdmaReadIn(in).maxRdmaReadOut(out).build();
    }

    @Override
    public PspParams query() {
        checkHandle();
        return new PspParams(ia, qual(), evd, flag);
    }

    @Override
    public String toString() {
        return "PSP[" + qual() + "," + flag + "]";
    }
}
