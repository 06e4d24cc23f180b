package io.simrdma.dat;

import java.util.EnumSet;

/**
 * One event stream an EVD accepts ({@code DAT_EVD_FLAGS} in dat.h), given to
 * {@link InterfaceAdapter#createEvd}. The declaration order is the row and column order of
 * {@link ProviderAttributes#evdStreamMerging()} (software, connection request, DTO, connection,
 * RMR bind, asynchronous), as the header comment on {@code evd_stream_merging_supported} gives it.
 *
 * <p>Thread safety: immutable.
 */
public enum EvdFlag implements BitFlag {
    /** {@code DAT_EVD_SOFTWARE_FLAG} (0x001): software events (dat_evd_post_se). */
    SOFTWARE(0x001),
    /** {@code DAT_EVD_CR_FLAG} (0x010): connection request events. */
    CR(0x010),
    /** {@code DAT_EVD_DTO_FLAG} (0x020): DTO completion events. */
    DTO(0x020),
    /** {@code DAT_EVD_CONNECTION_FLAG} (0x040): connection events. */
    CONNECTION(0x040),
    /** {@code DAT_EVD_RMR_BIND_FLAG} (0x080): RMR bind completion events. */
    RMR_BIND(0x080),
    /** {@code DAT_EVD_ASYNC_FLAG} (0x100): asynchronous error events. */
    ASYNC(0x100);

    /** {@code DAT_EVD_DEFAULT_FLAG}: 0x1F0, every DAT stream but software events. */
    public static final long DEFAULT_BITS = 0x1F0;

    private final int value;

    EvdFlag(int value) {
        this.value = value;
    }

    @Override
    public long bit() {
        return value;
    }

    /** The header value. */
    public int value() {
        return value;
    }

    /**
     * A new set holding {@code DAT_EVD_DEFAULT_FLAG}: {@link #CR}, {@link #DTO}, {@link #CONNECTION}, {@link
     * #RMR_BIND}, {@link #ASYNC}.
     */
    public static EnumSet<EvdFlag> defaults() {
        return EnumSet.of(CR, DTO, CONNECTION, RMR_BIND, ASYNC);
    }
}
