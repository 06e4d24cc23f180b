package io.simrdma.dat;

/**
 * The quality of service of a connection ({@code DAT_QOS} in dat.h). A connection requests one value
 * ({@link Endpoint#connect}); {@link ProviderAttributes#qosSupported()} is the set a provider
 * supports.
 *
 * <p>Thread safety: immutable.
 */
public enum Qos {
    /** {@code DAT_QOS_BEST_EFFORT} (0x00). */
    BEST_EFFORT(0x00),
    /** {@code DAT_QOS_HIGH_THROUGHPUT} (0x01). */
    HIGH_THROUGHPUT(0x01),
    /** {@code DAT_QOS_LOW_LATENCY} (0x02). */
    LOW_LATENCY(0x02),
    /** {@code DAT_QOS_ECONOMY} (0x04): neither low latency nor high throughput. */
    ECONOMY(0x04),
    /** {@code DAT_QOS_PREMIUM} (0x08): both low latency and high throughput. */
    PREMIUM(0x08);

    private final int value;

    Qos(int value) {
        this.value = value;
    }

    /** The header value. */
    public int value() {
        return value;
    }
}
