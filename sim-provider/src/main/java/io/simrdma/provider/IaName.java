package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.fabric.DeviceProfile;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The IA names the sim provider serves.
 * <pre>
 *   sim:&lt;fabric&gt;/&lt;device&gt;[?&lt;option&gt;=&lt;value&gt;&amp;...]
 *   simtcp:&lt;host&gt;:&lt;port&gt;[?&lt;option&gt;=&lt;value&gt;&amp;...]
 * </pre>
 * {@code sim:} names an in-process fabric (created on first use, shared by every IA that names
 * it) and a device on it (created on first use). Options of the first IA that creates the fabric
 * or the device configure it:
 * <ul>
 *   <li>{@code mode=deterministic} (default) with {@code seed=<long>} (default 0), or
 *       {@code mode=threaded};</li>
 *   <li>{@code profile=ibta|mlx5|rxe|siw}: the device's {@link DeviceProfile} (default ibta), how it
 *       behaves where real devices differ and its default limits;</li>
 *   <li>device limits {@code maxQp, maxCq, maxCqe, maxMr, maxPd, maxMw, maxSrq, maxQpWr, maxSge,
 *       maxSrqWr, maxInline} and {@code mtu=256..4096}, which override the profile's.</li>
 * </ul>
 * {@code simtcp:} names a TCP node listening on {@code host:port} (an IPv4 address or a name
 * resolving to one; port 0 picks a free port), on a threaded fabric of its own. IAs naming the
 * same host and port in one JVM share the node. Options: {@code fabric=<name>} (default
 * {@value #DEFAULT_TCP_FABRIC}: nodes talk only to nodes of the same fabric name),
 * {@code node=<name>} (default {@code host:port}), {@code key=<hex>} or {@code keyFile=<path>}
 * (a pre-shared key of at least 16 bytes, proved by HMAC on every connection; the file's bytes
 * are the key), {@code seed}, {@code profile} and the device limits above.
 * A fabric registered with {@link SimProvider#registerFabric} is used as it is.
 *
 * <p>Immutable.
 *
 * @param text    the name as given
 * @param fabric  the fabric name
 * @param device  the device name (for {@code simtcp:}, the node name)
 * @param options the options
 * @param listen  for {@code simtcp:}, the address to listen on (unresolved); null for {@code sim:}
 */
record IaName(String text, String fabric, String device, Map<String, String> options, InetSocketAddress listen) {

    static final String SCHEME = "sim:";
    static final String TCP_SCHEME = "simtcp:";
    static final String DEFAULT_TCP_FABRIC = "simrdma";
    private static final Set<String> NUMERIC = union(SimFabrics.LIMITS.keySet(), Set.of("mtu", "seed"));
    private static final Set<String> OPTIONS = union(NUMERIC, Set.of("mode", "profile"));
    private static final Set<String> TCP_OPTIONS = union(NUMERIC, Set.of("fabric", "node", "key", "keyFile", "profile"));

    private static Set<String> union(Set<String> a, Set<String> b) {
        java.util.HashSet<String> s = new java.util.HashSet<>(a);
        s.addAll(b);
        return Set.copyOf(s);
    }

    /** True if {@code name} is in the sim provider's syntax (it may still be malformed). */
    static boolean isSim(String name) {
        return name != null && (name.startsWith(SCHEME) || name.startsWith(TCP_SCHEME));
    }

    /** True for a {@code simtcp:} name. */
    boolean tcp() {
        return listen != null;
    }

    /**
     * Parses an IA name.
     *
     * @throws DatException DAT_PROVIDER_NOT_FOUND (DAT_NAME_NOT_REGISTERED) if it is not a sim name;
     *                      DAT_INVALID_PARAMETER if it is malformed or has an unknown option
     */
    static IaName parse(String name) {
        if (!isSim(name)) {
            throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "'" + name + "' is not a sim IA name (sim:<fabric>/<device> or simtcp:<host>:<port>)");
        }
        boolean tcp = name.startsWith(TCP_SCHEME);
        String rest = name.substring(tcp ? TCP_SCHEME.length() : SCHEME.length());
        String query = null;
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        Map<String, String> opts = options(name, query, tcp ? TCP_OPTIONS : OPTIONS);
        if (opts.containsKey("profile")) {
            try {
                DeviceProfile.named(opts.get("profile"));
            } catch (IllegalArgumentException e) {
                throw DatException.invalidParameter("IA name '" + name + "': " + e.getMessage());
            }
        }
        for (Map.Entry<String, String> e : opts.entrySet()) {
            if (NUMERIC.contains(e.getKey())) {
                try {
                    Long.parseLong(e.getValue());
                } catch (NumberFormatException ex) {
                    throw DatException.invalidParameter("option " + e.getKey() + " needs a number, not " + e.getValue());
                }
            }
        }
        if (tcp) {
            InetSocketAddress listen = hostPort(name, rest);
            String fabric = opts.getOrDefault("fabric", DEFAULT_TCP_FABRIC);
            String node = opts.getOrDefault("node", rest);
            if (fabric.isEmpty() || node.isEmpty()) {
                throw DatException.invalidParameter("IA name '" + name + "': fabric and node names must not be empty");
            }
            if (opts.containsKey("key") && opts.containsKey("keyFile")) {
                throw DatException.invalidParameter("IA name '" + name + "': give key or keyFile, not both");
            }
            return new IaName(name, fabric, node, Collections.unmodifiableMap(opts), listen);
        }
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1 || rest.indexOf('/', slash + 1) >= 0) {
            throw DatException.invalidParameter("IA name '" + name + "' is not sim:<fabric>/<device>");
        }
        String mode = opts.getOrDefault("mode", "deterministic");
        if (!mode.equals("deterministic") && !mode.equals("threaded")) {
            throw DatException.invalidParameter("mode must be deterministic or threaded, not " + mode);
        }
        return new IaName(name, rest.substring(0, slash), rest.substring(slash + 1), Collections.unmodifiableMap(opts),
                null);
    }

    private static Map<String, String> options(String name, String query, Set<String> known) {
        Map<String, String> opts = new LinkedHashMap<>();
        if (query != null && !query.isEmpty()) {
            for (String kv : query.split("&")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw DatException.invalidParameter("IA name option '" + kv + "' is not key=value");
                }
                String k = kv.substring(0, eq);
                if (!known.contains(k)) {
                    throw DatException.invalidParameter("unknown option '" + k + "' in IA name '" + name + "'; known: "
                            + new java.util.TreeSet<>(known));
                }
                opts.put(k, kv.substring(eq + 1));
            }
        }
        return opts;
    }

    private static InetSocketAddress hostPort(String name, String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw DatException.invalidParameter("IA name '" + name + "' is not simtcp:<host>:<port>");
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 0xFFFF) {
            throw DatException.invalidParameter("IA name '" + name + "': port must be 0..65535");
        }
        return InetSocketAddress.createUnresolved(hostPort.substring(0, colon), port);
    }

    boolean threaded() {
        return tcp() || "threaded".equals(options.get("mode"));
    }

    long seed() {
        return Long.parseLong(options.getOrDefault("seed", "0"));
    }

    /** The device profile the name asks for ({@code profile=}), or the default. */
    DeviceProfile profile() {
        String p = options.get("profile");
        return p == null ? DeviceProfile.DEFAULT : DeviceProfile.named(p);
    }

    int intOption(String key, int defaultValue) {
        String v = options.get(key);
        return v == null ? defaultValue : Integer.parseInt(v);
    }
}
