package io.simrdma.fabric.tcp;

/**
 * The kinds of bad input that make a {@link TcpNode} close the one connection they arrived on,
 * each with its {@link TcpCounter}. The first seven are found by the frame decoder, the last
 * three by the connection once a packet is decoded. A plain node that receives TLS (the peer
 * has credentials, this node none) does not count it as bad input: it refuses the handshake
 * ({@link HandshakeFailure#NO_TLS}).
 *
 * <p>Thread safety: immutable.
 */
public enum FrameError {
    /** The stream ended inside a frame, or a frame is shorter than its type's fixed part. */
    TRUNCATED(TcpCounter.CLOSED_TRUNCATED_FRAME),
    /** A length prefix above the maximum frame length (nothing is allocated for it). */
    TOO_LONG(TcpCounter.CLOSED_TOO_LONG_FRAME),
    /** A frame type byte this protocol version does not define. */
    UNKNOWN_TYPE(TcpCounter.CLOSED_UNKNOWN_FRAME_TYPE),
    /** A BTH opcode simrdma does not know. */
    UNKNOWN_OPCODE(TcpCounter.CLOSED_UNKNOWN_OPCODE),
    /** Fewer header bytes than the opcode needs, unknown flag bits, a transport version other than 0, or a payload on an opcode without one. */
    MALFORMED_HEADER(TcpCounter.CLOSED_MALFORMED_HEADER),
    /** A BTH pad count larger than what follows the headers, or one that does not pad the payload to 4 bytes. */
    BAD_PAD(TcpCounter.CLOSED_BAD_PAD),
    /** A HELLO, AUTH or REFUSE frame of the wrong length or layout. */
    MALFORMED_HANDSHAKE(TcpCounter.CLOSED_MALFORMED_HANDSHAKE),
    /** A frame the handshake state does not allow: a packet before the handshake completed, a second HELLO. */
    UNEXPECTED_FRAME(TcpCounter.CLOSED_UNEXPECTED_FRAME),
    /** A packet for a QP number the receiving device never allocated (a destroyed QP's late packet is only dropped). */
    UNKNOWN_QP(TcpCounter.CLOSED_UNKNOWN_QP),
    /** A packet whose source GID is not the peer's or whose destination GID is not this node's. */
    WRONG_ADDRESS(TcpCounter.CLOSED_WRONG_ADDRESS);

    private final TcpCounter counter;

    FrameError(TcpCounter counter) {
        this.counter = counter;
    }

    /** The counter a connection closed for this reason increments. */
    public TcpCounter counter() {
        return counter;
    }
}
