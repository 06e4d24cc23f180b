package io.simrdma.fabric.sched;

/**
 * A unit of engine work run by an {@link EngineExecutor}: a QP role step, a packet delivery,
 * a timer expiry.
 *
 * <p>Tasks are long-lived and reused, so that the hot path allocates nothing: a queue pair owns
 * one task per role, a packet is its own delivery task. The fields below belong to the
 * scheduler that queues the task; a task is queued at most once at a time.
 *
 * <p>Thread safety: {@link #run()} is called on the executor's thread; the scheduling fields are
 * touched only by the scheduler, under its own guard.
 */
public abstract class Task implements Runnable {

    // --- owned by the scheduler whose executor queues the task (a task belongs to one) ---
    long due;
    long seq;
    int heapIndex = -1;
    DeterministicScheduler.DetExecutor timerOwner;
    boolean readyQueued;
    /** The next task in a deterministic executor's ready queue (see DeterministicScheduler). */
    Task readyNext;
    /** The next task in a threaded executor's lock-free queue (see ThreadedScheduler). */
    volatile Task next;

    // --- owned by ThreadedScheduler: the task wrapped in its failure handler, made once ---
    private Runnable guarded;

    Runnable guarded(ThreadedScheduler scheduler) {
        Runnable r = guarded;
        if (r == null) {
            r = () -> scheduler.runGuarded(this);
            guarded = r;
        }
        return r;
    }

    /** True while this task sits in a deterministic scheduler's timer queue. */
    final boolean inTimerQueue() {
        return heapIndex >= 0;
    }
}
