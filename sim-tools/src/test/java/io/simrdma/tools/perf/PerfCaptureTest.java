package io.simrdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.testsupport.ExternalTool;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code simrdma perf --pcap FILE}: the packets of a run, every layer into one pcapng file, read
 * back by the real tshark (Debian package tshark) as RoCEv2.
 */
class PerfCaptureTest {

    private static final Pattern WRITTEN = Pattern.compile("capture: (\\d+) packets written to ");

    @TempDir
    Path dir;

    private record Run(int exitCode, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new PerfCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static long written(String out) {
        Matcher m = WRITTEN.matcher(out);
        assertTrue(m.find(), "perf says how many packets it captured:\n" + out);
        return Long.parseLong(m.group(1));
    }

    /** tshark's rows for {@code fields} (first occurrence each, "" when absent). */
    private static List<String[]> tshark(Path pcap, String... fields) {
        List<String> cmd = ExternalTool.tshark(pcap);
        cmd.addAll(List.of("-T", "fields", "-E", "separator=|", "-E", "occurrence=f"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        ExternalTool.Result r = ExternalTool.run(60, cmd);
        assertEquals(0, r.exitCode(), "tshark failed: " + r.err());
        return Arrays.stream(r.out().split("\n"))
                .filter(l -> !l.isEmpty())
                .map(l -> Arrays.copyOf(l.split("\\|", -1), fields.length))
                .toList();
    }

    private static boolean has(List<String[]> rows, int column, String value) {
        return rows.stream().anyMatch(r -> value.equals(r[column]));
    }

    @Test
    @DisplayName(
            "perf read-bw --layer both --pcap: the verbs run's READ requests and First/Last responses, then the DAT "
                    + "run's IB CM connection and its READs, in one file tshark reads without a malformed frame; the same seed "
                    + "writes the same bytes")
    void shouldCaptureEveryLayerIntoOneFileWhenPerfIsGivenPcap() throws IOException {
        Path pcap = dir.resolve("perf.pcapng");
        String[] args = {
            "read-bw",
            "--mode",
            "deterministic",
            "--layer",
            "both",
            "-s",
            "8192",
            "-n",
            "10",
            "--warmup",
            "0",
            "-t",
            "4",
            "-Q",
            "2",
            "--no-progress",
            "--pcap",
            pcap.toString()
        };
        Run r = run(args);
        assertEquals(0, r.exitCode(), r.err());
        long frames = written(r.out());
        List<String[]> rows =
                tshark(pcap, "udp.dstport", "infiniband.bth.opcode", "infiniband.mad.attributeid", "_ws.malformed");
        assertEquals(frames, rows.size(), "tshark reads every frame perf wrote");
        for (String[] row : rows) {
            assertEquals("4791", row[0], "RoCEv2's UDP port");
            assertEquals("", row[3], "malformed frame: " + String.join("|", row));
        }
        // 8 KiB READs over a 4 KiB MTU: a request answered by First and Last (IBA 9.7.5.1.2), on both layers
        long requests = rows.stream().filter(x -> x[1].equals("12")).count();
        assertTrue(requests >= 2 * 10, "RDMA READ requests of both layers' 10 iterations: " + requests);
        assertTrue(has(rows, 1, "13") && has(rows, 1, "15"), "RDMA READ Response First and Last");
        // the DAT layer connects through the CM: REQ, REP, RTU as MADs to QP1
        for (String attr : List.of("0x0010", "0x0013", "0x0014")) {
            assertTrue(has(rows, 2, attr), "the DAT run's CM attribute " + attr);
        }

        Path again = dir.resolve("again.pcapng");
        args[args.length - 1] = again.toString();
        assertEquals(0, run(args).exitCode());
        assertArrayEquals(
                Files.readAllBytes(pcap),
                Files.readAllBytes(again),
                "a deterministic run's capture is the same bytes for the same seed");
    }

    @Test
    @DisplayName("perf write-lat --mode tcp --pcap: the client's TCP node captures both directions as RoCEv2 over IPv6 "
            + "from the nodes' GIDs: RDMA WRITE Only one way and the other")
    void shouldCaptureTheTcpNodesTrafficWhenPerfRunsOverTcpWithPcap() {
        Path pcap = dir.resolve("tcp.pcapng");
        Run r = run(
                "write-lat", "--mode", "tcp", "-n", "20", "--warmup", "0", "--no-progress", "--pcap", pcap.toString());
        assertEquals(0, r.exitCode(), r.err());
        long frames = written(r.out());
        List<String[]> rows = tshark(pcap, "ipv6.src", "ipv6.dst", "infiniband.bth.opcode", "_ws.malformed");
        assertEquals(frames, rows.size(), "tshark reads every frame perf wrote");
        for (String[] row : rows) {
            // a TCP node's GID is fd53:494d::PORT:IPV4 (TcpNode.gidOf)
            assertTrue(
                    row[0].startsWith("fd53:494d::") && row[1].startsWith("fd53:494d::"),
                    "IPv6 addresses from the TCP nodes' GIDs: " + String.join("|", row));
            assertEquals("", row[3], "malformed frame: " + String.join("|", row));
        }
        // write-lat: each side RDMA-WRITEs (opcode 10, Only) the other's buffer in turn
        assertTrue(
                rows.stream()
                                .filter(x -> x[2].equals("10"))
                                .map(x -> x[0])
                                .distinct()
                                .count()
                        == 2,
                "RDMA WRITE Only from both nodes");
    }

    @Test
    @DisplayName("perf connect-scale --pcap is a usage error: connect-scale sends no test traffic")
    void shouldRefusePcapWhenTheTestIsConnectScale() {
        Run r = run(
                "connect-scale",
                "--pairs",
                "2",
                "--pcap",
                dir.resolve("x.pcapng").toString());
        assertEquals(2, r.exitCode(), "usage error, seen:\n" + r.err());
        assertTrue(r.err().contains("--pcap captures a TEST's traffic"), r.err());
        assertTrue(Files.notExists(dir.resolve("x.pcapng")), "no file written");
    }
}
