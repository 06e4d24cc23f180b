package io.simrdma.fabric.sched;

/**
 * Thrown by a blocking wait under the deterministic scheduler when nothing is left to run and
 * the wait has no deadline: no future event could ever end the wait, so the simulated program is
 * deadlocked. A real program would hang here; the simulation says so instead.
 *
 * <p>Thread safety: immutable once thrown.
 */
public final class SimulationStalledException extends IllegalStateException {

    public SimulationStalledException(String message) {
        super(message);
    }
}
