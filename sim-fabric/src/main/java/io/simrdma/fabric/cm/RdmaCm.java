package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.PortState;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.wire.Gid;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection manager of a fabric, with librdmacm's API (rdma_cm(7)): event channels,
 * communication ids, address translation and rdma_create_ep. One instance per fabric
 * ({@link #of(Fabric)}); under it, one IB CM agent per device speaks the CM protocol as
 * management datagrams over the fabric's links, so CM traffic can be lost, delayed and traced
 * like any other.
 *
 * <pre>{@code
 * RdmaCm cm = RdmaCm.of(fabric);
 * // passive
 * CmId listen = cm.createEp(cm.getAddrInfo("b", "7471", AddrInfo.passiveHints()).get(0), null, qpAttr);
 * listen.listen(8);
 * // active
 * CmId id = cm.createEp(cm.getAddrInfo("b", "7471", AddrInfo.active()).get(0), null, qpAttr);
 * id.connect(ConnParam.withPrivateData(hello));
 * CmId conn = listen.getRequest();
 * conn.accept(null);
 * }</pre>
 *
 * <p>Thread safety: thread-safe.
 */
public final class RdmaCm implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCm.class);
    static final InetAddress WILDCARD = inet(new byte[16]);

    private final Fabric fabric;
    private final CmConfig config;
    private final SplittableRandom random;
    private final Map<Device, CmAgent> agents = new ConcurrentHashMap<>();
    private final Map<Device, ProtectionDomain> defaultPds = new LinkedHashMap<>();
    private final PortTable ports = new PortTable();
    private final Set<CmId> ids = new LinkedHashSet<>();
    private final Set<CmEventChannel> channels = new LinkedHashSet<>();
    private final Set<Integer> commIds = new HashSet<>();
    private int nextHandle = 1;
    private volatile boolean closed;

    private RdmaCm(Fabric fabric, CmConfig config) {
        this.fabric = fabric;
        this.config = config;
        this.random = fabric.scheduler().isDeterministic()
                ? fabric.deterministicScheduler().newRandom()
                : new SplittableRandom(fabric.seed() ^ 0x5EED_C0DEL);
    }

    /**
     * The fabric's connection manager, created with {@link CmConfig#defaults()} on first use. Every
     * device the fabric has at the call gets its CM agent (see {@link #of(Fabric, CmConfig)}).
     */
    public static RdmaCm of(Fabric fabric) {
        return fabric.service(RdmaCm.class, f -> new RdmaCm(f, CmConfig.defaults()))
                .serveDevices();
    }

    /**
     * The fabric's connection manager, created with {@code config} on first use. Every device the
     * fabric has at the call gets its CM agent, as the kernel CM runs on every node whose HCA is
     * up: the device answers connection requests from then on, with a reject (invalid service ID,
     * IBA 12.6.7.2) when nobody listens on the service, instead of dropping them until something
     * on it uses the connection manager.
     *
     * @throws IllegalStateException if it already exists with another configuration
     */
    public static RdmaCm of(Fabric fabric, CmConfig config) {
        Objects.requireNonNull(config, "config");
        RdmaCm cm = fabric.service(RdmaCm.class, f -> new RdmaCm(f, config));
        if (!cm.config.equals(config)) {
            throw new IllegalStateException(
                    "the connection manager of " + fabric.name() + " already runs with " + cm.config);
        }
        return cm.serveDevices();
    }

    /** Starts the CM agent of every open device of the fabric that has none yet. */
    private RdmaCm serveDevices() {
        for (Device d : fabric.devices()) {
            if (!d.isClosed()) {
                agent(d);
            }
        }
        return this;
    }

    public Fabric fabric() {
        return fabric;
    }

    public CmConfig config() {
        return config;
    }

    /** Creates an event channel (rdma_create_event_channel(3)). */
    public CmEventChannel createEventChannel() {
        return createEventChannel(null);
    }

    /**
     * Creates an event channel whose events are handed to {@code handler} as they happen, on the
     * executor of the device they concern, instead of being queued for {@link CmEventChannel#getEvent}.
     * For software layered on the CM (the DAT provider): the handler must not block and must
     * acknowledge each event it is given. Null gives a queued channel.
     */
    public CmEventChannel createEventChannel(java.util.function.Consumer<CmEvent> handler) {
        checkOpen();
        CmEventChannel ch = new CmEventChannel(this, handler);
        synchronized (this) {
            channels.add(ch);
        }
        return ch;
    }

    /**
     * Creates a communication id (rdma_create_id(3)); with a null channel the id is synchronous.
     */
    public CmId createId(CmEventChannel channel, Object context, PortSpace ps) {
        checkOpen();
        Objects.requireNonNull(ps, "port space");
        if (channel != null) {
            channel.attach();
        }
        synchronized (this) {
            CmId id = new CmId(this, channel, context, ps, nextHandle++);
            ids.add(id);
            return id;
        }
    }

    /**
     * Translates a node and service into RDMA addresses (rdma_getaddrinfo(3)). The node is a
     * device name of the fabric, or a numeric GID / IPv6 / IPv4 address; the service is a port
     * number. With {@code hints.passive()} (RAI_PASSIVE) the result is for a listening side, its
     * source the node's address or the wildcard address.
     *
     * @throws VerbsException EINVAL if node, service and hints are all null or the service is not a
     *                        port; ENOENT (EAI_NONAME) for a node name no device has
     */
    public List<AddrInfo> getAddrInfo(String node, String service, AddrInfo hints) {
        if (node == null && service == null && hints == null) {
            throw new VerbsException(Errno.EINVAL, "rdma_getaddrinfo needs a node, a service or hints");
        }
        boolean passive = hints != null && hints.passive();
        PortSpace ps = hints != null ? hints.portSpace() : PortSpace.TCP;
        int port = 0;
        if (service != null) {
            try {
                port = Integer.parseInt(service.trim());
            } catch (NumberFormatException e) {
                throw new VerbsException(Errno.EINVAL, "service '" + service + "' is not a port number (EAI_SERVICE)");
            }
            if (port < 0 || port > 0xFFFF) {
                throw new VerbsException(Errno.EINVAL, "port " + port + " out of range (EAI_SERVICE)");
            }
        }
        if (passive) {
            InetSocketAddress src = node != null
                    ? new InetSocketAddress(inetOf(resolveNode(node)), port)
                    : hints != null && hints.srcAddr() != null
                            ? hints.srcAddr()
                            : new InetSocketAddress(WILDCARD, port);
            return List.of(new AddrInfo(true, ps, src, null, null));
        }
        InetSocketAddress dst;
        if (node != null) {
            dst = new InetSocketAddress(inetOf(resolveNode(node)), port);
        } else if (hints != null && hints.dstAddr() != null) {
            dst = hints.dstAddr();
        } else {
            throw new VerbsException(Errno.EINVAL, "an active rdma_getaddrinfo needs a node or hints.dstAddr");
        }
        return List.of(new AddrInfo(false, ps, hints != null ? hints.srcAddr() : null, dst, node));
    }

    /** The GID of a node: a device name, a remote node a transport knows, or a numeric address. */
    Gid resolveNode(String node) {
        Gid g = fabric.resolve(node);
        if (g == null) {
            throw new VerbsException(
                    Errno.ENOENT, "node '" + node + "' is not known in fabric " + fabric.name() + " (EAI_NONAME)");
        }
        return g;
    }

    /**
     * Creates an id from {@code res} (rdma_create_ep(3)). Active ({@code res} not passive): the
     * address and route are resolved here, so {@link CmId#connect} may follow at once, and a QP
     * is created on {@code pd} (or the device's default PD) when {@code qpInitAttr} is given.
     * Passive: the id is bound to the source address and {@code pd} and {@code qpInitAttr} are
     * saved; each id {@link CmId#getRequest} returns gets a QP made with them. The id is
     * synchronous until {@link CmId#migrate} moves it to a channel. Release it with
     * {@link CmId#destroyEp()}.
     */
    public CmId createEp(AddrInfo res, ProtectionDomain pd, QpInitAttr qpInitAttr) {
        Objects.requireNonNull(res, "res");
        CmId id = createId(null, null, res.portSpace());
        try {
            if (res.passive()) {
                id.bind(res.srcAddr() != null ? res.srcAddr() : new InetSocketAddress(WILDCARD, 0));
                id.markEp(pd, qpInitAttr);
            } else {
                if (res.dstAddr() == null) {
                    throw new VerbsException(Errno.EINVAL, "active address information without a destination");
                }
                id.resolveAddr(res.srcAddr(), res.dstAddr(), 2000);
                id.resolveRoute(2000);
                id.markEp(pd, qpInitAttr);
                if (qpInitAttr != null) {
                    id.createQp(pd, qpInitAttr);
                }
            }
            return id;
        } catch (RuntimeException e) {
            try {
                id.destroyEp();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The socket address of {@code device} with {@code port}: its GID as an IPv6 address. */
    public static InetSocketAddress addressOf(Device device, int port) {
        return new InetSocketAddress(inetOf(device.gid()), port);
    }

    // ------------------------------------------------------------------ internals

    CmAgent agent(Device d) {
        return agents.computeIfAbsent(d, dev -> new CmAgent(this, dev));
    }

    synchronized ProtectionDomain defaultPd(Device d) {
        return defaultPds.computeIfAbsent(d, Device::allocPd);
    }

    /** The device an unbound id uses to reach {@code dst}: the destination itself (loopback), else the first active one. */
    Device chooseDevice(Gid dst) {
        Device own = fabric.device(dst);
        if (own != null && !own.isClosed()) {
            return own;
        }
        Device first = null;
        for (Device d : fabric.devices()) {
            if (d.isClosed()) {
                continue;
            }
            if (d.portState() == PortState.ACTIVE) {
                return d;
            }
            if (first == null) {
                first = d;
            }
        }
        return first;
    }

    /** Reserves {@code port} (0: a free one) for {@code id} on {@code device} (null: every device); see {@link PortTable#bind}. */
    int bindPort(CmId id, Device device, int port) {
        return ports.bind(id, device, port);
    }

    /** The bound {@code id} listens: its port takes REQs, and the devices that may receive them run a CM agent. */
    void listen(CmId id) {
        ports.listen(id);
        // The IB CM agent of a listening device must exist to receive REQs: a peer that is not in
        // this fabric (another JVM) never made it by connecting from here.
        if (id.device != null) {
            agent(id.device);
        } else {
            for (Device d : fabric.devices()) {
                if (!d.isClosed()) {
                    agent(d);
                }
            }
        }
    }

    /** The id listening on {@code port} of {@code device}: one bound to the device first, then a wildcard one. */
    CmId findListener(PortSpace ps, Device device, int port) {
        return ports.findListener(ps, device, port);
    }

    /** A new id for a connection request arriving at {@code listener}. */
    CmId newChild(CmId listener, Device device, int port) {
        CmEventChannel ch = listener.channel();
        CmId child = createId(ch, listener.context(), listener.ps);
        child.device = device;
        child.local = new InetSocketAddress(inetOf(device.gid()), port);
        return child;
    }

    /** An id is gone: free its port and listener entries. */
    void released(CmId id) {
        ports.release(id);
        synchronized (this) {
            ids.remove(id);
            commIds.remove(id.connection.localCommId);
        }
    }

    /** The ids bound to {@code d} that are not destroyed, in creation order. */
    synchronized List<CmId> idsOn(Device d) {
        List<CmId> out = new ArrayList<>();
        for (CmId id : ids) {
            if (id.device == d && id.state != CmId.State.DESTROYED) {
                out.add(id);
            }
        }
        return out;
    }

    boolean isClosed() {
        return closed;
    }

    void channelDestroyed(CmEventChannel ch) {
        synchronized (this) {
            channels.remove(ch);
        }
    }

    /** A fresh, non-zero local communication id (IBA 12.6.2). */
    synchronized int newCommId() {
        while (true) {
            int id = random.nextInt();
            if (id != 0 && commIds.add(id)) {
                return id;
            }
        }
    }

    /** A random starting PSN. */
    synchronized int newPsn() {
        return random.nextInt() & 0xFFFFFF;
    }

    static Gid gidOf(InetSocketAddress a) {
        InetAddress ip = a.getAddress();
        if (ip == null) {
            throw new VerbsException(Errno.EADDRNOTAVAIL, "unresolved address " + a);
        }
        byte[] raw = ip.getAddress();
        if (ip instanceof Inet4Address) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            System.arraycopy(raw, 0, mapped, 12, 4);
            raw = mapped;
        }
        return Gid.of(raw);
    }

    /** The IPv6 address that stands for a GID in rdma_cm addresses. */
    public static InetAddress inetOf(Gid g) {
        return inet(g.toBytes());
    }

    private static InetAddress inet(byte[] b) {
        try {
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "the connection manager of " + fabric.name() + " is closed");
        }
    }

    /**
     * Closes the connection manager with its fabric: every id, channel and default PD is released
     * without waiting for acknowledgements.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<CmId> all;
        synchronized (this) {
            all = new ArrayList<>(ids);
        }
        for (CmId id : all) {
            try {
                if (id.qp() != null) {
                    id.destroyQp();
                }
            } catch (RuntimeException e) {
                LOG.debug("closing: QP of {} not destroyed: {}", id, e.getMessage());
            }
        }
        for (Map.Entry<Device, ProtectionDomain> e : new ArrayList<>(defaultPds.entrySet())) {
            try {
                e.getValue().dealloc();
            } catch (RuntimeException ex) {
                LOG.debug("closing: default PD of {} not freed: {}", e.getKey().name(), ex.getMessage());
            }
        }
        for (Device d : agents.keySet()) {
            d.setMadHandler(null);
        }
    }
}
