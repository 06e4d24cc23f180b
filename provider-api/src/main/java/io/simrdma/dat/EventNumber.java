package io.simrdma.dat;

/**
 * The number of a DAT event ({@code DAT_EVENT_NUMBER} in dat.h), with the header values. Each
 * {@link DatEvent} carries one. {@link #stream()} names the event stream (the {@link EvdFlag}) that
 * carries events of this number, which is what an EVD's flags select.
 *
 * <p>Thread safety: immutable.
 */
public enum EventNumber {
    /** {@code DAT_DTO_COMPLETION_EVENT} (0x00001). */
    DTO_COMPLETION_EVENT(0x00001, EvdFlag.DTO),
    /** {@code DAT_RMR_BIND_COMPLETION_EVENT} (0x01001). */
    RMR_BIND_COMPLETION_EVENT(0x01001, EvdFlag.RMR_BIND),
    /** {@code DAT_CONNECTION_REQUEST_EVENT} (0x02001). */
    CONNECTION_REQUEST_EVENT(0x02001, EvdFlag.CR),
    /** {@code DAT_CONNECTION_EVENT_ESTABLISHED} (0x04001). */
    CONNECTION_EVENT_ESTABLISHED(0x04001, EvdFlag.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_PEER_REJECTED} (0x04002). */
    CONNECTION_EVENT_PEER_REJECTED(0x04002, EvdFlag.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED} (0x04003). */
    CONNECTION_EVENT_NON_PEER_REJECTED(0x04003, EvdFlag.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR} (0x04004). */
    CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR(0x04004, EvdFlag.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_DISCONNECTED} (0x04005). */
    CONNECTION_EVENT_DISCONNECTED(0x04005, EvdFlag.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_BROKEN} (0x04006). */
    CONNECTION_EVENT_BROKEN(0x04006, EvdFlag.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_TIMED_OUT} (0x04007). */
    CONNECTION_EVENT_TIMED_OUT(0x04007, EvdFlag.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_UNREACHABLE} (0x04008). */
    CONNECTION_EVENT_UNREACHABLE(0x04008, EvdFlag.CONNECTION),
    /** {@code DAT_ASYNC_ERROR_EVD_OVERFLOW} (0x08001). */
    ASYNC_ERROR_EVD_OVERFLOW(0x08001, EvdFlag.ASYNC),
    /** {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC} (0x08002). */
    ASYNC_ERROR_IA_CATASTROPHIC(0x08002, EvdFlag.ASYNC),
    /** {@code DAT_ASYNC_ERROR_EP_BROKEN} (0x08003). */
    ASYNC_ERROR_EP_BROKEN(0x08003, EvdFlag.ASYNC),
    /** {@code DAT_ASYNC_ERROR_TIMED_OUT} (0x08004). */
    ASYNC_ERROR_TIMED_OUT(0x08004, EvdFlag.ASYNC),
    /** {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} (0x08005). */
    ASYNC_ERROR_PROVIDER_INTERNAL_ERROR(0x08005, EvdFlag.ASYNC),
    /** {@code DAT_SOFTWARE_EVENT} (0x10001). */
    SOFTWARE_EVENT(0x10001, EvdFlag.SOFTWARE);

    private static final EventNumber[] VALUES = values();

    private final int value;
    private final EvdFlag stream;

    EventNumber(int value, EvdFlag stream) {
        this.value = value;
        this.stream = stream;
    }

    /** The header value. */
    public int value() {
        return value;
    }

    /** The event stream that carries events of this number. */
    public EvdFlag stream() {
        return stream;
    }

    /**
     * The event number with header value {@code value}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if no event number has that value
     */
    public static EventNumber fromValue(int value) {
        for (EventNumber n : VALUES) {
            if (n.value == value) {
                return n;
            }
        }
        throw DatException.invalidParameter(String.format("undefined DAT_EVENT_NUMBER 0x%X", value));
    }
}
