package io.simrdma.dat;

import java.util.Optional;

/**
 * The outcome of {@link EventDispatcher#waitForEvent} (dat_evd_wait) that is not a failure: either
 * an event ({@link DatReturnType#SUCCESS}) or a timeout ({@link DatReturnType#TIMEOUT_EXPIRED}, no
 * event removed). {@code nmore} is defined in both cases: the snapshot number of events left on the
 * queue.
 *
 * <p>Thread safety: immutable.
 *
 * @param status {@link DatReturnType#SUCCESS} or {@link DatReturnType#TIMEOUT_EXPIRED}
 * @param event the event removed; present exactly when the status is {@code SUCCESS}
 * @param nmore the number of events left on the queue
 */
public record EvdWaitResult(DatReturnType status, Optional<DatEvent> event, int nmore) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for another status, an event that does not
     *         match the status, or a negative {@code nmore}
     */
    public EvdWaitResult {
        Checks.notNull(status, "status");
        Checks.notNull(event, "event");
        if (status != DatReturnType.SUCCESS && status != DatReturnType.TIMEOUT_EXPIRED) {
            throw DatException.invalidParameter("a wait result is SUCCESS or TIMEOUT_EXPIRED, not " + status);
        }
        if (event.isPresent() != (status == DatReturnType.SUCCESS)) {
            throw DatException.invalidParameter(status + " with" + (event.isPresent() ? "" : "out") + " an event");
        }
        Checks.nonNegative(nmore, "nmore");
    }

    /** A successful wait that removed {@code event}, leaving {@code nmore} events. */
    public static EvdWaitResult success(DatEvent event, int nmore) {
        return new EvdWaitResult(DatReturnType.SUCCESS, Optional.of(Checks.notNull(event, "event")), nmore);
    }

    /** A wait that timed out with {@code nmore} events queued (fewer than the threshold). */
    public static EvdWaitResult timedOut(int nmore) {
        return new EvdWaitResult(DatReturnType.TIMEOUT_EXPIRED, Optional.empty(), nmore);
    }

    /** Whether the wait timed out. */
    public boolean isTimedOut() {
        return status == DatReturnType.TIMEOUT_EXPIRED;
    }
}
