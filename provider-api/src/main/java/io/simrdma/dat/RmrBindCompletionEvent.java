package io.simrdma.dat;

/**
 * The completion of an RMR bind ({@link EventNumber#RMR_BIND_COMPLETION_EVENT},
 * {@code DAT_RMR_BIND_COMPLETION_EVENT_DATA}), on the request EVD of the EP the bind was posted on.
 *
 * <p>Thread safety: immutable.
 *
 * @param evd the EVD
 * @param rmr the RMR bound
 * @param userCookie the cookie given to the bind ({@code DAT_RMR_COOKIE})
 * @param status the completion status ({@code DAT_RMR_BIND_SUCCESS} is
 *        {@link DtoCompletionStatus#SUCCESS}, {@code DAT_RMR_BIND_FAILURE} is
 *        {@link DtoCompletionStatus#ERR_FLUSHED})
 */
public record RmrBindCompletionEvent(
        EventDispatcher evd, RemoteMemoryRegion rmr, long userCookie, DtoCompletionStatus status) implements DatEvent {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public RmrBindCompletionEvent {
        Checks.notNull(evd, "evd");
        Checks.notNull(rmr, "rmr");
        Checks.notNull(status, "status");
    }

    /** {@link EventNumber#RMR_BIND_COMPLETION_EVENT}. */
    @Override
    public EventNumber eventNumber() {
        return EventNumber.RMR_BIND_COMPLETION_EVENT;
    }
}
