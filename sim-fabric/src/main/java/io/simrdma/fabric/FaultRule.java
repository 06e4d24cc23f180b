package io.simrdma.fabric;

import io.simrdma.fabric.wire.Packet;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fault a link injects: an action on the packets a {@link PacketMatcher} selects, each with
 * a probability, at most {@code maxHits} times. Decisions use the link's random source, which
 * under the deterministic scheduler derives from the fabric's seed.
 *
 * <p>Thread safety: thread-safe.
 */
public final class FaultRule {

    /** What the rule does to a packet. */
    public enum Action {
        /** The packet is lost. */
        DROP,
        /** A second copy follows the packet. */
        DUPLICATE,
        /** The packet arrives {@code nanos} later than the link latency says (later packets may overtake it). */
        DELAY,
        /** The packet is held back a random 1..{@code nanos} ns, so that packets behind it overtake it. */
        REORDER,
        /** One random bit of the packet flips; the receiver's ICRC check drops it. */
        CORRUPT
    }

    private final Action action;
    private final PacketMatcher matcher;
    private final double probability;
    private final long nanos;
    private final long maxHits;
    private final AtomicLong hits = new AtomicLong();

    private FaultRule(Action action, PacketMatcher matcher, double probability, long nanos, long maxHits) {
        this.action = Objects.requireNonNull(action, "action");
        this.matcher = Objects.requireNonNull(matcher, "matcher");
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("probability must be in [0, 1]: " + probability);
        }
        if (nanos < 0 || maxHits < 1) {
            throw new IllegalArgumentException("negative time or hit limit");
        }
        if ((action == Action.DELAY || action == Action.REORDER) && nanos == 0) {
            throw new IllegalArgumentException(action + " needs a positive time");
        }
        this.probability = probability;
        this.nanos = nanos;
        this.maxHits = maxHits;
    }

    /** Drops matching packets with {@code probability}. */
    public static FaultRule drop(PacketMatcher matcher, double probability) {
        return new FaultRule(Action.DROP, matcher, probability, 0, Long.MAX_VALUE);
    }

    /** Duplicates matching packets with {@code probability}. */
    public static FaultRule duplicate(PacketMatcher matcher, double probability) {
        return new FaultRule(Action.DUPLICATE, matcher, probability, 0, Long.MAX_VALUE);
    }

    /** Delays matching packets by {@code nanos} with {@code probability}. */
    public static FaultRule delay(PacketMatcher matcher, double probability, long nanos) {
        return new FaultRule(Action.DELAY, matcher, probability, nanos, Long.MAX_VALUE);
    }

    /** Holds matching packets back by up to {@code maxNanos} with {@code probability}. */
    public static FaultRule reorder(PacketMatcher matcher, double probability, long maxNanos) {
        return new FaultRule(Action.REORDER, matcher, probability, maxNanos, Long.MAX_VALUE);
    }

    /** Corrupts matching packets with {@code probability}. */
    public static FaultRule corrupt(PacketMatcher matcher, double probability) {
        return new FaultRule(Action.CORRUPT, matcher, probability, 0, Long.MAX_VALUE);
    }

    /** The same rule, applied at most {@code n} times. */
    public FaultRule times(long n) {
        return new FaultRule(action, matcher, probability, nanos, n);
    }

    public Action action() {
        return action;
    }

    public double probability() {
        return probability;
    }

    public long nanos() {
        return nanos;
    }

    /** How many packets the rule has acted on. */
    public long hits() {
        return hits.get();
    }

    /** True if the rule applies to packet {@code p}, the {@code index}-th its direction carried (from 1). */
    public boolean matches(io.simrdma.fabric.wire.Packet p, long index) {
        return matcher.matches(p, index);
    }

    /** Counts a hit if the limit allows one. */
    /** Counts one application of the rule; false once it has applied {@link #times} times. Thread-safe. */
    public boolean tryHit() {
        while (true) {
            long h = hits.get();
            if (h >= maxHits) {
                return false;
            }
            if (hits.compareAndSet(h, h + 1)) {
                return true;
            }
        }
    }

    @Override
    public String toString() {
        return "FaultRule[" + action + ", p=" + probability + (nanos > 0 ? ", " + nanos + "ns" : "")
                + (maxHits < Long.MAX_VALUE ? ", max " + maxHits : "") + ", hits=" + hits.get() + "]";
    }
}
