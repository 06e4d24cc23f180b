package io.simrdma.fabric;

import io.simrdma.fabric.wire.Packet;

/**
 * Observes a fabric: every packet sent, delivered, dropped or retransmitted, and every QP state
 * change. Register with {@link Fabric#addTraceListener}. A fabric also logs every event through
 * one of its own when the SLF4J logger {@code io.simrdma.fabric.trace} is at debug level.
 *
 * <p>Listeners are called on engine threads (several at once under the threaded scheduler) and
 * must not block or throw; a packet is valid only during the call (it is pooled): copy what you
 * need. Under the deterministic scheduler calls happen in a reproducible order.
 */
public interface TraceListener {

    /**
     * A packet event.
     *
     * @param event  what happened
     * @param reason why it was dropped, for {@link PacketEvent#DROPPED}; null otherwise
     * @param time   fabric clock, nanoseconds
     * @param from   sending device
     * @param to     receiving device (null if there is no route)
     * @param packet the packet; valid only during the call
     */
    default void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
    }

    /** A QP changed state, by a modify call or by the engine (an error). */
    default void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {
    }

    /** A link went down or came up. */
    default void onLinkStateChange(long time, Link link, boolean up) {
    }

    /** An async event was raised. */
    default void onAsyncEvent(long time, Device device, AsyncEvent event) {
    }
}
