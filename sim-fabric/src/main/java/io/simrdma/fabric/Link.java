package io.simrdma.fabric;

import io.simrdma.fabric.wire.Packet;
import java.util.List;

/**
 * A path between two devices of a fabric, in one JVM: it carries packets with a latency and a
 * bandwidth, applies the faults of its rules (drop, duplicate, delay, reorder, corrupt, rewrite,
 * hold; see {@link FaultRule}), takes crafted packets ({@link #inject}), and can go down and come
 * up, now or at a given time. A link to a device itself carries loopback traffic.
 *
 * <p>Packets travel by reference (no copy, no serialization); each direction keeps order unless a
 * fault delays a packet. Fault decisions use a random source per direction, derived from the
 * fabric's seed under the deterministic scheduler, so a seed replays the same faults.
 *
 * <p>Thread safety: thread-safe. Each direction is driven by its sending device's executor.
 */
public interface Link {

    /** One end of the link. */
    Device a();

    /** The other end. */
    Device b();

    LinkConfig config();

    /** Changes latency and bandwidth for packets sent from now on. */
    Link config(LinkConfig c);

    /** Adds a fault rule; rules apply in the order added. */
    Link addFault(FaultRule rule);

    /** Removes every fault rule. */
    Link clearFaults();

    /** The fault rules, in order. */
    List<FaultRule> faults();

    boolean isUp();

    /**
     * Takes the link down or brings it up now. While down, packets sent are lost, and packets on
     * the wire when it goes down are lost (when they would have arrived, even if the link is up
     * again by then); the RC engine's retries decide what happens, as on a real fabric.
     */
    void setUp(boolean upNow);

    /** Takes the link down at {@code timeNanos} on the fabric's clock. */
    Link downAt(long timeNanos);

    /** Brings the link up at {@code timeNanos} on the fabric's clock. */
    Link upAt(long timeNanos);

    /**
     * Puts a crafted packet on the link as if {@code from} had sent it, for protocol tests (a NAK
     * the responder never sent, a duplicate request): it is traced {@link PacketEvent#INJECTED},
     * passes the fault rules by, and arrives at the other end (at {@code from} itself on a
     * loopback link) after the link's latency, unless the link is down. The link fills in the
     * source and destination GIDs if the packet has none; everything else (opcode, destination QP,
     * PSN, headers, payload, {@link Packet#updatePadCount() pad count}) is as the caller built it.
     *
     * <p>Any thread; the packet is sent from {@code from}'s executor. Takes ownership of
     * {@code packet} (from {@link Packet#allocate}): the caller must not touch it afterwards (a
     * link whose fabric has closed releases it at once).
     *
     * @throws IllegalArgumentException if {@code from} is not an end of this link
     */
    void inject(Device from, Packet packet);

    /** Counts of what happened to packets sent from {@code from} over this link. */
    LinkStats stats(Device from);

    /**
     * Turns segmentation offload on or off (on by default). With it on, the link carries a run of
     * consecutive packets of one message (RDMA WRITE, SEND or RDMA READ response First..Last, up
     * to what the requester's window and budget let go at once) as one unit whenever nothing
     * needs them one by one, as a NIC's segmentation offload does: the packets keep their PSNs,
     * the run arrives when its last packet would have, the receiver checks and acknowledges them
     * as if they had come one by one, and every counter counts them one by one. Per-packet
     * handling returns by itself while the link has a fault rule, a timed change pending
     * ({@link #downAt}, {@link #upAt}), or the fabric has a trace listener (a capture is one) or
     * an observer; a run already on its way is cut into its packets when it meets one. Off, every
     * packet travels alone (to compare, or to measure the per-packet path). Any thread.
     */
    Link segmentationOffload(boolean on);

    /** Whether segmentation offload is on (see {@link #segmentationOffload(boolean)}). */
    boolean segmentationOffload();

    /**
     * Packet counts of one direction.
     *
     * @param sent       packets given to the link (injected ones included)
     * @param delivered  packets handed to the receiving port
     * @param dropped    packets lost (faults, link down)
     * @param duplicated copies a fault added
     * @param delayed    packets a DELAY or REORDER fault delayed
     * @param corrupted  packets a fault corrupted
     * @param rewritten  packets a REWRITE fault changed
     * @param held       packets a HOLD fault kept back (until a time or a gate)
     */
    record LinkStats(
            long sent,
            long delivered,
            long dropped,
            long duplicated,
            long delayed,
            long corrupted,
            long rewritten,
            long held) {

        /** Counts of a direction no rewrite or hold touched. */
        public LinkStats(long sent, long delivered, long dropped, long duplicated, long delayed, long corrupted) {
            this(sent, delivered, dropped, duplicated, delayed, corrupted, 0, 0);
        }
    }
}
