package io.simrdma.dat;

/**
 * Who creates an Endpoint for each Connection Request arriving on a Public Service Point
 * ({@code DAT_PSP_FLAGS} in dat.h; the man pages call them {@code DAT_PSP_CONSUMER} and
 * {@code DAT_PSP_PROVIDER}). The values exclude each other, so this is a plain enum.
 *
 * <p>Thread safety: immutable.
 */
public enum PspFlag {
    /** {@code DAT_PSP_CONSUMER_FLAG} (0x00): the consumer accepts with its own EP. */
    CONSUMER(0x00),
    /** {@code DAT_PSP_PROVIDER_FLAG} (0x01): the provider creates an EP per request. */
    PROVIDER(0x01);

    private final int value;

    PspFlag(int value) {
        this.value = value;
    }

    /** The header value. */
    public int value() {
        return value;
    }
}
