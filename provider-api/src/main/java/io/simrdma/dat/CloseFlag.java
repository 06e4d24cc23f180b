package io.simrdma.dat;

/**
 * How to close an IA ({@link InterfaceAdapter#close(CloseFlag)}) or disconnect an EP
 * ({@link Endpoint#disconnect(CloseFlag)}): {@code DAT_CLOSE_FLAGS} in dat.h. The two values exclude
 * each other, so this is a plain enum, not a flag set. {@code DAT_CLOSE_DEFAULT} is {@link #ABRUPT}.
 *
 * <p>Thread safety: immutable.
 */
public enum CloseFlag {
    /** {@code DAT_CLOSE_ABRUPT_FLAG} (0x00), the default. */
    ABRUPT(0x00),
    /** {@code DAT_CLOSE_GRACEFUL_FLAG} (0x01). */
    GRACEFUL(0x01);

    /** {@code DAT_CLOSE_DEFAULT}. */
    public static final CloseFlag DEFAULT = ABRUPT;

    private final int value;

    CloseFlag(int value) {
        this.value = value;
    }

    /** The header value. */
    public int value() {
        return value;
    }
}
