package io.simrdma.dat;

/**
 * The parameters of a Shared Receive Queue ({@code DAT_SRQ_PARAM}), as {@link SharedReceiveQueue#query()}
 * returns them. Example of dat_srq_query: a 10-entry SRQ with 3 buffers posted reports 3 available
 * and 3 outstanding; after a message arrives, 2 and 3; after its completion is dequeued, 2 and 2.
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA
 * @param state the SRQ state
 * @param pz the PZ
 * @param maxRecvDtos the actual queue size
 * @param maxRecvIov the actual segments per buffer
 * @param lowWatermark the low watermark
 * @param availableDtoCount buffers on the SRQ that EPs may take, or {@link Dat#VALUE_UNKNOWN}
 * @param outstandingDtoCount entries not free for new posts, or {@link Dat#VALUE_UNKNOWN}
 */
public record SrqParams(
        InterfaceAdapter ia,
        SrqState state,
        ProtectionZone pz,
        int maxRecvDtos,
        int maxRecvIov,
        int lowWatermark,
        int availableDtoCount,
        int outstandingDtoCount) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component, a negative size, or a
     *         count that is neither a count nor {@link Dat#VALUE_UNKNOWN}
     */
    public SrqParams {
        Checks.notNull(ia, "ia");
        Checks.notNull(state, "state");
        Checks.notNull(pz, "pz");
        Checks.nonNegative(maxRecvDtos, "maxRecvDtos");
        Checks.nonNegative(maxRecvIov, "maxRecvIov");
        Checks.nonNegative(lowWatermark, "lowWatermark");
        Checks.countOrUnknown(availableDtoCount, "availableDtoCount");
        Checks.countOrUnknown(outstandingDtoCount, "outstandingDtoCount");
    }
}
