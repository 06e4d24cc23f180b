package io.simrdma.fabric.sched;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real time; each executor has a thread of its own, so the engine work of each device runs on a
 * thread of its own and applications may post and poll from any threads. Timers are the
 * executor's own, so a timer runs on the thread that owns the state it touches. An idle executor
 * thread waits for work as the {@link IdleStrategy} says: by default it spins and yields a
 * little after its last task before it parks, so that the next packet of a conversation needs no
 * wake-up. Executors adopted from Netty (a TCP node's event loop) keep Netty's own waiting.
 *
 * <p>A task that throws is logged at error level and counted ({@link #failures()}); the
 * executor goes on.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public final class ThreadedScheduler implements Scheduler {

    private static final Logger LOG = LoggerFactory.getLogger(ThreadedScheduler.class);
    static final long SHUTDOWN_TIMEOUT_SECONDS = 10;

    private final IdleStrategy idle;
    /**
     * The loop executors, copied on write (under {@link #loopsLock}) so that {@link #helpOthers}, on a
     * polling thread's path, walks them without a lock or an iterator.
     */
    private volatile LoopExecutor[] loops = new LoopExecutor[0];

    private final Object loopsLock = new Object();

    private final List<ThreadedExecutor> executors = new CopyOnWriteArrayList<>();
    private final AtomicLong failures = new AtomicLong();
    private volatile Throwable lastFailure;
    private volatile boolean closed;

    /** A scheduler whose executor threads wait with {@link IdleStrategy#backoff()}. */
    public ThreadedScheduler() {
        this(IdleStrategy.backoff());
    }

    /** A scheduler whose executor threads wait for work as {@code idle} says. */
    public ThreadedScheduler(IdleStrategy idle) {
        this.idle = java.util.Objects.requireNonNull(idle, "idle strategy");
    }

    /** How idle executor threads wait for work. */
    public IdleStrategy idleStrategy() {
        return idle;
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public boolean isDeterministic() {
        return false;
    }

    @Override
    public EngineExecutor newExecutor(String name) {
        if (closed) {
            throw new IllegalStateException("scheduler is closed");
        }
        LoopExecutor executor = new LoopExecutor(this, name, idle);
        synchronized (loopsLock) {
            LoopExecutor[] more = Arrays.copyOf(loops, loops.length + 1);
            more[more.length - 1] = executor;
            loops = more;
        }
        if (closed) { // closed meanwhile: stop the thread just started
            executor.shutdown();
            throw new IllegalStateException("scheduler is closed");
        }
        return executor;
    }

    /**
     * Adopts an existing Netty executor (the event loop of a TCP node, so that socket I/O and
     * engine work share one thread). The scheduler shuts it down on {@link #close()} only if
     * {@code owned}.
     */
    public EngineExecutor adopt(String name, EventExecutor executor, boolean owned) {
        ThreadedExecutor e = new ThreadedExecutor(name, executor, owned);
        executors.add(e);
        return e;
    }

    @Override
    public boolean await(BooleanSupplier condition, long timeoutNanos, WaitSignal signal) {
        for (ThreadedExecutor e : executors) {
            if (e.inExecutor()) {
                throw new IllegalStateException("a blocking wait was called from inside an engine task on " + e.name());
            }
        }
        for (LoopExecutor e : loops) {
            if (e.inExecutor()) {
                throw new IllegalStateException("a blocking wait was called from inside an engine task on " + e.name());
            }
        }
        return signal.blockingAwait(condition, timeoutNanos);
    }

    @Override
    public boolean progress() {
        return false;
    }

    /**
     * Lends the calling thread, which found nothing to run on {@code self}, to the queued work of
     * this scheduler's other executors (each only if no thread is on it and no other thread polls
     * it: two threads ping-ponging through two devices keep to their own; see
     * {@link EngineExecutor#help()}). Nothing runs if the caller is inside an engine task of any of
     * them: work of one executor never runs nested inside another's.
     *
     * @return whether anything ran
     */
    boolean helpOthers(LoopExecutor self) {
        LoopExecutor[] all = loops;
        if (all.length < 2) {
            return false;
        }
        Thread me = Thread.currentThread();
        if (runsTaskOf(me)) {
            return false;
        }
        boolean worked = false;
        for (LoopExecutor e : all) {
            if (e == self || e.polledByAnother(me)) {
                continue;
            }
            e.noteLender(System.nanoTime());
            if (e.hasWork() && e.helpOwn(false)) {
                worked = true;
            }
        }
        return worked;
    }

    /** True if {@code t} is running a task of one of this scheduler's executors now. */
    boolean runsTaskOf(Thread t) {
        for (LoopExecutor e : loops) {
            if (e.ownedBy(t)) {
                return true;
            }
        }
        return false;
    }

    /** Number of engine tasks that threw. */
    public long failures() {
        return failures.get();
    }

    /** The last exception an engine task threw, or null. */
    public Throwable lastFailure() {
        return lastFailure;
    }

    void runGuarded(Task task) {
        try {
            task.run();
        } catch (Throwable t) {
            failures.incrementAndGet();
            lastFailure = t;
            LOG.error("engine task {} failed", task, t);
        }
    }

    /** Runs a control command on the calling thread, failures rethrown as {@link EngineExecutor#call} says. */
    static <T> T callHere(String executor, Callable<T> command) {
        try {
            return command.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new EngineFailureException("command failed on " + executor, e);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (LoopExecutor e : loops) {
            e.shutdown();
        }
        for (LoopExecutor e : loops) {
            if (!e.inExecutor() && !e.awaitTermination(SHUTDOWN_TIMEOUT_SECONDS)) {
                LOG.error("executor {} did not stop within {} s", e.name(), SHUTDOWN_TIMEOUT_SECONDS);
            }
        }
        synchronized (loopsLock) {
            loops = new LoopExecutor[0];
        }
        for (ThreadedExecutor e : executors) {
            if (e.owned) {
                e.executor.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            }
        }
        for (ThreadedExecutor e : executors) {
            if (e.owned
                    && !e.executor
                            .terminationFuture()
                            .awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                LOG.error("executor {} did not stop within {} s", e.name(), SHUTDOWN_TIMEOUT_SECONDS);
            }
        }
        executors.clear();
    }

    private final class ThreadedExecutor implements EngineExecutor {
        private final String name;
        private final EventExecutor executor;
        private final boolean owned;

        ThreadedExecutor(String name, EventExecutor executor, boolean owned) {
            this.name = name;
            this.executor = executor;
            this.owned = owned;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Scheduler scheduler() {
            return ThreadedScheduler.this;
        }

        @Override
        public void execute(Task task) {
            if (executor.isShuttingDown()) {
                return;
            }
            try {
                executor.execute(task.guarded(ThreadedScheduler.this));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("{}: task {} rejected during shutdown", name, task);
            }
        }

        @Override
        public void schedule(Task task, long delayNanos) {
            if (executor.isShuttingDown()) {
                return;
            }
            try {
                if (delayNanos <= 0) {
                    executor.execute(task.guarded(ThreadedScheduler.this));
                } else {
                    executor.schedule(task.guarded(ThreadedScheduler.this), delayNanos, TimeUnit.NANOSECONDS);
                }
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("{}: timer {} rejected during shutdown", name, task);
            }
        }

        @Override
        public boolean inExecutor() {
            return executor.inEventLoop();
        }

        @Override
        public <T> T call(Callable<T> command) {
            if (executor.isShuttingDown()) {
                // The fabric closed: once the executor has stopped no engine work runs any more, so
                // the command runs here and fails as it would under the deterministic scheduler
                // (a destroyed object, a closed device) instead of with a RejectedExecutionException.
                executor.terminationFuture().awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            if (executor.inEventLoop() || executor.isTerminated()) {
                return callHere(name, command);
            }
            Future<T> f = executor.submit(command);
            try {
                return f.get(SHUTDOWN_TIMEOUT_SECONDS * 6, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException) {
                    throw (RuntimeException) cause;
                }
                if (cause instanceof Error) {
                    throw (Error) cause;
                }
                throw new EngineFailureException("command failed on " + name, cause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EngineFailureException("interrupted while waiting for a command on " + name, e);
            } catch (TimeoutException e) {
                throw new EngineFailureException("command did not complete on " + name, e);
            }
        }

        @Override
        public String toString() {
            return "ThreadedExecutor[" + name + "]";
        }
    }
}
