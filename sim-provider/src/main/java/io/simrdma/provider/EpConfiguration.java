package io.simrdma.provider;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EpParamField;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.VerbsException;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an endpoint is made of and what dat_ep_modify(3DAT) changes: its PZ, its recv, request and
 * connect EVDs (with the completion streams it adds to them, {@link EvdStreams}), its attributes,
 * and the verbs RC queue pair built from them. The QP exists once the PZ is known (a provider
 * endpoint of a PSP gets it from dat_ep_modify); a stream without an EVD completes on a
 * {@link DiscardCq}. A new PZ, new EVDs or new queue sizes replace the QP and move the posted
 * receives over ({@link EpPosting#repost}).
 *
 * <p>Callers: {@link SimEp} (create, dat_ep_modify, dat_ep_query, dat_ep_get_status, reset, free),
 * {@link EpPosting} and {@link EpConnection} (the QP, the attributes, the EVDs), {@link SimRmr}
 * (the PZ), {@link SimIa} (whether a QP event is this endpoint's current QP).
 *
 * <p>Thread safety: every change runs on the device's executor ({@link SimIa#run}); the fields are
 * volatile for the readers on other threads (the posts, dat_ep_query(3DAT)). dat_ep_modify(3DAT)
 * checks the endpoint state in {@link EpStateTable}.
 */
final class EpConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(EpConfiguration.class);

    private final SimEp ep;
    private volatile SimPz pz;
    private volatile SimEvd recvEvd;
    private volatile SimEvd requestEvd;
    private volatile SimEvd connectEvd;
    private volatile EpAttributes attrs;
    /**
     * The completion flags of {@link #attrs} that every post or completion consults, as bits
     * ({@link #REQUEST_UNSIGNALLED}, {@link #RECV_UNSIGNALLED}, {@link #RECV_SOLICITED_WAIT}): read
     * without going through the attributes' sets on the hot path. Written with attrs.
     */
    private volatile int flagBits;

    static final int REQUEST_UNSIGNALLED = 1;
    static final int RECV_UNSIGNALLED = 2;
    static final int RECV_SOLICITED_WAIT = 4;

    private volatile QueuePair qp;
    /** The CQ of the request or receive stream that has no EVD, while the QP uses one; else null. */
    private DiscardCq discardCq;

    EpConfiguration(SimEp ep, SimPz pz, SimEvd recvEvd, SimEvd requestEvd, SimEvd connectEvd, EpAttributes attrs) {
        this.ep = ep;
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        setAttrs(attrs);
    }

    private void setAttrs(EpAttributes a) {
        int bits = 0;
        if (a.requestCompletionFlags().contains(CompletionFlag.UNSIGNALLED)) {
            bits |= REQUEST_UNSIGNALLED;
        }
        if (a.recvCompletionFlags().contains(CompletionFlag.UNSIGNALLED)) {
            bits |= RECV_UNSIGNALLED;
        }
        if (a.recvCompletionFlags().contains(CompletionFlag.SOLICITED_WAIT)) {
            bits |= RECV_SOLICITED_WAIT;
        }
        flagBits = bits;
        attrs = a;
    }

    /** Whether the endpoint's completion flags (of {@link #attrs}) include {@code bit}. */
    boolean hasFlag(int bit) {
        return (flagBits & bit) != 0;
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

    SimEvd requestEvd() {
        return requestEvd;
    }

    SimEvd connectEvd() {
        return connectEvd;
    }

    QueuePair qp() {
        return qp;
    }

    /** Whether {@code q} is the endpoint's current QP (a QP replaced by dat_ep_modify is not). */
    boolean qpIs(QueuePair q) {
        return qp == q;
    }

    // ------------------------------------------------------------------ dat_ep_create checks, EVD streams

    /**
     * A DTO or connect EVD handle given to dat_ep_create(3DAT) or dat_ep_modify(3DAT): null, or a live
     * EVD of {@code ia} with the {@code kind} stream; DAT_INVALID_HANDLE with {@code subtype} otherwise.
     */
    static SimEvd evd(SimIa ia, EventDispatcher h, EvdFlag kind, DatReturnSubtype subtype) {
        SimEvd e = SimHandle.checkOptional(h, SimEvd.class, ia, subtype);
        if (e != null) {
            e.checkStream(kind, subtype);
        }
        return e;
    }

    /** dat_ep_create(3DAT) USAGE: may a stream with {@code flags} join {@code evd} (null: no EVD, nothing to check)? */
    static void checkStreams(SimEvd evd, boolean recvStream, Set<CompletionFlag> flags, EvdStreams.Stream sibling) {
        if (evd != null) {
            evd.streams.checkJoin(recvStream, flags, sibling);
        }
    }

    /**
     * The endpoint's own receive stream when its request stream goes to the same EVD: the two are
     * checked against each other like streams of different endpoints (dat_ep_create(3DAT) USAGE).
     */
    static EvdStreams.Stream ownRecvStream(SimEvd recv, SimEvd request, EpAttributes a) {
        return recv != null && recv == request ? new EvdStreams.Stream(null, true, a.recvCompletionFlags()) : null;
    }

    /** The endpoint starts using its PZ, SRQ and EVDs (dat_ep_create(3DAT)). */
    void attach() {
        if (pz != null) {
            pz.addUser();
        }
        if (ep.srq != null) {
            ep.srq.epAdded(1);
        }
        addStreams();
    }

    private void addStreams() {
        if (recvEvd != null) {
            recvEvd.addUser();
            recvEvd.streams.add(new EvdStreams.Stream(ep, true, attrs.recvCompletionFlags()));
        }
        if (requestEvd != null) {
            requestEvd.addUser();
            requestEvd.streams.add(new EvdStreams.Stream(ep, false, attrs.requestCompletionFlags()));
        }
        if (connectEvd != null) {
            connectEvd.addUser();
        }
    }

    private void removeStreams() {
        if (recvEvd != null) {
            recvEvd.removeUser();
            recvEvd.streams.removeAll(ep);
        }
        if (requestEvd != null) {
            requestEvd.removeUser();
            requestEvd.streams.removeAll(ep);
        }
        if (connectEvd != null) {
            connectEvd.removeUser();
        }
    }

    /** The endpoint stops using its PZ, SRQ and EVDs (it is freed, or its creation failed). */
    void detach() {
        removeStreams();
        if (pz != null) {
            pz.removeUser();
        }
        if (ep.srq != null) {
            ep.srq.epAdded(-1);
        }
    }

    // ------------------------------------------------------------------ the QP

    /**
     * Creates the QP once the PZ is known. A stream without an EVD (dat_ep_create(3DAT): the consumer
     * "is not interested in events for completions" of it) completes on a {@link DiscardCq}: the
     * endpoint still receives, sends and connects as the pages allow. Device executor.
     */
    void createQpIfReady() {
        if (qp != null || pz == null) {
            return;
        }
        EpAttributes a = attrs;
        int sendSge = Math.max(1, Math.max(a.maxRequestIov(), Math.max(a.maxRdmaReadIov(), a.maxRdmaWriteIov())));
        QpCaps caps = new QpCaps(
                a.maxRequestDtos(),
                ep.srq == null ? a.maxRecvDtos() : 1,
                sendSge,
                ep.srq == null ? Math.max(1, a.maxRecvIov()) : 1,
                0);
        DiscardCq discard = recvEvd == null || requestEvd == null ? new DiscardCq(ep.ia) : null;
        QpInitAttr init = QpInitAttr.rc(
                        requestEvd != null ? requestEvd.cq : discard.cq, recvEvd != null ? recvEvd.cq : discard.cq)
                .caps(caps)
                .context(ep);
        if (ep.srq != null) {
            init.srq(ep.srq.srq);
        }
        QueuePair q;
        try {
            q = pz.pd.createQp(init);
        } catch (VerbsException e) {
            if (discard != null) {
                discard.destroy();
            }
            throw ep.ia.resources(e, DatReturnSubtype.RESOURCE_TEP);
        }
        toInit(q);
        qp = q;
        discardCq = discard;
        ep.ia.router.qpCreated(ep, q);
    }

    /** RESET → INIT: port 1, every access right (the DAT privileges are checked when posting). */
    private static void toInit(QueuePair q) {
        q.modify(new QpAttr()
                .state(QpState.INIT)
                .pkeyIndex(0)
                .port(1)
                .accessFlags(EnumSet.of(
                        AccessFlag.LOCAL_WRITE,
                        AccessFlag.REMOTE_WRITE,
                        AccessFlag.REMOTE_READ,
                        AccessFlag.REMOTE_ATOMIC)));
    }

    /** Destroys the QP (the endpoint is freed, or a new QP replaces it). Device executor. */
    void destroyQp() {
        QueuePair q = qp;
        if (q == null) {
            return;
        }
        qp = null;
        ep.ia.router.qpDestroyed(q);
        try {
            q.destroy();
        } catch (VerbsException e) {
            LOG.debug("EP {}: QP not destroyed: {}", ep.id, e.getMessage());
        }
        if (discardCq != null) {
            discardCq.destroy();
            discardCq = null;
        }
    }

    /** The QP; DAT_INVALID_STATE (EP_NOTREADY) while the endpoint has none (no PZ yet). */
    QueuePair readyQp() {
        QueuePair q = qp;
        if (q == null) {
            throw new DatException(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                    "the endpoint has no PZ yet (dat_ep_modify it first)");
        }
        return q;
    }

    /** The QP to ERR, unless it is there or in RESET already (a failed or abandoned connection). Device executor. */
    void qpToError() {
        QueuePair q = qp;
        if (q != null && q.state() != QpState.ERR && q.state() != QpState.RESET) {
            q.modify(new QpAttr().state(QpState.ERR));
        }
    }

    /** dat_ep_reset(3DAT): the QP goes back through RESET to INIT, ready to connect again. Device executor. */
    void resetQp() {
        QueuePair q = qp;
        if (q != null) {
            q.modify(new QpAttr().state(QpState.RESET));
            toInit(q);
        }
    }

    // ------------------------------------------------------------------ dat_ep_modify

    /** dat_ep_modify(3DAT). */
    void modify(EpModify m) {
        ep.checkHandle();
        if (m == null) {
            throw DatException.invalidParameter("modification is null");
        }
        ep.ia.run(() -> doModify(m));
    }

    private void doModify(EpModify m) {
        ep.checkHandle();
        boolean pzChange = false;
        boolean attrChange = false;
        boolean recvFlagChange = false;
        boolean specificChange = false;
        for (EpParamField f : m.fields()) {
            if (!f.modifiable()) {
                throw DatException.invalidParameter("dat_ep_modify cannot change " + f + " (dat_ep_modify(3DAT))");
            }
            switch (f) {
                case PZ_HANDLE -> pzChange = true;
                case EP_ATTR_RECV_COMPLETION_FLAGS -> recvFlagChange = true;
                case EP_ATTR_NUM_TRANSPORT_ATTR,
                        EP_ATTR_TRANSPORT_SPECIFIC_ATTR,
                        EP_ATTR_NUM_PROVIDER_ATTR,
                        EP_ATTR_PROVIDER_SPECIFIC_ATTR -> specificChange = true;
                default -> attrChange = true;
            }
        }
        if (pzChange) {
            EpStateTable.check(ep.state, EpOp.MODIFY_PZ);
        }
        if (attrChange) {
            EpStateTable.check(ep.state, EpOp.MODIFY_ATTRIBUTES);
        }
        if (specificChange) {
            // dat_ep_modify(3DAT): "Can be modified when in Quiescent (unconnected) state"; DAT_INVALID_STATE
            // elsewhere.
            EpStateTable.check(ep.state, EpOp.MODIFY_SPECIFIC_ATTRIBUTES);
        }
        if (recvFlagChange) {
            EpStateTable.check(ep.state, EpOp.MODIFY_RECV_FLAGS);
            if (ep.posting.anyRecvPosted()) {
                throw new DatException(
                        DatReturnType.INVALID_STATE,
                        EpStateTable.subtype(ep.state),
                        "recv_completion_flags can change only before any receive is posted (dat_ep_modify(3DAT))");
            }
        }
        SimPz newPz = pzChange ? SimHandle.check(m.pz(), SimPz.class, ep.ia, DatReturnSubtype.INVALID_HANDLE_PZ) : pz;
        SimEvd newRecv = m.contains(EpParamField.RECV_EVD_HANDLE)
                ? evd(ep.ia, m.recvEvd(), EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV)
                : recvEvd;
        SimEvd newRequest = m.contains(EpParamField.REQUEST_EVD_HANDLE)
                ? evd(ep.ia, m.requestEvd(), EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST)
                : requestEvd;
        SimEvd newConnect = m.contains(EpParamField.CONNECT_EVD_HANDLE)
                ? evd(ep.ia, m.connectEvd(), EvdFlag.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN)
                : connectEvd;
        EpAttributes newAttrs = m.applyTo(attrs);
        try {
            EpAttributeRules.validate(ep.ia, newAttrs, ep.srq);
        } catch (DatException e) {
            if (e.type() != DatReturnType.MODEL_NOT_SUPPORTED) {
                throw e;
            }
            // dat_ep_modify(3DAT) has no DAT_MODEL_NOT_SUPPORTED: a value "not supported" is DAT_INVALID_PARAMETER.
            throw DatException.invalidParameter(e.detail());
        }
        if (ep.srq != null && newPz != null && newPz != ep.srq.pz) {
            throw DatException.invalidParameter("the endpoint's PZ must be the SRQ's");
        }
        removeStreams();
        try {
            checkStreams(newRecv, true, newAttrs.recvCompletionFlags(), null);
            checkStreams(
                    newRequest, false, newAttrs.requestCompletionFlags(), ownRecvStream(newRecv, newRequest, newAttrs));
        } catch (DatException e) {
            addStreams();
            throw e;
        }
        boolean rebuild = qp != null
                && (newPz != pz
                        || newRecv != recvEvd
                        || newRequest != requestEvd
                        || newAttrs.maxRequestDtos() != attrs.maxRequestDtos()
                        || newAttrs.maxRecvDtos() != attrs.maxRecvDtos()
                        || newAttrs.maxRequestIov() != attrs.maxRequestIov()
                        || newAttrs.maxRecvIov() != attrs.maxRecvIov()
                        || newAttrs.maxRdmaReadIov() != attrs.maxRdmaReadIov()
                        || newAttrs.maxRdmaWriteIov() != attrs.maxRdmaWriteIov());
        if (newPz != pz) {
            if (pz != null) {
                pz.removeUser();
            }
            newPz.addUser();
        }
        pz = newPz;
        recvEvd = newRecv;
        requestEvd = newRequest;
        connectEvd = newConnect;
        setAttrs(newAttrs);
        addStreams();
        if (rebuild) {
            rebuildQp();
        } else if (qp == null) {
            ep.posting.sizeRings(newAttrs);
            createQpIfReady();
        }
    }

    /**
     * New PZ, EVDs or sizes on an endpoint that has a QP: a new QP replaces it and the posted
     * receives move over; those whose LMR is not in the new PZ complete with a protection error
     * (dat_ep_modify(3DAT)). Device executor.
     */
    private void rebuildQp() {
        EpPosting.PostedReceives posted = ep.posting.postedReceives();
        destroyQp();
        ep.posting.sizeRings(attrs);
        createQpIfReady();
        ep.posting.repost(posted);
    }
}
