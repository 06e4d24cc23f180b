package io.simrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.testsupport.ExternalTool;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ./simrdma example NAME --ladder --pcap FILE}: every example, verbs and DAT, prints its
 * ladder and writes a capture the real tshark (Debian package tshark) reads without a malformed
 * frame; the fault lab's capture shows what its faults look like on the wire.
 */
class ExamplesObservationTest {

    private static final Pattern WRITTEN = Pattern.compile("capture: (\\d+) packets written to ");

    @TempDir
    Path dir;

    static List<String> names() {
        return ExamplesTest.names();
    }

    private static String run(String name, Path pcap) {
        StringWriter text = new StringWriter();
        Examples.named(name).orElseThrow().run(new Example.Context(new PrintWriter(text, true), pcap, true));
        return text.toString();
    }

    /** tshark's rows for {@code fields} (first occurrence each, "" when absent). */
    private static List<String[]> tshark(Path pcap, String... fields) {
        // SDP heuristics off (ExternalTool.tshark): with them, rping-dat's 16-byte SENDs read as malformed SDP
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

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    @DisplayName("the example prints its ladder and writes a capture tshark reads as RoCEv2 without a malformed frame")
    void shouldPrintItsLadderAndWriteACaptureWhenAskedTo(String name) {
        Path pcap = dir.resolve(name + ".pcapng");
        String out = run(name, pcap);
        assertTrue(out.contains("-- " + name + " ("), name + ": ladder header:\n" + out);
        Matcher m = WRITTEN.matcher(out);
        assertTrue(m.find(), name + ": says how many packets it captured:\n" + out);
        long frames = Long.parseLong(m.group(1));
        assertTrue(frames > 0, name + ": packets captured");
        List<String[]> rows = tshark(pcap, "udp.dstport", "infiniband.bth.opcode", "_ws.malformed");
        assertEquals(frames, rows.size(), name + ": tshark reads every frame");
        for (String[] r : rows) {
            assertEquals("4791", r[0], name + ": RoCEv2 UDP port");
            assertTrue(!r[1].isEmpty(), name + ": dissected as InfiniBand");
            assertEquals("", r[2], name + ": malformed frame");
        }
    }

    @Test
    @DisplayName("the fault lab on the wire: a PSN sequence error NAK (AETH syndrome 0x60, IBA 9.7.5.2.4), an RNR "
            + "NAK (syndrome 001xxxxx, IBA 9.7.5.2.8), retransmissions and a duplicate answered again, each commented")
    void shouldShowNaksRnrAndRetransmissionsWhenTheFaultLabIsCaptured() {
        Path pcap = dir.resolve("fault-lab.pcapng");
        String out = run("fault-lab", pcap);
        List<String[]> rows = tshark(pcap, "infiniband.bth.opcode", "infiniband.aeth.syndrome", "frame.comment");
        assertTrue(rows.stream().anyMatch(r -> r[1].equals("96")), "a PSN sequence error NAK (syndrome 0x60)");
        assertTrue(
                rows.stream().anyMatch(r -> !r[1].isEmpty() && (Integer.parseInt(r[1]) & 0xE0) == 0x20),
                "an RNR NAK (syndrome 001xxxxx)");
        assertTrue(rows.stream().anyMatch(r -> r[2].startsWith("retransmission")), "a retransmission, commented");
        assertTrue(rows.stream().anyMatch(r -> r[2].contains("dropped by")), "a drop, commented with its rule");
        assertTrue(out.contains("RNR"), "the ladder shows the RNR NAK:\n" + out);
    }
}
