package io.simrdma.fabric.cm;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.wire.Gid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;

/**
 * The IB CM of one device (after the kernel's ib_cm): sends and receives the CM messages REQ, REP,
 * RTU, REJ, DREQ and DREP as management datagrams on QP1, retransmits REQ, REP and DREQ after the
 * CM response timeout, answers duplicates without executing them twice, moves connection QPs
 * through RTR and RTS, and turns what happens into {@link CmEvent}s.
 *
 * <p>Connection states follow IBA 12.9.6: active IDLE → REQ_SENT → (REP) ESTABLISHED, passive
 * REQ_RCVD → (accept) REP_SENT → (RTU or COMM_EST) ESTABLISHED; then DREQ_SENT or (DREQ
 * received) TIMEWAIT → IDLE.
 *
 * <p>Thread safety: all state is confined to the device's executor; API calls arrive through
 * {@code executor().call(...)}.
 */
final class CmAgent implements Device.MadHandler {

    private static final Logger LOG = LoggerFactory.getLogger(CmAgent.class);
    private static final int ETIMEDOUT = -110;

    private final RdmaCm cm;
    private final Device device;
    private final CmConfig config;
    private final QpTransitions qps;
    private final ConnectionTable table = new ConnectionTable();
    private final AddressResolver resolver;
    private final CmSender sender;

    CmAgent(RdmaCm cm, Device device) {
        this.cm = cm;
        this.device = device;
        this.config = cm.config();
        this.qps = new QpTransitions(device, config);
        this.resolver = new AddressResolver(cm, device);
        this.sender = new CmSender(device, config, this::onTimeout);
        device.setMadHandler(this);
        device.addAsyncEventListener(this::onAsyncEvent);
        device.addQpStateListener(this::onQpState);
        device.addCloseListener(this::onDeviceClosed);
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
            for (CmId id : removed) {
                if (id.connection.timer != null) {
                    id.connection.timer.stop();
                }
                resolver.cancel(id);
                id.connection.state = Connection.State.IDLE;
                table.forget(id);
                id.state = CmId.State.DEVICE_REMOVAL;
                event(id, CmEventType.DEVICE_REMOVAL, 0, null);
            }
            return null;
        });
    }

    private <T> T onDevice(java.util.concurrent.Callable<T> c) {
        return device.executor().call(c);
    }

    private void event(CmId id, CmEventType type, int status, ConnParam param) {
        id.events.report(device, type, status, param);
    }

    // ------------------------------------------------------------------ address and route

    void resolveAddr(CmId id, int timeoutMs) {
        resolver.resolveAddr(id, timeoutMs);
    }

    void resolveRoute(CmId id, int timeoutMs) {
        resolver.resolveRoute(id, timeoutMs);
    }

    // ------------------------------------------------------------------ active side

    void connect(CmId id, ConnParam p) {
        onDevice(() -> {
            id.connection.connectParam = p;
            id.connection.localCommId = cm.newCommId();
            table.addLocal(id);
            id.connection.localPsn = cm.newPsn();
            id.connection.transactionId = sender.newTid();
            id.connection.remoteGid = RdmaCm.gidOf(id.peer);
            QueuePair qp = id.qp();
            CmMessage req = CmMessage.of(CmMessage.Type.REQ);
            req.transactionId = id.connection.transactionId;
            req.localCommId = id.connection.localCommId;
            req.serviceId = id.ps.serviceId(id.peer.getPort());
            req.localCaGuid = device.guid();
            req.localQpn = qp != null ? qp.qpNum() : p.qpNum();
            req.responderResources = p.responderResources();
            req.initiatorDepth = p.initiatorDepth();
            req.remoteCmResponseTimeout = config.cmResponseTimeout();
            req.flowControl = p.flowControl();
            req.startingPsn = id.connection.localPsn;
            req.localCmResponseTimeout = config.cmResponseTimeout();
            req.retryCount = p.retryCount();
            req.pathMtu = id.pathMtuCode;
            req.rnrRetryCount = p.rnrRetryCount();
            req.maxCmRetries = config.maxCmRetries();
            req.srq = qp != null ? qp.srq() != null : p.srq();
            req.primaryLocalGid = device.gid();
            req.primaryRemoteGid = id.connection.remoteGid;
            req.trafficClass = id.tos;
            req.hopLimit = 64;
            req.localAckTimeout = id.ackTimeoutFor(config);
            // RDMA_PS_TCP carries the RDMA CM header (addresses and port) in the REQ's private data;
            // RDMA_PS_IB, addressed by GIDs and service IDs as native IB, leaves all 92 bytes to the user.
            req.privateData = id.ps == PortSpace.TCP ? CmaHeader.prepend(id.local, id.peer, p.privateData()) : p.privateData();
            id.connection.state = Connection.State.REQ_SENT;
            sender.sendTracked(id, req);
            return null;
        });
    }

    private void onRep(Gid source, CmMessage rep) {
        CmId id = table.byLocal(rep.remoteCommId);
        if (id == null) {
            return;
        }
        if (id.connection.state == Connection.State.ESTABLISHED && id.connection.lastMad != null && id.connection.remoteCommId == rep.localCommId) {
            // Our RTU was lost: the passive side repeats its REP; repeat the RTU.
            sender.send(source, id.connection.lastMad);
            return;
        }
        if (id.connection.state != Connection.State.REQ_SENT) {
            return;
        }
        id.connection.timer.stop();
        id.connection.remoteCommId = rep.localCommId;
        id.connection.remoteGuid = rep.localCaGuid;
        id.connection.remoteQpn = rep.localQpn;
        id.connection.remotePsn = rep.startingPsn;
        id.connection.rnrRetryForQp = rep.rnrRetryCount;
        // The peer's responder resources are our initiator depth and vice versa (rdma_get_cm_event(3)).
        ConnParam seen = new ConnParam(rep.privateData, rep.initiatorDepth, rep.responderResources, rep.flowControl,
                id.connection.connectParam.retryCount(), rep.rnrRetryCount, rep.srq, rep.localQpn);
        QueuePair qp = id.qp();
        if (qp == null) {
            id.connection.state = Connection.State.REP_RCVD;
            event(id, CmEventType.CONNECT_RESPONSE, 0, seen);
            return;
        }
        try {
            qps.toRtr(id, qp, rep.initiatorDepth);
            // initiator_depth is the most reads the local side will have outstanding (rdma_connect(3)): a REP cannot raise it.
            qps.toRts(id, qp, id.connection.connectParam.retryCount(), rep.rnrRetryCount,
                    Math.min(id.connection.connectParam.initiatorDepth(), rep.responderResources));
        } catch (VerbsException e) {
            LOG.debug("{}: cannot move QP {} for the connection: {}", device.name(), qp.qpNum(), e.getMessage());
            sender.sendRej(id.connection.remoteGid, id.connection.localCommId, id.connection.remoteCommId, rep.transactionId, CmMessage.MSG_REP,
                    RejectReason.NO_QP, null);
            attemptEnded(id, CmEventType.CONNECT_ERROR, -Errno.EINVAL.value(), null);
            return;
        }
        sender.sendRtu(id.connection);
        id.connection.state = Connection.State.ESTABLISHED;
        id.state = CmId.State.ESTABLISHED;
        event(id, CmEventType.ESTABLISHED, 0, seen);
    }

    void establish(CmId id) {
        onDevice(() -> {
            if (id.connection.state != Connection.State.REP_RCVD) {
                throw new VerbsException(Errno.EINVAL, "rdma_establish without a pending CONNECT_RESPONSE");
            }
            sender.sendRtu(id.connection);
            id.connection.state = Connection.State.ESTABLISHED;
            id.state = CmId.State.ESTABLISHED;
            return null;
        });
    }

    // ------------------------------------------------------------------ passive side

    private void onReq(Gid source, CmMessage req) {
        CmId existing = table.byRemote(req.localCaGuid, req.localCommId);
        if (existing != null) {
            // A duplicate REQ: answer again what we answered, never create a second connection.
            if ((existing.connection.state == Connection.State.REP_SENT || existing.connection.state == Connection.State.IDLE) && existing.connection.lastMad != null) {
                sender.send(source, existing.connection.lastMad);
            }
            return;
        }
        PortSpace ps = PortSpace.ofServiceId(req.serviceId);
        int port = (int) (req.serviceId & 0xFFFF);
        CmId listener = ps == null ? null : cm.findListener(ps, device, port);
        if (listener == null) {
            // Nobody listens on this service: the remote CM, not an application, rejects.
            sender.sendRej(source, 0, req.localCommId, req.transactionId, CmMessage.MSG_REQ, RejectReason.INVALID_SERVICE_ID, null);
            return;
        }
        if (req.pathMtu > device.queryPort(1).activeMtu().code()) {
            // IBA 12.6.7.2 reason 26: this port cannot carry the REQ's path MTU (a TCP node's peer cannot know our
            // MTU when it resolves the route); a smaller MTU here would leave the two QPs disagreeing on packet sizes.
            sender.sendRej(source, 0, req.localCommId, req.transactionId, CmMessage.MSG_REQ, RejectReason.INVALID_PATH_MTU, null);
            return;
        }
        if (listener.listenQueue.isFull()) {
            LOG.debug("{}: backlog of {} full, REQ dropped", device.name(), listener);
            return;
        }
        byte[] pd = req.privateData;
        int header = ps == PortSpace.TCP ? CmaHeader.LENGTH : 0;
        int srcPort = ps == PortSpace.TCP ? CmaHeader.sourcePort(pd) : 0;
        Gid srcGid = ps == PortSpace.TCP ? CmaHeader.sourceGid(pd) : req.primaryLocalGid;
        CmId child = cm.newChild(listener, device, port);
        child.listener = listener;
        listener.listenQueue.admitted();
        child.peer = new InetSocketAddress(RdmaCm.inetOf(srcGid), srcPort);
        child.connection.localCommId = cm.newCommId();
        table.addLocal(child);
        child.connection.remoteCommId = req.localCommId;
        child.connection.remoteGuid = req.localCaGuid;
        table.addRemote(req.localCaGuid, req.localCommId, child);
        child.connection.remoteGid = source;
        child.connection.remoteQpn = req.localQpn;
        child.connection.remotePsn = req.startingPsn;
        child.pathMtuCode = Math.min(req.pathMtu == 0 ? Mtu.MTU_4096.code() : req.pathMtu,
                device.queryPort(1).activeMtu().code());
        child.connection.retryCountForQp = req.retryCount;
        child.connection.rnrRetryForQp = req.rnrRetryCount;
        child.connection.transactionId = req.transactionId;
        child.tos = req.trafficClass;
        child.ackTimeout = req.localAckTimeout;
        byte[] user = Arrays.copyOfRange(pd, header, CmMessage.Type.REQ.privateDataLength);
        child.connection.requestParam = new ConnParam(user, req.initiatorDepth, req.responderResources, req.flowControl,
                req.retryCount, req.rnrRetryCount, req.srq, req.localQpn);
        child.connection.state = Connection.State.REQ_RCVD;
        child.state = CmId.State.CONNECT;
        CmEvent e = new CmEvent(CmEventType.CONNECT_REQUEST, child, listener, 0, child.connection.requestParam, cm.fabric().now());
        LOG.debug("{}: {} on {}", device.name(), e, listener);
        listener.events.requestArrived(child, e);
    }

    void accept(CmId child, ConnParam p) {
        onDevice(() -> {
            if (child.connection.state != Connection.State.REQ_RCVD) {
                throw new VerbsException(Errno.EINVAL, "no pending connection request to accept (state " + child.connection.state + ")");
            }
            child.connection.localPsn = cm.newPsn();
            QueuePair qp = child.qp();
            if (qp != null) {
                qps.toRtr(child, qp, p.responderResources());
                qps.toRts(child, qp, child.connection.retryCountForQp, child.connection.rnrRetryForQp, p.initiatorDepth());
            }
            CmMessage rep = CmMessage.of(CmMessage.Type.REP);
            rep.transactionId = child.connection.transactionId;
            rep.localCommId = child.connection.localCommId;
            rep.remoteCommId = child.connection.remoteCommId;
            rep.localQpn = qp != null ? qp.qpNum() : p.qpNum();
            rep.startingPsn = child.connection.localPsn;
            rep.responderResources = p.responderResources();
            rep.initiatorDepth = p.initiatorDepth();
            rep.targetAckDelay = device.query().localCaAckDelay();
            rep.flowControl = p.flowControl();
            rep.rnrRetryCount = p.rnrRetryCount();
            rep.srq = qp != null ? qp.srq() != null : p.srq();
            rep.localCaGuid = device.guid();
            rep.privateData = p.privateData();
            child.connection.connectParam = p;
            child.connection.state = Connection.State.REP_SENT;
            child.listener.listenQueue.answered();
            sender.sendTracked(child, rep);
            return null;
        });
    }

    void reject(CmId child, byte[] privateData) {
        onDevice(() -> {
            if (child.connection.state != Connection.State.REQ_RCVD) {
                throw new VerbsException(Errno.EINVAL, "no pending connection request to reject (state " + child.connection.state + ")");
            }
            refuseRequest(child, privateData);
            return null;
        });
    }

    private void onRtu(CmMessage rtu) {
        CmId id = table.byLocal(rtu.remoteCommId);
        if (id != null && id.connection.state == Connection.State.REP_SENT) {
            established(id, rtu.privateData);
        }
    }

    private void established(CmId id, byte[] privateData) {
        id.connection.timer.stop();
        id.connection.state = Connection.State.ESTABLISHED;
        id.state = CmId.State.ESTABLISHED;
        ConnParam p = id.connection.connectParam;
        event(id, CmEventType.ESTABLISHED, 0, new ConnParam(privateData, p.responderResources(), p.initiatorDepth(),
                p.flowControl(), id.connection.retryCountForQp, id.connection.rnrRetryForQp, p.srq(), id.connection.remoteQpn));
    }

    /** COMM_EST: data arrived on a passive QP whose RTU is missing; the connection is established (IBA 12.9.6). */
    void notifyCommEst(CmId id, boolean fromUser) {
        onDevice(() -> {
            if (id.connection.state == Connection.State.REP_SENT) {
                established(id, new byte[CmMessage.Type.RTU.privateDataLength]);
            } else if (fromUser) {
                if (id.connection.state == Connection.State.ESTABLISHED) {
                    throw new VerbsException(Errno.EISCONN, "connection already established (rdma_notify(3))");
                }
                throw new VerbsException(Errno.EINVAL, "id is not establishing a connection");
            }
            return null;
        });
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

    /** A connected QP failed (retries exhausted, a remote error): take the connection down with a DREQ. */
    private void onQpState(QueuePair qp, QpState from, QpState to) {
        if (to != QpState.ERR) {
            return;
        }
        for (CmId id : table.snapshot()) {
            if (id.qp() == qp && id.connection.state == Connection.State.ESTABLISHED && !id.connection.cmMovedQpToError) {
                LOG.debug("{}: QP {} of {} failed; disconnecting", device.name(), qp.qpNum(), id);
                id.connection.cmMovedQpToError = true;
                sendDreq(id);
            }
        }
    }

    // ------------------------------------------------------------------ disconnection

    /** @return true if a DISCONNECTED event is still to come for the caller to wait on */
    boolean disconnect(CmId id) {
        return onDevice(() -> {
            switch (id.connection.state) {
                case ESTABLISHED:
                    qps.toError(id);
                    sendDreq(id);
                    return true;
                case DREQ_SENT:
                    return true;
                case TIMEWAIT:
                    qps.toError(id);
                    return false;
                case REQ_SENT:
                case REP_RCVD:
                case REP_SENT:
                    id.connection.timer.stop();
                    // Kept as the answer to a duplicate REQ (onReq): the REJ may be lost, and a resent REP would
                    // establish the connection at the peer while this side has abandoned it.
                    id.connection.lastMad = rejectAttempt(id, RejectReason.CONSUMER_DEFINED, null);
                    qps.toError(id);
                    id.connection.state = Connection.State.IDLE;
                    id.state = CmId.State.DISCONNECT;
                    return false;
                case REQ_RCVD:
                    refuseRequest(id, null);
                    return false;
                default:
                    if (id.state == CmId.State.DISCONNECT) {
                        qps.toError(id);
                        return false;
                    }
                    throw new VerbsException(Errno.EINVAL, "rdma_disconnect on an id that is not connected (" + id.state + ")");
            }
        });
    }

    private void sendDreq(CmId id) {
        CmMessage dreq = CmMessage.of(CmMessage.Type.DREQ);
        dreq.transactionId = sender.newTid();
        dreq.localCommId = id.connection.localCommId;
        dreq.remoteCommId = id.connection.remoteCommId;
        dreq.remoteQpn = id.connection.remoteQpn;
        id.connection.state = Connection.State.DREQ_SENT;
        id.state = CmId.State.DISCONNECT;
        sender.sendTracked(id, dreq);
    }

    private void onDreq(Gid source, CmMessage dreq) {
        CmId id = table.byLocal(dreq.remoteCommId);
        if (id == null || id.connection.remoteCommId != dreq.localCommId) {
            // IBA 12.9.6: a DREQ for no known connection still gets a DREP.
            sender.sendDrep(source, dreq.remoteCommId, dreq.localCommId, dreq.transactionId);
            return;
        }
        switch (id.connection.state) {
            case REP_SENT:
                // The RTU was lost and the peer already disconnects: the connection did exist.
                established(id, new byte[CmMessage.Type.RTU.privateDataLength]);
                disconnected(id, source, dreq);
                break;
            case ESTABLISHED:
            case DREQ_SENT:
                id.connection.timer.stop();
                disconnected(id, source, dreq);
                break;
            case TIMEWAIT:
                id.connection.lastMad = sender.sendDrep(source, id.connection.localCommId, id.connection.remoteCommId, dreq.transactionId);
                break;
            default:
                sender.sendDrep(source, id.connection.localCommId, id.connection.remoteCommId, dreq.transactionId);
                break;
        }
    }

    private void disconnected(CmId id, Gid source, CmMessage dreq) {
        qps.toError(id);
        id.connection.lastMad = sender.sendDrep(source, id.connection.localCommId, id.connection.remoteCommId, dreq.transactionId);
        enterTimewait(id);
    }

    private void onDrep(CmMessage drep) {
        CmId id = table.byLocal(drep.remoteCommId);
        if (id != null && id.connection.state == Connection.State.DREQ_SENT) {
            id.connection.timer.stop();
            enterTimewait(id);
        }
    }

    private void enterTimewait(CmId id) {
        id.connection.state = Connection.State.TIMEWAIT;
        id.state = CmId.State.DISCONNECT;
        event(id, CmEventType.DISCONNECTED, 0, null);
        id.connection.timer.start(config.timewaitNanos());
    }

    // ------------------------------------------------------------------ rejects

    /** Sends the REJ that abandons the attempt of {@code id}: of the REP it sent (REP_SENT), else of the REQ. */
    private byte[] rejectAttempt(CmId id, RejectReason reason, byte[] privateData) {
        return sender.sendRej(id.connection.remoteGid, id.connection.localCommId, id.connection.remoteCommId, id.connection.transactionId,
                id.connection.state == Connection.State.REP_SENT ? CmMessage.MSG_REP : CmMessage.MSG_REQ, reason, privateData);
    }

    /** The application refuses the request {@code child} holds (REQ_RCVD); the REJ also answers a duplicate REQ. */
    private void refuseRequest(CmId child, byte[] privateData) {
        child.connection.lastMad = rejectAttempt(child, RejectReason.CONSUMER_DEFINED, privateData);
        child.listener.listenQueue.answered();
        child.connection.state = Connection.State.IDLE;
        child.state = CmId.State.DISCONNECT;
    }

    /** The connection attempt of {@code id} ended without a connection: the application gets {@code type}. */
    private void attemptEnded(CmId id, CmEventType type, int status, ConnParam p) {
        id.connection.state = Connection.State.IDLE;
        id.state = CmId.State.DISCONNECT;
        event(id, type, status, p);
    }

    private void onRej(Gid source, CmMessage rej) {
        CmId id = table.byLocal(rej.remoteCommId);
        if (id == null) {
            // A requester that gives up before any REP reached it knows no comm id of ours: find its request by its
            // own, unanswered or answered by a REP that was lost (IBA 12.9.6: REJ in REP Sent → Idle).
            id = table.receivedRequest(source, rej.localCommId);
            if (id == null) {
                return;
            }
        }
        ConnParam p = ConnParam.defaults().privateData(rej.privateData);
        switch (id.connection.state) {
            case REQ_RCVD:
                // The requester withdrew a request the application has not answered yet.
                if (id.listener != null) {
                    id.listener.listenQueue.answered();
                    id.listener.listenQueue.withdraw(id);
                }
                attemptEnded(id, CmEventType.REJECTED, rej.reason, p);
                break;
            case REQ_SENT:
            case REP_SENT:
            case REP_RCVD:
                id.connection.timer.stop();
                qps.toError(id);
                attemptEnded(id, CmEventType.REJECTED, rej.reason, p);
                break;
            case ESTABLISHED:
                qps.toError(id);
                enterTimewait(id);
                break;
            default:
                break;
        }
    }

    // ------------------------------------------------------------------ timeouts

    private void onTimeout(CmId id) {
        switch (id.connection.state) {
            case REQ_SENT:
            case REP_SENT:
            case DREQ_SENT:
                if (!sender.retransmit(id)) {
                    giveUp(id);
                }
                return;
            case TIMEWAIT:
                id.connection.state = Connection.State.IDLE;
                table.forget(id);
                event(id, CmEventType.TIMEWAIT_EXIT, 0, null);
                return;
            default:
                return;
        }
    }

    private void giveUp(CmId id) {
        switch (id.connection.state) {
            case REQ_SENT:
                rejectAttempt(id, RejectReason.TIMEOUT, null);
                qps.toError(id);
                attemptEnded(id, CmEventType.UNREACHABLE, ETIMEDOUT, null);
                break;
            case REP_SENT:
                // Kept as the answer to a late duplicate REQ (onReq), which must not get the stale REP: the
                // requester would establish a connection whose passive QP is in ERR.
                id.connection.lastMad = rejectAttempt(id, RejectReason.TIMEOUT, null);
                qps.toError(id);
                attemptEnded(id, CmEventType.CONNECT_ERROR, ETIMEDOUT, null);
                break;
            case DREQ_SENT:
                enterTimewait(id);
                break;
            default:
                break;
        }
    }

    // ------------------------------------------------------------------ teardown

    void destroyed(CmId id) {
        onDevice(() -> {
            if (id.connection.timer != null) {
                id.connection.timer.stop();
            }
            switch (id.connection.state) {
                case ESTABLISHED:
                    sendDreq(id);
                    id.connection.timer.stop();
                    break;
                case REQ_RCVD:
                    rejectAttempt(id, RejectReason.TIMEOUT, null);
                    id.listener.listenQueue.answered();
                    break;
                case REQ_SENT:
                case REP_SENT:
                case REP_RCVD:
                    rejectAttempt(id, RejectReason.TIMEOUT, null);
                    break;
                default:
                    break;
            }
            id.connection.state = Connection.State.IDLE;
            table.forget(id);
            if (id.state == CmId.State.LISTEN) {
                // Requests that arrived but were never handed to the application are refused.
                for (CmId child : table.snapshot()) {
                    if (child.listener == id && child.connection.state == Connection.State.REQ_RCVD && child.channel() == null
                            && id.listenQueue.holds(child)) {
                        rejectAttempt(child, RejectReason.NO_RESOURCES, null);
                        child.connection.state = Connection.State.IDLE;
                        table.forget(child);
                    }
                }
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ MAD dispatch

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
                onReq(source, m);
                break;
            case REP:
                onRep(source, m);
                break;
            case RTU:
                onRtu(m);
                break;
            case REJ:
                onRej(source, m);
                break;
            case DREQ:
                onDreq(source, m);
                break;
            case DREP:
                onDrep(m);
                break;
            default:
                break;
        }
    }
}
