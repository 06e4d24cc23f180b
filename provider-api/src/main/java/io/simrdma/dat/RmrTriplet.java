package io.simrdma.dat;

/**
 * A remote buffer of an RDMA Read or Write ({@code DAT_RMR_TRIPLET}): a range of remote memory named
 * by an {@code rmr_context} the peer advertised (of an LMR or a bound RMR).
 *
 * <p>Thread safety: immutable.
 *
 * @param rmrContext the remote {@code rmr_context} ({@code DAT_RMR_CONTEXT}, unsigned 32 bits)
 * @param targetAddress the start of the remote range ({@code DAT_VADDR}, unsigned 64 bits)
 * @param segmentLength the length in bytes ({@code DAT_VLEN}); must not be negative
 */
public record RmrTriplet(int rmrContext, long targetAddress, long segmentLength) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code segmentLength} is negative
     */
    public RmrTriplet {
        if (segmentLength < 0) {
            throw DatException.invalidParameter("segment length " + segmentLength + " is negative");
        }
    }
}
