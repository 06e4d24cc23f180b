package io.simrdma.fabric.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.internal.device.DeviceImpl;
import io.simrdma.fabric.internal.device.FabricImpl;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.internal.link.RemoteTransport;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.ThreadedScheduler;
import io.simrdma.fabric.wire.Gid;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device of a threaded fabric that other JVMs and hosts reach over TCP: a node. It listens on
 * a socket address (127.0.0.1 and an ephemeral port unless configured otherwise), and reaches
 * other nodes by theirs: the QP and CM traffic of a pair of nodes shares one TCP connection
 * between TLS nodes, and goes over the connection each plain node dialled ({@link TcpLink}). Its device's engine runs on the Netty event loop of its sockets, so
 * a packet goes from the socket to the engine without changing threads.
 * <pre>{@code
 * try (Fabric fabric = Fabric.builder().name("lab").threaded().build()) {
 *     TcpNode node = TcpNode.start(fabric, TcpConfig.builder("a").build());
 *     RdmaCm cm = RdmaCm.of(fabric);
 *     CmId id = cm.createEp(cm.getAddrInfo("127.0.0.1:7000", "7471", AddrInfo.active()).get(0), null, attr);
 *     id.connect(null);                  // to the node listening on 127.0.0.1:7000, port space port 7471
 *     ...
 * }                                      // closing the fabric closes the node
 * }</pre>
 *
 * <p><b>Addresses.</b> A node's GID encodes its listen address, so that any node routes to it
 * without a lookup: the unique local IPv6 address
 * <pre>
 *   fd53:494d:0000:0000:0000:PPPP:AAAA:AAAA      ("SIM" in the ULA prefix fd00::/8)
 *   bytes 0-3 fd 53 49 4d, bytes 4-9 zero, bytes 10-11 the TCP port, bytes 12-15 the IPv4 address
 * </pre>
 * e.g. {@code fd53:494d::1b58:7f00:1} is 127.0.0.1:7000. {@link #resolve} accepts "host:port"
 * (an IPv4 address or a name resolving to one), so {@code RdmaCm.getAddrInfo("127.0.0.1:7000", ...)}
 * finds the node; IPv6 listen addresses are refused by {@link TcpConfig}. The device's GUID is
 * {@code 0x5349_PPPP_AAAAAAAA}.
 *
 * <p><b>Connections.</b> On a node with TLS credentials every connection first runs TLS 1.3 with
 * mutual authentication ({@link TlsCredentials}); then, inside it, a handshake ({@link Handshake}):
 * protocol version, node GID and name, fabric name. A peer that fails either is refused, logged
 * (rate-limited) and counted; the node that dialled ends the connection attempts waiting for that
 * peer at once, naming the cause ({@link io.simrdma.fabric.Device.MadHandler#onUnreachable}).
 * Frames are length-prefixed with a bounded maximum ({@link PacketCodec}); bad input closes that
 * one connection ({@link FrameError}).
 *
 * <p><b>Bounds.</b> Connections and handshakes in progress are capped; accepted connections over
 * a cap are closed at once. A housekeeping task on the event loop closes connections whose frame
 * stopped arriving or that stayed idle, and removes links that have had no connection for the
 * idle timeout (a link the application obtained with {@link #link} stays). See {@link TcpConfig}.
 *
 * <p><b>Life cycle.</b> The node is a service of its fabric ({@link Fabric#service}) and one of its
 * remote transports: {@link Fabric#close()} closes it, then the device, then stops the event loop.
 * {@link #close()} alone closes the sockets; the device stays until the fabric closes. One node
 * per fabric.
 *
 * <p>Thread safety: thread-safe.
 */
public final class TcpNode implements RemoteTransport, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TcpNode.class);
    private static final byte[] GID_PREFIX = {(byte) 0xfd, 0x53, 0x49, 0x4d, 0, 0, 0, 0, 0, 0};
    private static final long GUID_PREFIX = 0x5349L << 48;
    private static final long CLOSE_TIMEOUT_SECONDS = 5;
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Observes a node's connections and links; called on the node's event loop, must not block or throw. */
    @FunctionalInterface
    public interface Listener {
        void onEvent(TcpEvent event);
    }

    private final FabricImpl fabric;
    private final TcpConfig config;
    private final MultiThreadIoEventLoopGroup group;
    private final EventLoop loop;
    private final boolean nativeTransport;
    private final Bootstrap connector;
    private final Channel server;
    private final InetSocketAddress listenAddress;
    private final Gid gid;
    private final DeviceImpl device;
    private final long incarnation;
    private final SecureRandom random = new SecureRandom();
    private final TcpCounters counters = new TcpCounters();
    private final Map<Gid, TcpLink> links = new ConcurrentHashMap<>();
    private final Set<Connection> connections = new HashSet<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final RateLimitedLog refusalLog = new RateLimitedLog(LOG_INTERVAL_NANOS, System::nanoTime);
    private final RateLimitedLog refusedByPeerLog = new RateLimitedLog(LOG_INTERVAL_NANOS, System::nanoTime);
    private final RateLimitedLog closedLog = new RateLimitedLog(LOG_INTERVAL_NANOS, System::nanoTime);
    private final RateLimitedLog capLog = new RateLimitedLog(LOG_INTERVAL_NANOS, System::nanoTime);
    private final io.netty.util.concurrent.ScheduledFuture<?> housekeeping;
    private int inboundHandshakes;
    private volatile boolean closed;

    private TcpNode(Fabric fabric, TcpConfig config) {
        this.fabric = (FabricImpl) fabric;
        this.config = config;
        this.incarnation = random.nextLong();
        this.nativeTransport = config.nativeTransport() && Epoll.isAvailable();
        IoHandlerFactory io = nativeTransport ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group =
                new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("simrdma-tcp-" + config.name(), true), io);
        this.loop = group.next();
        Class<? extends SocketChannel> socketClass =
                nativeTransport ? EpollSocketChannel.class : NioSocketChannel.class;
        Class<? extends ServerChannel> serverClass =
                nativeTransport ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        this.connector = new Bootstrap()
                .group(group)
                .channel(socketClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.connectTimeoutMillis());
        Channel s = null;
        try {
            // Accepted connections wait (auto-read off) until the device exists.
            s = new ServerBootstrap()
                    .group(group)
                    .channel(serverClass)
                    .option(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (admit(ch)) {
                                initPipeline(ch, new Connection(TcpNode.this, null));
                            }
                        }
                    })
                    .bind(config.listenAddress())
                    .syncUninterruptibly()
                    .channel();
            this.server = s;
            this.listenAddress = (InetSocketAddress) s.localAddress();
            this.gid = gidOf(listenAddress);
            EngineExecutor executor =
                    ((ThreadedScheduler) fabric.scheduler()).adopt("tcp-" + config.name(), loop, true);
            this.device = this.fabric.createDevice(config.device().gid(gid).guid(guidOf(listenAddress)), executor);
        } catch (Exception e) { // Netty rethrows the socket's checked IOException unchecked
            if (s != null) {
                s.close().awaitUninterruptibly(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS)
                    .awaitUninterruptibly(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (s == null) {
                throw bindFailure(config.listenAddress(), e);
            }
            throw e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
        }
        long tick = housekeepingTickNanos(config);
        this.housekeeping = loop.scheduleAtFixedRate(this::housekeep, tick, tick, TimeUnit.NANOSECONDS);
        s.config().setAutoRead(true);
        LOG.info(
                "{}: TCP node listening on {} ({}, {}), GID {}",
                config.name(),
                address(),
                nativeTransport ? "epoll" : "NIO",
                config.isTls() ? "TLS, certificate SHA-256 " + config.tls().fingerprint() : "plain TCP",
                gid);
        if (!config.isTls() && !listenAddress.getAddress().isLoopbackAddress()) {
            LOG.warn(
                    "{}: listening on {} WITHOUT authentication or encryption (insecure): anyone who can reach this "
                            + "address can join fabric '{}' and read or alter its traffic",
                    config.name(),
                    address(),
                    fabric.name());
        }
    }

    /** The exception of the socket layer that kept the node from listening, as one that names the address. */
    private static RuntimeException bindFailure(InetSocketAddress address, Exception e) {
        Throwable cause = e;
        while (cause != null && !(cause instanceof IOException)) {
            cause = cause.getCause();
        }
        String where = address.getAddress().getHostAddress() + ":" + address.getPort();
        if (cause == null && e.getClass().getName().startsWith("io.netty")) {
            cause = e;
        }
        if (cause == null) {
            return e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
        }
        String msg = String.valueOf(cause.getMessage());
        String why = msg.contains("in use")
                ? "the address is in use (another node or program listens there)"
                : msg.contains("assign requested address")
                        ? "the address is not one of this host's"
                        : msg.contains("ermission denied")
                                ? "permission denied (ports below 1024 need privileges)"
                                : msg;
        IOException io = cause instanceof IOException ? (IOException) cause : new IOException(msg, cause);
        BindException bind = new BindException("cannot listen on " + where + ": " + why);
        bind.initCause(io);
        return new UncheckedIOException(bind.getMessage(), bind);
    }

    private static long housekeepingTickNanos(TcpConfig c) {
        long shortest = Math.min(c.frameTimeoutNanos(), c.idleTimeoutNanos());
        return Math.max(TimeUnit.MILLISECONDS.toNanos(5), Math.min(TimeUnit.SECONDS.toNanos(1), shortest / 4));
    }

    /**
     * Starts a node in {@code fabric}: listens on the configured address, creates the node's device
     * (named by the configuration) on the event loop of its sockets, and registers the node as a
     * remote transport and a service of the fabric.
     *
     * @throws IllegalArgumentException if the fabric is not threaded, or its name is over 255 bytes
     * @throws IllegalStateException    if the fabric is closed or already has a TCP node
     * @throws UncheckedIOException     if the address cannot be bound (in use, not local, no
     *                                  permission); its message names the address, its cause is a
     *                                  {@link BindException}
     */
    public static TcpNode start(Fabric fabric, TcpConfig config) {
        Objects.requireNonNull(fabric, "fabric");
        Objects.requireNonNull(config, "config");
        if (!(fabric.scheduler() instanceof ThreadedScheduler)) {
            throw new IllegalArgumentException(
                    "a TCP node needs a threaded fabric (Fabric.threaded()): its device runs on "
                            + "the event loop of its sockets, in real time");
        }
        if (fabric.name().getBytes(java.nio.charset.StandardCharsets.UTF_8).length > Handshake.MAX_NAME_BYTES) {
            throw new IllegalArgumentException("fabric name over " + Handshake.MAX_NAME_BYTES + " bytes");
        }
        TcpNode[] created = new TcpNode[1];
        TcpNode node = fabric.service(TcpNode.class, f -> created[0] = new TcpNode(f, config));
        if (created[0] == null) {
            throw new IllegalStateException("fabric " + fabric.name() + " already has the TCP node " + node.name());
        }
        node.fabric.addRemoteTransport(node);
        return node;
    }

    // ------------------------------------------------------------------ identity

    public String name() {
        return config.name();
    }

    public Fabric fabric() {
        return fabric;
    }

    public TcpConfig config() {
        return config;
    }

    /** The node's device; its GID encodes the listen address. */
    public Device device() {
        return device;
    }

    /** The device's implementation, for this package's links and connections. */
    DeviceImpl deviceImpl() {
        return device;
    }

    /** The fabric's implementation, for this package's links (tracing). */
    FabricImpl fabricImpl() {
        return fabric;
    }

    /** The device's GID. */
    public Gid gid() {
        return gid;
    }

    /** The bound listen address (with the actual port when an ephemeral one was asked for). */
    public InetSocketAddress listenAddress() {
        return listenAddress;
    }

    /** The listen address as "ip:port", the name other nodes resolve this node by. */
    public String address() {
        return listenAddress.getAddress().getHostAddress() + ":" + listenAddress.getPort();
    }

    /** True if the node runs on the native epoll transport, false for NIO. */
    public boolean isNativeTransport() {
        return nativeTransport;
    }

    // ------------------------------------------------------------------ addresses

    /** The GID of the node listening on {@code address} (an IPv4 address and a port). */
    public static Gid gidOf(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        if (!(ip instanceof Inet4Address)) {
            throw new IllegalArgumentException("a TCP node's GID encodes an IPv4 address, not " + address);
        }
        byte[] b = new byte[16];
        System.arraycopy(GID_PREFIX, 0, b, 0, GID_PREFIX.length);
        b[10] = (byte) (address.getPort() >>> 8);
        b[11] = (byte) address.getPort();
        System.arraycopy(ip.getAddress(), 0, b, 12, 4);
        return Gid.of(b);
    }

    /** True if {@code gid} is a TCP node's GID (fd53:494d::/80). */
    public static boolean isTcpGid(Gid gid) {
        for (int i = 0; i < GID_PREFIX.length; i++) {
            if (gid.byteAt(i) != GID_PREFIX[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The listen address a TCP node's GID encodes.
     *
     * @throws IllegalArgumentException if {@code gid} is not a TCP node's
     */
    public static InetSocketAddress addressOf(Gid gid) {
        if (!isTcpGid(gid)) {
            throw new IllegalArgumentException(gid + " is not a TCP node's GID");
        }
        int port = (gid.byteAt(10) & 0xFF) << 8 | (gid.byteAt(11) & 0xFF);
        byte[] ip = {gid.byteAt(12), gid.byteAt(13), gid.byteAt(14), gid.byteAt(15)};
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long guidOf(InetSocketAddress address) {
        byte[] ip = address.getAddress().getAddress();
        long v4 = (ip[0] & 0xFFL) << 24 | (ip[1] & 0xFFL) << 16 | (ip[2] & 0xFFL) << 8 | (ip[3] & 0xFFL);
        return GUID_PREFIX | (long) address.getPort() << 32 | v4;
    }

    static int compare(Gid x, Gid y) {
        for (int i = 0; i < 16; i++) {
            int c = Integer.compare(x.byteAt(i) & 0xFF, y.byteAt(i) & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /**
     * The GID of the node named {@code node} as "host:port" (an IPv4 address, or a host name that
     * resolves to one); null for anything else ("[v6]:port" included: IPv6 nodes do not exist).
     */
    @Override
    public Gid resolve(String node) {
        int colon = node.lastIndexOf(':');
        if (colon <= 0 || colon == node.length() - 1) {
            return null;
        }
        String host = node.substring(0, colon);
        String portText = node.substring(colon + 1);
        if (host.indexOf(':') >= 0 || host.startsWith("[") || portText.length() > 5) {
            return null;
        }
        for (int i = 0; i < portText.length(); i++) {
            if (!Character.isDigit(portText.charAt(i))) {
                return null;
            }
        }
        int port = Integer.parseInt(portText);
        if (port < 1 || port > 0xFFFF) {
            return null;
        }
        try {
            InetAddress ip = InetAddress.getByName(host);
            return ip instanceof Inet4Address ? gidOf(new InetSocketAddress(ip, port)) : null;
        } catch (UnknownHostException e) {
            LOG.debug("{}: cannot resolve '{}': {}", name(), host, e.getMessage());
            return null;
        }
    }

    /** The link to another node's device, for the node's own device only. */
    @Override
    public PacketRoute route(Device from, Gid destination) {
        if (closed || from != device || !isTcpGid(destination) || destination.equals(gid)) {
            return null;
        }
        return links.computeIfAbsent(destination, g -> new TcpLink(this, g));
    }

    /**
     * The link to the node with GID {@code peer}, created if needed (to set faults or control it
     * before the first packet); nothing connects until a packet is sent. The link stays until the
     * node closes (the housekeeping removes only links nobody asked for).
     *
     * @throws IllegalArgumentException if {@code peer} is not another TCP node's GID
     * @throws IllegalStateException    if the node is closed
     */
    public TcpLink link(Gid peer) {
        if (!isTcpGid(peer) || peer.equals(gid)) {
            throw new IllegalArgumentException(peer + " is not another TCP node's GID");
        }
        if (closed) {
            throw new IllegalStateException("TCP node " + name() + " is closed");
        }
        return links.compute(peer, (g, l) -> {
            TcpLink k = l != null ? l : new TcpLink(this, g);
            k.pin();
            return k;
        });
    }

    /** The link to the node listening on {@code address} ("host:port"). */
    public TcpLink link(String address) {
        Gid g = resolve(address);
        if (g == null) {
            throw new IllegalArgumentException("'" + address + "' is not host:port of an IPv4 node");
        }
        return link(g);
    }

    /** Every link this node has. */
    public List<TcpLink> links() {
        return new ArrayList<>(links.values());
    }

    TcpLink linkFor(Gid peer) {
        return closed ? null : links.computeIfAbsent(peer, g -> new TcpLink(this, g));
    }

    // ------------------------------------------------------------------ observability

    /** The value of counter {@code c}. */
    public long counter(TcpCounter c) {
        return counters.get(c);
    }

    /** Every counter. */
    public Map<TcpCounter, Long> counters() {
        return counters.snapshot();
    }

    public void addListener(Listener l) {
        listeners.add(Objects.requireNonNull(l, "listener"));
    }

    public void removeListener(Listener l) {
        listeners.remove(l);
    }

    void count(TcpCounter c) {
        counters.increment(c);
    }

    TcpCounters counterSet() {
        return counters;
    }

    void event(TcpEvent e) {
        for (Listener l : listeners) {
            try {
                l.onEvent(e);
            } catch (RuntimeException ex) {
                LOG.error("{}: TCP event listener failed", name(), ex);
            }
        }
    }

    // ------------------------------------------------------------------ bounds and logging (event loop)

    /**
     * Admits an accepted connection, or closes it at once if the node has its maximum of
     * connections or of handshakes in progress. Event loop.
     */
    private boolean admit(SocketChannel ch) {
        TcpCounter over = connections.size() >= config.maxConnections()
                ? TcpCounter.REFUSED_TOO_MANY_CONNECTIONS
                : inboundHandshakes >= config.maxHandshakes() ? TcpCounter.REFUSED_TOO_MANY_HANDSHAKES : null;
        if (over == null && !closed) {
            inboundHandshakes++;
            return true;
        }
        if (over != null) {
            count(over);
            if (capLog.admit()) {
                LOG.warn(
                        "{}: closed the connection from {} at once: {} ({} open, {} handshaking){}",
                        name(),
                        ch.remoteAddress(),
                        over == TcpCounter.REFUSED_TOO_MANY_CONNECTIONS
                                ? "the maximum of " + config.maxConnections() + " connections is reached"
                                : "the maximum of " + config.maxHandshakes() + " handshakes in progress is reached",
                        connections.size(),
                        inboundHandshakes,
                        capLog.suppressedSuffix());
            }
        }
        ch.close();
        return false;
    }

    /** An accepted connection's handshake ended (completed, refused or closed). Event loop. */
    void handshakeEnded(Connection c) {
        if (!c.isOutbound()) {
            inboundHandshakes--;
        }
    }

    /** Logs a refused handshake, at most one WARN per 10 s per direction, with the count of those left out. Event loop. */
    void logRefusal(boolean byPeer, String peer, String why) {
        RateLimitedLog l = byPeer ? refusedByPeerLog : refusalLog;
        if (l.admit()) {
            if (byPeer) {
                LOG.warn("{}: {} refused the handshake: {}{}", name(), peer, why, l.suppressedSuffix());
            } else {
                LOG.warn("{}: refused the handshake of {}: {}{}", name(), peer, why, l.suppressedSuffix());
            }
        } else {
            LOG.debug("{}: handshake with {} refused ({}): {}", name(), peer, byPeer ? "by the peer" : "here", why);
        }
    }

    /** Logs a connection closed for bad input or a stalled frame, rate-limited. Event loop. */
    void logClosed(String peer, String why) {
        if (closedLog.admit()) {
            LOG.warn("{}: closing the connection with {}: {}{}", name(), peer, why, closedLog.suppressedSuffix());
        } else {
            LOG.debug("{}: closing the connection with {}: {}", name(), peer, why);
        }
    }

    /** Tells the device's connection manager that {@code peer} refused this node for good. Event loop. */
    void reportUnreachable(Gid peer, String cause) {
        device.reportUnreachable(peer, cause);
    }

    /** Closes stalled and idle connections, removes links without connection. Event loop, periodically. */
    private void housekeep() {
        if (closed) {
            return;
        }
        long now = System.nanoTime();
        for (Connection c : new ArrayList<>(connections)) {
            c.checkTimers(now);
        }
        for (TcpLink l : links.values()) {
            if (l.idleAndUnused(now)) {
                boolean[] removed = new boolean[1];
                links.computeIfPresent(l.peer(), (g, k) -> {
                    if (k != l || !k.idleAndUnused(now)) {
                        return k;
                    }
                    k.remove();
                    removed[0] = true;
                    return null;
                });
                if (removed[0]) {
                    count(TcpCounter.LINKS_REMOVED);
                    LOG.debug("{}: removed the link to {} (unused)", name(), l.remoteAddress());
                    event(new TcpEvent(TcpEvent.Type.LINK_REMOVED, l.peer(), l.remoteAddress(), "unused"));
                }
            }
        }
    }

    // ------------------------------------------------------------------ connections (event loop)

    EventLoop eventLoop() {
        return loop;
    }

    long incarnation() {
        return incarnation;
    }

    byte[] newNonce() {
        byte[] n = new byte[Handshake.NONCE_LENGTH];
        random.nextBytes(n);
        return n;
    }

    void initPipeline(SocketChannel ch, Connection c) {
        FrameDecoder decoder = new FrameDecoder(config.maxFrameLength(), counters, !config.isTls());
        c.attach(ch, decoder);
        if (config.isTls()) {
            SslHandler tls = c.isOutbound()
                    ? config.tls().newDiallingHandler(ch.alloc())
                    : config.tls().newAcceptingHandler(ch.alloc());
            tls.setHandshakeTimeoutMillis(0); // the connection's handshake timeout covers TLS and HELLO
            ch.pipeline().addLast("tls", tls);
        }
        ch.pipeline()
                .addLast(
                        "flush",
                        new FlushConsolidationHandler(
                                FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true))
                .addLast("decoder", decoder)
                .addLast("encoder", new FrameEncoder(c))
                .addLast("faults", new FaultHandler(c))
                .addLast("connection", c);
    }

    /** Opens a connection for {@code link}; null if the node is closed. Event loop. */
    Connection connect(TcpLink link) {
        if (closed) {
            return null;
        }
        Connection c = new Connection(this, link);
        count(TcpCounter.CONNECTS_STARTED);
        ChannelFuture f = connector
                .clone()
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        initPipeline(ch, c);
                    }
                })
                .connect(link.remoteAddress());
        f.addListener(done -> {
            if (!done.isSuccess()) {
                count(TcpCounter.CONNECT_FAILURES);
                LOG.debug(
                        "{}: cannot connect to {}: {}",
                        name(),
                        link.remoteAddress(),
                        done.cause().toString());
                event(new TcpEvent(
                        TcpEvent.Type.CONNECT_FAILED, link.peer(), link.remoteAddress(), String.valueOf(done.cause())));
                c.connectFailed(done.cause());
            }
        });
        return c;
    }

    /** A connection became active; false if the node closed meanwhile (the connection is closed). */
    boolean connectionOpened(Connection c) {
        if (closed) {
            c.close("node closed");
            return false;
        }
        connections.add(c);
        if (!c.isOutbound()) {
            count(TcpCounter.CONNECTIONS_ACCEPTED);
        }
        return true;
    }

    void connectionClosed(Connection c) {
        connections.remove(c);
        TcpLink l = c.link() != null ? c.link() : c.dialled();
        if (l != null) {
            l.closed(c);
        }
        event(new TcpEvent(
                TcpEvent.Type.CONNECTION_CLOSED, l != null ? l.peer() : null, c.remoteAddress(), c.closeReason()));
    }

    /** Open connections (handshaking or established). Event loop. */
    int openConnections() {
        return connections.size();
    }

    /** Open connections (handshaking or established), read on the event loop from any thread; 0 once closed. */
    int connectionCount() {
        if (loop.inEventLoop()) {
            return connections.size();
        }
        if (loop.isShuttingDown()) {
            return 0;
        }
        return loop.submit(connections::size).syncUninterruptibly().getNow();
    }

    /** Runs {@code r} on the event loop (now, if on it); false if the loop is shutting down and it will not run. */
    boolean runOnLoop(Runnable r) {
        if (loop.inEventLoop()) {
            r.run();
            return true;
        }
        if (loop.isShuttingDown()) {
            return false;
        }
        try {
            loop.execute(r);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ closing

    /**
     * Closes the node's sockets: the listener, every connection (packets in flight are lost) and
     * every link. The device stays until the fabric closes; packets it sends to other nodes are
     * dropped (no route). Waits for the sockets to close unless called on the event loop.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        housekeeping.cancel(false);
        fabric.removeRemoteTransport(this);
        List<ChannelFuture> closing = new ArrayList<>();
        Runnable shut = () -> {
            closing.add(server.close());
            for (TcpLink l : links.values()) {
                l.shutdown();
            }
            for (Connection c : new ArrayList<>(connections)) {
                c.close("node closed");
            }
            for (Connection c : connections) {
                if (c.channel() != null) {
                    closing.add(c.channel().closeFuture());
                }
            }
        };
        if (loop.inEventLoop()) {
            shut.run();
            return;
        }
        if (loop.isShuttingDown()) {
            return;
        }
        loop.submit(shut).awaitUninterruptibly(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        for (ChannelFuture f : closing) {
            if (!f.awaitUninterruptibly(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                LOG.error("{}: a socket did not close within {} s", name(), CLOSE_TIMEOUT_SECONDS);
            }
        }
        LOG.info("{}: TCP node closed", name());
    }

    @Override
    public String toString() {
        return "TcpNode[" + name() + ", " + address() + ", " + gid + "]";
    }
}
