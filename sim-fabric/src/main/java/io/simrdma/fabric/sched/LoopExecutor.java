package io.simrdma.fabric.sched;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A threaded executor with a thread of its own that waits for work as its {@link IdleStrategy}
 * says (spin, yield, then park) instead of parking at once.
 *
 * <p>Tasks travel through an intrusive lock-free multi-producer single-consumer queue (after
 * D. Vyukov's): the task itself is the queue node ({@link Task#next}), so submitting allocates
 * nothing. A task with a delay goes through the same queue carrying its due time and then waits
 * in a {@link TaskHeap} that only this thread touches. A producer wakes the thread only when it
 * is parked.
 *
 * <p>Thread safety: {@link #execute}, {@link #schedule} and {@link #call} from any thread; the
 * queue's consumer side and the timer heap belong to the executor's thread.
 */
final class LoopExecutor implements EngineExecutor, Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(LoopExecutor.class);
    /** Due time of a task submitted to run now. */
    private static final long NOW = Long.MIN_VALUE;
    /** Longest park, so that a lost wake-up (there should be none) costs at most this. */
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Tasks a helping thread runs at most per call before it leaves the rest to the executor's thread. */
    private static final int HELP_BUDGET = 1024;
    /** How long after a thread offered help a producer counts on it instead of waking the executor's thread. */
    private static final long HELP_WINDOW_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /**
     * How long after a thread offered help its device counts as polled by it, so that other polling
     * threads do not run its work (two threads ping-ponging through two devices each keep to their
     * own device: a 50 us window let them run each other's work, and the median round trip rose
     * from 13-44 us to 108-114 us on a loaded 2-core VM).
     */
    private static final long POLLED_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Granularity of {@link #lastHelp}, so that a busy-polling thread does not write it on every poll. */
    private static final long HELP_NOTE_NANOS = TimeUnit.MICROSECONDS.toNanos(5);
    /**
     * While a thread polling another device lends this executor a hand ({@link ThreadedScheduler#helpOthers}),
     * the executor's thread parks at most this long, and a producer does not wake a thread whose park ends
     * within it: the lender runs the work on its next empty poll, and should it stop polling, the thread
     * finds the work when its short park ends. (Waking it for every burst of an in-process transfer cost
     * the polling thread a futex call, 12% of its samples, and the woken thread raced it for the work.)
     */
    private static final long LEND_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final int RUNNING = 0;
    private static final int SHUTTING_DOWN = 1;
    private static final int TERMINATED = 2;

    private final ThreadedScheduler scheduler;
    private final String name;
    private final long spinNanos;
    private final long spinAndYieldNanos;
    private final boolean neverParks;
    private final Thread thread;
    private final CountDownLatch terminated = new CountDownLatch(1);

    /** Producers swap themselves in here. */
    private final AtomicReference<Task> head;
    /** The consumer's end; executor thread only. */
    private volatile Task tail;
    /** The thread running this executor's tasks now (its own or a helping one), or null. */
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    /** Incremented by an owner that adds or moves a timer, so a thread about to park re-plans. */
    private volatile long timerEpoch;
    /** When a thread last offered help ({@link #help()}), to within HELP_NOTE_NANOS. */
    private volatile long lastHelp = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
    /** The thread that last offered help. */
    private volatile Thread helper;
    /** Due time of the earliest timer, Long.MAX_VALUE if none; written by owners. */
    private volatile long nextTimerDue = Long.MAX_VALUE;
    /** When a thread polling another device last lent this executor a hand, to within HELP_NOTE_NANOS. */
    private volatile long lentAt = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
    /** When the executor's thread's current park ends at the latest; written before {@link #parked} is set. */
    private volatile long parkUntil;

    private final Task stub = new Stub();
    private final TaskHeap timers = new TaskHeap(64);
    private long nextSeq;

    private volatile boolean parked;
    private volatile int state = RUNNING;

    LoopExecutor(ThreadedScheduler scheduler, String name, IdleStrategy idle) {
        this.scheduler = scheduler;
        this.name = name;
        this.spinNanos = idle.spinNanos();
        this.spinAndYieldNanos = idle.neverParks() ? Long.MAX_VALUE : idle.spinNanos() + idle.yieldNanos();
        this.neverParks = idle.neverParks();
        this.head = new AtomicReference<>(stub);
        this.tail = stub;
        this.thread = new Thread(this, "simrdma-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Scheduler scheduler() {
        return scheduler;
    }

    @Override
    public void execute(Task task) {
        if (state != RUNNING) {
            return;
        }
        task.due = NOW;
        push(task);
    }

    @Override
    public void schedule(Task task, long delayNanos) {
        if (state != RUNNING) {
            return;
        }
        if (delayNanos <= 0) {
            task.due = NOW;
        } else {
            long now = System.nanoTime();
            long due = now + delayNanos;
            task.due = due < now ? Long.MAX_VALUE : due; // saturate a very long delay
        }
        push(task);
    }

    @Override
    public boolean inExecutor() {
        return owner.get() == Thread.currentThread();
    }

    /** True once the thread has ended. */
    boolean isTerminated() {
        return state == TERMINATED;
    }

    @Override
    public <T> T call(Callable<T> command) {
        if (state != RUNNING) {
            // The fabric closed: once the thread has stopped no engine work runs any more, so the
            // command runs here and fails as it would under the deterministic scheduler (a
            // destroyed object, a closed device).
            awaitTermination(ThreadedScheduler.SHUTDOWN_TIMEOUT_SECONDS);
        }
        if (inExecutor() || state == TERMINATED) {
            return ThreadedScheduler.callHere(name, command);
        }
        CallTask<T> c = new CallTask<>(command);
        push(c);
        return c.await(this, ThreadedScheduler.SHUTDOWN_TIMEOUT_SECONDS * 6);
    }

    /** Stops the thread after the tasks already queued; timers pending are dropped. */
    void shutdown() {
        if (state == RUNNING) {
            state = SHUTTING_DOWN;
        }
        LockSupport.unpark(thread);
    }

    boolean awaitTermination(long seconds) {
        try {
            return terminated.await(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // ---- the queue ----

    private void push(Task task) {
        task.next = null;
        Task prev = head.getAndSet(task);
        prev.next = task;
        // A helping thread that owns the executor runs this task or wakes the thread when it
        // leaves; one that polls often picks it up soon (the parked thread also looks again
        // within LEND_WINDOW_NANOS), so only an executor without helpers needs a wake-up -- or
        // one whose helper is the submitter itself posting from the application (it is busy
        // posting, not polling), or whose thread parked for long before any helper came.
        // A parked thread whose park ends within the lending window anyway is not woken either
        // while a polling thread lends this executor a hand, or while its own helper submits from
        // inside an engine task (it goes back to polling when the task ends).
        if (parked && owner.get() == null && !covered()) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Whether new work needs no wake-up of the parked thread: its park ends within the lending
     * window, and a polling thread runs the work before that -- its helper (another thread, or the
     * submitter itself from inside an engine task) or a lender. Read after {@link #parked} was seen
     * true, so {@link #parkUntil} is the current park's.
     */
    private boolean covered() {
        long now = System.nanoTime();
        if (parkUntil - now > LEND_WINDOW_NANOS) {
            return false;
        }
        Thread me = Thread.currentThread();
        if (helper == me) {
            return now - lastHelp <= LEND_WINDOW_NANOS && scheduler.runsTaskOf(me);
        }
        return now - lastHelp <= HELP_WINDOW_NANOS || now - lentAt <= LEND_WINDOW_NANOS;
    }

    /**
     * True if a thread polling another device lent this executor a hand within the lending window
     * and the parked executor thread wakes by itself within that window.
     */
    private boolean lenderCovers() {
        long now = System.nanoTime();
        return now - lentAt <= LEND_WINDOW_NANOS && parkUntil - now <= LEND_WINDOW_NANOS;
    }

    /** A thread polling another device is about to lend this executor a hand (or look whether it needs one). */
    void noteLender(long now) {
        if (now - lentAt > HELP_NOTE_NANOS) {
            lentAt = now;
        }
    }

    /** The oldest task, or null if none is (yet) linked in. Executor thread only. */
    private Task poll() {
        Task t = tail;
        Task n = t.next;
        if (t == stub) {
            if (n == null) {
                return null;
            }
            tail = n;
            t = n;
            n = n.next;
        }
        if (n != null) {
            tail = n;
            t.next = null;
            return t;
        }
        if (t != head.get()) {
            return null; // a producer is between its swap and its link
        }
        push(stub);
        n = t.next;
        if (n != null) {
            tail = n;
            t.next = null;
            return t;
        }
        return null;
    }

    /** True when nothing has been submitted since the queue was last drained. */
    private boolean queueEmpty() {
        return head.get() == stub && tail == stub;
    }

    // ---- running: the executor's own thread, or a polling thread helping ----

    /**
     * Runs this executor's queued work here if no thread is on it, then the queued work of the
     * scheduler's other executors whose threads are not on theirs ({@link ThreadedScheduler#helpOthers}):
     * a thread polling one device's CQ also moves the packets its peer device in this JVM has
     * queued (the other side of the transfer it waits for), so neither device's thread has to be
     * woken while it polls. (Lending only when its own device had nothing let the peer's lending
     * note go stale during a transfer, and its thread was woken for every burst.)
     */
    @Override
    public boolean help() {
        boolean own = helpOwn(true);
        return scheduler.helpOthers(this) || own;
    }

    /** True if the calling thread runs this executor's tasks now (it is inside one of them). */
    boolean ownedBy(Thread t) {
        return owner.get() == t;
    }

    /**
     * True if a thread other than {@code t} offered help within the last POLLED_NANOS: it polls
     * this executor's device itself (now and then at least), so {@code t} leaves that work to it.
     */
    boolean polledByAnother(Thread t) {
        return helper != t && System.nanoTime() - lastHelp <= POLLED_NANOS;
    }

    /**
     * True if tasks are queued or a timer is due (read without owning, an approximation): another
     * executor's helper checks this first, so it does not claim an idle executor.
     */
    boolean hasWork() {
        return state == RUNNING && (!queueEmpty() || timersDue());
    }

    /**
     * {@link #help()} for this executor's own work only. {@code note}: the caller polls this
     * executor's device and is noted as its helper (producers then count on it instead of waking
     * the thread); a thread lending a hand to another device's executor is not, so that device's
     * thread is still woken for work that arrives after it leaves.
     */
    boolean helpOwn(boolean note) {
        long now = System.nanoTime();
        if (note && now - lastHelp > HELP_NOTE_NANOS) {
            lastHelp = now;
            helper = Thread.currentThread();
        }
        if (state != RUNNING || owner.get() != null || queueEmpty() && !timersDue()) {
            return false;
        }
        Thread me = Thread.currentThread();
        if (!owner.compareAndSet(null, me)) {
            return false;
        }
        boolean worked;
        long epoch = timerEpoch;
        try {
            worked = runQueued(HELP_BUDGET);
            if (!timers.isEmpty() && runDueTimers()) {
                worked = true;
            }
        } finally {
            owner.set(null);
        }
        // The executor's thread may have parked while this one ran: wake it for what is left, or to
        // plan its park again for a timer due before that park ends.
        if (parked
                && (!queueEmpty() && (note || !lenderCovers())
                        || timerEpoch != epoch && nextTimerDue - parkUntil < 0)) {
            LockSupport.unpark(thread);
        }
        return worked;
    }

    /** Whether a timer is due; an approximation read without owning, to skip needless claims. */
    private boolean timersDue() {
        return nextTimerDue != Long.MAX_VALUE && nextTimerDue - System.nanoTime() <= 0;
    }

    @Override
    public void run() {
        long idleSince = -1;
        try {
            while (true) {
                boolean worked = false;
                if ((!queueEmpty() || timersDue()) && owner.compareAndSet(null, thread)) {
                    try {
                        worked = runQueued(Integer.MAX_VALUE);
                        if (!timers.isEmpty() && runDueTimers()) {
                            worked = true;
                        }
                    } finally {
                        owner.set(null);
                    }
                }
                if (worked) {
                    idleSince = -1;
                    continue;
                }
                if (state != RUNNING) {
                    break;
                }
                long now = System.nanoTime();
                if (idleSince < 0) {
                    idleSince = now;
                }
                long idle = now - idleSince;
                if (idle < spinNanos) {
                    Thread.onSpinWait();
                } else if (idle < spinAndYieldNanos) {
                    Thread.yield();
                } else if (!neverParks) {
                    park();
                }
            }
            while (!owner.compareAndSet(null, thread)) {
                Thread.onSpinWait(); // a helper finishing its turn
            }
            runQueued(Integer.MAX_VALUE); // what was submitted before shutdown
        } finally {
            state = TERMINATED;
            timers.clear();
            terminated.countDown();
        }
    }

    private boolean runQueued(int budget) {
        boolean worked = false;
        Task t;
        int n = 0;
        while (n < budget && (t = poll()) != null) {
            worked = true;
            n++;
            long due = t.due;
            if (due == NOW) {
                scheduler.runGuarded(t);
            } else if (t.heapIndex >= 0) {
                timers.moveEarlier(t, due); // already waiting: keep the earlier time
                noteTimers();
            } else {
                t.seq = nextSeq++;
                timers.offer(t);
                noteTimers();
            }
        }
        return worked;
    }

    private void noteTimers() {
        nextTimerDue = timers.peek().due;
        timerEpoch++;
    }

    private boolean runDueTimers() {
        long now = System.nanoTime();
        boolean worked = false;
        Task t;
        while ((t = timers.peek()) != null && t.due - now <= 0) {
            timers.poll();
            Task next = timers.peek();
            nextTimerDue = next == null ? Long.MAX_VALUE : next.due;
            scheduler.runGuarded(t);
            worked = true;
        }
        return worked;
    }

    /**
     * Parks the executor's thread until new work, its earliest timer, or at most
     * {@link #MAX_PARK_NANOS} ({@link #LEND_WINDOW_NANOS} while a thread helps or lends a hand),
     * unless work is already waiting. A helping thread that adds a timer due before the park ends,
     * or leaves work behind, unparks it.
     */
    private void park() {
        long now = System.nanoTime();
        long due = nextTimerDue;
        long wait = due == Long.MAX_VALUE ? MAX_PARK_NANOS : Math.min(MAX_PARK_NANOS, due - now);
        if (now - lastHelp <= HELP_WINDOW_NANOS || now - lentAt <= LEND_WINDOW_NANOS) {
            // Producers may not wake this thread while its device is polled or lent a hand.
            wait = Math.min(wait, LEND_WINDOW_NANOS);
        }
        // Set before parked, so that a producer that sees parked sees this park's end.
        parkUntil = now + Math.max(0, wait);
        parked = true;
        try {
            if (state != RUNNING || owner.get() == null && !queueEmpty()) {
                return;
            }
            if (wait > 0 && nextTimerDue == due) {
                LockSupport.parkNanos(this, wait);
            }
        } finally {
            parked = false;
        }
    }

    @Override
    public String toString() {
        return "LoopExecutor[" + name + "]";
    }

    /** The queue's placeholder node; never run. */
    private static final class Stub extends Task {
        @Override
        public void run() {
            LOG.error("the queue's placeholder ran");
        }
    }

    /** A control command and its outcome; one per call. */
    private static final class CallTask<T> extends Task {
        private final Callable<T> command;
        private final CountDownLatch done = new CountDownLatch(1);
        private final java.util.concurrent.atomic.AtomicBoolean started =
                new java.util.concurrent.atomic.AtomicBoolean();
        private T result;
        private Throwable failure;

        CallTask(Callable<T> command) {
            this.command = command;
        }

        @Override
        public void run() {
            if (!started.compareAndSet(false, true)) {
                return;
            }
            try {
                result = command.call();
            } catch (Throwable t) {
                failure = t;
            } finally {
                done.countDown();
            }
        }

        T await(LoopExecutor executor, long timeoutSeconds) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            try {
                while (!done.await(100, TimeUnit.MILLISECONDS)) {
                    if (executor.isTerminated()) {
                        run(); // submitted as the thread stopped: nothing else will run it
                    } else if (System.nanoTime() - deadline > 0) {
                        throw new EngineFailureException("command did not complete on " + executor.name, null);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EngineFailureException("interrupted while waiting for a command on " + executor.name, e);
            }
            Throwable f = failure;
            if (f == null) {
                return result;
            }
            if (f instanceof RuntimeException) {
                throw (RuntimeException) f;
            }
            if (f instanceof Error) {
                throw (Error) f;
            }
            throw new EngineFailureException("command failed on " + executor.name, f);
        }

        @Override
        public String toString() {
            return "call " + command;
        }
    }
}
