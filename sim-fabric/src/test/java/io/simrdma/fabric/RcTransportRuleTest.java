package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.DET;
import static io.simrdma.fabric.ErrorPathSupport.assertNoCompletion;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.modesWith;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The classic RC transport cases, each produced by a scripted fault (a rewritten, dropped or
 * injected packet, or a misconfigured PSN) and checked against the rule of the InfiniBand
 * Architecture Specification (IBA, vol. 1, chapter 9) it exercises, on the deterministic and the
 * threaded fabric. The TCP variant of the rewrite-on-the-wire case is in
 * {@code tcp.TcpFaultTest}.
 */
class RcTransportRuleTest {

    private static final int MTU = 1024;

    /** One packet event, copied out of the pooled packet. */
    record Pkt(PacketEvent event, String from, Opcode opcode, int psn, boolean retx, long va, long len, int syndrome) {}

    /** Records every packet event with the fields these rules are about. */
    static final class Wire implements TraceListener {
        final List<Pkt> events = new ArrayList<>();

        @Override
        public synchronized void onPacket(
                PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            Opcode op = p.opcode();
            events.add(new Pkt(
                    event,
                    from == null ? null : from.name(),
                    op,
                    p.psn(),
                    p.retransmission(),
                    op.has(HeaderType.RETH) ? p.rethVa() : -1,
                    op.has(HeaderType.RETH) ? Integer.toUnsignedLong(p.rethLength()) : -1,
                    op.has(HeaderType.AETH) ? p.aethSyndrome() : -1));
        }

        synchronized List<Pkt> sent(String from, Predicate<Pkt> which) {
            return events.stream()
                    .filter(e -> (e.event() == PacketEvent.SENT || e.event() == PacketEvent.RETRANSMITTED)
                            && from.equals(e.from())
                            && which.test(e))
                    .collect(Collectors.toList());
        }

        synchronized List<Pkt> retransmitted(String from) {
            return events.stream()
                    .filter(e -> e.event() == PacketEvent.RETRANSMITTED && from.equals(e.from()))
                    .collect(Collectors.toList());
        }
    }

    /**
     * A pair whose ACK timeout (1.07 s on the threaded fabric) cannot fire while a case runs, so
     * that every retransmission counted is the one the rule under test causes.
     */
    private static RcPair quietPair(String mode) {
        RcPair p = pair(mode);
        if (!mode.equals(DET)) {
            p.timeout = 18;
        }
        return p;
    }

    private static Wire wire(RcPair p) {
        Wire w = new Wire();
        p.fabric.addTraceListener(w);
        return w;
    }

    private static long count(QueuePair qp, Counter c) {
        return qp.counters().get(c);
    }

    private static long naksSent(QueuePair qp) {
        return count(qp, Counter.NAK_SEQ_ERR_SENT)
                + count(qp, Counter.NAK_INV_REQ_SENT)
                + count(qp, Counter.NAK_REM_ACCESS_SENT)
                + count(qp, Counter.NAK_REM_OP_SENT)
                + count(qp, Counter.RNR_NAK_SENT);
    }

    private static void postRead(RcPair p, long wrId, int len) {
        p.a.qp.postSend(new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.RDMA_READ)
                .sge(p.a.mr, 0, len)
                .remote(p.b.addr(0), p.b.mr.rkey())
                .flag(SendFlag.SIGNALED));
    }

    // ------------------------------------------------------------------ implied NAK

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.7.5.1 implied NAK: a READ response numbered ahead of the expected PSN makes the requester send the READ again; it completes with the data")
    void shouldResendTheReadAndCompleteWhenAResponseIsNumberedAheadOfTheExpectedPsn(String mode) {
        try (RcPair p = quietPair(mode)) {
            p.connect();
            Wire w = wire(p);
            FaultRule ahead = FaultRule.rewrite(
                    PacketMatcher.nth(1, PacketMatcher.readResponses().and(PacketMatcher.toQp(p.a.qp))),
                    PacketRewrite.psnShift(1));
            p.link().addFault(ahead);
            RcPair.fill(p.b.buf, 0, 4 * MTU, 1);
            postRead(p, 1, 4 * MTU);
            expect(p.a, 1, WcStatus.SUCCESS);
            RcPair.assertBytes(p.b.buf, 0, p.a.buf, 0, 4 * MTU);
            assertEquals(1, ahead.hits());
            List<Pkt> reads = w.sent("a", e -> e.opcode() == Opcode.RC_RDMA_READ_REQUEST);
            assertEquals(2, reads.size(), "the READ and its retry: " + reads);
            Pkt retry = reads.get(1);
            assertTrue(retry.retx(), "sent again: " + retry);
            assertEquals(p.psnA, retry.psn(), "from the PSN the missing response stands for");
            assertEquals(p.b.addr(0), retry.va());
            assertEquals(4 * MTU, retry.len());
            assertEquals(1, count(p.b.qp, Counter.DUPLICATE_REQUESTS), "answered again, not executed again");
            assertEquals(0, naksSent(p.b.qp));
            if (mode.equals(DET)) {
                assertEquals(
                        0,
                        count(p.a.qp, Counter.RETRY_TIMEOUTS),
                        "retried at once, without waiting for the ACK timeout");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.7.6.1.3 with the implied NAK: retry_cnt 0 leaves no retry: the READ completes RETRY_EXC_ERR and the requester goes to ERR")
    void shouldFailTheReadWithRetryExcErrWhenAResponseIsAheadAndRetryCntIsZero(String mode) {
        try (RcPair p = quietPair(mode)) {
            p.retryCnt = 0;
            p.connect();
            Wire w = wire(p);
            p.link()
                    .addFault(FaultRule.rewrite(
                            PacketMatcher.nth(1, PacketMatcher.readResponses().and(PacketMatcher.toQp(p.a.qp))),
                            PacketRewrite.psnShift(1)));
            postRead(p, 1, 4 * MTU);
            expect(p.a, 1, WcStatus.RETRY_EXC_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(
                    1,
                    w.sent("a", e -> e.opcode() == Opcode.RC_RDMA_READ_REQUEST).size(),
                    "never sent again");
            assertEquals(QpState.RTS, p.b.qp.state(), "the responder did nothing wrong");
        }
    }

    // ------------------------------------------------------------------ unexpected opcode

    static Stream<Arguments> unexpectedResponses() {
        return modesWith(Opcode.RC_RDMA_READ_RESPONSE_ONLY, Opcode.RC_ATOMIC_ACKNOWLEDGE);
    }

    @ParameterizedTest(name = "{0}: the ACK of a SEND arrives as {1}")
    @MethodSource("unexpectedResponses")
    @DisplayName(
            "IBA 9.9.2 (unexpected opcode) / ibv_poll_cq(3) IBV_WC_BAD_RESP_ERR: a response the outstanding SEND cannot take fails it and moves the requester to ERR")
    void shouldCompleteBadRespErrWhenTheResponseOpcodeDoesNotFitTheRequest(String mode, Opcode opcode) {
        try (RcPair p = pair(mode)) {
            p.connect();
            FaultRule rule = FaultRule.rewrite(
                            PacketMatcher.acks().and(PacketMatcher.toQp(p.a.qp)), PacketRewrite.opcode(opcode))
                    .times(1);
            p.link().addFault(rule);
            p.b.qp.postRecv(new RecvWr().wrId(10).sge(p.b.mr, 0, 256));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 64)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.BAD_RESP_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 64)
                    .remote(p.b.addr(1024), p.b.mr.rkey()));
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            expect(p.b, 10, WcStatus.SUCCESS);
            assertEquals(QpState.RTS, p.b.qp.state(), "the responder is not at fault");
            assertEquals(1, rule.hits());
            assertTrue(count(p.a.qp, Counter.INVALID_PACKETS) >= 1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.9.2 / ibv_poll_cq(3) IBV_WC_BAD_RESP_ERR: a READ response Middle where First or Only is due fails the READ; the requester goes to ERR")
    void shouldCompleteBadRespErrWhenAReadResponseMiddleArrivesWithoutFirst(String mode) {
        try (RcPair p = pair(mode)) {
            p.connect();
            p.link()
                    .addFault(FaultRule.rewrite(
                                    PacketMatcher.opcode(Opcode.RC_RDMA_READ_RESPONSE_ONLY),
                                    PacketRewrite.opcode(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE))
                            .times(1));
            RcPair.fill(p.b.buf, 0, 512, 8);
            RcPair.fill(p.a.buf, 0, 512, 9);
            postRead(p, 1, 512);
            expect(p.a, 1, WcStatus.BAD_RESP_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            ByteBuffer before = ByteBuffer.allocate(512);
            RcPair.fill(before, 0, 512, 9);
            RcPair.assertBytes(before, 0, p.a.buf, 0, 512); // nothing of the bad response was placed
            assertEquals(QpState.RTS, p.b.qp.state());
        }
    }

    // ------------------------------------------------------------------ wrong starting PSN

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.7.5.2.2 / 9.7.6.1.3: a requester starting ahead of the responder's expected PSN is never accepted; after retry_cnt retries it is in ERR, the responder still RTS")
    void shouldExhaustRetriesWhileTheResponderStaysRtsWhenTheRequesterStartsAtTheWrongPsn(String mode) {
        try (RcPair p = pair(mode)) {
            p.timeout = 8; // 1.05 ms
            p.retryCnt = 3;
            // b expects the PSN a was told; a starts five later (a misconfigured sq_psn)
            p.toInit(p.a.qp);
            p.toInit(p.b.qp);
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            p.toRtr(p.b.qp, p.a.dev, p.a.qp.qpNum(), p.psnA);
            p.toRts(p.a.qp, Psn.add(p.psnA, 5));
            p.toRts(p.b.qp, p.psnB);
            ErrorPathSupport.Recorder rec = new ErrorPathSupport.Recorder();
            p.fabric.addTraceListener(rec);
            FaultRule requests = FaultRule.observe(PacketMatcher.requests().and(PacketMatcher.toQp(p.b.qp)));
            p.link().addFault(requests);
            p.b.qp.postRecv(new RecvWr().wrId(10).sge(p.b.mr, 0, 256));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 64)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.RETRY_EXC_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(p.retryCnt + 1, requests.hits(), "the SEND and retry_cnt retries");
            assertEquals(p.retryCnt + 1, count(p.a.qp, Counter.RETRY_TIMEOUTS));
            assertEquals(
                    p.retryCnt + 1, count(p.b.qp, Counter.OUT_OF_SEQUENCE), "every copy is ahead of the expected PSN");
            assertEquals(1, count(p.b.qp, Counter.NAK_SEQ_ERR_SENT), "one sequence error NAK per gap");
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoCompletion(p.b, 5);
            if (mode.equals(DET)) {
                long ackTimeout = 4096L << p.timeout; // 4.096 us x 2^timeout
                assertEquals(
                        (p.retryCnt + 1) * ackTimeout,
                        rec.entered(p.a.qp, QpState.ERR) - rec.firstSent(p.a.dev),
                        "(retry_cnt + 1) ACK timeouts from the first send");
            }
        }
    }

    // ------------------------------------------------------------------ NAK inside a WRITE

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.7.5.1.2 go-back-N: a PSN sequence error NAK naming a PSN inside a multi-packet WRITE resends exactly from that PSN, as WRITE Middle, Middle, Last")
    void shouldResendExactlyFromTheNakedPsnWhenANakNamesAPsnInsideAWrite(String mode) {
        try (RcPair p = quietPair(mode)) {
            p.connect();
            Wire w = wire(p);
            int nakPsn = Psn.add(p.psnA, 1);
            FaultRule nak = FaultRule.rewrite(
                            PacketMatcher.acks().and(PacketMatcher.toQp(p.a.qp)),
                            PacketRewrite.psn(nakPsn).andThen(PacketRewrite.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR)))
                    .times(1);
            p.link().addFault(nak);
            RcPair.fill(p.a.buf, 0, 4 * MTU, 3);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 4 * MTU)
                    .remote(p.b.addr(8192), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.SUCCESS);
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 8192, 4 * MTU);
            assertEquals(1, nak.hits());
            List<Pkt> again = w.retransmitted("a");
            assertEquals(
                    List.of(Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.RC_RDMA_WRITE_LAST),
                    again.stream().map(Pkt::opcode).collect(Collectors.toList()),
                    again.toString());
            assertEquals(
                    List.of(nakPsn, Psn.add(p.psnA, 2), Psn.add(p.psnA, 3)),
                    again.stream().map(Pkt::psn).collect(Collectors.toList()),
                    "from the NAKed PSN, nothing before it");
            assertEquals(1, count(p.a.qp, Counter.NAK_SEQ_ERR_RECEIVED));
            // The ACK of the first duplicate already completes the WRITE: on the threaded fabric the other two
            // may still be on their way to b when the completion is polled.
            ErrorPathSupport.await(p.fabric, () -> count(p.b.qp, Counter.DUPLICATE_REQUESTS) >= 3, 5_000);
            assertEquals(
                    3, count(p.b.qp, Counter.DUPLICATE_REQUESTS), "already received: acknowledged, not written twice");
        }
    }

    // ------------------------------------------------------------------ duplicate READ inside an earlier READ

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 9.7.5.1.5: a duplicate READ whose PSN lies inside an earlier READ's range is answered from that PSN (First, Last), without a NAK")
    void shouldAnswerFromThatPsnWithoutANakWhenARetriedReadStartsInsideTheEarlierRead(String mode) {
        try (RcPair p = quietPair(mode)) {
            p.connect();
            Wire w = wire(p);
            FaultRule lose = FaultRule.drop(
                    PacketMatcher.nth(3, PacketMatcher.readResponses().and(PacketMatcher.toQp(p.a.qp))));
            p.link().addFault(lose);
            RcPair.fill(p.b.buf, 0, 4 * MTU, 4);
            postRead(p, 1, 4 * MTU);
            expect(p.a, 1, WcStatus.SUCCESS);
            RcPair.assertBytes(p.b.buf, 0, p.a.buf, 0, 4 * MTU);
            assertEquals(1, lose.hits());
            List<Pkt> reads = w.sent("a", e -> e.opcode() == Opcode.RC_RDMA_READ_REQUEST);
            assertEquals(2, reads.size(), reads.toString());
            int inside = Psn.add(p.psnA, 2);
            assertEquals(inside, reads.get(1).psn(), "resent from the lost response's PSN");
            assertEquals(p.b.addr(2 * MTU), reads.get(1).va());
            assertEquals(2 * MTU, reads.get(1).len());
            List<Pkt> answers = w.sent("b", e -> e.opcode().isRead() && Psn.compare(e.psn(), inside) >= 0);
            // the original Last (psn + 3) and then the new answer: First at the PSN asked for, Last
            List<Pkt> replay = answers.subList(answers.size() - 2, answers.size());
            assertEquals(
                    List.of(Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_LAST),
                    replay.stream().map(Pkt::opcode).collect(Collectors.toList()),
                    answers.toString());
            assertEquals(
                    List.of(inside, Psn.add(p.psnA, 3)),
                    replay.stream().map(Pkt::psn).collect(Collectors.toList()));
            assertEquals(0, naksSent(p.b.qp), "no NAK");
            assertEquals(1, count(p.b.qp, Counter.DUPLICATE_REQUESTS));
            assertEquals(QpState.RTS, p.b.qp.state());
        }
    }

    static Stream<Arguments> readRestartedWhereTheCompleterMoved() {
        return modesWith(2, 4);
    }

    /**
     * The completer asks for go-back-N from a READ's first PSN (a later response came first), then,
     * before its requester gets to run, takes the held-back First response from the same burst.
     * The requester then resends the READ from the PSN after it, never behind what is acknowledged,
     * and the responder answers that duplicate READ from its PSN starting with First (Only if one
     * packet is left). The requester has to take that First although it accepted a First a moment
     * ago: a READ was sent from that PSN. It used to call it a First inside a READ's responses and
     * fail the READ with BAD_RESP_ERR (seen in ReliabilityTest's threaded runs, where a busy device
     * thread lets the completer take several responses before the requester runs). Infinite
     * bandwidth makes the responses b sends in one go arrive together, so the deterministic
     * fabric replays that order exactly.
     */
    @ParameterizedTest(name = "{0}: a READ of {1} packets")
    @MethodSource("readRestartedWhereTheCompleterMoved")
    @DisplayName(
            "IBA 9.7.5.1.2 / 9.7.5.1.5: a READ resent from a PSN inside it is answered from that PSN starting with First or Only, and the requester takes that answer even when it accepted responses between asking for the retry and resending")
    void shouldCompleteTheReadWhenItIsResentFromWhereLateResponsesMovedTheCompleter(String mode, int packets) {
        try (RcPair p = quietPair(mode)) {
            p.connect();
            p.link().config(new LinkConfig(p.link().config().latencyNanos(), 0));
            Wire w = wire(p);
            FaultGate lastSent = new FaultGate("READ response Last sent");
            FaultRule holdFirst = FaultRule.hold(
                    PacketMatcher.nth(1, PacketMatcher.readResponses().and(PacketMatcher.toQp(p.a.qp))), lastSent);
            FaultRule last = FaultRule.observe(PacketMatcher.opcode(Opcode.RC_RDMA_READ_RESPONSE_LAST))
                    .times(1);
            lastSent.openOnHit(last);
            p.link().addFault(holdFirst).addFault(last);
            int len = packets * MTU - 100;
            RcPair.fill(p.b.buf, 0, len, 12);
            postRead(p, 1, len);
            WorkCompletion wc = expect(p.a, 1, WcStatus.SUCCESS);
            assertEquals(len, wc.byteLen());
            RcPair.assertBytes(p.b.buf, 0, p.a.buf, 0, len);
            assertEquals(1, holdFirst.hits());
            assertEquals(0, count(p.a.qp, Counter.INVALID_PACKETS), "no response was taken for a bad one");
            assertEquals(QpState.RTS, p.a.qp.state());
            assertEquals(QpState.RTS, p.b.qp.state());
            assertEquals(0, naksSent(p.b.qp));
            if (mode.equals(DET)) {
                List<Pkt> reads = w.sent("a", e -> e.opcode() == Opcode.RC_RDMA_READ_REQUEST);
                assertEquals(2, reads.size(), "the READ and one retry: " + reads);
                int second = Psn.add(p.psnA, 1);
                assertEquals(second, reads.get(1).psn(), "resent from the PSN after the First accepted meanwhile");
                assertEquals(p.b.addr(MTU), reads.get(1).va());
                assertEquals(len - MTU, reads.get(1).len());
                List<Pkt> answer = w.sent("b", e -> e.opcode().isRead() && e.psn() == second);
                Opcode start = packets == 2 ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : Opcode.RC_RDMA_READ_RESPONSE_FIRST;
                assertEquals(start, answer.get(answer.size() - 1).opcode(), "the duplicate READ's answer: " + answer);
                assertEquals(1, count(p.b.qp, Counter.DUPLICATE_REQUESTS));
                assertEquals(0, count(p.a.qp, Counter.RETRY_TIMEOUTS), "retried at once, on the gap");
            }
        }
    }

    @Test
    @DisplayName(
            "IBA 9.7.5.1.5: an injected duplicate READ inside a completed READ is answered from its PSN (First, Middle, Last) and the requester ignores the answers")
    void shouldAnswerAnInjectedDuplicateReadFromItsPsnWhenItLiesInsideAnEarlierRead() {
        try (RcPair p = pair(DET)) {
            p.connect();
            RcPair.fill(p.b.buf, 0, 4 * MTU, 6);
            postRead(p, 1, 4 * MTU);
            expect(p.a, 1, WcStatus.SUCCESS);
            Wire w = wire(p);
            int inside = Psn.add(p.psnA, 1);
            Packet dup = Packet.allocate(Opcode.RC_RDMA_READ_REQUEST)
                    .destQp(p.b.qp.qpNum())
                    .pkey(0xFFFF)
                    .psn(inside)
                    .reth(p.b.addr(MTU), p.b.mr.rkey(), 3 * MTU);
            p.link().inject(p.a.dev, dup);
            p.fabric.deterministicScheduler().runUntilIdle();
            List<Pkt> answers = w.sent("b", e -> e.opcode().isRead());
            assertEquals(
                    List.of(
                            Opcode.RC_RDMA_READ_RESPONSE_FIRST,
                            Opcode.RC_RDMA_READ_RESPONSE_MIDDLE,
                            Opcode.RC_RDMA_READ_RESPONSE_LAST),
                    answers.stream().map(Pkt::opcode).collect(Collectors.toList()));
            assertEquals(
                    List.of(inside, Psn.add(inside, 1), Psn.add(inside, 2)),
                    answers.stream().map(Pkt::psn).collect(Collectors.toList()));
            assertEquals(0, naksSent(p.b.qp));
            assertEquals(3, count(p.a.qp, Counter.DUPLICATE_RESPONSES), "answers nobody asked for are ignored");
            assertEquals(QpState.RTS, p.a.qp.state());
            assertEquals(QpState.RTS, p.b.qp.state());
        }
    }

    // ------------------------------------------------------------------ opcode out of sequence

    static Stream<Arguments> outOfSequence() {
        return modesWith(Opcode.RC_SEND_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE);
    }

    @ParameterizedTest(name = "{0}: the second packet of a SEND arrives as {1}")
    @MethodSource("outOfSequence")
    @DisplayName(
            "IBA 9.7.5.1.4 opcode sequence check: an opcode out of sequence inside a message is NAKed invalid request (class C); the responder goes to ERR")
    void shouldNakInvalidRequestAndMoveTheResponderToErrWhenAnOpcodeIsOutOfSequence(String mode, Opcode opcode) {
        try (RcPair p = pair(mode)) {
            p.connect();
            Wire w = wire(p);
            p.link()
                    .addFault(FaultRule.rewrite(
                            PacketMatcher.nth(2, PacketMatcher.requests().and(PacketMatcher.toQp(p.b.qp))),
                            PacketRewrite.opcode(opcode)));
            p.b.qp.postRecv(new RecvWr().wrId(10).sge(p.b.mr, 0, 4 * MTU));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 3 * MTU)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.REM_INV_REQ_ERR);
            expect(p.b, 10, WcStatus.REM_INV_REQ_ERR);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            List<Pkt> naks =
                    w.sent("b", e -> e.opcode() == Opcode.RC_ACKNOWLEDGE && Aeth.kind(e.syndrome()) == Aeth.Kind.NAK);
            assertEquals(1, naks.size(), naks.toString());
            assertEquals(Aeth.nak(Aeth.NakCode.INVALID_REQUEST), naks.get(0).syndrome());
            assertEquals(Psn.add(p.psnA, 1), naks.get(0).psn(), "the NAK names the offending packet");
            assertEquals(1, count(p.b.qp, Counter.NAK_INV_REQ_SENT));
        }
    }
}
