package io.simrdma.fabric;

/**
 * Which attributes an {@code ibv_modify_qp} call sets (enum ibv_qp_attr_mask).
 *
 * <p>Thread safety: immutable.
 */
public enum QpAttrMask {
    STATE,
    CUR_STATE,
    EN_SQD_ASYNC_NOTIFY,
    ACCESS_FLAGS,
    PKEY_INDEX,
    PORT,
    QKEY,
    AV,
    PATH_MTU,
    TIMEOUT,
    RETRY_CNT,
    RNR_RETRY,
    RQ_PSN,
    MAX_QP_RD_ATOMIC,
    ALT_PATH,
    MIN_RNR_TIMER,
    SQ_PSN,
    MAX_DEST_RD_ATOMIC,
    PATH_MIG_STATE,
    CAP,
    DEST_QPN,
    RATE_LIMIT;

    /** The IBV_QP_* bit of this attribute. */
    public int bit() {
        return 1 << ordinal();
    }
}
