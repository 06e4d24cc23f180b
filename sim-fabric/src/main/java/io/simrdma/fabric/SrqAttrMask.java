package io.simrdma.fabric;

/**
 * Which SRQ attributes an ibv_modify_srq call sets (enum ibv_srq_attr_mask).
 *
 * <p>Thread safety: immutable.
 */
public enum SrqAttrMask {
    /** Resize the SRQ. */
    MAX_WR,
    /** Set (arm) the SRQ limit. */
    LIMIT
}
