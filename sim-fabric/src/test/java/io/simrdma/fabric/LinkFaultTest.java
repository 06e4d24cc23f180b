package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.internal.link.LinkImpl;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Links and their fault rules (ARCHITECTURE.md "Links", "Faults"): which packets a
 * {@link PacketMatcher} selects, what each {@link FaultRule} action does and when, link down/up
 * at exact virtual times, {@link Link.LinkStats}, and the timing {@link LinkConfig} describes.
 *
 * <p>Packets are put on the link directly (as a device's transmit does) and arrive at a device
 * with no queue pairs, which counts and drops them (UNKNOWN_QP) after the DELIVERED trace: the
 * trace shows exactly what the link did, at what virtual time, without any RC engine reaction.
 */
class LinkFaultTest {

    /** One trace event, copied out of the pooled packet. */
    record Ev(
            long time,
            PacketEvent event,
            DropReason reason,
            String from,
            String to,
            Opcode opcode,
            int psn,
            int destQp) {}

    /** Records packet and link events. */
    static final class Recorder implements TraceListener {
        final List<Ev> events = Collections.synchronizedList(new ArrayList<>());
        final List<String> linkChanges = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            events.add(new Ev(
                    time,
                    event,
                    reason,
                    from == null ? null : from.name(),
                    to == null ? null : to.name(),
                    p.opcode(),
                    p.psn(),
                    p.destQp()));
        }

        @Override
        public void onLinkStateChange(long time, Link link, boolean up) {
            linkChanges.add(time + (up ? " up " : " down ") + link);
        }

        List<Ev> of(PacketEvent e) {
            synchronized (events) {
                return events.stream().filter(x -> x.event() == e).collect(Collectors.toList());
            }
        }

        List<Integer> psns(PacketEvent e) {
            return of(e).stream().map(Ev::psn).collect(Collectors.toList());
        }

        /**
         * Drops by the link or the port's ICRC check; the receiving device's own UNKNOWN_QP drop
         * of every delivered packet (it has no queue pairs) is left out.
         */
        List<Ev> droppedEvents() {
            synchronized (events) {
                return events.stream()
                        .filter(x -> x.event() == PacketEvent.DROPPED && x.reason() != DropReason.UNKNOWN_QP)
                        .collect(Collectors.toList());
            }
        }

        List<Integer> dropped() {
            return droppedEvents().stream().map(Ev::psn).collect(Collectors.toList());
        }

        Ev delivered(int psn) {
            List<Ev> l = of(PacketEvent.DELIVERED).stream()
                    .filter(x -> x.psn() == psn)
                    .collect(Collectors.toList());
            assertEquals(1, l.size(), "deliveries of psn " + psn + ": " + l);
            return l.get(0);
        }
    }

    private Fabric fabric;
    private Device a;
    private Device b;
    private Link link;
    private final Recorder rec = new Recorder();

    /** A deterministic fabric whose links have exactly {@code config}. */
    private void fabric(long seed, LinkConfig config) {
        fabric = Fabric.builder().deterministic(seed).defaultLink(config).build();
        a = fabric.createDevice("a");
        b = fabric.createDevice("b");
        link = fabric.link(a, b);
        fabric.addTraceListener(rec);
    }

    /** 1 us latency, no serialization: every packet arrives exactly 1000 ns after it is sent. */
    private void simpleFabric(long seed) {
        fabric(seed, new LinkConfig(1_000, 0));
    }

    @AfterEach
    void close() {
        if (fabric != null) {
            fabric.close();
        }
    }

    /** Puts a packet on the link from {@code from}, on its executor, as Device.transmit does. */
    private void send(Device from, Opcode op, int psn, int destQp, int payload) {
        Device to = from == a ? b : a;
        Packet p = Packet.allocate(op).psn(psn).destQp(destQp).pkey(0xFFFF);
        if (payload > 0) {
            p.addSegment(ByteBuffer.allocate(payload), 0, payload);
        }
        p.updatePadCount().route(from.gid(), to.gid());
        from.executor().call(() -> {
            ((LinkImpl) link).transmit(from, p);
            return null;
        });
    }

    private void send(int psn) {
        send(a, Opcode.RC_SEND_ONLY, psn, 0x11, 16);
    }

    private void runIdle() {
        fabric.deterministicScheduler().runUntilIdle();
    }

    // ------------------------------------------------------------------ matchers

    @Test
    @DisplayName("nth(n) drops exactly the n-th packet of the direction")
    void shouldDropOnlyTheNthPacketWhenMatchingByIndex() {
        simpleFabric(1);
        FaultRule rule = FaultRule.drop(PacketMatcher.nth(3), 1.0);
        link.addFault(rule);
        for (int psn = 0; psn < 5; psn++) {
            send(psn);
        }
        runIdle();
        assertEquals(List.of(0, 1, 3, 4), rec.psns(PacketEvent.DELIVERED));
        List<Ev> dropped = rec.droppedEvents();
        assertEquals(1, dropped.size());
        assertEquals(2, dropped.get(0).psn());
        assertEquals(DropReason.FAULT, dropped.get(0).reason());
        assertEquals(0, dropped.get(0).time(), "dropped when sent");
        assertEquals(1, rule.hits());
        assertEquals(new Link.LinkStats(5, 4, 1, 0, 0, 0), link.stats(a));
        // The index counts per direction: b's 3rd packet is dropped too.
        for (int psn = 10; psn < 13; psn++) {
            send(b, Opcode.RC_ACKNOWLEDGE, psn, 0x11, 0);
        }
        runIdle();
        assertEquals(new Link.LinkStats(3, 2, 1, 0, 0, 0), link.stats(b));
        assertEquals(2, rule.hits());
    }

    @Test
    @DisplayName("psn(n) drops every packet with that PSN, retransmissions included")
    void shouldDropEveryCopyWhenMatchingByPsn() {
        simpleFabric(2);
        link.addFault(FaultRule.drop(PacketMatcher.psn(7), 1.0));
        for (int round = 0; round < 2; round++) {
            for (int psn = 5; psn < 10; psn++) {
                send(psn);
            }
        }
        runIdle();
        assertEquals(List.of(7, 7), rec.dropped());
        assertEquals(List.of(5, 6, 8, 9, 5, 6, 8, 9), rec.psns(PacketEvent.DELIVERED));
    }

    @Test
    @DisplayName("opcode(...) and destQp(n) select by BTH OpCode and DestQP")
    void shouldDropOnlyMatchingPacketsWhenMatchingByOpcodeOrDestinationQp() {
        simpleFabric(3);
        link.addFault(FaultRule.drop(PacketMatcher.opcode(Opcode.RC_ACKNOWLEDGE, Opcode.RC_FETCH_ADD), 1.0));
        link.addFault(FaultRule.drop(PacketMatcher.destQp(0x22), 1.0));
        send(a, Opcode.RC_SEND_ONLY, 1, 0x21, 8);
        send(a, Opcode.RC_ACKNOWLEDGE, 2, 0x21, 0);
        send(a, Opcode.RC_RDMA_READ_REQUEST, 3, 0x21, 0);
        send(a, Opcode.RC_FETCH_ADD, 4, 0x21, 0);
        send(a, Opcode.RC_SEND_ONLY, 5, 0x22, 8);
        send(a, Opcode.RC_RDMA_WRITE_ONLY, 6, 0x23, 8);
        runIdle();
        assertEquals(List.of(1, 3, 6), rec.psns(PacketEvent.DELIVERED));
        assertEquals(List.of(2, 4, 5), rec.dropped());
    }

    @Test
    @DisplayName("requests(), responses(), managementDatagrams(), from(), and/or/negate classify packets")
    void shouldClassifyEveryOpcodeWhenUsingDirectionMatchers() {
        simpleFabric(4);
        for (Opcode op : Opcode.values()) {
            Packet p = Packet.allocate(op);
            try {
                p.route(a.gid(), b.gid());
                // A UD packet to QP1 is a MAD; to any other QP, a UD QP's datagram: a request.
                p.destQp(op.isUd() ? Device.GSI_QPN : 0x42);
                assertEquals(
                        op.isRequest() && !op.isUd(), PacketMatcher.requests().matches(p, 1), op.toString());
                assertEquals(op.isResponse(), PacketMatcher.responses().matches(p, 1), op.toString());
                assertEquals(op.isUd(), PacketMatcher.managementDatagrams().matches(p, 1), op.toString());
                if (op.isUd()) {
                    p.destQp(0x42);
                    assertTrue(PacketMatcher.requests().matches(p, 1), op + " to a UD QP is a request");
                    assertFalse(PacketMatcher.managementDatagrams().matches(p, 1), op + " to a UD QP is no MAD");
                    p.destQp(Device.GSI_QPN);
                }
                assertTrue(PacketMatcher.any().matches(p, 99));
                assertTrue(PacketMatcher.from(a).matches(p, 1));
                assertFalse(PacketMatcher.from(b).matches(p, 1));
                // Every RC packet is exactly one of request or response.
                assertTrue(op.isUd()
                        || PacketMatcher.requests()
                                .or(PacketMatcher.responses())
                                .matches(p, 1));
                assertFalse(
                        PacketMatcher.requests().and(PacketMatcher.responses()).matches(p, 1));
                assertEquals(
                        !op.isResponse(), PacketMatcher.responses().negate().matches(p, 1));
            } finally {
                p.release();
            }
        }
        assertTrue(PacketMatcher.nth(4).and(PacketMatcher.any()).matches(null, 4));
        assertFalse(PacketMatcher.nth(4).matches(null, 5));
    }

    // ------------------------------------------------------------------ probability and hit limits

    @Test
    @DisplayName("Probability 0 never fires; probability 1 always fires")
    void shouldNeverOrAlwaysDropWhenProbabilityIsZeroOrOne() {
        simpleFabric(5);
        FaultRule never = FaultRule.drop(PacketMatcher.any(), 0.0);
        FaultRule dupAlways = FaultRule.duplicate(PacketMatcher.any(), 1.0);
        link.addFault(never).addFault(dupAlways);
        for (int psn = 0; psn < 200; psn++) {
            send(psn);
        }
        runIdle();
        assertEquals(0, never.hits());
        assertEquals(200, dupAlways.hits());
        assertEquals(new Link.LinkStats(200, 400, 0, 200, 0, 0), link.stats(a));
        link.clearFaults();
        assertTrue(link.faults().isEmpty());
        FaultRule always = FaultRule.drop(PacketMatcher.any(), 1.0);
        link.addFault(always);
        for (int psn = 0; psn < 200; psn++) {
            send(psn);
        }
        runIdle();
        assertEquals(200, always.hits());
        assertEquals(new Link.LinkStats(400, 400, 200, 200, 0, 0), link.stats(a));
    }

    @Test
    @DisplayName(
            "A probability is applied per packet from the seeded source: about p of them, the same ones for the same seed")
    void shouldDropAboutPAndTheSamePacketsWhenTheSeedIsTheSame() {
        List<Integer> first = null;
        for (int run = 0; run < 2; run++) {
            simpleFabric(77);
            link.addFault(FaultRule.drop(PacketMatcher.any(), 0.3));
            for (int psn = 0; psn < 1000; psn++) {
                send(psn);
            }
            runIdle();
            List<Integer> dropped = rec.dropped();
            // Binomial(1000, 0.3): mean 300, sd 14.5; +-5 sd.
            assertTrue(dropped.size() > 227 && dropped.size() < 373, "dropped " + dropped.size());
            if (first == null) {
                first = dropped;
            } else {
                assertEquals(first, dropped, "same seed, same drops");
            }
            fabric.close();
            fabric = null;
            rec.events.clear();
        }
    }

    @Test
    @DisplayName("times(n) limits a rule to n hits; with a probability, hits count only packets it acted on")
    void shouldStopAfterNHitsWhenRuleHasALimit() {
        simpleFabric(6);
        FaultRule twice = FaultRule.drop(PacketMatcher.any(), 1.0).times(2);
        link.addFault(twice);
        for (int psn = 0; psn < 6; psn++) {
            send(psn);
        }
        runIdle();
        assertEquals(List.of(0, 1), rec.dropped());
        assertEquals(2, twice.hits());
        link.clearFaults();
        FaultRule thrice = FaultRule.drop(PacketMatcher.any(), 0.5).times(3);
        link.addFault(thrice);
        for (int psn = 100; psn < 200; psn++) {
            send(psn);
        }
        runIdle();
        assertEquals(5, rec.droppedEvents().size());
        assertEquals(3, thrice.hits());
        assertTrue(thrice.toString().contains("max 3"), thrice.toString());
    }

    @Test
    @DisplayName("Rules apply in the order added: a DROP ends the decision; delays add up")
    void shouldApplyRulesInOrderWhenSeveralMatch() {
        simpleFabric(7);
        FaultRule dup = FaultRule.duplicate(PacketMatcher.psn(1), 1.0);
        FaultRule drop = FaultRule.drop(PacketMatcher.psn(1), 1.0);
        FaultRule late = FaultRule.delay(PacketMatcher.psn(1), 1.0, 100);
        link.addFault(dup).addFault(drop).addFault(late);
        link.addFault(FaultRule.delay(PacketMatcher.psn(2), 1.0, 100))
                .addFault(FaultRule.delay(PacketMatcher.psn(2), 1.0, 250));
        send(1);
        send(2);
        runIdle();
        assertEquals(List.of(1), rec.dropped());
        assertEquals(0, late.hits(), "never reached after the drop");
        assertEquals(1, dup.hits());
        assertEquals(0, rec.of(PacketEvent.DUPLICATED).size(), "a dropped packet is not duplicated");
        assertEquals(1_000 + 350, rec.delivered(2).time());
        assertEquals(5, link.faults().size());
    }

    @Test
    @DisplayName("FaultRule validates its arguments once")
    void shouldRejectInvalidRulesWhenBuilt() {
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop(PacketMatcher.any(), 1.5));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop(PacketMatcher.any(), -0.1));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.drop(PacketMatcher.any(), Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.delay(PacketMatcher.any(), 1, 0));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.reorder(PacketMatcher.any(), 1, 0));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.delay(PacketMatcher.any(), 1, -5));
        assertThrows(
                IllegalArgumentException.class,
                () -> FaultRule.drop(PacketMatcher.any(), 1).times(0));
        assertThrows(NullPointerException.class, () -> FaultRule.drop(null, 1));
        FaultRule r = FaultRule.reorder(PacketMatcher.any(), 0.25, 10);
        assertEquals(FaultRule.Action.REORDER, r.action());
        assertEquals(0.25, r.probability());
        assertEquals(10, r.nanos());
    }

    // ------------------------------------------------------------------ duplicate, delay, reorder, corrupt

    @Test
    @DisplayName("DUPLICATE delivers a second identical copy at the same time")
    void shouldDeliverTwoIdenticalCopiesWhenDuplicated() {
        simpleFabric(8);
        link.addFault(FaultRule.duplicate(PacketMatcher.nth(2), 1.0));
        send(a, Opcode.RC_RDMA_WRITE_ONLY, 10, 0x11, 100);
        send(a, Opcode.RC_RDMA_WRITE_ONLY, 11, 0x11, 100);
        send(a, Opcode.RC_RDMA_WRITE_ONLY, 12, 0x11, 100);
        runIdle();
        assertEquals(List.of(10, 11, 11, 12), rec.psns(PacketEvent.DELIVERED));
        List<Ev> copies = rec.of(PacketEvent.DELIVERED).stream()
                .filter(e -> e.psn() == 11)
                .collect(Collectors.toList());
        assertEquals(copies.get(0).time(), copies.get(1).time());
        assertEquals(1_000, copies.get(0).time());
        assertEquals(List.of(11), rec.psns(PacketEvent.DUPLICATED));
        assertEquals(new Link.LinkStats(3, 4, 0, 1, 0, 0), link.stats(a));
        assertEquals(4, b.counters().get(Counter.PACKETS_RECEIVED), "both copies reach the port");
    }

    @Test
    @DisplayName("DELAY shifts delivery by exactly its time in virtual time; later packets overtake")
    void shouldShiftDeliveryByExactlyTheDelayWhenDelayed() {
        simpleFabric(9);
        link.addFault(FaultRule.delay(PacketMatcher.psn(1), 1.0, 50_000));
        send(0);
        send(1);
        send(2);
        fabric.deterministicScheduler().advanceTime(10_000);
        send(3);
        runIdle();
        assertEquals(1_000, rec.delivered(0).time());
        assertEquals(51_000, rec.delivered(1).time(), "latency + exactly the delay");
        assertEquals(1_000, rec.delivered(2).time());
        assertEquals(11_000, rec.delivered(3).time());
        assertEquals(List.of(0, 2, 3, 1), rec.psns(PacketEvent.DELIVERED), "later packets overtake the delayed one");
        assertEquals(List.of(1), rec.psns(PacketEvent.DELAYED));
        assertEquals(0, rec.of(PacketEvent.DELAYED).get(0).time(), "DELAYED is traced when sent");
        assertEquals(new Link.LinkStats(4, 4, 0, 0, 1, 0), link.stats(a));
    }

    @Test
    @DisplayName("REORDER holds a packet back 1..max ns so that packets behind it overtake it")
    void shouldLetLaterPacketsOvertakeWhenReordered() {
        simpleFabric(10);
        link.addFault(FaultRule.reorder(PacketMatcher.nth(1), 1.0, 10_000));
        for (int psn = 0; psn < 5; psn++) {
            send(psn);
        }
        runIdle();
        long t0 = rec.delivered(0).time();
        assertTrue(t0 > 1_000 && t0 <= 11_000, "held back 1..10000 ns: " + t0);
        assertEquals(0, rec.psns(PacketEvent.DELIVERED).get(4), "the held packet arrives last");

        // Over many packets the extra delay covers (0, max] and nothing else.
        rec.events.clear();
        link.clearFaults();
        link.addFault(FaultRule.reorder(PacketMatcher.any(), 1.0, 500));
        long start = fabric.now();
        for (int psn = 0; psn < 300; psn++) {
            send(psn);
        }
        runIdle();
        long min = Long.MAX_VALUE;
        long max = 0;
        for (Ev e : rec.of(PacketEvent.DELIVERED)) {
            long extra = e.time() - start - 1_000;
            min = Math.min(min, extra);
            max = Math.max(max, extra);
        }
        assertTrue(min >= 1 && max <= 500, "extra delay in [" + min + ", " + max + "]");
        assertTrue(max - min > 400, "the draw spreads over the range: [" + min + ", " + max + "]");
        List<Integer> order = rec.psns(PacketEvent.DELIVERED);
        List<Integer> sorted = new ArrayList<>(order);
        Collections.sort(sorted);
        assertFalse(order.equals(sorted), "some packets overtook others");
    }

    @Test
    @DisplayName("CORRUPT flips a bit after the sender's ICRC: the receiving port drops it as BAD_ICRC (IBA 7.8.1)")
    void shouldDropAtReceiverAsBadIcrcWhenCorrupted() {
        simpleFabric(11);
        link.addFault(FaultRule.corrupt(PacketMatcher.any(), 1.0));
        ByteBuffer src = ByteBuffer.allocate(64);
        for (int i = 0; i < 64; i++) {
            src.put(i, (byte) i);
        }
        ByteBuffer copy = ByteBuffer.allocate(64).put(src.duplicate()).clear();
        for (int psn = 0; psn < 50; psn++) {
            Packet p =
                    Packet.allocate(Opcode.RC_SEND_ONLY).psn(psn).destQp(0x11).pkey(0xFFFF);
            p.addSegment(src, 0, 64).updatePadCount().route(a.gid(), b.gid());
            a.executor().call(() -> {
                ((LinkImpl) link).transmit(a, p);
                return null;
            });
        }
        runIdle();
        assertEquals(copy, src, "corruption never touches the sender's memory");
        assertEquals(50, rec.of(PacketEvent.CORRUPTED).size());
        long badIcrc = rec.droppedEvents().stream()
                .filter(e -> e.reason() == DropReason.BAD_ICRC)
                .count();
        // Only a flip of BTH byte 4 (FECN, BECN, reserved: masked out of the ICRC) goes unnoticed:
        // 8 of the 608 bits of these packets.
        assertTrue(badIcrc >= 45, "BAD_ICRC drops: " + badIcrc);
        assertEquals(badIcrc, b.counters().get(Counter.INVALID_PACKETS));
        assertEquals(new Link.LinkStats(50, 50, 0, 0, 0, 50), link.stats(a), "the link delivers; the port drops");
    }

    // ------------------------------------------------------------------ link down and up

    @Test
    @DisplayName("downAt/upAt change the link at exact virtual times; in-flight packets are lost when they arrive")
    void shouldLosePacketsInFlightAndSentWhenLinkIsDown() {
        fabric(12, new LinkConfig(10_000, 0));
        link.downAt(10_000).upAt(30_000);
        var sched = fabric.deterministicScheduler();
        sched.advanceTime(5_000);
        send(1); // in flight when the link goes down at 10 us, arrives at 15 us
        sched.advanceTime(5_000);
        assertFalse(link.isUp(), "down at exactly 10 us");
        assertEquals(List.of("10000 down a<->b"), rec.linkChanges);
        sched.advanceTime(10_000);
        send(2); // sent while down, at 20 us
        sched.advanceTime(9_999);
        assertFalse(link.isUp());
        sched.advanceTime(1);
        assertTrue(link.isUp(), "up at exactly 30 us");
        send(3); // sent at 30 us, arrives at 40 us
        runIdle();
        assertEquals(List.of("10000 down a<->b", "30000 up a<->b"), rec.linkChanges);
        List<Ev> dropped = rec.droppedEvents();
        assertEquals(2, dropped.size(), dropped.toString());
        assertEquals(
                new Ev(15_000, PacketEvent.DROPPED, DropReason.LINK_DOWN, "a", "b", Opcode.RC_SEND_ONLY, 1, 0x11),
                dropped.get(0),
                "lost on arrival");
        assertEquals(
                new Ev(20_000, PacketEvent.DROPPED, DropReason.LINK_DOWN, "a", "b", Opcode.RC_SEND_ONLY, 2, 0x11),
                dropped.get(1),
                "lost when sent");
        assertEquals(40_000, rec.delivered(3).time());
        assertEquals(new Link.LinkStats(3, 1, 2, 0, 0, 0), link.stats(a));
    }

    @Test
    @DisplayName("A packet in flight when the link goes down is lost even if the link is up again when it arrives")
    void shouldLosePacketInFlightWhenLinkFlapsBeforeItArrives() {
        simpleFabric(13);
        link.setUp(true);
        assertTrue(rec.linkChanges.isEmpty(), "already up: no change traced");
        send(1); // on the wire from 0 to 1000 ns
        link.downAt(500).upAt(800);
        send(2); // sent at 0 too
        runIdle();
        assertEquals(List.of("500 down a<->b", "800 up a<->b"), rec.linkChanges);
        assertEquals(List.of(1, 2), rec.dropped(), "both were on the wire at 500 ns");
        assertTrue(
                rec.droppedEvents().stream().allMatch(e -> e.reason() == DropReason.LINK_DOWN && e.time() == 1_000),
                rec.events.toString());
        send(3);
        runIdle();
        assertEquals(List.of(3), rec.psns(PacketEvent.DELIVERED), "sent after the link came back");
        assertEquals(new Link.LinkStats(3, 1, 2, 0, 0, 0), link.stats(a));
    }

    @Test
    @DisplayName("A link up again delivers packets sent after it came back")
    void shouldDeliverWhenLinkIsBackUp() {
        simpleFabric(14);
        link.setUp(false);
        send(1);
        link.setUp(true);
        send(2);
        link.setUp(true);
        runIdle();
        assertEquals(List.of("0 down a<->b", "0 up a<->b"), rec.linkChanges);
        assertEquals(List.of(1), rec.dropped());
        assertEquals(List.of(2), rec.psns(PacketEvent.DELIVERED));
        fabric.deterministicScheduler().advanceTime(5_000);
        long now = fabric.now();
        link.downAt(now - 1_000);
        runIdle();
        assertFalse(link.isUp(), "a time already passed applies at once");
        assertEquals(now + " down a<->b", rec.linkChanges.get(2));
    }

    // ------------------------------------------------------------------ timing and stats

    @Test
    @DisplayName(
            "LinkConfig: arrival = start of transmission + (frame bytes x 8 / bandwidth) + latency, back to back per direction")
    void shouldAddLatencyAndSerializationWhenBandwidthIsFinite() {
        // 8 Gb/s: one byte per nanosecond. Frame = 12 BTH + 1000 payload + 0 pad + 4 ICRC + 46 RoCEv2 overhead.
        fabric(15, new LinkConfig(2_000, 8_000_000_000L));
        send(a, Opcode.RC_SEND_MIDDLE, 1, 0x11, 1000);
        send(a, Opcode.RC_SEND_MIDDLE, 2, 0x11, 1000);
        send(a, Opcode.RC_SEND_LAST, 3, 0x11, 1); // 12 + 1 + 3 pad + 4 + 46 = 66 bytes
        send(b, Opcode.RC_ACKNOWLEDGE, 9, 0x11, 0); // 16 + 4 + 46 = 66 bytes, the other direction
        runIdle();
        assertEquals(1_062 + 2_000, rec.delivered(1).time());
        assertEquals(2 * 1_062 + 2_000, rec.delivered(2).time(), "waits for the first to leave the wire");
        assertEquals(2 * 1_062 + 66 + 2_000, rec.delivered(3).time());
        assertEquals(66 + 2_000, rec.delivered(9).time(), "each direction has its own wire");

        // A new configuration applies to packets sent from then on; a wire idle again starts at once.
        fabric.deterministicScheduler().advanceTime(100_000);
        long t = fabric.now();
        link.config(LinkConfig.instant());
        send(4);
        runIdle();
        assertEquals(t, rec.delivered(4).time(), "instant: no latency, no serialization");
        assertEquals(LinkConfig.instant(), link.config());
    }

    @Test
    @DisplayName("LinkConfig defaults and validation: data center 1 us / 100 Gb/s, instant 0 / infinite")
    void shouldDescribeTimingWhenLinkConfigIsBuilt() {
        assertEquals(new LinkConfig(1_000, 100_000_000_000L), LinkConfig.dataCenter());
        assertEquals(new LinkConfig(0, 0), LinkConfig.instant());
        assertEquals(0, LinkConfig.instant().serializationNanos(4096));
        // (4096 + 46) bytes x 8 bits / 100 Gb/s = 331.36 ns, truncated.
        assertEquals(331, LinkConfig.dataCenter().serializationNanos(4096));
        assertThrows(IllegalArgumentException.class, () -> new LinkConfig(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new LinkConfig(0, -1));
        simpleFabric(16);
        assertEquals(new LinkConfig(1_000, 0), link.config());
        try (Fabric f = Fabric.deterministic(1)) {
            Device x = f.createDevice("x");
            Device y = f.createDevice("y");
            assertEquals(LinkConfig.dataCenter(), f.link(x, y).config(), "deterministic default");
            assertEquals(f.link(x, y), f.link(y, x), "one link either way round");
        }
        try (Fabric f = Fabric.threaded()) {
            Device x = f.createDevice("x");
            Device y = f.createDevice("y");
            assertEquals(LinkConfig.instant(), f.link(x, y).config(), "threaded default");
        }
    }

    @Test
    @DisplayName("LinkStats counts each direction separately; a device that is not an end is refused")
    void shouldCountPerDirectionWhenStatsAreRead() {
        simpleFabric(17);
        link.addFault(FaultRule.drop(PacketMatcher.psn(2), 1.0))
                .addFault(FaultRule.duplicate(PacketMatcher.psn(3), 1.0))
                .addFault(FaultRule.delay(PacketMatcher.psn(4), 1.0, 10))
                .addFault(FaultRule.corrupt(PacketMatcher.psn(5), 1.0));
        for (int psn = 1; psn <= 6; psn++) {
            send(psn);
        }
        send(b, Opcode.RC_ACKNOWLEDGE, 3, 0x11, 0);
        runIdle();
        assertEquals(new Link.LinkStats(6, 6, 1, 1, 1, 1), link.stats(a));
        assertEquals(new Link.LinkStats(1, 2, 0, 1, 0, 0), link.stats(b));
        Device c = fabric.createDevice("c");
        assertThrows(IllegalArgumentException.class, () -> link.stats(c));
        assertNull(rec.of(PacketEvent.DELIVERED).get(0).from(), "DELIVERED is traced by the receiving port");
        assertEquals("b", rec.of(PacketEvent.DELIVERED).get(0).to());
        assertTrue(rec.of(PacketEvent.SENT).stream().allMatch(e -> e.from() != null && e.to() != null));
    }

    @Test
    @DisplayName("Faults apply to real RC traffic: a dropped request PSN is retransmitted and the WR succeeds")
    void shouldRecoverFromADroppedPsnWhenRcTrafficCrossesTheLink() {
        fabric = null;
        try (RcPair p = new RcPair(Fabric.deterministic(18))) {
            p.timeout = 8;
            p.connect();
            FaultRule rule = FaultRule.drop(PacketMatcher.psn(p.psnA + 1).and(PacketMatcher.requests()), 1.0)
                    .times(1);
            p.link().addFault(rule);
            Recorder r = new Recorder();
            p.fabric.addTraceListener(r);
            RcPair.fill(p.a.buf, 0, 3000, 5);
            p.b.qp.postRecv(new RecvWr().wrId(1).sge(p.b.mr, 0, 4096));
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 3000)
                    .flag(SendFlag.SIGNALED));
            assertEquals(
                    WcStatus.SUCCESS, p.a.poll(TimeUnit.SECONDS.toMillis(1)).status());
            assertEquals(WcStatus.SUCCESS, p.b.poll(10).status());
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 0, 3000);
            assertEquals(1, rule.hits());
            assertTrue(r.of(PacketEvent.RETRANSMITTED).stream().anyMatch(e -> e.psn() == p.psnA + 1));
            assertTrue(p.a.qp.counters().get(Counter.RETRANSMITTED_PACKETS) > 0);
        }
    }
}
