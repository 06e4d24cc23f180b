package io.simrdma.fabric.tcp;

import io.simrdma.fabric.wire.Gid;
import java.net.SocketAddress;

/**
 * Something that happened to a {@link TcpNode}'s connections or links, reported to its
 * {@link TcpNode.Listener}s.
 *
 * <p>Thread safety: immutable.
 *
 * @param type   what happened
 * @param peer   the peer node's GID, when known (null before a handshake told it)
 * @param remote the socket address at the other end, when there is one
 * @param detail a human-readable reason
 */
public record TcpEvent(Type type, Gid peer, SocketAddress remote, String detail) {

    /** Kinds of events. */
    public enum Type {
        /**
         * A connection to a peer completed its handshake and now carries the peer's packets
         * ({@code detail} "outbound", "inbound", or on a plain node "inbound, receive only").
         */
        CONNECTED,
        /** The connection carrying a peer's packets closed (lost, disconnected, node closed). */
        DISCONNECTED,
        /** An outbound connection could not be opened. */
        CONNECT_FAILED,
        /** A connection closed, whether or not it had carried packets (see DISCONNECTED for the link's view). */
        CONNECTION_CLOSED,
        /** The tie-break closed one of two connections with the same peer. */
        DUPLICATE_CLOSED,
        /** This node refused a handshake ({@code detail} names the {@link HandshakeFailure}). */
        REFUSED,
        /** The peer refused our handshake. */
        REFUSED_BY_PEER,
        /** A connection was closed for bad input ({@code detail} names the {@link FrameError}). */
        BAD_INPUT,
        /** A link was taken down administratively. */
        LINK_DOWN,
        /** A link was brought up administratively. */
        LINK_UP,
        /** A link nobody used any more was removed (no connection for the idle timeout, or the peer only connected in). */
        LINK_REMOVED
    }
}
