package io.simrdma.dat;

import java.util.EnumSet;

/**
 * One flag of {@code DAT_COMPLETION_FLAGS} (dat.h). Posts, RMR binds and the EP attributes
 * {@link EpAttributes#recvCompletionFlags()} / {@link EpAttributes#requestCompletionFlags()} take a
 * set of them; the empty set is {@code DAT_COMPLETION_DEFAULT_FLAG} (0x00, completion with
 * notification).
 *
 * <p>The man pages also use the names {@code DAT_COMPLETION_THRESHOLD},
 * {@code DAT_COMPLETION_SOLICITED_WAIT} and {@code DAT_COMPLETION_NOTIFICATION_SUPPRESS_FLAG}; the
 * first two are {@link #EVD_THRESHOLD} and {@link #SOLICITED_WAIT}; the third is not in the header.
 *
 * <p>Thread safety: immutable.
 */
public enum CompletionFlag implements BitFlag {
    /** {@code DAT_COMPLETION_SUPPRESS_FLAG} (0x01): no completion event if successful. */
    SUPPRESS(0x01),
    /** {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG} (0x02): sender-controlled notification of the matching receive. */
    SOLICITED_WAIT(0x02),
    /** {@code DAT_COMPLETION_UNSIGNALLED_FLAG} (0x04): completion without notification. */
    UNSIGNALLED(0x04),
    /** {@code DAT_COMPLETION_BARRIER_FENCE_FLAG} (0x08): start only after all previous RDMA Reads complete. */
    BARRIER_FENCE(0x08),
    /**
     * {@code DAT_COMPLETION_EVD_THRESHOLD_FLAG} (0x10): uDAPL only, EP completion-flag attributes only;
     * the dat_evd_wait threshold controls when a waiter is unblocked.
     */
    EVD_THRESHOLD(0x10);

    private final int value;

    CompletionFlag(int value) {
        this.value = value;
    }

    @Override
    public long bit() {
        return value;
    }

    /** The header value. */
    public int value() {
        return value;
    }

    /** A new empty set: {@code DAT_COMPLETION_DEFAULT_FLAG}. */
    public static EnumSet<CompletionFlag> defaults() {
        return EnumSet.noneOf(CompletionFlag.class);
    }
}
