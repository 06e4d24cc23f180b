package io.simrdma.fabric.sched;

import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Runs all engine work on the calling thread in virtual time, with every choice drawn from one
 * seeded random source, so that a seed replays a run exactly.
 *
 * <p>Model: each executor (one per device) has a FIFO queue of ready tasks; a timer queue holds
 * tasks due later, ordered by (due time, submission order). A step runs the head task of one
 * ready executor, chosen at random among the ready ones: devices run "in parallel", their
 * interleaving decided by the seed, while each device's own work stays in order. When nothing
 * is ready, virtual time jumps to the earliest timer, and every timer due then becomes ready
 * together, so that same-time events on different devices also interleave by the seed.
 * Running a task takes no virtual time; time passes only through timers (link latency,
 * retransmission and RNR timers, application deadlines).
 *
 * <p>Work runs when the application waits ({@link #await}) or polls ({@link #progress}); a task
 * that throws ends the run: the exception reaches the driving thread as an
 * {@link EngineFailureException}.
 *
 * <p>Cost: the scheduler's own work is a few field writes per task. A ready queue is a linked
 * list through the tasks themselves (a task is queued at most once), so queueing allocates
 * nothing and never grows an array; the ready executors sit in an array; the timer queue is a
 * binary heap ({@link TaskHeap}) that holds only the tasks due later (link latency, protocol
 * timers), never the ready ones; the lock ({@link DriverLock}) costs one compare-and-set to take
 * and a release store to let go.
 *
 * <p>Thread safety: all methods are guarded by one lock, so stray calls from other threads are
 * safe, but the run is reproducible only when one thread drives it.
 */
public final class DeterministicScheduler implements Scheduler {

    private final long seed;
    private final SplittableRandom random;
    private final SplittableRandom childSeeds;
    private final DriverLock lock = new DriverLock();
    /** The executors with ready tasks, in the order the seeded choice indexes them. */
    private DetExecutor[] ready = new DetExecutor[8];

    private int readyCount;
    /** Tasks due later, ordered by (due time, submission order). */
    private final TaskHeap timers = new TaskHeap(64);

    private long now;
    private long nextSeq;
    private long steps;
    private boolean running;
    private boolean closed;

    public DeterministicScheduler(long seed) {
        this.seed = seed;
        SplittableRandom root = new SplittableRandom(seed);
        this.random = root.split();
        this.childSeeds = root.split();
    }

    /** The seed this scheduler was created with. */
    public long seed() {
        return seed;
    }

    /**
     * A new random source derived from the seed, for a component that makes its own choices
     * (a link's fault decisions). Derived in creation order, so a replay derives the same ones.
     */
    public SplittableRandom newRandom() {
        lock.lock();
        try {
            return childSeeds.split();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public boolean isDeterministic() {
        return true;
    }

    /** Number of tasks run so far. */
    public long steps() {
        return steps;
    }

    @Override
    public EngineExecutor newExecutor(String name) {
        return new DetExecutor(name);
    }

    @Override
    public boolean await(BooleanSupplier condition, long timeoutNanos, WaitSignal signal) {
        lock.lock();
        try {
            if (running) {
                throw new IllegalStateException("a blocking wait was called from inside an engine task");
            }
            long deadline = timeoutNanos < 0 ? Long.MAX_VALUE : saturatedAdd(now, timeoutNanos);
            while (!condition.getAsBoolean()) {
                if (!step(deadline)) {
                    if (timeoutNanos < 0) {
                        throw new SimulationStalledException("waiting without a deadline at virtual time " + now
                                + " ns with nothing left to run: the simulated program is deadlocked");
                    }
                    now = Math.max(now, deadline);
                    return condition.getAsBoolean();
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean progress() {
        lock.lock();
        try {
            return !running && step(Long.MAX_VALUE);
        } finally {
            lock.unlock();
        }
    }

    /** Runs until no task is ready and no timer is pending. Returns the number of tasks run. */
    public long runUntilIdle() {
        lock.lock();
        try {
            checkNotRunning();
            long before = steps;
            while (step(Long.MAX_VALUE)) {
                // until idle
            }
            return steps - before;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs everything due up to {@code now + nanos}, then sets virtual time to exactly that
     * instant.
     */
    public void advanceTime(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative time step: " + nanos);
        }
        lock.lock();
        try {
            checkNotRunning();
            long target = saturatedAdd(now, nanos);
            while (step(target)) {
                // until nothing is due by target
            }
            now = Math.max(now, target);
        } finally {
            lock.unlock();
        }
    }

    /** Number of tasks ready to run plus timers pending. */
    public int pending() {
        lock.lock();
        try {
            int n = timers.size();
            for (int i = 0; i < readyCount; i++) {
                n += ready[i].size;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (int i = 0; i < readyCount; i++) {
                ready[i].clearQueue();
                ready[i] = null;
            }
            readyCount = 0;
            timers.clear();
        } finally {
            lock.unlock();
        }
    }

    private void checkNotRunning() {
        if (running) {
            throw new IllegalStateException("the scheduler was driven from inside an engine task");
        }
    }

    /**
     * One step: runs a ready task, or else moves to the earliest timer if it is due by
     * {@code deadline}. Caller holds the lock.
     *
     * @return false if there was nothing to do
     */
    private boolean step(long deadline) {
        if (readyCount > 0) {
            runOne();
            return true;
        }
        Task first = timers.peek();
        if (first != null && first.due <= deadline) {
            advanceToNextTimer();
            return true;
        }
        return false;
    }

    private void runOne() {
        int index = readyCount == 1 ? 0 : random.nextInt(readyCount);
        DetExecutor executor = ready[index];
        Task task = executor.pollReady();
        if (executor.size == 0) {
            removeReady(executor);
        }
        running = true;
        steps++;
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            throw new EngineFailureException(
                    "engine task " + task + " on " + executor.name + " failed at virtual time " + now + " ns", e);
        } finally {
            running = false;
        }
    }

    /** Moves virtual time to the earliest timer and makes every timer due then ready. */
    private void advanceToNextTimer() {
        now = Math.max(now, timers.peek().due);
        Task t;
        while ((t = timers.peek()) != null && t.due <= now) {
            timers.poll();
            t.timerOwner.enqueueReady(t);
        }
    }

    private void addReady(DetExecutor e) {
        if (e.readyIndex < 0) {
            if (readyCount == ready.length) {
                DetExecutor[] bigger = new DetExecutor[ready.length * 2];
                System.arraycopy(ready, 0, bigger, 0, readyCount);
                ready = bigger;
            }
            e.readyIndex = readyCount;
            ready[readyCount++] = e;
        }
    }

    /** Removes {@code e} from the ready executors, moving the last one into its place. */
    private void removeReady(DetExecutor e) {
        int i = e.readyIndex;
        int last = --readyCount;
        DetExecutor moved = ready[last];
        ready[i] = moved;
        moved.readyIndex = i;
        ready[last] = null;
        e.readyIndex = -1;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** One device's queue of ready tasks: a FIFO linked through {@link Task#readyNext}. */
    final class DetExecutor implements EngineExecutor {
        private final String name;
        private Task head;
        private Task tail;
        private int size;
        private int readyIndex = -1;

        DetExecutor(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Scheduler scheduler() {
            return DeterministicScheduler.this;
        }

        @Override
        public void execute(Task task) {
            lock.lock();
            try {
                if (!closed) {
                    enqueueReady(task);
                }
            } finally {
                lock.unlock();
            }
        }

        void enqueueReady(Task task) {
            if (task.readyQueued) {
                throw new IllegalStateException("task submitted twice: " + task);
            }
            task.readyQueued = true;
            if (tail == null) {
                head = task;
            } else {
                tail.readyNext = task;
            }
            tail = task;
            size++;
            addReady(this);
        }

        /** Takes the oldest ready task; the queue must not be empty. */
        Task pollReady() {
            Task t = head;
            head = t.readyNext;
            if (head == null) {
                tail = null;
            }
            t.readyNext = null;
            t.readyQueued = false;
            size--;
            return t;
        }

        void clearQueue() {
            Task t = head;
            while (t != null) {
                Task next = t.readyNext;
                t.readyNext = null;
                t = next;
            }
            head = null;
            tail = null;
            size = 0;
            readyIndex = -1;
        }

        /**
         * Queues {@code task} to run after {@code delayNanos} of virtual time. A task already
         * waiting in the timer queue is moved to the earlier of its two due times.
         */
        @Override
        public void schedule(Task task, long delayNanos) {
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                if (delayNanos <= 0 && !task.inTimerQueue()) {
                    enqueueReady(task);
                    return;
                }
                long due = saturatedAdd(now, Math.max(0, delayNanos));
                if (task.inTimerQueue()) {
                    timers.moveEarlier(task, due);
                    return;
                }
                task.due = due;
                task.seq = nextSeq++;
                task.timerOwner = this;
                timers.offer(task);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public boolean inExecutor() {
            return lock.isHeldByCurrentThread();
        }

        @Override
        public <T> T call(Callable<T> command) {
            lock.lock();
            try {
                return command.call();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new EngineFailureException("command failed on " + name, e);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public String toString() {
            return "DetExecutor[" + name + "]";
        }
    }
}
