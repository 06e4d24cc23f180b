package io.simrdma.dat;

/**
 * The completion of a Send, Receive, RDMA Read or RDMA Write ({@link EventNumber#DTO_COMPLETION_EVENT},
 * {@code DAT_DTO_COMPLETION_EVENT_DATA}).
 *
 * <p>Thread safety: immutable.
 *
 * @param evd the EVD
 * @param ep the EP the DTO was posted on (for an SRQ receive: the EP that took the buffer)
 * @param userCookie the cookie given to the post
 * @param status the completion status
 * @param transferredLength bytes transferred ({@code transfered_length}); not defined unless the
 *        status is {@link DtoCompletionStatus#SUCCESS}
 */
public record DtoCompletionEvent(
        EventDispatcher evd, Endpoint ep, long userCookie, DtoCompletionStatus status, long transferredLength)
        implements DatEvent {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component or a negative length
     */
    public DtoCompletionEvent {
        Checks.notNull(evd, "evd");
        Checks.notNull(ep, "ep");
        Checks.notNull(status, "status");
        Checks.nonNegative(transferredLength, "transferredLength");
    }

    /** {@link EventNumber#DTO_COMPLETION_EVENT}. */
    @Override
    public EventNumber eventNumber() {
        return EventNumber.DTO_COMPLETION_EVENT;
    }
}
