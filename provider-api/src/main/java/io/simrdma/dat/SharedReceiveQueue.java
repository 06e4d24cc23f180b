package io.simrdma.dat;

import java.util.List;

/**
 * A Shared Receive Queue ({@code DAT_SRQ_HANDLE}), created by {@link InterfaceAdapter#createSrq}:
 * receive buffers shared by every EP created with it
 * ({@link InterfaceAdapter#createEndpointWithSrq}).
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface SharedReceiveQueue extends FreeableHandle {

    /**
     * The SRQ's parameters, including the available and outstanding buffer counts (each may be
     * {@link Dat#VALUE_UNKNOWN}). Corresponds to {@code dat_srq_query()} (all fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    SrqParams query();

    /**
     * Destroys the SRQ. Corresponds to {@code dat_srq_free()}. The man page names the in-use return
     * {@code DAT_SRQ_IN_USE}, which dat_error.h does not define; this API uses
     * {@code DAT_INVALID_STATE} with subtype {@code DAT_INVALID_STATE_SRQ_IN_USE}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} ({@code DAT_INVALID_STATE_SRQ_IN_USE}: an EP
     *         uses it), {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();

    /**
     * Posts a receive buffer; any EP of the SRQ in {@link EndpointState#CONNECTED} or
     * {@link EndpointState#DISCONNECT_PENDING} may take it. It carries no completion flags and
     * completes as if posted to that EP without {@link CompletionFlag#UNSIGNALLED}. Valid in every
     * SRQ state. Corresponds to {@code dat_srq_post_recv()}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (a segment outside its LMR),
     *         {@code DAT_PROTECTION_VIOLATION} (LMR in another PZ than the SRQ),
     *         {@code DAT_PRIVILEGES_VIOLATION} (LMR invalid or without local write),
     *         {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void postRecv(List<LmrTriplet> localIov, long userCookie);

    /**
     * Changes the queue to hold at least {@code maxRecvDtos} buffers without losing any.
     * Corresponds to {@code dat_srq_resize()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (fewer than the outstanding buffers, or below
     *         the low watermark), {@code DAT_INVALID_PARAMETER}, {@code DAT_INSUFFICIENT_RESOURCES},
     *         {@code DAT_INVALID_HANDLE}
     */
    void resize(int maxRecvDtos);

    /**
     * Sets and arms the low watermark: one asynchronous event when fewer buffers than
     * {@code lowWatermark} are on the SRQ (at once if already fewer). Corresponds to
     * {@code dat_srq_set_lw()}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (above {@code max_recv_dtos}),
     *         {@code DAT_MODEL_NOT_SUPPORTED}, {@code DAT_INVALID_HANDLE}
     */
    void setLowWatermark(int lowWatermark);
}
