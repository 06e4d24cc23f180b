package io.simrdma.tools.perf;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * Runs a test: for each layer, connects the two sides (in this JVM on a deterministic or threaded
 * fabric, or across TCP through {@link TcpPerf}), then for each size a warm-up (rounds of the
 * warm-up iterations until {@link PerfSettings#warmupMillis} have passed, so that the measured run
 * sees the JIT's compiled code), the measured run and the baseline beside it, and adds each figure
 * to the report.
 *
 * <p>Thread safety: not thread-safe; one run at a time.
 */
final class PerfRunner {

    private static final AtomicInteger RUNS = new AtomicInteger();

    private final PerfSettings s;
    private final Report report;
    private final Progress progress;
    private final PerfCapture capture;

    PerfRunner(PerfSettings settings, Report report, Progress progress, PerfCapture capture) {
        this.s = settings;
        this.report = report;
        this.progress = progress;
        this.capture = capture;
    }

    /** Runs every layer and size in this JVM (deterministic or threaded fabric). */
    void runInProcess() {
        boolean deterministic = s.mode() == PerfSettings.Mode.DETERMINISTIC;
        for (PerfSettings.Layer layer : s.layer().runs()) {
            int run = RUNS.incrementAndGet();
            if (layer == PerfSettings.Layer.VERBS) {
                Fabric.Builder b = Fabric.builder().name("perf-" + run);
                try (Fabric fabric = deterministic
                        ? b.deterministic(s.seed()).build()
                        : b.threaded().build()) {
                    capture.add(fabric);
                    Device a = fabric.createDevice(DeviceConfig.named("client"));
                    Device c = fabric.createDevice(DeviceConfig.named("server"));
                    VerbsSide[] sides = VerbsSide.pair(a, c, s, !deterministic);
                    try {
                        runLayer(sides[0], new Peer.Local(sides[1], s, deterministic), sides[1]);
                    } finally {
                        sides[0].close();
                        sides[1].close();
                    }
                }
            } else {
                String opts = deterministic ? "?seed=" + s.seed() : "?mode=threaded";
                InterfaceAdapter client = DatSide.open("sim:perf-" + run + "/client" + opts);
                InterfaceAdapter server;
                try {
                    capture.add(client);
                    server = DatSide.open("sim:perf-" + run + "/server");
                } catch (RuntimeException e) {
                    client.close();
                    throw e;
                }
                DatSide[] sides = DatSide.pair(client, server, s);
                try {
                    runLayer(sides[0], new Peer.Local(sides[1], s, deterministic), sides[1]);
                } finally {
                    sides[0].close();
                    sides[1].close();
                }
            }
        }
    }

    /**
     * Runs every size on connected sides: the client measures, {@code peer} runs the server's part.
     * {@code localServer} is the server side when it is in this JVM (its receives are posted here), else null.
     */
    void runLayer(PerfSide client, Peer peer, PerfSide localServer) {
        postInitialReceives(s, client, localServer);
        for (int size : s.sizes()) {
            report.add(measure(client, peer, size));
        }
    }

    /**
     * SEND tests need receives posted before the first message: the server keeps rx-depth posted on
     * each QP, and for send-lat the client too (each side reposts one per completion).
     */
    static void postInitialReceives(PerfSettings s, PerfSide client, PerfSide server) {
        if (s.test().verb() != PerfTest.Verb.SEND) {
            return;
        }
        for (int q = 0; q < s.qps(); q++) {
            if (server != null) {
                server.postRecv(q, s.rxDepth());
            }
            if (client != null && s.test() == PerfTest.SEND_LAT) {
                client.postRecv(q, s.rxDepth());
            }
        }
    }

    private Figure measure(PerfSide client, Peer peer, int size) {
        PerfTest t = s.test();
        client.prepare(t.verb(), size);
        peer.prepare(size);
        String label = t.label() + " " + size + " B " + client.layer().name().toLowerCase(Locale.ROOT);
        if (s.warmup() > 0) {
            progress.begin(label + " warm-up");
            long until = System.nanoTime() + s.warmupMillis() * 1_000_000L;
            do {
                once(client, peer, size, s.warmup());
            } while (System.nanoTime() - until < 0);
        }
        progress.begin(label);
        Object r = once(client, peer, size, s.iterations());
        progress.end();
        if (t.isLatency()) {
            Histogram base = peer.latencyBaseline(size, Math.max(10_000, s.iterations()));
            return new Figure.Lat(
                    client.layer(), size, s.iterations(), (Histogram) r, base, t.rttFactor(), peer.baseline(true));
        }
        BwLoop.Result b = (BwLoop.Result) r;
        double[] base = peer.bandwidthBaseline(size, b.messages());
        return new Figure.Bw(
                client.layer(),
                size,
                s.iterations(),
                b.peakMessagesPerSecond(),
                b.messagesPerSecond(),
                base[0],
                base[1],
                peer.baseline(false));
    }

    private Object once(PerfSide client, Peer peer, int size, int iterations) {
        ServerRole role = peer.begin(size);
        try {
            if (s.test().isLatency()) {
                return LatLoop.run(client, role, s.test(), size, iterations, progress);
            }
            return BwLoop.run(client, role, s, iterations, progress);
        } finally {
            peer.end();
        }
    }
}
