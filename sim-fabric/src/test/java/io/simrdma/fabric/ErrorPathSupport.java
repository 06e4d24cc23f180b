package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Shared helpers of the error-path tests (ProtectionErrorTest, ErrorReceiveTest, RnrTest, ...):
 * fabric modes, canary bytes, exact completion and async event expectations.
 */
final class ErrorPathSupport {

    /** Byte written around (and inside) every target a failed access must not touch. */
    static final byte CANARY = (byte) 0xC5;

    /** The two scheduler modes a scheduler-independent contract runs on. */
    static final String DET = "det";

    static final String THREADED = "threaded";

    private ErrorPathSupport() {}

    /** Both modes with each of {@code values}: the arguments (mode, value) of a parameterized test. */
    static Stream<Arguments> modesWith(Object... values) {
        return Stream.of(DET, THREADED).flatMap(m -> Stream.of(values).map(v -> Arguments.of(m, v)));
    }

    private static Fabric fabric(String mode) {
        return mode.equals(DET) ? Fabric.deterministic(0x5EED) : Fabric.threaded();
    }

    /** A connected-ready pair (not yet connected) of the given mode, seeded for determinism. */
    static RcPair pair(String mode) {
        return new RcPair(fabric(mode));
    }

    static RcPair pair(String mode, QpCaps caps, int cqe) {
        return new RcPair(fabric(mode), caps, cqe, false);
    }

    static boolean deterministic(RcPair p) {
        return p.fabric.scheduler().isDeterministic();
    }

    /** Polls the next completion of {@code s} and checks its wr_id and status exactly. */
    static WorkCompletion expect(RcPair.Side s, long wrId, WcStatus status) {
        WorkCompletion wc = s.poll();
        assertEquals(status, wc.status(), "status of wr " + wc.wrId() + " on " + s.dev.name() + ": " + wc);
        assertEquals(wrId, wc.wrId(), "wr_id of the completion on " + s.dev.name() + ": " + wc);
        assertEquals(s.qp.qpNum(), wc.qpNum(), "qp_num of " + wc);
        return wc;
    }

    /** Asserts that no completion arrives on {@code s} within {@code millis} (fabric time). */
    static void assertNoCompletion(RcPair.Side s, long millis) {
        assertFalse(
                s.cq.awaitCompletions(1, millis, TimeUnit.MILLISECONDS),
                "unexpected completion on " + s.dev.name() + " (" + s.cq.size() + " waiting)");
    }

    /** Waits (fabric time) for an async event, checks its type and element, and acknowledges it. */
    static AsyncEvent expectEvent(Device d, AsyncEventType type, Object element) {
        AsyncEvent e = d.getAsyncEvent(5, TimeUnit.SECONDS);
        assertNotNull(e, "no async event on " + d.name() + ", expected " + type);
        d.ackAsyncEvent(e);
        assertEquals(type, e.type(), "async event on " + d.name() + ": " + e);
        switch (type.element()) {
            case QP:
                assertTrue(e.qp() == element, "event names " + e.qp() + ", expected " + element);
                break;
            case CQ:
                assertTrue(e.cq() == element, "event names " + e.cq() + ", expected " + element);
                break;
            default:
                break;
        }
        return e;
    }

    /** Asserts that no async event is queued on {@code d}. */
    static void assertNoEvent(Device d) {
        AsyncEvent e = d.pollAsyncEvent();
        if (e != null) {
            d.ackAsyncEvent(e);
            fail("unexpected async event on " + d.name() + ": " + e);
        }
    }

    /** Waits on the fabric's clock until {@code condition} holds; deterministic mode runs the engine meanwhile. */
    static boolean await(Fabric f, BooleanSupplier condition, long millis) {
        return f.scheduler().newSignal().await(condition, TimeUnit.MILLISECONDS.toNanos(millis));
    }

    /**
     * Waits until {@code qp} is in {@code state}. The engine completes the failing WQE first and
     * then moves the QP, so under the threaded scheduler the test may see the completion first.
     */
    static void awaitState(Fabric f, QueuePair qp, QpState state) {
        assertTrue(await(f, () -> qp.state() == state, 5_000), qp + " did not reach " + state);
        assertEquals(state, qp.query().state(), "queried state of " + qp);
    }

    static void fill(ByteBuffer b, int from, int len, byte v) {
        DataPathSupport.fillConstant(b, from, len, v);
    }

    /** Asserts that {@code len} bytes from {@code from} all still hold {@code v}. */
    static void assertUntouched(ByteBuffer b, int from, int len, byte v, String what) {
        for (int i = 0; i < len; i++) {
            if (b.get(from + i) != v) {
                fail(what + ": byte at index " + (from + i) + " was changed to " + b.get(from + i) + " (canary " + v
                        + ")");
            }
        }
    }

    /** Records packet and QP-state events with their fabric time. */
    static final class Recorder implements TraceListener {
        record PacketRecord(PacketEvent event, long time, Device from, int opcode, int psn) {}

        record StateRecord(long time, QueuePair qp, QpState from, QpState to) {}

        final List<PacketRecord> packets = new ArrayList<>();
        final List<StateRecord> states = new ArrayList<>();

        @Override
        public synchronized void onPacket(
                PacketEvent event,
                DropReason reason,
                long time,
                Device from,
                Device to,
                io.simrdma.fabric.wire.Packet packet) {
            packets.add(new PacketRecord(event, time, from, packet.opcode().value(), packet.psn()));
        }

        @Override
        public synchronized void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {
            states.add(new StateRecord(time, qp, from, to));
        }

        /** Time of the first packet {@code from} sent ({@link PacketEvent#SENT}). */
        synchronized long firstSent(Device from) {
            for (PacketRecord r : packets) {
                if (r.event == PacketEvent.SENT && r.from == from) {
                    return r.time;
                }
            }
            throw new AssertionError("no packet sent by " + from.name());
        }

        /** Time {@code qp} entered {@code to}. */
        synchronized long entered(QueuePair qp, QpState to) {
            for (StateRecord r : states) {
                if (r.qp == qp && r.to == to) {
                    return r.time;
                }
            }
            throw new AssertionError(qp + " never entered " + to);
        }

        synchronized long count(PacketEvent e, Device from, int opcode) {
            return packets.stream()
                    .filter(r -> r.event == e && r.from == from && r.opcode == opcode)
                    .count();
        }

        /** Packets of {@code opcode} with {@code psn} that {@code from} put on the link as event {@code e}. */
        synchronized long count(PacketEvent e, Device from, int opcode, int psn) {
            return packets.stream()
                    .filter(r -> r.event == e && r.from == from && r.opcode == opcode && r.psn == psn)
                    .count();
        }
    }
}
