package io.simrdma.fabric.cm;

/**
 * IB CM reject reasons (IBA 12.6.7.2, table 109) that simrdma sends. A REJECTED event's
 * {@link CmEvent#status()} carries the code, which tells a rejection by the peer application
 * ({@link #CONSUMER_DEFINED}) from one by the remote CM (no listener, no resources).
 *
 * <p>Thread safety: immutable.
 */
public enum RejectReason {
    NO_QP(1),
    NO_RESOURCES(3),
    TIMEOUT(4),
    UNSUPPORTED(5),
    INVALID_COMM_ID(6),
    INVALID_SERVICE_ID(8),
    INVALID_TRANSPORT_TYPE(9),
    STALE_CONNECTION(10),
    INVALID_PATH_MTU(26),
    INSUFFICIENT_RESPONDER_RESOURCES(27),
    CONSUMER_DEFINED(28),
    INVALID_RNR_RETRY(29),
    INVALID_CLASS_VERSION(31);

    private final int code;

    RejectReason(int code) {
        this.code = code;
    }

    /** The 16-bit reason code. */
    public int code() {
        return code;
    }

    /** The reason for a code, or null if simrdma does not name it. */
    public static RejectReason of(int code) {
        for (RejectReason r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
