package io.simrdma.junit;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.tcp.TcpNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The faults of a test's fabric: {@link #add(String)} applies a {@link FaultScript} to the links
 * between the test's devices, whatever the links are (in-process links of one fabric, or the TCP
 * links of {@link FabricMode#TCP_LOOPBACK} nodes), and returns a handle to wait until it fired.
 *
 * <pre>{@code
 * ScriptedFault lost = faults.add("drop 3rd READ_RESPONSE");
 * ... the application reads ...
 * lost.awaitFired(1, TimeUnit.SECONDS);
 * }</pre>
 *
 * <p>Windows in scripts count from the moment the script is added. In-process, one rule serves
 * every link the script names, so an nth counts over all of them; on TCP each node gets its own
 * rule for packets it sends, and an nth counts per node.
 *
 * <p>Thread-safe.
 */
public final class Faults {

    private final TestFabric net;
    private final List<ScriptedFault> added = new CopyOnWriteArrayList<>();

    Faults(TestFabric net) {
        this.net = net;
    }

    /** Parses one script ({@link FaultScript#parse}) and applies it. */
    public ScriptedFault add(String script) {
        return add(FaultScript.parse(script));
    }

    /**
     * Applies {@code script} to the links between the test's devices.
     *
     * @throws IllegalArgumentException if the script names a device the test does not have
     */
    public ScriptedFault add(FaultScript script) {
        List<String> names = net.deviceNames();
        if (script.deviceX() != null) {
            for (String n : new String[] {script.deviceX(), script.deviceY()}) {
                if (!names.contains(n)) {
                    throw new IllegalArgumentException(
                            "fault script '" + script + "' names device " + n + "; the test's devices are " + names);
                }
            }
        }
        List<FaultRule> rules = new ArrayList<>();
        if (net.mode() == FabricMode.TCP_LOOPBACK) {
            for (String from : names) {
                for (String to : names) {
                    if (from.equals(to) || !selects(script, from, to)) {
                        continue;
                    }
                    TcpNode node = net.node(from);
                    FaultRule rule = rule(script, node.fabric(), script.newMatcher());
                    node.link(net.node(to).gid()).addFault(rule);
                    rules.add(rule);
                }
            }
        } else {
            Fabric f = net.fabric();
            PacketMatcher m = script.newMatcher();
            if (script.directed()) {
                m = m.and(PacketMatcher.from(net.device(script.deviceX())));
            }
            FaultRule rule = rule(script, f, m);
            for (int i = 0; i < names.size(); i++) {
                for (int j = i + 1; j < names.size(); j++) {
                    if (selects(script, names.get(i), names.get(j)) || selects(script, names.get(j), names.get(i))) {
                        Device x = net.device(names.get(i));
                        Device y = net.device(names.get(j));
                        f.link(x, y).addFault(rule);
                    }
                }
            }
            rules.add(rule);
        }
        ScriptedFault sf = new ScriptedFault(script, rules, net.fabric());
        added.add(sf);
        return sf;
    }

    /** Every script added so far, in order. */
    public List<ScriptedFault> scripts() {
        return List.copyOf(added);
    }

    private static boolean selects(FaultScript s, String from, String to) {
        if (s.deviceX() == null) {
            return true;
        }
        if (s.directed()) {
            return s.deviceX().equals(from) && s.deviceY().equals(to);
        }
        return (s.deviceX().equals(from) && s.deviceY().equals(to))
                || (s.deviceX().equals(to) && s.deviceY().equals(from));
    }

    /** The sim-fabric rule of {@code s} on the clock of {@code clock}. */
    private static FaultRule rule(FaultScript s, Fabric clock, PacketMatcher m) {
        FaultRule r = switch (s.action()) {
            case DROP -> FaultRule.drop(m, s.probability());
            case DELAY -> FaultRule.delay(m, s.probability(), s.delayNanos());
            case DUPLICATE -> FaultRule.duplicate(m, s.probability());
            case CORRUPT -> FaultRule.corrupt(m, s.probability());
        };
        if (s.hasWindow()) {
            long now = clock.now();
            r = r.during(now + s.windowStartNanos(), now + s.windowEndNanos());
        }
        if (s.nth() > 0) {
            r = r.times(1);
        }
        return r;
    }
}
