package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The IA names the sim provider serves:
 * <pre>
 *   sim:&lt;fabric&gt;/&lt;device&gt;[?&lt;option&gt;=&lt;value&gt;&amp;...]
 * </pre>
 * An in-process fabric by name (created on first use, shared by every IA that names it) and a
 * device on it (created on first use). Options of the first IA that creates the fabric or the
 * device configure it:
 * <ul>
 *   <li>{@code mode=deterministic} (default) with {@code seed=<long>} (default 0), or
 *       {@code mode=threaded};</li>
 *   <li>device limits {@code maxQp, maxCq, maxCqe, maxMr, maxPd, maxMw, maxSrq, maxQpWr, maxSge,
 *       maxSrqWr, maxInline} and {@code mtu=256..4096}.</li>
 * </ul>
 * A fabric registered with {@link SimProvider#registerFabric} is used as it is.
 *
 * <p>Immutable.
 */
record IaName(String text, String fabric, String device, Map<String, String> options) {

    static final String SCHEME = "sim:";
    private static final Set<String> OPTIONS = Set.of("mode", "seed", "maxQp", "maxCq", "maxCqe", "maxMr", "maxPd",
            "maxMw", "maxSrq", "maxQpWr", "maxSge", "maxSrqWr", "maxInline", "mtu");

    /** True if {@code name} is in the sim provider's syntax (it may still be malformed). */
    static boolean isSim(String name) {
        return name != null && name.startsWith(SCHEME);
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
                    "'" + name + "' is not a sim IA name (sim:<fabric>/<device>)");
        }
        String rest = name.substring(SCHEME.length());
        String query = null;
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1 || rest.indexOf('/', slash + 1) >= 0) {
            throw DatException.invalidParameter("IA name '" + name + "' is not sim:<fabric>/<device>");
        }
        String fabric = rest.substring(0, slash);
        String device = rest.substring(slash + 1);
        Map<String, String> opts = new LinkedHashMap<>();
        if (query != null && !query.isEmpty()) {
            for (String kv : query.split("&")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw DatException.invalidParameter("IA name option '" + kv + "' is not key=value");
                }
                String k = kv.substring(0, eq);
                if (!OPTIONS.contains(k)) {
                    throw DatException.invalidParameter("unknown IA name option '" + k + "'; known: " + OPTIONS);
                }
                opts.put(k, kv.substring(eq + 1));
            }
        }
        String mode = opts.getOrDefault("mode", "deterministic");
        if (!mode.equals("deterministic") && !mode.equals("threaded")) {
            throw DatException.invalidParameter("mode must be deterministic or threaded, not " + mode);
        }
        for (Map.Entry<String, String> e : opts.entrySet()) {
            if (!e.getKey().equals("mode")) {
                try {
                    Long.parseLong(e.getValue());
                } catch (NumberFormatException ex) {
                    throw DatException.invalidParameter("option " + e.getKey() + " needs a number, not " + e.getValue());
                }
            }
        }
        return new IaName(name, fabric, device, Collections.unmodifiableMap(opts));
    }

    boolean threaded() {
        return "threaded".equals(options.get("mode"));
    }

    long seed() {
        return Long.parseLong(options.getOrDefault("seed", "0"));
    }

    int intOption(String key, int defaultValue) {
        String v = options.get(key);
        return v == null ? defaultValue : Integer.parseInt(v);
    }
}
