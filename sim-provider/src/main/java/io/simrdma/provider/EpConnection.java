package io.simrdma.provider;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.Qos;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RejectReason;
import io.simrdma.fabric.sched.EngineTimer;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection side of one endpoint: its connection-manager id and the DAT connection state
 * changes and events around it. Active side: dat_ep_connect(3DAT) and dat_ep_dup_connect(3DAT)
 * resolve the remote IA address, connect and time out; passive side: dat_rsp_create(3DAT) reserves
 * the endpoint, a request names it, dat_cr_accept(3DAT) and dat_cr_reject(3DAT) answer it; then
 * dat_ep_disconnect(3DAT) (abrupt, or graceful once the request DTOs have drained), a broken
 * connection, and the endpoint's part in dat_ep_reset(3DAT) and dat_ep_free(3DAT). Every state
 * change consults {@link EpStateTable} and each connection event goes to the endpoint's connect
 * EVD ({@link ConnectionEvent}).
 *
 * <p>Callers: {@link SimEp} (the consumer's calls), {@link SimIa} (connection-manager events of
 * the endpoint's id, a failed QP), {@link SimRsp} and {@link SimCr} (the passive side),
 * {@link EpPosting} (a request completion may end a graceful disconnect) and {@link EpWatermarks}
 * (the hard watermark breaks the connection).
 *
 * <p>Thread safety: the consumer's calls check their arguments on the caller's thread and run the
 * rest on the device's executor ({@link SimIa#run}), where connection-manager events and timers run
 * too, so state changes never race. The remote address and the port qualifiers are volatile for
 * dat_ep_query(3DAT); everything else is touched on the device executor only.
 */
final class EpConnection {

    private static final Logger LOG = LoggerFactory.getLogger(EpConnection.class);
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    /**
     * The first look at the send queue after a graceful disconnect began; each later look waits twice as long, up
     * to {@link #DRAIN_POLL_MAX_NANOS}. A request completion looks at once ({@link EpPosting}), so the polls only
     * catch a queue that drains without one; backing off keeps a queue that never drains (a peer that stopped
     * answering, receiver-not-ready retries) from costing a scheduler step every 10 us of a long wait.
     */
    private static final long DRAIN_POLL_NANOS = 10_000;

    private static final long DRAIN_POLL_MAX_NANOS = 10_000_000;

    private final SimEp ep;
    private CmId cmId;
    private volatile SocketAddress remoteAddr;
    private volatile long remoteQual = -1;
    private volatile long localQual = -1;
    /** The RSP that reserved the endpoint (dat_rsp_create(3DAT)) until its request is answered. */
    private SimRsp rsp;

    private byte[] connectPrivateData;
    private final EngineTimer connectTimer;
    private final EngineTimer drainTimer;
    /** The wait before the next look at the send queue while DISCONNECT_PENDING. Device executor. */
    private long drainPoll = DRAIN_POLL_NANOS;
    /**
     * The consumer's disconnect made the endpoint DISCONNECTED at once; its DISCONNECTED event
     * follows when the connection manager reports the connection gone.
     */
    private boolean disconnectEventDue;
    /**
     * The QP failed (a remote peer's RDMA with a bad rmr_context reached it) while the passive endpoint was still
     * COMPLETION_PENDING: the connection is broken the moment it is established. Device executor.
     */
    private boolean qpFailedBeforeEstablished;

    EpConnection(SimEp ep) {
        this.ep = ep;
        this.connectTimer = new EngineTimer(ep.ia.device.executor(), "dat-connect-timeout", this::onConnectTimeout);
        this.drainTimer = new EngineTimer(ep.ia.device.executor(), "dat-graceful-drain", this::checkDrained);
    }

    /** dat_ep_query(3DAT) remote_ia_address: the other end's IA address, or null. */
    SocketAddress remoteAddress() {
        return remoteAddr;
    }

    /** dat_ep_query(3DAT) remote_port_qual, or -1. */
    long remotePortQual() {
        return remoteQual;
    }

    /** dat_ep_query(3DAT) local_port_qual, or -1. */
    long localPortQual() {
        return localQual;
    }

    // ------------------------------------------------------------------ connection: active side

    /** dat_ep_connect(3DAT). */
    void connect(
            SocketAddress remoteIaAddress,
            long remoteConnQual,
            Timeout timeout,
            byte[] privateData,
            Qos qos,
            Set<ConnectFlag> connectFlags) {
        ep.checkHandle();
        InetSocketAddress remote =
                checkConnectArgs(remoteIaAddress, remoteConnQual, timeout, privateData, qos, connectFlags);
        ep.ia.run(() -> startConnect(EpOp.CONNECT, remote, remoteIaAddress, remoteConnQual, timeout, privateData));
    }

    /** dat_ep_dup_connect(3DAT): to the remote end of {@code dupEp}'s connection. */
    void dupConnect(Endpoint dupEp, Timeout timeout, byte[] privateData, Qos qos) {
        ep.checkHandle();
        SimEp other = SimHandle.check(dupEp, SimEp.class, ep.ia, DatReturnSubtype.INVALID_HANDLE_EP);
        EpConnection o = other.connection;
        if (other.state != EndpointState.CONNECTED || o.remoteAddr == null) {
            throw new DatException(
                    DatReturnType.INVALID_STATE,
                    EpStateTable.subtype(other.state),
                    "dup_ep_handle must be connected (dat_ep_dup_connect(3DAT))");
        }
        InetSocketAddress remote = checkConnectArgs(
                o.remoteAddr, o.remoteQual, timeout, privateData, qos, EnumSet.noneOf(ConnectFlag.class));
        ep.ia.run(() -> startConnect(EpOp.DUP_CONNECT, remote, o.remoteAddr, o.remoteQual, timeout, privateData));
    }

    private InetSocketAddress checkConnectArgs(
            SocketAddress addr, long qual, Timeout timeout, byte[] pd, Qos qos, Set<ConnectFlag> flags) {
        if (timeout == null || qos == null || flags == null) {
            throw DatException.invalidParameter("timeout, qos and connect flags must not be null");
        }
        if (timeout.micros() == 0) {
            // dat_ep_connect(3DAT), dat_ep_dup_connect(3DAT): timeout values must be positive.
            throw DatException.invalidParameter("the connect timeout must be positive (dat_ep_connect(3DAT))");
        }
        if (!(addr instanceof InetSocketAddress isa) || isa.getAddress() == null) {
            throw new DatException(
                    DatReturnType.INVALID_ADDRESS,
                    DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                    "the remote IA address must be a resolved socket address (an IA's address from dat_ia_query)");
        }
        SimHandle.range(qual, 1, 0xFFFF, "connection qualifier");
        if (pd != null && pd.length > SimProvider.MAX_PRIVATE_DATA) {
            throw DatException.invalidParameter("private data of " + pd.length + " bytes exceeds max_private_data_size "
                    + SimProvider.MAX_PRIVATE_DATA);
        }
        if (qos != Qos.BEST_EFFORT) {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED, "QoS " + qos + " is not supported");
        }
        if (flags.contains(ConnectFlag.MULTIPATH)) {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED, "multipath connections are not supported");
        }
        return new InetSocketAddress(ep.ia.toCm(isa), (int) qual);
    }

    /** Device executor. */
    private void startConnect(
            EpOp op, InetSocketAddress dst, SocketAddress remote, long qual, Timeout timeout, byte[] privateData) {
        ep.checkHandle();
        EpStateTable.Rule r = EpStateTable.check(ep.state, op);
        ep.config.readyQp();
        CmId id = ep.ia.cm.createId(ep.ia.cmChannel(), ep, PortSpace.IB);
        ep.ia.router.own(id, ep);
        try {
            ep.ia.bindActive(id);
            id.resolveAddr(null, dst, RESOLVE_TIMEOUT_MS);
        } catch (VerbsException e) {
            ep.ia.router.disown(id);
            id.destroy();
            throw new DatException(
                    DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNREACHABLE, e.getMessage());
        }
        cmId = id;
        remoteAddr = remote;
        remoteQual = qual;
        localQual = id.srcPort();
        connectPrivateData = privateData == null ? new byte[0] : privateData.clone();
        ep.state(r.next());
        if (!timeout.isInfinite()) {
            connectTimer.start(timeout.toNanos());
        }
    }

    /**
     * dat_ep_connect(3DAT) timeout: the connection did not complete in time. The page names two
     * events for it: UNREACHABLE when "the remote host does not respond within the Consumer
     * requested Timeout", TIMED_OUT when "the timeout expired prior to completion of the Connection
     * establishment". The remote host responded if its connection manager acknowledged the request
     * with an MRA (IBA 12.6.6): the request reached a listener whose consumer has not accepted yet.
     * Device executor.
     */
    private void onConnectTimeout() {
        if (ep.state == EndpointState.ACTIVE_CONNECTION_PENDING) {
            boolean responded = peerResponded();
            safeDisconnect();
            failActive(
                    responded ? EventNumber.CONNECTION_EVENT_TIMED_OUT : EventNumber.CONNECTION_EVENT_UNREACHABLE,
                    null);
        }
    }

    /** Whether the remote host answered the connection request (a REP or REJ ends the attempt first; so an MRA). */
    private boolean peerResponded() {
        CmId id = cmId;
        return id != null && id.requestAcknowledged();
    }

    private void failActive(EventNumber n, byte[] privateData) {
        failActive(n, privateData, null);
    }

    private void failActive(EventNumber n, byte[] privateData, String reason) {
        connectTimer.stop();
        ep.state(EndpointState.DISCONNECTED);
        ep.config.qpToError();
        post(n, privateData, reason);
    }

    private void post(EventNumber n, byte[] privateData) {
        post(n, privateData, null);
    }

    private void post(EventNumber n, byte[] privateData, String reason) {
        SimEvd c = ep.config.connectEvd();
        if (c != null) {
            c.enqueue(new ConnectionEvent(c, n, ep, privateData, reason), true);
        }
    }

    private void safeDisconnect() {
        CmId id = cmId;
        if (id == null) {
            return;
        }
        try {
            id.disconnect();
        } catch (VerbsException e) {
            LOG.debug("EP {}: disconnect of {}: {}", ep.id, id, e.getMessage());
        }
    }

    /** A connection-manager event of this endpoint's id. Device executor. */
    void onCmEvent(CmEvent e) {
        if (ep.freed || e.id() != cmId) {
            return;
        }
        EndpointState s = ep.state;
        switch (e.type()) {
            case ADDR_RESOLVED:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    cmId.resolveRoute(RESOLVE_TIMEOUT_MS);
                }
                break;
            case ROUTE_RESOLVED:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    cmId.attachQp(ep.config.qp());
                    EpAttributes a = ep.config.attrs();
                    cmId.connect(new ConnParam(
                            PrivateData.encode(connectPrivateData, (int) localQual),
                            a.maxRdmaReadIn(),
                            a.maxRdmaReadOut(),
                            false,
                            7,
                            7,
                            ep.srq != null,
                            0));
                }
                break;
            case ADDR_ERROR:
            case ROUTE_ERROR:
            case UNREACHABLE:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    // S9 SILENT: UNREACHABLE when nothing answered (no route, no answer after the CM's retries, or
                    // at once when the peer refused this node: the CM event's detail says why), as when the
                    // consumer's timeout expires with no answer. A peer whose CM acknowledged the request (MRA)
                    // did respond: when the CM's own wait for its consumer runs out, the establishment timed out
                    // (dat_ep_connect(3DAT) keeps timeouts out of NON_PEER_REJECTED): TIMED_OUT.
                    failActive(
                            e.type() == CmEventType.UNREACHABLE && peerResponded()
                                    ? EventNumber.CONNECTION_EVENT_TIMED_OUT
                                    : EventNumber.CONNECTION_EVENT_UNREACHABLE,
                            null,
                            e.detail());
                } else if (s == EndpointState.COMPLETION_PENDING) {
                    failPassive();
                }
                break;
            case REJECTED:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    // dat_ep_connect(3DAT): a reject by the remote consumer is PEER_REJECTED; by anything else
                    // (no listener, no resources) NON_PEER_REJECTED.
                    boolean peer = e.rejectReason() == RejectReason.CONSUMER_DEFINED;
                    failActive(
                            peer
                                    ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                                    : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                            peer ? PrivateData.decode(e.privateData()).data() : null);
                } else if (s == EndpointState.COMPLETION_PENDING) {
                    failPassive();
                }
                break;
            case CONNECT_ERROR:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    failActive(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, null);
                } else if (s == EndpointState.COMPLETION_PENDING) {
                    failPassive();
                }
                break;
            case ESTABLISHED:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    connectTimer.stop();
                    ep.state(EndpointState.CONNECTED);
                    post(
                            EventNumber.CONNECTION_EVENT_ESTABLISHED,
                            PrivateData.decode(e.privateData()).data());
                } else if (s == EndpointState.COMPLETION_PENDING) {
                    ep.state(EndpointState.CONNECTED);
                    // dat_evd_wait(3DAT): on the passive side the private data is undefined and its size 0.
                    post(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
                }
                ep.watermarks.connected();
                if (qpFailedBeforeEstablished && ep.state == EndpointState.CONNECTED) {
                    // the active side's first RDMA reached the QP before the connection manager's RTU and broke it:
                    // "The use of rmr_context of the destroyed LMR by a remote peer for an RDMA DTO results in an
                    // error and broken connection on which it was used" (dat_lmr_free(3DAT)); the endpoint reports
                    // its own broken connection as a failed bind does, DAT_CONNECTION_EVENT_BROKEN (dat_rmr_bind
                    // (3DAT)), not as the DISCONNECTED of the active side's disconnect that follows
                    qpFailedBeforeEstablished = false;
                    broken();
                    safeDisconnect();
                }
                break;
            case DISCONNECTED:
                if (s == EndpointState.CONNECTED || s == EndpointState.DISCONNECT_PENDING) {
                    drainTimer.stop();
                    ep.state(EndpointState.DISCONNECTED);
                    post(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                } else if (s == EndpointState.DISCONNECTED && disconnectEventDue) {
                    disconnectEventDue = false;
                    post(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                }
                break;
            default:
                break;
        }
    }

    /** The QP of a connected endpoint failed (retries exhausted, a remote error). Device executor. */
    void onQpFailed() {
        EndpointState s = ep.state;
        if (s == EndpointState.CONNECTED || s == EndpointState.DISCONNECT_PENDING) {
            broken();
        } else if (s == EndpointState.COMPLETION_PENDING) {
            qpFailedBeforeEstablished = true;
        }
    }

    private void broken() {
        drainTimer.stop();
        ep.state(EndpointState.DISCONNECTED);
        disconnectEventDue = false;
        post(EventNumber.CONNECTION_EVENT_BROKEN, null);
    }

    /** dat_ep_set_watermark(3DAT): above the hard watermark the connection is broken. Device executor. */
    void breakAboveHardWatermark() {
        broken();
        if (cmId != null) {
            safeDisconnect();
        }
    }

    // ------------------------------------------------------------------ connection: passive side

    /** dat_rsp_create(3DAT) reserved this endpoint. Device executor. */
    void reserve(SimRsp r, long connQual) {
        EpStateTable.Rule rule = EpStateTable.check(ep.state, EpOp.RSP_CREATE);
        rsp = r;
        // dat_ep_query(3DAT): local_port_qual may be valid in RESERVED; it is the RSP's qualifier (the RSP
        // does not listen yet, so it cannot tell).
        localQual = connQual;
        ep.state(rule.next());
    }

    /** The RSP was ep.freed before its request arrived: the endpoint is the consumer's again. */
    void unreserve(SimRsp r) {
        if (rsp == r && ep.state == EndpointState.RESERVED) {
            localQual = -1;
            ep.state(EndpointState.UNCONNECTED);
        }
        if (rsp == r) {
            rsp = null;
        }
    }

    /**
     * A request names this endpoint (its RSP's request, or the request a PSP made this provider
     * endpoint for): the remote end is the requester's, which dat_ep_query(3DAT) gives as
     * remote_ia_address and remote_port_qual in PASSIVE_ and TENTATIVE_CONNECTION_PENDING. Device
     * executor.
     */
    void namedBy(SimCr cr) {
        remoteAddr = cr.remoteAddress();
        remoteQual = cr.remotePortQual();
        if (localQual < 0) {
            localQual = cr.connQual();
        }
    }

    /** The RSP's request arrived: RESERVED → PASSIVE_CONNECTION_PENDING. */
    void requestArrived() {
        if (ep.state == EndpointState.RESERVED) {
            ep.state(EndpointState.PASSIVE_CONNECTION_PENDING);
        }
    }

    /** dat_cr_accept(3DAT) with this endpoint. Device executor. */
    void accept(SimCr cr, CmId child, byte[] privateData) {
        ep.checkHandle();
        EpStateTable.Rule r = EpStateTable.check(ep.state, EpOp.CR_ACCEPT);
        QueuePair q = ep.config.readyQp();
        if (cr.aborted()) {
            // dat_cr_accept(3DAT): the requester gave up (timed out, went away) before the accept, so the
            // provider cannot complete the connection: ACCEPT_COMPLETION_ERROR, receives flushed.
            ep.ia.router.disown(child);
            rsp = null;
            ep.state(r.next());
            failPassive();
            return;
        }
        ConnParam req = cr.requestParam();
        EpAttributes a = ep.config.attrs();
        // Responder resources: no more than the requester will use (its initiator depth); initiator depth: no
        // more than the requester answers (its responder resources). ConnParam of a request is seen from here.
        ConnParam p = new ConnParam(
                PrivateData.encode(privateData, (int) cr.connQual()),
                Math.min(Math.min(a.maxRdmaReadIn(), ep.ia.attributes().maxRdmaReadIn()), req.responderResources()),
                Math.min(a.maxRdmaReadOut(), req.initiatorDepth()),
                false,
                7,
                7,
                ep.srq != null,
                0);
        child.attachQp(q);
        try {
            child.accept(p);
        } catch (VerbsException e) {
            child.detachQp();
            throw DatException.invalidParameter("the endpoint does not satisfy the request: " + e.getMessage());
        }
        ep.ia.router.own(child, ep);
        cmId = child;
        remoteAddr = cr.remoteAddress();
        remoteQual = cr.remotePortQual();
        localQual = cr.connQual();
        rsp = null;
        qpFailedBeforeEstablished = false;
        ep.state(r.next());
    }

    private void failPassive() {
        ep.state(EndpointState.DISCONNECTED);
        ep.config.qpToError();
        post(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
    }

    /** dat_cr_reject(3DAT) of a request naming this endpoint. Device executor. */
    void rejected() {
        if (ep.state == EndpointState.PASSIVE_CONNECTION_PENDING) {
            EpStateTable.Rule r = EpStateTable.check(ep.state, EpOp.CR_REJECT);
            rsp = null;
            remoteAddr = null;
            remoteQual = -1;
            localQual = -1;
            ep.state(r.next());
        } else if (ep.state == EndpointState.TENTATIVE_CONNECTION_PENDING && ep.providerCreated) {
            // dat_cr_reject(3DAT): the provider's endpoint goes back to the provider.
            ep.destroy();
            ep.ia.forget(ep);
        }
    }

    // ------------------------------------------------------------------ disconnect, reset, free

    /** dat_ep_disconnect(3DAT). */
    void disconnect(CloseFlag flag) {
        ep.checkHandle();
        if (flag == null) {
            throw DatException.invalidParameter("close flag is null");
        }
        ep.ia.run(() -> doDisconnect(flag));
    }

    private void doDisconnect(CloseFlag flag) {
        ep.checkHandle();
        EpOp op = flag == CloseFlag.ABRUPT ? EpOp.DISCONNECT_ABRUPT : EpOp.DISCONNECT_GRACEFUL;
        EpStateTable.Rule r = EpStateTable.check(ep.state, op);
        if (r.kind() == EpStateTable.Kind.NOOP) {
            return;
        }
        switch (ep.state) {
            case ACTIVE_CONNECTION_PENDING:
            case COMPLETION_PENDING:
                connectTimer.stop();
                safeDisconnect();
                ep.state(EndpointState.DISCONNECTED);
                ep.config.qpToError();
                post(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                break;
            case CONNECTED:
                if (flag == CloseFlag.ABRUPT) {
                    ep.state(EndpointState.DISCONNECTED);
                    disconnectEventDue = true;
                    safeDisconnect();
                } else {
                    ep.state(EndpointState.DISCONNECT_PENDING);
                    drainPoll = DRAIN_POLL_NANOS;
                    checkDrained();
                }
                break;
            case DISCONNECT_PENDING:
                drainTimer.stop();
                ep.state(EndpointState.DISCONNECTED);
                disconnectEventDue = true;
                safeDisconnect();
                break;
            default:
                break;
        }
    }

    /** Graceful disconnect: once the request DTOs have completed, the connection goes. Device executor. */
    void checkDrained() {
        if (ep.state != EndpointState.DISCONNECT_PENDING) {
            return;
        }
        QueuePair q = ep.config.qp();
        if (q == null || q.sendQueueDepth() == 0) {
            drainTimer.stop();
            safeDisconnect();
        } else if (!drainTimer.isArmed()) {
            drainTimer.start(drainPoll);
            drainPoll = Math.min(DRAIN_POLL_MAX_NANOS, drainPoll * 2);
        }
    }

    /** Releases the connection-manager id (dat_ep_reset(3DAT), dat_ep_free(3DAT)). Device executor. */
    void releaseCmId() {
        CmId id = cmId;
        if (id == null) {
            return;
        }
        cmId = null;
        ep.ia.router.disown(id);
        id.detachQp();
        try {
            id.destroy();
        } catch (VerbsException e) {
            LOG.debug("EP {}: id {} not destroyed: {}", ep.id, id, e.getMessage());
        }
    }

    /**
     * dat_ep_reset(3DAT): the endpoint forgets its last connection's ends and any disconnect event
     * still due. Device executor.
     */
    void forgetPeer() {
        remoteAddr = null;
        remoteQual = -1;
        localQual = -1;
        disconnectEventDue = false;
        qpFailedBeforeEstablished = false;
    }

    /**
     * The endpoint goes (dat_ep_free(3DAT), an abrupt dat_ia_close(3DAT), a rejected provider
     * endpoint): its timers stop, a connection or an attempt is disconnected, its id is released and
     * its RSP told. Device executor.
     */
    void abort() {
        connectTimer.stop();
        drainTimer.stop();
        EndpointState s = ep.state;
        if (s == EndpointState.CONNECTED
                || s == EndpointState.DISCONNECT_PENDING
                || s == EndpointState.ACTIVE_CONNECTION_PENDING
                || s == EndpointState.COMPLETION_PENDING) {
            safeDisconnect();
        }
        releaseCmId();
        if (rsp != null) {
            rsp.epGone();
            rsp = null;
        }
    }
}
