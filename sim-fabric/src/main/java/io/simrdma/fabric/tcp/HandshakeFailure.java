package io.simrdma.fabric.tcp;

/**
 * Why a handshake was refused. The refusing node logs the reason (rate-limited), counts it, and
 * sends its code in a REFUSE frame where the connection can still carry one (a TLS failure is
 * told by a TLS alert instead); the dialling node ends the connection attempts that were waiting
 * for the peer at once, naming the {@link #cause()}.
 *
 * <p>Thread safety: immutable.
 */
public enum HandshakeFailure {
    /** Not a simrdma peer (bad magic) or another protocol version. */
    BAD_VERSION(1, TcpCounter.REFUSED_BAD_VERSION, "speaks another simrdma protocol version"),
    /** The peer's fabric has another name. */
    WRONG_FABRIC(2, TcpCounter.REFUSED_WRONG_FABRIC, "belongs to another fabric"),
    /**
     * The peer's GID is not a TCP node's GID, is our own, is not the GID of the address dialled,
     * or names an address its certificate (or, without TLS, its connection's source) does not have.
     */
    WRONG_PEER(3, TcpCounter.REFUSED_WRONG_PEER, "is not the node it claims to be"),
    /** One node runs TLS and the other plain TCP. */
    NO_TLS(4, TcpCounter.REFUSED_NO_TLS, "and this node do not both run TLS (one has credentials, the other none)"),
    /** The peer's certificate is not trusted: not signed by the fabric CA, expired, or refused by the TLS handshake. */
    UNTRUSTED(
            5,
            TcpCounter.REFUSED_UNTRUSTED,
            "does not trust this node's certificate or is not trusted (another fabric CA?)"),
    /** The handshake did not complete in time. */
    TIMEOUT(6, TcpCounter.REFUSED_TIMEOUT, "did not complete the handshake in time");

    private static final HandshakeFailure[] BY_CODE = byCode();

    private final int code;
    private final TcpCounter counter;
    private final String cause;

    HandshakeFailure(int code, TcpCounter counter, String cause) {
        this.code = code;
        this.counter = counter;
        this.cause = cause;
    }

    /** The code carried in a REFUSE frame. */
    public int code() {
        return code;
    }

    public TcpCounter counter() {
        return counter;
    }

    /** What went wrong, as a phrase that follows "the peer" (for messages a person reads). */
    public String cause() {
        return cause;
    }

    /** The failure with this wire code, or null. */
    public static HandshakeFailure ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    private static HandshakeFailure[] byCode() {
        int max = 0;
        for (HandshakeFailure f : values()) {
            max = Math.max(max, f.code);
        }
        HandshakeFailure[] t = new HandshakeFailure[max + 1];
        for (HandshakeFailure f : values()) {
            t[f.code] = f;
        }
        return t;
    }
}
