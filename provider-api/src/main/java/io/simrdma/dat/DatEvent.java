package io.simrdma.dat;

/**
 * An event removed from an {@link EventDispatcher} ({@code DAT_EVENT}): its
 * {@link #eventNumber() number}, the EVD it came from, and the data of its kind. The C union
 * {@code DAT_EVENT_DATA} is this sealed hierarchy; switch on the record type or on the number.
 *
 * <pre>{@code
 * Optional<DatEvent> e = evd.dequeue();
 * if (e.isPresent() && e.get() instanceof DtoCompletionEvent dto && dto.status() == DtoCompletionStatus.SUCCESS) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Thread safety: every event is immutable.
 */
public sealed interface DatEvent permits DtoCompletionEvent, RmrBindCompletionEvent, ConnectionRequestEvent,
        ConnectionEvent, AsyncErrorEvent, SoftwareEvent {

    /** The event number ({@code event_number}). */
    EventNumber eventNumber();

    /** The EVD the event was queued on ({@code evd_handle}). */
    EventDispatcher evd();
}
