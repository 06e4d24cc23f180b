package io.simrdma.dat;

/**
 * A software event ({@link EventNumber#SOFTWARE_EVENT}, {@code DAT_SOFTWARE_EVENT_DATA}), posted by
 * the consumer with {@link EventDispatcher#postSoftwareEvent}. The pointer is opaque to the provider;
 * what it refers to is the consumer's to allocate and release.
 *
 * <p>Thread safety: immutable (the object the pointer refers to is the consumer's).
 *
 * @param evd the EVD
 * @param pointer the consumer's value; may be null
 */
public record SoftwareEvent(EventDispatcher evd, Object pointer) implements DatEvent {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code evd} is null
     */
    public SoftwareEvent {
        Checks.notNull(evd, "evd");
    }

    /** {@link EventNumber#SOFTWARE_EVENT}. */
    @Override
    public EventNumber eventNumber() {
        return EventNumber.SOFTWARE_EVENT;
    }
}
