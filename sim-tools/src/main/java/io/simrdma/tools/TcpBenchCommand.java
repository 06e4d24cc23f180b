package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.tcp.FabricPki;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code simrdma bench-tcp}: what protection costs. Runs the {@code node}/{@code ping} exchange
 * over loopback TCP in this JVM twice, plain and with TLS (credentials made for the run in a
 * temporary directory), after a warm-up of each, and prints ping-pong latency and RDMA WRITE and
 * READ throughput side by side.
 */
@Command(
        name = "bench-tcp",
        mixinStandardHelpOptions = true,
        versionProvider = Simrdma.Version.class,
        description = {
            "Measures the TCP fabric plain and with TLS side by side in one run: message ping-pong round "
                    + "trips through the DAT API (SEND, echoed by a node) and RDMA WRITE and READ throughput, over loopback, "
                    + "both nodes in this JVM. Each mode is warmed up first. The figures depend on the machine and its load; "
                    + "compare the columns, not runs."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:failure: a run failed (the message says why)", "2:usage error"})
final class TcpBenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CliOutput.Verbosity verbosity;

    @Option(
            names = "--count",
            defaultValue = "20000",
            description = "ping-pong round trips per mode (default: ${DEFAULT-VALUE})")
    int count;

    @Option(
            names = "--size",
            defaultValue = "64",
            description = "bytes per message, 1 to 65536 (default: ${DEFAULT-VALUE})")
    int size;

    @Option(
            names = "--rdma-rounds",
            defaultValue = "64",
            description = "RDMA WRITEs (then READs) of 1 MiB per mode, one at a time (default: ${DEFAULT-VALUE})")
    int rounds;

    /** One mode's figures. */
    private record Figures(double medianUs, double p99Us, double writeMBps, double readMBps) {}

    @Override
    public Integer call() {
        if (count < 1 || size < 1 || size > EchoNode.SLOT_SIZE || rounds < 1) {
            throw new ParameterException(
                    spec.commandLine(),
                    count < 1
                            ? "--count must be at least 1, not " + count
                            : rounds < 1
                                    ? "--rdma-rounds must be at least 1, not " + rounds
                                    : "--size must be 1 to " + EchoNode.SLOT_SIZE + " bytes, not " + size);
        }
        PrintWriter out = spec.commandLine().getOut();
        Path dir = credentials();
        try {
            String plainA = "simtcp:127.0.0.1:0?node=bench-node&fabric=bench";
            String plainB = "simtcp:127.0.0.1:0?node=bench-ping&fabric=bench";
            String tlsA =
                    plainA + "&tls=" + TcpIaOptions.encode(dir.resolve("a").toString());
            String tlsB =
                    plainB + "&tls=" + TcpIaOptions.encode(dir.resolve("b").toString());
            if (!CliOutput.quiet()) {
                out.println("warming up ...");
                out.flush();
            }
            run(plainA, plainB, Math.min(count, 2000), Math.min(rounds, 8));
            run(tlsA, tlsB, Math.min(count, 2000), Math.min(rounds, 8));
            Figures plain = run(plainA, plainB, count, rounds);
            Figures tls = run(tlsA, tlsB, count, rounds);
            out.printf(
                    "TCP fabric over loopback, %d round trips of %d bytes and %d x 1 MiB RDMA per mode%n",
                    count, size, rounds);
            out.printf("%-34s %12s %12s %8s%n", "", "plain TCP", "TLS 1.3", "TLS/plain");
            row(out, "ping-pong round trip, median (us)", plain.medianUs(), tls.medianUs());
            row(out, "ping-pong round trip, p99 (us)", plain.p99Us(), tls.p99Us());
            row(out, "RDMA WRITE throughput (MB/s)", plain.writeMBps(), tls.writeMBps());
            row(out, "RDMA READ throughput (MB/s)", plain.readMBps(), tls.readMBps());
            out.flush();
            return CliOutput.OK;
        } finally {
            delete(dir);
        }
    }

    private static void row(PrintWriter out, String what, double plain, double tls) {
        out.printf("%-34s %12.1f %12.1f %8.2f%n", what, plain, tls, tls / plain);
    }

    /** One node IA serving, one ping IA measuring; both closed afterwards. */
    private Figures run(String nodeName, String pingName, int n, int r) {
        InterfaceAdapter nodeIa = Dat.openIa(nodeName, 64);
        InterfaceAdapter pingIa = null;
        Thread server = null;
        try {
            EchoNode node = new EchoNode(nodeIa, 1, 1 << 20, 60_000, true, new PrintWriter(new StringWriter()));
            server = new Thread(() -> node.serve(1, () -> false), "bench-node");
            server.setDaemon(true);
            server.start();
            pingIa = Dat.openIa(pingName, 16);
            InetSocketAddress target =
                    (InetSocketAddress) nodeIa.query().iaAttributes().iaAddress();
            PingClient.Result res = new PingClient(pingIa, new PrintWriter(new StringWriter()), true, () -> false)
                    .run(new PingClient.Plan(target, 1, n, size, 1 << 20, 1, Timeout.ofMillis(30_000), r));
            server.join(30_000);
            long[] s = res.rttNanos().clone();
            Arrays.sort(s);
            double mb = (double) r * (1 << 20) / 1e6;
            return new Figures(
                    s[s.length / 2] / 1e3,
                    s[Math.min(s.length - 1, (int) (s.length * 0.99))] / 1e3,
                    mb / (res.writeNanos() / 1e9),
                    mb / (res.readNanos() / 1e9));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliOutput.CommandFailure("interrupted");
        } catch (PingClient.PingFailure e) {
            throw new CliOutput.CommandFailure(
                    "the run over " + (nodeName.contains("tls=") ? "TLS" : "plain TCP") + " failed: " + e.getMessage());
        } finally {
            if (pingIa != null) {
                pingIa.close(CloseFlag.ABRUPT);
            }
            nodeIa.close(CloseFlag.ABRUPT);
        }
    }

    /** A fabric CA and two nodes' credentials for 127.0.0.1, in a temporary directory. */
    private static Path credentials() {
        try {
            Path dir = Files.createTempDirectory("simrdma-bench-tls");
            List<InetAddress> loopback = List.of(InetAddress.getByName("127.0.0.1"));
            FabricPki.createCa(dir.resolve("ca"), "bench", Duration.ofDays(1));
            FabricPki.createNode(dir.resolve("ca"), dir.resolve("a"), "bench-node", loopback, Duration.ofDays(1));
            FabricPki.createNode(dir.resolve("ca"), dir.resolve("b"), "bench-ping", loopback, Duration.ofDays(1));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the run's TLS credentials: " + e.getMessage(), e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: left for the system to clean
        }
    }
}
