package io.simrdma.fabric.internal.ucud;

import io.netty.buffer.ByteBuf;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QpType;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The send side of a UC or UD queue pair: takes send WQEs in order, checks their local memory,
 * builds the packets (UC: segmented at the path MTU into First/Middle/Last or Only, RETH on the
 * first packet of a WRITE, immediate data on the last; UD: one SEND Only with a DETH), hands them
 * to the port and completes the WQE at once: there is no acknowledgement to wait for.
 *
 * <p>The payload is copied into a buffer the packet owns ({@link PayloadBuffers}) before the
 * completion is written, so the application may reuse its memory as soon as it sees the
 * completion, as it may on a device that has read the data out by then.
 *
 * <p>Steps: {@code CHECK_STATE} (RTS sends, SQE and ERR flush) -&gt; {@code CHECK_LENGTH} (UD: the
 * port MTU, IBA C10-93.1.1) -&gt; {@code CHECK_LOCAL} (each SGE's L_Key, IBA 10.6.3.1) -&gt;
 * {@code EMIT} -&gt; {@code COMPLETE}.
 *
 * <p>Thread safety: engine thread only.
 */
final class UnreliableSender {

    private static final Logger LOG = LoggerFactory.getLogger(UnreliableSender.class);
    /** IBA 10.2.5: a Q_Key with the high-order bit set in a WR means "use the QP's Q_Key". */
    static final int CONTROLLED_QKEY_BIT = 0x8000_0000;

    private final UnreliableQueuePair qp;
    private final MemoryAccess access = new MemoryAccess();
    private final PayloadBuffers buffers = new PayloadBuffers();
    /** A zeroed header but for its opcode byte, from which each packet starts. */
    private final byte[] blank = new byte[Packet.MAX_HEADER_LENGTH];

    private int psn;

    UnreliableSender(UnreliableQueuePair qp) {
        this.qp = qp;
    }

    /** Entering RTS from RTR: the first PSN (sq_psn). */
    void start(int sqPsn) {
        if (qp.state() == QpState.RTR) {
            psn = sqPsn & Psn.MASK;
        }
    }

    /** Runs every queued WQE it can. */
    void run() {
        QpState s = qp.state();
        if (s == QpState.SQE || s == QpState.ERR) {
            // IBA 10.3.1: in SQE and ERR, send WQEs complete with a flush error; in ERR, receives too.
            qp.flushSends();
            if (s == QpState.ERR) {
                qp.flushReceives();
            }
            return;
        }
        while (qp.canSend()) {
            SendRing.Wqe w = qp.sq.peek();
            if (w == null) {
                return;
            }
            WcStatus st = send(w);
            boolean signaled = (w.flags & SendFlag.SIGNALED.bit()) != 0;
            qp.completeSend(w.wrId, st, UnreliableQueuePair.sendOpcode(w.opcode), (int) w.length, signaled);
            qp.sq.advance();
            if (st != WcStatus.SUCCESS) {
                LOG.debug("qp {}: send {} failed with {}, moving to SQE", qp.qpNum(), w.wrId, st);
                qp.enterSendQueueError();
                qp.flushSends();
                return;
            }
        }
    }

    private WcStatus send(SendRing.Wqe w) {
        if (w.opcode == WrOpcode.BIND_MW) {
            // IBA 10.6.7: a bind runs in send queue order; its rules are the memory table's.
            return qp.owner().memory().bind(qp, w.mw, w.bindMr, w.bindRkey, w.bindAddr, w.bindLength, w.bindAccess);
        }
        if (w.opcode == WrOpcode.LOCAL_INV) {
            return qp.owner().memory().invalidate(qp, w.invRkey) ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR;
        }
        int length = (int) w.length;
        if (qp.type() == QpType.UD && length > qp.owner().activeMtu().bytes()) {
            // IBA C10-93.1.1: no packet goes out; whether an error is reported is the device's (profile).
            return qp.owner().profile().udOversizedSend() == DeviceProfile.UdOversizedSend.DISCARD
                    ? WcStatus.SUCCESS
                    : WcStatus.LOC_LEN_ERR;
        }
        if (!w.isInline) {
            for (int i = 0; i < w.numSge; i++) {
                if (w.len[i] != 0
                        && !access.local(qp.owner().memory().keys(), qp.pd(), w.lkey[i], w.addr[i], w.len[i], false)) {
                    return WcStatus.LOC_PROT_ERR;
                }
            }
        }
        if (qp.type() == QpType.UD) {
            emitDatagram(w, length);
        } else {
            emitMessage(w, length);
        }
        return WcStatus.SUCCESS;
    }

    private void emitDatagram(SendRing.Wqe w, int length) {
        boolean imm = w.opcode == WrOpcode.SEND_WITH_IMM;
        Packet p = packet(imm ? Opcode.UD_SEND_ONLY_WITH_IMMEDIATE : Opcode.UD_SEND_ONLY, w, 0, length);
        int qkey = (w.remoteQkey & CONTROLLED_QKEY_BIT) != 0 ? qp.qkey : w.remoteQkey;
        p.destQp(w.remoteQpn).pkey(UnreliableQueuePair.DEFAULT_PKEY).psn(psn).deth(qkey, qp.qpNum());
        psn = Psn.add(psn, 1);
        if (imm) {
            p.immediate(w.imm);
        }
        p.solicited((w.flags & SendFlag.SOLICITED.bit()) != 0).updatePadCount();
        qp.transmit(p, w.ah);
    }

    private void emitMessage(SendRing.Wqe w, int length) {
        int mtu = qp.pathMtu.bytes();
        int packets = length == 0 ? 1 : (length + mtu - 1) / mtu;
        boolean write = w.opcode == WrOpcode.RDMA_WRITE || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        boolean imm = w.opcode == WrOpcode.SEND_WITH_IMM || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        for (int i = 0; i < packets; i++) {
            boolean first = i == 0;
            boolean last = i == packets - 1;
            int off = i * mtu;
            Packet p = packet(ucOpcode(write, imm, first, last), w, off, Math.min(mtu, length - off));
            p.destQp(qp.destQpn).pkey(UnreliableQueuePair.DEFAULT_PKEY).psn(psn);
            psn = Psn.add(psn, 1);
            if (first && write) {
                p.reth(w.remoteAddr, w.rkey, length);
            }
            if (last && imm) {
                p.immediate(w.imm);
            }
            p.solicited(last && (w.flags & SendFlag.SOLICITED.bit()) != 0).updatePadCount();
            qp.transmit(p, null);
        }
    }

    /** The UC opcode of a packet (IBA 9.2.1 table 41, transport 001). */
    static Opcode ucOpcode(boolean write, boolean imm, boolean first, boolean last) {
        if (write) {
            if (first && last) {
                return imm ? Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : Opcode.UC_RDMA_WRITE_ONLY;
            }
            if (first) {
                return Opcode.UC_RDMA_WRITE_FIRST;
            }
            if (last) {
                return imm ? Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE : Opcode.UC_RDMA_WRITE_LAST;
            }
            return Opcode.UC_RDMA_WRITE_MIDDLE;
        }
        if (first && last) {
            return imm ? Opcode.UC_SEND_ONLY_WITH_IMMEDIATE : Opcode.UC_SEND_ONLY;
        }
        if (first) {
            return Opcode.UC_SEND_FIRST;
        }
        if (last) {
            return imm ? Opcode.UC_SEND_LAST_WITH_IMMEDIATE : Opcode.UC_SEND_LAST;
        }
        return Opcode.UC_SEND_MIDDLE;
    }

    /**
     * A packet of {@code op} whose payload is a copy of bytes [off, off + n) of the message, in a
     * buffer the packet owns (see {@link PayloadBuffers}); the caller fills in the headers.
     */
    private Packet packet(Opcode op, SendRing.Wqe w, int off, int n) {
        ByteBuf b = buffers.take(n);
        if (w.isInline) {
            b.writeBytes(w.inline, off, n);
        } else {
            int skip = off;
            int left = n;
            for (int i = 0; i < w.numSge && left > 0; i++) {
                int l = w.len[i];
                if (skip >= l) {
                    skip -= l;
                    continue;
                }
                int take = Math.min(l - skip, left);
                access.local(qp.owner().memory().keys(), qp.pd(), w.lkey[i], w.addr[i], l, false);
                copy(access.mr.buf, access.index + skip, take, b);
                left -= take;
                skip = 0;
            }
        }
        blank[0] = (byte) op.value();
        return Packet.fromWire(blank, op.headerLength(), b);
    }

    /** Appends {@code n} bytes at absolute index {@code from} of {@code src} to {@code dst}, allocating nothing. */
    private static void copy(java.nio.ByteBuffer src, int from, int n, ByteBuf dst) {
        if (src.hasArray()) {
            dst.writeBytes(src.array(), src.arrayOffset() + from, n);
        } else {
            for (int k = 0; k < n; k++) {
                dst.writeByte(src.get(from + k));
            }
        }
    }
}
