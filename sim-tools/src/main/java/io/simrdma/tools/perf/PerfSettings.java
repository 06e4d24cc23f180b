package io.simrdma.tools.perf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of {@code simrdma perf}: the test, the message sizes, and perftest's knobs. Checked once
 * by {@link PerfCommand}; a TCP client sends it to the server ({@link #encode}), which runs the
 * same settings.
 *
 * @param test        the test
 * @param sizes       message sizes in bytes, in the order they run
 * @param iterations  iterations per QP and size (perftest's -n)
 * @param warmup      warm-up iterations per QP and size, run and discarded before the measured ones
 * @param warmupMillis the warm-up's rounds of {@code warmup} iterations repeat until they have lasted at
 *                    least this long (0: one round), so that the JIT has compiled the hot paths before
 *                    the measured run; only the client needs it
 * @param qps         connections (QP or endpoint pairs) used side by side (perftest's -q)
 * @param txDepth     requests outstanding per QP (perftest's -t)
 * @param rxDepth     receives kept posted per QP for SEND tests (perftest's -r)
 * @param cqMod       one request in {@code cqMod} is signalled (perftest's --cq-mod); the last always is
 * @param postList    requests posted per call: a chain of work requests on the verbs layer (perftest's -l)
 * @param inline      largest message sent inline (verbs only; 0 for none)
 * @param layer       which API the test drives
 * @param mode        where the fabric runs
 * @param seed        seed of a deterministic fabric
 * @param events      bandwidth tests only: wait for completions asleep (a completion channel on the verbs
 *                    layer, dat_evd_wait on DAT) instead of busy-polling (perftest's -e)
 */
record PerfSettings(
        PerfTest test,
        List<Integer> sizes,
        int iterations,
        int warmup,
        long warmupMillis,
        int qps,
        int txDepth,
        int rxDepth,
        int cqMod,
        int postList,
        int inline,
        Layer layer,
        Mode mode,
        long seed,
        boolean events) {

    /** The API a test drives. */
    enum Layer {
        /** The verbs API of sim-fabric (io.simrdma.fabric). */
        VERBS,
        /** The DAT 1.2 API through the registry (io.simrdma.dat). */
        DAT,
        /** Both, one after the other for each size, the verbs figure beside the DAT one. */
        BOTH;

        /** The layers a run measures, verbs first. */
        List<Layer> runs() {
            return this == BOTH ? List.of(VERBS, DAT) : List.of(this);
        }
    }

    /** Where the fabric runs. */
    enum Mode {
        /** Virtual time, one thread: the measuring thread runs the engine when it polls. */
        DETERMINISTIC,
        /** Real time, a thread per device; the server side runs on a thread of its own. */
        THREADED,
        /** Two TCP nodes (in two JVMs with --listen/--peer, or both in this one), the server side on its own thread. */
        TCP
    }

    PerfSettings {
        sizes = List.copyOf(sizes);
    }

    /** The same, busy-polling, with a warm-up of exactly {@code warmup} iterations. */
    PerfSettings(
            PerfTest test,
            List<Integer> sizes,
            int iterations,
            int warmup,
            int qps,
            int txDepth,
            int rxDepth,
            int cqMod,
            int postList,
            int inline,
            Layer layer,
            Mode mode,
            long seed) {
        this(
                test,
                sizes,
                iterations,
                warmup,
                0,
                qps,
                txDepth,
                rxDepth,
                cqMod,
                postList,
                inline,
                layer,
                mode,
                seed,
                false);
    }

    /** The same settings, waiting for completions asleep if {@code on}. */
    PerfSettings withEvents(boolean on) {
        return new PerfSettings(
                test,
                sizes,
                iterations,
                warmup,
                warmupMillis,
                qps,
                txDepth,
                rxDepth,
                cqMod,
                postList,
                inline,
                layer,
                mode,
                seed,
                on);
    }

    /** The largest size: every buffer is made this large once. */
    int maxSize() {
        int m = 8;
        for (int s : sizes) {
            m = Math.max(m, s);
        }
        return m;
    }

    /** Largest number of requests outstanding per QP: tx-depth, at least one post list. */
    int sendQueueDepth() {
        return Math.max(txDepth, postList);
    }

    /** The settings as one line, for the TCP control channel. */
    String encode() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("test", test.label());
        StringBuilder s = new StringBuilder();
        for (int size : sizes) {
            s.append(s.length() == 0 ? "" : ",").append(size);
        }
        m.put("sizes", s.toString());
        m.put("iterations", Integer.toString(iterations));
        m.put("warmup", Integer.toString(warmup));
        m.put("warmupMillis", Long.toString(warmupMillis));
        m.put("qps", Integer.toString(qps));
        m.put("txDepth", Integer.toString(txDepth));
        m.put("rxDepth", Integer.toString(rxDepth));
        m.put("cqMod", Integer.toString(cqMod));
        m.put("postList", Integer.toString(postList));
        m.put("inline", Integer.toString(inline));
        m.put("layer", layer.name());
        m.put("mode", mode.name());
        m.put("seed", Long.toString(seed));
        m.put("events", Boolean.toString(events));
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) ->
                b.append(b.length() == 0 ? "" : ";").append(k).append('=').append(v));
        return b.toString();
    }

    /**
     * The settings {@link #encode} wrote.
     *
     * @throws IllegalArgumentException if the line is not such settings
     */
    static PerfSettings decode(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : line.split(";")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("bad settings field: " + kv);
            }
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        PerfTest test = PerfTest.of(get(m, "test"));
        if (test == null) {
            throw new IllegalArgumentException("unknown test " + m.get("test"));
        }
        List<Integer> sizes = new ArrayList<>();
        for (String s : get(m, "sizes").split(",")) {
            sizes.add(Integer.parseInt(s));
        }
        return new PerfSettings(
                test,
                sizes,
                num(m, "iterations"),
                num(m, "warmup"),
                Long.parseLong(m.getOrDefault("warmupMillis", "0")),
                num(m, "qps"),
                num(m, "txDepth"),
                num(m, "rxDepth"),
                num(m, "cqMod"),
                num(m, "postList"),
                num(m, "inline"),
                Layer.valueOf(get(m, "layer")),
                Mode.valueOf(get(m, "mode")),
                Long.parseLong(get(m, "seed")),
                Boolean.parseBoolean(get(m, "events")));
    }

    private static String get(Map<String, String> m, String k) {
        String v = m.get(k);
        if (v == null) {
            throw new IllegalArgumentException("settings lack " + k);
        }
        return v;
    }

    private static int num(Map<String, String> m, String k) {
        return Integer.parseInt(get(m, k));
    }
}
