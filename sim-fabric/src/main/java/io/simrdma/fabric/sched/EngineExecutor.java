package io.simrdma.fabric.sched;

import java.util.concurrent.Callable;

/**
 * Runs the engine work of one device: every task submitted here runs on one logical thread,
 * in submission order for tasks submitted from the same thread, so engine code needs no locks.
 *
 * <p>Under the {@link DeterministicScheduler} all executors share the caller's thread and virtual
 * time; under the {@link ThreadedScheduler} each executor is a Netty event loop with its own thread.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public interface EngineExecutor {

    /** The name given at creation; threads of a threaded executor are named {@code simrdma-<name>}. */
    String name();

    /** The scheduler this executor belongs to. */
    Scheduler scheduler();

    /**
     * Runs {@code task} as soon as possible on this executor. A task must not be submitted again
     * before it has started running; callers coalesce with their own flag.
     */
    void execute(Task task);

    /** Runs {@code task} on this executor once {@code delayNanos} have passed on the scheduler's clock. */
    void schedule(Task task, long delayNanos);

    /**
     * Runs this executor's queued tasks and due timers on the calling thread if no other thread is
     * running its work now, and returns whether anything ran: how a thread busy-polling a CQ lends
     * itself to the engine instead of waiting for the device's thread to wake up (as rxe runs its
     * tasks inline). The tasks still run one at a time, in order, with {@link #inExecutor()} true
     * for the caller while they run. Never blocks. The caller must not be inside an engine task of
     * another executor that could wait for this one.
     *
     * <p>A threaded scheduler's executor then lends the caller to the queued work of the
     * scheduler's other executors in the same way (each only if it has work, no thread is on it and
     * no other thread has polled it within the last millisecond; never from inside an engine task),
     * so a thread polling one device's CQ also runs the peer device's side of the transfer it waits
     * for; while it does, that device's thread parks at most a millisecond at a time and is not
     * woken for new work.
     *
     * <p>Only the threaded scheduler's own executors help; the deterministic scheduler runs work
     * through {@link Scheduler#progress()}, and a TCP node's event loop keeps its own thread: both
     * return false.
     */
    default boolean help() {
        return false;
    }

    /** True when the calling thread is the one running this executor's tasks now. */
    boolean inExecutor();

    /**
     * Runs {@code command} on this executor and returns its result, waiting for it. Runs it at
     * once when already on the executor (or under the deterministic scheduler, whose single
     * logical thread is the caller's). Used for control operations (create, modify, destroy)
     * that must not race with the engine.
     *
     * <p>Any {@link RuntimeException} or {@link Error} thrown by {@code command} is rethrown.
     */
    <T> T call(Callable<T> command);
}
