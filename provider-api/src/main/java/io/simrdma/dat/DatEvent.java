package io.simrdma.dat;

/**
 * An event removed from an {@link EventDispatcher} ({@code DAT_EVENT}): its
 * {@link #eventNumber() number}, the EVD it came from, and the data of its kind. The C union
 * {@code DAT_EVENT_DATA}, selected by {@code event_number}, is this sealed hierarchy: one record
 * per kind of event.
 *
 * <p>When the kind is not known, ask: an {@code instanceof} pattern, or a switch on the event
 * number (from Java 21, a pattern-matching {@code switch} over the sealed hierarchy also works,
 * and needs no {@code default}):
 *
 * <pre>{@code
 * Optional<DatEvent> e = evd.dequeue();
 * if (e.isPresent() && e.get() instanceof DtoCompletionEvent dto && dto.status() == DtoCompletionStatus.SUCCESS) {
 *     ...
 * }
 * switch (event.eventNumber()) {
 *     case CONNECTION_EVENT_ESTABLISHED -> ...
 *     case CONNECTION_EVENT_PEER_REJECTED, CONNECTION_EVENT_NON_PEER_REJECTED -> ...
 *     default -> ...
 * }
 * }</pre>
 *
 * <p>When the EVD can only hold one kind (a DTO EVD, a connect EVD, a CR EVD), the typed
 * accessors take the event as that kind without a cast; an event of another kind is a bug in the
 * program, and the accessor says which event it was:
 *
 * <pre>{@code
 * DtoCompletionEvent done = dtoEvd.waitForEvent(timeout, 1).event().orElseThrow().asDtoCompletion();
 * crEvd.waitForEvent(timeout, 1).event().orElseThrow().asConnectionRequest().cr().accept(ep, null);
 * }</pre>
 *
 * <p>Thread safety: every event is immutable.
 */
public sealed interface DatEvent
        permits DtoCompletionEvent,
                RmrBindCompletionEvent,
                ConnectionRequestEvent,
                ConnectionEvent,
                AsyncErrorEvent,
                SoftwareEvent {

    /** The event number ({@code event_number}). */
    EventNumber eventNumber();

    /** The EVD the event was queued on ({@code evd_handle}). */
    EventDispatcher evd();

    /**
     * This event as a DTO completion ({@code DAT_DTO_COMPLETION_EVENT},
     * {@code dto_completion_event_data}).
     *
     * @throws IllegalStateException if it is another kind of event; the message names its kind and number
     */
    default DtoCompletionEvent asDtoCompletion() {
        if (this instanceof DtoCompletionEvent e) {
            return e;
        }
        throw notA(DtoCompletionEvent.class, this);
    }

    /**
     * This event as an RMR bind completion ({@code DAT_RMR_BIND_COMPLETION_EVENT},
     * {@code rmr_completion_event_data}).
     *
     * @throws IllegalStateException if it is another kind of event; the message names its kind and number
     */
    default RmrBindCompletionEvent asRmrBindCompletion() {
        if (this instanceof RmrBindCompletionEvent e) {
            return e;
        }
        throw notA(RmrBindCompletionEvent.class, this);
    }

    /**
     * This event as a connection request ({@code DAT_CONNECTION_REQUEST_EVENT},
     * {@code cr_arrival_event_data}).
     *
     * @throws IllegalStateException if it is another kind of event; the message names its kind and number
     */
    default ConnectionRequestEvent asConnectionRequest() {
        if (this instanceof ConnectionRequestEvent e) {
            return e;
        }
        throw notA(ConnectionRequestEvent.class, this);
    }

    /**
     * This event as a connection event of an endpoint ({@code DAT_CONNECTION_EVENT_*},
     * {@code connect_event_data}).
     *
     * @throws IllegalStateException if it is another kind of event; the message names its kind and number
     */
    default ConnectionEvent asConnectionEvent() {
        if (this instanceof ConnectionEvent e) {
            return e;
        }
        throw notA(ConnectionEvent.class, this);
    }

    /**
     * This event as an asynchronous error ({@code DAT_ASYNC_ERROR_*}, {@code asynch_error_event_data}).
     *
     * @throws IllegalStateException if it is another kind of event; the message names its kind and number
     */
    default AsyncErrorEvent asAsyncError() {
        if (this instanceof AsyncErrorEvent e) {
            return e;
        }
        throw notA(AsyncErrorEvent.class, this);
    }

    /**
     * This event as a software event ({@code DAT_SOFTWARE_EVENT}, {@code software_event_data}).
     *
     * @throws IllegalStateException if it is another kind of event; the message names its kind and number
     */
    default SoftwareEvent asSoftwareEvent() {
        if (this instanceof SoftwareEvent e) {
            return e;
        }
        throw notA(SoftwareEvent.class, this);
    }

    private static IllegalStateException notA(Class<? extends DatEvent> expected, DatEvent actual) {
        EventNumber n = actual.eventNumber();
        return new IllegalStateException(String.format(
                "expected a %s, but the event is a %s (%s, 0x%05X)",
                expected.getSimpleName(), actual.getClass().getSimpleName(), n, n.value()));
    }
}
