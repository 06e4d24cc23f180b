package io.simrdma.tools;

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

/** {@code demo --pcap}, {@code --ladder}, {@code --html} and {@code --trace} over both parts. */
class DemoObservationTest {

    @TempDir
    Path dir;

    private record Run(int exitCode, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Simrdma.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    @DisplayName("demo --pcap --ladder --html: one capture of both parts that tshark reads (both connections' "
            + "IB CM messages), a ladder per part, a run viewer page; the same seed writes the same capture")
    void shouldCaptureLadderAndPageBothPartsWhenAsked() throws IOException {
        Path pcap = dir.resolve("demo.pcapng");
        Path again = dir.resolve("again.pcapng");
        Path html = dir.resolve("demo.html");
        Run r = run("demo", "--seed", "3", "--pcap", pcap.toString(), "--ladder", "--html", html.toString());
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("-- part 1: verbs and the connection manager ("), "ladder of part 1:\n" + r.out());
        assertTrue(r.out().contains("-- part 2: DAT 1.2 (uDAPL) ("), "ladder of part 2:\n" + r.out());
        for (String mark : List.of(
                "CM REQ",
                "CM REP",
                "CM RTU",
                "CM DREQ",
                "CM DREP",
                "[RTR->RTS]",
                "[ACTIVE_CONNECTION_PENDING]",
                "[CONNECTED]",
                "(wc RDMA_WRITE)",
                "(wc FETCH_ADD)")) {
            assertTrue(r.out().contains(mark), "ladder shows <" + mark + ">:\n" + r.out());
        }
        Matcher m = Pattern.compile("capture: (\\d+) packets written to").matcher(r.out());
        assertTrue(m.find(), "the demo says how many packets it captured:\n" + r.out());
        long frames = Long.parseLong(m.group(1));

        List<String> cmd = ExternalTool.tshark(pcap);
        cmd.addAll(List.of(
                "-T", "fields", "-E", "occurrence=f", "-e", "infiniband.mad.attributeid", "-e", "_ws.malformed"));
        ExternalTool.Result t = ExternalTool.run(60, cmd);
        assertEquals(0, t.exitCode(), t.err());
        List<String> rows = Arrays.asList(t.out().split("\n"));
        assertEquals(frames, rows.size(), "tshark reads every frame");
        assertEquals(
                List.of(),
                rows.stream().filter(l -> !l.split("\t", -1)[1].isEmpty()).toList(),
                "frames tshark finds malformed");
        for (String attr : List.of("0x0010", "0x0013", "0x0014", "0x0015", "0x0016")) {
            assertEquals(
                    2,
                    rows.stream().filter(l -> l.startsWith(attr + "\t")).count(),
                    "two connections (verbs, DAT), each with CM attribute " + attr);
        }

        assertEquals(0, run("demo", "--seed", "3", "--pcap", again.toString()).exitCode(), "second run");
        assertEquals(-1L, Files.mismatch(pcap, again), "same seed, byte-identical capture");

        String page = Files.readString(html);
        assertTrue(
                page.contains("part 1: verbs and the connection manager") && page.contains("part 2: DAT 1.2"),
                "the page holds both parts");
    }

    @Test
    @DisplayName("demo --trace covers the DAT part too: its packets and its endpoints' state changes")
    void shouldTraceTheDatPartWhenTracing() {
        Run r = run("demo", "--trace");
        assertEquals(0, r.exitCode(), r.err());
        String dat = r.out().substring(r.out().indexOf("== 2."));
        assertTrue(dat.contains("SENT") && dat.contains("ia1 -> ia2"), "DAT part's packets traced:\n" + dat);
        assertTrue(
                dat.contains("ia1 EP 1: UNCONNECTED -> ACTIVE_CONNECTION_PENDING"),
                "DAT part's endpoint states traced:\n" + dat);
    }

    @Test
    @DisplayName("demo --mode threaded --trace stamps lines with the time since the part started, not a raw nanoTime")
    void shouldStampThreadedTracesWithTimeSinceStart() {
        Run r = run("demo", "--mode", "threaded", "--trace", "--loss", "0");
        assertEquals(0, r.exitCode(), r.err());
        Matcher m =
                Pattern.compile("^\\s+(\\d+\\.\\d+) us\\s", Pattern.MULTILINE).matcher(r.out());
        int lines = 0;
        while (m.find()) {
            lines++;
            double micros = Double.parseDouble(m.group(1));
            assertTrue(micros < 60_000_000, "a trace time of " + micros + " us is not a time since the start");
        }
        assertTrue(lines > 20, "trace lines with times:\n" + r.out());
    }
}
