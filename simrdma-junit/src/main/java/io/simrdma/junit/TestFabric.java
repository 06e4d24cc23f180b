package io.simrdma.junit;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.Counters;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.tcp.TcpConfig;
import io.simrdma.fabric.tcp.TcpNode;
import io.simrdma.provider.SimProvider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One test's fabric, as {@link SimFabricExtension} made it: its devices (named by
 * {@link SimFabricTest#devices()}), the DAT IAs opened on them, its faults and the checker that
 * watches it. Injected into test methods ({@code TestFabric net}); also its parts, by type.
 *
 * <p>In {@link FabricMode#TCP_LOOPBACK} each device is a {@link TcpNode} on 127.0.0.1 in a threaded
 * fabric of its own; {@link #fabric()} is then the first device's fabric and {@link #fabric(String)}
 * names one.
 *
 * <p>The extension closes everything at the end of the test; the test closes what it opens
 * itself. Thread safety: thread-safe.
 */
public final class TestFabric {

    private static final AtomicLong NEXT = new AtomicLong();

    private final FabricMode mode;
    private final DeviceProfile profile;
    private final long seed;
    private final List<String> names;
    private final OwnershipChecker checker;
    private final String id;
    private final Map<String, Fabric> fabrics = new LinkedHashMap<>();
    private final Map<String, TcpNode> nodes = new LinkedHashMap<>();
    private final Map<String, Device> devices = new LinkedHashMap<>();
    private final Map<String, InterfaceAdapter> ias = new LinkedHashMap<>();
    private final List<String> registered = new ArrayList<>();
    private final Faults faults;

    TestFabric(FabricMode mode, String profileName, long seed, List<String> names, OwnershipChecker checker) {
        this.mode = mode;
        this.profile = DeviceProfile.named(profileName);
        this.seed = seed;
        this.names = List.copyOf(names);
        this.checker = checker;
        this.id = "junit" + NEXT.incrementAndGet();
        if (names.isEmpty()) {
            throw new IllegalArgumentException("@SimFabricTest needs at least one device");
        }
        try {
            if (mode == FabricMode.TCP_LOOPBACK) {
                long s = seed;
                for (String n : names) {
                    Fabric f = Fabric.builder()
                            .name("simrdma-junit")
                            .threaded()
                            .seed(s++)
                            .observer(checker)
                            .build();
                    fabrics.put(n, f);
                    TcpNode node = TcpNode.start(
                            f,
                            TcpConfig.builder(n)
                                    .device(DeviceConfig.named(n).profile(profile))
                                    .build());
                    nodes.put(n, node);
                    devices.put(n, node.device());
                }
            } else {
                Fabric.Builder b = Fabric.builder().name(id).observer(checker);
                Fabric f = (mode == FabricMode.DETERMINISTIC
                                ? b.deterministic(seed)
                                : b.threaded().seed(seed))
                        .build();
                for (String n : names) {
                    fabrics.put(n, f);
                    devices.put(n, f.createDevice(DeviceConfig.named(n).profile(profile)));
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.faults = new Faults(this);
    }

    /** How the fabric runs. */
    public FabricMode mode() {
        return mode;
    }

    /** The profile of every device. */
    public DeviceProfile profile() {
        return profile;
    }

    /** The seed of the run (replays the run only in {@link FabricMode#DETERMINISTIC}). */
    public long seed() {
        return seed;
    }

    /** The fabric (in TCP mode, the first device's). */
    public Fabric fabric() {
        return fabrics.get(names.get(0));
    }

    /** The fabric device {@code name} lives on. */
    public Fabric fabric(String name) {
        device(name);
        return fabrics.get(name);
    }

    /** The devices' names, in order. */
    public List<String> deviceNames() {
        return names;
    }

    /**
     * The device named {@code name}.
     *
     * @throws IllegalArgumentException if the test has no such device
     */
    public Device device(String name) {
        Device d = devices.get(name);
        if (d == null) {
            throw new IllegalArgumentException("no device " + name + " in this test; its devices are " + names
                    + " (@SimFabricTest(devices = ...))");
        }
        return d;
    }

    /** The TCP node of device {@code name} ({@link FabricMode#TCP_LOOPBACK} only). */
    public TcpNode node(String name) {
        device(name);
        TcpNode n = nodes.get(name);
        if (n == null) {
            throw new IllegalStateException("device " + name + " is not a TCP node: the fabric is " + mode);
        }
        return n;
    }

    /** Counters of device {@code name}. */
    public Counters counters(String name) {
        return device(name).counters();
    }

    /** The faults of this fabric. */
    public Faults faults() {
        return faults;
    }

    /** The checker watching the fabric. */
    public OwnershipChecker checker() {
        return checker;
    }

    /**
     * The DAT IA name of device {@code name} ({@code sim:<fabric>/<device>}), to open more IAs on it
     * with {@link Dat#openIa}. The test closes those itself.
     */
    public synchronized String iaName(String name) {
        Device d = device(name);
        String fabricName = mode == FabricMode.TCP_LOOPBACK ? id + "-" + name : id;
        if (!registered.contains(fabricName)) {
            SimProvider.registerFabric(fabricName, fabrics.get(name));
            registered.add(fabricName);
        }
        return "sim:" + fabricName + "/" + d.name();
    }

    /**
     * A DAT IA on device {@code name}, opened on first use (dat_ia_open(3DAT), an asynchronous EVD of
     * 8 events) and closed by the extension after the test, after the check that everything the test
     * created on it was freed.
     */
    public synchronized InterfaceAdapter ia(String name) {
        InterfaceAdapter ia = ias.get(name);
        if (ia == null) {
            ia = Dat.openIa(iaName(name), 8);
            ias.put(name, ia);
        }
        return ia;
    }

    /** The IAs opened through {@link #ia}, by device name. */
    synchronized Map<String, InterfaceAdapter> openedIas() {
        return new LinkedHashMap<>(ias);
    }

    /** Closes the IAs opened through {@link #ia} (abruptly: freeing what the test left). */
    synchronized void closeIas() {
        for (InterfaceAdapter ia : ias.values()) {
            try {
                ia.close(CloseFlag.ABRUPT);
            } catch (RuntimeException e) {
                // already closed by the test
            }
        }
        ias.clear();
    }

    /** Closes IAs, forgets registered fabrics, closes nodes and fabrics. */
    synchronized void close() {
        closeIas();
        for (String r : registered) {
            SimProvider.unregisterFabric(r);
        }
        registered.clear();
        for (TcpNode n : nodes.values()) {
            n.close();
        }
        for (Fabric f : new java.util.LinkedHashSet<>(fabrics.values())) {
            f.close();
        }
    }

    @Override
    public String toString() {
        return mode.name().toLowerCase(java.util.Locale.ROOT) + " fabric, profile " + profile.name() + ", seed " + seed
                + ", devices " + names;
    }
}
