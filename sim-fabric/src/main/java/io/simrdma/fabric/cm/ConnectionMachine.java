package io.simrdma.fabric.cm;

import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.wire.Gid;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IB CM state machine (IBA 12.9.6) of the connections of one device, after the kernel's
 * ib_cm: one method per input (an application's call, a received REQ, MRA, REP, RTU, REJ, DREQ or
 * DREP, a timeout, a QP event), each moving the {@link Connection} of an id to its next state and the
 * id to the matching rdma_cm state, sending what the transition sends and reporting the
 * {@link CmEvent} the application sees.
 *
 * <pre>
 *  active:   IDLE --connect/REQ--> REQ_SENT --REP--> ESTABLISHED          (with a QP: RTR, RTS, RTU)
 *                                           --REP--> REP_RCVD --establish/RTU--> ESTABLISHED (no QP)
 *                                  REQ_SENT --MRA--> MRA_REQ_RCVD --REP--> as from REQ_SENT
 *  passive:  (REQ) REQ_RCVD --accept/REP--> REP_SENT --RTU or COMM_EST--> ESTABLISHED
 *                  REQ_RCVD --resent REQ/MRA--> REQ_RCVD
 *  both:     ESTABLISHED --disconnect/DREQ--> DREQ_SENT --DREP--> TIMEWAIT --timewait--> IDLE
 *            ESTABLISHED --DREQ/DREP--> TIMEWAIT
 *            REQ_SENT, MRA_REQ_RCVD, REP_SENT, REP_RCVD, REQ_RCVD --REJ, reject, retries used up--> IDLE
 * </pre>
 *
 * Duplicates are answered, never executed twice: a repeated REQ gets the REP or REJ it got
 * before, a repeated REP the RTU, a repeated DREQ the DREP. A REQ repeated while the application
 * has not answered the request yet gets an MRA (Message Receipt Acknowledgement, IBA 12.6.6): the
 * requester then waits the MRA's service timeout longer before each resend, so a listener that
 * takes its time to accept keeps the requester waiting instead of letting it call the peer
 * unreachable. As the kernel's IB CM does for rdma_cm, the MRA is sent only when a resend shows
 * that the requester is waiting (ib_cm's delayed MRA), never for a request accepted in time.
 *
 * <p>Thread safety: not thread-safe; it knows nothing of threads. All the connection state is
 * confined to the device executor, where every method runs.
 *
 * <p>Who calls it: the device's {@link CmAgent}, which dispatches MADs and device events to it and
 * carries the application's calls onto the executor; the connection timers {@link CmSender} arms.
 */
final class ConnectionMachine {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionMachine.class);
    /** Status of UNREACHABLE and of a CONNECT_ERROR whose REP went unanswered: -ETIMEDOUT. */
    private static final int ETIMEDOUT = -110;
    /** SIDR REP status values (IBA 12.11.2, table 115). */
    static final int SIDR_SUCCESS = 0;

    static final int SIDR_UNSUPPORTED = 1;
    static final int SIDR_REJECT = 2;

    private final RdmaCm cm;
    private final Device device;
    private final CmConfig config;
    private final ConnectionTable table;
    private final CmSender sender;
    private final QpTransitions qps;
    /**
     * Ids destroyed while their DREQ was outstanding, by local comm ID: the DREQ is still resent until its DREP
     * comes or the retries run out, so that a lost DREQ does not leave the peer connected (see {@link #destroyed}).
     */
    private final Map<Integer, CmId> destroyedWithDreq = new HashMap<>();

    ConnectionMachine(RdmaCm cm, Device device, ConnectionTable table) {
        this.cm = cm;
        this.device = device;
        this.config = cm.config();
        this.table = table;
        this.sender = new CmSender(device, config, this::onTimeout);
        this.qps = new QpTransitions(device, config);
    }

    private void event(CmId id, CmEventType type, int status, ConnParam param) {
        id.events.report(device, type, status, param);
    }

    // ------------------------------------------------------------------ active side

    /** rdma_connect(3): IDLE → REQ_SENT; the REQ is resent until answered. RDMA_PS_UDP: a SIDR REQ. */
    void connect(CmId id, ConnParam p) {
        if (id.ps == PortSpace.UDP) {
            resolveUd(id, p);
            return;
        }
        Connection c = id.connection;
        c.connectParam = p;
        c.localCommId = cm.newCommId();
        table.addLocal(id);
        c.localPsn = cm.newPsn();
        c.transactionId = sender.newTid();
        c.remoteGid = RdmaCm.gidOf(id.peer);
        QueuePair qp = id.qp();
        CmMessage req = CmMessage.of(CmMessage.Type.REQ);
        req.transactionId = c.transactionId;
        req.localCommId = c.localCommId;
        req.serviceId = id.ps.serviceId(id.peer.getPort());
        req.localCaGuid = device.guid();
        req.localQpn = qp != null ? qp.qpNum() : p.qpNum();
        req.responderResources = p.responderResources();
        req.initiatorDepth = p.initiatorDepth();
        req.remoteCmResponseTimeout = config.cmResponseTimeout();
        req.flowControl = p.flowControl();
        req.startingPsn = c.localPsn;
        req.localCmResponseTimeout = config.cmResponseTimeout();
        req.retryCount = p.retryCount();
        req.pathMtu = id.pathMtuCode;
        req.rnrRetryCount = p.rnrRetryCount();
        req.maxCmRetries = config.maxCmRetries();
        req.srq = qp != null ? qp.srq() != null : p.srq();
        req.primaryLocalGid = device.gid();
        req.primaryRemoteGid = c.remoteGid;
        req.trafficClass = id.tos;
        req.hopLimit = 64;
        req.localAckTimeout = id.ackTimeoutFor(config);
        // RDMA_PS_TCP carries the RDMA CM header (addresses and port) in the REQ's private data;
        // RDMA_PS_IB, addressed by GIDs and service IDs as native IB, leaves all 92 bytes to the user.
        req.privateData =
                id.ps == PortSpace.TCP ? CmaHeader.prepend(id.local, id.peer, p.privateData()) : p.privateData();
        c.state = Connection.State.REQ_SENT;
        sender.sendTracked(id, req);
    }

    /**
     * REP in REQ_SENT: with a QP, RTR and RTS, RTU, ESTABLISHED; without one, REP_RCVD and
     * CONNECT_RESPONSE. A repeated REP after ESTABLISHED (our RTU was lost) gets the RTU again.
     */
    void onRep(Gid source, CmMessage rep) {
        CmId id = table.byLocal(rep.remoteCommId);
        if (id == null) {
            return;
        }
        Connection c = id.connection;
        if (c.state == Connection.State.ESTABLISHED && c.lastMad != null && c.remoteCommId == rep.localCommId) {
            // Our RTU was lost: the passive side repeats its REP; repeat the RTU.
            sender.send(source, c.lastMad);
            return;
        }
        if (c.state != Connection.State.REQ_SENT && c.state != Connection.State.MRA_REQ_RCVD) {
            return;
        }
        c.timer.stop();
        c.remoteCommId = rep.localCommId;
        c.remoteGuid = rep.localCaGuid;
        c.remoteQpn = rep.localQpn;
        c.remotePsn = rep.startingPsn;
        c.rnrRetryForQp = rep.rnrRetryCount;
        // The peer's responder resources are our initiator depth and vice versa (rdma_get_cm_event(3)).
        ConnParam seen = new ConnParam(
                rep.privateData,
                rep.initiatorDepth,
                rep.responderResources,
                rep.flowControl,
                c.connectParam.retryCount(),
                rep.rnrRetryCount,
                rep.srq,
                rep.localQpn);
        QueuePair qp = id.qp();
        if (qp == null) {
            c.state = Connection.State.REP_RCVD;
            event(id, CmEventType.CONNECT_RESPONSE, 0, seen);
            return;
        }
        try {
            qps.toRtr(id, qp, rep.initiatorDepth);
            // initiator_depth is the most reads the local side will have outstanding (rdma_connect(3)): a REP cannot
            // raise it.
            qps.toRts(
                    id,
                    qp,
                    c.connectParam.retryCount(),
                    rep.rnrRetryCount,
                    Math.min(c.connectParam.initiatorDepth(), rep.responderResources));
        } catch (VerbsException e) {
            LOG.debug("{}: cannot move QP {} for the connection: {}", device.name(), qp.qpNum(), e.getMessage());
            sender.sendRej(
                    c.remoteGid,
                    c.localCommId,
                    c.remoteCommId,
                    rep.transactionId,
                    CmMessage.MSG_REP,
                    RejectReason.NO_QP,
                    null);
            attemptEnded(id, CmEventType.CONNECT_ERROR, -Errno.EINVAL.value(), null);
            return;
        }
        sender.sendRtu(c);
        c.state = Connection.State.ESTABLISHED;
        id.state = CmId.State.ESTABLISHED;
        event(id, CmEventType.ESTABLISHED, 0, seen);
    }

    /**
     * MRA (IBA 12.6.6) of our REQ in REQ_SENT: the peer has the request and its application has not
     * answered yet. MRA_REQ_RCVD: the REQ is resent only after the MRA's service timeout plus one
     * response timeout, with the retries that are left, and {@link CmId#requestAcknowledged} holds.
     * A repeated MRA, or an MRA of another message (this CM never sends a REP or LAP that could
     * earn one), is ignored, as ib_cm ignores a repeated one.
     */
    void onMra(CmMessage mra) {
        CmId id = table.byLocal(mra.remoteCommId);
        if (id == null || mra.messageRejected != CmMessage.MSG_REQ) {
            return;
        }
        Connection c = id.connection;
        if (c.state != Connection.State.REQ_SENT) {
            return;
        }
        c.state = Connection.State.MRA_REQ_RCVD;
        c.remoteCommId = mra.localCommId;
        c.requestAcknowledged = true;
        sender.extendTimeout(id, mra.serviceTimeout);
        LOG.debug("{}: {} acknowledged by an MRA; next resend in {} ns", device.name(), id, c.retryTimeoutNanos);
    }

    /**
     * rdma_establish(3): REP_RCVD → ESTABLISHED with the RTU.
     *
     * @throws VerbsException EINVAL without a pending CONNECT_RESPONSE
     */
    void establish(CmId id) {
        Connection c = id.connection;
        if (c.state != Connection.State.REP_RCVD) {
            throw new VerbsException(Errno.EINVAL, "rdma_establish without a pending CONNECT_RESPONSE");
        }
        sender.sendRtu(c);
        c.state = Connection.State.ESTABLISHED;
        id.state = CmId.State.ESTABLISHED;
    }

    // ------------------------------------------------------------------ service ID resolution (RDMA_PS_UDP)

    /**
     * rdma_connect(3) of an RDMA_PS_UDP id, "a lookup of the remote QP providing the datagram
     * service": IDLE → SIDR_REQ_SENT; the SIDR REQ (IBA 12.11.1) carries the RDMA CM header and the
     * private data, and is resent until a SIDR REP answers or the CM retries run out (UNREACHABLE,
     * -ETIMEDOUT).
     */
    private void resolveUd(CmId id, ConnParam p) {
        Connection c = id.connection;
        c.connectParam = p;
        c.localCommId = cm.newCommId();
        table.addLocal(id);
        c.transactionId = sender.newTid();
        c.remoteGid = RdmaCm.gidOf(id.peer);
        CmMessage req = CmMessage.of(CmMessage.Type.SIDR_REQ);
        req.transactionId = c.transactionId;
        req.localCommId = c.localCommId;
        req.serviceId = id.ps.serviceId(id.peer.getPort());
        req.privateData = CmaHeader.prepend(id.local, id.peer, p.privateData());
        c.state = Connection.State.SIDR_REQ_SENT;
        sender.sendTracked(id, req);
    }

    /**
     * A SIDR REP for our SIDR REQ: status 0 is ESTABLISHED with the UD event data (an address
     * toward the replying port, its QP number and Q_Key, its private data); any other status is
     * UNREACHABLE with that status, as rdma_get_cm_event(3) says for a UD QP resolution. A
     * repeated or unknown SIDR REP is ignored.
     */
    void onSidrRep(Gid source, CmMessage rep) {
        CmId id = table.byLocal(rep.localCommId);
        if (id == null || id.connection.state != Connection.State.SIDR_REQ_SENT) {
            return;
        }
        Connection c = id.connection;
        c.timer.stop();
        c.state = Connection.State.IDLE;
        table.forget(id);
        UdParam ud = new UdParam(rep.privateData, new AhAttr(source, 0, 64, id.tos, 0, 0, 1), rep.localQpn, rep.qkey);
        if (rep.sidrStatus == SIDR_SUCCESS) {
            id.state = CmId.State.ESTABLISHED;
            id.events.reportUd(device, CmEventType.ESTABLISHED, 0, ud);
        } else {
            id.state = CmId.State.DISCONNECT;
            id.events.reportUd(device, CmEventType.UNREACHABLE, rep.sidrStatus, ud);
        }
    }

    /**
     * A SIDR REQ: a repeat gets the SIDR REP it got before (or nothing while the application has
     * not answered); a service nobody listens on in RDMA_PS_UDP gets SIDR REP status 1 (service
     * ID not supported, IBA table 115); a full backlog drops it (the requester resends); otherwise
     * a new id in REQ_RCVD reports CONNECT_REQUEST with the requester's private data.
     */
    void onSidrReq(Gid source, CmMessage req) {
        long requester = guidOf(source);
        CmId existing = table.byRemote(requester, req.localCommId);
        if (existing != null) {
            if (existing.connection.lastMad != null) {
                sender.send(source, existing.connection.lastMad);
            }
            return;
        }
        PortSpace ps = PortSpace.ofServiceId(req.serviceId);
        int port = (int) (req.serviceId & 0xFFFF);
        CmId listener = ps == PortSpace.UDP ? cm.findListener(ps, device, port) : null;
        if (listener == null) {
            sender.sendSidrRep(source, req.localCommId, req.transactionId, req.serviceId, SIDR_UNSUPPORTED, 0, 0, null);
            return;
        }
        if (listener.listenQueue.isFull()) {
            LOG.debug("{}: backlog of {} full, SIDR REQ dropped", device.name(), listener);
            return;
        }
        byte[] pd = req.privateData;
        CmId child = cm.newChild(listener, device, port);
        Connection c = child.connection;
        child.listener = listener;
        listener.listenQueue.admitted();
        child.peer = new InetSocketAddress(RdmaCm.inetOf(CmaHeader.sourceGid(pd)), CmaHeader.sourcePort(pd));
        c.localCommId = cm.newCommId();
        table.addLocal(child);
        c.remoteCommId = req.localCommId;
        c.remoteGuid = requester;
        table.addRemote(requester, req.localCommId, child);
        c.remoteGid = source;
        c.transactionId = req.transactionId;
        c.sidrServiceId = req.serviceId;
        byte[] user = Arrays.copyOfRange(pd, CmaHeader.LENGTH, CmMessage.Type.SIDR_REQ.privateDataLength);
        c.requestParam = new ConnParam(user, 0, 0, false, 0, 0, false, 0);
        c.state = Connection.State.REQ_RCVD;
        child.state = CmId.State.CONNECT;
        UdParam ud = new UdParam(user, new AhAttr(source, 0, 64, 0, 0, 0, 1), 0, 0);
        CmEvent e = new CmEvent(
                CmEventType.CONNECT_REQUEST,
                child,
                listener,
                0,
                c.requestParam,
                cm.fabric().now(),
                null,
                ud);
        LOG.debug("{}: {} on {}", device.name(), e, listener);
        listener.events.requestArrived(child, e);
    }

    /** rdma_accept(3) / rdma_reject(3) of a SIDR request: the SIDR REP, kept to answer a repeat. */
    private void answerSidr(CmId child, int status, ConnParam p, byte[] privateData) {
        Connection c = child.connection;
        QueuePair qp = child.qp();
        int qpn = status != SIDR_SUCCESS ? 0 : qp != null ? qp.qpNum() : p.qpNum();
        int qkey = status != SIDR_SUCCESS ? 0 : CmId.RDMA_UDP_QKEY;
        c.lastMad = sender.sendSidrRep(
                c.remoteGid, c.remoteCommId, c.transactionId, c.sidrServiceId, status, qpn, qkey, privateData);
        child.listener.listenQueue.answered();
        c.state = Connection.State.IDLE;
        child.state = status == SIDR_SUCCESS ? CmId.State.ESTABLISHED : CmId.State.DISCONNECT;
    }

    /** The node GUID in a link-local GID's interface identifier: the key of a SIDR requester. */
    private static long guidOf(Gid gid) {
        long g = 0;
        for (int i = 8; i < 16; i++) {
            g = (g << 8) | (gid.byteAt(i) & 0xFF);
        }
        return g;
    }

    // ------------------------------------------------------------------ passive side

    /**
     * A REQ: a duplicate gets what its original got; a REQ nobody listens for, or whose path MTU
     * this port cannot carry, is rejected by the CM; one that finds the backlog full is dropped
     * (the requester resends it); otherwise a new id in REQ_RCVD reports CONNECT_REQUEST to the
     * listener.
     */
    void onReq(Gid source, CmMessage req) {
        CmId existing = table.byRemote(req.localCaGuid, req.localCommId);
        if (existing != null) {
            // A duplicate REQ: answer again what we answered, never create a second connection.
            Connection dup = existing.connection;
            if ((dup.state == Connection.State.REP_SENT || dup.state == Connection.State.IDLE) && dup.lastMad != null) {
                sender.send(source, dup.lastMad);
            } else if (dup.state == Connection.State.REQ_RCVD) {
                // IBA 12.6.6: the application has the request and has not answered it; the requester, which resent
                // its REQ, learns that the request arrived and waits the service timeout longer.
                sender.sendMra(source, dup, config.mraServiceTimeout());
                dup.mraSent = true;
            }
            return;
        }
        byte[] refused =
                table.rejected(req.localCaGuid, req.localCommId, cm.fabric().now());
        if (refused != null) {
            // A duplicate of a request refused and since destroyed (rdma_reject(3), then rdma_destroy_id(3)): the REJ
            // was lost or overtaken by the resent REQ. It gets the REJ again; the request stays destroyed.
            sender.send(source, refused);
            return;
        }
        PortSpace ps = PortSpace.ofServiceId(req.serviceId);
        int port = (int) (req.serviceId & 0xFFFF);
        CmId listener = ps == null ? null : cm.findListener(ps, device, port);
        if (listener == null) {
            // Nobody listens on this service: the remote CM, not an application, rejects.
            sender.sendRej(
                    source,
                    0,
                    req.localCommId,
                    req.transactionId,
                    CmMessage.MSG_REQ,
                    RejectReason.INVALID_SERVICE_ID,
                    null);
            return;
        }
        if (req.pathMtu > device.queryPort(1).activeMtu().code()) {
            // IBA 12.6.7.2 reason 26: this port cannot carry the REQ's path MTU (a TCP node's peer cannot know our
            // MTU when it resolves the route); a smaller MTU here would leave the two QPs disagreeing on packet sizes.
            sender.sendRej(
                    source,
                    0,
                    req.localCommId,
                    req.transactionId,
                    CmMessage.MSG_REQ,
                    RejectReason.INVALID_PATH_MTU,
                    null);
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
        Connection c = child.connection;
        child.listener = listener;
        listener.listenQueue.admitted();
        child.peer = new InetSocketAddress(RdmaCm.inetOf(srcGid), srcPort);
        c.localCommId = cm.newCommId();
        table.addLocal(child);
        c.remoteCommId = req.localCommId;
        c.remoteGuid = req.localCaGuid;
        table.addRemote(req.localCaGuid, req.localCommId, child);
        c.remoteGid = source;
        c.remoteQpn = req.localQpn;
        c.remotePsn = req.startingPsn;
        child.pathMtuCode = Math.min(
                req.pathMtu == 0 ? Mtu.MTU_4096.code() : req.pathMtu,
                device.queryPort(1).activeMtu().code());
        c.retryCountForQp = req.retryCount;
        c.rnrRetryForQp = req.rnrRetryCount;
        c.transactionId = req.transactionId;
        c.requesterResendNanos = 4096L << req.remoteCmResponseTimeout;
        c.requesterRetries = req.maxCmRetries;
        child.tos = req.trafficClass;
        child.ackTimeout = req.localAckTimeout;
        byte[] user = Arrays.copyOfRange(pd, header, CmMessage.Type.REQ.privateDataLength);
        c.requestParam = new ConnParam(
                user,
                req.initiatorDepth,
                req.responderResources,
                req.flowControl,
                req.retryCount,
                req.rnrRetryCount,
                req.srq,
                req.localQpn);
        c.state = Connection.State.REQ_RCVD;
        child.state = CmId.State.CONNECT;
        CmEvent e = new CmEvent(
                CmEventType.CONNECT_REQUEST,
                child,
                listener,
                0,
                c.requestParam,
                cm.fabric().now());
        LOG.debug("{}: {} on {}", device.name(), e, listener);
        listener.events.requestArrived(child, e);
    }

    /**
     * rdma_accept(3): REQ_RCVD → REP_SENT, the QP (if any) in RTR and RTS; the REP is resent
     * until the RTU or COMM_EST.
     *
     * @throws VerbsException EINVAL unless a request is pending
     */
    void accept(CmId child, ConnParam p) {
        Connection c = child.connection;
        if (c.state != Connection.State.REQ_RCVD) {
            throw new VerbsException(Errno.EINVAL, "no pending connection request to accept (state " + c.state + ")");
        }
        if (child.ps == PortSpace.UDP) {
            answerSidr(child, SIDR_SUCCESS, p, p.privateData());
            return;
        }
        c.localPsn = cm.newPsn();
        QueuePair qp = child.qp();
        if (qp != null) {
            qps.toRtr(child, qp, p.responderResources());
            qps.toRts(child, qp, c.retryCountForQp, c.rnrRetryForQp, p.initiatorDepth());
        }
        CmMessage rep = CmMessage.of(CmMessage.Type.REP);
        rep.transactionId = c.transactionId;
        rep.localCommId = c.localCommId;
        rep.remoteCommId = c.remoteCommId;
        rep.localQpn = qp != null ? qp.qpNum() : p.qpNum();
        rep.startingPsn = c.localPsn;
        rep.responderResources = p.responderResources();
        rep.initiatorDepth = p.initiatorDepth();
        rep.targetAckDelay = device.query().localCaAckDelay();
        rep.flowControl = p.flowControl();
        rep.rnrRetryCount = p.rnrRetryCount();
        rep.srq = qp != null ? qp.srq() != null : p.srq();
        rep.localCaGuid = device.guid();
        rep.privateData = p.privateData();
        c.connectParam = p;
        c.state = Connection.State.REP_SENT;
        child.listener.listenQueue.answered();
        sender.sendTracked(child, rep);
    }

    /**
     * rdma_reject(3): REQ_RCVD → IDLE with a consumer-defined REJ.
     *
     * @throws VerbsException EINVAL unless a request is pending
     */
    void reject(CmId child, byte[] privateData) {
        Connection c = child.connection;
        if (c.state != Connection.State.REQ_RCVD) {
            throw new VerbsException(Errno.EINVAL, "no pending connection request to reject (state " + c.state + ")");
        }
        if (child.ps == PortSpace.UDP) {
            answerSidr(child, SIDR_REJECT, null, privateData);
            return;
        }
        refuseRequest(child, privateData);
    }

    /** RTU in REP_SENT: ESTABLISHED. */
    void onRtu(CmMessage rtu) {
        CmId id = table.byLocal(rtu.remoteCommId);
        if (id != null && id.connection.state == Connection.State.REP_SENT) {
            established(id, rtu.privateData);
        }
    }

    private void established(CmId id, byte[] privateData) {
        Connection c = id.connection;
        c.timer.stop();
        c.state = Connection.State.ESTABLISHED;
        id.state = CmId.State.ESTABLISHED;
        ConnParam p = c.connectParam;
        event(
                id,
                CmEventType.ESTABLISHED,
                0,
                new ConnParam(
                        privateData,
                        p.responderResources(),
                        p.initiatorDepth(),
                        p.flowControl(),
                        c.retryCountForQp,
                        c.rnrRetryForQp,
                        p.srq(),
                        c.remoteQpn));
    }

    /**
     * COMM_EST: data arrived on a passive QP whose RTU is missing; the connection is established (IBA 12.9.6).
     *
     * @param fromUser true for rdma_notify(3), which fails on an id not in REP_SENT
     * @throws VerbsException EISCONN if already established, EINVAL if not connecting (only {@code fromUser})
     */
    void commEst(CmId id, boolean fromUser) {
        Connection c = id.connection;
        if (c.state == Connection.State.REP_SENT) {
            established(id, new byte[CmMessage.Type.RTU.privateDataLength]);
        } else if (fromUser) {
            if (c.state == Connection.State.ESTABLISHED) {
                throw new VerbsException(Errno.EISCONN, "connection already established (rdma_notify(3))");
            }
            throw new VerbsException(Errno.EINVAL, "id is not establishing a connection");
        }
    }

    // ------------------------------------------------------------------ disconnection

    /**
     * rdma_disconnect(3): an established connection sends a DREQ; an attempt in progress is
     * abandoned with a REJ; after the peer's DREQ only the QP moves to ERR.
     *
     * @return true if a DISCONNECTED event is still to come for the caller to wait on
     * @throws VerbsException EINVAL on an id that is neither connected nor connecting
     */
    boolean disconnect(CmId id) {
        Connection c = id.connection;
        switch (c.state) {
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
            case MRA_REQ_RCVD:
            case REP_RCVD:
            case REP_SENT:
                c.timer.stop();
                // Kept as the answer to a duplicate REQ (onReq): the REJ may be lost, and a resent REP would
                // establish the connection at the peer while this side has abandoned it.
                c.lastMad = rejectAttempt(id, RejectReason.CONSUMER_DEFINED, null);
                if (c.state == Connection.State.REP_SENT) {
                    rememberRefusal(id);
                }
                qps.toError(id);
                c.state = Connection.State.IDLE;
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
                throw new VerbsException(
                        Errno.EINVAL, "rdma_disconnect on an id that is not connected (" + id.state + ")");
        }
    }

    private void sendDreq(CmId id) {
        Connection c = id.connection;
        CmMessage dreq = CmMessage.of(CmMessage.Type.DREQ);
        dreq.transactionId = sender.newTid();
        dreq.localCommId = c.localCommId;
        dreq.remoteCommId = c.remoteCommId;
        dreq.remoteQpn = c.remoteQpn;
        c.state = Connection.State.DREQ_SENT;
        id.state = CmId.State.DISCONNECT;
        sender.sendTracked(id, dreq);
    }

    /** DREQ: DREP and TIMEWAIT; a DREQ for no known connection still gets a DREP. */
    void onDreq(Gid source, CmMessage dreq) {
        CmId id = table.byLocal(dreq.remoteCommId);
        if (id == null || id.connection.remoteCommId != dreq.localCommId) {
            // IBA 12.9.6: a DREQ for no known connection still gets a DREP.
            sender.sendDrep(source, dreq.remoteCommId, dreq.localCommId, dreq.transactionId);
            return;
        }
        Connection c = id.connection;
        switch (c.state) {
            case REP_SENT:
                // The RTU was lost and the peer already disconnects: the connection did exist.
                established(id, new byte[CmMessage.Type.RTU.privateDataLength]);
                disconnected(id, source, dreq);
                break;
            case ESTABLISHED:
            case DREQ_SENT:
                c.timer.stop();
                disconnected(id, source, dreq);
                break;
            case TIMEWAIT:
                c.lastMad = sender.sendDrep(source, c.localCommId, c.remoteCommId, dreq.transactionId);
                break;
            default:
                sender.sendDrep(source, c.localCommId, c.remoteCommId, dreq.transactionId);
                break;
        }
    }

    private void disconnected(CmId id, Gid source, CmMessage dreq) {
        Connection c = id.connection;
        qps.toError(id);
        c.lastMad = sender.sendDrep(source, c.localCommId, c.remoteCommId, dreq.transactionId);
        enterTimewait(id);
    }

    /** DREP in DREQ_SENT: TIMEWAIT; the DREP of a destroyed id's DREQ ends its resends. */
    void onDrep(CmMessage drep) {
        CmId gone = destroyedWithDreq.remove(drep.remoteCommId);
        if (gone != null) {
            stopResending(gone);
            return;
        }
        CmId id = table.byLocal(drep.remoteCommId);
        if (id != null && id.connection.state == Connection.State.DREQ_SENT) {
            id.connection.timer.stop();
            enterTimewait(id);
        }
    }

    private void enterTimewait(CmId id) {
        Connection c = id.connection;
        c.state = Connection.State.TIMEWAIT;
        id.state = CmId.State.DISCONNECT;
        event(id, CmEventType.DISCONNECTED, 0, null);
        c.timer.start(config.timewaitNanos());
    }

    /**
     * The QP of {@code id}, {@code qp}, went to ERR without the CM moving it there (retries exhausted, a
     * remote error): an established connection is taken down with a DREQ.
     */
    void qpFailed(CmId id, QueuePair qp) {
        Connection c = id.connection;
        if (c.state == Connection.State.ESTABLISHED && !c.cmMovedQpToError) {
            LOG.debug("{}: QP {} of {} failed; disconnecting", device.name(), qp.qpNum(), id);
            c.cmMovedQpToError = true;
            sendDreq(id);
        }
    }

    // ------------------------------------------------------------------ rejects

    /** Sends the REJ that abandons the attempt of {@code id}: of the REP it sent (REP_SENT), else of the REQ. */
    private byte[] rejectAttempt(CmId id, RejectReason reason, byte[] privateData) {
        Connection c = id.connection;
        return sender.sendRej(
                c.remoteGid,
                c.localCommId,
                c.remoteCommId,
                c.transactionId,
                c.state == Connection.State.REP_SENT ? CmMessage.MSG_REP : CmMessage.MSG_REQ,
                reason,
                privateData);
    }

    /** The application refuses the request {@code child} holds (REQ_RCVD); the REJ also answers a duplicate REQ. */
    private void refuseRequest(CmId child, byte[] privateData) {
        Connection c = child.connection;
        c.lastMad = rejectAttempt(child, RejectReason.CONSUMER_DEFINED, privateData);
        rememberRefusal(child);
        child.listener.listenQueue.answered();
        c.state = Connection.State.IDLE;
        child.state = CmId.State.DISCONNECT;
    }

    /**
     * Remembers the REJ (its {@code lastMad}) with which this side refused the request {@code id} received, for as
     * long as the requester may still resend the REQ: its retries plus one, each after its CM response timeout and,
     * once this side sent an MRA, the MRA's service timeout. The id may be destroyed meanwhile; a duplicate REQ is
     * then still answered with the REJ (see {@link ConnectionTable#rememberRejection}).
     */
    private void rememberRefusal(CmId id) {
        Connection c = id.connection;
        long perTry = c.requesterResendNanos + (c.mraSent ? config.mraServiceTimeoutNanos() : 0);
        long window = (c.requesterRetries + 1L) * perTry;
        long now = cm.fabric().now();
        table.rememberRejection(c.remoteGuid, c.remoteCommId, c.lastMad, now + window, now);
    }

    /** The connection attempt of {@code id} ended without a connection: the application gets {@code type}. */
    private void attemptEnded(CmId id, CmEventType type, int status, ConnParam p) {
        id.connection.state = Connection.State.IDLE;
        id.state = CmId.State.DISCONNECT;
        event(id, type, status, p);
    }

    /** REJ: an attempt ends with REJECTED; an established connection (a REJ in answer to a lost RTU) enters TIMEWAIT. */
    void onRej(Gid source, CmMessage rej) {
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
            case MRA_REQ_RCVD:
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

    /** The connection's timer expired: a tracked message is resent or given up; a timewait ends. */
    private void onTimeout(CmId id) {
        Connection c = id.connection;
        if (destroyedWithDreq.get(c.localCommId) == id) {
            // the DREQ of a destroyed id: resent while retries are left, then dropped without any event
            if (!sender.retransmit(id)) {
                destroyedWithDreq.remove(c.localCommId);
                stopResending(id);
            }
            return;
        }
        switch (c.state) {
            case REQ_SENT:
            case MRA_REQ_RCVD:
            case REP_SENT:
            case DREQ_SENT:
                if (!sender.retransmit(id)) {
                    giveUp(id);
                }
                return;
            case TIMEWAIT:
                c.state = Connection.State.IDLE;
                table.forget(id);
                event(id, CmEventType.TIMEWAIT_EXIT, 0, null);
                return;
            case SIDR_REQ_SENT:
                if (!sender.retransmit(id)) {
                    // Nobody answered the SIDR REQ: UNREACHABLE with -ETIMEDOUT (rdma_get_cm_event(3)).
                    table.forget(id);
                    attemptEnded(id, CmEventType.UNREACHABLE, ETIMEDOUT, null);
                }
                return;
            default:
                return;
        }
    }

    /**
     * The transport toward {@code destination} refused this device for good (a TCP link's
     * handshake was refused): every request waiting for that node's answer ends now, UNREACHABLE
     * with -ECONNREFUSED and the cause as the event's detail, instead of after the CM's retries
     * (nothing would reach the node).
     */
    void peerUnreachable(Gid destination, String cause) {
        for (CmId id : table.snapshot()) {
            Connection c = id.connection;
            if ((c.state == Connection.State.REQ_SENT || c.state == Connection.State.SIDR_REQ_SENT)
                    && destination.equals(c.remoteGid)) {
                c.timer.stop();
                qps.toError(id);
                c.state = Connection.State.IDLE;
                id.state = CmId.State.DISCONNECT;
                id.events.report(device, CmEventType.UNREACHABLE, -Errno.ECONNREFUSED.value(), null, cause);
            }
        }
    }

    /** The retries of a REQ, REP or DREQ are used up. */
    private void giveUp(CmId id) {
        Connection c = id.connection;
        switch (c.state) {
            case REQ_SENT:
            case MRA_REQ_RCVD:
                // ib_cm reports IB_CM_REQ_ERROR, which rdma_cm turns into UNREACHABLE, after an MRA too.
                rejectAttempt(id, RejectReason.TIMEOUT, null);
                qps.toError(id);
                attemptEnded(id, CmEventType.UNREACHABLE, ETIMEDOUT, null);
                break;
            case REP_SENT:
                // Kept as the answer to a late duplicate REQ (onReq), which must not get the stale REP: the
                // requester would establish a connection whose passive QP is in ERR.
                c.lastMad = rejectAttempt(id, RejectReason.TIMEOUT, null);
                rememberRefusal(id);
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

    /**
     * rdma_destroy_id(3): an established connection sends a DREQ (no event follows), an attempt
     * is rejected; a listener's requests the application never received are refused.
     *
     * <p>The DREQ (also one a disconnect sent before) keeps being resent after the response timeout until the
     * peer's DREP comes or the CM retries run out (IBA 12.9.6 DREQ Sent), without events for the destroyed id: a
     * lost DREQ would otherwise leave the peer connected for good, which a lossless link would not (a dat_ep_free
     * of a connected EP must end its peer's connection whatever the link loses within the retry budget).
     */
    void destroyed(CmId id) {
        Connection c = id.connection;
        if (c.timer != null) {
            c.timer.stop();
        }
        switch (c.state) {
            case ESTABLISHED:
                sendDreq(id);
                keepResendingDreq(id);
                return;
            case DREQ_SENT:
                keepResendingDreq(id);
                c.timer.start(c.retryTimeoutNanos);
                return;
            case REQ_RCVD:
                if (id.ps == PortSpace.UDP) {
                    answerSidr(id, SIDR_REJECT, null, null);
                    break;
                }
                rejectAttempt(id, RejectReason.TIMEOUT, null);
                id.listener.listenQueue.answered();
                break;
            case REQ_SENT:
            case MRA_REQ_RCVD:
            case REP_SENT:
            case REP_RCVD:
                rejectAttempt(id, RejectReason.TIMEOUT, null);
                break;
            default:
                break;
        }
        c.state = Connection.State.IDLE;
        table.forget(id);
        if (id.state == CmId.State.LISTEN) {
            // Requests that arrived but were never handed to the application are refused.
            for (CmId child : table.snapshot()) {
                if (child.listener == id
                        && child.connection.state == Connection.State.REQ_RCVD
                        && child.channel() == null
                        && id.listenQueue.holds(child)) {
                    if (child.ps == PortSpace.UDP) {
                        answerSidr(child, SIDR_REJECT, null, null);
                    } else {
                        rejectAttempt(child, RejectReason.NO_RESOURCES, null);
                    }
                    child.connection.state = Connection.State.IDLE;
                    table.forget(child);
                }
            }
        }
    }

    /** The destroyed {@code id}'s DREQ (sent, its timer running) is resent until its DREP comes. */
    private void keepResendingDreq(CmId id) {
        table.forget(id);
        destroyedWithDreq.put(id.connection.localCommId, id);
    }

    /** A destroyed id's DREQ is resent no more. */
    private static void stopResending(CmId id) {
        id.connection.timer.stop();
        id.connection.state = Connection.State.IDLE;
    }

    /** The device was closed: DREQs of destroyed ids are no longer resent. */
    void deviceClosed() {
        for (CmId id : destroyedWithDreq.values()) {
            stopResending(id);
        }
        destroyedWithDreq.clear();
    }

    /** The device was closed: the connection ends without a message; the id gets DEVICE_REMOVAL. */
    void deviceRemoved(CmId id) {
        Connection c = id.connection;
        if (c.timer != null) {
            c.timer.stop();
        }
        c.state = Connection.State.IDLE;
        table.forget(id);
        id.state = CmId.State.DEVICE_REMOVAL;
        event(id, CmEventType.DEVICE_REMOVAL, 0, null);
    }
}
