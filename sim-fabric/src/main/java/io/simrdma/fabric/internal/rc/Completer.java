package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.sched.EngineTimer;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completer role of an RC queue pair (after rxe_comp.c): matches acknowledgements and
 * responses to send WQEs, places RDMA READ and atomic results, retires WQEs in order and
 * generates their completions, and drives retransmission: the ACK timeout
 * (4.096 us x 2^timeout, retry_cnt), NAKs (PSN sequence error, RNR with its timer and rnr_retry,
 * remote access, invalid request, remote operational error).
 *
 * <p>Per response the steps are CHECK_PSN, then ACK, RNR_NAK, NAK, READ_RESPONSE or
 * ATOMIC_RESPONSE, then DONE. A response the outstanding WQE cannot take (a READ response to a
 * SEND, a READ Middle where First is due, a READ First where no READ request began) fails it
 * with BAD_RESP_ERR; a late response to a request a retry replaced is ignored. Responses are
 * implicitly cumulative: any response for PSN n acknowledges every SEND and RDMA WRITE before n
 * (IBA 9.7.5.1.3); an RDMA READ or atomic whose PSNs are passed without its response is retried
 * (its response was lost).
 *
 * <p>Thread safety: runs only on the device's executor.
 */
public final class Completer {

    private static final Logger LOG = LoggerFactory.getLogger(Completer.class);

    enum Step {
        CHECK_PSN,
        ACK,
        RNR_NAK,
        NAK,
        READ_RESPONSE,
        ATOMIC_RESPONSE,
        DONE
    }

    private final RcQueuePair qp;
    private final ArrayDeque<Packet> inbox = new ArrayDeque<>();
    private final MemoryAccess access = new MemoryAccess();
    final EngineTimer retransmitTimer;
    final EngineTimer rnrTimer;

    /** Oldest PSN not yet acknowledged. */
    int psn;

    private int retriesLeft;
    private int rnrRetriesLeft;
    /** A retry for the gap at {@link #gapRetryPsn} was already requested; further gap responses are ignored. */
    private boolean gapRetryRequested;

    private int gapRetryPsn;
    /** Opcode of the last READ response accepted for the head WQE, or null. */
    private Opcode readProgress;

    Completer(RcQueuePair qp) {
        this.qp = qp;
        this.retransmitTimer = new EngineTimer(qp.owner().executor(), "ack-timeout-" + qp.qpNum(), this::onAckTimeout);
        this.rnrTimer = new EngineTimer(qp.owner().executor(), "rnr-" + qp.qpNum(), this::onRnrTimer);
    }

    void start(int sqPsn) {
        psn = sqPsn;
        parametersChanged();
        gapRetryRequested = false;
        readProgress = null;
    }

    /** Retry counters restart from the QP's attributes. */
    void parametersChanged() {
        retriesLeft = qp.attr.retryCnt;
        rnrRetriesLeft = qp.attr.rnrRetry;
    }

    void reset() {
        stopTimers();
        releaseInbox();
        start(0);
    }

    void stopTimers() {
        retransmitTimer.stop();
        rnrTimer.stop();
    }

    void releaseInbox() {
        Packet p;
        while ((p = inbox.poll()) != null) {
            p.release();
        }
    }

    public void enqueue(Packet p) {
        inbox.add(p);
        qp.completerTask.kick();
    }

    /** Local ACK timeout of the QP in nanoseconds: 4.096 us x 2^timeout (IBA 9.7.6.1.3); 0 = infinite. */
    long ackTimeoutNanos() {
        return qp.attr.timeout == 0 ? 0 : 4096L << qp.attr.timeout;
    }

    /** A stall ended: the ACK timer runs again if anything is outstanding. */
    void resumed() {
        long t = ackTimeoutNanos();
        if (t > 0 && outstanding() && !qp.requester.rnrWait && !retransmitTimer.isArmed()) {
            retransmitTimer.start(t);
        }
    }

    /** The requester sent a packet: make sure the ACK timer runs. */
    void packetSent() {
        long t = ackTimeoutNanos();
        if (t > 0 && !retransmitTimer.isArmed() && !qp.requester.rnrWait) {
            retransmitTimer.start(t);
        }
    }

    private boolean outstanding() {
        return Psn.compare(psn, qp.requester.highestPsn) < 0;
    }

    void run() {
        if (qp.stalled()) {
            // A full CQ stalls the QP (DeviceProfile.CqOverrun.STALL): responses wait in the inbox.
            return;
        }
        if (qp.state() == QpState.ERR) {
            releaseInbox();
            qp.flushQueues();
            return;
        }
        Packet p;
        while ((p = inbox.poll()) != null) {
            if (!qp.canSend()) {
                dropAll(p);
                continue;
            }
            process(p);
            // A burst's packets follow one another as if each had been queued alone.
            while (p.isBurst() && qp.state() != QpState.ERR) {
                if (!qp.canSend()) {
                    dropAll(p);
                    p = null;
                    break;
                }
                p.nextInBurst();
                if (!takeReadMiddles(p)) {
                    process(p);
                }
            }
            if (p != null) {
                p.release();
            }
            if (qp.state() == QpState.ERR) {
                releaseInbox();
                qp.flushQueues();
                return;
            }
        }
        retireHead();
        qp.checkDrained();
    }

    /** Drops a response (each packet of a burst) the QP's state does not let it take. */
    private void dropAll(Packet p) {
        while (p.isBurst()) {
            qp.owner().drop(p.splitFirst(), DropReason.QP_STATE, Counter.DROPPED_PACKETS);
        }
        qp.owner().drop(p, DropReason.QP_STATE, Counter.DROPPED_PACKETS);
    }

    /**
     * Segmentation offload: places at once the run of RDMA READ response Middle packets of a
     * burst that starts at {@code p}'s current packet, when each would pass {@link #readResponse}
     * one by one (the expected PSN, the outstanding READ's First already taken, before its last
     * PSN, the QP's MTU), then moves {@code p} past them. The scatter checks each SGE when data
     * first reaches it, as one by one: a failing SGE gets the bytes before it written and fails
     * the READ with LOC_PROT_ERR, as it would on the packet that reached it.
     *
     * @return true if the current packet (and the run after it) was taken here; false to take it
     *         through the steps
     */
    private boolean takeReadMiddles(Packet p) {
        int mtu = p.burstMtu();
        if (p.opcode() != Opcode.RC_RDMA_READ_RESPONSE_MIDDLE
                || !p.isBurst()
                || p.psn() != psn
                || readProgress == null
                || mtu != qp.attr.mtu
                || qp.owner().observer() != null
                || LOG.isTraceEnabled()) {
            return false;
        }
        SendQueue sq = qp.sq;
        if (sq.head >= sq.tail) {
            return false;
        }
        SendWqe w = sq.at(sq.head);
        if ((w.state != SendWqe.State.STARTED && w.state != SendWqe.State.SENT)
                || w.opcode != WrOpcode.RDMA_READ
                || !within(psn, w)) {
            return false;
        }
        // Middle packets stand before the READ's last PSN, each a full MTU within its length.
        int k = Math.min(p.burstPackets() - 1, Psn.distance(psn, w.lastPsn));
        long offset = (long) Psn.distance(w.firstPsn, psn) * mtu;
        k = (int) Math.min(k, (w.length - offset - 1) / mtu);
        if (k <= 0) {
            return false;
        }
        if (!scatter(p, w, (int) offset, k * mtu)) {
            // One by one, the packets wholly before the failing SGE were taken first.
            long sgeStart = 0;
            for (int i = 0; i < w.sgeResolved; i++) {
                sgeStart += Integer.toUnsignedLong(w.sgeLen[i]);
            }
            int taken = (int) ((sgeStart - offset) / mtu);
            if (taken > 0) {
                psn = Psn.add(psn, taken);
                readProgress = Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
                progress();
            }
            failHead(WcStatus.LOC_PROT_ERR);
            return true;
        }
        psn = Psn.add(psn, k);
        readProgress = Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
        progress();
        if (k > 1) {
            // The run's last packet is now the current one; the loop moves past it.
            p.skipInBurst(k - 1);
        }
        return true;
    }

    private void process(Packet p) {
        Step step = Step.CHECK_PSN;
        while (step != Step.DONE) {
            if (LOG.isTraceEnabled()) {
                LOG.trace("qp {} completer {} psn={} pkt={}", qp.qpNum(), step, psn, p);
            }
            switch (step) {
                case CHECK_PSN:
                    step = checkPsn(p);
                    break;
                case ACK:
                    step = ack(p);
                    break;
                case RNR_NAK:
                    step = rnrNak(p);
                    break;
                case NAK:
                    step = nak(p);
                    break;
                case READ_RESPONSE:
                    step = readResponse(p);
                    break;
                case ATOMIC_RESPONSE:
                    step = atomicResponse(p);
                    break;
                default:
                    throw new IllegalStateException("completer step " + step);
            }
        }
    }

    private Step checkPsn(Packet p) {
        int pktPsn = p.psn();
        if (Psn.compare(pktPsn, psn) < 0) {
            // Older than anything outstanding: a duplicate or stale response (IBA 9.7.5.1.3).
            qp.counters.increment(Counter.DUPLICATE_RESPONSES);
            return Step.DONE;
        }
        if (Psn.compare(pktPsn, qp.requester.highestPsn) >= 0) {
            // For a PSN never sent: a ghost response.
            qp.counters.increment(Counter.INVALID_PACKETS);
            return Step.DONE;
        }
        Opcode op = p.opcode();
        if (op == Opcode.RC_ACKNOWLEDGE) {
            switch (Aeth.kind(p.aethSyndrome())) {
                case ACK:
                    return Step.ACK;
                case RNR_NAK:
                    return Step.RNR_NAK;
                case NAK:
                    return Step.NAK;
                default:
                    qp.counters.increment(Counter.INVALID_PACKETS);
                    return Step.DONE;
            }
        }
        if (op.isRead()) {
            return Step.READ_RESPONSE;
        }
        if (op == Opcode.RC_ATOMIC_ACKNOWLEDGE) {
            return Step.ATOMIC_RESPONSE;
        }
        qp.counters.increment(Counter.INVALID_PACKETS);
        return Step.DONE;
    }

    private Step ack(Packet p) {
        qp.counters.increment(Counter.ACKS_RECEIVED);
        acknowledgeThrough(p.psn());
        return Step.DONE;
    }

    private Step rnrNak(Packet p) {
        qp.counters.increment(Counter.RNR_NAK_RECEIVED);
        int nakPsn = p.psn();
        if (!acknowledgeThrough(Psn.add(nakPsn, -1))) {
            return Step.DONE;
        }
        // IBA 9.7.5.2.8: retry after the RNR timer the NAK carries; rnr_retry 7 means forever.
        if (qp.attr.rnrRetry != 7) {
            if (rnrRetriesLeft == 0) {
                failHead(WcStatus.RNR_RETRY_EXC_ERR);
                return Step.DONE;
            }
            rnrRetriesLeft--;
        }
        qp.requester.rnrWait = true;
        retransmitTimer.stop();
        rnrTimer.start(Aeth.rnrTimerNanos(Aeth.value(p.aethSyndrome())));
        return Step.DONE;
    }

    private void onRnrTimer() {
        if (!qp.canSend() || !qp.requester.rnrWait) {
            return;
        }
        qp.requester.rnrWait = false;
        qp.counters.increment(Counter.RNR_RETRIES);
        qp.requester.retryFrom(psn);
    }

    private Step nak(Packet p) {
        int nakPsn = p.psn();
        Aeth.NakCode code = Aeth.NakCode.fromCode(Aeth.value(p.aethSyndrome()));
        if (code == null) {
            qp.counters.increment(Counter.INVALID_PACKETS);
            return Step.DONE;
        }
        switch (code) {
            case PSN_SEQUENCE_ERROR:
                qp.counters.increment(Counter.NAK_SEQ_ERR_RECEIVED);
                break;
            case INVALID_REQUEST:
            case INVALID_RD_REQUEST:
                qp.counters.increment(Counter.NAK_INV_REQ_RECEIVED);
                break;
            case REMOTE_ACCESS_ERROR:
                qp.counters.increment(Counter.NAK_REM_ACCESS_RECEIVED);
                break;
            default:
                qp.counters.increment(Counter.NAK_REM_OP_RECEIVED);
                break;
        }
        // A NAK acknowledges every PSN before the one it names (IBA 9.7.5.1.3).
        if (!acknowledgeThrough(Psn.add(nakPsn, -1))) {
            return Step.DONE;
        }
        switch (code) {
            case PSN_SEQUENCE_ERROR:
                requestRetry();
                break;
            case INVALID_REQUEST:
                failHead(WcStatus.REM_INV_REQ_ERR);
                break;
            case REMOTE_ACCESS_ERROR:
                failHead(WcStatus.REM_ACCESS_ERR);
                break;
            case REMOTE_OPERATIONAL_ERROR:
                failHead(WcStatus.REM_OP_ERR);
                break;
            default:
                failHead(WcStatus.REM_INV_RD_REQ_ERR);
                break;
        }
        return Step.DONE;
    }

    private Step readResponse(Packet p) {
        int pktPsn = p.psn();
        if (!acknowledgeThrough(Psn.add(pktPsn, -1))) {
            return Step.DONE;
        }
        SendWqe w = headStarted();
        if (w == null || !within(pktPsn, w)) {
            qp.counters.increment(Counter.INVALID_PACKETS);
            return Step.DONE;
        }
        if (w.opcode != WrOpcode.RDMA_READ) {
            // A READ response for a SEND, RDMA WRITE or atomic (IBA 9.9.2: unexpected opcode).
            return badResponse(p, w);
        }
        if (pktPsn != psn) {
            // Responses missing before this one: go back to the first missing (an implicit NAK).
            gapDetected();
            return Step.DONE;
        }
        Opcode op = p.opcode();
        if (op.has(HeaderType.AETH) && Aeth.kind(p.aethSyndrome()) != Aeth.Kind.ACK) {
            // A NAK travels only in an Acknowledge packet (IBA 9.7.5.2.1).
            return badResponse(p, w);
        }
        if (op.isFirst()) {
            // FIRST or ONLY answers a READ request sent with this PSN: the READ's first PSN, or the
            // PSN a go-back-N resent it from (the responder answers a duplicate READ from its PSN
            // on, starting with FIRST, IBA 9.7.5.1.5). The sequence starts again here even if a
            // FIRST was accepted a moment ago: responses taken between a retry request and the
            // resend move the PSN the requester resends from (it never goes back behind what is
            // acknowledged). Anywhere else FIRST is out of sequence (IBA 9.9.2).
            if (pktPsn != w.readRequestPsn) {
                return badResponse(p, w);
            }
        } else if (readProgress == null) {
            // MIDDLE or LAST without FIRST. Past the READ's first PSN this is a late response to
            // the request a retry has replaced (the reissued READ is answered from FIRST again):
            // stale, ignored. At the first PSN it is out of sequence.
            if (Psn.compare(pktPsn, w.firstPsn) > 0) {
                qp.counters.increment(Counter.DUPLICATE_RESPONSES);
                return Step.DONE;
            }
            return badResponse(p, w);
        }
        if (op.isLast() != (pktPsn == w.lastPsn)) {
            // LAST or ONLY before the READ's last PSN, MIDDLE or FIRST at it: the opcode does not
            // fit the sequence (IBA 9.9.2).
            return badResponse(p, w);
        }
        int mtu = qp.attr.mtu;
        long offset = (long) Psn.distance(w.firstPsn, pktPsn) * mtu;
        int len = p.payloadLength();
        long expected = Math.min(mtu, w.length - offset);
        boolean lengthOk = op.isLast() ? len == expected : len == mtu && offset + mtu < w.length;
        if (offset > w.length || !lengthOk) {
            qp.counters.increment(Counter.INVALID_PACKETS);
            return Step.DONE;
        }
        if (!scatter(p, w, (int) offset, len)) {
            // IBA 10.6.3.1: the READ's local buffer fails its check when the response is written.
            failHead(WcStatus.LOC_PROT_ERR);
            return Step.DONE;
        }
        psn = Psn.add(psn, 1);
        readProgress = op.isLast() ? null : op;
        progress();
        if (op.isLast()) {
            retire(w, WcStatus.SUCCESS);
        }
        return Step.DONE;
    }

    private Step atomicResponse(Packet p) {
        int pktPsn = p.psn();
        if (!acknowledgeThrough(Psn.add(pktPsn, -1))) {
            return Step.DONE;
        }
        SendWqe w = headStarted();
        if (w == null || !within(pktPsn, w)) {
            qp.counters.increment(Counter.INVALID_PACKETS);
            return Step.DONE;
        }
        if (!w.opcode.isAtomic() || Aeth.kind(p.aethSyndrome()) != Aeth.Kind.ACK) {
            // An atomic acknowledge for a SEND, RDMA WRITE or READ, or carrying a NAK (IBA 9.9.2).
            return badResponse(p, w);
        }
        if (!resolve(w, 0)) {
            // The responder has executed the atomic; only its original value cannot be stored.
            failHead(WcStatus.LOC_PROT_ERR);
            return Step.DONE;
        }
        MrImpl mr = w.sgeMr[0];
        mr.buf.putLong(w.sgeIndex[0], p.atomicAckOriginal());
        wrote(mr, w.sgeIndex[0], 8);
        psn = Psn.add(psn, 1);
        progress();
        retire(w, WcStatus.SUCCESS);
        return Step.DONE;
    }

    /**
     * A response whose opcode the outstanding WQE cannot take (IBA 9.9.2, requester errors:
     * unexpected opcode; rxe does the same in rxe_comp.c check_ack): the WQE completes with
     * BAD_RESP_ERR (ibv_poll_cq(3) IBV_WC_BAD_RESP_ERR; DAT_DTO_ERR_BAD_RESPONSE above it) and
     * the QP goes to ERR, flushing the rest.
     */
    private Step badResponse(Packet p, SendWqe w) {
        qp.counters.increment(Counter.INVALID_PACKETS);
        LOG.debug("qp {}: unexpected response {} for {} (psn {}..{})", qp.qpNum(), p, w.opcode, w.firstPsn, w.lastPsn);
        failHead(WcStatus.BAD_RESP_ERR);
        return Step.DONE;
    }

    /**
     * Checks the WQE's SGEs up to index {@code upTo} that are not checked yet, for local write
     * access (IBA 10.6.3.1), and resolves them to their regions.
     *
     * @return false if one fails its check
     */
    private boolean resolve(SendWqe w, int upTo) {
        for (int k = w.sgeResolved; k <= upTo; k++) {
            int l = w.sgeLen[k];
            if (l == 0) {
                w.sgeMr[k] = null;
            } else if (access.local(
                    qp.owner().memory().keys(), qp.pd(), w.sgeLkey[k], w.sgeAddr[k], Integer.toUnsignedLong(l), true)) {
                w.sgeMr[k] = access.mr;
                w.sgeIndex[k] = access.index;
            } else {
                return false;
            }
            w.sgeResolved = k + 1;
        }
        return true;
    }

    /**
     * Copies READ response data into the WQE's scatter list at message offset {@code offset},
     * checking each SGE the first time data reaches it.
     *
     * @return false if an SGE fails its local check (the bytes before it are written, as rxe's copy_data does)
     */
    private boolean scatter(Packet p, SendWqe w, int offset, int len) {
        int skip = offset;
        int i = 0;
        while (i < w.numSge && skip >= w.sgeLen[i]) {
            skip -= w.sgeLen[i];
            i++;
        }
        int done = 0;
        while (done < len) {
            int n = Math.min(len - done, w.sgeLen[i] - skip);
            if (n > 0) {
                if (i >= w.sgeResolved && !resolve(w, i)) {
                    return false;
                }
                ByteBuffer dst = w.sgeMr[i].buf;
                p.copyPayload(done, dst, w.sgeIndex[i] + skip, n);
                wrote(w.sgeMr[i], w.sgeIndex[i] + skip, n);
                done += n;
            }
            skip = 0;
            i++;
        }
        return true;
    }

    private static boolean within(int psn, SendWqe w) {
        return Psn.compare(psn, w.firstPsn) >= 0 && Psn.compare(psn, w.lastPsn) <= 0;
    }

    /**
     * Completes every SEND and RDMA WRITE whose last PSN is at or before {@code lastAcked}, in
     * order, and moves {@link #psn} past what is acknowledged. Stops at an RDMA READ or atomic
     * (they complete only with their response); if {@code lastAcked} passes one, its response was
     * lost and it is retried.
     *
     * @return false if processing of this response must stop (retry requested or QP in error)
     */
    private boolean acknowledgeThrough(int lastAcked) {
        if (Psn.compare(lastAcked, psn) < 0) {
            retireHead();
            return qp.state() != QpState.ERR;
        }
        SendQueue sq = qp.sq;
        boolean advanced = false;
        while (sq.head < sq.tail) {
            SendWqe w = sq.at(sq.head);
            if (w.state == SendWqe.State.LOCAL_DONE) {
                retire(w, WcStatus.SUCCESS);
                continue;
            }
            if (w.state == SendWqe.State.FAILED) {
                failHead(w.status);
                return false;
            }
            if (w.state == SendWqe.State.POSTED) {
                break;
            }
            if (w.opcode.isReadOrAtomic()) {
                if (Psn.compare(lastAcked, w.firstPsn) >= 0) {
                    if (advanced) {
                        progress();
                    }
                    // The responder went past this READ/atomic: its response was lost.
                    gapDetected();
                    return false;
                }
                break;
            }
            if (Psn.compare(w.lastPsn, lastAcked) <= 0) {
                psn = Psn.add(w.lastPsn, 1);
                advanced = true;
                retire(w, WcStatus.SUCCESS);
                continue;
            }
            // Partly acknowledged multi-packet message.
            if (Psn.compare(lastAcked, psn) >= 0) {
                psn = Psn.add(lastAcked, 1);
                advanced = true;
            }
            break;
        }
        if (advanced) {
            progress();
        }
        return true;
    }

    /** Forward progress: retry counters restart, the ACK timer restarts or stops. */
    private void progress() {
        retriesLeft = qp.attr.retryCnt;
        rnrRetriesLeft = qp.attr.rnrRetry;
        gapRetryRequested = false;
        if (Psn.compare(qp.requester.psn, psn) < 0) {
            // Acknowledged beyond where a go-back-N rewound the requester: resume from here.
            qp.requester.retryFrom(psn);
        } else if (qp.requester.windowFull) {
            // The acknowledgement opened the PSN window the requester stopped on.
            qp.requester.windowFull = false;
            qp.requesterTask.kick();
        }
        if (outstanding() && !qp.requester.rnrWait) {
            long t = ackTimeoutNanos();
            if (t > 0) {
                retransmitTimer.start(t);
            }
        } else {
            retransmitTimer.stop();
        }
    }

    private void gapDetected() {
        if (gapRetryRequested && gapRetryPsn == psn) {
            qp.counters.increment(Counter.OUT_OF_SEQUENCE);
            return;
        }
        gapRetryRequested = true;
        gapRetryPsn = psn;
        requestRetry();
    }

    /**
     * Go-back-N from the oldest unacknowledged PSN, counting against retry_cnt; when no retry is
     * left the oldest WQE fails with RETRY_EXC_ERR (IBA 9.7.6.1.3).
     */
    private void requestRetry() {
        if (retriesLeft == 0) {
            failHead(WcStatus.RETRY_EXC_ERR);
            return;
        }
        retriesLeft--;
        readProgress = null;
        qp.requester.retryFrom(psn);
        long t = ackTimeoutNanos();
        if (t > 0) {
            retransmitTimer.start(t);
        }
    }

    private void onAckTimeout() {
        if (!qp.canSend() || qp.requester.rnrWait || !outstanding()) {
            return;
        }
        if (qp.stalled()) {
            // Nothing is retried while a full CQ stalls the QP; the timer runs again from now.
            retransmitTimer.start(ackTimeoutNanos());
            return;
        }
        qp.counters.increment(Counter.RETRY_TIMEOUTS);
        LOG.debug("qp {}: ACK timeout at psn {}, {} retries left", qp.qpNum(), psn, retriesLeft);
        requestRetry();
        qp.completerTask.kick();
    }

    /** The oldest started WQE at the head, after retiring finished local ones; null if none. */
    private SendWqe headStarted() {
        SendQueue sq = qp.sq;
        while (sq.head < sq.tail) {
            SendWqe w = sq.at(sq.head);
            if (w.state == SendWqe.State.LOCAL_DONE) {
                retire(w, WcStatus.SUCCESS);
                continue;
            }
            return w.state == SendWqe.State.STARTED || w.state == SendWqe.State.SENT ? w : null;
        }
        return null;
    }

    /** Retires local operations and failed WQEs that reached the head. */
    void retireHead() {
        SendQueue sq = qp.sq;
        while (sq.head < sq.tail && qp.state() != QpState.ERR) {
            SendWqe w = sq.at(sq.head);
            if (w.state == SendWqe.State.LOCAL_DONE) {
                retire(w, WcStatus.SUCCESS);
            } else if (w.state == SendWqe.State.FAILED) {
                failHead(w.status);
            } else {
                break;
            }
        }
    }

    /** Completes the head WQE with an error and moves the QP to ERR, flushing the rest. */
    private void failHead(WcStatus status) {
        SendQueue sq = qp.sq;
        if (sq.head < sq.tail) {
            retire(sq.at(sq.head), status);
        }
        stopTimers();
        qp.enterError(RcQueuePair.ErrorCause.SEND_ERROR);
    }

    /**
     * Retires the head WQE, generating its completion if it failed, is signaled, or the QP
     * signals all (ibv_create_qp(3) sq_sig_all).
     */
    private void retire(SendWqe w, WcStatus status) {
        boolean complete = status != WcStatus.SUCCESS || qp.sqSigAll() || w.has(SendFlag.SIGNALED);
        long wrId = w.wrId;
        WcOpcode opcode = w.opcode.completionOpcode();
        int byteLen = w.opcode.isAtomic() ? 8 : w.length;
        if (w.holdsRdAtomic) {
            // An initiator resource frees up: a fenced or depth-limited WQE may go now.
            w.holdsRdAtomic = false;
            qp.requester.outstandingRdAtomic--;
            qp.requesterTask.kick();
        }
        w.clearRefs();
        // The slot (and those of the unsignaled WQEs retired before it) is free before the
        // completion is visible: an application that polls it may post max_send_wr WRs at once
        // (ibv_post_send(3) ENOMEM only while the send queue is really full).
        long head = qp.sq.head + 1;
        qp.sq.head = head;
        if (qp.requester.wqeIndex < head) {
            qp.requester.wqeIndex = head;
        }
        if (qp.requester.localWaits) {
            // a bind waiting for the WQEs before it may go now
            qp.requester.localWaits = false;
            qp.requesterTask.kick();
        }
        readProgress = null;
        FabricObserver o = qp.owner().observer();
        if (o != null) {
            o.sendRetired(qp, wrId, status, complete);
        }
        if (complete) {
            qp.completeSend(wrId, status, opcode, byteLen);
        }
    }

    /** Completes every WQE left in the send queue with WR_FLUSH_ERR, in order. State ERR. */
    void flushSendQueue() {
        SendQueue sq = qp.sq;
        while (sq.head < sq.tail) {
            retire(sq.at(sq.head), WcStatus.WR_FLUSH_ERR);
        }
    }

    /** Tells the fabric's observer, if any, that the device wrote into {@code mr} (FabricObserver.deviceWrote). */
    private void wrote(MrImpl mr, int index, int len) {
        FabricObserver o = qp.owner().observer();
        if (o != null) {
            o.deviceWrote(mr, index, len);
        }
    }
}
