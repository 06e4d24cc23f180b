package io.simrdma.provider;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Posts and their completions are {@link EpPosting}'s; connecting, accepting, disconnecting
 * and the connection events {@link EpConnection}'s; the receive-buffer watermarks
 * {@link EpWatermarks}'.
 *
 * <p>Threading: posts and queries run on the caller's thread; every state change runs on the
 * device's executor, where connection-manager events arrive too.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimEp extends SimHandle implements Endpoint {

    private static final Logger LOG = LoggerFactory.getLogger(SimEp.class);

    final int id;
    /** A provider endpoint of a PSP (dat_psp_create(3DAT) with DAT_PSP_PROVIDER_FLAG). */
    final boolean providerCreated;
    volatile EndpointState state;
    private volatile SimPz pz;
    private SimEvd recvEvd;
    private SimEvd requestEvd;
    private SimEvd connectEvd;
    final SimSrq srq;
    private volatile EpAttributes attrs;
    private volatile QueuePair qp;

    /** Posts and their completions. */
    final EpPosting posting;
    /** dat_ep_set_watermark(3DAT). */
    final EpWatermarks watermarks;
    /** Connect, accept, disconnect and their events. */
    final EpConnection connection;

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
        this.connection = new EpConnection(this);
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

    SimEvd connectEvd() {
        return connectEvd;
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

    // ------------------------------------------------------------------ connection (EpConnection)

    @Override
    public void connect(SocketAddress remoteIaAddress, long remoteConnQual, Timeout timeout, byte[] privateData,
                        Qos qos, Set<ConnectFlag> connectFlags) {
        connection.connect(remoteIaAddress, remoteConnQual, timeout, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(Endpoint dupEp, Timeout timeout, byte[] privateData, Qos qos) {
        connection.dupConnect(dupEp, timeout, privateData, qos);
    }

    @Override
    public void disconnect(CloseFlag flag) {
        connection.disconnect(flag);
    }

    /** The QP to ERR, unless it is there or in RESET already (a failed or abandoned connection). Device executor. */
    void qpToError() {
        QueuePair q = qp;
        if (q != null && q.state() != QpState.ERR && q.state() != QpState.RESET) {
            q.modify(new QpAttr().state(QpState.ERR));
        }
    }

    // ------------------------------------------------------------------ reset, free

    @Override
    public void reset() {
        checkHandle();
        ia.run(() -> {
            EpStateTable.Rule r = EpStateTable.check(state, EpOp.RESET);
            if (r.kind() == EpStateTable.Kind.NOOP) {
                return;
            }
            connection.releaseCmId();
            QueuePair q = qp;
            if (q != null) {
                q.modify(new QpAttr().state(QpState.RESET));
                toInit(q);
            }
            posting.forgetOutstanding();
            connection.forgetPeer();
            watermarks.rearm();
            state = r.next();
        });
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
            connection.abort();
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
        long lq = connection.localPortQual();
        long rq = connection.remotePortQual();
        return new EpParams(ia, s, Optional.of(ia.address()), lq >= 0 ? OptionalLong.of(lq) : OptionalLong.empty(),
                Optional.ofNullable(connection.remoteAddress()), rq >= 0 ? OptionalLong.of(rq) : OptionalLong.empty(),
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

    @Override
    public String toString() {
        return "EP#" + id + "[" + state + "]";
    }
}
