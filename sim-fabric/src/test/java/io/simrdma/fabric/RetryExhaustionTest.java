package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.Recorder;
import static io.simrdma.fabric.ErrorPathSupport.assertNoCompletion;
import static io.simrdma.fabric.ErrorPathSupport.await;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.wire.Opcode;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transport retries under a partition (IBA 9.7.6.1.3): the local ACK timeout is
 * 4.096 us x 2^timeout (0: infinite); after retry_cnt retries the oldest WR completes with
 * RETRY_EXC_ERR, the QP enters ERR and every later WR is flushed in post order.
 */
class RetryExhaustionTest {

    private static final int WRS = 4;

    /** Posts {@link #WRS} signaled SENDs of 512 bytes (b has receives for them). */
    private static void postSends(RcPair p) {
        for (int i = 0; i < WRS; i++) {
            p.b.qp.postRecv(new RecvWr().wrId(100 + i).sge(p.b.mr, i * 1024L, 1024));
        }
        SendWr chain = null;
        for (int i = WRS; i >= 1; i--) {
            chain = new SendWr()
                    .wrId(i)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, i * 512L, 512)
                    .flag(SendFlag.SIGNALED)
                    .next(chain);
        }
        p.a.qp.postSend(chain);
    }

    private static void assertExhaustedAndFlushedInOrder(RcPair p) {
        expect(p.a, 1, WcStatus.RETRY_EXC_ERR);
        for (int i = 2; i <= WRS; i++) {
            expect(p.a, i, WcStatus.WR_FLUSH_ERR);
        }
        awaitState(p.fabric, p.a.qp, QpState.ERR);
    }

    static long ackTimeoutNanos(int timeout) {
        return 4096L << timeout; // 4.096 us x 2^timeout
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.7.6.1.3: partitioned, the first WR completes RETRY_EXC_ERR and the rest WR_FLUSH_ERR in post order")
    void shouldCompleteFirstWithRetryExcErrAndFlushTheRestInPostOrderWhenPartitioned(String mode) {
        try (RcPair p = pair(mode)) {
            p.timeout = 12; // 16.8 ms
            p.retryCnt = 2;
            p.connect();
            p.link().setUp(false);
            postSends(p);
            assertExhaustedAndFlushedInOrder(p);
            assertEquals(3, p.a.qp.counters().get(Counter.RETRY_TIMEOUTS), "retry_cnt + 1 timeouts");
            assertTrue(p.a.qp.counters().get(Counter.RETRANSMITTED_PACKETS) >= 2, "each retry resends");
            // the responder never saw anything: still RTS, receives still posted
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoCompletion(p.b, 10);
        }
    }

    @ParameterizedTest(name = "timeout={0} retry_cnt={1}")
    @CsvSource({"1, 0", "5, 3", "10, 7", "14, 7", "20, 1", "31, 0"})
    @DisplayName(
            "IBA 9.7.6.1.3: from the first send to RETRY_EXC_ERR takes exactly (retry_cnt + 1) x 4.096 us x 2^timeout")
    void shouldReachRetryExcErrAfterRetryCntPlusOneAckTimeouts(int timeout, int retryCnt) {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.timeout = timeout;
            p.retryCnt = retryCnt;
            p.connect();
            Recorder rec = new Recorder();
            p.fabric.addTraceListener(rec);
            p.link().setUp(false);
            postSends(p);
            assertTrue(p.a.cq.awaitCompletions(WRS, (retryCnt + 2) * ackTimeoutNanos(timeout), TimeUnit.NANOSECONDS));
            assertExhaustedAndFlushedInOrder(p);
            long elapsed = rec.entered(p.a.qp, QpState.ERR) - rec.firstSent(p.a.dev);
            assertEquals(
                    (retryCnt + 1) * ackTimeoutNanos(timeout), elapsed, "virtual ns from the first send to the error");
            assertEquals(retryCnt + 1, p.a.qp.counters().get(Counter.RETRY_TIMEOUTS));
            // every retry resends all four one-packet messages (go-back-N)
            assertEquals((long) retryCnt * WRS, p.a.qp.counters().get(Counter.RETRANSMITTED_PACKETS));
        }
    }

    @Test
    @DisplayName(
            "Link.downAt: a link that fails while the first packet is in flight; timing counts from that first send")
    void shouldReachRetryExcErrWhenLinkGoesDownAtAScheduledTime() {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.timeout = 9;
            p.retryCnt = 3;
            p.connect();
            // a first message gets through while the link is up
            p.b.qp.postRecv(new RecvWr().wrId(99).sge(p.b.mr, 8192, 64));
            p.a.qp.postSend(new SendWr()
                    .wrId(0)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 64)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 0, WcStatus.SUCCESS);
            expect(p.b, 99, WcStatus.SUCCESS);

            Recorder rec = new Recorder();
            p.fabric.addTraceListener(rec);
            long start = p.fabric.now();
            p.link().downAt(start + 500); // before the next packets (1 us latency) arrive
            postSends(p);
            assertExhaustedAndFlushedInOrder(p);
            assertEquals(start, rec.firstSent(p.a.dev));
            assertEquals(4 * ackTimeoutNanos(9), rec.entered(p.a.qp, QpState.ERR) - start);
            assertFalse(p.link().isUp());
        }
    }

    @Test
    @DisplayName("IBA 9.7.6.1.3: timeout 0 means an infinite ACK timeout: a lost message never times out")
    void shouldNeverTimeOutWhenTimeoutIsZero() {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.timeout = 0;
            p.retryCnt = 1; // the sequence NAK below costs one retry
            p.connect();
            p.link().setUp(false);
            p.b.qp.postRecv(new RecvWr()
                    .wrId(100)
                    .sge(p.b.mr, 0, 1024)
                    .next(new RecvWr().wrId(101).sge(p.b.mr, 1024, 1024)));
            RcPair.fill(p.a.buf, 0, 512, 3);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 512)
                    .flag(SendFlag.SIGNALED));
            // an hour of virtual time: no timer is even armed
            p.fabric.deterministicScheduler().advanceTime(TimeUnit.HOURS.toNanos(1));
            assertEquals(0, p.fabric.deterministicScheduler().pending(), "no ACK timer may be pending");
            assertEquals(0, p.a.cq.size());
            assertEquals(QpState.RTS, p.a.qp.state());
            assertEquals(0, p.a.qp.counters().get(Counter.RETRY_TIMEOUTS));

            // once the link is back, a later message exposes the gap: a sequence NAK makes the
            // requester go back and both messages arrive, in order
            p.link().setUp(true);
            RcPair.fill(p.a.buf, 512, 512, 4);
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 512, 512)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.a, 2, WcStatus.SUCCESS);
            expect(p.b, 100, WcStatus.SUCCESS);
            expect(p.b, 101, WcStatus.SUCCESS);
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 0, 512);
            RcPair.assertBytes(p.a.buf, 512, p.b.buf, 1024, 512);
            assertEquals(1, p.b.qp.counters().get(Counter.NAK_SEQ_ERR_SENT));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.7.6.1.3: a link that comes back before retry_cnt is exhausted recovers; data arrives intact and in order")
    void shouldRecoverWithDataIntactWhenLinkComesBackBeforeExhaustion(String mode) {
        try (RcPair p = pair(mode)) {
            p.timeout = 12; // 16.8 ms
            p.retryCnt = 7;
            p.connect();
            Link link = p.link();
            link.setUp(false);
            RcPair.fill(p.a.buf, 0, 10_000, 17);
            RcPair.fill(p.a.buf, 20_000, 3000, 18);
            p.b.qp.postRecv(new RecvWr().wrId(100).sge(p.b.mr, 40_000, 4096));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 10_000)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.SEND)
                            .sge(p.a.mr, 20_000, 3000)
                            .flag(SendFlag.SIGNALED)));
            if (ErrorPathSupport.deterministic(p)) {
                // up just before the 3rd timeout: the 3rd retransmission gets through
                link.upAt(p.fabric.now() + 3 * ackTimeoutNanos(12) - 1_000);
            } else {
                assertTrue(await(p.fabric, () -> p.a.qp.counters().get(Counter.RETRY_TIMEOUTS) >= 2, 5_000));
                link.setUp(true);
            }
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.a, 2, WcStatus.SUCCESS);
            WorkCompletion r = expect(p.b, 100, WcStatus.SUCCESS);
            assertEquals(3000, r.byteLen());
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 0, 10_000);
            RcPair.assertBytes(p.a.buf, 20_000, p.b.buf, 40_000, 3000);
            long timeouts = p.a.qp.counters().get(Counter.RETRY_TIMEOUTS);
            assertTrue(timeouts >= 2 && timeouts <= 7, "timeouts before recovery: " + timeouts);
            assertEquals(QpState.RTS, p.a.qp.state());
            assertEquals(QpState.RTS, p.b.qp.state());
            assertTrue(p.a.qp.counters().get(Counter.RETRANSMITTED_PACKETS) > 0);
            if (ErrorPathSupport.deterministic(p)) {
                assertEquals(3, timeouts);
                assertEquals(
                        0,
                        p.b.qp.counters().get(Counter.DUPLICATE_REQUESTS),
                        "nothing reached b before the link came back");
            }
        }
    }

    @Test
    @DisplayName("IBA 9.7.6.1.3: the write's packets are retransmitted as first sent (same PSNs)")
    void shouldRetransmitTheSamePsnsAfterATimeout() {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.timeout = 10;
            p.retryCnt = 1;
            p.connect();
            Recorder rec = new Recorder();
            p.fabric.addTraceListener(rec);
            p.link().setUp(false);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 3000)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.RETRY_EXC_ERR);
            int first = Opcode.RC_RDMA_WRITE_FIRST.value();
            int middle = Opcode.RC_RDMA_WRITE_MIDDLE.value();
            int last = Opcode.RC_RDMA_WRITE_LAST.value();
            assertEquals(1, rec.count(PacketEvent.SENT, p.a.dev, first, p.psnA));
            assertEquals(1, rec.count(PacketEvent.RETRANSMITTED, p.a.dev, first, p.psnA));
            assertEquals(1, rec.count(PacketEvent.RETRANSMITTED, p.a.dev, middle, p.psnA + 1));
            assertEquals(1, rec.count(PacketEvent.RETRANSMITTED, p.a.dev, last, p.psnA + 2));
        }
    }

    static Stream<Arguments> modesAndOpcodes() {
        return ErrorPathSupport.modesWith(
                WrOpcode.RDMA_WRITE,
                WrOpcode.RDMA_READ,
                WrOpcode.ATOMIC_CMP_AND_SWP,
                WrOpcode.ATOMIC_FETCH_AND_ADD,
                WrOpcode.SEND_WITH_IMM);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modesAndOpcodes")
    @DisplayName(
            "IBA 9.7.6.1.3: READs, atomics and writes exhaust their retries the same way; nothing is placed locally")
    void shouldCompleteRetryExcErrForEveryOpcodeWhenPartitioned(String mode, WrOpcode op) {
        try (RcPair p = pair(mode)) {
            p.timeout = 10; // 4.2 ms
            p.retryCnt = 1;
            p.connect();
            p.link().setUp(false);
            ErrorPathSupport.fill(p.a.buf, 0, 4096, ErrorPathSupport.CANARY);
            p.b.qp.postRecv(new RecvWr().wrId(100).sge(p.b.mr, 0, 4096));
            int len = op.isAtomic() ? 8 : 3000;
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(op)
                    .sge(p.a.mr, 0, len)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .atomic(0, 1)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.RDMA_WRITE)
                            .sge(p.a.mr, 8192, 8)
                            .remote(p.b.addr(0), p.b.mr.rkey())));
            expect(p.a, 1, WcStatus.RETRY_EXC_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR); // unsignaled, flushed all the same
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            ErrorPathSupport.assertUntouched(p.a.buf, 0, 4096, ErrorPathSupport.CANARY, op + ": local buffer");
            assertEquals(2, p.a.qp.counters().get(Counter.RETRY_TIMEOUTS));
        }
    }
}
