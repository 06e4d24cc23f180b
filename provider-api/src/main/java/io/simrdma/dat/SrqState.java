package io.simrdma.dat;

/**
 * The state of a {@link SharedReceiveQueue} ({@code DAT_SRQ_STATE} in dat.h). No man page says how
 * an SRQ enters {@link #ERROR}.
 *
 * <p>Thread safety: immutable.
 */
public enum SrqState {
    /** {@code DAT_SRQ_STATE_OPERATIONAL} (0). */
    OPERATIONAL,
    /** {@code DAT_SRQ_STATE_ERROR} (1). */
    ERROR;

    /** The header value. */
    public int value() {
        return ordinal();
    }
}
