package io.simrdma.dat;

import java.util.Arrays;

/**
 * A connection event of an Endpoint ({@code DAT_CONNECTION_EVENT_*}, {@code DAT_CONNECTION_EVENT_DATA}),
 * on its connect EVD: established, rejected, unreachable, timed out, accept failed, disconnected or
 * broken.
 *
 * <p>Private data: for {@link EventNumber#CONNECTION_EVENT_ESTABLISHED} on the active side, the
 * accepter's private data; empty otherwise (the passive side's is undefined, size 0). The record
 * holds its own copy and {@link #privateData()} returns a new copy; the caller owns it (so it stays
 * valid after the EP is freed or reset, unlike in C).
 *
 * <p>Thread safety: immutable.
 *
 * @param evd the EVD
 * @param eventNumber one of the {@code CONNECTION_EVENT_*} numbers
 * @param ep the EP
 * @param privateData the peer's private data; null is empty
 * @param reason why the connection failed, in words a person can act on, when the provider knows
 *        more than the event number says (for UNREACHABLE after the peer refused this node: wrong
 *        credentials, another fabric, another protocol version); null otherwise. Not part of the
 *        C API: {@code DAT_CONNECTION_EVENT_DATA} has no such field.
 */
public record ConnectionEvent(
        EventDispatcher evd, EventNumber eventNumber, Endpoint ep, byte[] privateData, String reason)
        implements DatEvent {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component or an event number
     *         that is not a connection event
     */
    public ConnectionEvent {
        Checks.notNull(evd, "evd");
        Checks.eventOfStream(eventNumber, EvdFlag.CONNECTION);
        Checks.notNull(ep, "ep");
        privateData = Checks.privateData(privateData);
    }

    /** An event without a reason. */
    public ConnectionEvent(EventDispatcher evd, EventNumber eventNumber, Endpoint ep, byte[] privateData) {
        this(evd, eventNumber, ep, privateData, null);
    }

    /** The reason, if the provider gave one. */
    public java.util.Optional<String> reasonText() {
        return java.util.Optional.ofNullable(reason);
    }

    /** A copy of the private data. */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@code private_data_size}. */
    public int privateDataSize() {
        return privateData.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionEvent c
                && evd.equals(c.evd)
                && eventNumber == c.eventNumber
                && ep.equals(c.ep)
                && Arrays.equals(privateData, c.privateData)
                && java.util.Objects.equals(reason, c.reason);
    }

    @Override
    public int hashCode() {
        return ((evd.hashCode() * 31 + eventNumber.hashCode()) * 31 + ep.hashCode()) * 31
                + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "ConnectionEvent[evd=" + evd + ", eventNumber=" + eventNumber + ", ep=" + ep + ", privateDataSize="
                + privateData.length + (reason != null ? ", reason=" + reason : "") + "]";
    }
}
