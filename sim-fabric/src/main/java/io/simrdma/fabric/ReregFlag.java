package io.simrdma.fabric;

/**
 * What a re-registration changes (ibv_rereg_mr(3): enum ibv_rereg_mr_flags).
 *
 * <p>Thread safety: immutable.
 */
public enum ReregFlag {
    /** IBV_REREG_MR_CHANGE_TRANSLATION: a new location and length (here, a new buffer). */
    CHANGE_TRANSLATION,
    /** IBV_REREG_MR_CHANGE_PD: the region moves to another protection domain. */
    CHANGE_PD,
    /** IBV_REREG_MR_CHANGE_ACCESS: new access flags. */
    CHANGE_ACCESS
}
