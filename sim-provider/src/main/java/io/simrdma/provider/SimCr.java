package io.simrdma.provider;

import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.HandleType;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.sched.Task;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Connection Request (dat_cr_query(3DAT)): the connection-manager id of an arrived request,
 * with the requester's address, port qualifier and private data, and the endpoint that must
 * accept it if the service point named one. Accept, reject and handoff destroy it; an abrupt IA
 * close rejects it.
 *
 * <p>If the requester gives up before the consumer answers (its connect timed out, it went
 * away), the CR stays until the consumer answers: an accept then ends in
 * ACCEPT_COMPLETION_ERROR on the endpoint (dat_cr_accept(3DAT)).
 *
 * <p>Threading: every operation runs on the device's executor.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimCr extends SimHandle implements ConnectionRequest {

    private static final Logger LOG = LoggerFactory.getLogger(SimCr.class);

    private final CmId child;
    private final ConnParam request;
    private final byte[] privateData;
    private final int remotePortQual;
    private final InetSocketAddress remoteAddress;
    private final long connQual;
    private volatile SimEp localEp;
    /** Device executor only. */
    private boolean aborted;

    SimCr(SimIa ia, CmId child, ConnParam request, byte[] privateData, int remotePortQual, long connQual) {
        super(ia, HandleType.CR);
        this.child = child;
        this.request = request;
        this.privateData = privateData;
        this.remotePortQual = remotePortQual;
        // The requester's IA address, as its dat_ia_query reports it.
        this.remoteAddress = ia.fromCm(child.peerAddress());
        this.connQual = connQual;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_CR;
    }

    ConnParam requestParam() {
        return request;
    }

    InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    long remotePortQual() {
        return remotePortQual;
    }

    long connQual() {
        return connQual;
    }

    boolean aborted() {
        return aborted;
    }

    void localEp(SimEp ep) {
        localEp = ep;
        ep.connection.namedBy(this);
    }

    @Override
    public CrParams query() {
        checkHandle();
        SimEp ep = localEp;
        return new CrParams(
                remoteAddress, remotePortQual, privateData, Optional.ofNullable(ep == null || ep.freed ? null : ep));
    }

    /** An event of the request's id before it was accepted: anything but the request ends it. Device executor. */
    void onCmEvent(CmEvent e) {
        switch (e.type()) {
            case REJECTED:
            case CONNECT_ERROR:
            case DISCONNECTED:
            case UNREACHABLE:
            case DEVICE_REMOVAL:
            case TIMEWAIT_EXIT:
                LOG.debug("CR on {}: requester gone ({})", connQual, e.type());
                aborted = true;
                break;
            default:
                break;
        }
    }

    // ------------------------------------------------------------------ dat_cr_accept

    @Override
    public void accept(Endpoint ep, byte[] data) {
        checkHandle();
        if (data != null && data.length > SimProvider.MAX_PRIVATE_DATA) {
            throw DatException.invalidParameter(
                    "private data of " + data.length + " bytes exceeds max_private_data_size "
                            + SimProvider.MAX_PRIVATE_DATA + " (dat_cr_accept(3DAT))");
        }
        SimEp named = localEp;
        SimEp target;
        if (ep == null) {
            if (named == null || named.freed) {
                throw new DatException(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_EP,
                        "the request names no endpoint, so dat_cr_accept needs one");
            }
            target = named;
        } else {
            target = SimHandle.check(ep, SimEp.class, ia, DatReturnSubtype.INVALID_HANDLE_EP);
            if (named != null && target != named) {
                throw DatException.invalidParameter(
                        "only the endpoint the service point provided can accept this request");
            }
        }
        byte[] copy = data == null ? new byte[0] : data.clone();
        ia.run(() -> {
            checkHandle();
            if (named == null
                    && (target.state == EndpointState.PASSIVE_CONNECTION_PENDING
                            || target.state == EndpointState.TENTATIVE_CONNECTION_PENDING)) {
                // dat_cr_accept(3DAT): an EP another request names (its RSP's, or a provider EP) can accept only that
                // one.
                throw DatException.invalidParameter("the endpoint belongs to another connection request");
            }
            target.connection.accept(this, child, copy);
            boolean wasAborted = aborted;
            retire();
            if (wasAborted) {
                release();
            }
        });
    }

    // ------------------------------------------------------------------ dat_cr_reject

    @Override
    public void reject() {
        checkHandle();
        ia.run(() -> {
            checkHandle();
            rejectAndRelease();
        });
    }

    /** Rejects the request, gives its endpoint back (to the provider or the consumer), and ends the CR. Device executor. */
    private void rejectAndRelease() {
        sendReject();
        SimEp ep = localEp;
        if (ep != null && !ep.freed) {
            ep.connection.rejected();
        }
        retire();
        release();
    }

    private void sendReject() {
        if (aborted) {
            return;
        }
        try {
            child.reject(PrivateData.encode(null, (int) connQual));
        } catch (VerbsException e) {
            LOG.debug("CR on {}: reject not sent: {}", connQual, e.getMessage());
        }
    }

    // ------------------------------------------------------------------ dat_cr_handoff

    @Override
    public void handoff(long handoffQual) {
        checkHandle();
        ia.run(() -> {
            checkHandle();
            SimServicePoint target = ia.servicePoint(handoffQual);
            if (target == null) {
                throw DatException.invalidParameter(
                        "no service point of this IA listens on " + handoffQual + " (dat_cr_handoff(3DAT))");
            }
            SimEp ep = localEp;
            SimCr moved = new SimCr(ia, child, request, privateData, remotePortQual, target.qual());
            moved.aborted = aborted;
            if (!target.arrived(moved)) {
                throw DatException.invalidParameter("the service point on " + handoffQual
                        + " cannot take the request (a used RSP, or its EVD is full)");
            }
            // The old request's endpoint goes back to its owner: the provider's is freed, an RSP's is UNCONNECTED.
            if (ep != null && !ep.freed) {
                ep.connection.rejected();
            }
            ia.router.own(child, moved);
            retire();
        });
    }

    // ------------------------------------------------------------------ lifecycle

    /** The CR handle is gone (accept, reject, handoff). */
    private void retire() {
        freed = true;
        ia.forget(this);
    }

    /** Releases the request's connection-manager id when no endpoint took it. Device executor. */
    private void release() {
        if (ia.router.ownerOf(child) == this) {
            ia.router.disown(child);
        }
        destroyId();
    }

    private void destroyId() {
        try {
            child.destroy();
        } catch (VerbsException e) {
            LOG.debug("CR on {}: id not destroyed: {}", connQual, e.getMessage());
        }
    }

    /**
     * Refuses a request no service point could take: the requester sees NON_PEER_REJECTED, as
     * when nobody listens. Device executor, inside the request's event, so the id is destroyed
     * once the event was acknowledged.
     */
    void refuse() {
        freed = true;
        ia.router.disown(child);
        ia.device.executor().execute(new Task() {
            @Override
            public void run() {
                destroyId();
            }
        });
    }

    /** dat_ia_close(3DAT) abrupt: the request is rejected and its provider endpoint freed. */
    @Override
    void destroy() {
        ia.run(() -> {
            if (!freed) {
                rejectAndRelease();
            }
        });
    }

    @Override
    public String toString() {
        return "CR[" + connQual + " from " + remoteAddress + ":" + remotePortQual + "]";
    }
}
