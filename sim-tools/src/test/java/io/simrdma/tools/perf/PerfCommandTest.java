package io.simrdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code simrdma perf}: every test runs and reports perftest's columns with its baseline, on every
 * layer and fabric mode; bad settings are usage errors. Speed is not asserted (that is what the
 * tool measures): only that each figure is there and positive.
 */
class PerfCommandTest {

    private record Run(int exitCode, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new PerfCommand()).setCaseInsensitiveEnumValuesAllowed(true);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /** The numbers of the table's first row starting with {@code prefix} (a size, or a layer then the size). */
    private static double[] row(String out, String prefix) {
        for (String line : out.split("\n")) {
            if (line.startsWith(prefix)) {
                return java.util.Arrays.stream(line.trim().split("[\\s|]+"))
                        .filter(t -> t.matches("[0-9.]+"))
                        .mapToDouble(Double::parseDouble)
                        .toArray();
            }
        }
        throw new AssertionError("no row starting with '" + prefix + "' in:\n" + out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"write-bw", "read-bw", "send-bw"})
    @DisplayName(
            "bandwidth tests print perftest's columns (ib_write_bw: #bytes #iterations BW peak, BW average, MsgRate) and a baseline with its ratio")
    void shouldReportBandwidthBesideItsBaselineWhenRunDeterministically(String test) {
        Run r = run(
                test,
                "--mode",
                "deterministic",
                "-s",
                "4096",
                "-n",
                "200",
                "--warmup",
                "50",
                "-t",
                "16",
                "-Q",
                "4",
                "--no-progress");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(
                r.out().contains("#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"),
                r.out());
        double[] v = row(r.out(), " 4096 ");
        assertEquals(4096, v[0], 0, "size column");
        assertEquals(200, v[1], 0, "iterations column");
        for (int i = 2; i < v.length; i++) {
            assertTrue(v[i] > 0, "column " + i + " should be positive: " + r.out());
        }
        // the ratio columns are the figure over the baseline
        assertEquals(v[3] / v[5], v[6], 0.01 + v[6] * 0.01, "BW ratio = average / baseline:\n" + r.out());
        assertEquals(v[4] / v[7], v[8], 0.01 + v[8] * 0.01, "rate ratio = MsgRate / baseline:\n" + r.out());
    }

    @Test
    @DisplayName(
            "the default warm-up repeats its iterations for at least a second, so the JIT has compiled the hot paths")
    void shouldWarmUpForAtLeastTheWarmupTime() {
        long t = System.nanoTime();
        Run r = run("write-bw", "--mode", "deterministic", "-s", "4096", "-n", "20", "-t", "4", "--no-progress");
        long millis = (System.nanoTime() - t) / 1_000_000;
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(
                r.out()
                        .contains(
                                "Warm-up         : 20 iterations per size, repeated for at least 1000 ms, not counted"),
                r.out());
        assertTrue(millis >= 1000, "a run with the default warm-up took " + millis + " ms, expected >= 1000");
        Run given =
                run("write-bw", "--mode", "deterministic", "-s", "4096", "-n", "20", "--warmup", "5", "--no-progress");
        assertTrue(given.out().contains("Warm-up         : 5 iterations per size, not counted"), given.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"write-lat", "read-lat", "send-lat", "atomic-lat"})
    @DisplayName(
            "latency tests print perftest's columns (t_min .. 99.9% percentile) and the spinning round trip beside t_typical")
    void shouldReportLatencyPercentilesWhenRunDeterministically(String test) {
        Run r = run(test, "--mode", "deterministic", "-n", "300", "--warmup", "50", "--no-progress");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(
                r.out()
                        .contains("t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
                                + "99% percentile[usec]   99.9% percentile[usec]"),
                r.out());
        String size = test.equals("atomic-lat") ? " 8 " : " 2 ";
        double[] v = row(r.out(), size);
        assertEquals(300, v[1], 0, "iterations column");
        assertTrue(v[2] <= v[4] && v[4] <= v[3], "t_min <= t_typical <= t_max:\n" + r.out());
        assertTrue(v[4] <= v[7] && v[7] <= v[8], "t_typical <= p99 <= p99.9:\n" + r.out());
        assertTrue(v[9] > 0 && v[10] > 0, "baseline and ratio are positive:\n" + r.out());
    }

    @Test
    @DisplayName("--layer both runs verbs then DAT for each size and prints DAT over verbs")
    void shouldCompareTheLayersWhenBothAreAsked() {
        Run r = run(
                "send-lat",
                "--mode",
                "deterministic",
                "--layer",
                "both",
                "-n",
                "200",
                "--warmup",
                "20",
                "--no-progress");
        assertEquals(0, r.exitCode(), r.err());
        double[] verbs = row(r.out(), " verbs ");
        double[] dat = row(r.out(), " dat    ");
        assertEquals(verbs.length + 1, dat.length, "the DAT row has the dat/verbs column:\n" + r.out());
        assertEquals(dat[4] / verbs[4], dat[dat.length - 1], 0.01 + dat[dat.length - 1] * 0.01, r.out());
    }

    @Test
    @DisplayName("the threaded fabric runs the server's part on a thread of its own")
    void shouldRunOnTheThreadedFabric() {
        Run r = run("write-lat", "-n", "200", "--warmup", "20", "--layer", "both", "--no-progress");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("Fabric          : threaded"), r.out());
        row(r.out(), " dat    ");
    }

    @Test
    @DisplayName("--mode tcp runs two TCP nodes over loopback with the raw Netty baseline")
    void shouldRunBetweenTwoTcpNodesWithTheNettyBaseline() {
        Run r = run(
                "write-bw",
                "--mode",
                "tcp",
                "--layer",
                "both",
                "-s",
                "65536",
                "-n",
                "100",
                "--warmup",
                "20",
                "--no-progress");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("raw Netty stream"), r.out());
        double[] dat = row(r.out(), " dat    ");
        assertTrue(dat[3] > 0 && dat[5] > 0, r.out());
        Run lat = run("send-lat", "--mode", "tcp", "-s", "64", "-n", "100", "--warmup", "20", "--no-progress");
        assertEquals(0, lat.exitCode(), lat.err());
        assertTrue(lat.out().contains("raw Netty ping-pong"), lat.out());
    }

    @Test
    @DisplayName(
            "-e (perftest's --events): the bandwidth tests sleep on a completion channel (verbs) or in dat_evd_wait (DAT) instead of busy-polling, threaded and over TCP")
    void shouldWaitForCompletionEventsWhenAsked() {
        for (String test : List.of("write-bw", "send-bw")) {
            Run r = run(test, "-e", "-s", "65536", "-n", "200", "--warmup", "20", "--layer", "both", "--no-progress");
            assertEquals(0, r.exitCode(), r.err());
            assertTrue(r.out().contains("Completions     : events"), r.out());
            assertTrue(row(r.out(), " verbs  ")[3] > 0 && row(r.out(), " dat    ")[3] > 0, r.out());
        }
        Run tcp = run(
                "write-bw",
                "--events",
                "--mode",
                "tcp",
                "-s",
                "65536",
                "-n",
                "100",
                "--warmup",
                "20",
                "--layer",
                "both",
                "--no-progress");
        assertEquals(0, tcp.exitCode(), tcp.err());
        assertTrue(tcp.out().contains("Completions     : events"), tcp.out());
        assertTrue(row(tcp.out(), " dat    ")[3] > 0, tcp.out());
        Run polled = run("write-bw", "-s", "4096", "-n", "50", "--warmup", "5", "--no-progress");
        assertTrue(polled.out().contains("Completions     : busy polling"), polled.out());
    }

    @Test
    @DisplayName("--json prints one document with a result per layer and size")
    void shouldPrintJsonWhenAsked() {
        Run r = run(
                "write-bw",
                "--mode",
                "deterministic",
                "-s",
                "1024",
                "-n",
                "100",
                "--warmup",
                "10",
                "-t",
                "8",
                "-Q",
                "4",
                "--layer",
                "both",
                "--json");
        assertEquals(0, r.exitCode(), r.err());
        String j = r.out().trim();
        assertTrue(j.startsWith("{") && j.endsWith("}"), j);
        assertTrue(j.contains("\"test\": \"write-bw\""), j);
        Matcher m = Pattern.compile("\\{\"layer\": \"(verbs|dat)\", \"bytes\": 1024")
                .matcher(j);
        int results = 0;
        while (m.find()) {
            results++;
        }
        assertEquals(2, results, j);
        for (String key : List.of("bwAverageMBps", "baseBwMBps", "bwRatio", "msgRateRatio", "vsVerbs")) {
            assertTrue(j.contains("\"" + key + "\": "), key + " in " + j);
        }
        assertTrue(!j.contains("---"), "no table in JSON output");
    }

    @Test
    @DisplayName("-a runs every size from 2 bytes to 8 MiB (perftest's -a)")
    void shouldRunEverySizeWithAll() {
        Run r = run(
                "write-bw",
                "--mode",
                "deterministic",
                "-a",
                "-n",
                "5",
                "--warmup",
                "0",
                "-t",
                "4",
                "-Q",
                "2",
                "--json");
        assertEquals(0, r.exitCode(), r.err());
        for (int b = 2; b <= PerfCommand.MAX_SIZE; b *= 2) {
            assertTrue(r.out().contains("\"bytes\": " + b + ","), b + " in " + r.out());
        }
    }

    @Test
    @DisplayName("a post list chains requests and several QPs run side by side")
    void shouldPostListsOnSeveralQps() {
        Run r = run(
                "write-bw",
                "--mode",
                "deterministic",
                "-s",
                "8",
                "-n",
                "320",
                "--warmup",
                "0",
                "-q",
                "3",
                "-t",
                "32",
                "-Q",
                "16",
                "-l",
                "8",
                "--layer",
                "both",
                "--no-progress");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("Post List       : 8"), r.out());
        row(r.out(), " dat    ");
    }

    @Test
    @DisplayName("connect-scale connects DAT endpoint pairs and reports the heap per pair")
    void shouldConnectEndpointPairs() {
        Run r = run("connect-scale", "--pairs", "40", "--ias", "2");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("connected 40 of 40 pairs (80 endpoints) over 2 client IA(s)"), r.out());
        assertTrue(r.out().contains("heap per pair:"), r.out());
    }

    @Test
    @DisplayName("bad settings are usage errors (exit 2) that say what to change")
    void shouldRefuseBadSettings() {
        assertUsage(run("atomic-lat", "--layer", "dat"), "DAT 1.2 has no atomics");
        assertUsage(run("write-bw", "-t", "8", "-Q", "16"), "--cq-mod must be 1 to --tx-depth (8)");
        assertUsage(run("write-lat", "-q", "2"), "latency tests run one operation at a time");
        assertUsage(run("send-bw", "-t", "64", "-r", "32"), "send-bw needs --rx-depth >= --tx-depth");
        assertUsage(run("write-bw", "-s", "0"), "--size must be 1 to 8388608");
        assertUsage(run("flood"), "unknown test 'flood'");
        assertUsage(run("write-bw", "--mode", "warp"), "--mode must be one of");
        assertUsage(run("write-bw", "--warmup-time", "-1"), "--warmup-time must be 0 to 600000 ms");
        assertUsage(run(), "name a TEST");
        assertUsage(run("send-lat", "-e"), "--events applies to the bandwidth tests");
        assertUsage(run("write-bw", "-e", "--mode", "deterministic"), "--events needs a fabric that runs without");
    }

    private static void assertUsage(Run r, String message) {
        assertEquals(2, r.exitCode(), "exit code of a usage error; err:\n" + r.err());
        assertTrue(r.err().contains(message), "expected '" + message + "' in:\n" + r.err());
    }

    @Test
    @DisplayName("a TCP client's settings reach the server unchanged")
    void shouldRoundTripSettingsOverTheControlConnection() {
        PerfSettings s = new PerfSettings(
                PerfTest.SEND_BW,
                List.of(2, 4096, 1 << 23),
                77,
                5,
                250,
                3,
                64,
                128,
                16,
                4,
                64,
                PerfSettings.Layer.BOTH,
                PerfSettings.Mode.TCP,
                -9,
                true);
        assertEquals(s, PerfSettings.decode(s.encode()));
        assertEquals(false, PerfSettings.decode(s.withEvents(false).encode()).events());
    }
}
