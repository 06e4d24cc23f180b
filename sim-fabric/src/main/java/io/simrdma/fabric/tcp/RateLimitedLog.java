package io.simrdma.fabric.tcp;

import java.util.function.LongSupplier;

/**
 * Limits how often one kind of log line is written: the first occurrence is written, then at most
 * one per interval, each telling how many were left out since the last one written. A node keeps
 * one per kind of refusal, so that a peer retrying a refused handshake, or a flood of
 * connections, cannot fill a log.
 * <pre>{@code
 * if (refusals.admit()) {
 *     LOG.warn("refused {}{}", peer, refusals.suppressedSuffix());
 * }
 * }</pre>
 *
 * <p>Thread safety: confined to one thread (a node's event loop); {@link #admit()} and
 * {@link #suppressedSuffix()} are called in pairs on it.
 */
final class RateLimitedLog {

    private final long intervalNanos;
    private final LongSupplier clock;
    private boolean any;
    private long lastWritten;
    private long suppressed;
    private long suppressedAtWrite;

    /** At most one line per {@code intervalNanos} on {@code clock} (nanoseconds). */
    RateLimitedLog(long intervalNanos, LongSupplier clock) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("interval " + intervalNanos + " ns is not positive");
        }
        this.intervalNanos = intervalNanos;
        this.clock = clock;
    }

    /** True if a line may be written now (then write it, with {@link #suppressedSuffix()}); false counts one left out. */
    boolean admit() {
        long now = clock.getAsLong();
        if (any && now - lastWritten < intervalNanos) {
            suppressed++;
            return false;
        }
        any = true;
        lastWritten = now;
        suppressedAtWrite = suppressed;
        suppressed = 0;
        return true;
    }

    /** How many lines were left out before the one just admitted. */
    long suppressedBeforeLast() {
        return suppressedAtWrite;
    }

    /** "" or " (N more like it since the last one, not logged)", for the line just admitted. */
    String suppressedSuffix() {
        return suppressedAtWrite == 0 ? "" : " (" + suppressedAtWrite + " more like it since the last one, not logged)";
    }
}
