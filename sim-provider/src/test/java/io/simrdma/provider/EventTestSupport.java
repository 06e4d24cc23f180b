package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.dat.CnoWaitResult;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Helpers for the tests that look at events and at the fabric (EVD, CNO, DTO completion, connection,
 * endpoint and object tests): the fabric, device and link under a {@link DatPair}, waiting on a
 * condition the way the fabric's scheduler waits (it runs the deterministic fabric, and re-checks
 * under the threaded one), looking at an EVD's queue without taking events, "no event" checks, and
 * watching packets.
 */
final class EventTestSupport {

    /** How long a threaded test waits for something that must happen. */
    static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(20);

    private EventTestSupport() {}

    static SimIa sim(InterfaceAdapter ia) {
        return (SimIa) ia;
    }

    static SimEvd sim(EventDispatcher evd) {
        return (SimEvd) evd;
    }

    static Fabric fabric(DatPair p) {
        return sim(p.a.ia).fabric;
    }

    static Device device(DatPair.Side s) {
        return sim(s.ia).device;
    }

    /** The provider's default endpoint attributes (dat_ep_create with NULL attributes), to change. */
    static EpAttributes.Builder attrs(DatPair.Side s) {
        return EpAttributeRules.defaults(sim(s.ia)).toBuilder();
    }

    /** The link between the pair's two devices. */
    static Link link(DatPair p) {
        return fabric(p).link(device(p.a), device(p.b));
    }

    /**
     * Waits until {@code condition} holds: on the deterministic fabric by running it, on the threaded
     * one by re-checking; fails after the deadline.
     */
    static void await(InterfaceAdapter ia, BooleanSupplier condition, String what) {
        boolean ok = sim(ia).fabric.scheduler().newSignal().await(condition, DEADLINE_NANOS);
        if (!ok) {
            fail("timed out waiting for " + what);
        }
    }

    /** Events queued on {@code evd} (without taking any). */
    static int queued(EventDispatcher evd) {
        return sim(evd).size();
    }

    /** Waits until at least {@code n} events are queued on {@code evd} of {@code ia}. */
    static void awaitQueued(InterfaceAdapter ia, EventDispatcher evd, int n) {
        await(ia, () -> queued(evd) >= n, n + " event(s) on " + evd);
    }

    /** Asserts that {@code evd} holds no event now (dat_evd_dequeue(3DAT) returns DAT_QUEUE_EMPTY). */
    static void assertNoEvent(EventDispatcher evd) {
        Optional<DatEvent> e = evd.dequeue();
        if (e.isPresent()) {
            fail("expected no event on " + evd + ", got " + e.get());
        }
    }

    /** Takes every event queued on {@code evd} with dat_evd_dequeue. */
    static List<DatEvent> drain(EventDispatcher evd) {
        List<DatEvent> out = new ArrayList<>();
        for (Optional<DatEvent> e = evd.dequeue(); e.isPresent(); e = evd.dequeue()) {
            out.add(e.get());
        }
        return out;
    }

    /** The next DTO completion of {@code evd} (waiting with the pair's deadline). */
    static DtoCompletionEvent nextDto(EventDispatcher evd) {
        return DatPair.next(evd, DtoCompletionEvent.class);
    }

    /** The next event of {@code evd}, which must be the DTO completion of {@code cookie}. */
    static DtoCompletionEvent completion(EventDispatcher evd, long cookie) {
        DtoCompletionEvent e = nextDto(evd);
        assertEquals(cookie, e.userCookie(), () -> "cookie of " + e);
        return e;
    }

    /** The next event of {@code evd}, which must be the DTO completion of {@code cookie} with {@code status}. */
    static DtoCompletionEvent completion(EventDispatcher evd, long cookie, DtoCompletionStatus status) {
        DtoCompletionEvent e = completion(evd, cookie);
        assertEquals(status, e.status(), () -> "status of " + e);
        return e;
    }

    /** The next event of {@code evd}, which must be {@code ep}'s DTO completion of {@code cookie} with {@code status}. */
    static DtoCompletionEvent nextDto(EventDispatcher evd, Endpoint ep, long cookie, DtoCompletionStatus status) {
        return assertDto(nextDto(evd), evd, ep, cookie, status);
    }

    /** Asserts a completion's EVD, EP, cookie and status. */
    static DtoCompletionEvent assertDto(
            DtoCompletionEvent e, EventDispatcher evd, Endpoint ep, long cookie, DtoCompletionStatus status) {
        assertSame(evd, e.evd(), () -> "EVD of " + e);
        assertSame(ep, e.ep(), () -> "EP of " + e);
        assertEquals(cookie, e.userCookie(), () -> "cookie of " + e);
        assertEquals(status, e.status(), () -> "status of " + e);
        return e;
    }

    /** Starts a daemon thread named {@code name} blocked in {@code wait}; the future gets its result or its exception. */
    private static <T> CompletableFuture<T> startWaiter(String name, Supplier<T> wait) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        f.complete(wait.get());
                    } catch (Throwable e) {
                        f.completeExceptionally(e);
                    }
                },
                name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** Starts a thread blocked in dat_evd_wait with an infinite timeout. */
    static CompletableFuture<EvdWaitResult> startWaiter(EventDispatcher evd) {
        return startWaiter("evd-waiter", () -> evd.waitForEvent(Timeout.INFINITE, 1));
    }

    /** Starts a thread blocked in dat_cno_wait with an infinite timeout. */
    static CompletableFuture<CnoWaitResult> startWaiter(ConsumerNotificationObject cno) {
        return startWaiter("cno-waiter", () -> cno.waitForNotification(Timeout.INFINITE));
    }

    /** Waits until a thread waits on the (empty) EVD: dat_evd_dequeue then fails with DAT_INVALID_STATE. */
    static void awaitWaiter(EventDispatcher evd) {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (System.nanoTime() < deadline) {
            try {
                Optional<DatEvent> e = evd.dequeue();
                assertTrue(e.isEmpty(), "the EVD must be empty while the waiter starts");
            } catch (DatException e) {
                if (e.subtype() == DatReturnSubtype.INVALID_STATE_EVD_WAITER) {
                    return;
                }
                throw e;
            }
            Thread.onSpinWait();
        }
        fail("no thread started waiting on " + evd);
    }

    /** Waits until a thread is blocked in dat_cno_wait on {@code cno}. */
    static void awaitWaiter(InterfaceAdapter ia, ConsumerNotificationObject cno) {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (((SimCno) cno).waiters() == 0) {
            if (System.nanoTime() > deadline) {
                fail("no thread started waiting on " + cno + " of " + ia);
            }
            Thread.onSpinWait();
        }
    }

    /** The DatException a waiter's wait failed with (within 20 s); fails if the wait returned. */
    static DatException failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return assertInstanceOf(DatException.class, e.getCause());
        }
        return fail("the wait returned " + f.get() + " instead of failing");
    }

    /** One packet event as a trace listener saw it. */
    record Seen(PacketEvent event, Opcode opcode, String from, String to) {}

    /** Records packet events of a fabric; remove with {@link #close()}. */
    static final class PacketLog implements TraceListener, AutoCloseable {
        private final Fabric fabric;
        private final List<Seen> seen = new ArrayList<>();

        PacketLog(Fabric fabric) {
            this.fabric = fabric;
            fabric.addTraceListener(this);
        }

        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
            Seen s = new Seen(event, packet.opcode(), from == null ? null : from.name(), to == null ? null : to.name());
            synchronized (seen) {
                seen.add(s);
            }
        }

        List<Seen> snapshot() {
            synchronized (seen) {
                return new ArrayList<>(seen);
            }
        }

        /** Index of the first event matching, or -1. */
        int first(PacketEvent event, String to, Opcode... opcodes) {
            List<Seen> all = snapshot();
            for (int i = 0; i < all.size(); i++) {
                Seen s = all.get(i);
                if (s.event() == event
                        && (to == null || to.equals(s.to()))
                        && List.of(opcodes).contains(s.opcode())) {
                    return i;
                }
            }
            return -1;
        }

        long count(PacketEvent event, String to, Opcode... opcodes) {
            return snapshot().stream()
                    .filter(s -> s.event() == event
                            && (to == null || to.equals(s.to()))
                            && List.of(opcodes).contains(s.opcode()))
                    .count();
        }

        @Override
        public void close() {
            fabric.removeTraceListener(this);
        }
    }
}
