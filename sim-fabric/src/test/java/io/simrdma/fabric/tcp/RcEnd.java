package io.simrdma.fabric.tcp;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.cm.CmId;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One side of an RC connection made through the connection manager, with a 64 KiB direct buffer
 * registered for every remote access; its address and R_Key travel in the CM private data.
 * Used by the TCP tests in one JVM, by {@link TcpPeerMain} in a second one, and by the CM
 * protocol tests ({@code io.simrdma.fabric.cm.CmRig}), whose messages use the two halves of the
 * buffer: receives land in the first, sends leave from the second.
 */
public final class RcEnd {

    static final int BUF = 64 * 1024;
    /** Seconds (virtual or real) a wait for a completion may take. */
    public static final long WAIT_SECONDS = 20;

    static final EnumSet<AccessFlag> ALL = EnumSet.of(
            AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    public final CmId id;
    public final QueuePair qp;
    public final CompletionQueue cq;
    public final ByteBuffer buf = ByteBuffer.allocateDirect(BUF);
    public final MemoryRegion mr;
    long peerAddr;
    int peerRkey;
    private final WorkCompletion[] wc = WorkCompletion.array(1);

    /** Creates the id's QP (the CM makes one CQ for both queues) and registers the buffer. */
    public RcEnd(CmId id) {
        this.id = id;
        this.qp = id.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
        this.cq = id.sendCq();
        this.mr = qp.pd().registerMemory(buf, ALL);
    }

    /** The private data telling the peer where this side's buffer is: address (8) and R_Key (4). */
    byte[] keyData() {
        ByteBuffer b = ByteBuffer.allocate(12);
        b.putLong(mr.address()).putInt(mr.rkey());
        return b.array();
    }

    /** Takes the peer's buffer address and R_Key from the private data it sent. */
    RcEnd peer(byte[] privateData) {
        ByteBuffer b = ByteBuffer.wrap(privateData);
        peerAddr = b.getLong();
        peerRkey = b.getInt();
        return this;
    }

    static void fill(ByteBuffer buf, int index, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            buf.put(index + i, (byte) r.nextInt(256));
        }
    }

    /** Index of the first byte that differs from the pattern of {@code seed}, or -1. */
    static int mismatch(ByteBuffer buf, int index, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            if (buf.get(index + i) != (byte) r.nextInt(256)) {
                return i;
            }
        }
        return -1;
    }

    void postRecv(long wrId, int off, int len) {
        qp.postRecv(new RecvWr().wrId(wrId).sge(mr, off, len));
    }

    void postSend(long wrId, int off, int len) {
        qp.postSend(
                new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sge(mr, off, len).flag(SendFlag.SIGNALED));
    }

    /** Posts a receive of up to half the buffer, into its first half. */
    public void postRecv(long wrId) {
        postRecv(wrId, 0, BUF / 2);
    }

    /** Copies {@code data} into the second half of the buffer and posts a signaled SEND of it. */
    public void postSend(long wrId, byte[] data) {
        buf.put(BUF / 2, data);
        postSend(wrId, BUF / 2, data.length);
    }

    void postWrite(long wrId, int off, int remoteOff, int len) {
        qp.postSend(new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(mr, off, len)
                .remote(peerAddr + remoteOff, peerRkey)
                .flag(SendFlag.SIGNALED));
    }

    void postRead(long wrId, int off, int remoteOff, int len) {
        qp.postSend(new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.RDMA_READ)
                .sge(mr, off, len)
                .remote(peerAddr + remoteOff, peerRkey)
                .flag(SendFlag.SIGNALED));
    }

    void postFetchAdd(long wrId, int off, int remoteOff, long add) {
        qp.postSend(new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sge(mr, off, 8)
                .remote(peerAddr + remoteOff, peerRkey)
                .atomic(add, 0)
                .flag(SendFlag.SIGNALED));
    }

    void postCmpSwap(long wrId, int off, int remoteOff, long compare, long swap) {
        qp.postSend(new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                .sge(mr, off, 8)
                .remote(peerAddr + remoteOff, peerRkey)
                .atomic(compare, swap)
                .flag(SendFlag.SIGNALED));
    }

    /** The next completion, copied, waiting at most {@link #WAIT_SECONDS}; null if none came. */
    public WorkCompletion next() {
        return next(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    WorkCompletion next(long timeout, TimeUnit unit) {
        if (cq.poll(wc) == 1) {
            return new WorkCompletion().copyFrom(wc[0]);
        }
        cq.awaitCompletions(1, timeout, unit);
        return cq.poll(wc) == 1 ? new WorkCompletion().copyFrom(wc[0]) : null;
    }
}
