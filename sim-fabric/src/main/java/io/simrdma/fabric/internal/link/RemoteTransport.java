package io.simrdma.fabric.internal.link;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.wire.Gid;

/**
 * Reaches devices outside this JVM (the Netty TCP transport is one). A fabric asks its
 * transports for a route when no local device owns a destination GID, and for a GID when a node
 * name is not a local device.
 *
 * <p>Implementations must be thread-safe.
 */
public interface RemoteTransport {

    /** A route from local device {@code from} to the remote port owning {@code destination}, or null. */
    PacketRoute route(Device from, Gid destination);

    /** The GID of a remote node named {@code node} in this transport's syntax (e.g. "host:port"), or null. */
    Gid resolve(String node);
}
