package io.simrdma.fabric.tcp;

/**
 * Why a handshake was refused; the refusing node sends the code in a REFUSE frame, logs the
 * reason and counts it.
 *
 * <p>Thread safety: immutable.
 */
public enum HandshakeFailure {
    /** Not a simrdma peer (bad magic) or another protocol version. */
    BAD_VERSION(1, TcpCounter.REFUSED_BAD_VERSION),
    /** The peer's fabric has another name. */
    WRONG_FABRIC(2, TcpCounter.REFUSED_WRONG_FABRIC),
    /** The peer's GID is not a TCP node's GID, is our own, or is not the GID of the address dialled. */
    WRONG_PEER(3, TcpCounter.REFUSED_WRONG_PEER),
    /** One side has a pre-shared key and the other has none. */
    MISSING_KEY(4, TcpCounter.REFUSED_MISSING_KEY),
    /** The peer's HMAC-SHA256 proof does not match our key. */
    BAD_KEY(5, TcpCounter.REFUSED_BAD_KEY),
    /** The handshake did not complete in time. */
    TIMEOUT(6, TcpCounter.REFUSED_TIMEOUT);

    private final int code;
    private final TcpCounter counter;

    HandshakeFailure(int code, TcpCounter counter) {
        this.code = code;
        this.counter = counter;
    }

    /** The code carried in a REFUSE frame. */
    public int code() {
        return code;
    }

    public TcpCounter counter() {
        return counter;
    }

    /** The failure with this wire code, or null. */
    public static HandshakeFailure ofCode(int code) {
        for (HandshakeFailure f : values()) {
            if (f.code == code) {
                return f;
            }
        }
        return null;
    }
}
