package io.simrdma.dat;

/**
 * One segment of a local I/O vector ({@code DAT_LMR_TRIPLET}): a range of an LMR named by its
 * {@code lmr_context}, in the LMR's virtual address space ({@link LocalMemoryRegion#registeredAddress()}
 * onwards). A segment length of zero is legal; the other two fields are then irrelevant.
 *
 * <p>Thread safety: immutable. A list of triplets may be built once and posted many times.
 *
 * @param lmrContext the LMR's {@code lmr_context} ({@code DAT_LMR_CONTEXT}, unsigned 32 bits)
 * @param virtualAddress the start of the segment ({@code DAT_VADDR}, unsigned 64 bits)
 * @param segmentLength the length in bytes ({@code DAT_VLEN}); must not be negative
 */
public record LmrTriplet(int lmrContext, long virtualAddress, long segmentLength) {

    /** A zero-length segment, as {@link RemoteMemoryRegion#unbind} uses. */
    public static final LmrTriplet EMPTY = new LmrTriplet(0, 0, 0);

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code segmentLength} is negative
     */
    public LmrTriplet {
        if (segmentLength < 0) {
            throw DatException.invalidParameter("segment length " + segmentLength + " is negative");
        }
    }
}
