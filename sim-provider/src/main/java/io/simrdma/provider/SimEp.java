package io.simrdma.provider;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EpParamField;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EpStatus;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RejectReason;
import io.simrdma.fabric.sched.EngineTimer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * An Endpoint (dat_ep_create(3DAT)): a verbs RC queue pair plus, while it connects or is
 * connected, a connection-manager id, with the DAT endpoint state machine of {@link EpStateTable}
 * on top.
 *
 * <p>Posts and their completions are {@link EpPosting}'s; the receive-buffer watermarks
 * {@link EpWatermarks}'.
 *
 * <p>Threading: posts and queries run on the caller's thread; every state change runs on the
 * device's executor, where connection-manager events arrive too.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimEp extends SimHandle implements Endpoint {

    private static final Logger LOG = LoggerFactory.getLogger(SimEp.class);
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final long DRAIN_POLL_NANOS = 10_000;

    final int id;
    private final boolean providerCreated;
    volatile EndpointState state;
    private volatile SimPz pz;
    private SimEvd recvEvd;
    private SimEvd requestEvd;
    private SimEvd connectEvd;
    final SimSrq srq;
    private volatile EpAttributes attrs;
    private volatile QueuePair qp;

    private CmId cmId;
    private volatile SocketAddress remoteAddr;
    private volatile long remoteQual = -1;
    private volatile long localQual = -1;
    SimRsp rsp;
    private byte[] connectPrivateData;
    private final EngineTimer connectTimer;
    private final EngineTimer drainTimer;
    private boolean disconnectEventDue;
    /** Posts and their completions. */
    final EpPosting posting;
    /** dat_ep_set_watermark(3DAT). */
    final EpWatermarks watermarks;

    private SimEp(SimIa ia, SimPz pz, SimEvd recvEvd, SimEvd requestEvd, SimEvd connectEvd, SimSrq srq,
                  EpAttributes attrs, boolean providerCreated) {
        super(ia, HandleType.EP);
        this.id = ia.newId();
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.srq = srq;
        this.attrs = attrs;
        this.providerCreated = providerCreated;
        this.state = providerCreated ? EndpointState.TENTATIVE_CONNECTION_PENDING : EndpointState.UNCONNECTED;
        this.posting = new EpPosting(this, attrs);
        this.watermarks = new EpWatermarks(this, attrs);
        this.connectTimer = new EngineTimer(ia.device.executor(), "dat-connect-timeout", this::onConnectTimeout);
        this.drainTimer = new EngineTimer(ia.device.executor(), "dat-graceful-drain", this::checkDrained);
    }

    /** dat_ep_create(3DAT) and dat_ep_create_with_srq(3DAT), and the provider's EPs of a PSP. */
    static SimEp create(SimIa ia, ProtectionZone pzHandle, EventDispatcher recv, EventDispatcher request,
                        EventDispatcher connect, SimSrq srq, EpAttributes attributes, boolean providerCreated) {
        SimPz z = providerCreated ? null : SimHandle.check(pzHandle, SimPz.class, ia, DatReturnSubtype.INVALID_HANDLE_PZ);
        SimEvd r = evd(ia, recv, EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV);
        SimEvd q = evd(ia, request, EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST);
        SimEvd c = evd(ia, connect, EvdFlag.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN);
        EpAttributes a = attributes != null ? attributes : EpAttributeRules.defaults(ia);
        EpAttributeRules.validate(ia, a, srq);
        if (srq != null && z != null && srq.pz != z) {
            // dat_ep_create_with_srq(3DAT): a different PZ needs srq_ep_pz_difference_supported, which is false.
            throw DatException.invalidParameter("the endpoint's PZ must be the SRQ's (srq_ep_pz_difference_supported is false)");
        }
        checkStreams(r, true, a.recvCompletionFlags(), null);
        checkStreams(q, false, a.requestCompletionFlags(), ownRecvStream(r, q, a));
        if (ia.handleCount(SimEp.class) >= ia.attributes().maxEps()) {
            throw insufficient(DatReturnSubtype.RESOURCE_TEP, "max_eps (" + ia.attributes().maxEps() + ") reached");
        }
        SimEp ep = new SimEp(ia, z, r, q, c, srq, a, providerCreated);
        ep.attach();
        ia.registerEp(ep);
        try {
            ia.run(ep::createQpIfReady);
        } catch (RuntimeException e) {
            ep.detach();
            ia.unregisterEp(ep);
            throw e;
        }
        return ep;
    }

    private static SimEvd evd(SimIa ia, EventDispatcher h, EvdFlag kind, DatReturnSubtype subtype) {
        SimEvd e = SimHandle.checkOptional(h, SimEvd.class, ia, subtype);
        if (e != null) {
            e.checkStream(kind, subtype);
        }
        return e;
    }

    /** The only completion flag a receive is posted with (dat_ep_post_recv(3DAT)). */
    private static final Set<CompletionFlag> RECV_POST_FLAGS = EnumSet.of(CompletionFlag.UNSIGNALLED);

    /** dat_ep_create(3DAT) USAGE: may a stream with {@code flags} join {@code evd} (null: no EVD, nothing to check)? */
    private static void checkStreams(SimEvd evd, boolean recvStream, Set<CompletionFlag> flags, EvdStreams.Stream sibling) {
        if (evd != null) {
            evd.streams.checkJoin(recvStream, flags, sibling);
        }
    }

    /**
     * The endpoint's own receive stream when its request stream goes to the same EVD: the two are
     * checked against each other like streams of different endpoints (dat_ep_create(3DAT) USAGE).
     */
    private static EvdStreams.Stream ownRecvStream(SimEvd recv, SimEvd request, EpAttributes a) {
        return recv != null && recv == request ? new EvdStreams.Stream(null, true, a.recvCompletionFlags()) : null;
    }

    private void attach() {
        if (pz != null) {
            pz.addUser();
        }
        if (srq != null) {
            srq.epAdded(1);
        }
        addStreams();
    }

    private void addStreams() {
        if (recvEvd != null) {
            recvEvd.addUser();
            recvEvd.streams.add(new EvdStreams.Stream(this, true, attrs.recvCompletionFlags()));
        }
        if (requestEvd != null) {
            requestEvd.addUser();
            requestEvd.streams.add(new EvdStreams.Stream(this, false, attrs.requestCompletionFlags()));
        }
        if (connectEvd != null) {
            connectEvd.addUser();
        }
    }

    private void removeStreams() {
        if (recvEvd != null) {
            recvEvd.removeUser();
            recvEvd.streams.removeAll(this);
        }
        if (requestEvd != null) {
            requestEvd.removeUser();
            requestEvd.streams.removeAll(this);
        }
        if (connectEvd != null) {
            connectEvd.removeUser();
        }
    }

    private void detach() {
        removeStreams();
        if (pz != null) {
            pz.removeUser();
        }
        if (srq != null) {
            srq.epAdded(-1);
        }
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_EP;
    }

    SimPz pz() {
        return pz;
    }

    EpAttributes attrs() {
        return attrs;
    }

    SimEvd recvEvd() {
        return recvEvd;
    }

    QueuePair qp() {
        return qp;
    }

    boolean qpIs(QueuePair q) {
        return qp == q;
    }

    // ------------------------------------------------------------------ the QP

    /** Creates the QP once the PZ and both DTO EVDs are known. Device executor. */
    private void createQpIfReady() {
        if (qp != null || pz == null || recvEvd == null || requestEvd == null) {
            return;
        }
        EpAttributes a = attrs;
        int sendSge = Math.max(1, Math.max(a.maxRequestIov(), Math.max(a.maxRdmaReadIov(), a.maxRdmaWriteIov())));
        QpCaps caps = new QpCaps(a.maxRequestDtos(), srq == null ? a.maxRecvDtos() : 1, sendSge,
                srq == null ? Math.max(1, a.maxRecvIov()) : 1, 0);
        QpInitAttr init = QpInitAttr.rc(requestEvd.cq, recvEvd.cq).caps(caps).context(this);
        if (srq != null) {
            init.srq(srq.srq);
        }
        QueuePair q;
        try {
            q = pz.pd.createQp(init);
        } catch (VerbsException e) {
            throw ia.resources(e, DatReturnSubtype.RESOURCE_TEP);
        }
        toInit(q);
        qp = q;
        ia.qpCreated(this, q);
    }

    /** RESET → INIT: port 1, every access right (the DAT privileges are checked when posting). */
    private static void toInit(QueuePair q) {
        q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(EnumSet.of(AccessFlag.LOCAL_WRITE,
                AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC)));
    }

    private void destroyQp() {
        QueuePair q = qp;
        if (q == null) {
            return;
        }
        qp = null;
        ia.qpDestroyed(q);
        try {
            q.destroy();
        } catch (VerbsException e) {
            LOG.debug("EP {}: QP not destroyed: {}", id, e.getMessage());
        }
    }

    QueuePair readyQp() {
        QueuePair q = qp;
        if (q == null) {
            throw new DatException(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                    "the endpoint has no PZ or DTO EVDs yet (dat_ep_modify them first)");
        }
        return q;
    }

    // ------------------------------------------------------------------ posting (EpPosting)

    @Override
    public void postSend(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags) {
        posting.postSend(localIov, userCookie, completionFlags);
    }

    @Override
    public void postRdmaRead(List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer,
                             Set<CompletionFlag> completionFlags) {
        posting.postRdmaRead(localIov, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public void postRdmaWrite(List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer,
                              Set<CompletionFlag> completionFlags) {
        posting.postRdmaWrite(localIov, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public void postRecv(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags) {
        posting.postRecv(localIov, userCookie, completionFlags);
    }

    /** dat_ep_set_watermark(3DAT): above the hard watermark the connection is broken. Device executor. */
    void breakAboveHardWatermark() {
        broken();
        if (cmId != null) {
            safeDisconnect();
        }
    }

    // ------------------------------------------------------------------ connection: active side

    @Override
    public void connect(SocketAddress remoteIaAddress, long remoteConnQual, Timeout timeout, byte[] privateData,
                        Qos qos, Set<ConnectFlag> connectFlags) {
        checkHandle();
        InetSocketAddress remote = checkConnectArgs(remoteIaAddress, remoteConnQual, timeout, privateData, qos, connectFlags);
        ia.run(() -> startConnect(EpOp.CONNECT, remote, remoteIaAddress, remoteConnQual, timeout, privateData));
    }

    @Override
    public void dupConnect(Endpoint dupEp, Timeout timeout, byte[] privateData, Qos qos) {
        checkHandle();
        SimEp other = SimHandle.check(dupEp, SimEp.class, ia, DatReturnSubtype.INVALID_HANDLE_EP);
        if (other.state != EndpointState.CONNECTED || other.remoteAddr == null) {
            throw new DatException(DatReturnType.INVALID_STATE, EpStateTable.subtype(other.state),
                    "dup_ep_handle must be connected (dat_ep_dup_connect(3DAT))");
        }
        InetSocketAddress remote = checkConnectArgs(other.remoteAddr, other.remoteQual, timeout, privateData, qos,
                EnumSet.noneOf(ConnectFlag.class));
        ia.run(() -> startConnect(EpOp.DUP_CONNECT, remote, other.remoteAddr, other.remoteQual, timeout, privateData));
    }

    private InetSocketAddress checkConnectArgs(SocketAddress addr, long qual, Timeout timeout, byte[] pd, Qos qos,
                                               Set<ConnectFlag> flags) {
        if (timeout == null || qos == null || flags == null) {
            throw DatException.invalidParameter("timeout, qos and connect flags must not be null");
        }
        if (timeout.micros() == 0) {
            // dat_ep_connect(3DAT), dat_ep_dup_connect(3DAT): timeout values must be positive.
            throw DatException.invalidParameter("the connect timeout must be positive (dat_ep_connect(3DAT))");
        }
        if (!(addr instanceof InetSocketAddress isa) || isa.getAddress() == null) {
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                    "the remote IA address must be a resolved socket address (an IA's address from dat_ia_query)");
        }
        range(qual, 1, 0xFFFF, "connection qualifier");
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
        return new InetSocketAddress(ia.toCm(isa), (int) qual);
    }

    /** Device executor. */
    private void startConnect(EpOp op, InetSocketAddress dst, SocketAddress remote, long qual, Timeout timeout,
                              byte[] privateData) {
        checkHandle();
        EpStateTable.Rule r = EpStateTable.check(state, op);
        readyQp();
        CmId id = ia.cm.createId(ia.cmChannel(), this, PortSpace.IB);
        ia.owners.put(id, this);
        try {
            id.bind(ia.cmAddress());
            id.resolveAddr(null, dst, RESOLVE_TIMEOUT_MS);
        } catch (VerbsException e) {
            ia.owners.remove(id);
            id.destroy();
            throw new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNREACHABLE, e.getMessage());
        }
        cmId = id;
        remoteAddr = remote;
        remoteQual = qual;
        localQual = id.srcPort();
        connectPrivateData = privateData == null ? new byte[0] : privateData.clone();
        state = r.next();
        if (!timeout.isInfinite()) {
            connectTimer.start(timeout.toNanos());
        }
    }

    /** dat_ep_connect(3DAT) timeout: the connection did not complete in time. Device executor. */
    private void onConnectTimeout() {
        if (state == EndpointState.ACTIVE_CONNECTION_PENDING) {
            safeDisconnect();
            failActive(EventNumber.CONNECTION_EVENT_TIMED_OUT, null);
        }
    }

    private void failActive(EventNumber n, byte[] privateData) {
        connectTimer.stop();
        state = EndpointState.DISCONNECTED;
        qpToError();
        post(n, privateData);
    }

    private void post(EventNumber n, byte[] privateData) {
        SimEvd c = connectEvd;
        if (c != null) {
            c.enqueue(new ConnectionEvent(c, n, this, privateData), true);
        }
    }

    private void qpToError() {
        QueuePair q = qp;
        if (q != null && q.state() != QpState.ERR && q.state() != QpState.RESET) {
            q.modify(new QpAttr().state(QpState.ERR));
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
            LOG.debug("EP {}: disconnect of {}: {}", this.id, id, e.getMessage());
        }
    }

    /** A connection-manager event of this endpoint's id. Device executor. */
    void onCmEvent(CmEvent e) {
        if (freed || e.id() != cmId) {
            return;
        }
        EndpointState s = state;
        switch (e.type()) {
            case ADDR_RESOLVED:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    cmId.resolveRoute(RESOLVE_TIMEOUT_MS);
                }
                break;
            case ROUTE_RESOLVED:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    cmId.attachQp(qp);
                    EpAttributes a = attrs;
                    cmId.connect(new ConnParam(PrivateData.encode(connectPrivateData, (int) localQual), a.maxRdmaReadIn(),
                            a.maxRdmaReadOut(), false, 7, 7, srq != null, 0));
                }
                break;
            case ADDR_ERROR:
            case ROUTE_ERROR:
            case UNREACHABLE:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    // S9 SILENT: UNREACHABLE when the transport gives up (no answer after the CM's retries, no
                    // route); TIMED_OUT when the consumer's dat_ep_connect timeout expires first.
                    failActive(EventNumber.CONNECTION_EVENT_UNREACHABLE, null);
                } else if (s == EndpointState.COMPLETION_PENDING) {
                    failPassive();
                }
                break;
            case REJECTED:
                if (s == EndpointState.ACTIVE_CONNECTION_PENDING) {
                    // dat_ep_connect(3DAT): a reject by the remote consumer is PEER_REJECTED; by anything else
                    // (no listener, no resources) NON_PEER_REJECTED.
                    boolean peer = e.rejectReason() == RejectReason.CONSUMER_DEFINED;
                    failActive(peer ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                            : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, peer ? PrivateData.decode(e.privateData()).data() : null);
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
                    state = EndpointState.CONNECTED;
                    post(EventNumber.CONNECTION_EVENT_ESTABLISHED, PrivateData.decode(e.privateData()).data());
                } else if (s == EndpointState.COMPLETION_PENDING) {
                    state = EndpointState.CONNECTED;
                    // dat_evd_wait(3DAT): on the passive side the private data is undefined and its size 0.
                    post(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
                }
                watermarks.connected();
                break;
            case DISCONNECTED:
                if (s == EndpointState.CONNECTED || s == EndpointState.DISCONNECT_PENDING) {
                    drainTimer.stop();
                    state = EndpointState.DISCONNECTED;
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
        EndpointState s = state;
        if (s == EndpointState.CONNECTED || s == EndpointState.DISCONNECT_PENDING) {
            broken();
        }
    }

    private void broken() {
        drainTimer.stop();
        state = EndpointState.DISCONNECTED;
        disconnectEventDue = false;
        post(EventNumber.CONNECTION_EVENT_BROKEN, null);
    }

    // ------------------------------------------------------------------ connection: passive side

    /** dat_rsp_create(3DAT) reserved this endpoint. Device executor. */
    void reserve(SimRsp r, long connQual) {
        EpStateTable.Rule rule = EpStateTable.check(state, EpOp.RSP_CREATE);
        rsp = r;
        // dat_ep_query(3DAT): local_port_qual may be valid in RESERVED; it is the RSP's qualifier (the RSP
        // does not listen yet, so it cannot tell).
        localQual = connQual;
        state = rule.next();
    }

    /** The RSP was freed before its request arrived: the endpoint is the consumer's again. */
    void unreserve(SimRsp r) {
        if (rsp == r && state == EndpointState.RESERVED) {
            localQual = -1;
            state = EndpointState.UNCONNECTED;
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
        if (state == EndpointState.RESERVED) {
            state = EndpointState.PASSIVE_CONNECTION_PENDING;
        }
    }

    /** dat_cr_accept(3DAT) with this endpoint. Device executor. */
    void accept(SimCr cr, CmId child, byte[] privateData) {
        checkHandle();
        EpStateTable.Rule r = EpStateTable.check(state, EpOp.CR_ACCEPT);
        QueuePair q = readyQp();
        if (cr.aborted()) {
            // dat_cr_accept(3DAT): the requester gave up (timed out, went away) before the accept, so the
            // provider cannot complete the connection: ACCEPT_COMPLETION_ERROR, receives flushed.
            ia.owners.remove(child);
            rsp = null;
            state = r.next();
            failPassive();
            return;
        }
        ConnParam req = cr.requestParam();
        EpAttributes a = attrs;
        // Responder resources: no more than the requester will use (its initiator depth); initiator depth: no
        // more than the requester answers (its responder resources). ConnParam of a request is seen from here.
        ConnParam p = new ConnParam(PrivateData.encode(privateData, (int) cr.connQual()),
                Math.min(Math.min(a.maxRdmaReadIn(), ia.attributes().maxRdmaReadIn()), req.responderResources()),
                Math.min(a.maxRdmaReadOut(), req.initiatorDepth()), false, 7, 7, srq != null, 0);
        child.attachQp(q);
        try {
            child.accept(p);
        } catch (VerbsException e) {
            child.detachQp();
            throw DatException.invalidParameter("the endpoint does not satisfy the request: " + e.getMessage());
        }
        ia.owners.put(child, this);
        cmId = child;
        remoteAddr = cr.remoteAddress();
        remoteQual = cr.remotePortQual();
        localQual = cr.connQual();
        rsp = null;
        state = r.next();
    }

    private void failPassive() {
        state = EndpointState.DISCONNECTED;
        qpToError();
        post(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
    }

    /** dat_cr_reject(3DAT) of a request naming this endpoint. Device executor. */
    void rejected() {
        if (state == EndpointState.PASSIVE_CONNECTION_PENDING) {
            EpStateTable.Rule r = EpStateTable.check(state, EpOp.CR_REJECT);
            rsp = null;
            remoteAddr = null;
            remoteQual = -1;
            localQual = -1;
            state = r.next();
        } else if (state == EndpointState.TENTATIVE_CONNECTION_PENDING && providerCreated) {
            // dat_cr_reject(3DAT): the provider's endpoint goes back to the provider.
            destroy();
            ia.forget(this);
        }
    }

    // ------------------------------------------------------------------ disconnect, reset, free

    @Override
    public void disconnect(CloseFlag flag) {
        checkHandle();
        if (flag == null) {
            throw DatException.invalidParameter("close flag is null");
        }
        ia.run(() -> doDisconnect(flag));
    }

    private void doDisconnect(CloseFlag flag) {
        checkHandle();
        EpOp op = flag == CloseFlag.ABRUPT ? EpOp.DISCONNECT_ABRUPT : EpOp.DISCONNECT_GRACEFUL;
        EpStateTable.Rule r = EpStateTable.check(state, op);
        if (r.kind() == EpStateTable.Kind.NOOP) {
            return;
        }
        switch (state) {
            case ACTIVE_CONNECTION_PENDING:
            case COMPLETION_PENDING:
                connectTimer.stop();
                safeDisconnect();
                state = EndpointState.DISCONNECTED;
                qpToError();
                post(EventNumber.CONNECTION_EVENT_DISCONNECTED, null);
                break;
            case CONNECTED:
                if (flag == CloseFlag.ABRUPT) {
                    state = EndpointState.DISCONNECTED;
                    disconnectEventDue = true;
                    safeDisconnect();
                } else {
                    state = EndpointState.DISCONNECT_PENDING;
                    checkDrained();
                }
                break;
            case DISCONNECT_PENDING:
                drainTimer.stop();
                state = EndpointState.DISCONNECTED;
                disconnectEventDue = true;
                safeDisconnect();
                break;
            default:
                break;
        }
    }

    /** Graceful disconnect: once the request DTOs have completed, the connection goes. Device executor. */
    void checkDrained() {
        if (state != EndpointState.DISCONNECT_PENDING) {
            return;
        }
        QueuePair q = qp;
        if (q == null || q.sendQueueDepth() == 0) {
            drainTimer.stop();
            safeDisconnect();
        } else {
            drainTimer.start(DRAIN_POLL_NANOS);
        }
    }

    @Override
    public void reset() {
        checkHandle();
        ia.run(() -> {
            EpStateTable.Rule r = EpStateTable.check(state, EpOp.RESET);
            if (r.kind() == EpStateTable.Kind.NOOP) {
                return;
            }
            releaseCmId();
            QueuePair q = qp;
            if (q != null) {
                q.modify(new QpAttr().state(QpState.RESET));
                toInit(q);
            }
            posting.forgetOutstanding();
            remoteAddr = null;
            remoteQual = -1;
            localQual = -1;
            disconnectEventDue = false;
            watermarks.rearm();
            state = r.next();
        });
    }

    private void releaseCmId() {
        CmId id = cmId;
        if (id == null) {
            return;
        }
        cmId = null;
        ia.owners.remove(id);
        id.detachQp();
        try {
            id.destroy();
        } catch (VerbsException e) {
            LOG.debug("EP {}: id {} not destroyed: {}", this.id, id, e.getMessage());
        }
    }

    @Override
    public void free() {
        checkHandle();
        ia.run(() -> {
            checkHandle();
            EpStateTable.check(state, EpOp.FREE);
            destroy();
        });
        ia.forget(this);
    }

    /** Releases the endpoint: aborts its connection, destroys its QP, leaves its EVDs. Device executor. */
    @Override
    void destroy() {
        if (freed) {
            return;
        }
        ia.run(() -> {
            connectTimer.stop();
            drainTimer.stop();
            EndpointState s = state;
            if (s == EndpointState.CONNECTED || s == EndpointState.DISCONNECT_PENDING
                    || s == EndpointState.ACTIVE_CONNECTION_PENDING || s == EndpointState.COMPLETION_PENDING) {
                safeDisconnect();
            }
            releaseCmId();
            if (rsp != null) {
                rsp.epGone();
                rsp = null;
            }
            destroyQp();
            freed = true;
            detach();
            ia.unregisterEp(this);
        });
    }

    // ------------------------------------------------------------------ modify, query, status

    @Override
    public void modify(EpModify m) {
        checkHandle();
        if (m == null) {
            throw DatException.invalidParameter("modification is null");
        }
        ia.run(() -> doModify(m));
    }

    private void doModify(EpModify m) {
        checkHandle();
        boolean pzChange = false;
        boolean attrChange = false;
        boolean recvFlagChange = false;
        for (EpParamField f : m.fields()) {
            if (!f.modifiable()) {
                throw DatException.invalidParameter("dat_ep_modify cannot change " + f + " (dat_ep_modify(3DAT))");
            }
            if (f == EpParamField.PZ_HANDLE) {
                pzChange = true;
            } else if (f == EpParamField.EP_ATTR_RECV_COMPLETION_FLAGS) {
                recvFlagChange = true;
            } else {
                attrChange = true;
            }
        }
        if (pzChange) {
            EpStateTable.check(state, EpOp.MODIFY_PZ);
        }
        if (attrChange) {
            EpStateTable.check(state, EpOp.MODIFY_ATTRIBUTES);
        }
        if (recvFlagChange) {
            EpStateTable.check(state, EpOp.MODIFY_RECV_FLAGS);
            if (posting.anyRecvPosted()) {
                throw new DatException(DatReturnType.INVALID_STATE, EpStateTable.subtype(state),
                        "recv_completion_flags can change only before any receive is posted (dat_ep_modify(3DAT))");
            }
        }
        SimPz newPz = pzChange ? SimHandle.check(m.pz(), SimPz.class, ia, DatReturnSubtype.INVALID_HANDLE_PZ) : pz;
        SimEvd newRecv = m.contains(EpParamField.RECV_EVD_HANDLE)
                ? evd(ia, m.recvEvd(), EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV) : recvEvd;
        SimEvd newRequest = m.contains(EpParamField.REQUEST_EVD_HANDLE)
                ? evd(ia, m.requestEvd(), EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST) : requestEvd;
        SimEvd newConnect = m.contains(EpParamField.CONNECT_EVD_HANDLE)
                ? evd(ia, m.connectEvd(), EvdFlag.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN) : connectEvd;
        EpAttributes newAttrs = m.applyTo(attrs);
        try {
            EpAttributeRules.validate(ia, newAttrs, srq);
        } catch (DatException e) {
            if (e.type() != DatReturnType.MODEL_NOT_SUPPORTED) {
                throw e;
            }
            // dat_ep_modify(3DAT) has no DAT_MODEL_NOT_SUPPORTED: a value "not supported" is DAT_INVALID_PARAMETER.
            throw DatException.invalidParameter(e.detail());
        }
        if (srq != null && newPz != null && newPz != srq.pz) {
            throw DatException.invalidParameter("the endpoint's PZ must be the SRQ's");
        }
        removeStreams();
        try {
            checkStreams(newRecv, true, newAttrs.recvCompletionFlags(), null);
            checkStreams(newRequest, false, newAttrs.requestCompletionFlags(), ownRecvStream(newRecv, newRequest, newAttrs));
        } catch (DatException e) {
            addStreams();
            throw e;
        }
        boolean rebuild = qp != null && (newPz != pz || newRecv != recvEvd || newRequest != requestEvd
                || newAttrs.maxRequestDtos() != attrs.maxRequestDtos() || newAttrs.maxRecvDtos() != attrs.maxRecvDtos()
                || newAttrs.maxRequestIov() != attrs.maxRequestIov() || newAttrs.maxRecvIov() != attrs.maxRecvIov()
                || newAttrs.maxRdmaReadIov() != attrs.maxRdmaReadIov() || newAttrs.maxRdmaWriteIov() != attrs.maxRdmaWriteIov());
        if (newPz != pz) {
            if (pz != null) {
                pz.removeUser();
            }
            newPz.addUser();
        }
        SimPz oldPz = pz;
        pz = newPz;
        recvEvd = newRecv;
        requestEvd = newRequest;
        connectEvd = newConnect;
        EpAttributes oldAttrs = attrs;
        attrs = newAttrs;
        addStreams();
        if (rebuild) {
            rebuildQp(oldPz, oldAttrs);
        } else if (qp == null) {
            posting.sizeRings(newAttrs);
            createQpIfReady();
        }
    }

    /**
     * New PZ, EVDs or sizes on an endpoint that has a QP: a new QP replaces it and the posted
     * receives move over; those whose LMR is not in the new PZ complete with a protection error
     * (dat_ep_modify(3DAT)). Device executor.
     */
    private void rebuildQp(SimPz oldPz, EpAttributes oldAttrs) {
        EpPosting.PostedReceives posted = posting.postedReceives();
        destroyQp();
        posting.sizeRings(attrs);
        createQpIfReady();
        posting.repost(posted);
    }

    @Override
    public EpParams query() {
        checkHandle();
        EndpointState s = state;
        long lq = localQual;
        long rq = remoteQual;
        return new EpParams(ia, s, Optional.of(ia.address()), lq >= 0 ? OptionalLong.of(lq) : OptionalLong.empty(),
                Optional.ofNullable(remoteAddr), rq >= 0 ? OptionalLong.of(rq) : OptionalLong.empty(),
                Optional.ofNullable(pz), Optional.ofNullable(recvEvd), Optional.ofNullable(requestEvd),
                Optional.ofNullable(connectEvd), Optional.ofNullable(srq), attrs);
    }

    @Override
    public EpStatus status() {
        checkHandle();
        QueuePair q = qp;
        boolean recvIdle = posting.recvIdle();
        return new EpStatus(state, recvIdle, q == null || q.sendQueueDepth() == 0);
    }

    /**
     * dat_ep_recv_query(3DAT): receives posted to the endpoint and not yet completed; with an SRQ,
     * the buffers the endpoint holds are not tracked per endpoint (DAT_VALUE_UNKNOWN).
     */
    @Override
    public EpRecvInfo recvQuery() {
        checkHandle();
        return posting.recvQuery();
    }

    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        checkHandle();
        watermarks.set(softHighWatermark, hardHighWatermark);
    }

    long remotePortQual() {
        return remoteQual;
    }

    @Override
    public String toString() {
        return "EP#" + id + "[" + state + "]";
    }
}
