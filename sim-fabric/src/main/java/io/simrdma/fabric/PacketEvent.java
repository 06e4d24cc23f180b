package io.simrdma.fabric;

/**
 * What happened to a packet, as a {@link TraceListener} sees it.
 *
 * <p>Thread safety: immutable.
 */
public enum PacketEvent {
    /** A device put the packet on a link for the first time. */
    SENT,
    /** A requester sent the packet again, after a timeout or a NAK. */
    RETRANSMITTED,
    /** The link handed the packet to the receiving port. */
    DELIVERED,
    /** The packet was lost; {@link DropReason} says why. */
    DROPPED,
    /** A fault put a second copy of the packet on the link. */
    DUPLICATED,
    /** A fault delayed the packet beyond the link latency (it may be overtaken). */
    DELAYED,
    /** A fault flipped a bit of the packet; its ICRC will not match. */
    CORRUPTED,
    /** A fault rewrote header fields or payload bytes of the packet (traced with its new contents). */
    REWRITTEN,
    /** A fault held the packet on the link until a time or until a {@link FaultGate} opens. */
    HELD,
    /** A {@link FaultGate} opened and the packet it held travels on. */
    RELEASED,
    /** A test put a crafted packet on the link ({@link Link#inject}); fault rules pass it by. */
    INJECTED
}
