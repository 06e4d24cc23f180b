package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertCqEmpty;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Completion order (IBA 10.8.5 / ibv_post_send(3), ibv_post_recv(3)): on an RC QP the send
 * completions of a send queue come back in the order the WRs were posted, whatever their opcode
 * and size (a READ or atomic completes only after every WR before it), and receive completions
 * come back in the order the receive WRs were posted. A seeded mix of 300 WRs (SEND, SEND with
 * immediate, RDMA WRITE with and without immediate, RDMA READ, both atomics; 0..3000 bytes;
 * a third unsignaled) posted in chains of 1..8, then every byte checked.
 */
class PostOrderTest {

    private static final int BIG = 2 * 1024 * 1024;
    private static final int SRC = 64 * 1024;
    private static final WrOpcode[] OPS = {
        WrOpcode.SEND,
        WrOpcode.SEND_WITH_IMM,
        WrOpcode.RDMA_WRITE,
        WrOpcode.RDMA_WRITE_WITH_IMM,
        WrOpcode.RDMA_READ,
        WrOpcode.ATOMIC_CMP_AND_SWP,
        WrOpcode.ATOMIC_FETCH_AND_ADD
    };

    static Stream<Arguments> cases() {
        return DataPathSupport.schedulersWith(1L, 2L, 3L);
    }

    /** One posted WR and where its data went. */
    private record Op(
            long wrId,
            WrOpcode opcode,
            int length,
            boolean signaled,
            int srcOffset,
            int dstOffset,
            int recvIndex,
            int imm,
            long operand) {}

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    @DisplayName(
            "300 mixed WRs: send completions in post order, receive completions in receive post order, all data intact")
    void shouldCompleteInPostOrderWhenManyMixedWrsArePosted(String mode, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        try (RcPair p = DataPathSupport.pair(mode, new QpCaps(512, 512, 1, 1, 0), 2048, false)) {
            p.mtu = Mtu.values()[rnd.nextInt(Mtu.values().length)];
            ByteBuffer aBig = ByteBuffer.allocateDirect(BIG);
            ByteBuffer bBig = ByteBuffer.allocate(BIG);
            MemoryRegion aMr = p.a.pd.registerMemory(aBig, RcPair.ALL);
            MemoryRegion bMr = p.b.pd.registerMemory(bBig, RcPair.ALL);
            p.connect();
            fill(aBig, 0, SRC, seed * 100);
            fill(bBig, 0, SRC, seed * 100 + 1);
            long counter = 1_000_000;
            bBig.putLong(SRC, counter); // the word every FETCH_AND_ADD hits

            int n = 300;
            int aCursor = SRC;
            int bCursor = SRC + 8;
            int receives = 0;
            List<Op> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                WrOpcode op = OPS[rnd.nextInt(OPS.length)];
                boolean atomic = op.isAtomic();
                int len = atomic ? 8 : rnd.nextInt(8) == 0 ? 0 : rnd.nextInt(3001);
                // The last WR is signaled: its completion shows that every unsignaled one before it is done.
                boolean signaled = rnd.nextInt(3) != 0 || i == n - 1;
                int src = atomic ? 0 : rnd.nextInt(SRC - len + 1);
                int dst;
                int recv = -1;
                if (op == WrOpcode.RDMA_READ || atomic) {
                    dst = aCursor; // local target
                    aCursor += (len + 7) & ~7;
                    if (op == WrOpcode.ATOMIC_CMP_AND_SWP) {
                        bBig.putLong(bCursor, i); // own word; compare matches on even i
                        src = bCursor;
                        bCursor += 8;
                    }
                } else {
                    dst = bCursor; // receive buffer or write target
                    bCursor += (Math.max(len, 8) + 7) & ~7; // keeps the atomic words aligned
                }
                if (op.isSend() || op == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    recv = receives++;
                }
                ops.add(new Op(i, op, len, signaled, src, dst, recv, (int) rnd.nextLong(), 1 + rnd.nextInt(100)));
            }

            // Receives first, one per consuming WR; a SEND's receive buffer is its dst.
            for (Op o : ops) {
                if (o.recvIndex() >= 0) {
                    boolean send = o.opcode().isSend();
                    p.b.qp.postRecv(new RecvWr()
                            .wrId(o.recvIndex())
                            .sge(bMr, send ? o.dstOffset() : BIG - 8, send ? Math.max(o.length(), 8) : 8));
                }
            }
            // Then the WRs, in chains of 1..8.
            int i = 0;
            while (i < n) {
                int chain = 1 + rnd.nextInt(8);
                List<SendWr> wrs = new ArrayList<>(chain);
                for (int k = 0; k < chain && i < n; k++, i++) {
                    wrs.add(build(ops.get(i), aMr, bMr));
                }
                p.a.qp.postSend(DataPathSupport.chain(wrs));
            }

            List<Op> signaled = ops.stream().filter(Op::signaled).toList();
            List<WorkCompletion> sendWcs = poll(p.a.cq, signaled.size());
            for (int k = 0; k < signaled.size(); k++) {
                Op o = signaled.get(k);
                WorkCompletion wc = sendWcs.get(k);
                DataPathSupport.assertSuccess(wc, o.wrId(), o.opcode().completionOpcode());
                if (o.opcode() == WrOpcode.RDMA_READ || o.opcode().isAtomic()) {
                    assertEquals(o.length(), wc.byteLen(), () -> "byte_len of " + wc);
                }
            }
            List<Op> consuming = ops.stream().filter(o -> o.recvIndex() >= 0).toList();
            List<WorkCompletion> recvWcs = poll(p.b.cq, consuming.size());
            for (int k = 0; k < consuming.size(); k++) {
                Op o = consuming.get(k);
                WorkCompletion wc = recvWcs.get(k);
                boolean write = o.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM;
                DataPathSupport.assertSuccess(wc, k, write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV);
                assertEquals(o.length(), wc.byteLen(), () -> "byte_len of " + wc + " for " + o);
                if (o.opcode() != WrOpcode.SEND) {
                    assertEquals(o.imm(), wc.immData(), () -> "imm_data of " + wc + " for " + o);
                }
            }
            assertCqEmpty(p.fabric, p.a.cq);
            assertCqEmpty(p.fabric, p.b.cq);

            // Every byte, and the atomics in post order.
            for (Op o : ops) {
                String what = "WR " + o;
                switch (o.opcode()) {
                    case RDMA_READ:
                        assertBytes(what, bBig, o.srcOffset(), aBig, o.dstOffset(), o.length());
                        break;
                    case ATOMIC_FETCH_AND_ADD:
                        assertEquals(counter, aBig.getLong(o.dstOffset()), what);
                        counter += o.operand();
                        break;
                    case ATOMIC_CMP_AND_SWP:
                        assertEquals(o.wrId(), aBig.getLong(o.dstOffset()), what);
                        assertEquals(o.wrId() % 2 == 0 ? o.operand() : o.wrId(), bBig.getLong(o.srcOffset()), what);
                        break;
                    default:
                        assertBytes(what, aBig, o.srcOffset(), bBig, o.dstOffset(), o.length());
                        break;
                }
            }
            assertEquals(counter, bBig.getLong(SRC), "the FETCH_AND_ADD word counts every add once");
            assertEngineHealthy(p.fabric);
        }
    }

    private static SendWr build(Op o, MemoryRegion aMr, MemoryRegion bMr) {
        SendWr wr = new SendWr().wrId(o.wrId()).opcode(o.opcode()).immData(o.imm());
        if (o.signaled()) {
            wr.flag(SendFlag.SIGNALED);
        }
        switch (o.opcode()) {
            case RDMA_READ:
                wr.sge(aMr, o.dstOffset(), o.length()).remote(bMr.address() + o.srcOffset(), bMr.rkey());
                break;
            case ATOMIC_FETCH_AND_ADD:
                wr.sge(aMr, o.dstOffset(), 8)
                        .remote(bMr.address() + SRC, bMr.rkey())
                        .atomic(o.operand(), 0);
                break;
            case ATOMIC_CMP_AND_SWP:
                // Compare with the word's value on even WR ids (swapped), with something else on odd ones.
                wr.sge(aMr, o.dstOffset(), 8)
                        .remote(bMr.address() + o.srcOffset(), bMr.rkey())
                        .atomic(o.wrId() % 2 == 0 ? o.wrId() : -1, o.operand());
                break;
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                wr.sge(aMr, o.srcOffset(), o.length()).remote(bMr.address() + o.dstOffset(), bMr.rkey());
                break;
            default:
                wr.sge(aMr, o.srcOffset(), o.length());
                break;
        }
        return wr;
    }
}
