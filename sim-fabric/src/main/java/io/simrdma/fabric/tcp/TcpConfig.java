package io.simrdma.fabric.tcp;

import io.simrdma.fabric.DeviceConfig;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * How to start a {@link TcpNode}: its name, the address it listens on, its TLS credentials, and
 * the limits of its connections. Built with {@link #builder(String)}, checked once in
 * {@link Builder#build()}; defaults a newcomer can live with:
 * <pre>{@code
 * TcpConfig c = TcpConfig.builder("node-a").build();                   // 127.0.0.1, ephemeral port, plain TCP
 * TcpConfig d = TcpConfig.builder("node-b").listen("10.0.0.5", 7000)   // another interface: TLS required
 *         .tls(TlsCredentials.load(Path.of("node-b-tls"))).build();
 * }</pre>
 *
 * <p>A node listens on one IPv4 address, never the wildcard: its GID encodes that address and
 * port, so that any node can route to it without a lookup. IPv6 listen addresses are refused.
 *
 * <p><b>Security</b> (SECURITY.md at the repository root has the threat model). Without TLS
 * credentials a node runs plain TCP and trusts everyone who can reach it; it listens on a loopback
 * address only, unless {@link Builder#insecure} says otherwise. With credentials, every connection
 * runs TLS 1.3 with mutual authentication through the fabric CA ({@link TlsCredentials}), and the
 * certificate must name the listen address.
 *
 * <p><b>Bounds.</b> At most {@link #maxConnections()} connections and
 * {@link #maxHandshakes()} handshakes in progress (more are closed as they are accepted); a frame
 * that stops arriving is cut after {@link #frameTimeoutNanos()}; a connection that carries nothing
 * either way for {@link #idleTimeoutNanos()} is closed (links reopen on demand), and a link that has
 * had no connection that long is removed unless the application holds it ({@link TcpNode#link}).
 *
 * <p>Thread safety: immutable.
 */
public final class TcpConfig {

    /** Largest maximum frame length accepted. */
    public static final int MAX_MAX_FRAME_LENGTH = 16 * 1024 * 1024;

    private final String name;
    private final InetSocketAddress listenAddress;
    private final TlsCredentials tls;
    private final boolean insecure;
    private final int maxConnections;
    private final int maxHandshakes;
    private final long frameTimeoutNanos;
    private final long idleTimeoutNanos;
    private final int maxFrameLength;
    private final long handshakeTimeoutNanos;
    private final int connectTimeoutMillis;
    private final long reconnectBackoffNanos;
    private final int pendingPacketLimit;
    private final boolean nativeTransport;
    private final DeviceConfig device;

    private TcpConfig(Builder b, InetSocketAddress listen) {
        this.name = b.name;
        this.listenAddress = listen;
        this.tls = b.tls;
        this.insecure = b.insecure;
        this.maxConnections = b.maxConnections;
        this.maxHandshakes = b.maxHandshakes;
        this.frameTimeoutNanos = b.frameTimeout.toNanos();
        this.idleTimeoutNanos = b.idleTimeout.toNanos();
        this.maxFrameLength = b.maxFrameLength;
        this.handshakeTimeoutNanos = b.handshakeTimeout.toNanos();
        this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, b.connectTimeout.toMillis());
        this.reconnectBackoffNanos = b.reconnectBackoff.toNanos();
        this.pendingPacketLimit = b.pendingPacketLimit;
        this.nativeTransport = b.nativeTransport;
        this.device = b.device;
    }

    /** A configuration for a node named {@code name} (also its device's name unless {@link Builder#device} says otherwise). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** The address to listen on (port 0: an ephemeral port). */
    public InetSocketAddress listenAddress() {
        return listenAddress;
    }

    /** True if connections run TLS with mutual authentication. */
    public boolean isTls() {
        return tls != null;
    }

    /** The node's TLS credentials, or null for plain TCP. */
    public TlsCredentials tls() {
        return tls;
    }

    /** True if the node may listen on a non-loopback address without TLS. */
    public boolean isInsecure() {
        return insecure;
    }

    /** Connections open at once (handshaking or established); more are closed as they are accepted. */
    public int maxConnections() {
        return maxConnections;
    }

    /** Accepted connections whose handshake is in progress at once; more are closed as they are accepted. */
    public int maxHandshakes() {
        return maxHandshakes;
    }

    /** Time a started frame may take to arrive in full before its connection is closed. */
    public long frameTimeoutNanos() {
        return frameTimeoutNanos;
    }

    /** Time a connection may carry nothing either way before it is closed; also how long a link without connection lingers. */
    public long idleTimeoutNanos() {
        return idleTimeoutNanos;
    }

    /** Largest frame accepted from a peer, length prefix excluded. */
    public int maxFrameLength() {
        return maxFrameLength;
    }

    public long handshakeTimeoutNanos() {
        return handshakeTimeoutNanos;
    }

    public int connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    /** After a failed connection attempt, packets to that node are dropped for this long before the next attempt. */
    public long reconnectBackoffNanos() {
        return reconnectBackoffNanos;
    }

    /** Packets held per peer while its connection opens; more are dropped. */
    public int pendingPacketLimit() {
        return pendingPacketLimit;
    }

    /** True to use the native epoll transport where it loads (NIO otherwise). */
    public boolean nativeTransport() {
        return nativeTransport;
    }

    /** The device's limits; the node sets its GID and GUID from the listen address. */
    DeviceConfig device() {
        return device;
    }

    @Override
    public String toString() {
        return "TcpConfig[" + name + ", listen " + listenAddress
                + (tls != null ? ", TLS " + tls.fingerprint() : insecure ? ", plain (insecure)" : ", plain")
                + ", max frame " + maxFrameLength + "]";
    }

    /** Builds a {@link TcpConfig}; not thread-safe. */
    public static final class Builder {
        private final String name;
        private String listenHost = "127.0.0.1";
        private InetSocketAddress listen;
        private int listenPort;
        private TlsCredentials tls;
        private boolean insecure;
        private int maxConnections = 256;
        private int maxHandshakes = 32;
        private Duration frameTimeout = Duration.ofSeconds(10);
        private Duration idleTimeout = Duration.ofMinutes(5);
        private int maxFrameLength = PacketCodec.DEFAULT_MAX_FRAME_LENGTH;
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration reconnectBackoff = Duration.ofMillis(50);
        private int pendingPacketLimit = 1024;
        private boolean nativeTransport = true;
        private DeviceConfig device;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /** Listens on {@code host} (an IPv4 address or a name resolving to one) and {@code port} (0: ephemeral). */
        public Builder listen(String host, int port) {
            this.listenHost = Objects.requireNonNull(host, "host");
            this.listenPort = port;
            this.listen = null;
            return this;
        }

        /** Listens on {@code address}. */
        public Builder listen(InetSocketAddress address) {
            this.listen = Objects.requireNonNull(address, "address");
            return this;
        }

        /** Listens on 127.0.0.1 (or the host given to {@link #listen(String, int)}) at {@code port}. */
        public Builder listenPort(int port) {
            this.listenPort = port;
            this.listen = null;
            return this;
        }

        /** Runs every connection over TLS 1.3 with mutual authentication through the fabric CA of {@code credentials}. */
        public Builder tls(TlsCredentials credentials) {
            this.tls = Objects.requireNonNull(credentials, "credentials");
            return this;
        }

        /**
         * Allows a plain (unauthenticated) node to listen on a non-loopback address (default false):
         * anyone who can reach it can then join the fabric, read and alter its traffic.
         */
        public Builder insecure(boolean allow) {
            this.insecure = allow;
            return this;
        }

        /** Connections open at once (default 256). */
        public Builder maxConnections(int n) {
            this.maxConnections = n;
            return this;
        }

        /** Accepted connections handshaking at once (default 32). */
        public Builder maxHandshakes(int n) {
            this.maxHandshakes = n;
            return this;
        }

        /** Time a started frame may take to arrive in full (default 10 s). */
        public Builder frameTimeout(Duration d) {
            this.frameTimeout = Objects.requireNonNull(d, "timeout");
            return this;
        }

        /** Time a connection may stay idle, and a link without connection linger (default 5 min). */
        public Builder idleTimeout(Duration d) {
            this.idleTimeout = Objects.requireNonNull(d, "timeout");
            return this;
        }

        /** Largest frame accepted from a peer (default 64 KiB plus headers); at least a full MTU 4096 packet. */
        public Builder maxFrameLength(int bytes) {
            this.maxFrameLength = bytes;
            return this;
        }

        /** Time a connection has to complete its handshake (default 5 s). */
        public Builder handshakeTimeout(Duration d) {
            this.handshakeTimeout = Objects.requireNonNull(d, "timeout");
            return this;
        }

        /** Time a TCP connect may take (default 5 s). */
        public Builder connectTimeout(Duration d) {
            this.connectTimeout = Objects.requireNonNull(d, "timeout");
            return this;
        }

        /** Pause after a failed connection attempt before the next one (default 50 ms). */
        public Builder reconnectBackoff(Duration d) {
            this.reconnectBackoff = Objects.requireNonNull(d, "backoff");
            return this;
        }

        /** Packets held per peer while its connection opens (default 1024). */
        public Builder pendingPacketLimit(int n) {
            this.pendingPacketLimit = n;
            return this;
        }

        /** Whether to use the native epoll transport where it loads (default true); false forces NIO. */
        public Builder nativeTransport(boolean useNative) {
            this.nativeTransport = useNative;
            return this;
        }

        /** The device's limits; its name names the device; the node sets its GID and GUID. */
        public Builder device(DeviceConfig config) {
            this.device = Objects.requireNonNull(config, "device config");
            return this;
        }

        /**
         * Checks the configuration.
         *
         * @throws IllegalArgumentException for an empty or too long name, a listen address that is
         *                                  not one IPv4 address (the wildcard, IPv6, unresolvable),
         *                                  a non-loopback address without TLS and without
         *                                  {@link #insecure}, TLS credentials whose certificate does
         *                                  not name the listen address, a maximum frame length that
         *                                  cannot carry an MTU 4096 packet, a non-positive time or limit
         */
        public TcpConfig build() {
            if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > Handshake.MAX_NAME_BYTES) {
                throw new IllegalArgumentException(
                        "a node name has 1.." + Handshake.MAX_NAME_BYTES + " bytes: '" + name + "'");
            }
            InetSocketAddress address = listen != null ? listen : resolve(listenHost, listenPort);
            InetAddress ip = address.getAddress();
            if (ip == null) {
                throw new IllegalArgumentException("cannot resolve the listen address " + address);
            }
            if (ip instanceof Inet6Address) {
                throw new IllegalArgumentException("IPv6 listen address " + ip.getHostAddress()
                        + " refused: a TCP node's GID encodes an IPv4 address and a port; listen on an IPv4 address");
            }
            if (!(ip instanceof Inet4Address) || ip.isAnyLocalAddress()) {
                throw new IllegalArgumentException("listen address " + ip.getHostAddress()
                        + " refused: a node listens on one IPv4 address (its GID encodes it), not the wildcard");
            }
            if (tls == null && !insecure && !ip.isLoopbackAddress()) {
                throw new IllegalArgumentException(
                        "listening on " + ip.getHostAddress() + " without TLS refused: anyone "
                                + "who can reach the address could join the fabric and read or alter its traffic; give TLS "
                                + "credentials (simrdma keygen) or allow it explicitly (insecure)");
            }
            if (tls != null && !tls.names(ip)) {
                throw new IllegalArgumentException("the certificate in " + tls.directory() + " names "
                        + TlsCredentials.addresses(tls.certificate()) + ", not the listen address "
                        + ip.getHostAddress()
                        + "; peers would refuse this node");
            }
            if (maxFrameLength < PacketCodec.MIN_MAX_FRAME_LENGTH || maxFrameLength > MAX_MAX_FRAME_LENGTH) {
                throw new IllegalArgumentException(
                        "maximum frame length " + maxFrameLength + " not in " + PacketCodec.MIN_MAX_FRAME_LENGTH + ".."
                                + MAX_MAX_FRAME_LENGTH + " (it must fit an MTU 4096 packet)");
            }
            if (handshakeTimeout.isNegative()
                    || handshakeTimeout.isZero()
                    || connectTimeout.isNegative()
                    || connectTimeout.isZero()
                    || reconnectBackoff.isNegative()
                    || frameTimeout.isNegative()
                    || frameTimeout.isZero()
                    || idleTimeout.isNegative()
                    || idleTimeout.isZero()) {
                throw new IllegalArgumentException("timeouts must be positive and the backoff not negative");
            }
            if (maxConnections < 1 || maxHandshakes < 1) {
                throw new IllegalArgumentException("at least one connection and one handshake at a time, not "
                        + maxConnections + " and " + maxHandshakes);
            }
            if (pendingPacketLimit < 0) {
                throw new IllegalArgumentException("pending packet limit " + pendingPacketLimit + " is negative");
            }
            if (device == null) {
                device = DeviceConfig.named(name);
            }
            return new TcpConfig(this, address);
        }

        private static InetSocketAddress resolve(String host, int port) {
            if (port < 0 || port > 0xFFFF) {
                throw new IllegalArgumentException("port " + port + " out of range");
            }
            try {
                return new InetSocketAddress(InetAddress.getByName(host), port);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalArgumentException("cannot resolve the listen host '" + host + "'", e);
            }
        }
    }
}
