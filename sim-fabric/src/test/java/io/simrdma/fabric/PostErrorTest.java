package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.chain;
import static io.simrdma.fabric.ErrorPathSupport.assertNoCompletion;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Posting errors (ibv_post_send(3), ibv_post_recv(3)): a post stops at the first WR that cannot
 * be posted and returns it through bad_wr ({@link PostException#badWr()},
 * {@link PostException#badIndex()}); the WRs before it were posted and complete normally, it and
 * the ones after it were not. Sends cannot be posted in RESET, INIT or RTR, receives not in RESET;
 * in ERR both are accepted and flushed.
 */
class PostErrorTest {

    static Stream<Arguments> notReadyToSend() {
        return ErrorPathSupport.modesWith(QpState.RESET, QpState.INIT, QpState.RTR);
    }

    private static void driveA(RcPair p, QpState s) {
        if (s != QpState.RESET) {
            p.toInit(p.a.qp);
        }
        if (s == QpState.RTR) {
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
        }
        assertEquals(s, p.a.qp.state());
    }

    private static SendWr write(RcPair p, long wrId, int len) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(p.a.mr, wrId * 1024, len)
                .remote(p.b.addr(wrId * 1024), p.b.mr.rkey())
                .flag(SendFlag.SIGNALED);
    }

    private static PostException assertPostFails(Runnable post, Errno errno, int badIndex, Object badWr) {
        PostException e = assertThrows(PostException.class, post::run);
        assertEquals(errno, e.errno(), e.getMessage());
        assertEquals(badIndex, e.badIndex(), "bad_wr index: " + e.getMessage());
        assertSame(badWr, e.badWr(), "bad_wr");
        return e;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("notReadyToSend")
    @DisplayName(
            "ibv_post_send(3) / IBA 10.8.3: a send posted in RESET, INIT or RTR fails with EINVAL; nothing is queued")
    void shouldFailSendPostWithEinvalBeforeRts(String mode, QpState state) {
        try (RcPair p = pair(mode)) {
            driveA(p, state);
            SendWr first = write(p, 1, 64);
            PostException e =
                    assertPostFails(() -> p.a.qp.postSend(chain(first, write(p, 2, 64))), Errno.EINVAL, 0, first);
            assertEquals(Errno.EINVAL, e.errno());
            // connect fully: the refused WRs never show up, a new one works
            if (state == QpState.RESET) {
                p.toInit(p.a.qp);
            }
            if (state != QpState.RTR) {
                p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            }
            p.toInit(p.b.qp);
            p.toRtr(p.b.qp, p.a.dev, p.a.qp.qpNum(), p.psnA);
            p.toRts(p.a.qp, p.psnA);
            p.toRts(p.b.qp, p.psnB);
            p.a.qp.postSend(write(p, 3, 64));
            expect(p.a, 3, WcStatus.SUCCESS);
            assertNoCompletion(p.a, 20);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("ibv_post_recv(3): a receive posted in RESET fails with EINVAL; one posted in INIT is kept and used")
    void shouldFailReceivePostInResetAndAcceptItInInit(String mode) {
        try (RcPair p = pair(mode)) {
            RecvWr r = new RecvWr().wrId(10).sge(p.b.mr, 0, 256);
            assertPostFails(() -> p.b.qp.postRecv(r), Errno.EINVAL, 0, r);
            p.toInit(p.b.qp);
            p.b.qp.postRecv(new RecvWr().wrId(11).sge(p.b.mr, 0, 256));
            p.toInit(p.a.qp);
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            p.toRtr(p.b.qp, p.a.dev, p.a.qp.qpNum(), p.psnA);
            p.toRts(p.a.qp, p.psnA);
            p.toRts(p.b.qp, p.psnB);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 100)
                    .flag(SendFlag.SIGNALED));
            expect(p.b, 11, WcStatus.SUCCESS);
            expect(p.a, 1, WcStatus.SUCCESS);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_post_send(3) / IBA 10.3.1: in ERR posting is accepted and every WR, signaled or not, completes WR_FLUSH_ERR in order")
    void shouldAcceptPostsInErrAndFlushThemInOrder(String mode) {
        try (RcPair p = pair(mode).connect()) {
            p.a.qp.modify(new QpAttr().state(QpState.ERR));
            p.a.qp.postSend(chain(
                    write(p, 1, 64), new SendWr().wrId(2).opcode(WrOpcode.SEND).sge(p.a.mr, 0, 8), write(p, 3, 64)));
            p.a.qp.postRecv(new RecvWr()
                    .wrId(10)
                    .sge(p.a.mr, 0, 64)
                    .next(new RecvWr().wrId(11).sge(p.a.mr, 64, 64)));
            List<Long> sends = new ArrayList<>();
            List<Long> recvs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                WorkCompletion wc = p.a.poll();
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc.toString());
                (wc.wrId() >= 10 ? recvs : sends).add(wc.wrId());
            }
            assertEquals(List.of(1L, 2L, 3L), sends, "send flushes in post order, the unsignaled one included");
            assertEquals(List.of(10L, 11L), recvs, "receive flushes in post order");
            assertNoCompletion(p.a, 20);
            assertEquals(0, p.a.qp.counters().get(Counter.PACKETS_SENT));
            assertNoCompletion(p.b, 1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_post_send(3): a full send queue fails the post with ENOMEM at the first WR that does not fit; earlier ones complete")
    void shouldStopAtTheFirstWrThatFindsTheSendQueueFull(String mode) {
        try (RcPair p = pair(mode, new QpCaps(4, 16, 4, 4, 64), 64)) {
            p.connect();
            p.link().setUp(false); // nothing can complete while the chain is posted
            SendWr[] wrs = new SendWr[6];
            for (int i = 0; i < wrs.length; i++) {
                wrs[i] = write(p, i + 1, 128);
            }
            RcPair.fill(p.a.buf, 0, 8192, 31);
            assertPostFails(() -> p.a.qp.postSend(chain(wrs)), Errno.ENOMEM, 4, wrs[4]);
            p.link().setUp(true); // the ACK timeout retransmits the four posted WRITEs
            for (int i = 1; i <= 4; i++) {
                expect(p.a, i, WcStatus.SUCCESS);
                RcPair.assertBytes(p.a.buf, i * 1024, p.b.buf, i * 1024, 128);
            }
            assertNoCompletion(p.a, 20);
            assertEquals(0, p.b.buf.get(5 * 1024 + 1), "WR 5 was never posted");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("ibv_post_recv(3): a full receive queue fails the post with ENOMEM at the first WR that does not fit")
    void shouldStopAtTheFirstWrThatFindsTheReceiveQueueFull(String mode) {
        try (RcPair p = pair(mode, new QpCaps(16, 4, 4, 4, 64), 64)) {
            p.connect();
            RecvWr[] wrs = new RecvWr[6];
            for (int i = 0; i < wrs.length; i++) {
                wrs[i] = new RecvWr().wrId(100 + i).sge(p.b.mr, i * 1024L, 1024);
                if (i > 0) {
                    wrs[i - 1].next(wrs[i]);
                }
            }
            assertPostFails(() -> p.b.qp.postRecv(wrs[0]), Errno.ENOMEM, 4, wrs[4]);
            for (int i = 0; i < 4; i++) {
                p.a.qp.postSend(new SendWr()
                        .wrId(i)
                        .opcode(WrOpcode.SEND)
                        .sge(p.a.mr, 0, 16)
                        .flag(SendFlag.SIGNALED));
            }
            for (int i = 0; i < 4; i++) {
                expect(p.b, 100 + i, WcStatus.SUCCESS);
                expect(p.a, i, WcStatus.SUCCESS);
            }
            assertNoCompletion(p.b, 20);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_post_send(3): a WR with more SGEs than max_send_sge fails with EINVAL; the WRs before it complete")
    void shouldStopAtTheFirstSendWrWithTooManySges(String mode) {
        try (RcPair p = pair(mode, new QpCaps(16, 16, 2, 2, 64), 64)) {
            p.connect();
            RcPair.fill(p.a.buf, 0, 8192, 32);
            SendWr one = write(p, 1, 100);
            SendWr two = new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 2048, 50)
                    .sge(p.a.mr, 4096, 50)
                    .remote(p.b.addr(2048), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED);
            SendWr three = new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 8)
                    .sge(p.a.mr, 8, 8)
                    .sge(p.a.mr, 16, 8)
                    .remote(p.b.addr(6000), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED);
            SendWr four = write(p, 4, 100);
            assertPostFails(() -> p.a.qp.postSend(chain(one, two, three, four)), Errno.EINVAL, 2, three);
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.a, 2, WcStatus.SUCCESS);
            RcPair.assertBytes(p.a.buf, 2048, p.b.buf, 2048, 50);
            RcPair.assertBytes(p.a.buf, 4096, p.b.buf, 2098, 50);
            assertNoCompletion(p.a, 20);
            assertEquals(0, p.b.buf.get(4096 + 1), "WR 4 was never posted");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_post_recv(3): a receive WR with more SGEs than max_recv_sge fails with EINVAL; the WRs before it are posted")
    void shouldStopAtTheFirstReceiveWrWithTooManySges(String mode) {
        try (RcPair p = pair(mode, new QpCaps(16, 16, 2, 2, 64), 64)) {
            p.connect();
            RecvWr ok = new RecvWr().wrId(100).sge(p.b.mr, 0, 64).sge(p.b.mr, 64, 64);
            RecvWr bad =
                    new RecvWr().wrId(101).sge(p.b.mr, 0, 8).sge(p.b.mr, 8, 8).sge(p.b.mr, 16, 8);
            RecvWr after = new RecvWr().wrId(102).sge(p.b.mr, 0, 64);
            assertPostFails(() -> p.b.qp.postRecv(ok.next(bad.next(after))), Errno.EINVAL, 1, bad);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 100)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = expect(p.b, 100, WcStatus.SUCCESS);
            assertEquals(100, r.byteLen());
            expect(p.a, 1, WcStatus.SUCCESS);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_post_send(3): inline data longer than max_inline_data fails with EINVAL; inline data is copied at post")
    void shouldStopAtTheFirstWrWithTooLongInlineData(String mode) {
        try (RcPair p = pair(mode, new QpCaps(16, 16, 4, 4, 64), 64)) {
            p.connect();
            RcPair.fill(p.a.buf, 0, 256, 33);
            byte[] original = new byte[64];
            p.a.buf.get(0, original);
            SendWr fits = new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 32)
                    .sge(p.a.mr, 32, 32)
                    .flag(SendFlag.INLINE)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED);
            SendWr tooLong = new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 65)
                    .flag(SendFlag.INLINE)
                    .flag(SendFlag.SIGNALED);
            assertPostFails(() -> p.a.qp.postSend(fits.next(tooLong)), Errno.EINVAL, 1, tooLong);
            // ibv_post_send(3): with INLINE the buffer may be reused as soon as the call returns
            ErrorPathSupport.fill(p.a.buf, 0, 64, (byte) 0);
            expect(p.a, 1, WcStatus.SUCCESS);
            for (int i = 0; i < 64; i++) {
                assertEquals(original[i], p.b.buf.get(i), "inline byte " + i + " as it was at post time");
            }
            assertNoCompletion(p.a, 20);
        }
    }

    static Stream<Arguments> inlineRefused() {
        return ErrorPathSupport.modesWith(
                WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("inlineRefused")
    @DisplayName(
            "ibv_post_send(3): IBV_SEND_INLINE is valid only for SEND and RDMA WRITE; on a READ or atomic it is EINVAL")
    void shouldFailInlineOnAnOpcodeThatCarriesNoData(String mode, WrOpcode op) {
        try (RcPair p = pair(mode).connect()) {
            SendWr before = write(p, 1, 16);
            SendWr bad = new SendWr()
                    .wrId(2)
                    .opcode(op)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .flag(SendFlag.INLINE)
                    .flag(SendFlag.SIGNALED);
            assertPostFails(() -> p.a.qp.postSend(before.next(bad)), Errno.EINVAL, 1, bad);
            expect(p.a, 1, WcStatus.SUCCESS);
            assertNoCompletion(p.a, 20);
            assertEquals(QpState.RTS, p.a.qp.state());
        }
    }
}
