package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.AddressHandle;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.WcFlag;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;

/**
 * The receive side of a UD queue pair: checks the datagram's Q_Key, takes the oldest receive WQE,
 * writes the 40-byte GRH and then the payload into it, and completes it with the sender's QP
 * number (DETH SrcQP), IBV_WC_GRH and the immediate data if any.
 *
 * <p>A datagram is dropped, counted and never answered when the Q_Key differs (IBA 10.2.5,
 * {@link Counter#QKEY_VIOLATIONS}) or no receive WQE is posted (no RNR on UD,
 * {@link Counter#DATAGRAMS_NO_RECEIVE}). A WQE too small for GRH and payload completes
 * LOC_LEN_ERR, one whose SGE cannot be written LOC_PROT_ERR; both move the QP to ERR.
 *
 * <p>The GRH (IBA 8.3) written is: IPVer 6, traffic class and flow label 0, PayLen (transport
 * headers, payload, pad and ICRC), NxtHdr 0x1B, hop limit 64, SGID (the sender's port), DGID
 * (this port). simrdma's packets do not carry the sender's traffic class, flow label and hop
 * limit, so those are not the values of the sender's address handle.
 *
 * <p>Thread safety: engine thread only.
 */
final class UdReceiver {

    /** IBA 8.3.1: NxtHdr of a GRH followed by a BTH. */
    private static final int NEXT_HEADER_BTH = 0x1B;

    private static final int HOP_LIMIT = 64;

    private final UnreliableQueuePair qp;
    private final ReceiveScatter scatter = new ReceiveScatter();
    private final byte[] grh = new byte[AddressHandle.GRH_LENGTH];

    UdReceiver(UnreliableQueuePair qp) {
        this.qp = qp;
    }

    void receive(Packet p) {
        Opcode op = p.opcode();
        if (!op.isUd()) {
            qp.drop(p, DropReason.MALFORMED, Counter.INVALID_PACKETS);
            return;
        }
        if (p.dethQkey() != qp.qkey) {
            qp.drop(p, DropReason.BAD_QKEY, Counter.QKEY_VIOLATIONS);
            return;
        }
        RecvRing.Wqe w = qp.nextReceive();
        if (w == null) {
            qp.drop(p, DropReason.NO_RECEIVE, Counter.DATAGRAMS_NO_RECEIVE);
            return;
        }
        int len = p.payloadLength();
        int total = AddressHandle.GRH_LENGTH + len;
        long wrId = w.wrId;
        if (w.capacity < total) {
            qp.consumeReceive();
            p.release();
            qp.completeRecv(wrId, WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            qp.enterError(QueuePair.ErrorCause.RESPONDER_ERROR);
            return;
        }
        fillGrh(p, len);
        if (!scatter.place(qp.owner().memory(), qp.recvPd(), w, 0, null, grh, 0, grh.length)
                || !scatter.place(qp.owner().memory(), qp.recvPd(), w, AddressHandle.GRH_LENGTH, p, null, 0, len)) {
            qp.consumeReceive();
            p.release();
            qp.completeRecv(wrId, WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            qp.enterError(QueuePair.ErrorCause.RESPONDER_ERROR);
            return;
        }
        boolean imm = op.hasImmediate();
        int flags = WcFlag.GRH.bit() | (imm ? WcFlag.WITH_IMM.bit() : 0);
        int immData = imm ? p.immediate() : 0;
        int srcQp = p.dethSrcQp();
        boolean solicited = p.solicited();
        qp.consumeReceive();
        p.release();
        qp.completeRecv(wrId, WcStatus.SUCCESS, WcOpcode.RECV, total, immData, flags, srcQp, solicited);
    }

    private void fillGrh(Packet p, int len) {
        int payLen = p.headerLength() + len + ((-len) & 3) + Packet.ICRC_LENGTH;
        grh[0] = 0x60;
        grh[1] = 0;
        grh[2] = 0;
        grh[3] = 0;
        grh[4] = (byte) (payLen >>> 8);
        grh[5] = (byte) payLen;
        grh[6] = (byte) NEXT_HEADER_BTH;
        grh[7] = (byte) HOP_LIMIT;
        Gid s = p.sourceGid();
        Gid d = p.destinationGid() != null ? p.destinationGid() : qp.owner().gid();
        if (s != null) {
            s.copyTo(grh, 8);
        }
        d.copyTo(grh, 24);
    }
}
