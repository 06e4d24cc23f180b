package io.simrdma.fabric.sched;

/**
 * An engine task threw: a defect in simrdma, not an RDMA error (those are completion statuses
 * and events). Under the deterministic scheduler it ends the run on the driving thread.
 */
public final class EngineFailureException extends IllegalStateException {

    public EngineFailureException(String message, Throwable cause) {
        super(message, cause);
    }
}
