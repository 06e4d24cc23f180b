package io.simrdma.fabric.internal.link;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.wire.Packet;

/**
 * Where a device sends the packets for one destination: an in-process {@link LinkImpl}, or a
 * connection to a node in another JVM provided by a {@link RemoteTransport}. Queue pairs cache
 * their route and look it up again once it reports {@link #isRemoved()}.
 */
public interface PacketRoute {

    /**
     * Sends {@code p} from {@code from}. Runs on {@code from}'s executor; takes ownership of the
     * packet (the route releases it when it is dropped or delivered).
     */
    void transmit(Device from, Packet p);

    /**
     * True if a burst ({@link Packet#burst}, a run of consecutive packets of one message carried
     * as one unit) sent now would travel as one unit: nothing on the route needs the packets one
     * by one. Sender's executor. A route that does not carry bursts still takes them ({@link
     * #transmit} cuts them into their packets), so a change between asking and sending is safe.
     */
    default boolean carriesBursts() {
        return false;
    }

    /** True once the route is gone for good (a device closed, a transport shut down). */
    boolean isRemoved();
}
