package io.simrdma.fabric;

/**
 * Queue pair transport service types simrdma implements (enum ibv_qp_type).
 *
 * <p>Thread safety: immutable.
 */
public enum QpType {
    /** Reliable Connected. */
    RC
}
