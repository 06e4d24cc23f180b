package io.simrdma.fabric.cm;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PortState;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.sched.EngineTimer;
import io.simrdma.fabric.sched.Task;
import io.simrdma.fabric.wire.Gid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    /** Size of the RDMA CM header in REQ private data (cma_hdr: version, IP version, port, two addresses). */
    static final int CMA_HEADER = 36;
    private static final int ETIMEDOUT = -110;

    private record RemoteKey(long guid, int commId) {
    }

    private final RdmaCm cm;
    private final Device device;
    private final CmConfig config;
    private final Map<Integer, CmId> byLocalCommId = new LinkedHashMap<>();
    private final Map<RemoteKey, CmId> byRemote = new HashMap<>();
    /** Address and route queries waiting for the port to become active, with their tokens. */
    private final Map<CmId, Object> waitingForPort = new java.util.concurrent.ConcurrentHashMap<>();
    private long tidCounter;

    CmAgent(RdmaCm cm, Device device) {
        this.cm = cm;
        this.device = device;
        this.config = cm.config();
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
                if (id.timer != null) {
                    id.timer.stop();
                }
                waitingForPort.remove(id);
                id.conn = CmId.Conn.IDLE;
                forget(id);
                id.state = CmId.State.DEVICE_REMOVAL;
                event(id, CmEventType.DEVICE_REMOVAL, 0, null);
            }
            return null;
        });
    }

    private <T> T onDevice(java.util.concurrent.Callable<T> c) {
        return device.executor().call(c);
    }

    /** Runs {@code r} on the device's executor soon, after the current call returns (asynchronous events). */
    private void later(long delayNanos, String what, Runnable r) {
        device.executor().schedule(new Task() {
            @Override
            public void run() {
                r.run();
            }

            @Override
            public String toString() {
                return what;
            }
        }, delayNanos);
    }

    private void event(CmId id, CmEventType type, int status, ConnParam param) {
        event(id, type, status, param, null);
    }

    private void event(CmId id, CmEventType type, int status, ConnParam param, String detail) {
        CmEvent e = new CmEvent(type, id, null, status, param == null ? ConnParam.defaults() : param,
                cm.fabric().now(), detail);
        LOG.debug("{}: {} {}", device.name(), e, id);
        id.deliver(e);
    }

    // ------------------------------------------------------------------ address and route

    void resolveAddr(CmId id, int timeoutMs) {
        resolve(id, timeoutMs, "addr", CmId.State.ADDR_QUERY, CmId.State.ADDR_BOUND, CmEventType.ADDR_ERROR);
    }

    void resolveRoute(CmId id, int timeoutMs) {
        Gid dst = RdmaCm.gidOf(id.peer);
        Mtu mtu = device.queryPort(1).activeMtu();
        Device remote = cm.fabric().device(dst);
        if (remote != null && remote.queryPort(1).activeMtu().bytes() < mtu.bytes()) {
            mtu = remote.queryPort(1).activeMtu();
        }
        id.pathMtuCode = mtu.code();
        resolve(id, timeoutMs, "route", CmId.State.ROUTE_QUERY, CmId.State.ADDR_RESOLVED, CmEventType.ROUTE_ERROR);
    }

    /**
     * Completes the address or route query of {@code id} (in state {@code query}): soon if the port is active, else
     * when it becomes active; if it does not within {@code timeoutMs}, the query fails with {@code error} and the id
     * goes back to state {@code failed}.
     */
    private void resolve(CmId id, int timeoutMs, String what, CmId.State query, CmId.State failed, CmEventType error) {
        if (device.portState() == PortState.ACTIVE) {
            later(0, what + " resolved", () -> queryResolved(id));
            return;
        }
        Object token = waitForPort(id);
        later(Math.max(0, timeoutMs) * 1_000_000L, what + " error", () -> {
            if (waitingForPort.remove(id, token) && id.state == query) {
                id.state = failed;
                event(id, error, -Errno.EHOSTUNREACH.value(), null);
            }
        });
    }

    /**
     * Keeps an address or route query of an id whose port is down until the port becomes active
     * or the query times out: timeout_ms is the time to wait for the resolution to complete
     * (rdma_resolve_addr(3), rdma_resolve_route(3)). Returns the query's token.
     */
    private Object waitForPort(CmId id) {
        Object query = new Object();
        waitingForPort.put(id, query);
        if (device.portState() == PortState.ACTIVE) {
            later(0, "port active", () -> {
                if (waitingForPort.remove(id, query)) {
                    queryResolved(id);
                }
            });
        }
        return query;
    }

    /** The local port is active: the address or route query of {@code id} completes. Device executor. */
    private void queryResolved(CmId id) {
        if (id.state == CmId.State.ADDR_QUERY) {
            id.state = CmId.State.ADDR_RESOLVED;
            event(id, CmEventType.ADDR_RESOLVED, 0, null);
        } else if (id.state == CmId.State.ROUTE_QUERY) {
            id.state = CmId.State.ROUTE_RESOLVED;
            event(id, CmEventType.ROUTE_RESOLVED, 0, null);
        }
    }

    // ------------------------------------------------------------------ active side

    void connect(CmId id, ConnParam p) {
        onDevice(() -> {
            id.connectParam = p;
            id.localCommId = cm.newCommId();
            byLocalCommId.put(id.localCommId, id);
            id.localPsn = cm.newPsn();
            id.transactionId = newTid();
            id.remoteGid = RdmaCm.gidOf(id.peer);
            QueuePair qp = id.qp;
            CmMessage req = CmMessage.of(CmMessage.Type.REQ);
            req.transactionId = id.transactionId;
            req.localCommId = id.localCommId;
            req.serviceId = id.ps.serviceId(id.peer.getPort());
            req.localCaGuid = device.guid();
            req.localQpn = qp != null ? qp.qpNum() : p.qpNum();
            req.responderResources = p.responderResources();
            req.initiatorDepth = p.initiatorDepth();
            req.remoteCmResponseTimeout = config.cmResponseTimeout();
            req.flowControl = p.flowControl();
            req.startingPsn = id.localPsn;
            req.localCmResponseTimeout = config.cmResponseTimeout();
            req.retryCount = p.retryCount();
            req.pathMtu = id.pathMtuCode;
            req.rnrRetryCount = p.rnrRetryCount();
            req.maxCmRetries = config.maxCmRetries();
            req.srq = qp != null ? qp.srq() != null : p.srq();
            req.primaryLocalGid = device.gid();
            req.primaryRemoteGid = id.remoteGid;
            req.trafficClass = id.tos;
            req.hopLimit = 64;
            req.localAckTimeout = id.ackTimeoutFor(config);
            // RDMA_PS_TCP carries the RDMA CM header (addresses and port) in the REQ's private data;
            // RDMA_PS_IB, addressed by GIDs and service IDs as native IB, leaves all 92 bytes to the user.
            req.privateData = id.ps == PortSpace.TCP ? cmaHeader(id, p.privateData()) : p.privateData();
            id.conn = CmId.Conn.REQ_SENT;
            sendTracked(id, req);
            return null;
        });
    }

    private static byte[] cmaHeader(CmId id, byte[] user) {
        byte[] pd = new byte[CMA_HEADER + user.length];
        pd[0] = 0;
        pd[1] = 0x60;
        int port = id.local.getPort();
        pd[2] = (byte) (port >>> 8);
        pd[3] = (byte) port;
        RdmaCm.gidOf(id.local).copyTo(pd, 4);
        RdmaCm.gidOf(id.peer).copyTo(pd, 20);
        System.arraycopy(user, 0, pd, CMA_HEADER, user.length);
        return pd;
    }

    private void onRep(Gid source, CmMessage rep) {
        CmId id = byLocalCommId.get(rep.remoteCommId);
        if (id == null) {
            return;
        }
        if (id.conn == CmId.Conn.ESTABLISHED && id.lastMad != null && id.remoteCommId == rep.localCommId) {
            // Our RTU was lost: the passive side repeats its REP; repeat the RTU.
            device.sendMad(source, Device.GSI_QPN, id.lastMad);
            return;
        }
        if (id.conn != CmId.Conn.REQ_SENT) {
            return;
        }
        id.timer.stop();
        id.remoteCommId = rep.localCommId;
        id.remoteGuid = rep.localCaGuid;
        id.remoteQpn = rep.localQpn;
        id.remotePsn = rep.startingPsn;
        id.rnrRetryForQp = rep.rnrRetryCount;
        // The peer's responder resources are our initiator depth and vice versa (rdma_get_cm_event(3)).
        ConnParam seen = new ConnParam(rep.privateData, rep.initiatorDepth, rep.responderResources, rep.flowControl,
                id.connectParam.retryCount(), rep.rnrRetryCount, rep.srq, rep.localQpn);
        QueuePair qp = id.qp;
        if (qp == null) {
            id.conn = CmId.Conn.REP_RCVD;
            event(id, CmEventType.CONNECT_RESPONSE, 0, seen);
            return;
        }
        try {
            toRtr(id, qp, rep.initiatorDepth);
            // initiator_depth is the most reads the local side will have outstanding (rdma_connect(3)): a REP cannot raise it.
            toRts(id, qp, id.connectParam.retryCount(), rep.rnrRetryCount,
                    Math.min(id.connectParam.initiatorDepth(), rep.responderResources));
        } catch (VerbsException e) {
            LOG.debug("{}: cannot move QP {} for the connection: {}", device.name(), qp.qpNum(), e.getMessage());
            sendRej(id.remoteGid, id.localCommId, id.remoteCommId, rep.transactionId, CmMessage.MSG_REP,
                    RejectReason.NO_QP, null);
            attemptEnded(id, CmEventType.CONNECT_ERROR, -Errno.EINVAL.value(), null);
            return;
        }
        sendRtu(id);
        id.conn = CmId.Conn.ESTABLISHED;
        id.state = CmId.State.ESTABLISHED;
        event(id, CmEventType.ESTABLISHED, 0, seen);
    }

    void establish(CmId id) {
        onDevice(() -> {
            if (id.conn != CmId.Conn.REP_RCVD) {
                throw new VerbsException(Errno.EINVAL, "rdma_establish without a pending CONNECT_RESPONSE");
            }
            sendRtu(id);
            id.conn = CmId.Conn.ESTABLISHED;
            id.state = CmId.State.ESTABLISHED;
            return null;
        });
    }

    private void sendRtu(CmId id) {
        CmMessage rtu = CmMessage.of(CmMessage.Type.RTU);
        rtu.transactionId = id.transactionId;
        rtu.localCommId = id.localCommId;
        rtu.remoteCommId = id.remoteCommId;
        byte[] mad = rtu.encode();
        id.lastMad = mad;
        device.sendMad(id.remoteGid, Device.GSI_QPN, mad);
    }

    // ------------------------------------------------------------------ passive side

    private void onReq(Gid source, CmMessage req) {
        RemoteKey key = new RemoteKey(req.localCaGuid, req.localCommId);
        CmId existing = byRemote.get(key);
        if (existing != null) {
            // A duplicate REQ: answer again what we answered, never create a second connection.
            if ((existing.conn == CmId.Conn.REP_SENT || existing.conn == CmId.Conn.IDLE) && existing.lastMad != null) {
                device.sendMad(source, Device.GSI_QPN, existing.lastMad);
            }
            return;
        }
        PortSpace ps = PortSpace.ofServiceId(req.serviceId);
        int port = (int) (req.serviceId & 0xFFFF);
        CmId listener = ps == null ? null : cm.findListener(ps, device, port);
        if (listener == null) {
            // Nobody listens on this service: the remote CM, not an application, rejects.
            sendRej(source, 0, req.localCommId, req.transactionId, CmMessage.MSG_REQ, RejectReason.INVALID_SERVICE_ID, null);
            return;
        }
        if (req.pathMtu > device.queryPort(1).activeMtu().code()) {
            // IBA 12.6.7.2 reason 26: this port cannot carry the REQ's path MTU (a TCP node's peer cannot know our
            // MTU when it resolves the route); a smaller MTU here would leave the two QPs disagreeing on packet sizes.
            sendRej(source, 0, req.localCommId, req.transactionId, CmMessage.MSG_REQ, RejectReason.INVALID_PATH_MTU, null);
            return;
        }
        if (listener.pendingRequests >= listener.backlog) {
            LOG.debug("{}: backlog of {} full, REQ dropped", device.name(), listener);
            return;
        }
        byte[] pd = req.privateData;
        int header = ps == PortSpace.TCP ? CMA_HEADER : 0;
        int srcPort = ps == PortSpace.TCP ? (pd[2] & 0xFF) << 8 | (pd[3] & 0xFF) : 0;
        Gid srcGid = ps == PortSpace.TCP ? Gid.of(Arrays.copyOfRange(pd, 4, 20)) : req.primaryLocalGid;
        CmId child = cm.newChild(listener, device, port);
        child.listener = listener;
        listener.pendingRequests++;
        child.peer = new InetSocketAddress(RdmaCm.inetOf(srcGid), srcPort);
        child.localCommId = cm.newCommId();
        byLocalCommId.put(child.localCommId, child);
        child.remoteCommId = req.localCommId;
        child.remoteGuid = req.localCaGuid;
        byRemote.put(key, child);
        child.remoteGid = source;
        child.remoteQpn = req.localQpn;
        child.remotePsn = req.startingPsn;
        child.pathMtuCode = Math.min(req.pathMtu == 0 ? Mtu.MTU_4096.code() : req.pathMtu,
                device.queryPort(1).activeMtu().code());
        child.retryCountForQp = req.retryCount;
        child.rnrRetryForQp = req.rnrRetryCount;
        child.transactionId = req.transactionId;
        child.tos = req.trafficClass;
        child.ackTimeout = req.localAckTimeout;
        byte[] user = Arrays.copyOfRange(pd, header, CmMessage.Type.REQ.privateDataLength);
        child.requestParam = new ConnParam(user, req.initiatorDepth, req.responderResources, req.flowControl,
                req.retryCount, req.rnrRetryCount, req.srq, req.localQpn);
        child.conn = CmId.Conn.REQ_RCVD;
        child.state = CmId.State.CONNECT;
        CmEvent e = new CmEvent(CmEventType.CONNECT_REQUEST, child, listener, 0, child.requestParam, cm.fabric().now());
        LOG.debug("{}: {} on {}", device.name(), e, listener);
        listener.requestArrived(child, e);
    }

    void accept(CmId child, ConnParam p) {
        onDevice(() -> {
            if (child.conn != CmId.Conn.REQ_RCVD) {
                throw new VerbsException(Errno.EINVAL, "no pending connection request to accept (state " + child.conn + ")");
            }
            child.localPsn = cm.newPsn();
            QueuePair qp = child.qp;
            if (qp != null) {
                toRtr(child, qp, p.responderResources());
                toRts(child, qp, child.retryCountForQp, child.rnrRetryForQp, p.initiatorDepth());
            }
            CmMessage rep = CmMessage.of(CmMessage.Type.REP);
            rep.transactionId = child.transactionId;
            rep.localCommId = child.localCommId;
            rep.remoteCommId = child.remoteCommId;
            rep.localQpn = qp != null ? qp.qpNum() : p.qpNum();
            rep.startingPsn = child.localPsn;
            rep.responderResources = p.responderResources();
            rep.initiatorDepth = p.initiatorDepth();
            rep.targetAckDelay = device.query().localCaAckDelay();
            rep.flowControl = p.flowControl();
            rep.rnrRetryCount = p.rnrRetryCount();
            rep.srq = qp != null ? qp.srq() != null : p.srq();
            rep.localCaGuid = device.guid();
            rep.privateData = p.privateData();
            child.connectParam = p;
            child.conn = CmId.Conn.REP_SENT;
            child.listener.pendingRequests--;
            sendTracked(child, rep);
            return null;
        });
    }

    void reject(CmId child, byte[] privateData) {
        onDevice(() -> {
            if (child.conn != CmId.Conn.REQ_RCVD) {
                throw new VerbsException(Errno.EINVAL, "no pending connection request to reject (state " + child.conn + ")");
            }
            refuseRequest(child, privateData);
            return null;
        });
    }

    private void onRtu(CmMessage rtu) {
        CmId id = byLocalCommId.get(rtu.remoteCommId);
        if (id != null && id.conn == CmId.Conn.REP_SENT) {
            established(id, rtu.privateData);
        }
    }

    private void established(CmId id, byte[] privateData) {
        id.timer.stop();
        id.conn = CmId.Conn.ESTABLISHED;
        id.state = CmId.State.ESTABLISHED;
        ConnParam p = id.connectParam;
        event(id, CmEventType.ESTABLISHED, 0, new ConnParam(privateData, p.responderResources(), p.initiatorDepth(),
                p.flowControl(), id.retryCountForQp, id.rnrRetryForQp, p.srq(), id.remoteQpn));
    }

    /** COMM_EST: data arrived on a passive QP whose RTU is missing; the connection is established (IBA 12.9.6). */
    void notifyCommEst(CmId id, boolean fromUser) {
        onDevice(() -> {
            if (id.conn == CmId.Conn.REP_SENT) {
                established(id, new byte[CmMessage.Type.RTU.privateDataLength]);
            } else if (fromUser) {
                if (id.conn == CmId.Conn.ESTABLISHED) {
                    throw new VerbsException(Errno.EISCONN, "connection already established (rdma_notify(3))");
                }
                throw new VerbsException(Errno.EINVAL, "id is not establishing a connection");
            }
            return null;
        });
    }

    private void onAsyncEvent(AsyncEvent e) {
        if (e.type() == AsyncEventType.PORT_ACTIVE) {
            for (CmId id : new ArrayList<>(waitingForPort.keySet())) {
                if (waitingForPort.remove(id) != null) {
                    queryResolved(id);
                }
            }
        }
        if (e.type() == AsyncEventType.COMM_EST) {
            for (CmId id : new ArrayList<>(byLocalCommId.values())) {
                if (id.qp == e.qp() && id.conn == CmId.Conn.REP_SENT) {
                    notifyCommEst(id, false);
                }
            }
        }
    }

    // ------------------------------------------------------------------ QP transitions

    private void toRtr(CmId id, QueuePair qp, int responderResources) {
        EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        if (responderResources > 0) {
            access.add(AccessFlag.REMOTE_READ);
            access.add(AccessFlag.REMOTE_ATOMIC);
        }
        AhAttr av = new AhAttr(id.remoteGid, 0, 64, id.tos, 0, 0, 1);
        if (qp.state() == QpState.RESET) {
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(access));
        }
        qp.modify(new QpAttr().state(QpState.RTR).av(av).pathMtu(mtuOf(id.pathMtuCode)).destQpn(id.remoteQpn)
                .rqPsn(id.remotePsn).maxDestRdAtomic(Math.min(responderResources, device.query().maxQpRdAtom()))
                .minRnrTimer(config.minRnrTimer()).accessFlags(access));
    }

    private void toRts(CmId id, QueuePair qp, int retryCount, int rnrRetry, int initiatorDepth) {
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(id.localPsn).timeout(id.ackTimeoutFor(config))
                .retryCnt(retryCount).rnrRetry(rnrRetry)
                .maxRdAtomic(Math.min(initiatorDepth, device.query().maxQpInitRdAtom())));
    }

    private static Mtu mtuOf(int code) {
        for (Mtu m : Mtu.values()) {
            if (m.code() == code) {
                return m;
            }
        }
        return Mtu.MTU_1024;
    }

    private void qpToError(CmId id) {
        QueuePair qp = id.qp;
        if (qp != null && qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
            id.cmMovedQpToError = true;
            qp.modify(new QpAttr().state(QpState.ERR));
        }
    }

    /** A connected QP failed (retries exhausted, a remote error): take the connection down with a DREQ. */
    private void onQpState(QueuePair qp, QpState from, QpState to) {
        if (to != QpState.ERR) {
            return;
        }
        for (CmId id : new ArrayList<>(byLocalCommId.values())) {
            if (id.qp == qp && id.conn == CmId.Conn.ESTABLISHED && !id.cmMovedQpToError) {
                LOG.debug("{}: QP {} of {} failed; disconnecting", device.name(), qp.qpNum(), id);
                id.cmMovedQpToError = true;
                sendDreq(id);
            }
        }
    }

    // ------------------------------------------------------------------ disconnection

    /** @return true if a DISCONNECTED event is still to come for the caller to wait on */
    boolean disconnect(CmId id) {
        return onDevice(() -> {
            switch (id.conn) {
                case ESTABLISHED:
                    qpToError(id);
                    sendDreq(id);
                    return true;
                case DREQ_SENT:
                    return true;
                case TIMEWAIT:
                    qpToError(id);
                    return false;
                case REQ_SENT:
                case REP_RCVD:
                case REP_SENT:
                    id.timer.stop();
                    // Kept as the answer to a duplicate REQ (onReq): the REJ may be lost, and a resent REP would
                    // establish the connection at the peer while this side has abandoned it.
                    id.lastMad = rejectAttempt(id, RejectReason.CONSUMER_DEFINED, null);
                    qpToError(id);
                    id.conn = CmId.Conn.IDLE;
                    id.state = CmId.State.DISCONNECT;
                    return false;
                case REQ_RCVD:
                    refuseRequest(id, null);
                    return false;
                default:
                    if (id.state == CmId.State.DISCONNECT) {
                        qpToError(id);
                        return false;
                    }
                    throw new VerbsException(Errno.EINVAL, "rdma_disconnect on an id that is not connected (" + id.state + ")");
            }
        });
    }

    private void sendDreq(CmId id) {
        CmMessage dreq = CmMessage.of(CmMessage.Type.DREQ);
        dreq.transactionId = newTid();
        dreq.localCommId = id.localCommId;
        dreq.remoteCommId = id.remoteCommId;
        dreq.remoteQpn = id.remoteQpn;
        id.conn = CmId.Conn.DREQ_SENT;
        id.state = CmId.State.DISCONNECT;
        sendTracked(id, dreq);
    }

    private void onDreq(Gid source, CmMessage dreq) {
        CmId id = byLocalCommId.get(dreq.remoteCommId);
        if (id == null || id.remoteCommId != dreq.localCommId) {
            // IBA 12.9.6: a DREQ for no known connection still gets a DREP.
            sendDrep(source, dreq.remoteCommId, dreq.localCommId, dreq.transactionId);
            return;
        }
        switch (id.conn) {
            case REP_SENT:
                // The RTU was lost and the peer already disconnects: the connection did exist.
                established(id, new byte[CmMessage.Type.RTU.privateDataLength]);
                disconnected(id, source, dreq);
                break;
            case ESTABLISHED:
            case DREQ_SENT:
                id.timer.stop();
                disconnected(id, source, dreq);
                break;
            case TIMEWAIT:
                id.lastMad = sendDrep(source, id.localCommId, id.remoteCommId, dreq.transactionId);
                break;
            default:
                sendDrep(source, id.localCommId, id.remoteCommId, dreq.transactionId);
                break;
        }
    }

    private void disconnected(CmId id, Gid source, CmMessage dreq) {
        qpToError(id);
        id.lastMad = sendDrep(source, id.localCommId, id.remoteCommId, dreq.transactionId);
        enterTimewait(id);
    }

    private void onDrep(CmMessage drep) {
        CmId id = byLocalCommId.get(drep.remoteCommId);
        if (id != null && id.conn == CmId.Conn.DREQ_SENT) {
            id.timer.stop();
            enterTimewait(id);
        }
    }

    private void enterTimewait(CmId id) {
        id.conn = CmId.Conn.TIMEWAIT;
        id.state = CmId.State.DISCONNECT;
        event(id, CmEventType.DISCONNECTED, 0, null);
        id.timer.start(config.timewaitNanos());
    }

    private byte[] sendDrep(Gid to, int localCommId, int remoteCommId, long tid) {
        CmMessage drep = CmMessage.of(CmMessage.Type.DREP);
        drep.transactionId = tid;
        drep.localCommId = localCommId;
        drep.remoteCommId = remoteCommId;
        byte[] mad = drep.encode();
        device.sendMad(to, Device.GSI_QPN, mad);
        return mad;
    }

    // ------------------------------------------------------------------ rejects

    private byte[] sendRej(Gid to, int localCommId, int remoteCommId, long tid, int messageRejected, RejectReason reason,
                           byte[] privateData) {
        CmMessage rej = CmMessage.of(CmMessage.Type.REJ);
        rej.transactionId = tid;
        rej.localCommId = localCommId;
        rej.remoteCommId = remoteCommId;
        rej.messageRejected = messageRejected;
        rej.reason = reason.code();
        rej.privateData = privateData == null ? new byte[0] : privateData;
        byte[] mad = rej.encode();
        device.sendMad(to, Device.GSI_QPN, mad);
        return mad;
    }

    /** Sends the REJ that abandons the attempt of {@code id}: of the REP it sent (REP_SENT), else of the REQ. */
    private byte[] rejectAttempt(CmId id, RejectReason reason, byte[] privateData) {
        return sendRej(id.remoteGid, id.localCommId, id.remoteCommId, id.transactionId,
                id.conn == CmId.Conn.REP_SENT ? CmMessage.MSG_REP : CmMessage.MSG_REQ, reason, privateData);
    }

    /** The application refuses the request {@code child} holds (REQ_RCVD); the REJ also answers a duplicate REQ. */
    private void refuseRequest(CmId child, byte[] privateData) {
        child.lastMad = rejectAttempt(child, RejectReason.CONSUMER_DEFINED, privateData);
        child.listener.pendingRequests--;
        child.conn = CmId.Conn.IDLE;
        child.state = CmId.State.DISCONNECT;
    }

    /** The connection attempt of {@code id} ended without a connection: the application gets {@code type}. */
    private void attemptEnded(CmId id, CmEventType type, int status, ConnParam p) {
        id.conn = CmId.Conn.IDLE;
        id.state = CmId.State.DISCONNECT;
        event(id, type, status, p);
    }

    private void onRej(Gid source, CmMessage rej) {
        CmId id = byLocalCommId.get(rej.remoteCommId);
        if (id == null) {
            // A requester that gives up before any REP reached it knows no comm id of ours: find its request by its
            // own, unanswered or answered by a REP that was lost (IBA 12.9.6: REJ in REP Sent → Idle).
            id = receivedRequest(source, rej.localCommId);
            if (id == null) {
                return;
            }
        }
        ConnParam p = ConnParam.defaults().privateData(rej.privateData);
        switch (id.conn) {
            case REQ_RCVD:
                // The requester withdrew a request the application has not answered yet.
                if (id.listener != null) {
                    id.listener.pendingRequests--;
                    synchronized (id.listener.syncRequests) {
                        id.listener.syncRequests.remove(id);
                    }
                }
                attemptEnded(id, CmEventType.REJECTED, rej.reason, p);
                break;
            case REQ_SENT:
            case REP_SENT:
            case REP_RCVD:
                id.timer.stop();
                qpToError(id);
                attemptEnded(id, CmEventType.REJECTED, rej.reason, p);
                break;
            case ESTABLISHED:
                qpToError(id);
                enterTimewait(id);
                break;
            default:
                break;
        }
    }

    /**
     * The received request from {@code source} with the requester's comm id {@code remoteCommId} that is not
     * established yet (REQ_RCVD or REP_SENT), or null.
     */
    private CmId receivedRequest(Gid source, int remoteCommId) {
        for (CmId c : byLocalCommId.values()) {
            if ((c.conn == CmId.Conn.REQ_RCVD || c.conn == CmId.Conn.REP_SENT) && c.remoteCommId == remoteCommId
                    && source.equals(c.remoteGid)) {
                return c;
            }
        }
        return null;
    }

    /**
     * The transport toward {@code destination} refused this device for good (a TCP link's
     * handshake was refused): every request waiting for that node's answer ends now, UNREACHABLE
     * with -ECONNREFUSED and the cause, instead of after the CM's retries (nothing would reach it).
     */
    @Override
    public void onUnreachable(Gid destination, String cause) {
        for (CmId id : new ArrayList<>(byLocalCommId.values())) {
            if (id.conn == CmId.Conn.REQ_SENT && destination.equals(id.remoteGid)) {
                id.timer.stop();
                qpToError(id);
                id.conn = CmId.Conn.IDLE;
                id.state = CmId.State.DISCONNECT;
                event(id, CmEventType.UNREACHABLE, -Errno.ECONNREFUSED.value(), null, cause);
            }
        }
    }

    // ------------------------------------------------------------------ retransmission

    private void sendTracked(CmId id, CmMessage m) {
        byte[] mad = m.encode();
        id.lastMad = mad;
        id.retriesLeft = config.maxCmRetries();
        if (id.timer == null) {
            id.timer = new EngineTimer(device.executor(), "cm-" + id, () -> onTimeout(id));
        }
        device.sendMad(id.remoteGid, Device.GSI_QPN, mad);
        id.timer.start(config.responseTimeoutNanos());
    }

    private void onTimeout(CmId id) {
        switch (id.conn) {
            case REQ_SENT:
            case REP_SENT:
            case DREQ_SENT:
                if (id.retriesLeft > 0) {
                    id.retriesLeft--;
                    device.sendMad(id.remoteGid, Device.GSI_QPN, id.lastMad);
                    id.timer.start(config.responseTimeoutNanos());
                    return;
                }
                giveUp(id);
                return;
            case TIMEWAIT:
                id.conn = CmId.Conn.IDLE;
                forget(id);
                event(id, CmEventType.TIMEWAIT_EXIT, 0, null);
                return;
            default:
                return;
        }
    }

    private void giveUp(CmId id) {
        switch (id.conn) {
            case REQ_SENT:
                rejectAttempt(id, RejectReason.TIMEOUT, null);
                qpToError(id);
                attemptEnded(id, CmEventType.UNREACHABLE, ETIMEDOUT, null);
                break;
            case REP_SENT:
                // Kept as the answer to a late duplicate REQ (onReq), which must not get the stale REP: the
                // requester would establish a connection whose passive QP is in ERR.
                id.lastMad = rejectAttempt(id, RejectReason.TIMEOUT, null);
                qpToError(id);
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
            if (id.timer != null) {
                id.timer.stop();
            }
            switch (id.conn) {
                case ESTABLISHED:
                    sendDreq(id);
                    id.timer.stop();
                    break;
                case REQ_RCVD:
                    rejectAttempt(id, RejectReason.TIMEOUT, null);
                    id.listener.pendingRequests--;
                    break;
                case REQ_SENT:
                case REP_SENT:
                case REP_RCVD:
                    rejectAttempt(id, RejectReason.TIMEOUT, null);
                    break;
                default:
                    break;
            }
            id.conn = CmId.Conn.IDLE;
            forget(id);
            if (id.state == CmId.State.LISTEN) {
                // Requests that arrived but were never handed to the application are refused.
                for (CmId child : new ArrayList<>(byLocalCommId.values())) {
                    if (child.listener == id && child.conn == CmId.Conn.REQ_RCVD && child.channel() == null
                            && id.syncRequests.contains(child)) {
                        rejectAttempt(child, RejectReason.NO_RESOURCES, null);
                        child.conn = CmId.Conn.IDLE;
                        forget(child);
                    }
                }
            }
            return null;
        });
    }

    private void forget(CmId id) {
        byLocalCommId.remove(id.localCommId, id);
        byRemote.remove(new RemoteKey(id.remoteGuid, id.remoteCommId), id);
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

    private long newTid() {
        return (device.guid() << 32) ^ (++tidCounter);
    }

    /** Every id this agent knows, for teardown. */
    List<CmId> ids() {
        return onDevice(() -> new ArrayList<>(byLocalCommId.values()));
    }
}
