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
