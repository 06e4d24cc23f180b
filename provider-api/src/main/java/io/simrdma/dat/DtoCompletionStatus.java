package io.simrdma.dat;

/**
 * The status of a completed DTO or RMR bind ({@code DAT_DTO_COMPLETION_STATUS} in dat.h; the header's
 * {@code DAT_RMR_BIND_COMPLETION_STATUS} is the same type). Values are the header positions.
 *
 * <p>Header aliases: {@code DAT_DTO_LENGTH_ERROR} = {@link #ERR_LOCAL_LENGTH},
 * {@code DAT_DTO_FAILURE} = {@link #ERR_FLUSHED}, {@code DAT_RMR_BIND_SUCCESS} = {@link #SUCCESS},
 * {@code DAT_RMR_BIND_FAILURE} = {@link #ERR_FLUSHED}.
 *
 * <p>Thread safety: immutable.
 */
public enum DtoCompletionStatus {
    /** {@code DAT_DTO_SUCCESS} (0). */
    SUCCESS,
    /** {@code DAT_DTO_ERR_FLUSHED} (1): completed unsuccessfully because the EP left the connected state. */
    ERR_FLUSHED,
    /** {@code DAT_DTO_ERR_LOCAL_LENGTH} (2), alias {@code DAT_DTO_LENGTH_ERROR}. */
    ERR_LOCAL_LENGTH,
    /** {@code DAT_DTO_ERR_LOCAL_EP} (3). */
    ERR_LOCAL_EP,
    /** {@code DAT_DTO_ERR_LOCAL_PROTECTION} (4). */
    ERR_LOCAL_PROTECTION,
    /** {@code DAT_DTO_ERR_BAD_RESPONSE} (5). */
    ERR_BAD_RESPONSE,
    /** {@code DAT_DTO_ERR_REMOTE_ACCESS} (6). */
    ERR_REMOTE_ACCESS,
    /** {@code DAT_DTO_ERR_REMOTE_RESPONDER} (7). */
    ERR_REMOTE_RESPONDER,
    /** {@code DAT_DTO_ERR_TRANSPORT} (8). */
    ERR_TRANSPORT,
    /** {@code DAT_DTO_ERR_RECEIVER_NOT_READY} (9). */
    ERR_RECEIVER_NOT_READY,
    /** {@code DAT_DTO_ERR_PARTIAL_PACKET} (10). */
    ERR_PARTIAL_PACKET,
    /** {@code DAT_RMR_OPERATION_FAILED} (11). */
    RMR_OPERATION_FAILED;

    /** The header value (the declaration position). */
    public int value() {
        return ordinal();
    }
}
