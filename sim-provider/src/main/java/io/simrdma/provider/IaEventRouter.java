package io.simrdma.provider;

import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.EventNumber;
import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmId;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The glue from the fabric to the DAT objects of one IA: each thing the fabric reports goes to the
 * object it concerns, found in the tables the objects register themselves in.
 * <ul>
 *   <li>a work completion, taken off an EVD's CQ: to the endpoint or SRQ its wr_id names
 *       ({@link WrId}), which turns it into a DAT event ({@link #deliver});</li>
 *   <li>a connection-manager event: to the endpoint, service point or connection request that
 *       owns its id ({@link #own});</li>
 *   <li>a device async event: a QP error to the endpoint of the QP (DAT_ASYNC_ERROR_EP_BROKEN),
 *       an SRQ limit to the SRQ, a device fatal error to the IA;</li>
 *   <li>a QP state change to ERR not made by the provider: to the endpoint, whose connection is
 *       broken.</li>
 * </ul>
 *
 * <p>Callers: {@link SimIa} (wires it to the device and the connection manager when the IA
 * opens, and off when it closes), {@link SimEvd} (completions), and the objects that register:
 * {@link SimEp} and {@link EpConfiguration} (endpoints and their QPs), {@link SimSrq},
 * {@link EpConnection}, {@link SimServicePoint} and {@link SimCr} (connection-manager ids).
 *
 * <p>Thread safety: thread-safe. Completions arrive on the engine thread; connection-manager and
 * device events on the device's executor. The endpoint and SRQ tables are concurrent maps; the
 * connection-manager id owners are touched on the device's executor only.
 */
final class IaEventRouter {

    private static final Logger LOG = LoggerFactory.getLogger(IaEventRouter.class);

    private final SimIa ia;
    /** Endpoints by id, SRQs by id, endpoints by QP number: read on every completion, without boxing. */
    private final IntTable<SimEp> eps = new IntTable<>();

    private final IntTable<SimEp> epsByQpn = new IntTable<>();
    private final IntTable<SimSrq> srqs = new IntTable<>();
    /** The SRQs, for the SRQ limit event (which names the verbs SRQ). */
    private final Set<SimSrq> srqSet = ConcurrentHashMap.newKeySet();
    /** Connection-manager ids of endpoints, service points and requests: device executor only. */
    private final Map<CmId, Object> owners = new IdentityHashMap<>();

    private final Consumer<AsyncEvent> asyncListener = this::onDeviceEvent;
    private final Device.QpStateListener qpListener = this::onQpState;

    IaEventRouter(SimIa ia) {
        this.ia = ia;
    }

    /** Starts taking the device's async events and QP state changes (dat_ia_open(3DAT)). */
    void startDeviceEvents() {
        ia.device.addAsyncEventListener(asyncListener);
        ia.device.addQpStateListener(qpListener);
    }

    /** Stops taking them (dat_ia_close(3DAT)). */
    void stopDeviceEvents() {
        ia.device.removeAsyncEventListener(asyncListener);
        ia.device.removeQpStateListener(qpListener);
    }

    // ------------------------------------------------------------------ the tables

    void registerEp(SimEp ep) {
        eps.put(ep.id, ep);
    }

    void unregisterEp(SimEp ep) {
        eps.remove(ep.id, ep);
    }

    void qpCreated(SimEp ep, QueuePair qp) {
        epsByQpn.put(qp.qpNum(), ep);
    }

    void qpDestroyed(QueuePair qp) {
        SimEp ep = epsByQpn.get(qp.qpNum());
        if (ep != null) {
            epsByQpn.remove(qp.qpNum(), ep);
        }
    }

    private SimEp epByQpn(int qpn) {
        return epsByQpn.get(qpn);
    }

    void registerSrq(SimSrq srq) {
        srqs.put(srq.id, srq);
        srqSet.add(srq);
    }

    void unregisterSrq(SimSrq srq) {
        srqs.remove(srq.id, srq);
        srqSet.remove(srq);
    }

    /** {@code owner} (an endpoint, a service point or a request) takes the events of {@code id}. Device executor. */
    void own(CmId id, Object owner) {
        owners.put(id, owner);
    }

    /** Nobody takes the events of {@code id} any more. Device executor. */
    void disown(CmId id) {
        owners.remove(id);
    }

    /** The owner of {@code id}, or null. Device executor. */
    Object ownerOf(CmId id) {
        return owners.get(id);
    }

    // ------------------------------------------------------------------ completions

    /**
     * Delivers a completion taken off {@code evd}'s CQ: the endpoint or SRQ its wr_id names turns it
     * into a DAT event and queues it on {@code evd} (nothing, if the poster is gone); {@code evd} null
     * for a stream with no EVD ({@link DiscardCq}), whose work request is retired without an event.
     * Engine thread.
     */
    void deliver(SimEvd evd, WorkCompletion wc, boolean solicited) {
        long wrId = wc.wrId();
        long tag = WrId.tag(wrId);
        int owner = WrId.owner(wrId);
        int slot = WrId.slot(wrId);
        if (tag == WrId.SRQ) {
            SimSrq srq = srqs.get(owner);
            SimEp ep = epByQpn(wc.qpNum());
            if (srq != null && ep != null) {
                srq.complete(evd, ep, slot, wc, solicited);
            }
            return;
        }
        SimEp ep = eps.get(owner);
        if (ep == null) {
            return;
        }
        if (tag == WrId.RECV) {
            ep.posting.completeRecv(evd, slot, wc, solicited);
        } else {
            ep.posting.completeRequest(evd, slot, wc);
        }
    }

    // ------------------------------------------------------------------ connection manager and device events

    /** A connection-manager event of one of this IA's ids. Device executor. */
    void onCmEvent(CmEvent e) {
        try {
            Object owner = owners.get(e.id());
            if (owner == null && e.listenId() != null) {
                owner = owners.get(e.listenId());
            }
            if (owner instanceof SimEp ep) {
                ep.connection.onCmEvent(e);
            } else if (owner instanceof SimServicePoint sp) {
                sp.onCmEvent(e);
            } else if (owner instanceof SimCr cr) {
                cr.onCmEvent(e);
            } else {
                LOG.debug("{}: CM event {} for no current owner", ia.name.redacted(), e);
            }
        } finally {
            e.ack();
        }
    }

    /** A device async event: QP and SRQ events become DAT async events. Device executor. */
    private void onDeviceEvent(AsyncEvent e) {
        if (ia.closed || ia.asyncEvd == null) {
            return;
        }
        switch (e.type()) {
            case QP_FATAL:
            case QP_REQ_ERR:
            case QP_ACCESS_ERR: {
                SimEp ep = epByQpn(e.qp().qpNum());
                if (ep != null && ep.config.qpIs(e.qp())) {
                    ia.postAsync(EventNumber.ASYNC_ERROR_EP_BROKEN, ep, AsyncErrorReason.EP_TRANSFER_TO_ERROR);
                }
                break;
            }
            case SRQ_LIMIT_REACHED:
                for (SimSrq s : srqSet) {
                    if (s.isVerbsSrq(e.srq())) {
                        s.lowWatermarkReached();
                    }
                }
                break;
            case DEVICE_FATAL:
                ia.postAsync(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, ia, AsyncErrorReason.IA_CATASTROPHIC_ERROR);
                break;
            default:
                break;
        }
    }

    /** A QP changed state: a connected endpoint whose QP failed is broken. Device executor. */
    private void onQpState(QueuePair qp, QpState from, QpState to) {
        if (to == QpState.ERR && !ia.closed) {
            SimEp ep = epByQpn(qp.qpNum());
            if (ep != null && ep.config.qpIs(qp) && qp.errorCause() != QueuePair.ErrorCause.MODIFY) {
                ep.connection.onQpFailed();
            }
        }
    }
}
