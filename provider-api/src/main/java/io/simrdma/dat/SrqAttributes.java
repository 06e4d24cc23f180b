package io.simrdma.dat;

/**
 * The attributes a consumer asks for when creating a Shared Receive Queue ({@code DAT_SRQ_ATTR}).
 * The created SRQ may be larger; query it for the actual values.
 *
 * <p>Thread safety: immutable.
 *
 * @param maxRecvDtos the least number of receive buffers the SRQ must hold
 * @param maxRecvIov the least number of segments per posted buffer
 * @param lowWatermark the low watermark; use {@link Dat#SRQ_LW_DEFAULT} at creation
 */
public record SrqAttributes(int maxRecvDtos, int maxRecvIov, int lowWatermark) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if a value is negative
     */
    public SrqAttributes {
        Checks.nonNegative(maxRecvDtos, "maxRecvDtos");
        Checks.nonNegative(maxRecvIov, "maxRecvIov");
        Checks.nonNegative(lowWatermark, "lowWatermark");
    }
}
