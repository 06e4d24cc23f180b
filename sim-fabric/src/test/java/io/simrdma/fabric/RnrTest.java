package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.Recorder;
import static io.simrdma.fabric.ErrorPathSupport.assertNoCompletion;
import static io.simrdma.fabric.ErrorPathSupport.await;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Receiver Not Ready (IBA 9.7.5.2.8): a SEND that finds no receive WQE is answered with an RNR
 * NAK carrying the responder's min_rnr_timer (table 45, {@link Aeth#rnrTimerNanos}); the
 * requester waits that long and sends again, rnr_retry times (7: forever), then completes the
 * WR with RNR_RETRY_EXC_ERR and moves to ERR.
 */
class RnrTest {

    private static final int PAYLOAD = 32; // a multiple of 4: no pad bytes

    private static SendWr send(RcPair p, long wrId) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.SEND)
                .sge(p.a.mr, 0, PAYLOAD)
                .flag(SendFlag.SIGNALED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("IBA 9.7.5.2.8: with rnr_retry 7 a SEND retried after RNR NAKs succeeds once a receive is posted")
    void shouldRecoverWhenReceiveIsPostedLaterWithInfiniteRnrRetry(String mode) {
        try (RcPair p = pair(mode)) {
            p.rnrRetry = 7;
            p.minRnrTimer = 1; // 10 us
            p.connect();
            RcPair.fill(p.a.buf, 0, PAYLOAD, 21);
            p.a.qp.postSend(send(p, 1));
            assertTrue(
                    await(p.fabric, () -> p.a.qp.counters().get(Counter.RNR_NAK_RECEIVED) >= 3, 5_000),
                    "the requester keeps retrying: " + p.a.qp.counters());
            assertEquals(0, p.a.cq.size(), "no completion while the receiver is not ready");
            assertEquals(QpState.RTS, p.a.qp.state());

            p.b.qp.postRecv(new RecvWr().wrId(100).sge(p.b.mr, 4096, 1024));
            WorkCompletion r = expect(p.b, 100, WcStatus.SUCCESS);
            assertEquals(PAYLOAD, r.byteLen());
            expect(p.a, 1, WcStatus.SUCCESS);
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 4096, PAYLOAD);

            long naksSent = p.b.qp.counters().get(Counter.RNR_NAK_SENT);
            assertTrue(naksSent >= 3, "RNR NAKs sent: " + naksSent);
            assertEquals(naksSent, p.a.qp.counters().get(Counter.RNR_NAK_RECEIVED), "every RNR NAK sent was received");
            assertEquals(naksSent, p.a.qp.counters().get(Counter.RNR_RETRIES), "one retry per RNR NAK");
            assertEquals(naksSent, p.b.dev.counters().get(Counter.RNR_NAK_SENT), "device counter sums its QPs");
            assertEquals(QpState.RTS, p.a.qp.state());
            assertEquals(QpState.RTS, p.b.qp.state());
        }
    }

    static Stream<Arguments> retryCounts() {
        return ErrorPathSupport.modesWith(0, 1, 3, 6);
    }

    @ParameterizedTest(name = "{0} rnr_retry={1}")
    @MethodSource("retryCounts")
    @DisplayName(
            "IBA 9.7.5.2.8: rnr_retry n < 7 gives up after exactly n retries with RNR_RETRY_EXC_ERR; later WRs flush")
    void shouldCompleteRnrRetryExcErrAfterExactlyRnrRetryRetries(String mode, int n) {
        try (RcPair p = pair(mode)) {
            p.rnrRetry = n;
            p.minRnrTimer = 1;
            p.connect();
            Recorder rec = new Recorder();
            p.fabric.addTraceListener(rec);
            p.a.qp.postSend(send(p, 1).next(send(p, 2)));

            expect(p.a, 1, WcStatus.RNR_RETRY_EXC_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(n, p.a.qp.counters().get(Counter.RNR_RETRIES), "retries");
            assertEquals(n + 1, p.a.qp.counters().get(Counter.RNR_NAK_RECEIVED), "RNR NAKs received");
            // the responder counts a NAK just after sending it: under the threaded scheduler the
            // requester may complete before that count is visible
            await(p.fabric, () -> p.b.qp.counters().get(Counter.RNR_NAK_SENT) >= n + 1, 5_000);
            assertEquals(n + 1, p.b.qp.counters().get(Counter.RNR_NAK_SENT), "RNR NAKs sent");
            int sendOnly = Opcode.RC_SEND_ONLY.value();
            assertEquals(1, rec.count(PacketEvent.SENT, p.a.dev, sendOnly, p.psnA), "first transmission of the SEND");
            assertEquals(
                    n, rec.count(PacketEvent.RETRANSMITTED, p.a.dev, sendOnly, p.psnA), "retransmissions of the SEND");
            // RNR is not an error for the responder (IBA 9.7.5.2.8): it stays usable
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoCompletion(p.b, 10);
        }
    }

    /** Nanoseconds a packet of {@code op} with {@code payload} bytes occupies a link of {@code c}. */
    static long serialization(LinkConfig c, Opcode op, int payload) {
        int pad = (4 - payload % 4) % 4;
        return c.serializationNanos(op.headerLength() + payload + pad + Packet.ICRC_LENGTH);
    }

    /**
     * Virtual time from the first SEND to the RNR_RETRY_EXC_ERR: n + 1 round trips (the SEND and
     * its RNR NAK, each with latency and serialization) and n waits of the RNR timer.
     */
    static long expectedTimeToRnrError(LinkConfig c, int n, int timerCode) {
        long roundTrip = 2 * c.latencyNanos()
                + serialization(c, Opcode.RC_SEND_ONLY, PAYLOAD)
                + serialization(c, Opcode.RC_ACKNOWLEDGE, 0);
        return (n + 1) * roundTrip + n * Aeth.rnrTimerNanos(timerCode);
    }

    @ParameterizedTest(name = "rnr_retry={0} min_rnr_timer={1} latency={2}ns bandwidth={3}")
    @CsvSource({
        "0, 1, 1000, 100000000000",
        "1, 0, 1000, 100000000000", // code 0 is the longest timer: 655.36 ms
        "3, 14, 3000, 10000000000",
        "6, 31, 1000, 100000000000",
        "2, 5, 0, 0", // instant link: only the timer counts
        "5, 18, 500, 25000000000",
    })
    @DisplayName("IBA 9.7.5.2.8, table 45: time to RNR_RETRY_EXC_ERR = (n+1) round trips + n x the min_rnr_timer value")
    void shouldReachRnrRetryExcErrAtTheTimeTheRnrTimerTableGives(int n, int code, long latency, long bandwidth) {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.rnrRetry = n;
            p.minRnrTimer = code;
            p.connect();
            LinkConfig c = new LinkConfig(latency, bandwidth);
            p.link().config(c);
            Recorder rec = new Recorder();
            p.fabric.addTraceListener(rec);
            p.a.qp.postSend(send(p, 1));
            expect(p.a, 1, WcStatus.RNR_RETRY_EXC_ERR);
            long elapsed = rec.entered(p.a.qp, QpState.ERR) - rec.firstSent(p.a.dev);
            assertEquals(
                    expectedTimeToRnrError(c, n, code),
                    elapsed,
                    "virtual ns from the first SEND to the error (timer " + Aeth.rnrTimerNanos(code) + " ns)");
            assertEquals(n, p.a.qp.counters().get(Counter.RNR_RETRIES));
        }
    }

    @Test
    @DisplayName(
            "IBA 9.7.5.2.8: the wait is the responder's min_rnr_timer (carried in the NAK), changed RTS->RTS, not the requester's")
    void shouldWaitTheRnrTimerTheResponderAdvertises() {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.rnrRetry = 2;
            p.minRnrTimer = 31; // both QPs: 491.52 ms
            p.connect();
            p.b.qp.modify(new QpAttr().minRnrTimer(3)); // RTS -> RTS: the responder now advertises 0.03 ms
            assertEquals(3, p.b.qp.query().minRnrTimer());
            assertEquals(31, p.a.qp.query().minRnrTimer());
            Recorder rec = new Recorder();
            p.fabric.addTraceListener(rec);
            p.a.qp.postSend(send(p, 1));
            expect(p.a, 1, WcStatus.RNR_RETRY_EXC_ERR);
            long elapsed = rec.entered(p.a.qp, QpState.ERR) - rec.firstSent(p.a.dev);
            assertEquals(expectedTimeToRnrError(p.link().config(), 2, 3), elapsed);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("IBA 9.7.5.1.3: an RNR NAK for a later SEND acknowledges the earlier one, which completes SUCCESS")
    void shouldCompleteEarlierSendWhenALaterOneIsRnrNaked(String mode) {
        try (RcPair p = pair(mode)) {
            p.rnrRetry = 1;
            p.minRnrTimer = 1;
            p.connect();
            p.b.qp.postRecv(new RecvWr().wrId(100).sge(p.b.mr, 0, 1024)); // room for the first SEND only
            RcPair.fill(p.a.buf, 0, PAYLOAD, 22);
            p.a.qp.postSend(send(p, 1).next(send(p, 2)));
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.a, 2, WcStatus.RNR_RETRY_EXC_ERR);
            expect(p.b, 100, WcStatus.SUCCESS);
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 0, PAYLOAD);
            assertEquals(1, p.a.qp.counters().get(Counter.RNR_RETRIES));
            assertEquals(QpState.RTS, p.b.qp.state());
        }
    }

    @Test
    @DisplayName(
            "IBA 10.3.1: a SEND waiting out an RNR back-off is flushed by a move to ERR; the RNR timer then does nothing")
    void shouldFlushASendWaitingOutAnRnrBackoff() {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.rnrRetry = 7;
            p.minRnrTimer = 0; // 655.36 ms back-off
            p.connect();
            p.a.qp.postSend(send(p, 1).next(send(p, 2)));
            assertTrue(await(p.fabric, () -> p.a.qp.counters().get(Counter.RNR_NAK_RECEIVED) == 1, 1_000));
            p.a.qp.modify(new QpAttr().state(QpState.ERR));
            expect(p.a, 1, WcStatus.WR_FLUSH_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            p.fabric.deterministicScheduler().advanceTime(Aeth.rnrTimerNanos(0) * 3);
            assertEquals(0, p.a.qp.counters().get(Counter.RNR_RETRIES), "no retry after the flush");
            assertEquals(1, p.b.qp.counters().get(Counter.RNR_NAK_SENT));
            assertNoCompletion(p.a, 10);
        }
    }
}
