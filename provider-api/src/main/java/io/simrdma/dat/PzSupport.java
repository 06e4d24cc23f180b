package io.simrdma.dat;

/**
 * What kind of protection a provider's Protection Zones give ({@code DAT_PZ_SUPPORT} in udat.h),
 * reported as {@link ProviderAttributes#pzSupport()}.
 *
 * <p>Thread safety: immutable.
 */
public enum PzSupport {
    /** {@code DAT_PZ_UNIQUE} (0). */
    UNIQUE,
    /** {@code DAT_PZ_SAME} (1). */
    SAME,
    /** {@code DAT_PZ_SHAREABLE} (2). */
    SHAREABLE;

    /** The header value (the declaration position). */
    public int value() {
        return ordinal();
    }
}
