package io.simrdma.fabric.cm;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.wire.Gid;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection manager of one device (after the kernel's ib_cm agent): it receives the CM
 * management datagrams that arrive on the device's QP1, the device's asynchronous events, its
 * QPs' state changes and its removal, and hands each to the part that deals with it; the calls
 * of the application's {@link CmId}s arrive here too and are carried onto the device executor.
 *
 * <pre>
 *   CmId (application threads) ─┐
 *   MADs on QP1 (REQ ... MRA)  ─┼─> CmAgent ──> ConnectionMachine  IB CM states, IBA 12.9.6
 *   async events, QP → ERR    ──┤       │          ├─ CmSender       MADs out, retransmission
 *   device removal            ──┘       │          ├─ QpTransitions  RTR, RTS, ERR
 *                                       │          └─ ConnectionTable comm ID → id
 *                                       └──────> AddressResolver   rdma_resolve_addr / _route
 * </pre>
 *
 * <p>Thread safety: thread-safe. The connection state is confined to the device's executor: the
 * application's calls reach the state machine through {@code executor().call(...)}, which runs
 * them there (at once if already there) and returns their result or exception; MADs arrive on
 * the executor already.
 *
 * <p>Who calls it: {@link RdmaCm} makes one per device ({@link RdmaCm#agent}); {@link CmId}
 * forwards its calls; the device calls {@link #onMad} and the listeners registered at construction.
 */
final class CmAgent implements Device.MadHandler {

    private static final Logger LOG = LoggerFactory.getLogger(CmAgent.class);

    private final RdmaCm cm;
    private final Device device;
    private final ConnectionTable table = new ConnectionTable();
    private final ConnectionMachine machine;
    private final AddressResolver resolver;

    CmAgent(RdmaCm cm, Device device) {
        this.cm = cm;
        this.device = device;
        this.machine = new ConnectionMachine(cm, device, table);
        this.resolver = new AddressResolver(cm, device);
        device.setMadHandler(this);
        device.addAsyncEventListener(this::onAsyncEvent);
        device.addQpStateListener(this::onQpState);
        device.addCloseListener(this::onDeviceClosed);
    }

    private <T> T onDevice(Callable<T> c) {
        return device.executor().call(c);
    }

    private void onDevice(Runnable r) {
        onDevice(() -> {
            r.run();
            return null;
        });
    }

    // ------------------------------------------------------------------ calls of the application's ids

    void resolveAddr(CmId id, int timeoutMs) {
        resolver.resolveAddr(id, timeoutMs);
    }

    void resolveRoute(CmId id, int timeoutMs) {
        resolver.resolveRoute(id, timeoutMs);
    }

    void connect(CmId id, ConnParam p) {
        onDevice(() -> machine.connect(id, p));
    }

    void establish(CmId id) {
        onDevice(() -> machine.establish(id));
    }

    void accept(CmId child, ConnParam p) {
        onDevice(() -> machine.accept(child, p));
    }

    void reject(CmId child, byte[] privateData) {
        onDevice(() -> machine.reject(child, privateData));
    }

    /** COMM_EST reported by rdma_notify(3) ({@code fromUser}) or by the QP's asynchronous event. */
    void notifyCommEst(CmId id, boolean fromUser) {
        onDevice(() -> machine.commEst(id, fromUser));
    }

    /** @return true if a DISCONNECTED event is still to come for the caller to wait on */
    boolean disconnect(CmId id) {
        return onDevice(() -> machine.disconnect(id));
    }

    void destroyed(CmId id) {
        onDevice(() -> machine.destroyed(id));
    }

    // ------------------------------------------------------------------ what the device reports

    @Override
    public void onMad(Gid source, int sourceQp, byte[] mad) {
        CmMessage m = CmMessage.decode(mad);
        if (m == null) {
            LOG.debug("{}: dropped a MAD that is not a known CM message", device.name());
            return;
        }
        LOG.debug("{}: received {}", device.name(), m);
        switch (m.type) {
            case REQ:
                machine.onReq(source, m);
                break;
            case REP:
                machine.onRep(source, m);
                break;
            case RTU:
                machine.onRtu(m);
                break;
            case REJ:
                machine.onRej(source, m);
                break;
            case DREQ:
                machine.onDreq(source, m);
                break;
            case DREP:
                machine.onDrep(m);
                break;
            case MRA:
                machine.onMra(m);
                break;
            case SIDR_REQ:
                machine.onSidrReq(source, m);
                break;
            case SIDR_REP:
                machine.onSidrRep(source, m);
                break;
            default:
                break;
        }
    }

    /**
     * The transport toward {@code destination} refused this device for good (a TCP link's
     * handshake was refused): the requests waiting for that node's answer end now
     * ({@link ConnectionMachine#peerUnreachable}).
     */
    @Override
    public void onUnreachable(Gid destination, String cause) {
        machine.peerUnreachable(destination, cause);
    }

    private void onAsyncEvent(AsyncEvent e) {
        if (e.type() == AsyncEventType.PORT_ACTIVE) {
            resolver.portActive();
        }
        if (e.type() == AsyncEventType.COMM_EST) {
            for (CmId id : table.snapshot()) {
                if (id.qp() == e.qp() && id.connection.state == Connection.State.REP_SENT) {
                    notifyCommEst(id, false);
                }
            }
        }
    }

    /** A QP went to ERR: if it is a connection's QP and the CM did not do it, the connection failed. */
    private void onQpState(QueuePair qp, QpState from, QpState to) {
        if (to != QpState.ERR) {
            return;
        }
        for (CmId id : table.snapshot()) {
            if (id.qp() == qp) {
                machine.qpFailed(id, qp);
            }
        }
    }

    /**
     * The device was closed: every id bound to it gets DEVICE_REMOVAL (rdma_get_cm_event(3): the
     * user must then destroy it); its connection and resolution work ends without further events.
     */
    private void onDeviceClosed() {
        if (cm.isClosed()) {
            return;
        }
        List<CmId> removed = cm.idsOn(device);
        onDevice(() -> {
            machine.deviceClosed();
            for (CmId id : removed) {
                resolver.cancel(id);
                machine.deviceRemoved(id);
            }
        });
    }
}
