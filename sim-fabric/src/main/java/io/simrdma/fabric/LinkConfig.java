package io.simrdma.fabric;

/**
 * Timing of a link.
 *
 * <p>Thread safety: immutable.
 *
 * @param latencyNanos  one-way propagation delay per packet
 * @param bandwidthBits serialization rate in bits per second (0: infinite). Used only under the
 *                      deterministic scheduler, where a packet occupies the link for
 *                      (frame bytes x 8 / bandwidth); real-time links ignore it.
 */
public record LinkConfig(long latencyNanos, long bandwidthBits) {

    /** Ethernet, IPv4 and UDP headers plus FCS that a RoCEv2 frame adds around the IBA packet. */
    static final int FRAME_OVERHEAD = 14 + 20 + 8 + 4;

    public LinkConfig {
        if (latencyNanos < 0 || bandwidthBits < 0) {
            throw new IllegalArgumentException("negative latency or bandwidth");
        }
    }

    /** 1 us latency, 100 Gb/s: a data-center hop. */
    public static LinkConfig dataCenter() {
        return new LinkConfig(1_000, 100_000_000_000L);
    }

    /** No latency and infinite bandwidth. */
    public static LinkConfig instant() {
        return new LinkConfig(0, 0);
    }

    /** Nanoseconds a packet of {@code wireBytes} occupies the link. */
    /** Time to put {@code wireBytes} on the wire at this bandwidth, framing included. */
    public long serializationNanos(int wireBytes) {
        if (bandwidthBits == 0) {
            return 0;
        }
        return ((long) (wireBytes + FRAME_OVERHEAD) * 8_000_000_000L) / bandwidthBits;
    }
}
