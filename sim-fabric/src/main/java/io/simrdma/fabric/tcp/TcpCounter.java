package io.simrdma.fabric.tcp;

/**
 * What a {@link TcpNode} counts (read with {@link TcpNode#counter}). Every way a connection can
 * fail or be refused has its own counter, so a test or an operator sees what went wrong without
 * reading logs.
 *
 * <p>Thread safety: immutable.
 */
public enum TcpCounter {
    CONNECTS_STARTED("outbound connections started (first packet to a node, or again after a loss)"),
    CONNECT_FAILURES("outbound connections that could not be opened"),
    CONNECTIONS_ACCEPTED("inbound connections accepted"),
    HANDSHAKES_COMPLETED("connections whose handshake completed"),
    REFUSED_BAD_VERSION("handshakes refused: not a simrdma peer, or another protocol version"),
    REFUSED_WRONG_FABRIC("handshakes refused: the peer belongs to a fabric of another name"),
    REFUSED_WRONG_PEER("handshakes refused: the peer's GID is not a TCP node's, is ours, or is not the node dialled"),
    REFUSED_NO_TLS("handshakes refused: one node runs TLS and the other plain TCP"),
    REFUSED_UNTRUSTED(
            "handshakes refused: the TLS handshake failed (a certificate not signed by the fabric CA, expired, or refused by the peer)"),
    REFUSED_TIMEOUT("handshakes refused: not completed within the handshake timeout"),
    REFUSED_BY_PEER("handshakes the peer refused (it sent a REFUSE frame)"),
    REFUSED_TOO_MANY_CONNECTIONS("accepted connections closed at once: the node had its maximum of connections open"),
    REFUSED_TOO_MANY_HANDSHAKES(
            "accepted connections closed at once: the node had its maximum of handshakes in progress"),
    CLOSED_FRAME_TIMEOUT("connections closed: a started frame did not arrive in full within the frame timeout"),
    CLOSED_IDLE("connections closed: nothing carried either way within the idle timeout"),
    LINKS_REMOVED(
            "links removed after having no connection for the idle timeout (or at once, for a peer that only connected in)"),
    DUPLICATE_CONNECTIONS_CLOSED("second connections to the same node closed by the tie-break"),
    CONNECTIONS_LOST("established connections that closed without being closed here"),
    CLOSED_TRUNCATED_FRAME(
            "connections closed: the stream ended inside a frame, or a frame is shorter than its type's fixed part"),
    CLOSED_TOO_LONG_FRAME("connections closed: a length prefix above the maximum frame length"),
    CLOSED_UNKNOWN_FRAME_TYPE("connections closed: a frame of an unknown type"),
    CLOSED_UNKNOWN_OPCODE("connections closed: a packet with an opcode simrdma does not know"),
    CLOSED_MALFORMED_HEADER(
            "connections closed: header length, flags or transport version inconsistent with the opcode"),
    CLOSED_BAD_PAD("connections closed: a pad count inconsistent with the payload"),
    CLOSED_MALFORMED_HANDSHAKE("connections closed: a handshake frame of the wrong length or layout"),
    CLOSED_UNEXPECTED_FRAME("connections closed: a frame the handshake state does not allow"),
    CLOSED_UNKNOWN_QP("connections closed: a packet for a QP number the device never allocated"),
    CLOSED_WRONG_ADDRESS("connections closed: a packet whose GIDs are not those of the connection's two nodes"),
    CORRUPT_PACKETS_DROPPED(
            "packets with an ICRC whose headers could not be parsed, dropped as a NIC drops a bad frame"),
    PACKETS_SENT("packets written to connections"),
    PACKETS_RECEIVED("packets received from connections"),
    PACKETS_DROPPED("packets lost: link down, no connection, connection lost, fault rules"),
    BURSTS_SENT(
            "BURST frames written: runs of packets of one message as one frame (counted in PACKETS_SENT as their packets)"),
    BURSTS_RECEIVED("BURST frames received (counted in PACKETS_RECEIVED as their packets)");

    private final String description;

    TcpCounter(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
