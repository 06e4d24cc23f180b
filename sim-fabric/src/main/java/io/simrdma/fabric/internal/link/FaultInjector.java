package io.simrdma.fabric.internal.link;

import io.netty.buffer.PooledByteBufAllocator;
import io.simrdma.fabric.FaultGate;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.wire.Packet;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The fault rules of one link and the decision they make for each packet. In-process links
 * consult it when they transmit; the TCP transport consults it in a pipeline handler, so the same
 * rules behave the same on both kinds of link. Each link then carries the decision out in the
 * same order: rewrite (already applied by {@link #decide}), drop, corrupt or else a fresh ICRC
 * for a rewritten packet ({@link #seal}), duplicate, hold on a gate, wait, deliver.
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
        boolean rewritten;
        long extraDelayNanos;
        long holdNanos;
        FaultGate gate;
        private FaultRule[] fired = new FaultRule[4];
        private int firedCount;

        /** How many rules fired on the packet (for the trace). */
        public int firedCount() {
            return firedCount;
        }

        /** The {@code i}-th rule that fired, in the order the rules apply. */
        public FaultRule fired(int i) {
            if (i >= firedCount) {
                throw new IndexOutOfBoundsException(i);
            }
            return fired[i];
        }

        void fire(FaultRule rule) {
            if (firedCount == fired.length) {
                fired = Arrays.copyOf(fired, firedCount * 2);
            }
            fired[firedCount++] = rule;
        }

        public boolean drop() {
            return drop;
        }

        public boolean duplicate() {
            return duplicate;
        }

        public boolean corrupt() {
            return corrupt;
        }

        /** True if a REWRITE rule changed the packet (it needs a fresh ICRC unless corrupted). */
        public boolean rewritten() {
            return rewritten;
        }

        /** Delay beyond the link latency (DELAY and REORDER rules), in nanoseconds. */
        public long extraDelayNanos() {
            return extraDelayNanos;
        }

        /** How long a HOLD-until-a-time rule keeps the packet from now, in nanoseconds; 0 if none. */
        public long holdNanos() {
            return holdNanos;
        }

        /** The gate a HOLD rule keeps the packet on, or null; set, it ends the decision. */
        public FaultGate gate() {
            return gate;
        }

        /**
         * Time on the link beyond its latency: the later of the delays and the hold, since a
         * held packet leaves at the hold's end whatever delays it has waited out meanwhile.
         */
        public long waitNanos() {
            return Math.max(extraDelayNanos, holdNanos);
        }

        void reset() {
            drop = false;
            duplicate = false;
            corrupt = false;
            rewritten = false;
            extraDelayNanos = 0;
            holdNanos = 0;
            gate = null;
            for (int i = 0; i < firedCount; i++) {
                fired[i] = null;
            }
            firedCount = 0;
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
     * Applies the rules to packet {@code p}, the {@code index}-th of its direction (from 1), sent
     * at {@code nowNanos} on the fabric's clock: each active matching rule fires with its
     * probability, drawn from {@code random}, up to its hit limit. A REWRITE changes {@code p} at
     * once (later rules see the new packet); a DROP, or a HOLD on a closed gate, ends the decision.
     */
    public Decision decide(Packet p, long index, long nowNanos, SplittableRandom random, Decision d) {
        d.reset();
        for (FaultRule rule : rules) {
            if (!rule.activeAt(nowNanos) || !rule.matches(p, index) || !applicable(rule, p, nowNanos)) {
                continue;
            }
            if (rule.probability() < 1.0 && random.nextDouble() >= rule.probability()) {
                continue;
            }
            if (!rule.tryHit()) {
                continue;
            }
            d.fire(rule);
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
                case REWRITE:
                    rule.rewrite().apply(p);
                    d.rewritten = true;
                    break;
                case HOLD:
                    if (rule.gate() != null) {
                        d.gate = rule.gate();
                        return d;
                    }
                    d.holdNanos = Math.max(d.holdNanos, rule.nanos() - nowNanos);
                    break;
                case OBSERVE:
                    break;
                default:
                    throw new IllegalStateException("fault " + rule.action());
            }
        }
        return d;
    }

    /** False for a rewrite the packet lacks the header for, and for a hold that is over. */
    private static boolean applicable(FaultRule rule, Packet p, long nowNanos) {
        switch (rule.action()) {
            case REWRITE:
                return rule.rewrite().appliesTo(p);
            case HOLD:
                return rule.gate() != null ? !rule.gate().isOpen() : rule.nanos() > nowNanos;
            default:
                return true;
        }
    }

    /**
     * Gives a packet a rule rewrote a correct ICRC over its new bytes (IBA 7.8.1), as the sender
     * of such a packet would have computed it, so that the receiving port accepts it.
     */
    public static void seal(Packet p) {
        p.attachIcrc();
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
