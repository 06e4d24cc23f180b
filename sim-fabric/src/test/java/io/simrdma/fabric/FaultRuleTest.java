package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.internal.link.LinkImpl;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The scripted faults of a link (ARCHITECTURE.md "Faults", issue 10 "a packet-level peer"):
 * REWRITE (the packet leaves with a correct ICRC unless corruption is the point, IBA 7.8.1),
 * HOLD until a time or a {@link FaultGate}, OBSERVE, rules active {@link FaultRule#during} a
 * window, the direction and per-kind matchers, {@link Link#inject} of a crafted packet, and
 * {@link FaultRule#awaitHits}.
 *
 * <p>As in {@link LinkFaultTest}, packets are put on the link directly and arrive at a device
 * without queue pairs, so the trace shows exactly what the link did and when.
 */
class FaultRuleTest {

    /** One trace event, copied out of the pooled packet. */
    record Ev(
            long time,
            PacketEvent event,
            DropReason reason,
            String to,
            Opcode opcode,
            int psn,
            int destQp,
            boolean icrc,
            boolean icrcValid,
            int syndrome) {}

    /** Records packet events. */
    static final class Recorder implements TraceListener {
        final List<Ev> events = new ArrayList<>();

        @Override
        public synchronized void onPacket(
                PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            events.add(new Ev(
                    time,
                    event,
                    reason,
                    to == null ? null : to.name(),
                    p.opcode(),
                    p.psn(),
                    p.destQp(),
                    p.icrcPresent(),
                    p.icrcValid(),
                    p.opcode().has(HeaderType.AETH) ? p.aethSyndrome() : -1));
        }

        synchronized List<Ev> of(PacketEvent e) {
            return events.stream().filter(x -> x.event() == e).collect(Collectors.toList());
        }

        List<Integer> psns(PacketEvent e) {
            return of(e).stream().map(Ev::psn).collect(Collectors.toList());
        }

        /** PSNs of the packets a fault rule dropped. */
        synchronized List<Integer> faultDrops() {
            return events.stream()
                    .filter(x -> x.reason() == DropReason.FAULT)
                    .map(Ev::psn)
                    .collect(Collectors.toList());
        }

        synchronized List<Ev> badIcrc() {
            return events.stream()
                    .filter(x -> x.reason() == DropReason.BAD_ICRC)
                    .collect(Collectors.toList());
        }

        Ev delivered(int psn) {
            List<Ev> l = of(PacketEvent.DELIVERED).stream()
                    .filter(x -> x.psn() == psn)
                    .collect(Collectors.toList());
            assertEquals(1, l.size(), "deliveries of psn " + psn + ": " + l);
            return l.get(0);
        }
    }

    private static final int LATENCY = 1_000;

    private Fabric fabric;
    private Device a;
    private Device b;
    private Link link;
    private final Recorder rec = new Recorder();

    /** A deterministic fabric whose link a-b has 1 us latency and no serialization. */
    private void fabric(long seed) {
        fabric = Fabric.builder()
                .deterministic(seed)
                .defaultLink(new LinkConfig(LATENCY, 0))
                .build();
        a = fabric.createDevice("a");
        b = fabric.createDevice("b");
        link = fabric.link(a, b);
        fabric.addTraceListener(rec);
    }

    @AfterEach
    void close() {
        if (fabric != null) {
            fabric.close();
        }
    }

    private static Packet packet(Opcode op, int psn, int destQp, int payload) {
        Packet p = Packet.allocate(op).psn(psn).destQp(destQp).pkey(0xFFFF);
        if (payload > 0) {
            ByteBuffer data = ByteBuffer.allocate(payload);
            for (int i = 0; i < payload; i++) {
                data.put(i, (byte) i);
            }
            p.addSegment(data, 0, payload);
        }
        return p.updatePadCount();
    }

    /** Puts {@code p} on the link from {@code from}, on its executor, as a device's transmit does. */
    private void send(Device from, Packet p) {
        p.route(from.gid(), (from == a ? b : a).gid());
        from.executor().call(() -> {
            ((LinkImpl) link).transmit(from, p);
            return null;
        });
    }

    private void send(int psn) {
        send(a, packet(Opcode.RC_SEND_ONLY, psn, 0x11, 16));
    }

    private void runIdle() {
        fabric.deterministicScheduler().runUntilIdle();
    }

    // ------------------------------------------------------------------ rewrite

    @Test
    @DisplayName("REWRITE: the receiver gets the new PSN with a correct ICRC over the new bytes (IBA 7.8.1)")
    void shouldDeliverTheRewrittenPacketWithAValidIcrcWhenRewritten() {
        fabric(1);
        FaultRule rule = FaultRule.rewrite(PacketMatcher.psn(7), PacketRewrite.psn(100));
        link.addFault(rule);
        send(6);
        send(7);
        send(8);
        runIdle();
        assertEquals(List.of(6, 100, 8), rec.psns(PacketEvent.DELIVERED));
        Ev rewritten = rec.delivered(100);
        assertTrue(rewritten.icrc() && rewritten.icrcValid(), "sealed with a valid ICRC: " + rewritten);
        assertFalse(rec.delivered(6).icrc(), "untouched packets carry none (in-process)");
        assertEquals(List.of(100), rec.psns(PacketEvent.REWRITTEN), "traced with its new contents");
        assertTrue(rec.badIcrc().isEmpty(), rec.events.toString());
        assertEquals(1, rule.hits());
        assertEquals(new Link.LinkStats(3, 3, 0, 0, 0, 0, 1, 0), link.stats(a));
    }

    @Test
    @DisplayName("REWRITE then CORRUPT: when corruption is the point the receiving port drops it as BAD_ICRC")
    void shouldDropAsBadIcrcWhenARewrittenPacketIsAlsoCorrupted() {
        fabric(2);
        link.addFault(FaultRule.rewrite(PacketMatcher.any(), PacketRewrite.psnShift(1)));
        link.addFault(FaultRule.corrupt(PacketMatcher.any(), 1.0));
        for (int psn = 0; psn < 20; psn++) {
            send(a, packet(Opcode.RC_SEND_ONLY, psn, 0x11, 256));
        }
        runIdle();
        int dropped = rec.badIcrc().size();
        // Only a flip of BTH byte 4 (masked out of the ICRC) passes: 8 of the 2144 bits.
        assertTrue(dropped >= 18, "BAD_ICRC drops: " + dropped);
        assertEquals(new Link.LinkStats(20, 20, 0, 0, 0, 20, 20, 0), link.stats(a));
    }

    @Test
    @DisplayName("A rewrite of a header the packet lacks leaves it alone and is not a hit")
    void shouldNotFireWhenThePacketLacksTheRewrittenHeader() {
        fabric(3);
        FaultRule reth = FaultRule.rewrite(PacketMatcher.any(), PacketRewrite.rethRkey(0xBAD))
                .times(1);
        FaultRule aeth = FaultRule.rewrite(PacketMatcher.any(), PacketRewrite.nak(Aeth.NakCode.INVALID_REQUEST));
        link.addFault(reth).addFault(aeth);
        send(a, packet(Opcode.RC_SEND_ONLY, 1, 0x11, 8));
        send(a, packet(Opcode.RC_ACKNOWLEDGE, 2, 0x11, 0).aeth(Aeth.ack(Aeth.CREDITS_INVALID), 5));
        runIdle();
        assertEquals(0, reth.hits(), "neither packet has a RETH");
        assertEquals(1, aeth.hits(), "only the ACK has an AETH");
        assertEquals(Aeth.nak(Aeth.NakCode.INVALID_REQUEST), rec.delivered(2).syndrome());
        assertFalse(rec.delivered(1).icrc(), "the SEND was not rewritten");
    }

    // ------------------------------------------------------------------ hold

    @Test
    @DisplayName("HOLD on a gate: packets wait, in order, until the gate opens; later packets pass")
    void shouldReleaseHeldPacketsInOrderWhenTheGateOpens() {
        fabric(4);
        FaultGate gate = new FaultGate("responses");
        FaultRule hold = FaultRule.hold(PacketMatcher.opcode(Opcode.RC_SEND_ONLY), gate);
        link.addFault(hold);
        send(1);
        send(2);
        send(a, packet(Opcode.RC_ACKNOWLEDGE, 3, 0x11, 0).aeth(Aeth.ack(0), 0));
        send(4);
        fabric.deterministicScheduler().advanceTime(50_000);
        assertEquals(List.of(3), rec.psns(PacketEvent.DELIVERED), "only the ACK passes while closed");
        assertEquals(List.of(1, 2, 4), rec.psns(PacketEvent.HELD));
        assertEquals(3, hold.hits());
        gate.open();
        assertTrue(gate.isOpen());
        runIdle();
        assertEquals(List.of(3, 1, 2, 4), rec.psns(PacketEvent.DELIVERED), "released in the order held");
        assertEquals(List.of(1, 2, 4), rec.psns(PacketEvent.RELEASED));
        assertEquals(50_000, rec.of(PacketEvent.RELEASED).get(0).time(), "released when opened");
        assertEquals(50_000 + LATENCY, rec.delivered(1).time(), "then the link latency");
        send(5);
        runIdle();
        assertEquals(3, hold.hits(), "an open gate lets packets pass uncounted");
        assertEquals(5, rec.psns(PacketEvent.DELIVERED).get(4));
        assertEquals(new Link.LinkStats(5, 5, 0, 0, 0, 0, 0, 3), link.stats(a));
    }

    @Test
    @DisplayName("FaultGate.openOnHit: a trigger rule opens the gate when its packet passes")
    void shouldReleaseWhenTheTriggerRuleFires() {
        fabric(5);
        FaultGate gate = new FaultGate();
        link.addFault(FaultRule.hold(PacketMatcher.from(b), gate));
        FaultRule trigger = FaultRule.observe(PacketMatcher.psn(9).and(PacketMatcher.from(a)));
        gate.openOnHit(trigger);
        link.addFault(trigger);
        send(b, packet(Opcode.RC_ACKNOWLEDGE, 1, 0x11, 0).aeth(Aeth.ack(0), 0));
        send(8);
        fabric.deterministicScheduler().advanceTime(10_000);
        assertEquals(List.of(8), rec.psns(PacketEvent.DELIVERED));
        send(9);
        runIdle();
        assertEquals(List.of(8, 9, 1), rec.psns(PacketEvent.DELIVERED));
        assertEquals(1, trigger.hits());
        assertEquals(10_000 + LATENCY, rec.delivered(1).time());
    }

    @Test
    @DisplayName("holdUntil(t): packets sent before t leave at t, in order; packets sent after pass")
    void shouldHoldUntilTheTimeWhenHeldUntilATime() {
        fabric(6);
        FaultRule rule = FaultRule.holdUntil(PacketMatcher.any(), 20_000);
        link.addFault(rule);
        send(1);
        fabric.deterministicScheduler().advanceTime(5_000);
        send(2);
        fabric.deterministicScheduler().advanceTime(20_000);
        send(3);
        runIdle();
        assertEquals(20_000 + LATENCY, rec.delivered(1).time());
        assertEquals(20_000 + LATENCY, rec.delivered(2).time());
        assertEquals(25_000 + LATENCY, rec.delivered(3).time());
        assertEquals(List.of(1, 2, 3), rec.psns(PacketEvent.DELIVERED));
        assertEquals(2, rule.hits());
        assertEquals(new Link.LinkStats(3, 3, 0, 0, 0, 0, 0, 2), link.stats(a));
    }

    @Test
    @DisplayName("A link removed while it holds packets drops them (nothing leaks)")
    void shouldDropHeldPacketsWhenTheFabricCloses() {
        fabric(7);
        link.addFault(FaultRule.hold(PacketMatcher.any(), new FaultGate()));
        send(a, packet(Opcode.RC_SEND_ONLY, 1, 0x11, 64));
        send(2);
        runIdle();
        fabric.close();
        Link.LinkStats s = link.stats(a);
        fabric = null;
        assertEquals(2, s.held());
        assertEquals(2, s.dropped(), "dropped when the fabric closed");
        assertEquals(
                List.of(DropReason.CLOSED, DropReason.CLOSED),
                rec.of(PacketEvent.DROPPED).stream().map(Ev::reason).collect(Collectors.toList()));
    }

    // ------------------------------------------------------------------ windows, observe, await

    @Test
    @DisplayName("during(from, until): a partition from 2 ms to 40 ms drops exactly what is sent in that window")
    void shouldDropOnlyInsideTheWindowWhenActiveDuringAWindow() {
        fabric(8);
        FaultRule partition = FaultRule.drop(PacketMatcher.any()).during(2_000_000, 40_000_000);
        link.addFault(partition);
        var sched = fabric.deterministicScheduler();
        send(1);
        sched.advanceTime(1_999_999);
        send(2);
        sched.advanceTime(1);
        send(3);
        sched.advanceTime(37_999_999);
        send(4);
        sched.advanceTime(1);
        send(5);
        runIdle();
        assertEquals(List.of(1, 2, 5), rec.psns(PacketEvent.DELIVERED));
        assertEquals(2, partition.hits());
        assertFalse(partition.activeAt(40_000_000));
        assertTrue(partition.activeAt(2_000_000));
    }

    @Test
    @DisplayName("awaitHits runs the deterministic fabric until the rule fires, or to the deadline")
    void shouldRunTheFabricUntilTheRuleFiresWhenAwaitingHits() {
        fabric(9);
        FaultRule tap = FaultRule.observe(PacketMatcher.psn(3));
        AtomicInteger calls = new AtomicInteger();
        tap.onHit(calls::incrementAndGet);
        link.addFault(tap);
        send(3);
        assertEquals(1, tap.hits(), "decided when sent");
        assertTrue(tap.awaitHits(fabric, 1, 1, TimeUnit.MILLISECONDS));
        assertFalse(tap.awaitHits(fabric, 2, 1, TimeUnit.MILLISECONDS), "no second packet");
        assertEquals(1_000_000, fabric.now(), "virtual time stands at the deadline");
        assertEquals(1, calls.get());
        assertEquals(List.of(3), rec.psns(PacketEvent.DELIVERED), "OBSERVE leaves the packet alone");
    }

    @Test
    @DisplayName("awaitHits blocks on a threaded fabric until an engine thread's packet hits the rule")
    void shouldWakeTheWaiterWhenARuleFiresOnAThreadedFabric() {
        try (RcPair p = RcPair.threaded().connect()) {
            FaultRule tap = FaultRule.observe(PacketMatcher.acks().and(PacketMatcher.toQp(p.a.qp)));
            p.link().addFault(tap);
            p.b.qp.postRecv(new RecvWr().wrId(1).sge(p.b.mr, 0, 64));
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 64)
                    .flag(SendFlag.SIGNALED));
            assertTrue(tap.awaitHits(p.fabric, 1, 20, TimeUnit.SECONDS), "the ACK of the SEND: " + tap);
            assertEquals(WcStatus.SUCCESS, p.a.poll().status());
        }
    }

    // ------------------------------------------------------------------ matchers

    @Test
    @DisplayName("nth(n, kind) counts only the packets its kind selects: the 3rd READ response among other traffic")
    void shouldPickTheNthPacketOfAKindWhenCountingPerKind() {
        fabric(10);
        FaultRule rule = FaultRule.drop(PacketMatcher.nth(3, PacketMatcher.readResponses()));
        link.addFault(rule);
        send(b, packet(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 10, 0x11, 1024).aeth(0, 0));
        send(b, packet(Opcode.RC_ACKNOWLEDGE, 11, 0x11, 0));
        send(b, packet(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 12, 0x11, 1024));
        send(a, packet(Opcode.RC_SEND_ONLY, 13, 0x11, 8));
        send(b, packet(Opcode.RC_RDMA_READ_RESPONSE_LAST, 14, 0x11, 8).aeth(0, 0));
        send(b, packet(Opcode.RC_RDMA_READ_RESPONSE_ONLY, 15, 0x11, 8).aeth(0, 0));
        runIdle();
        assertEquals(List.of(14), rec.faultDrops());
        assertEquals(1, rule.hits());
        assertThrows(IllegalArgumentException.class, () -> PacketMatcher.nth(0, PacketMatcher.any()));
    }

    @Test
    @DisplayName("acks, naks, readRequests, readResponses, retransmissions, to and toQp classify loopback traffic too")
    void shouldClassifyByKindAndDestinationWhenMatching() {
        try (RcPair p = RcPair.deterministic(11).connect()) {
            Packet ack = Packet.allocate(Opcode.RC_ACKNOWLEDGE).aeth(Aeth.ack(Aeth.CREDITS_INVALID), 0);
            Packet nak = Packet.allocate(Opcode.RC_ACKNOWLEDGE).aeth(Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR), 0);
            Packet rnr = Packet.allocate(Opcode.RC_ACKNOWLEDGE).aeth(Aeth.rnrNak(3), 0);
            Packet readReq = Packet.allocate(Opcode.RC_RDMA_READ_REQUEST).retransmission(true);
            Packet readResp = Packet.allocate(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE);
            try {
                for (Packet x : List.of(ack, nak, rnr, readReq, readResp)) {
                    x.route(p.b.dev.gid(), p.a.dev.gid()).destQp(p.a.qp.qpNum());
                }
                assertTrue(PacketMatcher.acks().matches(ack, 1));
                assertFalse(PacketMatcher.acks().matches(nak, 1));
                assertTrue(PacketMatcher.naks().matches(nak, 1)
                        && PacketMatcher.naks().matches(rnr, 1));
                assertFalse(PacketMatcher.naks().matches(ack, 1)
                        || PacketMatcher.naks().matches(readResp, 1));
                assertTrue(PacketMatcher.readRequests().matches(readReq, 1));
                assertFalse(PacketMatcher.readRequests().matches(readResp, 1));
                assertTrue(PacketMatcher.readResponses().matches(readResp, 1));
                assertFalse(PacketMatcher.readResponses().matches(readReq, 1));
                assertTrue(PacketMatcher.retransmissions().matches(readReq, 1));
                assertFalse(PacketMatcher.retransmissions().matches(ack, 1));
                assertTrue(PacketMatcher.to(p.a.dev).matches(ack, 1));
                assertFalse(PacketMatcher.to(p.b.dev).matches(ack, 1));
                assertTrue(PacketMatcher.toQp(p.a.qp).matches(ack, 1));
                assertFalse(PacketMatcher.toQp(p.b.qp).matches(ack, 1));
                // Loopback: both QPs on one device, told apart by QP number.
                QueuePair x = p.a.pd.createQp(QpInitAttr.rc(p.a.cq, p.a.cq));
                assertFalse(PacketMatcher.toQp(x).matches(ack, 1));
            } finally {
                for (Packet x : List.of(ack, nak, rnr, readReq, readResp)) {
                    x.release();
                }
            }
        }
    }

    @Test
    @DisplayName(
            "Loopback: two QPs of one device; nth(2, readResponses().and(toQp(x))) drops x's 2nd READ response and nothing of y's")
    void shouldTargetOneQpOfALoopbackConnectionWhenMatchingPerKindAndQp() {
        try (RcPair p = RcPair.deterministic(14)) {
            QueuePair x = p.a.qp;
            QueuePair y = p.a.pd.createQp(QpInitAttr.rc(p.a.cq, p.a.cq));
            p.connect(x, 0x100, y, 0x200);
            Link loop = p.fabric.link(p.a.dev, p.a.dev);
            Recorder r = new Recorder();
            p.fabric.addTraceListener(r);
            FaultRule rule = FaultRule.drop(
                    PacketMatcher.nth(2, PacketMatcher.readResponses().and(PacketMatcher.toQp(x))));
            loop.addFault(rule);
            RcPair.fill(p.a.buf, 0, 4096, 14);
            // y reads first (its responses go to y: not counted), then x reads the same bytes
            y.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 16_384, 4096)
                    .remote(p.a.addr(0), p.a.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            assertEquals(WcStatus.SUCCESS, p.a.poll().status());
            x.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 8192, 4096)
                    .remote(p.a.addr(0), p.a.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            WorkCompletion wc = p.a.poll();
            assertEquals(2, wc.wrId());
            assertEquals(WcStatus.SUCCESS, wc.status(), "recovered from the lost response: " + wc);
            RcPair.assertBytes(p.a.buf, 0, p.a.buf, 8192, 4096);
            RcPair.assertBytes(p.a.buf, 0, p.a.buf, 16_384, 4096);
            assertEquals(1, rule.hits());
            List<Ev> lost = r.events.stream()
                    .filter(e -> e.reason() == DropReason.FAULT)
                    .collect(Collectors.toList());
            assertEquals(1, lost.size(), lost.toString());
            assertEquals(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, lost.get(0).opcode());
            assertEquals(0x101, lost.get(0).psn(), "x's second response");
            assertEquals(x.qpNum(), lost.get(0).destQp());
        }
    }

    // ------------------------------------------------------------------ inject

    @Test
    @DisplayName("inject: a crafted packet arrives after the latency, routed by the link, past the fault rules")
    void shouldDeliverTheCraftedPacketPastTheRulesWhenInjected() {
        fabric(12);
        FaultRule dropAll = FaultRule.drop(PacketMatcher.any());
        link.addFault(dropAll);
        fabric.deterministicScheduler().advanceTime(3_000);
        Packet crafted = Packet.allocate(Opcode.RC_ACKNOWLEDGE)
                .destQp(0x22)
                .psn(77)
                .aeth(Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR), 5);
        link.inject(b, crafted);
        send(b, packet(Opcode.RC_ACKNOWLEDGE, 78, 0x22, 0));
        runIdle();
        assertEquals(List.of(77), rec.psns(PacketEvent.INJECTED));
        Ev got = rec.delivered(77);
        assertEquals("a", got.to());
        assertEquals(3_000 + LATENCY, got.time());
        assertEquals(Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR), got.syndrome());
        assertEquals(List.of(78), rec.faultDrops());
        assertEquals(1, dropAll.hits(), "the injected packet passed the rule by");
        assertEquals(2, link.stats(b).sent());
        Device c = fabric.createDevice("c");
        Packet stray = Packet.allocate(Opcode.RC_ACKNOWLEDGE);
        assertThrows(IllegalArgumentException.class, () -> link.inject(c, stray));
        stray.release();
    }

    @Test
    @DisplayName("inject on a link that is down: the crafted packet is lost like any other")
    void shouldLoseTheInjectedPacketWhenTheLinkIsDown() {
        fabric(13);
        link.setUp(false);
        link.inject(a, packet(Opcode.RC_SEND_ONLY, 5, 0x11, 4));
        runIdle();
        assertTrue(rec.of(PacketEvent.DELIVERED).isEmpty());
        assertEquals(DropReason.LINK_DOWN, rec.of(PacketEvent.DROPPED).get(0).reason());
        assertEquals(new Link.LinkStats(1, 0, 1, 0, 0, 0), link.stats(a));
    }

    // ------------------------------------------------------------------ validation

    @Test
    @DisplayName("New rules validate their arguments once and describe themselves")
    void shouldRejectInvalidArgumentsWhenBuildingScriptedRules() {
        assertThrows(
                IllegalArgumentException.class,
                () -> FaultRule.drop(PacketMatcher.any()).during(5, 5));
        assertThrows(NullPointerException.class, () -> FaultRule.rewrite(PacketMatcher.any(), null));
        assertThrows(NullPointerException.class, () -> FaultRule.hold(PacketMatcher.any(), null));
        assertThrows(IllegalArgumentException.class, () -> PacketRewrite.payload(-1, new byte[1]));
        FaultRule r = FaultRule.rewrite(
                        PacketMatcher.any(), PacketRewrite.psn(3).andThen(PacketRewrite.aethMsn(9)))
                .times(2)
                .during(0, 100);
        assertEquals(FaultRule.Action.REWRITE, r.action());
        assertEquals("FaultRule[REWRITE psn=3, aeth.msn=9, p=1.0, during [0, 100), max 2, hits=0]", r.toString());
        FaultGate g = new FaultGate("g");
        FaultRule h = FaultRule.hold(PacketMatcher.any(), g);
        assertEquals("FaultRule[HOLD on g (closed), p=1.0, hits=0]", h.toString());
        assertEquals(g, h.gate());
        assertNull(h.rewrite());
        assertEquals(
                "FaultRule[HOLD until 500ns, p=1.0, hits=0]",
                FaultRule.holdUntil(PacketMatcher.any(), 500).toString());
    }
}
