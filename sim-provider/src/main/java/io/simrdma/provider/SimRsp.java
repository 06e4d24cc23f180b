package io.simrdma.provider;

import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.RspParams;

/**
 * A Reserved Service Point (dat_rsp_create(3DAT)): listens on a connection qualifier for one
 * request, which only its endpoint can accept. Creating it moves the endpoint to RESERVED; the
 * request moves it to PASSIVE_CONNECTION_PENDING. Later requests, and requests after the
 * endpoint was freed, are refused as if nobody listened. Freeing the RSP before its request
 * arrived gives the endpoint back to the consumer (UNCONNECTED, dat_rsp_free(3DAT)); the RSP is
 * not freed by its request (choice C2 of the state machine digest).
 *
 * <p>Thread safety: thread-safe.
 */
final class SimRsp extends SimServicePoint implements ReservedServicePoint {

    private final SimEp ep;
    /** Device executor only. */
    private boolean used;

    private boolean epGone;

    private SimRsp(SimIa ia, SimEvd evd, SimEp ep) {
        super(ia, HandleType.RSP, evd);
        this.ep = ep;
    }

    static SimRsp create(SimIa ia, long connQual, Endpoint epHandle, EventDispatcher evdHandle) {
        SimEvd evd = checkEvd(ia, evdHandle);
        SimEp ep = SimHandle.check(epHandle, SimEp.class, ia, DatReturnSubtype.INVALID_HANDLE_EP);
        checkQual(connQual);
        SimRsp rsp = new SimRsp(ia, evd, ep);
        ia.run(() -> {
            ep.checkHandle();
            ep.connection.reserve(rsp, connQual);
            try {
                rsp.listen(connQual);
            } catch (RuntimeException e) {
                ep.connection.unreserve(rsp);
                throw e;
            }
        });
        return rsp;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RSP;
    }

    @Override
    boolean arrived(SimCr cr) {
        if (used || epGone || ep.freed) {
            return false;
        }
        cr.localEp(ep);
        // dat_rsp_create(3DAT): the EP is PASSIVE_CONNECTION_PENDING by the time its request event can be seen.
        ep.connection.requestArrived();
        if (!deliver(cr)) {
            ep.state(EndpointState.RESERVED);
            return false;
        }
        used = true;
        return true;
    }

    /** The reserved endpoint was freed: no request can be accepted any more. Device executor. */
    void epGone() {
        epGone = true;
    }

    @Override
    public RspParams query() {
        checkHandle();
        return new RspParams(ia, qual(), evd, ep);
    }

    /** If no request came, the endpoint goes back to the consumer (dat_rsp_free(3DAT)). */
    @Override
    void stopped() {
        if (!used && !epGone) {
            ep.connection.unreserve(this);
        }
    }

    @Override
    public String toString() {
        return "RSP[" + qual() + ",EP " + ep.id + "]";
    }
}
