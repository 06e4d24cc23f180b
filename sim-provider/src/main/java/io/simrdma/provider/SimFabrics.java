package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.cm.CmConfig;
import io.simrdma.fabric.cm.RdmaCm;
import io.simrdma.fabric.tcp.TcpConfig;
import io.simrdma.fabric.tcp.TcpNode;
import io.simrdma.fabric.tcp.TlsCredentials;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ObjIntConsumer;

/**
 * The fabrics IAs run on. An in-process fabric named by a {@code sim:} IA is created on first use
 * and closed when its last IA closes; a fabric registered by the application stays the
 * application's. A {@code simtcp:} IA runs on a TCP node: a threaded fabric of its own with one
 * device, shared by the IAs that name the same listen address, closed with the last of them.
 *
 * <p>Thread safety: all methods synchronized.
 */
final class SimFabrics {

    /** A fabric in use, and for a TCP node the node. */
    static final class Entry {
        final String key;
        final Fabric fabric;
        final TcpNode node;
        final boolean owned;
        int users;
        /** The fault profile of the fabric's links (the creating IA name's), or null. */
        LinkFaults faults;
        /** The trace digest the creating IA name asked for, or null. */
        TraceDigest digest;

        Entry(String key, Fabric fabric, TcpNode node, boolean owned) {
            this.key = key;
            this.fabric = fabric;
            this.node = node;
            this.owned = owned;
        }

        /** The IA's device: the TCP node's, or the named device of the in-process fabric (created if needed). */
        Device device(IaName n) {
            return node != null ? node.device() : SimFabrics.device(fabric, n);
        }

        /** The fabric's connection manager: {@link #TCP_CM} on a TCP node, the CM defaults otherwise. */
        RdmaCm cm() {
            return node != null ? RdmaCm.of(fabric, TCP_CM) : RdmaCm.of(fabric);
        }
    }

    /**
     * The connection manager of a TCP node: an ACK timeout of 4.096 us x 2^17 (537 ms) for its QPs,
     * so the 8 tries of retry_cnt 7 span 4.3 s, as long as the CM takes to call a peer unreachable.
     * Its packets cross real sockets between JVMs that a loaded host can stall for longer than the
     * in-process default (67 ms, 0.5 s in all) would wait.
     */
    static final CmConfig TCP_CM = CmConfig.defaults().withAckTimeout(17);

    /** The device limits an IA name can set: option name and DeviceConfig setter (mtu, in bytes, is apart). */
    static final Map<String, ObjIntConsumer<DeviceConfig>> LIMITS = limits();

    private static final Map<String, Entry> FABRICS = new HashMap<>();
    private static int anonymousNodes;

    private SimFabrics() {}

    static synchronized void register(String name, Fabric fabric) {
        Entry e = FABRICS.get(name);
        if (e != null && e.fabric != fabric) {
            throw DatException.invalidParameter("a fabric named " + name + " is already in use by the sim provider");
        }
        if (e == null) {
            FABRICS.put(name, new Entry(name, fabric, null, false));
        }
    }

    static synchronized void unregister(String name) {
        Entry e = FABRICS.get(name);
        if (e != null && !e.owned) {
            FABRICS.remove(name);
        }
    }

    /** The fabric of {@code n}, created if needed; counts one more user. */
    static synchronized Entry acquire(IaName n) {
        if (n.tcp()) {
            return acquireNode(n);
        }
        Entry e = FABRICS.get(n.fabric());
        if (e == null) {
            LinkFaults faults = LinkFaults.of(n);
            boolean digest = n.traceDigest();
            Fabric f = n.threaded()
                    ? Fabric.builder()
                            .name(n.fabric())
                            .threaded()
                            .seed(n.seed())
                            .build()
                    : Fabric.builder().name(n.fabric()).deterministic(n.seed()).build();
            e = new Entry(n.fabric(), f, null, true);
            e.faults = faults;
            if (digest) {
                e.digest = new TraceDigest();
                f.addTraceListener(e.digest);
            }
            FABRICS.put(n.fabric(), e);
        }
        e.users++;
        return e;
    }

    private static Entry acquireNode(IaName n) {
        InetSocketAddress listen = n.listen();
        String key = listen.getPort() == 0 ? TcpKey.anonymous(++anonymousNodes) : TcpKey.of(listen);
        Entry e = FABRICS.get(key);
        if (e != null) {
            if (!e.fabric.name().equals(n.fabric())) {
                throw DatException.invalidParameter("the TCP node on " + listen + " is in fabric '" + e.fabric.name()
                        + "', not '" + n.fabric() + "'");
            }
            e.users++;
            return e;
        }
        TcpConfig.Builder c = TcpConfig.builder(n.device())
                .listen(listen.getHostString(), listen.getPort())
                .device(deviceConfig(n))
                .insecure(n.insecure());
        String tls = n.options().get("tls");
        if (tls != null) {
            try {
                c.tls(TlsCredentials.load(Path.of(tls)));
            } catch (IllegalArgumentException ex) { // InvalidPathException too
                throw DatException.invalidParameter("IA name '" + n.redacted() + "': option tls: " + ex.getMessage());
            }
        }
        TcpConfig config;
        try {
            config = c.build();
        } catch (IllegalArgumentException ex) {
            throw DatException.invalidParameter("IA name '" + n.redacted() + "': " + ex.getMessage());
        }
        Fabric f = Fabric.builder().name(n.fabric()).threaded().seed(n.seed()).build();
        TcpNode node;
        try {
            node = TcpNode.start(f, config);
        } catch (UncheckedIOException ex) {
            // the message names the address and why: in use, not this host's, no permission
            f.close();
            throw new DatException(
                    DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE, ex.getMessage(), ex);
        } catch (RuntimeException ex) {
            f.close();
            throw new DatException(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_DEVICE,
                    "cannot start the TCP node on " + listen.getHostString() + ":" + listen.getPort() + ": "
                            + ex.getMessage(),
                    ex);
        }
        e = new Entry(key, f, node, true);
        e.users = 1;
        FABRICS.put(key, e);
        return e;
    }

    /** An IA opened {@code device} on {@code e}'s fabric: its links get the fabric's fault profile. */
    static synchronized void deviceOpened(Entry e, Device device) {
        if (e.faults != null && e.node == null) {
            e.faults.apply(e.fabric, device);
        }
    }

    /** The device of {@code n} on an in-process {@code fabric}, created with the name's limits if needed. */
    static Device device(Fabric fabric, IaName n) {
        synchronized (SimFabrics.class) {
            Device d = fabric.device(n.device());
            if (d != null) {
                return d;
            }
            try {
                return fabric.createDevice(deviceConfig(n));
            } catch (IllegalArgumentException e) {
                throw DatException.invalidParameter(e.getMessage());
            }
        }
    }

    /** The device configuration an IA name asks for. */
    private static DeviceConfig deviceConfig(IaName n) {
        DeviceConfig c = DeviceConfig.named(n.device()).profile(n.profile());
        try {
            for (Map.Entry<String, ObjIntConsumer<DeviceConfig>> l : LIMITS.entrySet()) {
                if (n.options().containsKey(l.getKey())) {
                    l.getValue().accept(c, n.intOption(l.getKey(), 0));
                }
            }
            if (n.options().containsKey("mtu")) {
                c.maxMtu(Mtu.ofBytes(n.intOption("mtu", 4096)));
            }
        } catch (IllegalArgumentException e) {
            throw DatException.invalidParameter("IA name '" + n.redacted() + "': " + e.getMessage());
        }
        return c;
    }

    private static Map<String, ObjIntConsumer<DeviceConfig>> limits() {
        Map<String, ObjIntConsumer<DeviceConfig>> limits = new HashMap<>();
        limits.put("maxQp", DeviceConfig::maxQp);
        limits.put("maxCq", DeviceConfig::maxCq);
        limits.put("maxCqe", DeviceConfig::maxCqe);
        limits.put("maxMr", DeviceConfig::maxMr);
        limits.put("maxPd", DeviceConfig::maxPd);
        limits.put("maxMw", DeviceConfig::maxMw);
        limits.put("maxSrq", DeviceConfig::maxSrq);
        limits.put("maxQpWr", DeviceConfig::maxQpWr);
        limits.put("maxSge", DeviceConfig::maxSge);
        limits.put("maxSrqWr", DeviceConfig::maxSrqWr);
        limits.put("maxInline", DeviceConfig::maxInlineData);
        return Collections.unmodifiableMap(limits);
    }

    /** One user of {@code e} is gone; an owned fabric with no user left is closed (its TCP node with it). */
    static void release(Entry e) {
        boolean close = false;
        synchronized (SimFabrics.class) {
            e.users--;
            if (e.users <= 0 && e.owned && FABRICS.get(e.key) == e) {
                FABRICS.remove(e.key);
                close = true;
            }
        }
        if (close) {
            e.fabric.close();
        }
    }

    /** Registry keys of TCP nodes. */
    private static final class TcpKey {
        static String of(InetSocketAddress listen) {
            return IaName.TCP_SCHEME + listen.getHostString() + ":" + listen.getPort();
        }

        static String anonymous(int n) {
            return IaName.TCP_SCHEME + "#" + n;
        }
    }
}
