package io.simrdma.fabric;

import io.simrdma.fabric.wire.Packet;

/**
 * Observes a fabric: every packet sent, delivered, dropped or retransmitted, the fault rule that
 * acted on it, every QP state change, every work completion, and the state changes a layer above
 * verbs reports. Register with {@link Fabric#addTraceListener}. A fabric also logs every event through
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
    default void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {}

    /** A QP changed state, by a modify call or by the engine (an error). */
    default void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {}

    /** A link went down or came up. */
    default void onLinkStateChange(long time, Link link, boolean up) {}

    /** An async event was raised. */
    default void onAsyncEvent(long time, Device device, AsyncEvent event) {}

    /**
     * A fault rule of a link fired on a packet. Called once per rule that fired, before the
     * packet events the rules cause ({@link PacketEvent#DROPPED} with {@link DropReason#FAULT},
     * {@link PacketEvent#DUPLICATED}, {@link PacketEvent#DELAYED}, {@link PacketEvent#HELD},
     * {@link PacketEvent#CORRUPTED}, {@link PacketEvent#REWRITTEN}), on the same thread, so a
     * listener can say which rule did what to a packet.
     *
     * @param time   fabric clock, nanoseconds
     * @param rule   the rule
     * @param from   sending device
     * @param to     receiving device (null for a device in another JVM)
     * @param packet the packet (as the rule left it); valid only during the call
     */
    default void onFaultRule(long time, FaultRule rule, Device from, Device to, Packet packet) {}

    /**
     * A work completion was added to a completion queue (the entry ibv_poll_cq(3) will return).
     * Called on the engine thread that generated it; arguments are plain values, nothing to copy.
     *
     * @param time    fabric clock, nanoseconds
     * @param cq      the completion queue
     * @param qpNum   the QP the work request belonged to
     * @param wrId    the work request's wr_id
     * @param status  its status
     * @param opcode  its opcode
     * @param byteLen bytes transferred (receives)
     */
    default void onCompletion(
            long time, CompletionQueue cq, int qpNum, long wrId, WcStatus status, WcOpcode opcode, int byteLen) {}

    /**
     * An object of a layer above verbs changed state, as that layer reported it through
     * {@link Fabric#traceStateChange} (the DAT provider reports its endpoints' states so).
     *
     * @param time   fabric clock, nanoseconds
     * @param device the device the object lives on
     * @param object a short name of the object ("EP 3")
     * @param from   the state it left
     * @param to     the state it entered
     */
    default void onStateChange(long time, Device device, String object, String from, String to) {}
}
