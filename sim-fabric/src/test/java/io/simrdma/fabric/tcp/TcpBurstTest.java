package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.wire.Packet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Segmentation offload over TCP: runs of packets of one message cross a connection as BURST
 * frames when nothing needs them one by one, and as packets again the moment a fault rule or a
 * trace listener is attached; the RC semantics (PSNs, ACKs, completions, data) are those of the
 * packets sent one by one.
 */
class TcpBurstTest {

    static final int PORT = 7471;
    /** A WRITE of 12 MTU-4096 packets and a bit: one burst of 13 packets. */
    static final int WRITE_LENGTH = 12 * 4096 + 100;
    /** A SEND of 4 packets. */
    static final int SEND_LENGTH = 3 * 4096 + 100;

    @DisplayName(
            "IBA 9.7.2 (packets of a message have consecutive PSNs): a run of a WRITE, SEND and READ response crosses as BURST frames and lands as if sent packet by packet")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldCarryRunsAsBurstFramesWhenNothingNeedsTheirPackets(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            assertTrue(p.a.link(p.b.gid()).carriesBursts(), "no rule, no trace: the link carries bursts");
            long sentBefore = p.a.counter(TcpCounter.PACKETS_SENT);

            RcEnd.fill(a.buf, 0, WRITE_LENGTH, 7);
            a.postWrite(1, 0, 1000, WRITE_LENGTH);
            expect(WcOpcode.RDMA_WRITE, a.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 1000, WRITE_LENGTH, 7), "the WRITE's bytes landed in order");

            // into the 16 KiB receive B posted when it accepted the connection
            RcEnd.fill(a.buf, 0, SEND_LENGTH, 8);
            a.postSend(3, 0, SEND_LENGTH);
            expect(WcOpcode.SEND, a.next());
            WorkCompletion recv = b.next();
            expect(WcOpcode.RECV, recv);
            assertEquals(SEND_LENGTH, recv.byteLen(), "byte_len of the RECV: the SEND's length");
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, SEND_LENGTH, 8), "the SEND's bytes landed");

            RcEnd.fill(b.buf, 32_768, 20_000, 9);
            a.postRead(4, 0, 32_768, 20_000);
            expect(WcOpcode.RDMA_READ, a.next());
            assertEquals(-1, RcEnd.mismatch(a.buf, 0, 20_000, 9), "the READ responses' bytes landed");

            assertTrue(p.a.counter(TcpCounter.BURSTS_SENT) >= 2, "the WRITE and the SEND went as bursts");
            assertTrue(p.b.counter(TcpCounter.BURSTS_SENT) >= 1, "the READ responses went as a burst");
            assertEquals(p.a.counter(TcpCounter.BURSTS_SENT), p.b.counter(TcpCounter.BURSTS_RECEIVED));
            long packets = 13 + 4 + 1; // WRITE 13 packets, SEND 4, READ request 1
            assertEquals(packets, p.a.counter(TcpCounter.PACKETS_SENT) - sentBefore, "a burst counts as its packets");
            Link.LinkStats out = p.a.link(p.b.gid()).stats();
            assertEquals(out.sent(), out.delivered(), "nothing lost: " + out);
            assertEquals(0, p.b.device().counters().get(Counter.DUPLICATE_REQUESTS), "no retransmission");
            assertEquals(0, p.a.device().counters().get(Counter.RETRANSMITTED_PACKETS), "no retransmission");
        }
    }

    @DisplayName(
            "a fault rule sees every packet of a message (its index counts packets): attached, bursts stop; the dropped packet is retransmitted")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldSendPacketByPacketWhenAFaultRuleIsAttached(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            TcpLink link = p.a.link(p.b.gid());
            RcEnd.fill(a.buf, 0, WRITE_LENGTH, 1);
            a.postWrite(1, 0, 0, WRITE_LENGTH);
            expect(WcOpcode.RDMA_WRITE, a.next());
            long bursts = p.a.counter(TcpCounter.BURSTS_SENT);
            assertTrue(bursts >= 1, "without a rule the WRITE went as a burst");

            link.addFault(FaultRule.drop(PacketMatcher.requests(), 1.0).times(1));
            assertFalse(link.carriesBursts(), "a rule needs the packets one by one");
            RcEnd.fill(a.buf, 0, WRITE_LENGTH, 2);
            a.postWrite(2, 0, 0, WRITE_LENGTH);
            expect(WcOpcode.RDMA_WRITE, a.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, WRITE_LENGTH, 2), "the WRITE landed after the retransmission");
            assertEquals(1, link.stats().dropped(), "the rule dropped one packet, not a run: " + link.stats());
            assertTrue(
                    p.a.device().counters().get(Counter.RETRANSMITTED_PACKETS) >= 1, "the lost packet was sent again");

            link.clearFaults();
            long before = p.a.counter(TcpCounter.BURSTS_SENT);
            assertEquals(bursts, before, "no burst while the rule was attached");
            RcEnd.fill(a.buf, 0, WRITE_LENGTH, 3);
            a.postWrite(3, 0, 0, WRITE_LENGTH);
            expect(WcOpcode.RDMA_WRITE, a.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, WRITE_LENGTH, 3), "the WRITE landed");
            assertTrue(p.a.counter(TcpCounter.BURSTS_SENT) > before, "rule removed: bursts again");
        }
    }

    @DisplayName("a trace listener sees each packet: attached, every packet of a WRITE is traced SENT and DELIVERED")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldTraceEveryPacketWhenATraceListenerIsAttached(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            AtomicInteger sent = new AtomicInteger();
            AtomicInteger delivered = new AtomicInteger();
            TraceListener sender = new TraceListener() {
                @Override
                public void onPacket(
                        PacketEvent ev, DropReason reason, long time, Device from, Device to, Packet packet) {
                    if (ev == PacketEvent.SENT && packet.opcode().isWrite()) {
                        sent.incrementAndGet();
                    }
                }
            };
            TraceListener receiver = new TraceListener() {
                @Override
                public void onPacket(
                        PacketEvent ev, DropReason reason, long time, Device from, Device to, Packet packet) {
                    if (ev == PacketEvent.DELIVERED && packet.opcode().isWrite()) {
                        delivered.incrementAndGet();
                    }
                }
            };
            p.fa.addTraceListener(sender);
            p.fb.addTraceListener(receiver);
            long bursts = p.a.counter(TcpCounter.BURSTS_SENT);
            RcEnd.fill(a.buf, 0, WRITE_LENGTH, 4);
            a.postWrite(1, 0, 0, WRITE_LENGTH);
            expect(WcOpcode.RDMA_WRITE, a.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, WRITE_LENGTH, 4), "the WRITE landed");
            assertEquals(13, sent.get(), "each of the WRITE's 13 packets traced SENT");
            assertTrue(
                    TcpPair.await(() -> delivered.get() == 13, p.eventsB, TcpPair.WAIT_SECONDS),
                    "each of the WRITE's 13 packets traced DELIVERED, seen " + delivered.get());
            assertEquals(bursts, p.a.counter(TcpCounter.BURSTS_SENT), "no burst while traced");
        }
    }

    @DisplayName(
            "a peer whose maximum frame length holds 3 MTU-4096 packets gets runs of at most 3 (its HELLO's max frame); the minimum maximum gets single packets")
    @ParameterizedTest(name = "peer's maximum frame holds {0} packets")
    @ValueSource(ints = {3, 1})
    void shouldCutRunsToThePeersMaximumFrameLength(int packets) {
        int max = packets == 1
                ? PacketCodec.MIN_MAX_FRAME_LENGTH
                : PacketCodec.burstBodyLength(packets, PacketCodec.MAX_PAYLOAD);
        try (TcpPair p = new TcpPair(true, TcpPair.CM, c -> c, c -> c.maxFrameLength(max))) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            long sentBefore = p.a.counter(TcpCounter.PACKETS_SENT);
            RcEnd.fill(a.buf, 0, WRITE_LENGTH, 5);
            a.postWrite(1, 0, 0, WRITE_LENGTH);
            expect(WcOpcode.RDMA_WRITE, a.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, WRITE_LENGTH, 5), "the WRITE landed");
            assertEquals(13, p.a.counter(TcpCounter.PACKETS_SENT) - sentBefore, "13 packets, however framed");
            if (packets == 1) {
                assertEquals(0, p.b.counter(TcpCounter.BURSTS_RECEIVED), "no burst fits the peer's frames");
            } else {
                // 13 packets in runs of 3: four bursts of 3, the last packet alone
                assertEquals(4, p.b.counter(TcpCounter.BURSTS_RECEIVED), "runs of 3 packets");
            }
            assertEquals(0, p.b.counter(TcpCounter.CLOSED_TOO_LONG_FRAME), "no frame over the peer's maximum");
        }
    }

    private static void expect(WcOpcode opcode, WorkCompletion wc) {
        assertEquals(WcStatus.SUCCESS, wc.status(), "expected SUCCESS, seen " + wc);
        assertEquals(opcode, wc.opcode(), "expected " + opcode + ", seen " + wc);
    }
}
