package io.simrdma.dat;

import java.util.Optional;

/**
 * The outcome of {@link ConsumerNotificationObject#waitForNotification} (dat_cno_wait) that is not a
 * failure. {@link DatReturnType#SUCCESS} with an EVD: that EVD notified (a hint only).
 * {@link DatReturnType#SUCCESS} without an EVD: the IA was closed or every EVD of the CNO was freed.
 * {@link DatReturnType#QUEUE_EMPTY}: the timeout expired without a notification (the return code
 * dat_cno_wait gives a timeout); the EVD is empty.
 *
 * <p>Thread safety: immutable.
 *
 * @param status {@link DatReturnType#SUCCESS} or {@link DatReturnType#QUEUE_EMPTY}
 * @param evd the EVD that notified, if any
 */
public record CnoWaitResult(DatReturnType status, Optional<EventDispatcher> evd) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for another status, or an EVD with
     *         {@code QUEUE_EMPTY}
     */
    public CnoWaitResult {
        Checks.notNull(status, "status");
        Checks.notNull(evd, "evd");
        if (status != DatReturnType.SUCCESS && status != DatReturnType.QUEUE_EMPTY) {
            throw DatException.invalidParameter("a CNO wait result is SUCCESS or QUEUE_EMPTY, not " + status);
        }
        if (status == DatReturnType.QUEUE_EMPTY && evd.isPresent()) {
            throw DatException.invalidParameter("a timed-out CNO wait names no EVD");
        }
    }

    /** A notification from {@code evd}; {@code null} when the IA was closed or every EVD freed. */
    public static CnoWaitResult notified(EventDispatcher evd) {
        return new CnoWaitResult(DatReturnType.SUCCESS, Optional.ofNullable(evd));
    }

    /** The timeout expired without a notification. */
    public static CnoWaitResult timedOut() {
        return new CnoWaitResult(DatReturnType.QUEUE_EMPTY, Optional.empty());
    }

    /** Whether the wait timed out. */
    public boolean isTimedOut() {
        return status == DatReturnType.QUEUE_EMPTY;
    }
}
