package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.WcFlag;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;

/**
 * The receive side of a UC queue pair (IBA 9.8.3): packets of a message must come in
 * PSN order, First, Middle..., Last (or Only). Nothing is ever answered. When a packet is missing
 * (a PSN other than the expected one) or breaks a check, the message is abandoned: the rest of it
 * is dropped until the next First or Only, whatever its PSN, starts a new one; a SEND's receive
 * WQE is not consumed and serves the next message (as rxe_resp.c's drop_msg does).
 *
 * <p>Checks: a SEND First/Only needs a receive WQE (none: the message is dropped, counted as
 * {@link Counter#DATAGRAMS_NO_RECEIVE}; UC has no RNR); an RDMA WRITE First/Only its R_Key with
 * REMOTE_WRITE on the MR and the QP (a violation drops the message: UC cannot NAK); WRITE with
 * immediate data consumes a receive WQE at its last packet. A SEND longer than its WQE completes
 * LOC_LEN_ERR and moves the QP to ERR (rxe's class D responder error); a scatter entry that cannot
 * be written, LOC_PROT_ERR, likewise.
 *
 * <p>Steps per packet: CHECK_OPCODE -&gt; CHECK_PSN -&gt; CHECK_SEQUENCE -&gt; START (First) -&gt;
 * PLACE -&gt; COMPLETE (Last).
 *
 * <p>Thread safety: engine thread only.
 */
final class UcReceiver {

    private final UnreliableQueuePair qp;
    private final ReceiveScatter scatter = new ReceiveScatter();
    private final MemoryAccess access = new MemoryAccess();
    private int epsn;
    /** A message is in progress (its First has been accepted). */
    private boolean inMessage;

    private boolean write;
    /** The WRITE's target, checked at its First packet. */
    private MrImpl writeMr;

    private int writeIndex;
    private int writeLength;
    /** Bytes of the message placed so far. */
    private int placed;

    UcReceiver(UnreliableQueuePair qp) {
        this.qp = qp;
    }

    /** RTR: the expected PSN is rq_psn; a move to RESET forgets the message in progress. */
    void reset(int rqPsn) {
        epsn = rqPsn & Psn.MASK;
        inMessage = false;
        writeMr = null;
    }

    void receive(Packet p) {
        Opcode op = p.opcode();
        if (!op.isUc()) {
            qp.drop(p, DropReason.MALFORMED, Counter.INVALID_PACKETS);
            return;
        }
        int psn = p.psn();
        if (psn != epsn || (inMessage && op.isFirst())) {
            // A packet was lost (or a new message began before the last ended): the message in
            // progress is abandoned; only a First or Only can start the next one.
            abandon();
            if (!op.isFirst()) {
                qp.drop(p, DropReason.MESSAGE_ABANDONED, Counter.OUT_OF_SEQUENCE);
                return;
            }
        } else if (!inMessage && !op.isFirst()) {
            // The rest of a message abandoned earlier.
            epsn = Psn.add(psn, 1);
            qp.drop(p, DropReason.MESSAGE_ABANDONED, Counter.DROPPED_PACKETS);
            return;
        }
        epsn = Psn.add(psn, 1);
        if (op.isFirst() && !start(p, op)) {
            return;
        }
        int len = p.payloadLength();
        if (write) {
            if ((long) placed + len > writeLength) {
                abandon();
                qp.drop(p, DropReason.MESSAGE_ABANDONED, Counter.MESSAGES_ABANDONED);
                return;
            }
            p.copyPayload(0, writeMr.buf, writeIndex + placed, len);
        } else {
            RecvRing.Wqe w = qp.rq.peek();
            if ((long) placed + len > w.capacity) {
                finishWithError(p, w.wrId, WcStatus.LOC_LEN_ERR);
                return;
            }
            if (!scatter.place(qp.owner().memory(), qp.pd(), w, placed, p, null, 0, len)) {
                finishWithError(p, w.wrId, WcStatus.LOC_PROT_ERR);
                return;
            }
        }
        placed += len;
        if (op.isLast()) {
            complete(p, op);
        } else {
            p.release();
        }
    }

    /** First or Only: checks what the message needs. False if it was dropped. */
    private boolean start(Packet p, Opcode op) {
        write = op.isWrite();
        placed = 0;
        if (write) {
            int required = AccessFlag.REMOTE_WRITE.bit();
            if ((qp.accessFlags & required) == 0
                    || !access.remote(
                            qp.owner().memory().keys(), qp, p.rethRkey(), p.rethVa(), p.rethLength(), required)) {
                // UC cannot NAK: an access violation drops the message.
                qp.drop(p, DropReason.MESSAGE_ABANDONED, Counter.MESSAGES_ABANDONED);
                return false;
            }
            writeMr = access.mr;
            writeIndex = access.index;
            writeLength = p.rethLength();
        } else if (qp.rq.peek() == null) {
            qp.drop(p, DropReason.NO_RECEIVE, Counter.DATAGRAMS_NO_RECEIVE);
            return false;
        }
        inMessage = true;
        return true;
    }

    private void complete(Packet p, Opcode op) {
        inMessage = false;
        boolean imm = op.hasImmediate();
        int immData = imm ? p.immediate() : 0;
        boolean solicited = p.solicited();
        p.release();
        writeMr = null;
        if (write && !imm) {
            return;
        }
        RecvRing.Wqe w = qp.rq.peek();
        if (w == null) {
            // A WRITE with immediate data found no receive WQE: its data is placed, its completion lost.
            qp.counters.increment(Counter.DATAGRAMS_NO_RECEIVE);
            return;
        }
        long wrId = w.wrId;
        qp.rq.advance();
        qp.completeRecv(
                wrId,
                WcStatus.SUCCESS,
                write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV,
                placed,
                immData,
                imm ? WcFlag.WITH_IMM.bit() : 0,
                qp.destQpn,
                solicited);
    }

    private void finishWithError(Packet p, long wrId, WcStatus status) {
        inMessage = false;
        p.release();
        qp.rq.advance();
        qp.completeRecv(wrId, status, WcOpcode.RECV, 0, 0, 0, qp.destQpn, false);
        qp.enterError(QueuePair.ErrorCause.RESPONDER_ERROR);
    }

    private void abandon() {
        if (inMessage) {
            inMessage = false;
            writeMr = null;
            qp.counters.increment(Counter.MESSAGES_ABANDONED);
        }
    }
}
