package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertCqEmpty;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.assertSuccess;
import static io.simrdma.fabric.DataPathSupport.chain;
import static io.simrdma.fabric.DataPathSupport.expect;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.fillConstant;
import static io.simrdma.fabric.DataPathSupport.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * IBV_SEND_INLINE (ibv_post_send(3): "the buffer can be reused immediately after the call
 * returns") and completion signaling (ibv_create_qp(3) sq_sig_all; ibv_post_send(3)
 * IBV_SEND_SIGNALED: unsignaled WRs generate no completion, yet they are retired and their send
 * queue slots freed once a later signaled WR completes).
 */
class InlineAndSignalingTest {

    private static final String SCHEDULERS = "io.simrdma.fabric.DataPathSupport#schedulers";

    static Stream<Arguments> inlineCases() {
        return DataPathSupport.schedulersWith(
                WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("inlineCases")
    @DisplayName(
            "INLINE: the source may be overwritten right after postSend returns; the peer gets the bytes as posted (1..512 bytes, 1..3 SGEs, 1..2 packets)")
    void shouldDeliverPostedBytesWhenInlineSourceOverwrittenAfterPost(String mode, WrOpcode op) {
        try (RcPair p = DataPathSupport.pair(mode, new QpCaps(16, 16, 4, 4, 512), 64, false)) {
            p.mtu = Mtu.MTU_256;
            p.connect();
            int[][] sgeSets = {{1}, {64}, {100, 200}, {256, 1, 255}};
            long wrId = 0;
            for (int[] sges : sgeSets) {
                wrId++;
                int total = 0;
                SendWr wr = new SendWr()
                        .wrId(wrId)
                        .opcode(op)
                        .immData((int) wrId)
                        .flag(SendFlag.INLINE)
                        .flag(SendFlag.SIGNALED);
                int at = 1000;
                for (int len : sges) {
                    fill(p.a.buf, at, len, wrId * 10 + total);
                    wr.sge(p.a.mr, at, len);
                    at += len + 333;
                    total += len;
                }
                ByteBuffer posted = ByteBuffer.allocate(total);
                int off = 0;
                at = 1000;
                for (int len : sges) {
                    posted.put(off, p.a.buf, at, len);
                    off += len;
                    at += len + 333;
                }
                int dst = 20_000 * (int) (wrId % 3);
                fillConstant(p.b.buf, dst, total, (byte) 0);
                if (op.isSend() || op == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    p.b.qp.postRecv(new RecvWr().wrId(wrId).sge(p.b.mr, dst, 1024));
                }
                if (op.isWrite()) {
                    wr.remote(p.b.addr(dst), p.b.mr.rkey());
                }
                p.a.qp.postSend(wr);
                // The application reuses its buffer at once (before any completion).
                fillConstant(p.a.buf, 0, RcPair.BUF, (byte) 0xEE);

                String what = op + " INLINE of " + total + " bytes";
                if (op.isSend() || op == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    WorkCompletion r = expect(p.b.cq, wrId, op.isSend() ? WcOpcode.RECV : WcOpcode.RECV_RDMA_WITH_IMM);
                    assertEquals(total, r.byteLen(), what + ": byte_len");
                    if (op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE_WITH_IMM) {
                        assertEquals((int) wrId, r.immData(), what + ": imm_data");
                    }
                }
                expect(p.a.cq, wrId, op.completionOpcode());
                assertBytes(what, posted, 0, p.b.buf, dst, total);
            }
            assertEngineHealthy(p.fabric);
        }
    }

    static Stream<Arguments> inlineSendAndWrite() {
        return DataPathSupport.schedulersWith(WrOpcode.SEND, WrOpcode.RDMA_WRITE);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("inlineSendAndWrite")
    @DisplayName(
            "ibv_post_send(3) IBV_SEND_INLINE: \"The L_Key will not be checked\": SGEs with a garbage L_Key, or one of another PD's region, still send the bytes at their addresses")
    void shouldSendInlineBytesWhenSgeLkeyIsArbitrary(String mode, WrOpcode op) {
        try (RcPair p = DataPathSupport.pair(mode, new QpCaps(16, 16, 4, 4, 256), 64, false)
                .connect()) {
            ProtectionDomain otherPd = p.a.dev.allocPd();
            ByteBuffer otherBuf = ByteBuffer.allocate(4096);
            MemoryRegion other = otherPd.registerMemory(otherBuf, EnumSet.of(AccessFlag.LOCAL_WRITE));
            fill(p.a.buf, 100, 40, 1);
            fill(otherBuf, 200, 30, 2);
            SendWr wr = new SendWr()
                    .wrId(1)
                    .opcode(op)
                    .flag(SendFlag.INLINE)
                    .flag(SendFlag.SIGNALED)
                    .sge(p.a.addr(100), 40, 0xDEAD_BEEF) // a key that names nothing
                    .sge(other.address() + 200, 30, p.a.mr.lkey()); // a key of another region and PD
            int dst = 8192;
            if (op.isSend()) {
                p.b.qp.postRecv(new RecvWr().wrId(2).sge(p.b.mr, dst, 1024));
            } else {
                wr.remote(p.b.addr(dst), p.b.mr.rkey());
            }
            p.a.qp.postSend(wr);
            expect(p.a.cq, 1, op.completionOpcode());
            if (op.isSend()) {
                assertEquals(70, expect(p.b.cq, 2, WcOpcode.RECV).byteLen(), "byte_len of the inline SEND");
            }
            assertBytes(op + " INLINE first SGE", p.a.buf, 100, p.b.buf, dst, 40);
            assertBytes(op + " INLINE second SGE", otherBuf, 200, p.b.buf, dst + 40, 30);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "IBV_SEND_INLINE: an SGE whose address lies in no registered region of the device fails the post with EINVAL (the simulation has no memory outside regions)")
    void shouldFailPostWithEinvalWhenInlineAddressIsInNoRegion(String mode) {
        try (RcPair p = DataPathSupport.pair(mode, new QpCaps(16, 16, 4, 4, 256), 64, false)
                .connect()) {
            SendWr wr = new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .flag(SendFlag.INLINE)
                    .flag(SendFlag.SIGNALED)
                    .sge(p.a.addr(RcPair.BUF - 8), 16, p.a.mr.lkey()); // runs 8 bytes past the region
            PostException e =
                    org.junit.jupiter.api.Assertions.assertThrows(PostException.class, () -> p.a.qp.postSend(wr));
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertEquals(0, e.badIndex(), "bad_wr is the first WR");
            assertEquals(0, p.a.qp.sendQueueDepth(), "nothing was queued");
            assertCqEmpty(p.fabric, p.a.cq);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "INLINE: one source buffer rewritten before every post; each of 48 messages (send queue of 4, slots reused) keeps its own bytes")
    void shouldKeepEachMessageWhenOneInlineSourceIsRewrittenForEveryPost(String mode) {
        try (RcPair p = DataPathSupport.pair(mode, new QpCaps(4, 64, 2, 2, 64), 128, false)
                .connect()) {
            int n = 48;
            int len = 60;
            for (int i = 0; i < n; i++) {
                p.b.qp.postRecv(new RecvWr().wrId(i).sge(p.b.mr, 128L * i, 128));
            }
            SendWr wr = new SendWr();
            for (int i = 0; i < n; i++) {
                fill(p.a.buf, 0, len, 5000 + i);
                wr.clear()
                        .wrId(i)
                        .opcode(WrOpcode.SEND)
                        .sge(p.a.mr, 0, len)
                        .flag(SendFlag.INLINE)
                        .flag(SendFlag.SIGNALED);
                p.a.qp.postSend(wr);
                if (i % 4 == 3) {
                    List<WorkCompletion> done = poll(p.a.cq, 4);
                    for (int k = 0; k < 4; k++) {
                        assertSuccess(done.get(k), i - 3 + k, WcOpcode.SEND);
                    }
                }
            }
            List<WorkCompletion> recvs = poll(p.b.cq, n);
            ByteBuffer expected = ByteBuffer.allocate(len);
            for (int i = 0; i < n; i++) {
                assertSuccess(recvs.get(i), i, WcOpcode.RECV);
                fill(expected, 0, len, 5000 + i);
                assertBytes("inline message " + i, expected, 0, p.b.buf, 128 * i, len);
            }
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "sq_sig_all = 0: unsignaled SENDs complete nothing; the signaled WR after them is the first completion; all data arrives")
    void shouldCompleteOnlySignaledWrWhenSqSigAllIsFalse(String mode) {
        try (RcPair p = DataPathSupport.pair(mode).connect()) {
            int n = 6;
            for (int i = 0; i < n; i++) {
                p.b.qp.postRecv(new RecvWr().wrId(i).sge(p.b.mr, 1000L * i, 1000));
            }
            fill(p.a.buf, 0, 6000, 21);
            // One chain: five unsignaled SENDs, then a signaled one (ibv_post_send(3) with a WR list).
            SendWr[] wrs = new SendWr[n];
            for (int i = 0; i < n; i++) {
                wrs[i] = new SendWr().wrId(100 + i).opcode(WrOpcode.SEND).sge(p.a.mr, 1000L * i, 700 + i);
            }
            wrs[n - 1].flag(SendFlag.SIGNALED);
            p.a.qp.postSend(chain(wrs));
            expect(p.a.cq, 100 + n - 1, WcOpcode.SEND);
            List<WorkCompletion> recvs = poll(p.b.cq, n);
            for (int i = 0; i < n; i++) {
                assertSuccess(recvs.get(i), i, WcOpcode.RECV);
                assertEquals(700 + i, recvs.get(i).byteLen());
                assertBytes("message " + i, p.a.buf, 1000 * i, p.b.buf, 1000 * i, 700 + i);
            }
            // Nothing else: a later signaled WR is the very next completion.
            p.a.qp.postSend(new SendWr()
                    .wrId(999)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(60_000), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 999, WcOpcode.RDMA_WRITE);
            assertCqEmpty(p.fabric, p.a.cq);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "Unsignaled WRs are retired: with max_send_wr 4, 300 rounds of 3 unsignaled + 1 signaled WRITE never find the queue full")
    void shouldFreeSlotsOfUnsignaledWrsWhenLaterSignaledWrCompletes(String mode) {
        try (RcPair p =
                DataPathSupport.pair(mode, new QpCaps(4, 4, 1, 1, 0), 16, false).connect()) {
            int rounds = 300;
            fill(p.a.buf, 0, 4 * 64, 22);
            SendWr wr = new SendWr();
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < 4; k++) {
                    int slot = (r * 4 + k) % 1000;
                    // A PostException (ENOMEM: send queue full) here means unsignaled WQEs were not retired.
                    wr.clear()
                            .wrId(r * 4L + k)
                            .opcode(WrOpcode.RDMA_WRITE)
                            .sge(p.a.mr, 64L * k, 64)
                            .remote(p.b.addr(64L * slot), p.b.mr.rkey());
                    if (k == 3) {
                        wr.flag(SendFlag.SIGNALED);
                    }
                    p.a.qp.postSend(wr);
                }
                WorkCompletion c = poll(p.a.cq);
                assertSuccess(c, r * 4L + 3, WcOpcode.RDMA_WRITE);
            }
            for (int k = 0; k < 4; k++) {
                assertBytes(
                        "write " + k + " of the last round",
                        p.a.buf,
                        64 * k,
                        p.b.buf,
                        64 * ((rounds - 1) * 4 + k) % 64000,
                        64);
            }
            assertCqEmpty(p.fabric, p.a.cq);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName("sq_sig_all = 1: every WR completes, SIGNALED or not (ibv_create_qp(3))")
    void shouldCompleteEveryWrWhenSqSigAllIsTrue(String mode) {
        try (RcPair p = DataPathSupport.pair(mode)) {
            QueuePair x = p.a.pd.createQp(QpInitAttr.rc(p.a.cq, p.a.cq).sqSigAll(true));
            QueuePair y = p.b.pd.createQp(QpInitAttr.rc(p.b.cq, p.b.cq));
            p.connect(x, 0x10, y, 0x20);
            fill(p.a.buf, 0, 4096, 23);
            fill(p.b.buf, 8192, 4096, 24);
            p.b.buf.putLong(16_000, 5);
            y.postRecv(new RecvWr().wrId(1).sge(p.b.mr, 0, 4096));
            x.postSend(new SendWr()
                    .wrId(10)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 1500)
                    .next(new SendWr()
                            .wrId(11)
                            .opcode(WrOpcode.RDMA_WRITE)
                            .sge(p.a.mr, 0, 2000)
                            .remote(p.b.addr(4096), p.b.mr.rkey())
                            .next(new SendWr()
                                    .wrId(12)
                                    .opcode(WrOpcode.RDMA_READ)
                                    .sge(p.a.mr, 20_000, 4096)
                                    .remote(p.b.addr(8192), p.b.mr.rkey())
                                    .next(new SendWr()
                                            .wrId(13)
                                            .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                                            .sge(p.a.mr, 30_000, 8)
                                            .remote(p.b.addr(16_000), p.b.mr.rkey())
                                            .atomic(1, 0)))));
            List<WorkCompletion> wcs = poll(p.a.cq, 4);
            assertSuccess(wcs.get(0), 10, WcOpcode.SEND);
            assertSuccess(wcs.get(1), 11, WcOpcode.RDMA_WRITE);
            assertSuccess(wcs.get(2), 12, WcOpcode.RDMA_READ);
            assertSuccess(wcs.get(3), 13, WcOpcode.FETCH_ADD);
            for (WorkCompletion wc : wcs) {
                assertEquals(x.qpNum(), wc.qpNum());
                assertEquals(y.qpNum(), wc.srcQp());
            }
            expect(p.b.cq, 1, WcOpcode.RECV);
            assertBytes("SEND", p.a.buf, 0, p.b.buf, 0, 1500);
            assertBytes("WRITE", p.a.buf, 0, p.b.buf, 4096, 2000);
            assertBytes("READ", p.b.buf, 8192, p.a.buf, 20_000, 4096);
            assertEquals(5, p.a.buf.getLong(30_000));
            assertEquals(6, p.b.buf.getLong(16_000));
            assertCqEmpty(p.fabric, p.a.cq);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "Unsignaled READ and atomic: when a later signaled WR completes, their results are already in local memory")
    void shouldHaveUnsignaledReadAndAtomicResultsWhenLaterSignaledWrCompletes(String mode) {
        try (RcPair p = DataPathSupport.pair(mode).connect()) {
            fill(p.b.buf, 0, 9000, 25);
            p.b.buf.putLong(40_000, 1000);
            p.a.buf.putLong(50_000, -1);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 10_000, 9000)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                            .sge(p.a.mr, 50_000, 8)
                            .remote(p.b.addr(40_000), p.b.mr.rkey())
                            .atomic(1000, 2000)
                            .next(new SendWr()
                                    .wrId(3)
                                    .opcode(WrOpcode.RDMA_WRITE)
                                    .sge(p.a.mr, 0, 16)
                                    .remote(p.b.addr(60_000), p.b.mr.rkey())
                                    .flag(SendFlag.SIGNALED))));
            expect(p.a.cq, 3, WcOpcode.RDMA_WRITE);
            assertBytes("unsignaled READ", p.b.buf, 0, p.a.buf, 10_000, 9000);
            assertEquals(1000, p.a.buf.getLong(50_000), "unsignaled CMP_AND_SWP result");
            assertEquals(2000, p.b.buf.getLong(40_000), "unsignaled CMP_AND_SWP swapped");
            assertCqEmpty(p.fabric, p.a.cq);
            assertEngineHealthy(p.fabric);
        }
    }
}
