package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultGate;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.PacketRewrite;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The scripted faults on a TCP link: a rewrite happens on the wire and the frame carries a correct
 * ICRC over the new bytes (IBA 7.8.1), so the peer's port accepts it; a hold on a
 * {@link FaultGate} keeps packets on the event loop until the gate opens; a crafted packet
 * ({@link TcpLink#inject}) reaches the peer past the rules. Two nodes in one JVM, connected through
 * the CM over loopback (NIO).
 */
class TcpFaultTest {

    static final int PORT = 7491;

    /**
     * What a node's trace saw: packets arriving at its port (delivered or dropped), with their
     * opcode, PSN and ICRC state, and the PSNs of the READ requests it sent.
     */
    static final class Arrivals implements TraceListener {
        record Arrival(PacketEvent event, DropReason reason, Opcode opcode, int psn, boolean icrc, boolean icrcValid) {}

        final List<Arrival> seen = new ArrayList<>();
        final List<Integer> readRequests = new ArrayList<>();

        @Override
        public synchronized void onPacket(
                PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            if (event == PacketEvent.DELIVERED || event == PacketEvent.DROPPED) {
                seen.add(new Arrival(event, reason, p.opcode(), p.psn(), p.icrcPresent(), p.icrcValid()));
            } else if (event == PacketEvent.SENT && p.opcode() == Opcode.RC_RDMA_READ_REQUEST) {
                readRequests.add(p.psn());
            }
        }

        synchronized List<Arrival> snapshot() {
            return new ArrayList<>(seen);
        }

        synchronized int firstReadRequestPsn() {
            return readRequests.get(0);
        }

        synchronized void clear() {
            seen.clear();
        }
    }

    /** Waits (real time, with a deadline) until {@code condition} holds. */
    private static boolean await(TcpPair p, java.util.function.BooleanSupplier condition) {
        return p.fa.scheduler().newSignal().await(condition, TimeUnit.SECONDS.toNanos(RcEnd.WAIT_SECONDS));
    }

    private static int mtu(RcEnd e) {
        return e.qp.query().pathMtu().bytes();
    }

    @Test
    @DisplayName(
            "IBA 7.8.1: a READ response rewritten on the wire arrives with a correct ICRC; the requester recovers (implied NAK)")
    void shouldCarryACorrectIcrcWhenAPacketIsRewrittenOnTheWire() {
        try (TcpPair p = new TcpPair(false)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            Arrivals arrivals = new Arrivals();
            p.fa.addTraceListener(arrivals);
            TcpLink toA = p.b.link(p.a.gid());
            FaultRule ahead =
                    FaultRule.rewrite(PacketMatcher.nth(1, PacketMatcher.readResponses()), PacketRewrite.psnShift(1));
            toA.addFault(ahead);
            int len = 4 * mtu(a);
            RcEnd.fill(b.buf, 0, len, 41);
            a.postRead(1, RcEnd.BUF / 2, 0, len);
            WorkCompletion wc = a.next();
            assertNotNull(wc, "the READ completes");
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(-1, RcEnd.mismatch(a.buf, RcEnd.BUF / 2, len, 41), "the data of the re-sent READ");
            assertEquals(1, ahead.hits());
            assertEquals(1, toA.stats().rewritten());
            List<Arrivals.Arrival> got = arrivals.snapshot();
            assertTrue(got.stream().noneMatch(x -> x.reason() == DropReason.BAD_ICRC), got.toString());
            assertEquals(
                    1,
                    got.stream().filter(x -> x.icrc()).count(),
                    "exactly the rewritten packet carried an ICRC: " + got);
            Arrivals.Arrival rewritten =
                    got.stream().filter(Arrivals.Arrival::icrc).findFirst().orElseThrow();
            assertTrue(rewritten.icrcValid(), "and it was correct: " + rewritten);
            assertEquals(Opcode.RC_RDMA_READ_RESPONSE_FIRST, rewritten.opcode());
            assertEquals(0, p.a.counter(TcpCounter.CORRUPT_PACKETS_DROPPED));
            assertTrue(p.b.device().counters().get(Counter.DUPLICATE_REQUESTS) >= 1, "the READ was sent again");
        }
    }

    @Test
    @DisplayName(
            "IBA 9.7.5.1.4 over TCP: a SEND Middle rewritten on the wire to SEND First is NAKed invalid request; both QPs go to ERR")
    void shouldNakInvalidRequestWhenAnOpcodeIsRewrittenOutOfSequenceOnTheWire() {
        try (TcpPair p = new TcpPair(false)) {
            RcEnd[] ends = p.connect(PORT + 3);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            TcpLink toB = p.a.link(p.b.gid());
            FaultRule first = FaultRule.rewrite(
                    PacketMatcher.nth(2, PacketMatcher.requests()), PacketRewrite.opcode(Opcode.RC_SEND_FIRST));
            toB.addFault(first);
            a.postSend(2, 0, 3 * mtu(a)); // B posted receive 1 when it accepted
            WorkCompletion sent = a.next();
            assertNotNull(sent, "the SEND completes");
            assertEquals(WcStatus.REM_INV_REQ_ERR, sent.status(), sent.toString());
            WorkCompletion recv = b.next();
            assertNotNull(recv, "the receive completes");
            assertEquals(WcStatus.REM_INV_REQ_ERR, recv.status(), recv.toString());
            assertEquals(1, recv.wrId());
            assertTrue(
                    await(p, () -> a.qp.state() == QpState.ERR && b.qp.state() == QpState.ERR),
                    "both in ERR: " + a.qp.state() + ", " + b.qp.state());
            assertEquals(1, first.hits());
            assertEquals(1, b.qp.counters().get(Counter.NAK_INV_REQ_SENT));
            assertEquals(0, p.b.counter(TcpCounter.CORRUPT_PACKETS_DROPPED), "the rewritten frame's ICRC was correct");
        }
    }

    @Test
    @DisplayName("HOLD on a gate over TCP: B's acknowledgements wait until the gate opens; then the WRITE completes")
    void shouldHoldAcknowledgementsUntilTheGateOpensWhenHeldOnTcp() {
        try (TcpPair p = new TcpPair(false)) {
            RcEnd[] ends = p.connect(PORT + 1);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            FaultGate gate = new FaultGate("acks");
            TcpLink toA = p.b.link(p.a.gid());
            FaultRule hold = FaultRule.hold(PacketMatcher.acks(), gate);
            toA.addFault(hold);
            RcEnd.fill(a.buf, 0, 2048, 7);
            a.postWrite(1, 0, 4096, 2048);
            assertTrue(hold.awaitHits(p.fb, 1, RcEnd.WAIT_SECONDS, TimeUnit.SECONDS), "the ACK was held");
            assertEquals(-1, RcEnd.mismatch(b.buf, 4096, 2048, 7), "the data landed: only the ACK waits");
            assertNull(a.next(50, TimeUnit.MILLISECONDS), "no completion while the ACK is held");
            gate.open();
            WorkCompletion wc = a.next();
            assertNotNull(wc, "the WRITE completes once the ACK is released");
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            Link.LinkStats s = toA.stats();
            assertTrue(s.held() >= 1 && s.held() == hold.hits(), s.toString());
        }
    }

    @Test
    @DisplayName(
            "IBA 9.7.5.1.5: an injected duplicate READ request inside the executed READ's PSN range is answered, not NAKed")
    void shouldAnswerAnInjectedDuplicateReadWhenInjectedOverTcp() {
        try (TcpPair p = new TcpPair(false)) {
            RcEnd[] ends = p.connect(PORT + 2);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            int mtu = mtu(a);
            Arrivals atA = new Arrivals();
            p.fa.addTraceListener(atA);
            RcEnd.fill(b.buf, 0, 3 * mtu, 5);
            a.postRead(1, 0, 0, 3 * mtu);
            assertEquals(WcStatus.SUCCESS, a.next().status());
            int readPsn = atA.firstReadRequestPsn();
            atA.clear();
            Packet dup = Packet.allocate(Opcode.RC_RDMA_READ_REQUEST)
                    .destQp(b.qp.qpNum())
                    .pkey(0xFFFF)
                    .psn((readPsn + 1) & 0xFFFFFF)
                    .reth(a.peerAddr + mtu, a.peerRkey, 2 * mtu);
            long dupsBefore = b.qp.counters().get(Counter.DUPLICATE_REQUESTS);
            p.a.link(p.b.gid()).inject(dup);
            assertTrue(await(p, () -> atA.snapshot().size() >= 2), "two responses come back: " + atA.snapshot());
            List<Arrivals.Arrival> got = atA.snapshot();
            assertEquals(Opcode.RC_RDMA_READ_RESPONSE_FIRST, got.get(0).opcode());
            assertEquals((readPsn + 1) & 0xFFFFFF, got.get(0).psn(), "answered from the PSN asked for");
            assertEquals(Opcode.RC_RDMA_READ_RESPONSE_LAST, got.get(1).opcode());
            assertEquals(1, b.qp.counters().get(Counter.DUPLICATE_REQUESTS) - dupsBefore);
            assertEquals(
                    0,
                    b.qp.counters().get(Counter.NAK_SEQ_ERR_SENT)
                            + b.qp.counters().get(Counter.NAK_INV_REQ_SENT),
                    "no NAK");
            assertEquals(QpState.RTS, b.qp.state());
            assertEquals(QpState.RTS, a.qp.state(), "the requester ignores responses it did not ask for");
        }
    }
}
