package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.sched.EngineTimer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fault profile an in-process fabric's links get from the IA name that creates the fabric:
 * {@code loss=<p>} (a share of request packets and connection-manager datagrams lost; responses
 * arrive), {@code dup=<p>} (packets delivered twice), {@code reorder=<p>} (packets held back up to
 * 50 us so that later ones overtake them), {@code delay=<p>} (packets 2 ms late), and
 * {@code flap=<period ms>:<down ms>} (every link goes down for the second time once per the first).
 * Each link between two devices of the fabric, and each device's loopback, gets the rules when the
 * second of its devices is opened. Decisions draw on the fabric's seed, so a deterministic fabric
 * replays its faults.
 *
 * <p>Thread safety: {@link #apply} is called under SimFabrics' lock.
 */
final class LinkFaults {

    /** The IA-name options of a fault profile. */
    static final Set<String> OPTIONS = Set.of("loss", "dup", "reorder", "delay", "flap");

    /** How late a delayed packet arrives. */
    static final long DELAY_NANOS = 2_000_000;
    /** The longest a reordered packet is held back. */
    static final long REORDER_NANOS = 50_000;

    private final double loss;
    private final double dup;
    private final double reorder;
    private final double delay;
    private final long flapPeriodNanos;
    private final long flapDownNanos;
    private final Map<Link, Boolean> configured = new IdentityHashMap<>();
    private final List<EngineTimer> timers = new ArrayList<>();

    private LinkFaults(
            double loss, double dup, double reorder, double delay, long flapPeriodNanos, long flapDownNanos) {
        this.loss = loss;
        this.dup = dup;
        this.reorder = reorder;
        this.delay = delay;
        this.flapPeriodNanos = flapPeriodNanos;
        this.flapDownNanos = flapDownNanos;
    }

    /**
     * The profile an IA name asks for, or null if it names no fault.
     *
     * @throws DatException DAT_INVALID_PARAMETER for a probability outside 0..1 or a malformed flap
     */
    static LinkFaults of(IaName n) {
        Map<String, String> o = n.options();
        if (Collections.disjoint(o.keySet(), OPTIONS)) {
            return null;
        }
        long period = 0;
        long down = 0;
        String flap = o.get("flap");
        if (flap != null) {
            String[] f = flap.split(":");
            try {
                period = Long.parseLong(f[0]) * 1_000_000;
                down = f.length == 2 ? Long.parseLong(f[1]) * 1_000_000 : -1;
            } catch (NumberFormatException e) {
                down = -1;
            }
            if (f.length != 2 || period <= 0 || down <= 0 || down >= period) {
                throw DatException.invalidParameter(
                        "IA name option flap must be <period ms>:<down ms> with 0 < down < " + "period, not " + flap);
            }
        }
        return new LinkFaults(p(o, "loss"), p(o, "dup"), p(o, "reorder"), p(o, "delay"), period, down);
    }

    private static double p(Map<String, String> o, String key) {
        String v = o.get(key);
        if (v == null) {
            return 0;
        }
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            d = -1;
        }
        if (!(d >= 0 && d <= 1)) {
            throw DatException.invalidParameter("IA name option " + key + " must be a probability in 0..1, not " + v);
        }
        return d;
    }

    /** Gives every link between {@code device} and the fabric's devices (itself included) the profile's faults. */
    void apply(Fabric fabric, Device device) {
        for (Device other : fabric.devices()) {
            Link link = fabric.link(device, other);
            if (configured.put(link, Boolean.TRUE) != null) {
                continue;
            }
            if (loss > 0) {
                link.addFault(FaultRule.drop(PacketMatcher.requests().or(PacketMatcher.managementDatagrams()), loss));
            }
            if (dup > 0) {
                link.addFault(FaultRule.duplicate(PacketMatcher.any(), dup));
            }
            if (reorder > 0) {
                link.addFault(FaultRule.reorder(PacketMatcher.any(), reorder, REORDER_NANOS));
            }
            if (delay > 0) {
                link.addFault(FaultRule.delay(PacketMatcher.any(), delay, DELAY_NANOS));
            }
            if (flapPeriodNanos > 0) {
                flap(link, device);
            }
        }
    }

    /** Takes the link down for flapDown every flapPeriod, on the device's executor, for as long as the fabric runs. */
    private void flap(Link link, Device device) {
        boolean[] up = {true};
        EngineTimer[] t = new EngineTimer[1];
        t[0] = new EngineTimer(device.executor(), "flap " + link, () -> {
            up[0] = !up[0];
            link.setUp(up[0]);
            t[0].start(up[0] ? flapPeriodNanos - flapDownNanos : flapDownNanos);
        });
        t[0].start(flapPeriodNanos - flapDownNanos);
        timers.add(t[0]);
    }
}
