package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.DeviceProfile.LocalOperationOrder;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.internal.mem.MemoryTable;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requester role of an RC queue pair (after rxe_req.c): turns send WQEs into request
 * packets, in order, one step at a time.
 *
 * <p>Each step is a method returning the next step, so a trace at TRACE level shows the path a
 * WQE took: GET_WQE, CHECK_FENCE, LOCAL_OP or CHECK_RD_ATOMIC, CHECK_WINDOW, START_WQE,
 * BUILD_PACKET, back to GET_WQE, until DONE. The requester waits (returns DONE and is kicked
 * again later) on a fence, on the initiator depth (max_rd_atomic), on the PSN window, and during
 * an RNR back-off. Retransmission is go-back-N: {@link #retryFrom} rewinds to the oldest
 * unacknowledged PSN and the packets are rebuilt from the WQEs.
 *
 * <p>Thread safety: runs only on the device's executor.
 */
public final class Requester {

    private static final Logger LOG = LoggerFactory.getLogger(Requester.class);

    /** Packets sent per run before yielding to other work on the executor. */
    private static final int BUDGET = 64;
    /** Ask for an ACK at least this often within a long message (rxe: RXE_MAX_PKT_PER_ACK). */
    private static final int ACK_REQ_INTERVAL = 64;

    enum Step {
        GET_WQE,
        CHECK_FENCE,
        LOCAL_OP,
        CHECK_RD_ATOMIC,
        CHECK_WINDOW,
        START_WQE,
        BUILD_PACKET,
        DONE
    }

    private final RcQueuePair qp;
    private final MemoryAccess access = new MemoryAccess();

    /** Next PSN to send. */
    int psn;
    /** One past the highest PSN ever sent (equals {@link #psn} except while retransmitting). */
    int highestPsn;
    /** Index of the WQE being sent or next to start. */
    long wqeIndex;
    /** RDMA READs and atomics started and not yet completed (bounded by max_rd_atomic). */
    int outstandingRdAtomic;
    /** Paused until the RNR timer expires. */
    boolean rnrWait;
    /** Stopped on a full PSN window; the completer kicks the requester when an ACK opens it. */
    boolean windowFull;
    /**
     * Stopped on a local operation (a window bind or invalidate) while WQEs before it are outstanding; the
     * completer kicks the requester when the head moves.
     */
    boolean localWaits;

    private boolean retryPending;
    private int retryPsn;
    /** Packets with a PSN before this one are being sent again. */
    private int retransmitUntil;

    private boolean retransmitting;
    private int packetsSinceAckReq;
    private int sentThisRun;
    private SendWqe wqe;

    Requester(RcQueuePair qp) {
        this.qp = qp;
    }

    void start(int sqPsn) {
        psn = sqPsn;
        highestPsn = sqPsn;
        wqeIndex = qp.sq.head;
        outstandingRdAtomic = 0;
        rnrWait = false;
        windowFull = false;
        localWaits = false;
        retryPending = false;
        retransmitting = false;
        packetsSinceAckReq = 0;
    }

    void reset() {
        start(0);
        wqe = null;
    }

    void stop() {
        rnrWait = false;
        retryPending = false;
        wqe = null;
    }

    /** Asks for go-back-N from {@code fromPsn}: the next run resends from there. */
    void retryFrom(int fromPsn) {
        retryPending = true;
        retryPsn = fromPsn;
        qp.requesterTask.kick();
    }

    /** One run: sends what the queue, the window and the limits allow. */
    void run() {
        if (!qp.canSend() || rnrWait || qp.stalled()) {
            return;
        }
        if (retryPending) {
            rewind();
        }
        sentThisRun = 0;
        Step step = Step.GET_WQE;
        while (step != Step.DONE) {
            if (LOG.isTraceEnabled()) {
                LOG.trace("qp {} requester {} psn={} wqe={}", qp.qpNum(), step, psn, wqe);
            }
            switch (step) {
                case GET_WQE:
                    step = getWqe();
                    break;
                case CHECK_FENCE:
                    step = checkFence();
                    break;
                case LOCAL_OP:
                    step = localOp();
                    break;
                case CHECK_RD_ATOMIC:
                    step = checkRdAtomic();
                    break;
                case CHECK_WINDOW:
                    step = checkWindow();
                    break;
                case START_WQE:
                    step = startWqe();
                    break;
                case BUILD_PACKET:
                    step = buildPacket();
                    break;
                default:
                    throw new IllegalStateException("requester step " + step);
            }
        }
        wqe = null;
        if (sentThisRun >= BUDGET) {
            qp.requesterTask.kick();
        }
    }

    private Step getWqe() {
        if (sentThisRun >= BUDGET || !qp.canSend()) {
            return Step.DONE;
        }
        while (wqeIndex < qp.sq.tail) {
            SendWqe w = qp.sq.at(wqeIndex);
            if (w.state == SendWqe.State.LOCAL_DONE || w.state == SendWqe.State.SENT) {
                // already executed (met again after a rewind)
                wqeIndex++;
                continue;
            }
            if (w.state == SendWqe.State.FAILED) {
                // stalled: the completer retires it and moves the QP to ERR
                return Step.DONE;
            }
            if (w.state == SendWqe.State.POSTED && qp.state() == QpState.SQD) {
                // SQD: no new message starts (IBA 10.3.1.5)
                qp.checkDrained();
                return Step.DONE;
            }
            wqe = w;
            return Step.CHECK_FENCE;
        }
        return Step.DONE;
    }

    private Step checkFence() {
        // IBV_SEND_FENCE: wait until earlier RDMA READs and atomics have completed.
        if (wqe.state == SendWqe.State.POSTED && wqe.has(SendFlag.FENCE) && outstandingRdAtomic > 0) {
            return Step.DONE;
        }
        if (wqe.opcode.isLocal()
                && wqeIndex > qp.sq.head
                && qp.owner().profile().localOperationOrder() == LocalOperationOrder.AFTER_EARLIER_COMPLETE) {
            // A bind (or invalidate) changes a window for good, while a WQE before it that fails flushes it: on
            // this profile it runs only once everything before it has completed, so that a bind whose completion
            // is a flush never took effect (ibv_bind_mw(3): the caller keeps the old R_Key when the CQE reports a
            // failure; dat_rmr_bind(3DAT): the consumer learns the new rmr_context is usable from a successful
            // completion). WHEN_REACHED (rxe) runs it at once, as the code below does.
            localWaits = true;
            return Step.DONE;
        }
        return wqe.opcode.isLocal() ? Step.LOCAL_OP : Step.CHECK_RD_ATOMIC;
    }

    private Step localOp() {
        MemoryTable memory = qp.owner().memory();
        WcStatus st = wqe.opcode == WrOpcode.LOCAL_INV
                ? (memory.invalidate(qp, wqe.invRkey) ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR)
                : memory.bind(qp, wqe.mw, wqe.bindMr, wqe.bindRkey, wqe.bindAddr, wqe.bindLength, wqe.bindAccess);
        wqe.status = st;
        if (st != WcStatus.SUCCESS) {
            wqe.state = SendWqe.State.FAILED;
            qp.completerTask.kick();
            return Step.DONE;
        }
        wqe.state = SendWqe.State.LOCAL_DONE;
        wqeIndex++;
        qp.completerTask.kick();
        return Step.GET_WQE;
    }

    private Step checkRdAtomic() {
        if (wqe.state == SendWqe.State.POSTED && wqe.opcode.isReadOrAtomic()) {
            if (qp.attr.maxRdAtomic == 0) {
                // No initiator resources at all: the WR can never be issued (local QP operation error).
                failWqe(WcStatus.LOC_QP_OP_ERR);
                return Step.DONE;
            }
            if (outstandingRdAtomic >= qp.attr.maxRdAtomic) {
                return Step.DONE;
            }
        }
        return Step.CHECK_WINDOW;
    }

    private Step checkWindow() {
        int inFlight = Psn.distance(qp.completer.psn, psn);
        if (inFlight > 0 && inFlight >= qp.owner().maxUnackedPsns()) {
            windowFull = true;
            return Step.DONE;
        }
        return wqe.state == SendWqe.State.POSTED ? Step.START_WQE : Step.BUILD_PACKET;
    }

    /**
     * Checks the local gather list of a SEND or RDMA WRITE (it is read now, to build the request)
     * and assigns the message's PSNs. An RDMA READ's or atomic's local SGEs are not checked here:
     * like rxe (copy_data in rxe_comp.c), the completer checks each when a response is written into
     * it, so a bad remote key is reported first and an atomic with a bad L_Key still executes.
     */
    private Step startWqe() {
        wqe.sgeResolved = 0;
        if (wqe.opcode.isAtomic() && (wqe.numSge != 1 || wqe.sgeLen[0] != 8)) {
            // An atomic's gather list is one 8-byte SGE (IBA 9.4.5): a completion error, not a
            // post error; a local length error found before anything is sent or changed. (Its
            // remote address's alignment is the responder's to check: NAK invalid request.)
            failWqe(WcStatus.LOC_LEN_ERR);
            return Step.DONE;
        }
        if (!wqe.inline && !wqe.opcode.isReadOrAtomic()) {
            for (int i = 0; i < wqe.numSge; i++) {
                int len = wqe.sgeLen[i];
                if (len == 0) {
                    wqe.sgeMr[i] = null;
                    continue;
                }
                if (!access.local(
                        qp.owner().memory().keys(),
                        qp.pd(),
                        wqe.sgeLkey[i],
                        wqe.sgeAddr[i],
                        Integer.toUnsignedLong(len),
                        false)) {
                    failWqe(WcStatus.LOC_PROT_ERR);
                    return Step.DONE;
                }
                wqe.sgeMr[i] = access.mr;
                wqe.sgeIndex[i] = access.index;
            }
            wqe.sgeResolved = wqe.numSge;
        }
        int packets = wqe.opcode.isAtomic() ? 1 : qp.packets(wqe.length);
        wqe.firstPsn = psn;
        wqe.lastPsn = Psn.add(psn, packets - 1);
        wqe.sentBytes = 0;
        wqe.state = SendWqe.State.STARTED;
        if (wqe.opcode.isReadOrAtomic()) {
            outstandingRdAtomic++;
            wqe.holdsRdAtomic = true;
        }
        return Step.BUILD_PACKET;
    }

    private void failWqe(WcStatus status) {
        wqe.state = SendWqe.State.FAILED;
        wqe.status = status;
        qp.completerTask.kick();
    }

    private Step buildPacket() {
        SendWqe w = wqe;
        int mtu = qp.attr.mtu;
        int pktPsn = psn;
        Packet p;
        switch (w.opcode) {
            case RDMA_READ: {
                p = Packet.allocate(Opcode.RC_RDMA_READ_REQUEST);
                p.reth(w.remoteAddr + w.sentBytes, w.rkey, w.length - w.sentBytes);
                w.readRequestPsn = pktPsn;
                // The request takes the PSNs of all its responses (IBA 9.7.2).
                psn = Psn.add(w.lastPsn, 1);
                w.state = SendWqe.State.SENT;
                wqeIndex++;
                break;
            }
            case ATOMIC_CMP_AND_SWP:
                p = Packet.allocate(Opcode.RC_CMP_SWAP);
                p.atomicEth(w.remoteAddr, w.rkey, w.swap, w.compareAdd);
                psn = Psn.add(psn, 1);
                w.state = SendWqe.State.SENT;
                wqeIndex++;
                break;
            case ATOMIC_FETCH_AND_ADD:
                p = Packet.allocate(Opcode.RC_FETCH_ADD);
                p.atomicEth(w.remoteAddr, w.rkey, w.compareAdd, 0);
                psn = Psn.add(psn, 1);
                w.state = SendWqe.State.SENT;
                wqeIndex++;
                break;
            default: {
                int remaining = w.length - w.sentBytes;
                boolean first = w.sentBytes == 0;
                boolean last = remaining <= mtu;
                int run = last || retransmitting || w.inline ? 1 : burstLength(remaining, mtu);
                if (run > 1) {
                    p = buildBurst(w, run, first, remaining, mtu);
                    break;
                }
                int payload = last ? remaining : mtu;
                Opcode op = dataOpcode(w.opcode, first, last);
                p = Packet.allocate(op);
                if (op.has(io.simrdma.fabric.wire.HeaderType.RETH)) {
                    p.reth(w.remoteAddr, w.rkey, w.length);
                }
                if (op.hasImmediate()) {
                    p.immediate(w.imm);
                }
                if (op.hasInvalidate()) {
                    p.iethRkey(w.invRkey);
                }
                gather(p, w, w.sentBytes, payload);
                p.updatePadCount();
                if (last
                        && w.has(SendFlag.SOLICITED)
                        && (w.opcode.isSend() || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM)) {
                    p.solicited(true);
                }
                // A retransmitted packet always asks for an ACK: on a lossy path every packet that
                // gets through then shows progress and restarts the retry count.
                boolean ackReq = last || retransmitting || ++packetsSinceAckReq >= ACK_REQ_INTERVAL;
                if (ackReq) {
                    packetsSinceAckReq = 0;
                    p.ackReq(true);
                }
                w.sentBytes += payload;
                psn = Psn.add(psn, 1);
                if (last) {
                    w.state = SendWqe.State.SENT;
                    wqeIndex++;
                }
                break;
            }
        }
        p.psn(pktPsn);
        if (Psn.compare(psn, highestPsn) > 0) {
            highestPsn = psn;
        }
        boolean retx = retransmitting && Psn.compare(pktPsn, retransmitUntil) < 0;
        if (retransmitting && !retx) {
            retransmitting = false;
        }
        p.retransmission(retx);
        qp.transmit(p);
        qp.completer.packetSent();
        sentThisRun++;
        return Step.GET_WQE;
    }

    /**
     * How many packets of the current message may leave now as one burst (segmentation offload):
     * as many as would be sent one by one in this run (the budget, the PSN window, the message's
     * end), ending at the next packet that asks for an ACK, if the route carries bursts at all.
     */
    private int burstLength(int remaining, int mtu) {
        int n = (int) Math.min((remaining + (long) mtu - 1) / mtu, BUDGET - sentThisRun);
        n = Math.min(n, ACK_REQ_INTERVAL - packetsSinceAckReq);
        // checkWindow let the first packet go; the completer's PSN does not move during the run.
        int window = qp.owner().maxUnackedPsns() - Psn.distance(qp.completer.psn, psn);
        n = Math.min(n, Math.max(1, window));
        if (n < 2 || !qp.owner().carriesBursts(qp)) {
            return 1;
        }
        return n;
    }

    /**
     * Builds {@code n} packets of a SEND or RDMA WRITE (not its last one first) as one burst:
     * the same headers, PSNs, AckReq and SE bits they would carry sent one by one, and references
     * to their payload in the source memory.
     */
    private Packet buildBurst(SendWqe w, int n, boolean first, int remaining, int mtu) {
        int bytes = (int) Math.min(remaining, (long) n * mtu);
        boolean endsMessage = bytes == remaining;
        Packet p = Packet.allocate(dataOpcode(w.opcode, first, false));
        if (p.opcode().has(io.simrdma.fabric.wire.HeaderType.RETH)) {
            p.reth(w.remoteAddr, w.rkey, w.length);
        }
        gather(p, w, w.sentBytes, bytes);
        Opcode lastOp = dataOpcode(w.opcode, false, endsMessage);
        int lastExtra = lastOp.hasImmediate() ? w.imm : lastOp.hasInvalidate() ? w.invRkey : 0;
        boolean lastSolicited = endsMessage
                && w.has(SendFlag.SOLICITED)
                && (w.opcode.isSend() || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM);
        // As buildPacket: the message's last packet asks for an ACK (and restarts the count),
        // others every ACK_REQ_INTERVAL packets; burstLength ends the run at the first that asks.
        boolean lastAckReq = endsMessage || packetsSinceAckReq + n >= ACK_REQ_INTERVAL;
        packetsSinceAckReq = lastAckReq ? 0 : packetsSinceAckReq + n;
        p.burst(n, mtu, lastOp, lastExtra, lastSolicited, lastAckReq);
        w.sentBytes += bytes;
        psn = Psn.add(psn, n);
        sentThisRun += n - 1; // buildPacket counts the burst's first packet
        if (endsMessage) {
            w.state = SendWqe.State.SENT;
            wqeIndex++;
        }
        return p;
    }

    /** The wire opcode of a SEND or RDMA WRITE packet (IBA 9.2.1, table 41). */
    private static Opcode dataOpcode(WrOpcode op, boolean first, boolean last) {
        switch (op) {
            case SEND:
                return first
                        ? (last ? Opcode.RC_SEND_ONLY : Opcode.RC_SEND_FIRST)
                        : (last ? Opcode.RC_SEND_LAST : Opcode.RC_SEND_MIDDLE);
            case SEND_WITH_IMM:
                return first
                        ? (last ? Opcode.RC_SEND_ONLY_WITH_IMMEDIATE : Opcode.RC_SEND_FIRST)
                        : (last ? Opcode.RC_SEND_LAST_WITH_IMMEDIATE : Opcode.RC_SEND_MIDDLE);
            case SEND_WITH_INV:
                return first
                        ? (last ? Opcode.RC_SEND_ONLY_WITH_INVALIDATE : Opcode.RC_SEND_FIRST)
                        : (last ? Opcode.RC_SEND_LAST_WITH_INVALIDATE : Opcode.RC_SEND_MIDDLE);
            case RDMA_WRITE:
                return first
                        ? (last ? Opcode.RC_RDMA_WRITE_ONLY : Opcode.RC_RDMA_WRITE_FIRST)
                        : (last ? Opcode.RC_RDMA_WRITE_LAST : Opcode.RC_RDMA_WRITE_MIDDLE);
            case RDMA_WRITE_WITH_IMM:
                return first
                        ? (last ? Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : Opcode.RC_RDMA_WRITE_FIRST)
                        : (last ? Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE : Opcode.RC_RDMA_WRITE_MIDDLE);
            default:
                throw new IllegalArgumentException("no data opcode for " + op);
        }
    }

    /** Adds references to {@code len} bytes of the WQE's data, from message offset {@code from}, to the packet. */
    private static void gather(Packet p, SendWqe w, int from, int len) {
        if (len == 0) {
            return;
        }
        if (w.inline) {
            p.addSegment(w.inlineView, from, len);
            return;
        }
        int skip = from;
        int i = 0;
        while (skip >= w.sgeLen[i]) {
            skip -= w.sgeLen[i];
            i++;
        }
        int remaining = len;
        while (remaining > 0) {
            int n = Math.min(remaining, w.sgeLen[i] - skip);
            if (n > 0) {
                MrImpl mr = w.sgeMr[i];
                p.addSegment(mr.buf, w.sgeIndex[i] + skip, n);
                remaining -= n;
            }
            skip = 0;
            i++;
        }
    }

    /**
     * Go-back-N (IBA 9.7.5.1.2): every message from the one holding {@code retryPsn} on is sent
     * again from there; a READ resumes at the byte its first missing response stands for.
     */
    private void rewind() {
        retryPending = false;
        int from = retryPsn;
        if (Psn.compare(qp.completer.psn, from) > 0) {
            // Responses processed after the retry was requested acknowledged more (a reordered
            // response filled the gap): resend only what is still unacknowledged, never go back
            // behind the completer.
            from = qp.completer.psn;
        }
        int mtu = qp.attr.mtu;
        boolean found = false;
        SendQueue sq = qp.sq;
        for (long i = sq.head; i < sq.tail; i++) {
            SendWqe w = sq.at(i);
            if (w.state == SendWqe.State.POSTED) {
                break;
            }
            if (w.state == SendWqe.State.LOCAL_DONE || w.state == SendWqe.State.FAILED) {
                continue;
            }
            if (Psn.compare(w.lastPsn, from) < 0) {
                continue;
            }
            int packetsDone = Psn.compare(from, w.firstPsn) > 0 ? Psn.distance(w.firstPsn, from) : 0;
            w.sentBytes = w.opcode.isAtomic() ? 0 : (int) Math.min((long) packetsDone * mtu, w.length);
            w.state = SendWqe.State.STARTED;
            if (!found) {
                found = true;
                wqeIndex = i;
            }
        }
        if (found) {
            if (!retransmitting || Psn.compare(psn, retransmitUntil) > 0) {
                retransmitUntil = psn;
            }
            retransmitting = true;
            psn = from;
            packetsSinceAckReq = 0;
        } else if (Psn.compare(psn, from) < 0) {
            // Everything up to from was acknowledged while the requester stood rewound behind it
            // (late responses to the packets it was about to resend): nothing is left to resend,
            // so new messages start at from.
            psn = from;
            retransmitting = false;
        }
    }
}
