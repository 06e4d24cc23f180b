package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.fabric.sched.ThreadedScheduler;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Helpers shared by the data-path tests (DataPathTest, ScatterGatherTest, MtuSegmentationTest, ...):
 * the two schedulers every test runs under, polling with deadlines, and a packet log built on
 * {@link TraceListener}.
 */
final class DataPathSupport {

    static final String DETERMINISTIC = "deterministic";
    static final String THREADED = "threaded";
    static final long SEED = 0x5EED_DA7AL;

    /**
     * How long a wait for a completion may take: virtual time under the deterministic scheduler,
     * real time (a deadline, not a timing assertion) under the threaded one.
     */
    static final long TIMEOUT_MS = 20_000;

    private DataPathSupport() {}

    /** The schedulers every scheduler-independent test runs under ("one contract, every backend"). */
    static Stream<String> schedulers() {
        return Stream.of(DETERMINISTIC, THREADED);
    }

    /** Every scheduler with each of {@code values}: the arguments (scheduler, value) of a parameterized test. */
    static Stream<Arguments> schedulersWith(Object... values) {
        return schedulers().flatMap(s -> Stream.of(values).map(v -> Arguments.of(s, v)));
    }

    static Fabric fabric(String mode) {
        return mode.equals(DETERMINISTIC) ? Fabric.deterministic(SEED) : Fabric.threaded();
    }

    static RcPair pair(String mode) {
        return new RcPair(fabric(mode));
    }

    static RcPair pair(String mode, QpCaps caps, int cqe, boolean direct) {
        return new RcPair(fabric(mode), caps, cqe, direct);
    }

    /** Waits for exactly {@code n} completions on {@code cq} (within the deadline) and returns copies, oldest first. */
    static List<WorkCompletion> poll(CompletionQueue cq, int n) {
        List<WorkCompletion> out = new ArrayList<>(n);
        WorkCompletion[] wc = WorkCompletion.array(Math.max(1, Math.min(n, 64)));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (out.size() < n) {
            int want = Math.min(wc.length, n - out.size());
            int got = cq.poll(wc, want);
            for (int i = 0; i < got; i++) {
                out.add(new WorkCompletion().copyFrom(wc[i]));
            }
            if (got == 0) {
                if (!cq.awaitCompletions(1, TIMEOUT_MS, TimeUnit.MILLISECONDS) || System.nanoTime() - deadline > 0) {
                    fail("expected " + n + " completions on " + cq + " but only " + out.size() + " arrived: " + out);
                }
            }
        }
        return out;
    }

    static WorkCompletion poll(CompletionQueue cq) {
        return poll(cq, 1).get(0);
    }

    /** Polls one completion and checks that it succeeded with {@code wrId} and {@code opcode}. */
    static WorkCompletion expect(CompletionQueue cq, long wrId, WcOpcode opcode) {
        WorkCompletion wc = poll(cq);
        assertSuccess(wc, wrId, opcode);
        return wc;
    }

    static void assertSuccess(WorkCompletion wc, long wrId, WcOpcode opcode) {
        assertEquals(WcStatus.SUCCESS, wc.status(), () -> "status of " + wc);
        assertEquals(wrId, wc.wrId(), () -> "wr_id of " + wc);
        assertEquals(opcode, wc.opcode(), () -> "opcode of " + wc);
    }

    /**
     * Lets every pending engine task finish (deterministic: run until idle) and checks that the CQ
     * holds nothing more. Under the threaded scheduler callers prove absence by ordering instead
     * (a later signaled marker completes first), so this only polls once there.
     */
    static void assertCqEmpty(Fabric fabric, CompletionQueue cq) {
        if (fabric.scheduler().isDeterministic()) {
            fabric.deterministicScheduler().runUntilIdle();
        }
        WorkCompletion[] wc = WorkCompletion.array(4);
        int n = cq.poll(wc, 4);
        assertEquals(0, n, () -> "unexpected completion(s) on " + cq + ": " + wc[0]);
    }

    /** Threaded scheduler: no engine task threw (they are logged and counted, not rethrown). */
    static void assertEngineHealthy(Fabric fabric) {
        if (fabric.scheduler() instanceof ThreadedScheduler) {
            ThreadedScheduler t = (ThreadedScheduler) fabric.scheduler();
            assertEquals(0, t.failures(), () -> "engine tasks failed; last: " + t.lastFailure());
        }
    }

    static ByteBuffer buffer(int size, boolean direct) {
        return direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
    }

    /** Fills {@code len} bytes at {@code index} with a seeded pattern. */
    static void fill(ByteBuffer buf, int index, int len, long seed) {
        RcPair.fill(buf, index, len, seed);
    }

    static void fillConstant(ByteBuffer buf, int index, int len, byte value) {
        for (int i = 0; i < len; i++) {
            buf.put(index + i, value);
        }
    }

    /** Asserts that {@code len} bytes match, naming what is compared on failure. */
    static void assertBytes(String what, ByteBuffer expected, int ei, ByteBuffer actual, int ai, int len) {
        for (int i = 0; i < len; i++) {
            byte e = expected.get(ei + i);
            byte a = actual.get(ai + i);
            if (e != a) {
                fail(what + ": byte " + i + " of " + len + " differs: expected " + e + " but was " + a);
            }
        }
    }

    /** Asserts that {@code len} bytes at {@code index} all equal {@code value} (memory left untouched). */
    static void assertConstant(String what, ByteBuffer buf, int index, int len, byte value) {
        for (int i = 0; i < len; i++) {
            if (buf.get(index + i) != value) {
                fail(what + ": byte " + i + " of " + len + " was " + buf.get(index + i) + ", expected untouched "
                        + value);
            }
        }
    }

    /** Links {@code wrs} in order into one list (ibv_post_send(3) with a WR list) and returns its head. */
    static SendWr chain(SendWr... wrs) {
        for (int i = 0; i + 1 < wrs.length; i++) {
            wrs[i].next(wrs[i + 1]);
        }
        return wrs[0];
    }

    static SendWr chain(List<SendWr> wrs) {
        return chain(wrs.toArray(new SendWr[0]));
    }

    /**
     * A packet log: every packet event of the fabric, with what a test needs to reason about order
     * (copied, since packets are pooled). Safe to fill from several engine threads; under the
     * threaded scheduler the events of one device are recorded in the order its thread saw them.
     */
    static final class PacketLog implements TraceListener {

        /** One recorded event. {@code from} is null for DELIVERED and DROPPED at a port; {@code to} names the port. */
        record Entry(
                int seq,
                PacketEvent event,
                long time,
                String from,
                String to,
                Opcode opcode,
                int psn,
                int payload,
                int destQp,
                boolean ackReq) {
            boolean request() {
                return opcode.isRequest();
            }

            @Override
            public String toString() {
                return "#" + seq + " " + event + " " + from + "->" + to + " " + opcode.ibaName() + " qp=" + destQp
                        + " psn=0x" + Integer.toHexString(psn) + " len=" + payload + (ackReq ? " A" : "");
            }
        }

        private final List<Entry> entries = new ArrayList<>();

        static PacketLog attach(Fabric fabric) {
            PacketLog log = new PacketLog();
            fabric.addTraceListener(log);
            return log;
        }

        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
            synchronized (entries) {
                entries.add(new Entry(
                        entries.size(),
                        event,
                        time,
                        from == null ? null : from.name(),
                        to == null ? null : to.name(),
                        packet.opcode(),
                        packet.psn(),
                        packet.payloadLength(),
                        packet.destQp(),
                        packet.ackReq()));
            }
        }

        List<Entry> all() {
            synchronized (entries) {
                return new ArrayList<>(entries);
            }
        }

        List<Entry> where(Predicate<Entry> p) {
            List<Entry> out = new ArrayList<>();
            for (Entry e : all()) {
                if (p.test(e)) {
                    out.add(e);
                }
            }
            return out;
        }

        /** Packets of the given opcodes sent (first transmission) by device {@code from}. */
        List<Entry> sent(String from, Predicate<Opcode> opcode) {
            return where(e -> e.event() == PacketEvent.SENT && from.equals(e.from()) && opcode.test(e.opcode()));
        }

        /** Packets of the given opcodes delivered to device {@code to}. */
        List<Entry> delivered(String to, Predicate<Opcode> opcode) {
            return where(e -> e.event() == PacketEvent.DELIVERED && to.equals(e.to()) && opcode.test(e.opcode()));
        }

        void clear() {
            synchronized (entries) {
                entries.clear();
            }
        }

        /**
         * Asserts that no packet was retransmitted or dropped (the tests run on a clean link).
         * Only under the deterministic scheduler: in real time an ACK timeout may legitimately
         * fire when the machine is busy, and the retry it causes is no error.
         */
        void assertCleanWhenDeterministic(Fabric fabric) {
            if (!fabric.scheduler().isDeterministic()) {
                return;
            }
            for (Entry e : all()) {
                assertTrue(
                        e.event() == PacketEvent.SENT || e.event() == PacketEvent.DELIVERED,
                        () -> "unexpected packet event on a clean link: " + e);
            }
        }
    }
}
