package io.simrdma.tools.perf;

/** A run that cannot go on: a completion with an error, a peer that went away, a setup that failed. */
final class PerfFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    PerfFailure(String message) {
        super(message);
    }

    PerfFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
