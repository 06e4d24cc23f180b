package io.simrdma.fabric;

/**
 * Path MTU values (enum ibv_mtu): the payload size of one packet.
 *
 * <p>Thread safety: immutable.
 */
public enum Mtu {
    MTU_256(1, 256),
    MTU_512(2, 512),
    MTU_1024(3, 1024),
    MTU_2048(4, 2048),
    MTU_4096(5, 4096);

    private final int code;
    private final int bytes;

    Mtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** The enum ibv_mtu value (1 for 256 ... 5 for 4096). */
    public int code() {
        return code;
    }

    /** Bytes of payload per packet. */
    public int bytes() {
        return bytes;
    }

    /** The MTU of a byte count. */
    public static Mtu ofBytes(int bytes) {
        for (Mtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("not an IB MTU: " + bytes);
    }
}
