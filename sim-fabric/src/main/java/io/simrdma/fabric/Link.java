package io.simrdma.fabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A path between two devices of a fabric, in one JVM: it carries packets with a latency and a
 * bandwidth, and injects the faults of its rules (drop, duplicate, delay, reorder, corrupt), and
 * can go down and come up, now or at a given time. A link to a device itself carries loopback
 * traffic.
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

    /** Counts of what happened to packets sent from {@code from} over this link. */
    LinkStats stats(Device from);

    /**
     * Packet counts of one direction.
     *
     * @param sent       packets given to the link
     * @param delivered  packets handed to the receiving port
     * @param dropped    packets lost (faults, link down)
     * @param duplicated copies a fault added
     * @param delayed    packets a fault delayed or held back
     * @param corrupted  packets a fault corrupted
     */
    record LinkStats(long sent, long delivered, long dropped, long duplicated, long delayed, long corrupted) {
    }

}
