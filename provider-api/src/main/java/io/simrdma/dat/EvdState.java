package io.simrdma.dat;

/**
 * The state of an {@link EventDispatcher} ({@code DAT_EVD_STATE} in udat.h). The header's EVD state
 * is three orthogonal sub-states, each holding one value: enabled or disabled
 * ({@link #ENABLED}/{@link #DISABLED}), waitable or unwaitable
 * ({@link #WAITABLE}/{@link #UNWAITABLE}), and a configuration
 * ({@link #CONFIG_NOTIFY}/{@link #CONFIG_SOLICITED}/{@link #CONFIG_THRESHOLD}, a two-bit field:
 * {@code CONFIG_THRESHOLD = 0x30} is not a separate bit). {@link EvdParams#state()} holds one value
 * of each sub-state. The man pages call the waitable states {@code DAT_EVD_WAITABLE} and
 * {@code DAT_EVD_UNWAITABLE}.
 *
 * <p>Thread safety: immutable.
 */
public enum EvdState {
    /** {@code DAT_EVD_STATE_ENABLED} (0x01): an arriving event may trigger the EVD's CNO. */
    ENABLED(0x01, SubState.ENABLEMENT),
    /** {@code DAT_EVD_STATE_DISABLED} (0x02): arriving events do not affect the CNO. */
    DISABLED(0x02, SubState.ENABLEMENT),
    /** {@code DAT_EVD_STATE_WAITABLE} (0x04): dat_evd_wait is permitted. */
    WAITABLE(0x04, SubState.WAITABILITY),
    /** {@code DAT_EVD_STATE_UNWAITABLE} (0x08): dat_evd_wait fails with DAT_INVALID_STATE. */
    UNWAITABLE(0x08, SubState.WAITABILITY),
    /** {@code DAT_EVD_STATE_CONFIG_NOTIFY} (0x10). */
    CONFIG_NOTIFY(0x10, SubState.CONFIGURATION),
    /** {@code DAT_EVD_STATE_CONFIG_SOLICITED} (0x20). */
    CONFIG_SOLICITED(0x20, SubState.CONFIGURATION),
    /** {@code DAT_EVD_STATE_CONFIG_THRESHOLD} (0x30). */
    CONFIG_THRESHOLD(0x30, SubState.CONFIGURATION);

    /** The three orthogonal sub-states of the header comment. */
    public enum SubState {
        /** Enabled or disabled. */
        ENABLEMENT,
        /** Waitable or unwaitable. */
        WAITABILITY,
        /** Notification configuration. */
        CONFIGURATION
    }

    private final int value;
    private final SubState subState;

    EvdState(int value, SubState subState) {
        this.value = value;
        this.subState = subState;
    }

    /** The header value. */
    public int value() {
        return value;
    }

    /** The sub-state this value belongs to. */
    public SubState subState() {
        return subState;
    }
}
