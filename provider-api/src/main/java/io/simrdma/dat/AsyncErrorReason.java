package io.simrdma.dat;

/**
 * The reason of an {@link AsyncErrorEvent} ({@code DAT_IA_ASYNC_ERROR_REASON},
 * {@code DAT_EP_ASYNC_ERROR_REASON}, {@code DAT_EVD_ASYNC_ERROR_REASON},
 * {@code DAT_SRQ_ASYNC_ERROR_REASON}, {@code DAT_LMR_ASYNC_ERROR_REASON},
 * {@code DAT_RMR_ASYNC_ERROR_REASON}, {@code DAT_PZ_ASYNC_ERROR_REASON} in dat.h). The header has
 * one small enum per object type; here one Java enum holds them all, each constant naming the
 * {@link #objectType()} of the handle it is reported for and its header {@link #value()} within
 * that type's enum.
 *
 * <p>Note: {@link #SRQ_SOFT_HIGH_WATERMARK_EVENT} is, as in the header, an EP reason (the EP's soft
 * high watermark of dat_ep_set_watermark).
 *
 * <p>Thread safety: immutable.
 */
public enum AsyncErrorReason {
    /** {@code DAT_IA_CATASTROPHIC_ERROR} (IA, 0). */
    IA_CATASTROPHIC_ERROR(HandleType.IA, 0),
    /** {@code DAT_IA_OTHER_ERROR} (IA, 1). */
    IA_OTHER_ERROR(HandleType.IA, 1),
    /** {@code DAT_EP_TRANSFER_TO_ERROR} (EP, 0). */
    EP_TRANSFER_TO_ERROR(HandleType.EP, 0),
    /** {@code DAT_EP_OTHER_ERROR} (EP, 1). */
    EP_OTHER_ERROR(HandleType.EP, 1),
    /** {@code DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT} (EP, 2): the EP's soft high watermark was exceeded. */
    SRQ_SOFT_HIGH_WATERMARK_EVENT(HandleType.EP, 2),
    /** {@code DAT_EVD_OVERFLOW_ERROR} (EVD, 0). */
    EVD_OVERFLOW_ERROR(HandleType.EVD, 0),
    /** {@code DAT_EVD_OTHER_ERROR} (EVD, 1). */
    EVD_OTHER_ERROR(HandleType.EVD, 1),
    /** {@code DAT_SRQ_TRANSFER_TO_ERROR} (SRQ, 0). */
    SRQ_TRANSFER_TO_ERROR(HandleType.SRQ, 0),
    /** {@code DAT_SRQ_OTHER_ERROR} (SRQ, 1). */
    SRQ_OTHER_ERROR(HandleType.SRQ, 1),
    /** {@code DAT_SRQ_LOW_WATERMARK_EVENT} (SRQ, 2): fewer buffers on the SRQ than its low watermark. */
    SRQ_LOW_WATERMARK_EVENT(HandleType.SRQ, 2),
    /** {@code DAT_LMR_OTHER_ERROR} (LMR, 0). */
    LMR_OTHER_ERROR(HandleType.LMR, 0),
    /** {@code DAT_RMR_OTHER_ERROR} (RMR, 0). */
    RMR_OTHER_ERROR(HandleType.RMR, 0),
    /** {@code DAT_PZ_OTHER_ERROR} (PZ, 0). */
    PZ_OTHER_ERROR(HandleType.PZ, 0);

    private final HandleType objectType;
    private final int value;

    AsyncErrorReason(HandleType objectType, int value) {
        this.objectType = objectType;
        this.value = value;
    }

    /** The type of handle this reason is reported for. */
    public HandleType objectType() {
        return objectType;
    }

    /** The header value within the enum of {@link #objectType()}. */
    public int value() {
        return value;
    }
}
