package io.simrdma.dat;

/**
 * Caller-owned storage for one event, filled by {@link EventDispatcher#dequeue(EventSlot)} as the C
 * {@code dat_evd_dequeue()} fills the {@code DAT_EVENT} its caller passes. A consumer that polls a
 * DTO EVD in a loop reuses one slot and, on a provider that supports it (sim-provider does), takes
 * DTO completions without allocating anything per completion.
 *
 * <p>A DTO completion ({@link #eventNumber()} {@link EventNumber#DTO_COMPLETION_EVENT}) is held as
 * its fields: {@link #ep()}, {@link #userCookie()}, {@link #status()}, {@link #transferredLength()}.
 * Every other kind is held as its immutable record, {@link #event()}. {@link #event()} also gives a
 * DTO completion as a {@link DtoCompletionEvent}, made on that call.
 *
 * <p>Thread safety: not thread-safe; one slot belongs to one consumer thread.
 */
public final class EventSlot {

    private EventNumber eventNumber;
    private EventDispatcher evd;
    private DatEvent event;
    private Endpoint ep;
    private long userCookie;
    private DtoCompletionStatus status;
    private long transferredLength;

    /** An empty slot ({@link #isEmpty()} until the first successful dequeue). */
    public EventSlot() {}

    /** Whether nothing has been stored yet (or the slot was {@linkplain #clear() cleared}). */
    public boolean isEmpty() {
        return eventNumber == null;
    }

    /** Forgets the stored event. */
    public void clear() {
        eventNumber = null;
        evd = null;
        event = null;
        ep = null;
        status = null;
        userCookie = 0;
        transferredLength = 0;
    }

    /**
     * Stores a DTO completion's fields (providers call this; it allocates nothing).
     *
     * @return this slot
     */
    public EventSlot setDtoCompletion(
            EventDispatcher evd, Endpoint ep, long userCookie, DtoCompletionStatus status, long transferredLength) {
        this.eventNumber = EventNumber.DTO_COMPLETION_EVENT;
        this.evd = evd;
        this.event = null;
        this.ep = ep;
        this.userCookie = userCookie;
        this.status = status;
        this.transferredLength = transferredLength;
        return this;
    }

    /**
     * Stores any event; a {@link DtoCompletionEvent} is stored as its fields.
     *
     * @return this slot
     */
    public EventSlot set(DatEvent e) {
        if (e instanceof DtoCompletionEvent d) {
            return setDtoCompletion(d.evd(), d.ep(), d.userCookie(), d.status(), d.transferredLength());
        }
        this.eventNumber = e.eventNumber();
        this.evd = e.evd();
        this.event = e;
        this.ep = null;
        this.status = null;
        this.userCookie = 0;
        this.transferredLength = 0;
        return this;
    }

    /** The stored event's number ({@code event_number}). @throws IllegalStateException if empty */
    public EventNumber eventNumber() {
        requireEvent();
        return eventNumber;
    }

    /** The EVD the stored event was queued on ({@code evd_handle}). @throws IllegalStateException if empty */
    public EventDispatcher evd() {
        requireEvent();
        return evd;
    }

    /** Whether the stored event is a DTO completion. */
    public boolean isDtoCompletion() {
        return eventNumber == EventNumber.DTO_COMPLETION_EVENT;
    }

    /** The DTO completion's endpoint ({@code ep_handle}). @throws IllegalStateException if not a DTO completion */
    public Endpoint ep() {
        requireDto();
        return ep;
    }

    /** The DTO completion's {@code user_cookie}. @throws IllegalStateException if not a DTO completion */
    public long userCookie() {
        requireDto();
        return userCookie;
    }

    /** The DTO completion's {@code status}. @throws IllegalStateException if not a DTO completion */
    public DtoCompletionStatus status() {
        requireDto();
        return status;
    }

    /** The DTO completion's {@code transfered_length}. @throws IllegalStateException if not a DTO completion */
    public long transferredLength() {
        requireDto();
        return transferredLength;
    }

    /**
     * The stored event as its record; for a DTO completion a new {@link DtoCompletionEvent} with the
     * stored fields (this call allocates).
     *
     * @throws IllegalStateException if empty
     */
    public DatEvent event() {
        requireEvent();
        if (event == null) {
            return new DtoCompletionEvent(evd, ep, userCookie, status, transferredLength);
        }
        return event;
    }

    private void requireEvent() {
        if (eventNumber == null) {
            throw new IllegalStateException("the slot holds no event (no successful dequeue into it)");
        }
    }

    private void requireDto() {
        requireEvent();
        if (eventNumber != EventNumber.DTO_COMPLETION_EVENT) {
            throw new IllegalStateException("the slot holds a " + eventNumber + ", not a DTO completion");
        }
    }

    @Override
    public String toString() {
        if (eventNumber == null) {
            return "EventSlot[empty]";
        }
        if (event != null) {
            return "EventSlot[" + event + "]";
        }
        return "EventSlot[" + eventNumber + ", ep=" + ep + ", cookie=" + userCookie + ", " + status + ", length="
                + transferredLength + "]";
    }
}
