package io.simrdma.dat;

/**
 * An asynchronous error or notification ({@code DAT_ASYNC_ERROR_*}, {@code DAT_ASYNCH_ERROR_EVENT_DATA}),
 * on the IA's asynchronous EVD: IA catastrophic error, EP broken, EVD overflow, SRQ low watermark,
 * EP soft high watermark and others. The man pages do not say which event number an SRQ low
 * watermark or EP soft watermark uses; the reason says what happened.
 *
 * <p>Thread safety: immutable.
 *
 * @param evd the EVD
 * @param eventNumber one of the {@code ASYNC_ERROR_*} numbers
 * @param handle the object affected: the IA for unaffiliated errors; the EP, EVD or SRQ for
 *        affiliated ones; the LMR, RMR or PZ for memory errors
 * @param reason the reason, one of the reasons of the handle's type
 */
public record AsyncErrorEvent(EventDispatcher evd, EventNumber eventNumber, DatHandle handle, AsyncErrorReason reason)
        implements DatEvent {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component, an event number that
     *         is not asynchronous, or a reason of another object type than the handle's
     */
    public AsyncErrorEvent {
        Checks.notNull(evd, "evd");
        Checks.eventOfStream(eventNumber, EvdFlag.ASYNC);
        Checks.notNull(handle, "handle");
        Checks.notNull(reason, "reason");
        HandleType type = handle.handleType();
        if (type != reason.objectType()) {
            throw DatException.invalidParameter(
                    "reason " + reason + " is for " + reason.objectType() + " handles, not " + type);
        }
    }
}
