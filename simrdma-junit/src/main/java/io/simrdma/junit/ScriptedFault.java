package io.simrdma.junit;

import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fault script applied to a test's fabric ({@link Faults#add}): the sim-fabric rules it compiled to,
 * and how often they fired.
 *
 * <p>Thread-safe.
 */
public final class ScriptedFault {

    private final FaultScript script;
    private final List<FaultRule> rules;
    private final Fabric clock;
    private final WaitSignal signal;

    ScriptedFault(FaultScript script, List<FaultRule> rules, Fabric clock) {
        this.script = script;
        this.rules = List.copyOf(rules);
        this.clock = clock;
        this.signal = clock.scheduler().newSignal();
        for (FaultRule r : this.rules) {
            r.onHit(signal::signalAll);
        }
    }

    /** The script. */
    public FaultScript script() {
        return script;
    }

    /** The sim-fabric rules it compiled to (one per clock it runs on). */
    public List<FaultRule> rules() {
        return rules;
    }

    /** How many packets the script has acted on so far. */
    public long hits() {
        long n = 0;
        for (FaultRule r : rules) {
            n += r.hits();
        }
        return n;
    }

    /** True once the script has acted on a packet. */
    public boolean fired() {
        return hits() > 0;
    }

    /**
     * Waits until the script has acted on at least {@code n} packets, for at most {@code timeout} on the
     * fabric's clock (under the deterministic scheduler the wait runs the fabric in virtual time, as a
     * wait for a completion does); says whether it has.
     */
    public boolean awaitHits(long n, long timeout, TimeUnit unit) {
        return signal.await(() -> hits() >= n, unit.toNanos(timeout));
    }

    /**
     * Waits until the script has fired once, failing with an {@link AssertionError} that names the
     * script if it has not within {@code timeout} of fabric time.
     */
    public ScriptedFault awaitFired(long timeout, TimeUnit unit) {
        if (!awaitHits(1, timeout, unit)) {
            throw new AssertionError("fault script '" + script + "' did not fire within " + timeout + " "
                    + unit.name().toLowerCase(java.util.Locale.ROOT) + " of fabric time (clock at " + clock.now()
                    + " ns)");
        }
        return this;
    }

    @Override
    public String toString() {
        return script + " (" + hits() + " hits)";
    }
}
