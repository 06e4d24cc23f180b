package io.simrdma.dat;

/**
 * The kind of memory an LMR registers ({@code DAT_MEM_TYPE} in udat.h). Each
 * {@link RegionDescription} names its type; {@link ProviderAttributes#lmrMemTypesSupported()} lists
 * the types a provider registers.
 *
 * <p>Thread safety: immutable.
 */
public enum MemoryType {
    /** {@code DAT_MEM_TYPE_VIRTUAL} (0x00): consumer memory; in Java a {@link java.nio.ByteBuffer}. */
    VIRTUAL(0x00),
    /** {@code DAT_MEM_TYPE_LMR} (0x01): the memory of an existing LMR. */
    LMR(0x01),
    /** {@code DAT_MEM_TYPE_SHARED_VIRTUAL} (0x02): shared memory named by a 40-byte cookie (uDAT only). */
    SHARED_VIRTUAL(0x02),
    /**
     * {@code DAT_MEM_TYPE_SO_VIRTUAL} (0x03): illumos addition, virtual memory with strong ordering
     * (dat_lmr_create). No {@link RegionDescription} has this type; a provider may list it.
     */
    SO_VIRTUAL(0x03);

    private final int value;

    MemoryType(int value) {
        this.value = value;
    }

    /** The header value. */
    public int value() {
        return value;
    }
}
