package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.MemoryWindow;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpAttrMask;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.internal.CounterSet;
import io.simrdma.fabric.internal.cq.CqImpl;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.internal.mem.MwImpl;
import io.simrdma.fabric.internal.mem.PdImpl;
import io.simrdma.fabric.internal.mem.WindowOwner;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable connected queue pair (ibv_create_qp(3)) with the IBA state machine and the RC
 * transport: a {@link Requester} turns send WQEs into packets, a {@link Responder} executes
 * incoming requests, a {@link Completer} matches acknowledgements to WQEs and retries.
 *
 * <p>Posting ({@link #postSend}, {@link #postRecv}) runs on the caller's thread and copies the
 * work requests into the queues; the engine runs on the device's executor. {@link #modify},
 * {@link #query} and {@link #destroy} run on the executor and wait for it.
 *
 * <p>Thread safety: thread-safe; several threads may post to the same QP.
 */
public final class RcQueuePair implements QueuePair, WindowOwner {

    private static final Logger LOG = LoggerFactory.getLogger(RcQueuePair.class);

    /** The default P_Key; simrdma ports have a one-entry P_Key table holding it. */
    public static final int DEFAULT_PKEY = 0xFFFF;

    private final RcContext device;
    private final PdImpl pd;
    private final int qpn;
    private final CqImpl sendCq;
    private final CqImpl recvCq;
    private final SrqImpl srq;
    private final QpCaps caps;
    private final boolean sqSigAll;
    private final Object context;

    final SendQueue sq;
    final RecvQueue rq;
    public final CounterSet counters;
    final Requester requester;
    public final Responder responder;
    public final Completer completer;
    final KickTask requesterTask;
    final KickTask responderTask;
    final KickTask completerTask;
    private final KickTask resumeTask;
    /** Given to a full CQ to learn when it has room again; allocated once. */
    private final Runnable roomWaiter;
    /** Completions kept while a full CQ stalls this QP (DeviceProfile.CqOverrun.STALL). */
    private final CompletionBacklog backlog;
    /** A full CQ stalls this QP: its roles do nothing until the backlog is written. Engine thread. */
    private boolean stalled;

    public final AtomicInteger asyncRetrieved = new AtomicInteger();

    private volatile QpState state = QpState.RESET;
    private volatile ErrorCause errorCause;
    private volatile boolean destroyed;

    private final SendPoster poster = new SendPoster(this);
    /** The attributes ibv_modify_qp(3) sets; written on the engine thread. */
    final QpAttributes attr = new QpAttributes();

    boolean sqDrainedRaised;
    /** Type 2 memory windows bound to this QP; engine thread. */
    public int boundWindows;

    public PacketRoute route;

    public RcQueuePair(RcContext device, PdImpl pd, int qpn, QpInitAttr attr) {
        this.device = device;
        this.pd = pd;
        this.qpn = qpn;
        this.sendCq = (CqImpl) attr.sendCq();
        this.recvCq = (CqImpl) attr.recvCq();
        this.srq = (SrqImpl) attr.srq();
        QpCaps c = attr.caps();
        this.caps = srq == null ? c : new QpCaps(c.maxSendWr(), 0, c.maxSendSge(), 0, c.maxInlineData());
        this.sqSigAll = attr.sqSigAll();
        this.context = attr.context();
        this.counters = new CounterSet(device.counters());
        this.sq = new SendQueue(c.maxSendWr(), Math.max(1, c.maxSendSge()), c.maxInlineData());
        this.rq = srq == null ? new RecvQueue(c.maxRecvWr(), Math.max(1, c.maxRecvSge())) : null;
        this.requester = new Requester(this);
        this.responder =
                new Responder(this, srq == null ? Math.max(1, c.maxRecvSge()) : Math.max(1, srq.queue.maxSge()));
        this.completer = new Completer(this);
        this.requesterTask = new KickTask(device.executor(), "requester-" + qpn, requester::run);
        this.responderTask = new KickTask(device.executor(), "responder-" + qpn, responder::run);
        this.completerTask = new KickTask(device.executor(), "completer-" + qpn, completer::run);
        this.resumeTask = new KickTask(device.executor(), "resume-" + qpn, this::resumeFromStall);
        this.roomWaiter = resumeTask::kick;
        this.backlog = new CompletionBacklog(c.maxSendWr() + (srq == null ? c.maxRecvWr() : 0) + 2);
    }

    // ------------------------------------------------------------------ accessors

    /** The QP number (24 bits). */
    public int qpNum() {
        return qpn;
    }

    @Override
    public Device device() {
        return device.device();
    }

    /** The device that owns this QP, as the engine sees it. */
    public RcContext owner() {
        return device;
    }

    public PdImpl pd() {
        return pd;
    }

    public CqImpl sendCq() {
        return sendCq;
    }

    public CqImpl recvCq() {
        return recvCq;
    }

    /** The SRQ receives come from, or null. */
    public SrqImpl srq() {
        return srq;
    }

    /** Capabilities the QP was created with (max_recv_wr and max_recv_sge read 0 with an SRQ). */
    public QpCaps caps() {
        return caps;
    }

    /** The application object given at creation (qp_context). */
    public Object context() {
        return context;
    }

    public boolean sqSigAll() {
        return sqSigAll;
    }

    /** Current state; changes by {@link #modify} or by the engine on an error. */
    public QpState state() {
        return state;
    }

    /** This QP's counters. */
    public CounterSet counters() {
        return counters;
    }

    public Gid destGid() {
        return attr.av.dgid();
    }

    // ------------------------------------------------------------------ posting

    /**
     * Posts a chain of send work requests (ibv_post_send(3)). Processing stops at the first WR
     * that cannot be posted: the WRs before it are posted, it and the rest are not.
     *
     * <p>An atomic's arguments are checked when it executes, not here: a gather list that is not
     * one 8-byte SGE completes LOC_LEN_ERR, a remote address not 8-byte aligned REM_INV_REQ_ERR
     * (the responder NAKs it as an invalid request).
     *
     * @throws PostException EINVAL: QP state (RESET, INIT or RTR, unless the device profile holds
     *                       or drops such a post; ENOTCONN for a profile that says so), too many
     *                       SGEs, inline data too long or on an opcode that carries none, a BIND_MW
     *                       of a type 1 window, a message longer than 2^31 bytes; the profile's
     *                       errno for an operation it lacks; ENOMEM: send queue full
     */
    public void postSend(SendWr first) {
        poster.postSend(first);
    }

    /**
     * Binds a type 1 memory window (ibv_bind_mw(3)): posts a bind to this QP's send queue and
     * returns the window's new R_Key at once (the window's {@link MwImpl#rkey()} changes
     * now; remote access with it works once the bind's completion has been generated). A
     * {@code length} of 0 unbinds the window.
     *
     * @param mr    the region to bind to; may be null when {@code length} is 0
     * @param flags SIGNALED and FENCE are honoured
     * @return the R_Key the window will have
     * @throws VerbsException EINVAL for a type 2 window, a non-zero length without a region, or a
     *                        QP state that does not allow posting; ENOMEM when the send queue is full
     */
    public int bindMw(
            MemoryWindow window,
            MemoryRegion region,
            long addr,
            long length,
            Set<AccessFlag> access,
            long wrId,
            Set<SendFlag> flags) {
        return poster.bindMw(window, region, addr, length, access, wrId, flags);
    }

    /**
     * Posts a chain of receive work requests (ibv_post_recv(3)), stopping at the first that fails.
     *
     * @throws PostException EINVAL in RESET (unless the device profile holds it), for a QP that uses
     *                       an SRQ, or too many SGEs; ENOMEM when the receive queue is full
     */
    public void postRecv(RecvWr first) {
        Objects.requireNonNull(first, "wr");
        if (destroyed) {
            throw new PostException(Errno.ENOENT, "queue pair was destroyed", first, 0);
        }
        if (srq != null) {
            throw new PostException(
                    Errno.EINVAL, "QP receives from an SRQ; post to the SRQ (ibv_post_srq_recv(3))", first, 0);
        }
        if (state == QpState.RESET
                && device.profile().postRecvInReset() == DeviceProfile.PostRecvInReset.REFUSE_EINVAL) {
            // ibv_post_recv(3), IBA C10-97.2.1; a device that does not check holds it (DeviceProfile).
            throw new PostException(Errno.EINVAL, "cannot post a receive in state RESET", first, 0);
        }
        int posted = 0;
        try {
            synchronized (rq.postLock) {
                posted = rq.post(first, device.observer(), this, null);
            }
        } catch (PostException e) {
            posted = e.badIndex();
            throw e;
        } finally {
            if (posted > 0 && state == QpState.ERR) {
                completerTask.kick();
            }
        }
    }

    void kickAfterPost() {
        if (state == QpState.ERR) {
            completerTask.kick();
        } else {
            requesterTask.kick();
        }
    }

    // ------------------------------------------------------------------ modify / query / destroy

    /**
     * Modifies the QP's attributes and state (ibv_modify_qp(3)). The transition must be legal and
     * the attributes set in {@code attr} must be exactly those it requires plus any it accepts
     * (IBA 11.2.5.2); every value is checked before anything changes: if one is invalid, nothing
     * is modified.
     *
     * @throws VerbsException EINVAL naming the illegal transition, the missing or unaccepted
     *                        attribute, or the invalid value
     */
    public void modify(QpAttr attr) {
        Objects.requireNonNull(attr, "attr");
        device.executor().call(() -> {
            applyModify(attr);
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
        QpTransitions.check(cur, to, mask);
        QpAttributes.validate(a, mask, device.attributes(), device.activeMtu());
        attr.apply(a, mask);
        if (mask.contains(QpAttrMask.AV)) {
            route = null;
        }
        if (mask.contains(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            responder.resizeResources(attr.maxDestRdAtomic);
        }
        if (to != cur || to == QpState.RESET) {
            enter(cur, to);
        } else if (to == QpState.SQD) {
            // SQD -> SQD may have changed the retry parameters.
            completer.parametersChanged();
        }
    }

    /** Performs the work of entering a new state. Engine thread. */
    private void enter(QpState from, QpState to) {
        switch (to) {
            case RESET:
                errorCause = null;
                setState(to);
                resetEngine();
                break;
            case INIT:
                setState(to);
                break;
            case RTR:
                responder.start(attr.rqPsn);
                setState(to);
                break;
            case RTS:
                if (from == QpState.RTR) {
                    requester.start(attr.sqPsn);
                    completer.start(attr.sqPsn);
                } else {
                    completer.parametersChanged();
                }
                sqDrainedRaised = false;
                setState(to);
                requesterTask.kick();
                break;
            case SQD:
                sqDrainedRaised = false;
                setState(to);
                checkDrained();
                break;
            case ERR:
                if (from == QpState.RTR || from == QpState.RTS || from == QpState.SQD || from == QpState.SQE) {
                    // As an HCA, take the packets already delivered to the QP before the modify takes effect:
                    // a NAK the peer sent just before its CM's DREQ completes the failed WQE with its own
                    // status (not a flush), and a message cut off mid-way is known to be partial.
                    responder.run();
                    completer.run();
                }
                enterError();
                break;
            default:
                throw new IllegalStateException("no transition into " + to);
        }
    }

    private void setState(QpState to) {
        QpState from = state;
        state = to;
        if (from != to) {
            device.qpStateChanged(this, from, to);
        }
    }

    /** Clears queues and engine state without completions (a move to RESET). */
    private void resetEngine() {
        endStall();
        requester.reset();
        completer.reset();
        responder.reset();
        sq.clear();
        if (rq != null) {
            synchronized (rq.postLock) {
                rq.clear();
            }
        }
        route = null;
        FabricObserver o = device.observer();
        if (o != null) {
            o.queuesDiscarded(this);
        }
    }

    /**
     * Moves the QP to ERR because of an error the engine found, and flushes every outstanding
     * WQE (IBA 10.3.1: all outstanding and new WQEs complete with a flush error, in order). The
     * caller has completed the failing WQE first, if there is one. Engine thread.
     */
    void enterError() {
        enterError(ErrorCause.MODIFY);
    }

    /**
     * Why the QP entered ERR the last time, or null if it never did since it was last reset: lets
     * a layer above tell a connection that broke (an engine cause) from one that was closed (MODIFY).
     */
    public ErrorCause errorCause() {
        return errorCause;
    }

    /**
     * Send work requests posted and not yet retired (completed, with or without a completion
     * entry): zero once the send queue has drained. Any thread.
     */
    public int sendQueueDepth() {
        return sq.size();
    }

    void enterError(ErrorCause cause) {
        if (state == QpState.ERR) {
            return;
        }
        errorCause = cause;
        setState(QpState.ERR);
        completer.stopTimers();
        requester.stop();
        responder.releaseInbox();
        completer.releaseInbox();
        flushQueues();
        if (srq != null) {
            // IBA 11.6.3: an SRQ-attached QP entering the error state reports Last WQE Reached.
            device.raiseAsync(AsyncEventType.QP_LAST_WQE_REACHED, this, null, null);
        }
    }

    /** Completes every WQE still queued with WR_FLUSH_ERR, send queue first. Engine thread, state ERR. */
    void flushQueues() {
        completer.flushSendQueue();
        responder.flushReceives();
    }

    /**
     * Queries the QP's attributes (ibv_query_qp(3)): every attribute is set, with its mask.
     */
    public QpAttr query() {
        return device.executor().call(() -> {
            if (destroyed) {
                throw VerbsException.stale("queue pair was destroyed");
            }
            QpAttr a = new QpAttr().state(state).curState(state).cap(caps);
            attr.fill(a);
            a.sqDraining(state == QpState.SQD && !drained());
            return a;
        });
    }

    /**
     * Destroys the QP (ibv_destroy_qp(3)). Outstanding work requests produce no completions.
     *
     * @throws VerbsException EBUSY while async events retrieved for it are unacknowledged
     *                        (ibv_get_async_event(3)); ENOENT if already destroyed
     */
    public void destroy() {
        device.executor().call(() -> {
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
        FabricObserver o = device.observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    public void forceDestroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        endStall();
        completer.stopTimers();
        requester.stop();
        responder.releaseInbox();
        completer.releaseInbox();
        responder.releaseHeld();
        sq.clear();
        device.qpDestroyed(this);
    }

    boolean isDestroyed() {
        return destroyed;
    }

    // ------------------------------------------------------------------ engine helpers

    /** The requester may send in RTS, and finish started messages in SQD. */
    boolean canSend() {
        QpState s = state;
        return s == QpState.RTS || s == QpState.SQD;
    }

    /** The responder processes requests in RTR, RTS and SQD (IBA 10.3.1). */
    boolean canReceive() {
        QpState s = state;
        return s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE;
    }

    /** Sends a packet built by a role. Engine thread. */
    void transmit(Packet p) {
        p.destQp(attr.destQpn).pkey(DEFAULT_PKEY);
        device.transmit(this, p);
    }

    /** Packets, and so PSNs, a message of {@code length} bytes takes at the path MTU: at least one. Engine thread. */
    int packets(int length) {
        return length == 0 ? 1 : (int) ((length + (long) attr.mtu - 1) / attr.mtu);
    }

    /** True when no started WQE remains in the send queue. */
    boolean drained() {
        return sq.head == requester.wqeIndex;
    }

    /** In SQD: raises SQ_DRAINED once the send queue has no message in progress. Engine thread. */
    void checkDrained() {
        if (state == QpState.SQD && !sqDrainedRaised && drained()) {
            sqDrainedRaised = true;
            if (attr.sqdNotify) {
                device.raiseAsync(AsyncEventType.SQ_DRAINED, this, null, null);
            }
        }
    }

    /** Adds a completion to the send CQ; on overrun the QP moves to ERR. Engine thread. */
    void completeSend(long wrId, WcStatus status, WcOpcode opcode, int byteLen) {
        complete(sendCq, false, wrId, status, opcode, byteLen, 0, 0, false, 0);
    }

    /** Adds a completion to the receive CQ; on overrun the QP moves to ERR. Engine thread. */
    void completeRecv(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int imm, int flags, boolean solicited) {
        completeRecv(wrId, status, opcode, byteLen, imm, flags, solicited, 0);
    }

    /** As above, with a vendor error (see {@link WorkCompletion#VENDOR_ERR_PARTIAL_MESSAGE}). */
    void completeRecv(
            long wrId,
            WcStatus status,
            WcOpcode opcode,
            int byteLen,
            int imm,
            int flags,
            boolean solicited,
            int vendorErr) {
        FabricObserver o = device.observer();
        if (o != null) {
            o.recvCompleted(this, wrId, status, opcode, byteLen);
        }
        complete(recvCq, true, wrId, status, opcode, byteLen, imm, flags, solicited, vendorErr);
    }

    private void complete(
            CqImpl cq,
            boolean recv,
            long wrId,
            WcStatus status,
            WcOpcode opcode,
            int byteLen,
            int imm,
            int flags,
            boolean solicited,
            int vendorErr) {
        counters.increment(Counter.COMPLETIONS);
        if (status != WcStatus.SUCCESS) {
            counters.increment(Counter.COMPLETION_ERRORS);
        }
        if (stalled) {
            backlog.add(cq, wrId, status, opcode, byteLen, imm, flags, solicited, vendorErr);
            return;
        }
        if (cq.push(wrId, status, opcode, byteLen, imm, flags, qpn, attr.destQpn, solicited, vendorErr)) {
            return;
        }
        // The CQ was full (it has raised CQ_ERR); what the QP does is the device's (DeviceProfile).
        switch (device.profile().cqOverrun()) {
            case STALL:
                LOG.debug("qp {}: {} CQ full, stalling until it has room", qpn, recv ? "receive" : "send");
                stalled = true;
                backlog.add(cq, wrId, status, opcode, byteLen, imm, flags, solicited, vendorErr);
                cq.awaitRoom(roomWaiter);
                break;
            case LOSE_COMPLETION:
                // rxe: a lost receive completion is a responder error (class G); a lost send one is ignored.
                if (recv && state != QpState.ERR) {
                    LOG.debug("qp {}: receive completion lost to a full CQ, moving to ERR", qpn);
                    failOnOverrun(true);
                }
                break;
            default:
                if (state != QpState.ERR) {
                    LOG.debug("qp {}: {} CQ overrun, moving to ERR", qpn, recv ? "receive" : "send");
                    failOnOverrun(recv);
                }
                break;
        }
    }

    /**
     * Moves the QP to ERR for a completion its CQ could not take. The messages the responder
     * received before the one whose completion was lost are complete: their pending ACK goes out
     * first, so only that message is left for the requester to retry.
     */
    private void failOnOverrun(boolean recv) {
        if (recv) {
            responder.flushAck();
        }
        enterError(ErrorCause.CQ_OVERRUN);
    }

    /** True while a full CQ stalls this QP (DeviceProfile.CqOverrun.STALL). Engine thread. */
    boolean stalled() {
        return stalled;
    }

    /**
     * A CQ this QP waits on has room: writes the kept completions in order; when all are written
     * the QP goes on (its roles run again, its ACK timer restarts). Engine thread.
     */
    private void resumeFromStall() {
        if (!stalled || destroyed) {
            return;
        }
        while (!backlog.isEmpty()) {
            CqImpl full = backlog.writeOldest(qpn, attr.destQpn);
            if (full != null) {
                full.awaitRoom(roomWaiter);
                return;
            }
        }
        stalled = false;
        LOG.debug("qp {}: CQ has room again, resuming", qpn);
        if (state == QpState.ERR) {
            completerTask.kick();
            return;
        }
        responderTask.kick();
        completerTask.kick();
        requesterTask.kick();
        completer.resumed();
    }

    /** Forgets a stall: its kept completions go with a reset or a destroy. Engine thread. */
    private void endStall() {
        if (stalled) {
            sendCq.cancelAwaitRoom(roomWaiter);
            recvCq.cancelAwaitRoom(roomWaiter);
            stalled = false;
        }
        backlog.clear();
    }

    /**
     * The engine's own view of this QP, read on its executor: requester, completer and responder
     * positions, timers and the send queue's WQEs. For diagnostics (a test explaining a stall).
     */
    public String engineState() {
        return device.executor().call(() -> {
            StringBuilder sb = new StringBuilder(" {requester psn=")
                    .append(requester.psn)
                    .append(" highest=")
                    .append(requester.highestPsn)
                    .append(" wqe=")
                    .append(requester.wqeIndex)
                    .append(" rdAtomic=")
                    .append(requester.outstandingRdAtomic)
                    .append(" rnrWait=")
                    .append(requester.rnrWait)
                    .append(" windowFull=")
                    .append(requester.windowFull)
                    .append("; completer psn=")
                    .append(completer.psn)
                    .append(" ackTimer=")
                    .append(completer.retransmitTimer)
                    .append(" rnrTimer=")
                    .append(completer.rnrTimer)
                    .append("; responder psn=")
                    .append(responder.psn)
                    .append(" msn=")
                    .append(responder.msn)
                    .append("; sq head=")
                    .append(sq.head)
                    .append(" tail=")
                    .append(sq.tail)
                    .append(':');
            for (long i = sq.head; i < sq.tail; i++) {
                sb.append(' ').append(sq.at(i));
            }
            return sb.append('}').toString();
        });
    }

    @Override
    public void windowsBound(int delta) {
        boundWindows += delta;
    }

    @Override
    public String toString() {
        return "QP[" + device.name() + ":" + qpn + ", " + state + "]";
    }
}
