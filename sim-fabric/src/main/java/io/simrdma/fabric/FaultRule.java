package io.simrdma.fabric;

import io.simrdma.fabric.sched.Scheduler;
import io.simrdma.fabric.sched.WaitSignal;
import io.simrdma.fabric.wire.Packet;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fault a link injects: an action on the packets a {@link PacketMatcher} selects, each with
 * a probability, at most {@link #times n} times, optionally only {@link #during} a window of the
 * fabric's clock. Decisions use the link's random source, which under the deterministic
 * scheduler derives from the fabric's seed, so a seed replays the same faults.
 *
 * <p>Rules are scripts a test writes in a line each:
 * <pre>{@code
 * link.addFault(FaultRule.drop(PacketMatcher.nth(3, PacketMatcher.readResponses())));     // the 3rd READ response
 * link.addFault(FaultRule.drop(PacketMatcher.any()).during(2_000_000, 40_000_000));       // a partition, 2 to 40 ms
 * link.addFault(FaultRule.drop(PacketMatcher.any(), 0.05));                               // 5% loss both ways
 * link.addFault(FaultRule.delay(PacketMatcher.any(), 1.0, 50_000));                       // 50 us more latency
 * link.addFault(FaultRule.rewrite(PacketMatcher.readResponses().and(PacketMatcher.toQp(qp)),
 *         PacketRewrite.psnShift(1)).times(1));                                           // numbered one ahead
 * FaultRule nak = ...; link.addFault(nak); ...; nak.awaitHits(fabric, 1, 1, TimeUnit.SECONDS);
 * }</pre>
 *
 * <p>Rules apply in the order added to a link; each matching rule that fires counts a
 * {@linkplain #hits() hit}. A DROP or a HOLD on a gate ends the decision (later rules do not see
 * the packet); a REWRITE changes the packet before later rules see it; delays add up. The
 * same rules work on in-process links ({@link Link#addFault}) and TCP links
 * ({@code TcpLink.addFault}, for packets the node writes to its peer).
 *
 * <p>Configuration ({@link #times}, {@link #during}) returns a new rule with a fresh hit count;
 * {@link #onHit} adds to this rule. Add a configured rule to a link, then keep it to read its
 * hits or wait for them.
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
        CORRUPT,
        /** Header fields or payload bytes change ({@link PacketRewrite}); the packet keeps a correct ICRC. */
        REWRITE,
        /** The packet waits on the link until a time or until a {@link FaultGate} opens, then travels on. */
        HOLD,
        /** Nothing happens to the packet; the rule counts it, so that a test can wait for it or act on it. */
        OBSERVE
    }

    private static final Runnable[] NO_LISTENERS = new Runnable[0];

    private final Action action;
    private final PacketMatcher matcher;
    private final double probability;
    private final long nanos;
    private final long maxHits;
    private final long fromNanos;
    private final long untilNanos;
    private final PacketRewrite rewrite;
    private final FaultGate gate;
    private final AtomicLong hits = new AtomicLong();
    private volatile Runnable[] listeners = NO_LISTENERS;
    private volatile WaitSignal signal;
    private Scheduler signalScheduler;

    private FaultRule(
            Action action,
            PacketMatcher matcher,
            double probability,
            long nanos,
            long maxHits,
            long fromNanos,
            long untilNanos,
            PacketRewrite rewrite,
            FaultGate gate) {
        this.action = Objects.requireNonNull(action, "action");
        this.matcher = Objects.requireNonNull(matcher, "matcher");
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("probability must be in [0, 1]: " + probability);
        }
        if ((nanos < 0 && action != Action.HOLD) || maxHits < 1) {
            throw new IllegalArgumentException("negative time or hit limit");
        }
        if ((action == Action.DELAY || action == Action.REORDER) && nanos == 0) {
            throw new IllegalArgumentException(action + " needs a positive time");
        }
        if (untilNanos <= fromNanos) {
            throw new IllegalArgumentException("empty window [" + fromNanos + ", " + untilNanos + ")");
        }
        if (action == Action.REWRITE) {
            Objects.requireNonNull(rewrite, "rewrite");
        }
        this.probability = probability;
        this.nanos = nanos;
        this.maxHits = maxHits;
        this.fromNanos = fromNanos;
        this.untilNanos = untilNanos;
        this.rewrite = rewrite;
        this.gate = gate;
    }

    private static FaultRule of(Action action, PacketMatcher matcher, double probability, long nanos) {
        return new FaultRule(
                action, matcher, probability, nanos, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, null, null);
    }

    /** Drops every matching packet. */
    public static FaultRule drop(PacketMatcher matcher) {
        return drop(matcher, 1.0);
    }

    /** Drops matching packets with {@code probability}. */
    public static FaultRule drop(PacketMatcher matcher, double probability) {
        return of(Action.DROP, matcher, probability, 0);
    }

    /** Duplicates matching packets with {@code probability}. */
    public static FaultRule duplicate(PacketMatcher matcher, double probability) {
        return of(Action.DUPLICATE, matcher, probability, 0);
    }

    /** Delays matching packets by {@code nanos} with {@code probability}. */
    public static FaultRule delay(PacketMatcher matcher, double probability, long nanos) {
        return of(Action.DELAY, matcher, probability, nanos);
    }

    /** Holds matching packets back by up to {@code maxNanos} with {@code probability}. */
    public static FaultRule reorder(PacketMatcher matcher, double probability, long maxNanos) {
        return of(Action.REORDER, matcher, probability, maxNanos);
    }

    /** Corrupts matching packets with {@code probability}. */
    public static FaultRule corrupt(PacketMatcher matcher, double probability) {
        return of(Action.CORRUPT, matcher, probability, 0);
    }

    /**
     * Rewrites every matching packet {@code rewrite} applies to (a packet without the header it
     * changes is left alone and is not a hit). The packet leaves with a correct ICRC.
     */
    public static FaultRule rewrite(PacketMatcher matcher, PacketRewrite rewrite) {
        return new FaultRule(
                Action.REWRITE,
                matcher,
                1.0,
                0,
                Long.MAX_VALUE,
                Long.MIN_VALUE,
                Long.MAX_VALUE,
                Objects.requireNonNull(rewrite, "rewrite"),
                null);
    }

    /**
     * Holds every matching packet on the link while {@code gate} is closed; opening it releases
     * them in order. Once the gate is open the rule lets packets pass (and does not count them).
     */
    public static FaultRule hold(PacketMatcher matcher, FaultGate gate) {
        return new FaultRule(
                Action.HOLD,
                matcher,
                1.0,
                0,
                Long.MAX_VALUE,
                Long.MIN_VALUE,
                Long.MAX_VALUE,
                null,
                Objects.requireNonNull(gate, "gate"));
    }

    /**
     * Holds every matching packet sent before {@code timeNanos} on the fabric's clock
     * ({@link Fabric#now()}) until then; they travel on at that time, in order. Packets sent at or
     * after it pass (and are not counted).
     */
    public static FaultRule holdUntil(PacketMatcher matcher, long timeNanos) {
        return of(Action.HOLD, matcher, 1.0, timeNanos);
    }

    /** Counts matching packets and does nothing else: a tap for {@link #awaitHits} and {@link #onHit}. */
    public static FaultRule observe(PacketMatcher matcher) {
        return of(Action.OBSERVE, matcher, 1.0, 0);
    }

    /** The same rule, applied at most {@code n} times. */
    public FaultRule times(long n) {
        return new FaultRule(action, matcher, probability, nanos, n, fromNanos, untilNanos, rewrite, gate);
    }

    /**
     * The same rule, active only for packets sent from {@code fromNanos} (inclusive) until
     * {@code untilNanos} (exclusive) on the fabric's clock ({@link Fabric#now()}).
     */
    public FaultRule during(long fromNanos, long untilNanos) {
        return new FaultRule(action, matcher, probability, nanos, maxHits, fromNanos, untilNanos, rewrite, gate);
    }

    /**
     * Runs {@code listener} each time this rule fires, on the thread sending the packet, before
     * the action is applied; it must not block or throw. Opening a {@link FaultGate}, changing a
     * link or counting are what it is for. Returns this rule.
     */
    public FaultRule onHit(Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (this) {
            Runnable[] l = Arrays.copyOf(listeners, listeners.length + 1);
            l[l.length - 1] = listener;
            listeners = l;
        }
        return this;
    }

    public Action action() {
        return action;
    }

    public double probability() {
        return probability;
    }

    /** DELAY and REORDER: the time; HOLD until a time: that time on the fabric's clock; 0 otherwise. */
    public long nanos() {
        return nanos;
    }

    /** The rewrite of a REWRITE rule, else null. */
    public PacketRewrite rewrite() {
        return rewrite;
    }

    /** The gate of a HOLD rule that holds on one, else null. */
    public FaultGate gate() {
        return gate;
    }

    /** How many packets the rule has acted on. */
    public long hits() {
        return hits.get();
    }

    /**
     * Waits until the rule has acted on at least {@code n} packets, for at most {@code timeout} on
     * {@code fabric}'s clock, and says whether it has. Under the deterministic scheduler the wait
     * runs the fabric (virtual time) on the calling thread, so a test waits for a scripted fault
     * exactly as it waits for a completion; under the threaded scheduler it blocks.
     *
     * @param fabric the fabric whose link carries the rule (for a TCP link, its node's fabric)
     * @throws IllegalStateException if called from inside an engine task
     */
    public boolean awaitHits(Fabric fabric, long n, long timeout, TimeUnit unit) {
        return signal(fabric.scheduler()).await(() -> hits.get() >= n, unit.toNanos(timeout));
    }

    private synchronized WaitSignal signal(Scheduler scheduler) {
        if (signal == null || signalScheduler != scheduler) {
            signalScheduler = scheduler;
            signal = scheduler.newSignal();
        }
        return signal;
    }

    /** True if the rule is active at {@code nowNanos} on the fabric's clock. */
    public boolean activeAt(long nowNanos) {
        return nowNanos >= fromNanos && nowNanos < untilNanos;
    }

    /** True if the rule applies to packet {@code p}, the {@code index}-th its direction carried (from 1). */
    public boolean matches(Packet p, long index) {
        return matcher.matches(p, index);
    }

    /**
     * Counts one application of the rule and tells its listeners and waiters; false once it has
     * applied {@link #times} times. Thread-safe.
     */
    public boolean tryHit() {
        while (true) {
            long h = hits.get();
            if (h >= maxHits) {
                return false;
            }
            if (hits.compareAndSet(h, h + 1)) {
                break;
            }
        }
        for (Runnable l : listeners) {
            l.run();
        }
        WaitSignal s = signal;
        if (s != null) {
            s.signalAll();
        }
        return true;
    }

    /**
     * The rule in a few words, without its hit count (so it is the same at every point of a run):
     * {@code "DROP p=0.1"}, {@code "DELAY p=1.0 50000ns"}, {@code "HOLD until 300000ns, max 1"}.
     * A capture comments the packets the rule acts on with it.
     */
    public String label() {
        StringBuilder sb = new StringBuilder().append(action);
        if (rewrite != null) {
            sb.append(' ').append(rewrite);
        }
        if (gate != null) {
            sb.append(" on ").append(gate);
        } else if (action == Action.HOLD) {
            sb.append(" until ").append(nanos).append("ns");
        }
        if (probability < 1.0) {
            sb.append(" p=").append(probability);
        }
        if (nanos > 0 && action != Action.HOLD) {
            sb.append(' ').append(nanos).append("ns");
        }
        if (fromNanos != Long.MIN_VALUE || untilNanos != Long.MAX_VALUE) {
            sb.append(" during [")
                    .append(fromNanos)
                    .append(", ")
                    .append(untilNanos)
                    .append(")ns");
        }
        if (maxHits < Long.MAX_VALUE) {
            sb.append(", max ").append(maxHits);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("FaultRule[").append(action);
        if (rewrite != null) {
            sb.append(' ').append(rewrite);
        }
        if (gate != null) {
            sb.append(" on ").append(gate);
        } else if (action == Action.HOLD) {
            sb.append(" until ").append(nanos).append("ns");
        }
        sb.append(", p=").append(probability);
        if (nanos > 0 && action != Action.HOLD) {
            sb.append(", ").append(nanos).append("ns");
        }
        if (fromNanos != Long.MIN_VALUE || untilNanos != Long.MAX_VALUE) {
            sb.append(", during [")
                    .append(fromNanos)
                    .append(", ")
                    .append(untilNanos)
                    .append(')');
        }
        if (maxHits < Long.MAX_VALUE) {
            sb.append(", max ").append(maxHits);
        }
        return sb.append(", hits=").append(hits.get()).append(']').toString();
    }
}
