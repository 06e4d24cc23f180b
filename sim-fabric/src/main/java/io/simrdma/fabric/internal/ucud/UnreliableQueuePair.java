package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.MemoryWindow;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpAttrMask;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QpType;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.Sge;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.internal.CounterSet;
import io.simrdma.fabric.internal.cq.CqImpl;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.internal.mem.MwImpl;
import io.simrdma.fabric.internal.mem.PdImpl;
import io.simrdma.fabric.internal.mem.WindowOwner;
import io.simrdma.fabric.internal.rc.RecvWqe;
import io.simrdma.fabric.internal.rc.SrqImpl;
import io.simrdma.fabric.sched.Task;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A UC or UD queue pair (ibv_create_qp(3) with IBV_QPT_UC or IBV_QPT_UD): the state machine of
 * IBA 11.2.5.2 for its type ({@link UnreliableTransitions}), a send and a receive queue, and the
 * roles that run the transport: {@link UnreliableSender}, {@link UcReceiver}, {@link UdReceiver}.
 *
 * <p>What differs from RC: nothing is acknowledged or retried, so a send completes when its
 * packets leave; a receive error of the peer is never seen by the sender. UC carries SEND and
 * RDMA WRITE (with or without immediate data); UD only SEND, one packet of at most the port's MTU
 * per message, to the address handle, QP number and Q_Key each work request names. A send that
 * fails locally (protection, length) completes in error and moves the QP to SQE, where the rest
 * of the send queue is flushed until a modify returns it to RTS (IBA 10.3.1); receive errors move
 * it to ERR.
 *
 * <p>Posting runs on the caller's thread; the engine and {@link #modify}, {@link #query},
 * {@link #destroy} run on the device executor.
 *
 * <p>Thread safety: thread-safe; several threads may post to the same QP.
 */
public final class UnreliableQueuePair implements QueuePair, WindowOwner {

    private static final Logger LOG = LoggerFactory.getLogger(UnreliableQueuePair.class);

    /** The default P_Key, the one entry of a simrdma port's P_Key table. */
    static final int DEFAULT_PKEY = 0xFFFF;

    private static final int QP_ACCESS_BITS = AccessFlag.LOCAL_WRITE.bit()
            | AccessFlag.REMOTE_WRITE.bit()
            | AccessFlag.REMOTE_READ.bit()
            | AccessFlag.REMOTE_ATOMIC.bit();

    private final UnreliableContext ctx;
    private final PdImpl pd;
    private final int qpn;
    private final QpType type;
    private final CqImpl sendCq;
    private final CqImpl recvCq;
    /** The SRQ a UD QP receives from, or null (ibv_create_qp(3): only RC and UD QPs take one). */
    private final SrqImpl srq;
    /** A WQE taken from the SRQ, and the same as this package reads it; engine thread. */
    private final RecvWqe srqTaken;

    private final RecvRing.Wqe srqWqe;
    private final QpCaps caps;
    private final boolean sqSigAll;
    private final Object context;
    final CounterSet counters;
    final SendRing sq;
    final RecvRing rq;
    private final UnreliableSender sender;
    private final UcReceiver ucReceiver;
    private final UdReceiver udReceiver;
    private final Task sendTask;
    private final AtomicBoolean sendQueued = new AtomicBoolean();
    public final AtomicInteger asyncRetrieved = new AtomicInteger();

    private volatile QpState state = QpState.RESET;
    private volatile ErrorCause errorCause;
    private volatile boolean destroyed;
    private boolean sqDrainedRaised;

    // ---- the attributes ibv_modify_qp(3) sets; engine thread
    int accessFlags;
    int pkeyIndex;
    int port = 1;
    int qkey;
    AhAttr av;
    Mtu pathMtu = Mtu.MTU_256;
    int destQpn;
    int rqPsn;
    int sqPsn;
    boolean sqdNotify;

    public UnreliableQueuePair(UnreliableContext ctx, PdImpl pd, int qpn, QpInitAttr attr) {
        this.ctx = ctx;
        this.pd = pd;
        this.qpn = qpn;
        this.type = attr.qpType();
        this.sendCq = (CqImpl) attr.sendCq();
        this.recvCq = (CqImpl) attr.recvCq();
        this.srq = (SrqImpl) attr.srq();
        QpCaps c = attr.caps();
        // As RC: with an SRQ, max_recv_wr and max_recv_sge read 0.
        this.caps = srq == null ? c : new QpCaps(c.maxSendWr(), 0, c.maxSendSge(), 0, c.maxInlineData());
        int srqSge = Math.max(1, ctx.attributes().maxSrqSge());
        this.srqTaken = srq == null ? null : new RecvWqe(srqSge);
        this.srqWqe = srq == null ? null : new RecvRing.Wqe(srqSge);
        this.sqSigAll = attr.sqSigAll();
        this.context = attr.context();
        this.counters = new CounterSet(ctx.counters());
        this.sq = new SendRing(caps.maxSendWr(), caps.maxSendSge(), caps.maxInlineData());
        this.rq = new RecvRing(caps.maxRecvWr(), caps.maxRecvSge());
        this.sender = new UnreliableSender(this);
        this.ucReceiver = type == QpType.UC ? new UcReceiver(this) : null;
        this.udReceiver = type == QpType.UD ? new UdReceiver(this) : null;
        this.sendTask = new Task() {
            @Override
            public void run() {
                sendQueued.set(false);
                sender.run();
            }

            @Override
            public String toString() {
                return "sender-" + qpn;
            }
        };
    }

    // ------------------------------------------------------------------ accessors

    @Override
    public int qpNum() {
        return qpn;
    }

    /** UC or UD. */
    public QpType type() {
        return type;
    }

    @Override
    public QpType qpType() {
        return type;
    }

    @Override
    public Device device() {
        return ctx.device();
    }

    UnreliableContext owner() {
        return ctx;
    }

    @Override
    public PdImpl pd() {
        return pd;
    }

    @Override
    public CqImpl sendCq() {
        return sendCq;
    }

    @Override
    public CqImpl recvCq() {
        return recvCq;
    }

    /** The SRQ a UD QP receives from, or null. */
    @Override
    public SrqImpl srq() {
        return srq;
    }

    @Override
    public QpCaps caps() {
        return caps;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public boolean sqSigAll() {
        return sqSigAll;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public CounterSet counters() {
        return counters;
    }

    @Override
    public ErrorCause errorCause() {
        return errorCause;
    }

    @Override
    public int sendQueueDepth() {
        return sq.size();
    }

    /** Type 2 memory windows bound to this QP; engine thread. */
    private int boundWindows;

    @Override
    public void windowsBound(int delta) {
        boundWindows += delta;
    }

    // ------------------------------------------------------------------ posting

    /**
     * Posts a chain of send work requests (ibv_post_send(3)), stopping at the first that cannot be
     * posted.
     *
     * @throws PostException ENOENT after destroy; in RESET, INIT or RTR what the device profile
     *                       says (EINVAL, ENOTCONN, or the WR held or dropped); EINVAL for an
     *                       opcode the QP type does not carry (UC: SEND and RDMA WRITE with or
     *                       without immediate; UD: SEND with or without immediate), too many SGEs,
     *                       inline data over max_inline_data, a UD WR without a valid address
     *                       handle of this QP's PD or with a remote QPN over 24 bits; the profile's
     *                       errno for immediate data it lacks; ENOMEM when the send queue is full
     */
    @Override
    public void postSend(SendWr first) {
        Objects.requireNonNull(first, "wr");
        if (destroyed) {
            throw new PostException(Errno.ENOENT, "queue pair was destroyed", first, 0);
        }
        QpState s = state;
        boolean drop = false;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            switch (ctx.profile().postSendBeforeRts()) {
                case REFUSE_EINVAL:
                    throw new PostException(Errno.EINVAL, "cannot post a send in state " + s, first, 0);
                case REFUSE_ENOTCONN:
                    throw new PostException(Errno.ENOTCONN, "cannot post a send in state " + s, first, 0);
                case DROP:
                    drop = true;
                    break;
                default:
                    break;
            }
        }
        int n = 0;
        synchronized (sq.postLock) {
            for (SendWr wr = first; wr != null; wr = wr.next(), n++) {
                check(wr, n);
                if (drop) {
                    continue;
                }
                SendRing.Wqe w = sq.claim(caps.maxSendWr());
                if (w == null) {
                    throw new PostException(
                            Errno.ENOMEM, "send queue full (" + caps.maxSendWr() + " WRs outstanding)", wr, n);
                }
                copy(wr, w, n);
                sq.publish();
            }
        }
        kick();
    }

    /** The post-time checks of one WR (ibv_post_send(3)). */
    private void check(SendWr wr, int n) {
        WrOpcode op = wr.opcode();
        boolean allowed = op == WrOpcode.SEND
                || op == WrOpcode.SEND_WITH_IMM
                || (type == QpType.UC
                        && (op == WrOpcode.RDMA_WRITE
                                || op == WrOpcode.RDMA_WRITE_WITH_IMM
                                || op == WrOpcode.BIND_MW
                                || op == WrOpcode.LOCAL_INV));
        if (!allowed) {
            // IBA 9.8.3 / 9.8.4: UC carries SEND and RDMA WRITE (and the local memory window
            // operations, ibv_bind_mw(3): "UC, RC or XRC_SEND"), UD only SEND.
            throw new PostException(Errno.EINVAL, op + " is not an operation of a " + type + " QP", wr, n);
        }
        if (op == WrOpcode.BIND_MW) {
            if (!(wr.bindWindow() instanceof MwImpl) || !(wr.bindRegion() instanceof MrImpl)) {
                throw new PostException(Errno.EINVAL, "BIND_MW needs a window and a region of this fabric", wr, n);
            }
            if (wr.bindWindow().type() != io.simrdma.fabric.MwType.TYPE_2) {
                throw new PostException(
                        Errno.EINVAL, "type 1 windows are bound with bindMw (ibv_bind_mw(3)), not BIND_MW", wr, n);
            }
        }
        DeviceProfile profile = ctx.profile();
        if (!profile.supports(op)) {
            throw new PostException(
                    profile.unsupportedOperation(),
                    "device " + ctx.name() + " (profile " + profile.name() + ") does not support " + op,
                    wr,
                    n);
        }
        if (wr.numSge() > caps.maxSendSge()) {
            throw new PostException(
                    Errno.EINVAL, "send WR has " + wr.numSge() + " SGEs, max_send_sge is " + caps.maxSendSge(), wr, n);
        }
        long len = wr.totalLength();
        if (len > Integer.MAX_VALUE) {
            throw new PostException(Errno.EINVAL, "message longer than 2^31 bytes", wr, n);
        }
        if (wr.hasFlag(SendFlag.INLINE) && len > caps.maxInlineData()) {
            throw new PostException(
                    Errno.EINVAL,
                    "inline data of " + len + " bytes exceeds max_inline_data " + caps.maxInlineData(),
                    wr,
                    n);
        }
        if (type == QpType.UD) {
            if (!(wr.ah() instanceof AhImpl) || !wr.ah().isValid() || ((AhImpl) wr.ah()).pdImpl() != pd) {
                throw new PostException(Errno.EINVAL, "a UD send needs a live address handle of the QP's PD", wr, n);
            }
            if ((wr.remoteQpn() & ~Psn.MASK) != 0) {
                throw new PostException(
                        Errno.EINVAL, "remote_qpn " + wr.remoteQpn() + " is not a 24-bit QP number", wr, n);
            }
        }
    }

    private void copy(SendWr wr, SendRing.Wqe w, int n) {
        w.wrId = wr.wrId();
        w.opcode = wr.opcode();
        w.flags = wr.flagBits();
        w.imm = wr.immData();
        w.remoteAddr = wr.remoteAddr();
        w.rkey = wr.rkey();
        w.ah = type == QpType.UD ? (AhImpl) wr.ah() : null;
        w.remoteQpn = wr.remoteQpn();
        w.invRkey = wr.invalidateRkey();
        if (wr.opcode() == WrOpcode.BIND_MW) {
            w.mw = (MwImpl) wr.bindWindow();
            w.bindMr = (MrImpl) wr.bindRegion();
            w.bindRkey = wr.bindRkey();
            w.bindAddr = wr.bindAddr();
            w.bindLength = wr.bindLength();
            w.bindAccess = wr.bindAccessBits();
        }
        w.remoteQkey = wr.remoteQkey();
        w.length = wr.totalLength();
        w.isInline = wr.hasFlag(SendFlag.INLINE);
        int numSge = wr.numSge();
        w.numSge = numSge;
        int at = 0;
        for (int i = 0; i < numSge; i++) {
            Sge s = wr.sgeAt(i);
            w.addr[i] = s.addr();
            w.len[i] = s.length();
            w.lkey[i] = s.lkey();
            if (w.isInline && s.length() > 0) {
                // ibv_post_send(3) IBV_SEND_INLINE: the bytes are copied now; the lkey is not checked.
                MrImpl mr = ctx.memory().regionAt(s.addr(), s.length());
                if (mr == null) {
                    throw new PostException(Errno.EINVAL, "inline SGE " + i + " names no registered memory", wr, n);
                }
                mr.buf.get(mr.indexOf(s.addr()), w.inline, at, s.length());
                at += s.length();
            }
        }
    }

    /**
     * Binds a type 1 memory window (ibv_bind_mw(3)) through this UC QP's send queue and returns
     * its new R_Key at once; a {@code length} of 0 unbinds. The bind runs in order with the sends
     * and completes with a BIND_MW completion (MW_BIND_ERR and SQE if a rule of IBA 10.6.7 is broken).
     *
     * @throws VerbsException EINVAL on a UD QP (ibv_bind_mw(3): "The QP Transport Service Type must be
     *                        either UC, RC or XRC_SEND"), for a type 2 window, or a non-zero length
     *                        without a region; ENOENT for a deallocated window or a destroyed QP;
     *                        the profile's refusal in RESET, INIT or RTR; ENOMEM when the send queue is full
     */
    @Override
    public int bindMw(
            MemoryWindow window,
            MemoryRegion region,
            long addr,
            long length,
            Set<AccessFlag> access,
            long wrId,
            Set<SendFlag> flags) {
        Objects.requireNonNull(window, "mw");
        if (type != QpType.UC) {
            throw VerbsException.invalid("ibv_bind_mw(3): the QP must be UC, RC or XRC_SEND, not " + type);
        }
        if (!(window instanceof MwImpl) || (region != null && !(region instanceof MrImpl))) {
            throw VerbsException.invalid("window or region of another fabric");
        }
        MwImpl w = (MwImpl) window;
        if (w.deallocated) {
            throw VerbsException.stale("memory window was deallocated");
        }
        if (w.type() != io.simrdma.fabric.MwType.TYPE_1) {
            throw VerbsException.invalid("ibv_bind_mw binds type 1 windows; post BIND_MW for type 2");
        }
        if (region == null && length != 0) {
            throw VerbsException.invalid("a bind of " + length + " bytes needs a memory region");
        }
        if (destroyed) {
            throw VerbsException.stale("queue pair was destroyed");
        }
        QpState s = state;
        boolean drop = false;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            switch (ctx.profile().postSendBeforeRts()) {
                case REFUSE_EINVAL:
                    throw VerbsException.invalid("cannot post a bind in state " + s);
                case REFUSE_ENOTCONN:
                    throw new VerbsException(Errno.ENOTCONN, "cannot post a bind in state " + s);
                case DROP:
                    drop = true;
                    break;
                default:
                    break;
            }
        }
        int newRkey;
        synchronized (sq.postLock) {
            SendRing.Wqe q = drop ? null : sq.claim(caps.maxSendWr());
            if (!drop && q == null) {
                throw new VerbsException(Errno.ENOMEM, "send queue full (" + caps.maxSendWr() + " WRs outstanding)");
            }
            newRkey = length == 0 ? w.rkey() : MemoryWindow.incrementRkey(w.rkey());
            w.rkey(newRkey);
            if (drop) {
                return newRkey;
            }
            q.wrId = wrId;
            q.opcode = WrOpcode.BIND_MW;
            int bits = 0;
            if (flags != null) {
                for (SendFlag f : flags) {
                    bits |= f.bit();
                }
            }
            q.flags = bits;
            q.numSge = 0;
            q.length = 0;
            q.isInline = false;
            q.mw = w;
            q.bindMr = (MrImpl) region;
            q.bindRkey = newRkey;
            q.bindAddr = addr;
            q.bindLength = length;
            q.bindAccess = AccessFlag.mask(Objects.requireNonNull(access, "access"));
            sq.publish();
        }
        kick();
        return newRkey;
    }

    /**
     * Posts a chain of receive work requests (ibv_post_recv(3)). A UD QP's receives must leave
     * room for the 40-byte GRH before the data.
     *
     * @throws PostException ENOENT after destroy; EINVAL in RESET unless the profile holds it, or
     *                       for too many SGEs; ENOMEM when the receive queue is full
     */
    @Override
    public void postRecv(RecvWr first) {
        Objects.requireNonNull(first, "wr");
        if (destroyed) {
            throw new PostException(Errno.ENOENT, "queue pair was destroyed", first, 0);
        }
        if (srq != null) {
            throw new PostException(
                    Errno.EINVAL, "QP receives from an SRQ; post to the SRQ (ibv_post_srq_recv(3))", first, 0);
        }
        if (state == QpState.RESET && ctx.profile().postRecvInReset() == DeviceProfile.PostRecvInReset.REFUSE_EINVAL) {
            throw new PostException(Errno.EINVAL, "cannot post a receive in state RESET", first, 0);
        }
        synchronized (rq.postLock) {
            rq.post(first);
        }
        if (state == QpState.ERR) {
            kick();
        }
    }

    /** Makes the sender run soon. Any thread. */
    void kick() {
        if (!sendQueued.get() && sendQueued.compareAndSet(false, true)) {
            ctx.executor().execute(sendTask);
        }
    }

    // ------------------------------------------------------------------ modify / query / destroy

    /**
     * Modifies the QP (ibv_modify_qp(3)) by the UC or UD column of IBA 11.2.5.2 table 91; every
     * value is checked before anything changes.
     *
     * @throws VerbsException EINVAL for an illegal transition, a missing or unaccepted attribute,
     *                        or an invalid value; ENOENT after destroy
     */
    @Override
    public void modify(QpAttr a) {
        Objects.requireNonNull(a, "attr");
        ctx.executor().call(() -> {
            applyModify(a);
            return null;
        });
    }

    private void applyModify(QpAttr a) {
        if (destroyed) {
            throw VerbsException.stale("queue pair was destroyed");
        }
        Set<QpAttrMask> mask = a.mask();
        QpState cur = state;
        if (mask.contains(QpAttrMask.CUR_STATE) && a.curState() != cur) {
            throw VerbsException.invalid("cur_qp_state " + a.curState() + " but the QP is in " + cur);
        }
        QpState to = mask.contains(QpAttrMask.STATE) ? Objects.requireNonNull(a.state(), "state") : cur;
        UnreliableTransitions.check(type, cur, to, mask);
        validate(a, mask);
        apply(a, mask);
        if (to != cur || to == QpState.RESET) {
            enter(cur, to);
        }
    }

    private void validate(QpAttr a, Set<QpAttrMask> mask) {
        if (mask.contains(QpAttrMask.PKEY_INDEX) && a.pkeyIndex() != 0) {
            throw VerbsException.invalid("pkey_index " + a.pkeyIndex() + " out of range: the P_Key table has 1 entry");
        }
        if (mask.contains(QpAttrMask.PORT) && a.port() != 1) {
            throw VerbsException.invalid("port_num " + a.port() + ": the device has one port, numbered 1");
        }
        if (mask.contains(QpAttrMask.ACCESS_FLAGS) && (a.accessFlagBits() & ~QP_ACCESS_BITS) != 0) {
            throw VerbsException.invalid(
                    "qp_access_flags may hold only LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC");
        }
        if (mask.contains(QpAttrMask.AV)) {
            AhAttr v = Objects.requireNonNull(a.av(), "av");
            if (v.portNum() != 1 || v.sgidIndex() != 0 || v.sl() < 0 || v.sl() > 15) {
                throw VerbsException.invalid("address vector needs port 1, sgid_index 0 and sl 0..15: " + v);
            }
        }
        if (mask.contains(QpAttrMask.PATH_MTU)) {
            Mtu m = Objects.requireNonNull(a.pathMtu(), "pathMtu");
            if (m.bytes() > ctx.activeMtu().bytes()) {
                throw VerbsException.invalid("path_mtu " + m + " exceeds the port's active MTU " + ctx.activeMtu());
            }
        }
        if (mask.contains(QpAttrMask.DEST_QPN) && (a.destQpn() & ~Psn.MASK) != 0) {
            throw VerbsException.invalid("dest_qp_num " + a.destQpn() + " is not a 24-bit QP number");
        }
        if (mask.contains(QpAttrMask.RQ_PSN) && (a.rqPsn() & ~Psn.MASK) != 0) {
            throw VerbsException.invalid("rq_psn " + a.rqPsn() + " is not a 24-bit PSN");
        }
        if (mask.contains(QpAttrMask.SQ_PSN) && (a.sqPsn() & ~Psn.MASK) != 0) {
            throw VerbsException.invalid("sq_psn " + a.sqPsn() + " is not a 24-bit PSN");
        }
    }

    private void apply(QpAttr a, Set<QpAttrMask> mask) {
        if (mask.contains(QpAttrMask.ACCESS_FLAGS)) {
            accessFlags = a.accessFlagBits();
        }
        if (mask.contains(QpAttrMask.PKEY_INDEX)) {
            pkeyIndex = a.pkeyIndex();
        }
        if (mask.contains(QpAttrMask.PORT)) {
            port = a.port();
        }
        if (mask.contains(QpAttrMask.QKEY)) {
            qkey = a.qkey();
        }
        if (mask.contains(QpAttrMask.AV)) {
            av = a.av();
            route = null;
        }
        if (mask.contains(QpAttrMask.PATH_MTU)) {
            pathMtu = a.pathMtu();
        }
        if (mask.contains(QpAttrMask.DEST_QPN)) {
            destQpn = a.destQpn();
        }
        if (mask.contains(QpAttrMask.RQ_PSN)) {
            rqPsn = a.rqPsn();
        }
        if (mask.contains(QpAttrMask.SQ_PSN)) {
            sqPsn = a.sqPsn();
        }
        if (mask.contains(QpAttrMask.EN_SQD_ASYNC_NOTIFY)) {
            sqdNotify = a.enSqdAsyncNotify();
        }
    }

    private void enter(QpState from, QpState to) {
        switch (to) {
            case RESET:
                errorCause = null;
                setState(to);
                sq.clear();
                synchronized (rq.postLock) {
                    rq.clear();
                }
                if (ucReceiver != null) {
                    ucReceiver.reset(0);
                }
                break;
            case RTR:
                if (ucReceiver != null) {
                    ucReceiver.reset(rqPsn);
                }
                setState(to);
                break;
            case RTS:
                sender.start(sqPsn);
                setState(to);
                kick();
                break;
            case SQD:
                // Sends complete as their packets leave: the send queue is drained at once.
                setState(to);
                if (sqdNotify && !sqDrainedRaised) {
                    sqDrainedRaised = true;
                    ctx.raiseAsync(AsyncEventType.SQ_DRAINED, this);
                }
                break;
            case ERR:
                enterError(ErrorCause.MODIFY);
                break;
            default:
                setState(to);
                break;
        }
        if (to != QpState.SQD) {
            sqDrainedRaised = false;
        }
    }

    private void setState(QpState to) {
        QpState from = state;
        state = to;
        if (from != to) {
            ctx.qpStateChanged(this, from, to);
        }
    }

    /** A send failed locally: SQE, the rest of the send queue is flushed (IBA 10.3.1). Engine thread. */
    void enterSendQueueError() {
        if (state == QpState.RTS || state == QpState.SQD) {
            errorCause = ErrorCause.SEND_ERROR;
            setState(QpState.SQE);
            kick();
        }
    }

    /** Moves to ERR and flushes both queues. Engine thread. */
    void enterError(ErrorCause cause) {
        if (state == QpState.ERR) {
            return;
        }
        errorCause = cause;
        setState(QpState.ERR);
        flushSends();
        flushReceives();
        if (srq != null) {
            // IBA 11.6.3: an SRQ-attached QP entering the error state reports Last WQE Reached.
            ctx.raiseAsync(AsyncEventType.QP_LAST_WQE_REACHED, this);
        }
    }

    /**
     * The receive WQE the next message goes into, or null if none is posted: the oldest of the
     * QP's own queue (consumed by {@link #consumeReceive}), or one taken from the SRQ now (already
     * consumed: an SRQ's WQE is not held for a message that fails). Engine thread.
     */
    RecvRing.Wqe nextReceive() {
        if (srq == null) {
            return rq.peek();
        }
        if (!srq.take(srqTaken)) {
            return null;
        }
        RecvRing.Wqe w = srqWqe;
        w.wrId = srqTaken.wrId();
        w.numSge = srqTaken.numSge();
        for (int i = 0; i < w.numSge; i++) {
            w.addr[i] = srqTaken.sgeAddr(i);
            w.len[i] = srqTaken.sgeLen(i);
            w.lkey[i] = srqTaken.sgeLkey(i);
        }
        w.capacity = srqTaken.capacity();
        return w;
    }

    /** Retires the WQE {@link #nextReceive} gave. Engine thread. */
    void consumeReceive() {
        if (srq == null) {
            rq.advance();
        }
    }

    /**
     * The PD receive buffers are checked against: the SRQ's for a WQE from an SRQ (IBA 10.2.9,
     * ibv_create_srq(3)), else the QP's.
     */
    PdImpl recvPd() {
        return srq != null ? srq.pd() : pd;
    }

    /** Completes every queued send WQE with WR_FLUSH_ERR. Engine thread. */
    void flushSends() {
        for (SendRing.Wqe w = sq.peek(); w != null; w = sq.peek()) {
            completeSend(w.wrId, WcStatus.WR_FLUSH_ERR, sendOpcode(w.opcode), 0, true);
            sq.advance();
        }
    }

    /** Completes every posted receive with WR_FLUSH_ERR (an SRQ's stay for its other QPs). Engine thread, state ERR. */
    void flushReceives() {
        if (srq != null) {
            return;
        }
        for (RecvRing.Wqe w = rq.peek(); w != null; w = rq.peek()) {
            completeRecv(w.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            rq.advance();
        }
    }

    @Override
    public QpAttr query() {
        return ctx.executor().call(() -> {
            if (destroyed) {
                throw VerbsException.stale("queue pair was destroyed");
            }
            QpAttr a = new QpAttr()
                    .state(state)
                    .curState(state)
                    .cap(caps)
                    .pkeyIndex(pkeyIndex)
                    .port(port)
                    .sqPsn(sqPsn)
                    .enSqdAsyncNotify(sqdNotify);
            if (type == QpType.UD) {
                a.qkey(qkey);
            } else {
                a.accessFlags(AccessFlag.fromMask(accessFlags))
                        .pathMtu(pathMtu)
                        .destQpn(destQpn)
                        .rqPsn(rqPsn);
                if (av != null) {
                    a.av(av);
                }
            }
            a.sqDraining(false);
            return a;
        });
    }

    @Override
    public void destroy() {
        ctx.executor().call(() -> {
            if (destroyed) {
                throw VerbsException.stale("queue pair already destroyed");
            }
            if (asyncRetrieved.get() > 0) {
                throw VerbsException.busy(asyncRetrieved.get() + " async event(s) of this QP not acknowledged");
            }
            if (boundWindows > 0) {
                throw VerbsException.busy(
                        boundWindows + " type 2 memory window(s) are bound to this QP; invalidate them first");
            }
            forceDestroy();
            return null;
        });
        io.simrdma.fabric.FabricObserver o = ctx.observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    /** Destroys without checks (device teardown). Engine thread. */
    public void forceDestroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        sq.clear();
        ctx.qpDestroyed(this);
    }

    // ------------------------------------------------------------------ engine

    /** The sender may start messages in RTS; SQE and ERR flush. */
    boolean canSend() {
        return state == QpState.RTS;
    }

    /** Receives are processed in RTR, RTS, SQD and SQE (IBA 10.3.1). */
    boolean canReceive() {
        QpState s = state;
        return s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
    }

    /** A packet for this QP arrives. Engine thread; takes ownership. */
    public void receive(Packet p) {
        counters.increment(Counter.PACKETS_RECEIVED);
        counters.add(Counter.BYTES_RECEIVED, p.payloadLength());
        if (destroyed || !canReceive()) {
            drop(p, io.simrdma.fabric.DropReason.QP_STATE, Counter.DROPPED_PACKETS);
            return;
        }
        if (type == QpType.UD) {
            udReceiver.receive(p);
        } else {
            ucReceiver.receive(p);
        }
    }

    void drop(Packet p, io.simrdma.fabric.DropReason reason, Counter counter) {
        counters.increment(counter);
        ctx.drop(p, reason, Counter.DROPPED_PACKETS);
    }

    /** The route of a UC QP's packets toward its AV, found once per AV. Engine thread. */
    private io.simrdma.fabric.internal.link.PacketRoute route;

    /** Sends a packet to the UC peer ({@code ah} null) or to an address handle. Engine thread. */
    void transmit(Packet p, AhImpl ah) {
        counters.increment(Counter.PACKETS_SENT);
        counters.add(Counter.BYTES_SENT, p.payloadLength());
        io.simrdma.fabric.wire.Gid to = ah == null ? av.dgid() : ah.attr().dgid();
        io.simrdma.fabric.internal.link.PacketRoute r = ah == null ? route : ah.route;
        if (r == null || r.isRemoved()) {
            r = ctx.route(to);
            if (ah == null) {
                route = r;
            } else {
                ah.route = r;
            }
        }
        ctx.transmit(p, to, r);
    }

    static WcOpcode sendOpcode(WrOpcode op) {
        switch (op) {
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                return WcOpcode.RDMA_WRITE;
            case BIND_MW:
                return WcOpcode.BIND_MW;
            case LOCAL_INV:
                return WcOpcode.LOCAL_INV;
            default:
                return WcOpcode.SEND;
        }
    }

    /** Adds a send completion if {@code signaled} or in error; a full CQ moves the QP to ERR. Engine thread. */
    void completeSend(long wrId, WcStatus status, WcOpcode opcode, int byteLen, boolean signaled) {
        if (!signaled && !sqSigAll && status == WcStatus.SUCCESS) {
            return;
        }
        complete(sendCq, wrId, status, opcode, byteLen, 0, 0, destQpn, false);
    }

    /** Adds a receive completion; a full CQ moves the QP to ERR. Engine thread. */
    void completeRecv(
            long wrId,
            WcStatus status,
            WcOpcode opcode,
            int byteLen,
            int imm,
            int flags,
            int srcQp,
            boolean solicited) {
        complete(recvCq, wrId, status, opcode, byteLen, imm, flags, srcQp, solicited);
    }

    private void complete(
            CqImpl cq,
            long wrId,
            WcStatus status,
            WcOpcode opcode,
            int byteLen,
            int imm,
            int flags,
            int srcQp,
            boolean solicited) {
        counters.increment(Counter.COMPLETIONS);
        if (status != WcStatus.SUCCESS) {
            counters.increment(Counter.COMPLETION_ERRORS);
        }
        if (!cq.push(wrId, status, opcode, byteLen, imm, flags, qpn, srcQp, solicited, 0) && state != QpState.ERR) {
            // The CQ overran (it raised CQ_ERR): with nothing to retry, the QP stops here.
            LOG.debug("qp {}: CQ overrun, moving to ERR", qpn);
            enterError(ErrorCause.CQ_OVERRUN);
        }
    }

    @Override
    public String toString() {
        return "QP[" + ctx.name() + ":" + qpn + " " + type + ", " + state + "]";
    }
}
