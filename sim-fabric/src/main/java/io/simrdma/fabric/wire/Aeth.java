package io.simrdma.fabric.wire;

/**
 * The AETH syndrome byte (IBA 9.7.5.2.1, "ACK/NAK syndrome"):
 * <pre>
 *   bit  7    6  5    4  3  2  1  0
 *      +----+-------+----------------+
 *      | 0  | type  |     value      |
 *      +----+-------+----------------+
 *   type 00: ACK,     value = credit count (0b11111 = invalid / no end-to-end credits)
 *   type 01: RNR NAK, value = RNR timer code (see {@link #rnrTimerNanos})
 *   type 10: reserved
 *   type 11: NAK,     value = NAK code (see {@link NakCode})
 * </pre>
 * followed by the 24-bit MSN.
 *
 * <p>Thread safety: stateless.
 */
public final class Aeth {

    /** Credit field meaning "credits not tracked" (IBA 9.7.7.2.5). */
    public static final int CREDITS_INVALID = 0x1F;

    /** ACK with no end-to-end credit accounting. */
    public static final int ACK_UNLIMITED = CREDITS_INVALID;

    private static final int TYPE_ACK = 0;
    private static final int TYPE_RNR = 1;
    private static final int TYPE_NAK = 3;

    /**
     * Minimum RNR NAK timer field values (IBA 9.7.5.2.8, table 45), in nanoseconds, indexed by the
     * 5-bit code: 0 means 655.36 ms, 1 is 0.01 ms, up to 31, 491.52 ms.
     */
    private static final long[] RNR_NANOS = {
        655_360_000L,
        10_000L,
        20_000L,
        30_000L,
        40_000L,
        60_000L,
        80_000L,
        120_000L,
        160_000L,
        240_000L,
        320_000L,
        480_000L,
        640_000L,
        960_000L,
        1_280_000L,
        1_920_000L,
        2_560_000L,
        3_840_000L,
        5_120_000L,
        7_680_000L,
        10_240_000L,
        15_360_000L,
        20_480_000L,
        30_720_000L,
        40_960_000L,
        61_440_000L,
        81_920_000L,
        122_880_000L,
        163_840_000L,
        245_760_000L,
        327_680_000L,
        491_520_000L,
    };

    private Aeth() {}

    /** The kind of acknowledgement a syndrome encodes. */
    public enum Kind {
        ACK,
        RNR_NAK,
        RESERVED,
        NAK
    }

    /** NAK codes of a type-11 syndrome (IBA 9.7.5.2.1, table 44). */
    public enum NakCode {
        PSN_SEQUENCE_ERROR(0),
        INVALID_REQUEST(1),
        REMOTE_ACCESS_ERROR(2),
        REMOTE_OPERATIONAL_ERROR(3),
        INVALID_RD_REQUEST(4);

        private static final NakCode[] BY_CODE = values();
        private final int code;

        NakCode(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The NAK code for a 5-bit value, or null for a reserved value. */
        public static NakCode fromCode(int code) {
            return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        }
    }

    public static int ack(int credits) {
        return (TYPE_ACK << 5) | (credits & 0x1F);
    }

    public static int rnrNak(int timerCode) {
        return (TYPE_RNR << 5) | (timerCode & 0x1F);
    }

    public static int nak(NakCode code) {
        return (TYPE_NAK << 5) | code.code;
    }

    public static Kind kind(int syndrome) {
        switch ((syndrome >>> 5) & 3) {
            case TYPE_ACK:
                return Kind.ACK;
            case TYPE_RNR:
                return Kind.RNR_NAK;
            case TYPE_NAK:
                return Kind.NAK;
            default:
                return Kind.RESERVED;
        }
    }

    /** The 5-bit value field: credits, RNR timer code or NAK code. */
    public static int value(int syndrome) {
        return syndrome & 0x1F;
    }

    /** Duration of an RNR timer code, in nanoseconds (IBA table 45). */
    public static long rnrTimerNanos(int code) {
        return RNR_NANOS[code & 0x1F];
    }

    /** A readable form of a syndrome, for traces: "ACK", "RNR NAK (640 us)", "NAK REMOTE_ACCESS_ERROR". */
    public static String describe(int syndrome) {
        switch (kind(syndrome)) {
            case ACK:
                return "ACK";
            case RNR_NAK:
                return "RNR NAK (" + rnrTimerNanos(value(syndrome)) / 1000 + " us)";
            case NAK:
                NakCode code = NakCode.fromCode(value(syndrome));
                return "NAK " + (code == null ? "reserved code " + value(syndrome) : code.name());
            default:
                return "reserved syndrome 0x" + Integer.toHexString(syndrome & 0xFF);
        }
    }
}
