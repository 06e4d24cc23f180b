package io.simrdma.fabric.sched;

import java.util.function.BooleanSupplier;

/**
 * Where engine work runs and what time it is. Two implementations:
 * <ul>
 *   <li>{@link DeterministicScheduler}: one logical thread (the caller's), virtual time, and a
 *       seeded random source for every choice; the same seed replays the same run.</li>
 *   <li>{@link ThreadedScheduler}: real time; each executor is a thread of its own.</li>
 * </ul>
 *
 * <p>Thread safety: every method may be called from any thread. Determinism additionally requires
 * that one application thread drives the deterministic scheduler.
 */
public interface Scheduler extends AutoCloseable {

    /** Current time in nanoseconds on this scheduler's clock (virtual or {@link System#nanoTime()}). */
    long nanoTime();

    /** True for the deterministic (virtual time) implementation. */
    boolean isDeterministic();

    /** Creates an executor for one device's engine work. */
    EngineExecutor newExecutor(String name);

    /**
     * Waits until {@code condition} holds or {@code timeoutNanos} pass on this scheduler's clock,
     * and returns the condition's final value. A negative timeout waits without a deadline.
     *
     * <p>Deterministic: runs engine tasks on the calling thread, advancing virtual time, until the
     * condition holds or the virtual deadline passes (virtual time then stands at the deadline).
     * If nothing is left to run and the wait has no deadline, it throws
     * {@link SimulationStalledException}: nothing could ever make the condition true.
     *
     * <p>Threaded: blocks on {@code signal} until a producer calls {@link WaitSignal#signalAll()}
     * and the condition holds, or the real-time deadline passes.
     *
     * @throws IllegalStateException if called from inside an engine task
     */
    boolean await(BooleanSupplier condition, long timeoutNanos, WaitSignal signal);

    /**
     * Lets engine work make progress from a polling loop on the calling thread: under the
     * deterministic scheduler runs one task (advancing virtual time to the next timer when
     * nothing is ready) and returns whether anything ran; the threaded scheduler's executors run on
     * their own, so it returns false at once.
     */
    boolean progress();

    /** A new signal for a waitable object (CQ, channel, event queue) driven by this scheduler. */
    default WaitSignal newSignal() {
        return new WaitSignal(this);
    }

    /** Stops every executor and releases their threads; waits for them to end. */
    @Override
    void close();
}
