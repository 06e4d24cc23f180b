package io.simrdma.dat;

/**
 * The state of an {@link Endpoint} ({@code DAT_EP_STATE} in dat.h). The header declares 13 values
 * as a plain C enum, so each value is its position; {@link #value()} returns it. The four
 * {@code UNCONFIGURED_*} states are in the header but no DAT 1.2 man page describes them.
 * {@code DAT_EP_STATE_ERROR} is a header alias of {@link #DISCONNECTED}.
 *
 * <p>The transitions are summarised in {@code shared/spec/ep-state-machine.md}.
 *
 * <p>Thread safety: immutable.
 */
public enum EndpointState {
    /** {@code DAT_EP_STATE_UNCONNECTED} (0): the quiescent state every new EP starts in. */
    UNCONNECTED,
    /** {@code DAT_EP_STATE_UNCONFIGURED_UNCONNECTED} (1): header only. */
    UNCONFIGURED_UNCONNECTED,
    /** {@code DAT_EP_STATE_RESERVED} (2): bound to a Reserved Service Point. */
    RESERVED,
    /** {@code DAT_EP_STATE_UNCONFIGURED_RESERVED} (3): header only. */
    UNCONFIGURED_RESERVED,
    /** {@code DAT_EP_STATE_PASSIVE_CONNECTION_PENDING} (4): a request arrived on its RSP. */
    PASSIVE_CONNECTION_PENDING,
    /** {@code DAT_EP_STATE_UNCONFIGURED_PASSIVE} (5): header only. */
    UNCONFIGURED_PASSIVE,
    /** {@code DAT_EP_STATE_ACTIVE_CONNECTION_PENDING} (6): dat_ep_connect or dat_ep_dup_connect succeeded. */
    ACTIVE_CONNECTION_PENDING,
    /** {@code DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING} (7): provider-created EP of a PSP request. */
    TENTATIVE_CONNECTION_PENDING,
    /** {@code DAT_EP_STATE_UNCONFIGURED_TENTATIVE} (8): header only. */
    UNCONFIGURED_TENTATIVE,
    /** {@code DAT_EP_STATE_CONNECTED} (9). */
    CONNECTED,
    /** {@code DAT_EP_STATE_DISCONNECT_PENDING} (10): graceful disconnect in progress. */
    DISCONNECT_PENDING,
    /** {@code DAT_EP_STATE_DISCONNECTED} (11), alias {@code DAT_EP_STATE_ERROR}. */
    DISCONNECTED,
    /** {@code DAT_EP_STATE_COMPLETION_PENDING} (12). */
    COMPLETION_PENDING;

    private static final EndpointState[] VALUES = values();

    /** The header value (the declaration position). */
    public int value() {
        return ordinal();
    }

    /**
     * The state with header value {@code value}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if no state has that value
     */
    public static EndpointState fromValue(int value) {
        if (value < 0 || value >= VALUES.length) {
            throw DatException.invalidParameter("undefined DAT_EP_STATE " + value);
        }
        return VALUES[value];
    }
}
