package io.simrdma.fabric.internal.link;

import io.netty.buffer.PooledByteBufAllocator;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.wire.Packet;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The fault rules of one link and the decision they make for each packet. In-process links
 * consult it when they transmit; the TCP transport consults it in a pipeline handler, so the same
 * rules behave the same on both kinds of link.
 *
 * <p>Thread safety: rules may be added or cleared from any thread; {@link #decide} is called by
 * one sending thread per direction with that direction's random source.
 */
public final class FaultInjector {

    private volatile FaultRule[] rules = new FaultRule[0];

    /** What the rules decided for one packet; reusable. */
    public static final class Decision {
        boolean drop;
        boolean duplicate;
        boolean corrupt;
        long extraDelayNanos;

        public boolean drop() {
            return drop;
        }

        public boolean duplicate() {
            return duplicate;
        }

        public boolean corrupt() {
            return corrupt;
        }

        /** Delay beyond the link latency (DELAY and REORDER rules), in nanoseconds. */
        public long extraDelayNanos() {
            return extraDelayNanos;
        }

        void reset() {
            drop = false;
            duplicate = false;
            corrupt = false;
            extraDelayNanos = 0;
        }
    }

    /** Adds a rule; rules apply in the order added. */
    public void add(FaultRule rule) {
        Objects.requireNonNull(rule, "rule");
        synchronized (this) {
            FaultRule[] r = Arrays.copyOf(rules, rules.length + 1);
            r[r.length - 1] = rule;
            rules = r;
        }
    }

    /** Removes every rule. */
    public void clear() {
        rules = new FaultRule[0];
    }

    /** The rules, in order. */
    public List<FaultRule> rules() {
        return List.of(rules);
    }

    /** True if no rule is set (the common case: nothing to decide). */
    public boolean isEmpty() {
        return rules.length == 0;
    }

    /**
     * Applies the rules to packet {@code p}, the {@code index}-th of its direction (from 1): each
     * matching rule fires with its probability, drawn from {@code random}, up to its hit limit.
     * A DROP ends the decision.
     */
    public Decision decide(Packet p, long index, SplittableRandom random, Decision d) {
        d.reset();
        for (FaultRule rule : rules) {
            if (!rule.matches(p, index)) {
                continue;
            }
            if (rule.probability() < 1.0 && random.nextDouble() >= rule.probability()) {
                continue;
            }
            if (!rule.tryHit()) {
                continue;
            }
            switch (rule.action()) {
                case DROP:
                    d.drop = true;
                    return d;
                case DUPLICATE:
                    d.duplicate = true;
                    break;
                case DELAY:
                    d.extraDelayNanos += rule.nanos();
                    break;
                case REORDER:
                    d.extraDelayNanos += 1 + random.nextLong(rule.nanos());
                    break;
                case CORRUPT:
                    d.corrupt = true;
                    break;
                default:
                    throw new IllegalStateException("fault " + rule.action());
            }
        }
        return d;
    }

    /**
     * Corrupts {@code p} as a faulty wire would: the sender's valid ICRC is attached, then one
     * random bit of the header or payload flips, so the receiver's ICRC check rejects it.
     */
    public static void corrupt(Packet p, SplittableRandom random) {
        p.materialize(PooledByteBufAllocator.DEFAULT);
        p.attachIcrc();
        long bits = (long) (p.headerLength() + p.payloadLength()) * 8;
        p.flipBit(random.nextLong(bits), PooledByteBufAllocator.DEFAULT);
    }
}
