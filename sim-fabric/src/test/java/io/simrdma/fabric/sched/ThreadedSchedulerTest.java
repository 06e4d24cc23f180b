package io.simrdma.fabric.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The threaded scheduler: each executor is one thread named {@code simrdma-<name>...}; tasks,
 * timers and control calls run on it; failures of a control call reach the caller; close stops
 * every thread. Waits use deadlines, never sleeps.
 */
class ThreadedSchedulerTest {

    private static final long WAIT_SECONDS = 10;

    private static class Latch extends Task {
        final CountDownLatch latch = new CountDownLatch(1);
        final AtomicReference<String> thread = new AtomicReference<>();

        @Override
        public void run() {
            thread.set(Thread.currentThread().getName());
            latch.countDown();
        }

        String awaitThread() throws InterruptedException {
            assertTrue(latch.await(WAIT_SECONDS, TimeUnit.SECONDS), "task did not run");
            return thread.get();
        }
    }

    private static Set<Thread> threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
                .collect(Collectors.toSet());
    }

    @Test
    @DisplayName("execute and schedule run the task on the executor's own thread, named simrdma-<name>")
    void shouldRunTasksOnTheExecutorThreadWhenExecutedOrScheduled() throws InterruptedException {
        try (ThreadedScheduler s = new ThreadedScheduler()) {
            assertFalse(s.isDeterministic());
            assertFalse(s.progress(), "executors run on their own");
            EngineExecutor x = s.newExecutor("ts-exec");
            assertSame(s, x.scheduler());
            assertEquals("ts-exec", x.name());
            Latch now = new Latch();
            x.execute(now);
            String t1 = now.awaitThread();
            assertTrue(t1.startsWith("simrdma-ts-exec"), t1);
            Latch later = new Latch();
            long before = s.nanoTime();
            x.schedule(later, TimeUnit.MILLISECONDS.toNanos(2));
            assertEquals(t1, later.awaitThread(), "one thread per executor");
            assertTrue(s.nanoTime() > before, "real clock");
            Latch zero = new Latch();
            x.schedule(zero, 0);
            assertEquals(t1, zero.awaitThread());
            EngineExecutor y = s.newExecutor("ts-other");
            Latch other = new Latch();
            y.execute(other);
            String t2 = other.awaitThread();
            assertTrue(t2.startsWith("simrdma-ts-other"), t2);
            assertNotEquals(t1, t2, "each executor has a thread of its own");
        }
    }

    @Test
    @DisplayName("call runs the command on the executor thread and returns its result; inline when already there")
    void shouldRunCommandOnExecutorThreadWhenCalled() {
        try (ThreadedScheduler s = new ThreadedScheduler()) {
            EngineExecutor x = s.newExecutor("ts-call");
            assertFalse(x.inExecutor());
            String name = x.call(() -> Thread.currentThread().getName());
            assertTrue(name.startsWith("simrdma-ts-call"), name);
            assertTrue(x.call(x::inExecutor));
            // A call made on the executor runs inline instead of waiting for itself.
            assertEquals(7, (int) x.call(() -> x.call(() -> 7)));
        }
    }

    @Test
    @DisplayName(
            "Exceptions of a called command are rethrown to the caller: the same RuntimeException or Error; checked ones wrapped")
    void shouldRethrowCommandExceptionsWhenCalled() {
        try (ThreadedScheduler s = new ThreadedScheduler()) {
            EngineExecutor x = s.newExecutor("ts-throw");
            IllegalArgumentException iae = new IllegalArgumentException("bad value");
            assertSame(
                    iae,
                    assertThrows(
                            IllegalArgumentException.class,
                            () -> x.call(() -> {
                                throw iae;
                            })));
            AssertionError err = new AssertionError("engine invariant");
            assertSame(
                    err,
                    assertThrows(
                            AssertionError.class,
                            () -> x.call(() -> {
                                throw err;
                            })));
            Exception checked = new java.io.IOException("io");
            EngineFailureException e = assertThrows(
                    EngineFailureException.class,
                    () -> x.call(() -> {
                        throw checked;
                    }));
            assertSame(checked, e.getCause());
            assertEquals(3, (int) x.call(() -> 3), "the executor still works");
            assertEquals(0, s.failures(), "failures of calls are the caller's, not engine task failures");
        }
    }

    @Test
    @DisplayName(
            "await returns when a producer signals the condition, false at the real-time deadline, refused on an executor")
    void shouldWakeWaiterWhenSignalledAndTimeOutOtherwise() throws InterruptedException {
        try (ThreadedScheduler s = new ThreadedScheduler()) {
            EngineExecutor x = s.newExecutor("ts-await");
            WaitSignal signal = s.newSignal();
            AtomicBoolean flag = new AtomicBoolean();
            x.schedule(
                    new Task() {
                        @Override
                        public void run() {
                            flag.set(true);
                            signal.signalAll();
                        }
                    },
                    TimeUnit.MILLISECONDS.toNanos(1));
            assertTrue(signal.await(flag::get, TimeUnit.SECONDS.toNanos(WAIT_SECONDS)));
            assertTrue(signal.await(flag::get, -1), "already true");
            assertFalse(signal.await(() -> false, TimeUnit.MILLISECONDS.toNanos(20)), "deadline passes");
            AtomicReference<Throwable> inside = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            x.execute(new Task() {
                @Override
                public void run() {
                    try {
                        s.await(() -> true, 1, signal);
                    } catch (Throwable t) {
                        inside.set(t);
                    }
                    done.countDown();
                }
            });
            assertTrue(done.await(WAIT_SECONDS, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, inside.get());
        }
    }

    @Test
    @DisplayName("close stops every simrdma-* thread it started and refuses new executors")
    void shouldStopThreadsWhenClosed() throws InterruptedException {
        ThreadedScheduler s = new ThreadedScheduler();
        List<EngineExecutor> ex = List.of(s.newExecutor("ts-close-a"), s.newExecutor("ts-close-b"));
        for (EngineExecutor e : ex) {
            Latch l = new Latch();
            e.execute(l);
            l.awaitThread();
        }
        Set<Thread> running = threads("simrdma-ts-close-");
        assertEquals(2, running.size(), running.toString());
        s.close();
        for (Thread t : running) {
            t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertFalse(t.isAlive(), t.getName() + " still running after close");
        }
        assertTrue(threads("simrdma-ts-close-").isEmpty());
        assertThrows(IllegalStateException.class, () -> s.newExecutor("ts-close-c"));
        Latch ignored = new Latch();
        ex.get(0).execute(ignored);
        ex.get(0).schedule(ignored, 1);
        assertEquals(1, ignored.latch.getCount(), "work submitted after close does not run");
    }

    @Test
    @DisplayName(
            "tasks submitted from several threads at once each run exactly once, in submission order per thread, with no wake-up lost")
    void shouldRunEveryTaskOnceInOrderWhenSubmittedConcurrently() throws InterruptedException {
        int producers = 3;
        int perProducer = 20_000;
        for (IdleStrategy idle : List.of(IdleStrategy.park(), IdleStrategy.backoff(), new IdleStrategy(1_000, 1_000))) {
            try (ThreadedScheduler s = new ThreadedScheduler(idle)) {
                EngineExecutor x = s.newExecutor("ts-mpsc");
                int[] lastSeen = new int[producers];
                java.util.Arrays.fill(lastSeen, -1);
                AtomicReference<String> error = new AtomicReference<>();
                CountDownLatch all = new CountDownLatch(producers * perProducer);
                Thread[] threads = new Thread[producers];
                for (int p = 0; p < producers; p++) {
                    int producer = p;
                    threads[p] = new Thread(() -> {
                        for (int i = 0; i < perProducer; i++) {
                            int n = i;
                            x.execute(new Task() {
                                @Override
                                public void run() {
                                    if (lastSeen[producer] != n - 1) {
                                        error.compareAndSet(
                                                null,
                                                "producer " + producer + ": task " + n + " ran after "
                                                        + lastSeen[producer]);
                                    }
                                    lastSeen[producer] = n;
                                    all.countDown();
                                }
                            });
                            if (n % 1000 == 0) {
                                x.help(); // a polling thread lending a hand now and then
                            }
                        }
                    });
                    threads[p].start();
                }
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                }
                assertTrue(
                        all.await(WAIT_SECONDS, TimeUnit.SECONDS),
                        idle + ": expected every task to run, " + all.getCount() + " did not");
                assertEquals(null, error.get(), idle + ": order per producer");
                assertEquals(0, s.failures());
            }
        }
    }

    @Test
    @DisplayName(
            "help runs queued work on the calling thread, which is then inside the executor; it never blocks and runs nothing when idle")
    void shouldRunQueuedWorkOnTheCallerWhenHelping() throws InterruptedException {
        try (ThreadedScheduler s = new ThreadedScheduler(IdleStrategy.park())) {
            EngineExecutor x = s.newExecutor("ts-help");
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            x.execute(new Task() {
                @Override
                public void run() {
                    inside.countDown();
                    try {
                        release.await(WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            assertTrue(inside.await(WAIT_SECONDS, TimeUnit.SECONDS));
            AtomicReference<String> ranOn = new AtomicReference<>();
            AtomicBoolean wasInside = new AtomicBoolean();
            x.execute(new Task() {
                @Override
                public void run() {
                    ranOn.set(Thread.currentThread().getName());
                    wasInside.set(x.inExecutor());
                }
            });
            assertFalse(x.help(), "expected no help while the executor's thread runs a task");
            release.countDown();
            Latch after = new Latch();
            x.execute(after);
            String t = after.awaitThread();
            assertTrue(t.startsWith("simrdma-ts-help"), t);
            assertTrue(wasInside.get(), "inExecutor() is true for the thread running a task");
            assertFalse(x.help(), "expected nothing to run on an idle executor");
            assertFalse(x.inExecutor());
        }
        try (ThreadedScheduler s = new ThreadedScheduler(IdleStrategy.park())) {
            EngineExecutor x = s.newExecutor("ts-help2");
            // Queue a task while the executor's thread is parked and let this thread run it: the
            // thread may take it first, so help until it has run (bounded).
            AtomicReference<String> ranOn = new AtomicReference<>();
            AtomicBoolean wasInside = new AtomicBoolean();
            boolean helped = false;
            for (int i = 0; i < 1000 && !helped; i++) {
                ranOn.set(null);
                Latch l = new Latch() {
                    @Override
                    public void run() {
                        ranOn.set(Thread.currentThread().getName());
                        wasInside.set(x.inExecutor());
                        super.run();
                    }
                };
                x.execute(l);
                helped = x.help();
                l.awaitThread();
            }
            if (helped) {
                assertEquals(Thread.currentThread().getName(), ranOn.get(), "help ran the task here");
                assertTrue(wasInside.get(), "expected inExecutor() true on the helping thread while it runs the task");
            }
            Latch timer = new Latch();
            x.schedule(timer, TimeUnit.MILLISECONDS.toNanos(1));
            timer.awaitThread(); // a timer queued through a helper still fires
        }
    }

    @Test
    @DisplayName(
            "help with nothing queued on its own executor runs another executor's queued work here, inside that executor, once and in order")
    void shouldRunAnotherExecutorsWorkWhenHelpingAnIdleExecutor() throws InterruptedException {
        try (ThreadedScheduler s = new ThreadedScheduler(IdleStrategy.park())) {
            EngineExecutor x = s.newExecutor("ts-other-x");
            EngineExecutor y = s.newExecutor("ts-other-y");
            // y's thread may take the task first, so help until this thread has run one (bounded).
            AtomicReference<String> ranOn = new AtomicReference<>();
            AtomicBoolean insideY = new AtomicBoolean();
            AtomicBoolean insideX = new AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
            boolean helped = false;
            int tries = 0;
            for (; tries < 1000 && !helped; tries++) {
                Latch l = new Latch() {
                    @Override
                    public void run() {
                        runs.incrementAndGet();
                        ranOn.set(Thread.currentThread().getName());
                        insideY.set(y.inExecutor());
                        insideX.set(x.inExecutor());
                        super.run();
                    }
                };
                y.execute(l);
                helped = x.help();
                l.awaitThread();
            }
            assertEquals(tries, runs.get(), "expected each task to run exactly once");
            if (helped) {
                assertEquals(Thread.currentThread().getName(), ranOn.get(), "x.help() ran y's task here");
                assertTrue(insideY.get(), "expected y.inExecutor() true while the helper runs y's task");
                assertFalse(insideX.get(), "expected x.inExecutor() false while the helper runs y's task");
            }
            assertFalse(x.help(), "expected nothing to run when every executor is idle");
        }
    }

    @Test
    @DisplayName("help from inside an engine task runs no other executor's work (never nested in another task)")
    void shouldNotRunOtherExecutorsWorkWhenHelpingFromInsideATask() throws InterruptedException {
        try (ThreadedScheduler s = new ThreadedScheduler(IdleStrategy.park())) {
            EngineExecutor x = s.newExecutor("ts-nest-x");
            EngineExecutor y = s.newExecutor("ts-nest-y");
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch queued = new CountDownLatch(1);
            AtomicBoolean helpedInside = new AtomicBoolean(true);
            AtomicReference<String> xThread = new AtomicReference<>();
            Latch done = new Latch();
            x.execute(new Task() {
                @Override
                public void run() {
                    xThread.set(Thread.currentThread().getName());
                    inside.countDown();
                    try {
                        queued.await(WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    helpedInside.set(x.help());
                    done.run();
                }
            });
            assertTrue(inside.await(WAIT_SECONDS, TimeUnit.SECONDS));
            Latch onY = new Latch();
            y.execute(onY);
            queued.countDown();
            done.awaitThread();
            String t = onY.awaitThread();
            assertFalse(helpedInside.get(), "expected help() inside a task of x to run nothing");
            assertNotEquals(xThread.get(), t, "expected y's task not to run nested inside x's task");
        }
    }

    @Test
    @DisplayName("an idle strategy refuses negative times; busySpin never parks, park parks at once")
    void shouldCheckIdleStrategyWhenCreated() {
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy(0, -1));
        assertTrue(IdleStrategy.busySpin().neverParks());
        assertFalse(IdleStrategy.park().neverParks());
        assertEquals(0, IdleStrategy.park().spinNanos());
        assertFalse(IdleStrategy.backoff().neverParks());
        assertEquals(IdleStrategy.backoff(), new ThreadedScheduler().idleStrategy());
    }
}
