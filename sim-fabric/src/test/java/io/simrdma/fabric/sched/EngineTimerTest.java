package io.simrdma.fabric.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The restartable one-shot timer behind the ACK timeout and the RNR timer (IBA 9.7.6.1.3,
 * 9.7.5.2.8): it fires once per arming, at the latest deadline set, never for a stopped arming.
 * Virtual time makes the firing instants exact.
 */
class EngineTimerTest {

    private DeterministicScheduler sched;
    private final List<Long> fired = new ArrayList<>();

    @AfterEach
    void close() {
        if (sched != null) {
            sched.close();
        }
    }

    private EngineTimer timer(long seed) {
        sched = new DeterministicScheduler(seed);
        EngineExecutor x = sched.newExecutor("x");
        return new EngineTimer(x, "t", () -> fired.add(sched.nanoTime()));
    }

    @Test
    @DisplayName("start arms the timer; it fires once, exactly at the deadline")
    void shouldFireOnceAtDeadlineWhenStarted() {
        EngineTimer t = timer(1);
        assertFalse(t.isArmed());
        t.start(1_000);
        assertTrue(t.isArmed());
        assertEquals(1_000, t.deadline());
        sched.advanceTime(999);
        assertEquals(List.of(), fired);
        sched.advanceTime(1);
        assertEquals(List.of(1_000L), fired);
        assertFalse(t.isArmed(), "disarmed once fired");
        sched.runUntilIdle();
        sched.advanceTime(1_000_000);
        assertEquals(List.of(1_000L), fired, "fires once");
    }

    @Test
    @DisplayName("Restarting later moves the deadline: it fires only at the new one")
    void shouldFireOnlyAtTheLaterDeadlineWhenRestartedLater() {
        EngineTimer t = timer(2);
        t.start(1_000);
        sched.advanceTime(500);
        t.start(1_000);
        assertEquals(1_500, t.deadline());
        sched.runUntilIdle();
        assertEquals(List.of(1_500L), fired);
        // Re-arming on every acknowledgement: many restarts, one firing at the last deadline.
        for (int i = 0; i < 10; i++) {
            t.start(300);
            sched.advanceTime(100);
        }
        sched.runUntilIdle();
        assertEquals(List.of(1_500L, 2_700L), fired);
    }

    @Test
    @DisplayName("Restarting earlier fires at the earlier deadline, once")
    void shouldFireAtTheEarlierDeadlineWhenRestartedEarlier() {
        EngineTimer t = timer(3);
        t.start(1_000);
        t.start(200);
        assertEquals(200, t.deadline());
        sched.runUntilIdle();
        assertEquals(List.of(200L), fired, "not again when the first firing comes at 1000");
        // Earlier, then later again before either firing: the latest deadline wins.
        t.start(1_000);
        sched.advanceTime(100);
        t.start(50);
        sched.advanceTime(10);
        t.start(5_000);
        sched.runUntilIdle();
        assertEquals(List.of(200L, 6_110L), fired, "1000 + 100 + 10 + 5000");
    }

    @Test
    @DisplayName("stop disarms: a pending firing does nothing; start after stop arms anew")
    void shouldNotFireWhenStopped() {
        EngineTimer t = timer(4);
        t.start(1_000);
        sched.advanceTime(500);
        t.stop();
        assertFalse(t.isArmed());
        sched.runUntilIdle();
        assertEquals(List.of(), fired);
        t.start(1_000);
        sched.advanceTime(100);
        t.stop();
        t.start(50);
        sched.runUntilIdle();
        assertEquals(List.of(1_150L), fired, "the stopped arming's firing at 1000 was idle; 1000 + 100 + 50");
    }

    @Test
    @DisplayName("Zero and negative delays fire at the current instant; the action may re-arm the timer")
    void shouldFireNowWhenDelayIsNotPositiveAndAllowRearmFromAction() {
        sched = new DeterministicScheduler(5);
        EngineExecutor x = sched.newExecutor("x");
        AtomicInteger count = new AtomicInteger();
        AtomicReference<EngineTimer> ref = new AtomicReference<>();
        EngineTimer t = new EngineTimer(x, "periodic", () -> {
            fired.add(sched.nanoTime());
            if (count.incrementAndGet() < 3) {
                ref.get().start(100);
            }
        });
        ref.set(t);
        sched.advanceTime(40);
        t.start(-5);
        assertEquals(40, t.deadline());
        sched.runUntilIdle();
        assertEquals(List.of(40L, 140L, 240L), fired);
        assertFalse(t.isArmed());
        assertTrue(t.toString().contains("periodic"), t.toString());
    }

    @Test
    @DisplayName("Under the threaded scheduler the action runs once, on the executor's thread")
    void shouldFireOnceOnExecutorThreadWhenThreaded() throws InterruptedException {
        try (ThreadedScheduler ts = new ThreadedScheduler()) {
            EngineExecutor x = ts.newExecutor("timer-test");
            CountDownLatch latch = new CountDownLatch(1);
            AtomicInteger runs = new AtomicInteger();
            AtomicReference<String> thread = new AtomicReference<>();
            EngineTimer t = new EngineTimer(x, "t", () -> {
                runs.incrementAndGet();
                thread.set(Thread.currentThread().getName());
                latch.countDown();
            });
            x.call(() -> {
                t.start(TimeUnit.MILLISECONDS.toNanos(5));
                t.start(TimeUnit.MILLISECONDS.toNanos(1));
                return null;
            });
            assertTrue(latch.await(10, TimeUnit.SECONDS), "timer did not fire");
            // Let the first (5 ms) firing pass too: it must find the timer disarmed.
            CountDownLatch later = new CountDownLatch(1);
            x.schedule(
                    new Task() {
                        @Override
                        public void run() {
                            later.countDown();
                        }
                    },
                    TimeUnit.MILLISECONDS.toNanos(20));
            assertTrue(later.await(10, TimeUnit.SECONDS));
            assertEquals(1, runs.get());
            assertTrue(thread.get().startsWith("simrdma-timer-test"), thread.get());
            assertFalse(x.call(t::isArmed));
        }
    }
}
