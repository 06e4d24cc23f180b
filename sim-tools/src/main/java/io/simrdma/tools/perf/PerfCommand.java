package io.simrdma.tools.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code simrdma perf}: perftest for the simulated fabric. Runs one of perftest's tests on the verbs
 * or the DAT layer, in this JVM (deterministic or threaded fabric) or between two JVMs over TCP, and
 * prints perftest's table with a baseline measured in the same run beside every figure.
 *
 * <p>Thread safety: not thread-safe; picocli fills one instance per command line, which runs once.
 */
@Command(
        name = "perf",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Measures the fabric as perftest measures an HCA (ib_write_bw, ib_read_bw, ib_send_bw, "
                    + "ib_write_lat, ib_read_lat, ib_send_lat, ib_atomic_lat), on the verbs or the DAT layer, and prints each "
                    + "figure beside a baseline measured in the same run (a memory copy, a thread hand-off, a spinning round "
                    + "trip; between two JVMs a raw Netty stream and ping-pong) and the ratio to it.",
            "Two JVMs or hosts: 'simrdma perf --listen HOST:PORT' on one, 'simrdma perf TEST --peer HOST:PORT' on the "
                    + "other (the client's settings apply to both). 'connect-scale' connects DAT endpoint pairs in "
                    + "this JVM and reports set-up time and heap per pair."
        },
        footerHeading = "%nTests:%n",
        footer = {
            "  write-bw, read-bw, send-bw      bandwidth: tx-depth requests outstanding per QP",
            "  write-lat, read-lat, send-lat   latency of one operation at a time (write/send: half the round trip)",
            "  atomic-lat                      latency of an 8-byte FETCH_AND_ADD (verbs only)",
            "  connect-scale                   DAT endpoint pairs connected in one JVM: time and heap per pair"
        })
public final class PerfCommand implements Callable<Integer> {

    /** The largest message perftest moves (-a runs 2 bytes to this). */
    static final int MAX_SIZE = 8 * 1024 * 1024;

    /**
     * The default warm-up lasts at least this long per size: the engine's hot paths are many methods,
     * and C2 needs about a second of a core to compile them; a run of 1000 1 MiB WRITEs after as many
     * warm-up ones (0.1-0.2 s in all) otherwise measured mostly interpreted and C1 code.
     */
    static final long DEFAULT_WARMUP_MILLIS = 1000;

    @Spec
    CommandSpec spec;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "TEST",
            description = "write-bw, read-bw, send-bw, write-lat, read-lat, send-lat, atomic-lat or connect-scale")
    String testName;

    @Option(
            names = {"-s", "--size"},
            paramLabel = "BYTES",
            description = "message size (default: 65536 for bandwidth, 2 for latency, 8 for atomics)")
    Integer size;

    @Option(
            names = {"-a", "--all"},
            description = "run every size from 2 bytes to 8 MiB, doubling")
    boolean all;

    @Option(
            names = {"-n", "--iters"},
            paramLabel = "N",
            description = "iterations per size (default: 5000 bandwidth, 1000 latency)")
    Integer iterations;

    @Option(
            names = "--warmup",
            paramLabel = "N",
            description = "warm-up iterations per size, not counted (default: as many as --iters)")
    Integer warmup;

    @Option(
            names = "--warmup-time",
            paramLabel = "MS",
            description = "the warm-up repeats its iterations until it has lasted this long, for the JIT"
                    + " (default: 1000, or 0 when --warmup is given)")
    Long warmupTime;

    @Option(
            names = {"-q", "--qp"},
            paramLabel = "N",
            defaultValue = "1",
            description = "QPs (endpoint pairs) side by side (default: ${DEFAULT-VALUE})")
    int qps;

    @Option(
            names = {"-t", "--tx-depth"},
            paramLabel = "N",
            description = "requests outstanding per QP (default: 128 bandwidth, 1 latency)")
    Integer txDepth;

    @Option(
            names = {"-r", "--rx-depth"},
            paramLabel = "N",
            defaultValue = "512",
            description = "receives kept posted per QP for SEND tests (default: ${DEFAULT-VALUE})")
    int rxDepth;

    @Option(
            names = {"-Q", "--cq-mod"},
            paramLabel = "N",
            description = "signal one request in N (default: 100, at most tx-depth; latency tests signal each)")
    Integer cqMod;

    @Option(
            names = {"-l", "--post-list"},
            paramLabel = "N",
            defaultValue = "1",
            description = "requests per post call, chained on the verbs layer (default: ${DEFAULT-VALUE})")
    int postList;

    @Option(
            names = {"-I", "--inline-size"},
            paramLabel = "BYTES",
            defaultValue = "0",
            description = "send messages up to this size inline (verbs only; default: ${DEFAULT-VALUE})")
    int inline;

    @Option(
            names = "--layer",
            defaultValue = "verbs",
            paramLabel = "LAYER",
            description = "verbs, dat, or both (verbs then DAT per size, with their ratio) (default: ${DEFAULT-VALUE})")
    String layer;

    @Option(
            names = "--mode",
            defaultValue = "threaded",
            paramLabel = "MODE",
            description =
                    "deterministic, threaded, or tcp (two TCP nodes in this JVM unless --peer/--listen) (default: ${DEFAULT-VALUE})")
    String mode;

    @Option(
            names = {"-e", "--events"},
            description = "bandwidth tests: sleep until completions arrive instead of busy-polling (perftest's -e): "
                    + "a completion channel on the verbs layer, dat_evd_wait on DAT; not with --mode deterministic, "
                    + "where the polling thread runs the fabric")
    boolean events;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "seed of a deterministic fabric (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
            names = "--listen",
            paramLabel = "HOST:PORT",
            description =
                    "be the server of a TCP run: wait for one client on this control address, run its settings, exit")
    String listen;

    @Option(
            names = "--peer",
            paramLabel = "HOST:PORT",
            description = "be the client of a TCP run against the server at this control address")
    String peer;

    @Option(
            names = "--pairs",
            paramLabel = "N",
            defaultValue = "2000",
            description = "connect-scale: endpoint pairs to connect (default: ${DEFAULT-VALUE})")
    int pairs;

    @Option(
            names = "--ias",
            paramLabel = "N",
            defaultValue = "1",
            description = "connect-scale: client IAs the pairs are spread over (default: ${DEFAULT-VALUE})")
    int ias;

    @Option(
            names = "--pcap",
            paramLabel = "FILE",
            description =
                    "write this side's packets to FILE (pcapng, RoCEv2; every layer run into one file). Every packet "
                            + "is written, so use a small --iters; the figures then include the cost of writing it")
    Path pcap;

    @Option(names = "--json", description = "print the results as one JSON document instead of the table")
    boolean json;

    @Option(names = "--no-progress", description = "no progress line on the error stream during long runs")
    boolean noProgress;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            if (listen != null) {
                if (testName != null || peer != null) {
                    throw usage("--listen takes no TEST and no --peer: the client's settings apply");
                }
                try (TcpPerf.Server server = new TcpPerf.Server(address(listen));
                        PerfCapture capture = new PerfCapture(pcap, "simrdma perf server " + listen)) {
                    out.println("perf server: control socket " + server.address() + ", waiting for one client");
                    out.flush();
                    server.serveOne(out, capture);
                    capture.close();
                    reportCapture(capture, out);
                }
                return 0;
            }
            if (testName == null) {
                throw usage("name a TEST (or --listen to serve a client)");
            }
            if (testName.equals("connect-scale")) {
                if (pcap != null) {
                    throw usage("--pcap captures a TEST's traffic; connect-scale sends only connection set-up");
                }
                if (pairs < 1 || ias < 1) {
                    throw usage("--pairs and --ias must be at least 1");
                }
                new ConnectScale(pairs, ias, out, json).run();
                return 0;
            }
            PerfSettings s = settings();
            Report report = new Report(s, out, json);
            Progress progress = new Progress(err, !noProgress);
            try (PerfCapture capture = new PerfCapture(pcap, "simrdma perf " + testName)) {
                if (s.mode() == PerfSettings.Mode.TCP) {
                    runTcp(s, report, progress, capture);
                } else {
                    new PerfRunner(s, report, progress, capture).runInProcess();
                }
                report.finish();
                capture.close();
                reportCapture(capture, json ? err : out);
            }
            return 0;
        } catch (PerfFailure | IOException e) {
            out.flush();
            err.println("perf FAILED: " + e.getMessage());
            return 1;
        } catch (UncheckedIOException e) {
            out.flush();
            err.println("perf FAILED: " + e.getMessage() + " " + pcap + ": " + e.getCause());
            return 1;
        }
    }

    /** Says where the capture went (on the error stream under --json, so stdout stays one JSON document). */
    private static void reportCapture(PerfCapture capture, PrintWriter to) {
        if (capture.enabled()) {
            to.println("capture: " + capture.frames() + " packets written to " + capture.file());
            to.flush();
        }
    }

    private void runTcp(PerfSettings s, Report report, Progress progress, PerfCapture capture) throws IOException {
        if (peer != null) {
            TcpPerf.runClient(address(peer), s, report, progress, capture);
            return;
        }
        // Both nodes in this JVM: the server side serves from a thread of its own, as it would from another JVM.
        try (TcpPerf.Server server = new TcpPerf.Server(new InetSocketAddress("127.0.0.1", 0))) {
            PrintWriter quiet = new PrintWriter(java.io.Writer.nullWriter());
            Thread t = new Thread(
                    () -> {
                        try {
                            server.serveOne(quiet, new PerfCapture(null, null));
                        } catch (IOException | RuntimeException e) {
                            // the client reports the failure it sees
                        }
                    },
                    "simrdma-perf-tcp-server");
            t.setDaemon(true);
            t.start();
            report.note("Both TCP nodes : in this JVM (over 127.0.0.1); use --listen/--peer for two JVMs");
            TcpPerf.runClient(server.address(), s, report, progress, capture);
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Checks the options and makes the settings (perftest's limits where they apply). */
    PerfSettings settings() {
        PerfTest test = PerfTest.of(testName);
        if (test == null) {
            throw usage("unknown test '" + testName + "'");
        }
        PerfSettings.Layer l = parse(PerfSettings.Layer.class, layer, "--layer");
        PerfSettings.Mode m = parse(PerfSettings.Mode.class, mode, "--mode");
        if (peer != null) {
            m = PerfSettings.Mode.TCP;
        }
        List<Integer> sizes = new ArrayList<>();
        if (all) {
            if (size != null || test == PerfTest.ATOMIC_LAT) {
                throw usage("-a runs every size: give no --size, and atomics have one size (8)");
            }
            for (int b = 2; b <= MAX_SIZE; b *= 2) {
                sizes.add(b);
            }
        } else {
            int sz = size == null ? test.defaultSize() : size;
            if (test == PerfTest.ATOMIC_LAT && sz != 8) {
                throw usage("an atomic moves 8 bytes: --size must be 8");
            }
            if (sz < 1 || sz > MAX_SIZE) {
                throw usage("--size must be 1 to " + MAX_SIZE);
            }
            sizes.add(sz);
        }
        int iters = iterations == null ? test.defaultIterations() : iterations;
        if (iters < 5 || iters > 100_000_000) {
            throw usage("--iters must be 5 to 100000000 (perftest's limits)");
        }
        int warm = warmup == null ? iters : warmup;
        if (warm < 0) {
            throw usage("--warmup must not be negative");
        }
        long warmMillis = warmupTime == null ? (warmup == null ? DEFAULT_WARMUP_MILLIS : 0) : warmupTime;
        if (warmMillis < 0 || warmMillis > 600_000) {
            throw usage("--warmup-time must be 0 to 600000 ms");
        }
        int tx = txDepth == null ? (test.isLatency() ? 1 : 128) : txDepth;
        int mod = test.isLatency() ? 1 : cqMod == null ? Math.min(100, tx) : cqMod;
        if (test.isLatency() && (qps != 1 || tx != 1 || postList != 1)) {
            throw usage("latency tests run one operation at a time on one QP: no --qp, --tx-depth or --post-list");
        }
        if (qps < 1 || qps > 256) {
            throw usage("--qp must be 1 to 256");
        }
        if (tx < 1 || tx > 15_000) {
            throw usage("--tx-depth must be 1 to 15000 (perftest's limits)");
        }
        if (mod < 1 || mod > tx) {
            throw usage("--cq-mod must be 1 to --tx-depth (" + tx
                    + "): a send queue full of unsignalled requests never completes");
        }
        if (postList < 1 || postList > tx) {
            throw usage("--post-list must be 1 to --tx-depth (" + tx + ")");
        }
        if (rxDepth < 1 || rxDepth > 16_384) {
            throw usage("--rx-depth must be 1 to 16384");
        }
        if (test == PerfTest.SEND_BW && rxDepth < tx) {
            throw usage("send-bw needs --rx-depth >= --tx-depth, or SENDs meet no receive (RNR)");
        }
        if ((long) qps * Math.max(tx, rxDepth) > 65_535) {
            throw usage("--qp x --tx-depth (and x --rx-depth) must stay within a CQ of 65535 entries");
        }
        if (inline < 0 || inline > 512) {
            throw usage("--inline-size must be 0 to 512 (the device's max_inline_data)");
        }
        if (l != PerfSettings.Layer.VERBS && (test == PerfTest.ATOMIC_LAT || inline > 0)) {
            throw usage("DAT 1.2 has no atomics and no inline data: atomic-lat and --inline-size need --layer verbs");
        }
        if (events && test.isLatency()) {
            throw usage(
                    "--events applies to the bandwidth tests; the latency tests busy-poll, as perftest's do by default");
        }
        if (events && m == PerfSettings.Mode.DETERMINISTIC) {
            throw usage("--events needs a fabric that runs without the polling thread: --mode threaded or tcp");
        }
        return new PerfSettings(
                test, sizes, iters, warm, warmMillis, qps, tx, rxDepth, mod, postList, inline, l, m, seed, events);
    }

    private <E extends Enum<E>> E parse(Class<E> type, String v, String option) {
        try {
            return Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw usage(option + " must be one of "
                    + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT));
        }
    }

    private InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        try {
            return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw usage("an address must be HOST:PORT, not " + hostPort);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
