package io.simrdma.fabric;

/**
 * Send work request flags (enum ibv_send_flags).
 *
 * <p>Thread safety: immutable.
 */
public enum SendFlag {
    /** Wait for earlier RDMA READs and atomics to complete before this WR starts. */
    FENCE(1),
    /** Generate a completion when this WR completes successfully (if the QP does not signal all). */
    SIGNALED(1 << 1),
    /** Set the solicited event bit: the receiver's CQ notification for solicited events fires. */
    SOLICITED(1 << 2),
    /** Copy the gather list into the WQE at post time; the buffers may be reused at once. */
    INLINE(1 << 3);

    private final int bit;

    SendFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }
}
