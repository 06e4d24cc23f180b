package io.simrdma.fabric.sched;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;
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
 * <p>Thread safety: all methods are guarded by one lock, so stray calls from other threads are
 * safe, but the run is reproducible only when one thread drives it.
 */
public final class DeterministicScheduler implements Scheduler {

    private final long seed;
    private final SplittableRandom random;
    private final SplittableRandom childSeeds;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<DetExecutor> ready = new ArrayList<>();
    private Task[] heap = new Task[64];
    private int heapSize;
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
            int n = heapSize;
            for (DetExecutor e : ready) {
                n += e.queue.size();
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
            for (DetExecutor e : ready) {
                e.queue.clear();
                e.readyIndex = -1;
            }
            ready.clear();
            for (int i = 0; i < heapSize; i++) {
                heap[i].heapIndex = -1;
                heap[i] = null;
            }
            heapSize = 0;
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
        if (!ready.isEmpty()) {
            runOne();
            return true;
        }
        if (heapSize > 0 && heap[0].due <= deadline) {
            advanceToNextTimer();
            return true;
        }
        return false;
    }

    private void runOne() {
        int index = ready.size() == 1 ? 0 : random.nextInt(ready.size());
        DetExecutor executor = ready.get(index);
        Task task = executor.queue.poll();
        task.readyQueued = false;
        if (executor.queue.isEmpty()) {
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
        long due = heap[0].due;
        now = Math.max(now, due);
        while (heapSize > 0 && heap[0].due <= now) {
            Task t = pollHeap();
            t.timerOwner.enqueueReady(t);
        }
    }

    private void addReady(DetExecutor e) {
        if (e.readyIndex < 0) {
            e.readyIndex = ready.size();
            ready.add(e);
        }
    }

    private void removeReady(DetExecutor e) {
        int i = e.readyIndex;
        int last = ready.size() - 1;
        DetExecutor moved = ready.get(last);
        ready.set(i, moved);
        moved.readyIndex = i;
        ready.remove(last);
        e.readyIndex = -1;
    }

    // ---- timer heap ordered by (due, seq) ----

    private static boolean before(Task a, Task b) {
        return a.due < b.due || (a.due == b.due && a.seq < b.seq);
    }

    private void offerHeap(Task t) {
        if (heapSize == heap.length) {
            Task[] bigger = new Task[heap.length * 2];
            System.arraycopy(heap, 0, bigger, 0, heapSize);
            heap = bigger;
        }
        t.heapIndex = heapSize;
        heap[heapSize++] = t;
        siftUp(t.heapIndex);
    }

    private Task pollHeap() {
        Task top = heap[0];
        Task last = heap[--heapSize];
        heap[heapSize] = null;
        top.heapIndex = -1;
        if (heapSize > 0) {
            heap[0] = last;
            last.heapIndex = 0;
            siftDown(0);
        }
        return top;
    }

    private void siftUp(int i) {
        Task t = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Task p = heap[parent];
            if (!before(t, p)) {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = t;
        t.heapIndex = i;
    }

    private void siftDown(int i) {
        Task t = heap[i];
        int half = heapSize >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < heapSize && before(heap[right], heap[child])) {
                child = right;
            }
            if (!before(heap[child], t)) {
                break;
            }
            heap[i] = heap[child];
            heap[i].heapIndex = i;
            i = child;
        }
        heap[i] = t;
        t.heapIndex = i;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** One device's queue of ready tasks. */
    final class DetExecutor implements EngineExecutor {
        private final String name;
        private final ArrayDeque<Task> queue = new ArrayDeque<>();
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
            queue.add(task);
            addReady(this);
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
                    if (due < task.due) {
                        task.due = due;
                        siftUp(task.heapIndex);
                    }
                    return;
                }
                task.due = due;
                task.seq = nextSeq++;
                task.timerOwner = this;
                offerHeap(task);
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
