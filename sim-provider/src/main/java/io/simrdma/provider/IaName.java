package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.fabric.DeviceProfile;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
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
 *       maxSrqWr, maxInline} (1 to 2147483647) and {@code mtu=256..4096}, which override the
 *       profile's;</li>
 *   <li>link faults {@code loss, dup, reorder, delay} (probabilities) and {@code flap=<period ms>:<down ms>}
 *       ({@link LinkFaults});</li>
 *   <li>{@code traceDigest=true}: a digest of the fabric's trace in dat_ia_query's provider attributes
 *       ({@link TraceDigest}).</li>
 * </ul>
 * {@code simtcp:} names a TCP node listening on {@code host:port} (an IPv4 address or a name
 * resolving to one; port 0 picks a free port), on a threaded fabric of its own. IAs naming the
 * same host and port in one JVM share the node. Options: {@code fabric=<name>} (default
 * {@value #DEFAULT_TCP_FABRIC}: nodes talk only to nodes of the same fabric name),
 * {@code node=<name>} (default {@code host:port}), {@code tls=<directory>} (the node's TLS
 * credentials as {@code simrdma keygen} writes them: every connection then runs TLS 1.3 with
 * mutual authentication through the fabric CA), {@code insecure=true} (allows a node without
 * {@code tls} to listen on a non-loopback address), {@code seed}, {@code profile} and the device
 * limits above.
 * A fabric registered with {@link SimProvider#registerFabric} is used as it is.
 *
 * <p>Parsing is strict and uses the JDK's {@link URI}: characters a URI does not allow, an
 * empty option, an option without a value, an option given twice, an unknown option and a
 * number out of its range are each a {@code DAT_INVALID_PARAMETER} that names the option. Option
 * values may be percent-encoded ({@code %26} for '&amp;'). The pre-shared-key options of earlier
 * versions ({@code key}, {@code keyFile}) are refused, and no message or {@link #redacted()}
 * form shows their values.
 *
 * <p>Immutable.
 *
 * @param text    the name as given (use {@link #redacted()} in messages and logs)
 * @param fabric  the fabric name
 * @param device  the device name (for {@code simtcp:}, the node name)
 * @param options the options, decoded
 * @param listen  for {@code simtcp:}, the address to listen on (unresolved); null for {@code sim:}
 */
record IaName(String text, String fabric, String device, Map<String, String> options, InetSocketAddress listen) {

    static final String SCHEME = "sim:";
    static final String TCP_SCHEME = "simtcp:";
    static final String DEFAULT_TCP_FABRIC = "simrdma";
    /** Options whose values are secrets: never shown. */
    private static final Set<String> SECRET = Set.of("key", "keyFile", "psk", "secret", "password");

    private static final Set<String> INT_OPTIONS = union(SimFabrics.LIMITS.keySet(), Set.of("mtu"));
    private static final Set<String> NUMERIC = union(INT_OPTIONS, Set.of("seed"));
    private static final Set<String> OPTIONS =
            union(union(NUMERIC, Set.of("mode", "profile", "traceDigest")), LinkFaults.OPTIONS);
    private static final Set<String> TCP_OPTIONS =
            union(NUMERIC, Set.of("fabric", "node", "tls", "insecure", "profile"));

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

    /** The name with the values of secret options replaced by "***", for messages, logs and toString. */
    String redacted() {
        return redact(text);
    }

    @Override
    public String toString() {
        return "IaName[" + redacted() + "]";
    }

    /** {@code name} with the value of every option in {@link #SECRET} replaced by "***". */
    static String redact(String name) {
        if (name == null) {
            return null;
        }
        int q = name.indexOf('?');
        if (q < 0) {
            return name;
        }
        StringBuilder b = new StringBuilder(name.substring(0, q + 1));
        String[] parts = name.substring(q + 1).split("&", -1);
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                b.append('&');
            }
            int eq = parts[i].indexOf('=');
            String k = eq < 0 ? parts[i] : parts[i].substring(0, eq);
            b.append(eq >= 0 && SECRET.contains(k) ? k + "=***" : parts[i]);
        }
        return b.toString();
    }

    /**
     * Parses an IA name.
     *
     * @throws DatException DAT_PROVIDER_NOT_FOUND (DAT_NAME_NOT_REGISTERED) if it is not a sim name;
     *                      DAT_INVALID_PARAMETER if it is malformed, has an unknown, empty, repeated
     *                      or out-of-range option; the message names the option
     */
    static IaName parse(String name) {
        if (!isSim(name)) {
            throw new DatException(
                    DatReturnType.PROVIDER_NOT_FOUND,
                    DatReturnSubtype.NAME_NOT_REGISTERED,
                    "'" + redact(name) + "' is not a sim IA name (sim:<fabric>/<device> or simtcp:<host>:<port>)");
        }
        boolean tcp = name.startsWith(TCP_SCHEME);
        String shown = redact(name);
        URI uri;
        try {
            // "scheme://authority/path?query": the JDK parses host, port, path and query and
            // rejects characters a URI does not allow
            uri = new URI("x://" + name.substring(tcp ? TCP_SCHEME.length() : SCHEME.length()));
        } catch (URISyntaxException e) {
            throw DatException.invalidParameter("IA name '" + shown + "' is malformed: " + e.getReason()
                    + (e.getIndex() >= 0
                            ? " at character " + (e.getIndex() - 4 + (tcp ? TCP_SCHEME : SCHEME).length())
                            : ""));
        }
        if (uri.getRawFragment() != null) {
            throw DatException.invalidParameter("IA name '" + shown + "': '#' is not allowed");
        }
        Map<String, String> opts =
                options(shown, uri.getRawQuery(), name.indexOf('?') >= 0, tcp ? TCP_OPTIONS : OPTIONS);
        if (opts.containsKey("profile")) {
            try {
                DeviceProfile.named(opts.get("profile"));
            } catch (IllegalArgumentException e) {
                throw DatException.invalidParameter("IA name '" + shown + "': " + e.getMessage());
            }
        }
        if (tcp) {
            InetSocketAddress listen = hostPort(shown, uri);
            String fabric = opts.getOrDefault("fabric", DEFAULT_TCP_FABRIC);
            String node = opts.getOrDefault("node", uri.getRawAuthority());
            String insecure = opts.get("insecure");
            if (insecure != null && !insecure.equals("true") && !insecure.equals("false")) {
                throw DatException.invalidParameter(
                        "IA name '" + shown + "': option insecure is true or false, not '" + insecure + "'");
            }
            return new IaName(name, fabric, node, Collections.unmodifiableMap(opts), listen);
        }
        String authority = uri.getRawAuthority();
        String path = uri.getRawPath();
        if (authority == null || path == null || path.length() < 2 || path.indexOf('/', 1) >= 0) {
            throw DatException.invalidParameter("IA name '" + shown + "' is not sim:<fabric>/<device>");
        }
        String mode = opts.getOrDefault("mode", "deterministic");
        if (!mode.equals("deterministic") && !mode.equals("threaded")) {
            throw DatException.invalidParameter(
                    "IA name '" + shown + "': option mode is deterministic or threaded, not '" + mode + "'");
        }
        return new IaName(
                name,
                decode(shown, "fabric", authority),
                decode(shown, "device", path.substring(1)),
                Collections.unmodifiableMap(opts),
                null);
    }

    private static Map<String, String> options(String shown, String query, boolean hasQuery, Set<String> known) {
        Map<String, String> opts = new LinkedHashMap<>();
        if (!hasQuery) {
            return opts;
        }
        if (query == null || query.isEmpty()) {
            throw DatException.invalidParameter("IA name '" + shown + "': empty option list after '?'");
        }
        for (String kv : query.split("&", -1)) {
            if (kv.isEmpty()) {
                throw DatException.invalidParameter("IA name '" + shown + "': empty option (a stray '&')");
            }
            int eq = kv.indexOf('=');
            String k = eq < 0 ? kv : kv.substring(0, eq);
            if (k.equals("key") || k.equals("keyFile")) {
                throw DatException.invalidParameter("IA name '" + shown + "': option " + k + " (a pre-shared key) was "
                        + "replaced by TLS: give tls=<directory> with the credentials 'simrdma keygen' made");
            }
            if (!known.contains(k)) {
                throw DatException.invalidParameter("IA name '" + shown + "': unknown option '" + k + "'; known: "
                        + new java.util.TreeSet<>(known));
            }
            if (eq < 0 || eq == kv.length() - 1) {
                throw DatException.invalidParameter("IA name '" + shown + "': option " + k + " has no value");
            }
            if (opts.containsKey(k)) {
                throw DatException.invalidParameter("IA name '" + shown + "': option " + k + " is given twice");
            }
            String v = decode(shown, k, kv.substring(eq + 1));
            if (v.isEmpty()) {
                throw DatException.invalidParameter("IA name '" + shown + "': option " + k + " has no value");
            }
            checkNumber(shown, k, v);
            opts.put(k, v);
        }
        return opts;
    }

    /** A numeric option: a long for seed; 1..2^31-1 for a limit (mtu's own range is DeviceConfig's to check). */
    private static void checkNumber(String shown, String k, String v) {
        if (!NUMERIC.contains(k)) {
            return;
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw DatException.invalidParameter(
                    "IA name '" + shown + "': option " + k + " needs a number, not '" + v + "'");
        }
        if (INT_OPTIONS.contains(k) && (n < 1 || n > Integer.MAX_VALUE)) {
            throw DatException.invalidParameter(
                    "IA name '" + shown + "': option " + k + " must be 1 to " + Integer.MAX_VALUE + ", not " + v);
        }
    }

    /** A percent-encoded part of the name, decoded. */
    private static String decode(String shown, String what, String raw) {
        try {
            return new URI("x:" + raw).getSchemeSpecificPart();
        } catch (URISyntaxException e) {
            throw DatException.invalidParameter("IA name '" + shown + "': " + what + " is malformed: " + e.getReason());
        }
    }

    private static InetSocketAddress hostPort(String shown, URI uri) {
        String host = uri.getHost();
        String path = uri.getRawPath();
        if (host == null || (path != null && !path.isEmpty())) {
            throw DatException.invalidParameter("IA name '" + shown + "' is not simtcp:<host>:<port>");
        }
        if (uri.getPort() < 0) {
            throw DatException.invalidParameter(
                    "IA name '" + shown + "': a port is needed (simtcp:<host>:<port>, 0 for any)");
        }
        if (uri.getPort() > 0xFFFF) {
            throw DatException.invalidParameter("IA name '" + shown + "': port must be 0..65535, not " + uri.getPort());
        }
        return InetSocketAddress.createUnresolved(host, uri.getPort());
    }

    boolean threaded() {
        return tcp() || "threaded".equals(options.get("mode"));
    }

    boolean insecure() {
        return "true".equals(options.get("insecure"));
    }

    /** The device profile the name asks for ({@code profile=}), or the default. */
    DeviceProfile profile() {
        String p = options.get("profile");
        return p == null ? DeviceProfile.DEFAULT : DeviceProfile.named(p);
    }

    long seed() {
        return Long.parseLong(options.getOrDefault("seed", "0"));
    }

    /** Whether the name asks for a trace digest ({@code traceDigest=true}). */
    boolean traceDigest() {
        String v = options.get("traceDigest");
        if (v == null || v.equals("false")) {
            return false;
        }
        if (!v.equals("true")) {
            throw DatException.invalidParameter("IA name option traceDigest must be true or false, not " + v);
        }
        return true;
    }

    int intOption(String key, int defaultValue) {
        String v = options.get(key);
        return v == null ? defaultValue : Integer.parseInt(v);
    }
}
