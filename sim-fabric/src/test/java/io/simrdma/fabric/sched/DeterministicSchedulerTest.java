package io.simrdma.fabric.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The deterministic scheduler (ARCHITECTURE.md "Scheduler and clock"): one logical thread,
 * virtual time that moves only to the next timer, same-time timers in submission order per
 * executor, executors interleaved by the seed, blocking waits that run the simulation until their
 * condition or virtual deadline, and failures that reach the driving thread.
 */
class DeterministicSchedulerTest {

    /** A task that logs its name and the virtual time it ran at. */
    private static final class Rec extends Task {
        private final String name;
        private final DeterministicScheduler sched;
        private final List<String> log;
        private final Runnable body;

        Rec(String name, DeterministicScheduler sched, List<String> log) {
            this(name, sched, log, () -> {});
        }

        Rec(String name, DeterministicScheduler sched, List<String> log, Runnable body) {
            this.name = name;
            this.sched = sched;
            this.log = log;
            this.body = body;
        }

        @Override
        public void run() {
            log.add(name + "@" + sched.nanoTime());
            body.run();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    @Test
    @DisplayName("Virtual time jumps to the next timer when nothing is ready; running a task takes no time")
    void shouldJumpToNextTimerWhenNothingIsReady() {
        try (DeterministicScheduler s = new DeterministicScheduler(1)) {
            assertTrue(s.isDeterministic());
            assertEquals(1, s.seed());
            EngineExecutor x = s.newExecutor("x");
            assertSame(s, x.scheduler());
            assertEquals("x", x.name());
            List<String> log = new ArrayList<>();
            x.schedule(new Rec("late", s, log), 5_000_000_000L);
            x.schedule(new Rec("soon", s, log), 7);
            x.execute(new Rec("now", s, log));
            assertEquals(0, s.nanoTime());
            assertEquals(3, s.pending());
            assertEquals(3, s.runUntilIdle());
            assertEquals(List.of("now@0", "soon@7", "late@5000000000"), log);
            assertEquals(5_000_000_000L, s.nanoTime());
            assertEquals(3, s.steps());
            assertEquals(0, s.pending());
            assertEquals(0, s.runUntilIdle(), "idle: nothing to run");
        }
    }

    @Test
    @DisplayName("Same-time timers fire in submission order; timers fire in time order whatever the submission order")
    void shouldFireSameTimeTimersInSubmissionOrderWhenOnOneExecutor() {
        try (DeterministicScheduler s = new DeterministicScheduler(2)) {
            EngineExecutor x = s.newExecutor("x");
            List<String> log = new ArrayList<>();
            x.schedule(new Rec("c", s, log), 300);
            x.schedule(new Rec("b", s, log), 200);
            for (int i = 1; i <= 5; i++) {
                x.schedule(new Rec("t" + i, s, log), 100);
            }
            x.schedule(new Rec("a", s, log), 200);
            s.runUntilIdle();
            assertEquals(List.of("t1@100", "t2@100", "t3@100", "t4@100", "t5@100", "b@200", "a@200", "c@300"), log);
        }
    }

    @Test
    @DisplayName(
            "Same-time timers of several executors keep each executor's submission order; the seed interleaves them")
    void shouldKeepPerExecutorOrderWhenTimersOfSeveralExecutorsFallTogether() {
        for (long seed = 0; seed < 20; seed++) {
            try (DeterministicScheduler s = new DeterministicScheduler(seed)) {
                EngineExecutor x = s.newExecutor("x");
                EngineExecutor y = s.newExecutor("y");
                List<String> log = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    x.schedule(new Rec("x" + i, s, log), 1_000);
                    y.schedule(new Rec("y" + i, s, log), 1_000);
                }
                s.runUntilIdle();
                assertEquals(20, log.size());
                int nx = 0;
                int ny = 0;
                for (String e : log) {
                    assertTrue(e.endsWith("@1000"), e);
                    if (e.startsWith("x")) {
                        assertEquals("x" + nx++ + "@1000", e, "x's order, seed " + seed);
                    } else {
                        assertEquals("y" + ny++ + "@1000", e, "y's order, seed " + seed);
                    }
                }
            }
        }
    }

    /** Three executors each run 20 ready tasks; returns the interleaving. */
    private static List<String> interleaving(long seed) {
        try (DeterministicScheduler s = new DeterministicScheduler(seed)) {
            List<String> log = new ArrayList<>();
            List<EngineExecutor> ex = List.of(s.newExecutor("p"), s.newExecutor("q"), s.newExecutor("r"));
            for (int i = 0; i < 20; i++) {
                for (EngineExecutor e : ex) {
                    e.execute(new Rec(e.name() + i, s, log));
                }
            }
            s.runUntilIdle();
            return log;
        }
    }

    @Test
    @DisplayName("The same seed replays the same interleaving of executors; other seeds give other interleavings")
    void shouldReplayInterleavingWhenSeedIsTheSame() {
        List<String> first = interleaving(42);
        assertEquals(first, interleaving(42));
        int different = 0;
        for (long seed = 0; seed < 10; seed++) {
            if (!interleaving(seed).equals(first)) {
                different++;
            }
        }
        assertTrue(different >= 9, "interleavings differing from seed 42's: " + different + " of 10");
        // Each executor's own tasks stay in FIFO order whatever the seed.
        for (String e : List.of("p", "q", "r")) {
            List<String> own = first.stream().filter(t -> t.startsWith(e)).toList();
            for (int i = 0; i < 20; i++) {
                assertEquals(e + i + "@0", own.get(i));
            }
        }
        SplittableRandom r1 = new DeterministicScheduler(9).newRandom();
        SplittableRandom r2 = new DeterministicScheduler(9).newRandom();
        assertEquals(r1.nextLong(), r2.nextLong(), "derived random sources replay too");
    }

    @Test
    @DisplayName("await returns false exactly at the virtual deadline, having run what was due before it")
    void shouldReturnAtVirtualDeadlineWhenConditionNeverHolds() {
        try (DeterministicScheduler s = new DeterministicScheduler(3)) {
            EngineExecutor x = s.newExecutor("x");
            List<String> log = new ArrayList<>();
            x.schedule(new Rec("before", s, log), 500);
            x.schedule(new Rec("after", s, log), 2_000);
            WaitSignal signal = s.newSignal();
            assertFalse(signal.await(() -> false, 1_000));
            assertEquals(1_000, s.nanoTime());
            assertEquals(List.of("before@500"), log);
            assertEquals(1, s.pending(), "the later timer is still pending");
            assertFalse(s.await(() -> false, 0, signal), "zero timeout: checks once");
            assertEquals(1_000, s.nanoTime());
        }
    }

    @Test
    @DisplayName("await returns as soon as the condition holds, at that virtual time")
    void shouldReturnTrueAtOnceWhenConditionBecomesTrue() {
        try (DeterministicScheduler s = new DeterministicScheduler(4)) {
            EngineExecutor x = s.newExecutor("x");
            AtomicBoolean done = new AtomicBoolean();
            List<String> log = new ArrayList<>();
            x.schedule(new Rec("set", s, log, () -> done.set(true)), 300);
            x.schedule(new Rec("later", s, log), 400);
            assertTrue(s.newSignal().await(done::get, 10_000));
            assertEquals(300, s.nanoTime());
            assertEquals(List.of("set@300"), log);
            assertTrue(s.newSignal().await(done::get, -1), "already true: no wait, no stall");
        }
    }

    @Test
    @DisplayName("await without a deadline and nothing left to run throws SimulationStalledException")
    void shouldThrowStalledWhenWaitingForeverWithNothingToRun() {
        try (DeterministicScheduler s = new DeterministicScheduler(5)) {
            EngineExecutor x = s.newExecutor("x");
            AtomicBoolean done = new AtomicBoolean();
            x.schedule(new Rec("t", s, new ArrayList<>(), () -> done.set(true)), 1_000_000);
            assertTrue(s.newSignal().await(done::get, -1), "a pending timer can still end the wait");
            SimulationStalledException e = assertThrows(
                    SimulationStalledException.class, () -> s.newSignal().await(() -> false, -1));
            assertTrue(e.getMessage().contains("1000000"), "names the virtual time: " + e.getMessage());
        }
    }

    @Test
    @DisplayName("A task that throws surfaces as EngineFailureException on the driving thread; the scheduler goes on")
    void shouldSurfaceEngineFailureWhenATaskThrows() {
        try (DeterministicScheduler s = new DeterministicScheduler(6)) {
            EngineExecutor x = s.newExecutor("dev");
            IllegalArgumentException boom = new IllegalArgumentException("boom");
            List<String> log = new ArrayList<>();
            x.schedule(
                    new Rec("bad", s, log, () -> {
                        throw boom;
                    }),
                    250);
            x.schedule(new Rec("good", s, log), 300);
            EngineFailureException e = assertThrows(EngineFailureException.class, s::runUntilIdle);
            assertSame(boom, e.getCause());
            assertTrue(
                    e.getMessage().contains("bad")
                            && e.getMessage().contains("dev")
                            && e.getMessage().contains("250"),
                    e.getMessage());
            assertEquals(1, s.runUntilIdle(), "the rest still runs");
            assertEquals(List.of("bad@250", "good@300"), log);

            x.execute(new Rec("err", s, log, () -> {
                throw new AssertionError("engine assertion");
            }));
            EngineFailureException viaAwait = assertThrows(
                    EngineFailureException.class, () -> s.newSignal().await(() -> false, 1_000));
            assertInstanceOf(AssertionError.class, viaAwait.getCause());
            x.execute(new Rec("err2", s, log, () -> {
                throw new IllegalStateException("again");
            }));
            assertThrows(EngineFailureException.class, s::progress);
        }
    }

    @Test
    @DisplayName("Blocking waits and drive calls from inside an engine task are refused")
    void shouldRefuseWaitWhenCalledFromInsideATask() {
        try (DeterministicScheduler s = new DeterministicScheduler(7)) {
            EngineExecutor x = s.newExecutor("x");
            AtomicReference<Throwable> inside = new AtomicReference<>();
            AtomicBoolean progressed = new AtomicBoolean(true);
            AtomicBoolean inExecutor = new AtomicBoolean();
            x.execute(new Rec("w", s, new ArrayList<>(), () -> {
                inExecutor.set(x.inExecutor());
                progressed.set(s.progress());
                try {
                    s.advanceTime(1);
                } catch (IllegalStateException e) {
                    inside.set(e);
                }
                s.newSignal().await(() -> true, 1);
            }));
            EngineFailureException e = assertThrows(EngineFailureException.class, s::runUntilIdle);
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertTrue(
                    e.getCause().getMessage().contains("inside an engine task"),
                    e.getCause().getMessage());
            assertInstanceOf(IllegalStateException.class, inside.get());
            assertFalse(progressed.get(), "progress from inside a task does nothing");
            assertTrue(inExecutor.get());
        }
    }

    @Test
    @DisplayName(
            "advanceTime runs what is due up to the target and stops exactly there; runUntilIdle drains everything")
    void shouldStopExactlyAtTargetWhenAdvancingTime() {
        try (DeterministicScheduler s = new DeterministicScheduler(8)) {
            EngineExecutor x = s.newExecutor("x");
            List<String> log = new ArrayList<>();
            x.schedule(new Rec("a", s, log), 100);
            x.schedule(new Rec("b", s, log), 200);
            x.schedule(new Rec("c", s, log), 300);
            s.advanceTime(200);
            assertEquals(List.of("a@100", "b@200"), log, "a timer due exactly at the target runs");
            assertEquals(200, s.nanoTime());
            assertEquals(1, s.pending());
            s.advanceTime(50);
            assertEquals(250, s.nanoTime(), "time moves to the target even with nothing due");
            assertThrows(IllegalArgumentException.class, () -> s.advanceTime(-1));
            assertTrue(s.progress(), "a timer to jump to");
            assertEquals(List.of("a@100", "b@200"), log, "the jump made c ready");
            assertEquals(300, s.nanoTime());
            assertTrue(s.progress());
            assertEquals(List.of("a@100", "b@200", "c@300"), log);
            assertFalse(s.progress(), "idle");
            s.advanceTime(Long.MAX_VALUE);
            assertEquals(Long.MAX_VALUE, s.nanoTime(), "saturates instead of overflowing");
        }
    }

    @Test
    @DisplayName(
            "Scheduling a queued timer earlier moves it; later leaves it; delay <= 0 is ready at once; double submission is refused")
    void shouldMoveTimerEarlierWhenRescheduled() {
        try (DeterministicScheduler s = new DeterministicScheduler(9)) {
            EngineExecutor x = s.newExecutor("x");
            List<String> log = new ArrayList<>();
            Rec t = new Rec("t", s, log);
            x.schedule(t, 1_000);
            x.schedule(t, 200);
            x.schedule(t, 5_000);
            s.runUntilIdle();
            assertEquals(List.of("t@200"), log, "runs once, at the earliest due time");
            Rec now = new Rec("now", s, log);
            x.schedule(now, 0);
            x.schedule(new Rec("neg", s, log), -5);
            assertEquals(2, s.runUntilIdle());
            assertEquals(List.of("t@200", "now@200", "neg@200"), log);
            Rec twice = new Rec("twice", s, log);
            x.execute(twice);
            assertThrows(IllegalStateException.class, () -> x.execute(twice));
        }
    }

    @Test
    @DisplayName("call runs the command at once on the caller's thread and rethrows its exceptions")
    void shouldRunCommandInlineWhenCalled() {
        try (DeterministicScheduler s = new DeterministicScheduler(10)) {
            EngineExecutor x = s.newExecutor("x");
            assertEquals(42, x.call(() -> x.inExecutor() ? 42 : -1));
            assertFalse(x.inExecutor());
            IllegalStateException ise = new IllegalStateException("no");
            assertSame(
                    ise,
                    assertThrows(
                            IllegalStateException.class,
                            () -> x.call(() -> {
                                throw ise;
                            })));
            Exception checked = new java.io.IOException("io");
            EngineFailureException e = assertThrows(
                    EngineFailureException.class,
                    () -> x.call(() -> {
                        throw checked;
                    }));
            assertSame(checked, e.getCause());
        }
    }

    @Test
    @DisplayName("close drops queued work; later submissions are ignored")
    void shouldDropEverythingWhenClosed() {
        DeterministicScheduler s = new DeterministicScheduler(11);
        EngineExecutor x = s.newExecutor("x");
        List<String> log = new ArrayList<>();
        x.execute(new Rec("a", s, log));
        x.schedule(new Rec("b", s, log), 10);
        s.close();
        assertEquals(0, s.pending());
        x.execute(new Rec("c", s, log));
        x.schedule(new Rec("d", s, log), 1);
        assertEquals(0, s.runUntilIdle());
        assertTrue(log.isEmpty());
    }
}
