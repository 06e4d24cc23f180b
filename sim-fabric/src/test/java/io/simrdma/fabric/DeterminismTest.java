package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * "The same seed gives the same run, proved by a test that compares a hash of the full event
 * trace across two runs" (ARCHITECTURE.md, Scheduler and clock: the deterministic scheduler
 * draws every choice from the seed; Faults: reproducible from the seed).
 *
 * <p>Each run is the {@link MixedWorkload} over a link with loss, duplication, reordering,
 * delay and corruption, late receives (RNR), a link that goes down and up at fixed virtual
 * times, and a port flap that raises async events. A {@link HashingListener} feeds every packet
 * event (time, event, drop reason, device names, the exact header bytes, payload length), every
 * QP state change, link change and async event into SHA-256.
 */
class DeterminismTest {

    /** SHA-256 over everything a {@link TraceListener} sees, in order. */
    static final class HashingListener implements TraceListener {
        private final MessageDigest digest;
        private final ByteBuffer scratch = ByteBuffer.allocate(256);
        private final byte[] header = new byte[Packet.MAX_HEADER_LENGTH];
        long packetEvents;
        final Map<PacketEvent, Long> byEvent = new java.util.EnumMap<>(PacketEvent.class);
        long stateChanges;
        long asyncEvents;
        long linkChanges;

        HashingListener() {
            try {
                digest = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public synchronized void onPacket(
                PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
            packetEvents++;
            byEvent.merge(event, 1L, Long::sum);
            scratch.clear();
            scratch.put((byte) 'P')
                    .putLong(time)
                    .putInt(event.ordinal())
                    .putInt(reason == null ? -1 : reason.ordinal());
            putName(from == null ? null : from.name());
            putName(to == null ? null : to.name());
            int hl = packet.headerLength();
            packet.copyHeaderTo(header, 0);
            scratch.putInt(hl).put(header, 0, hl).putInt(packet.payloadLength());
            update();
        }

        @Override
        public synchronized void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {
            stateChanges++;
            scratch.clear();
            scratch.put((byte) 'Q').putLong(time);
            putName(qp.device().name());
            scratch.putInt(qp.qpNum()).putInt(from.ordinal()).putInt(to.ordinal());
            update();
        }

        @Override
        public synchronized void onLinkStateChange(long time, Link link, boolean up) {
            linkChanges++;
            scratch.clear();
            scratch.put((byte) 'L').putLong(time);
            putName(link.toString());
            scratch.put((byte) (up ? 1 : 0));
            update();
        }

        @Override
        public synchronized void onAsyncEvent(long time, Device device, AsyncEvent event) {
            asyncEvents++;
            scratch.clear();
            scratch.put((byte) 'A').putLong(time);
            putName(device.name());
            scratch.putInt(event.type().ordinal())
                    .putLong(event.timeNanos())
                    .putInt(event.qp() == null ? -1 : event.qp().qpNum())
                    .putInt(event.portNum());
            update();
        }

        private void putName(String name) {
            if (name == null) {
                scratch.putInt(-1);
                return;
            }
            byte[] b = name.getBytes(StandardCharsets.UTF_8);
            scratch.putInt(b.length).put(b);
        }

        private void update() {
            digest.update(scratch.array(), 0, scratch.position());
        }

        synchronized String hex() {
            try {
                return HexFormat.of().formatHex(((MessageDigest) digest.clone()).digest());
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** What one run produced. */
    record Run(
            String traceHash,
            long finalTime,
            long steps,
            Map<Counter, Long> aQp,
            Map<Counter, Long> bQp,
            Map<Counter, Long> aDev,
            Map<Counter, Long> bDev,
            List<String> completions,
            String memoryHash,
            long packetEvents,
            long stateChanges,
            long asyncEvents,
            long linkChanges,
            Map<PacketEvent, Long> byEvent) {}

    /** The random faults of {@link #run}: loss, duplication, reordering, delay and corruption. */
    private static void randomFaults(RcPair p) {
        p.link()
                .addFault(FaultRule.drop(PacketMatcher.any(), 0.08))
                .addFault(FaultRule.duplicate(PacketMatcher.any(), 0.08))
                .addFault(FaultRule.reorder(PacketMatcher.any(), 0.15, 10_000))
                .addFault(FaultRule.delay(PacketMatcher.responses(), 0.1, 25_000))
                .addFault(FaultRule.corrupt(PacketMatcher.any(), 0.04));
    }

    /**
     * Scripted faults the workload recovers from: READ responses numbered ahead (implied NAKs),
     * the first ACK held on a gate that the second one opens, everything held until 300 us,
     * 10% loss between 400 and 900 us, the 5th NAK lost, and a stale ACK injected.
     */
    private static void scriptedFaults(RcPair p) {
        Link l = p.link();
        FaultGate acks = new FaultGate("acks");
        FaultRule secondAck = FaultRule.observe(PacketMatcher.nth(2, PacketMatcher.acks()));
        acks.openOnHit(secondAck);
        l.addFault(FaultRule.rewrite(PacketMatcher.readResponses(), PacketRewrite.psnShift(1))
                        .times(3))
                .addFault(secondAck)
                .addFault(FaultRule.hold(PacketMatcher.acks(), acks))
                .addFault(FaultRule.holdUntil(PacketMatcher.any(), 300_000))
                .addFault(FaultRule.drop(PacketMatcher.any(), 0.1).during(400_000, 900_000))
                .addFault(FaultRule.drop(PacketMatcher.nth(5, PacketMatcher.naks())));
        l.inject(
                p.b.dev,
                Packet.allocate(Opcode.RC_ACKNOWLEDGE)
                        .destQp(p.a.qp.qpNum())
                        .pkey(0xFFFF)
                        .psn(Psn.add(p.psnA, -1))
                        .aeth(Aeth.ack(Aeth.CREDITS_INVALID), 0));
    }

    private static Run run(long seed) {
        return run(seed, false);
    }

    private static Run run(long seed, boolean scripted) {
        try (RcPair p = new RcPair(Fabric.deterministic(seed))) {
            HashingListener h = new HashingListener();
            p.fabric.addTraceListener(h);
            p.timeout = 10;
            p.connect();
            if (scripted) {
                scriptedFaults(p);
            } else {
                randomFaults(p);
            }
            // The link drops out for 200 us while the receives are still missing.
            p.link().downAt(150_000).upAt(350_000);
            MixedWorkload w = new MixedWorkload(p, seed).post(100_000);
            w.runUntil(w::allDone, TimeUnit.SECONDS.toNanos(60));
            w.settle(TimeUnit.MILLISECONDS.toNanos(50));
            w.assertEveryWrSucceededOnce();
            // A port flap raises PORT_ERR and PORT_ACTIVE (ibv_get_async_event(3)).
            p.b.dev.setPortActive(false);
            p.b.dev.setPortActive(true);
            p.fabric.deterministicScheduler().advanceTime(1_000);

            List<String> completions = new ArrayList<>();
            for (List<WorkCompletion> l : List.of(w.seen.aSend, w.seen.aRecv, w.seen.bSend, w.seen.bRecv)) {
                for (WorkCompletion wc : l) {
                    completions.add(wc.toString());
                }
            }
            MessageDigest md = sha256();
            md.update(p.a.buf.duplicate().clear());
            md.update(p.b.buf.duplicate().clear());
            return new Run(
                    h.hex(),
                    p.fabric.now(),
                    p.fabric.deterministicScheduler().steps(),
                    p.a.qp.counters().snapshot(),
                    p.b.qp.counters().snapshot(),
                    p.a.dev.counters().snapshot(),
                    p.b.dev.counters().snapshot(),
                    completions,
                    HexFormat.of().formatHex(md.digest()),
                    h.packetEvents,
                    h.stateChanges,
                    h.asyncEvents,
                    h.linkChanges,
                    Map.copyOf(h.byEvent));
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 0x5EED_CAFEL, -7})
    @DisplayName("Same seed, same run: identical SHA-256 of the full event trace, final virtual time and counters")
    void shouldProduceIdenticalTraceHashTimeAndCountersWhenSameSeedRunsTwice(long seed) {
        Run first = run(seed);
        Run second = run(seed);
        assertEquals(first.traceHash(), second.traceHash(), "trace hash of two runs with seed " + seed);
        assertEquals(first.finalTime(), second.finalTime(), "final virtual time");
        assertEquals(first.steps(), second.steps(), "scheduler steps");
        assertEquals(first.aQp(), second.aQp(), "QP a counters");
        assertEquals(first.bQp(), second.bQp(), "QP b counters");
        assertEquals(first.aDev(), second.aDev(), "device a counters");
        assertEquals(first.bDev(), second.bDev(), "device b counters");
        assertEquals(first.completions(), second.completions(), "completions");
        assertEquals(first.memoryHash(), second.memoryHash(), "registered memory after the run");
        assertEquals(first.packetEvents(), second.packetEvents());

        // The trace is not trivial: faults and recovery happened and every kind of event was hashed.
        assertTrue(first.packetEvents() > 200, "packet events: " + first.packetEvents());
        assertTrue(
                first.aQp().get(Counter.RETRANSMITTED_PACKETS) > 0, first.aQp().toString());
        assertTrue(first.bQp().get(Counter.RNR_NAK_SENT) > 0, "late receives: " + first.bQp());
        assertTrue(first.stateChanges() >= 6, "RESET->INIT->RTR->RTS for two QPs: " + first.stateChanges());
        assertEquals(2, first.asyncEvents(), "PORT_ERR and PORT_ACTIVE");
        assertEquals(2, first.linkChanges(), "link down at 150 us and up at 350 us");
    }

    @Test
    @DisplayName(
            "Scripted faults replay too: rewrites, holds on gates and until a time, windows, counted drops and an injected packet give the same trace for the same seed")
    void shouldProduceIdenticalTraceHashWhenScriptedFaultsRunTwiceWithTheSameSeed() {
        Run first = run(9, true);
        Run second = run(9, true);
        assertEquals(first.traceHash(), second.traceHash(), "trace hash of two scripted runs");
        assertEquals(first.finalTime(), second.finalTime(), "final virtual time");
        assertEquals(first.steps(), second.steps(), "scheduler steps");
        assertEquals(first.aQp(), second.aQp(), "QP a counters");
        assertEquals(first.bQp(), second.bQp(), "QP b counters");
        assertEquals(first.completions(), second.completions(), "completions");
        assertEquals(first.memoryHash(), second.memoryHash(), "registered memory after the run");
        assertEquals(first.byEvent(), second.byEvent());
        for (PacketEvent e :
                List.of(PacketEvent.REWRITTEN, PacketEvent.HELD, PacketEvent.RELEASED, PacketEvent.INJECTED)) {
            assertTrue(first.byEvent().getOrDefault(e, 0L) > 0, "the script produced " + e + ": " + first.byEvent());
        }
        assertTrue(
                first.aQp().get(Counter.RETRANSMITTED_PACKETS) > 0, first.aQp().toString());
    }

    @Test
    @DisplayName("A different seed gives a different run (different fault decisions and same-time interleaving)")
    void shouldProduceDifferentTraceHashWhenSeedDiffers() {
        Run a = run(1);
        Run b = run(2);
        assertNotEquals(a.traceHash(), b.traceHash());
        // Different fault decisions: at least the amount of work differs.
        assertTrue(
                a.steps() != b.steps()
                        || a.finalTime() != b.finalTime()
                        || !a.aQp().equals(b.aQp()),
                "two seeds ran exactly the same schedule");
        // Both still complete every WR exactly once (checked inside run) with the same data.
        assertEquals(a.completions().size(), b.completions().size());
    }

    @Test
    @DisplayName("The hash covers the header bytes: one bit of difference changes it")
    void shouldChangeTraceHashWhenOnlyOneHeaderBitDiffers() {
        HashingListener x = new HashingListener();
        HashingListener y = new HashingListener();
        Packet p = Packet.allocate(Opcode.RC_SEND_ONLY).psn(5).destQp(0x11);
        Packet q = Packet.allocate(Opcode.RC_SEND_ONLY).psn(5).destQp(0x11).solicited(true);
        try {
            x.onPacket(PacketEvent.SENT, null, 7, null, null, p);
            y.onPacket(PacketEvent.SENT, null, 7, null, null, q);
            assertNotEquals(x.hex(), y.hex());
            HashingListener z = new HashingListener();
            z.onPacket(PacketEvent.SENT, null, 7, null, null, p);
            assertEquals(x.hex(), z.hex());
        } finally {
            p.release();
            q.release();
        }
    }
}
