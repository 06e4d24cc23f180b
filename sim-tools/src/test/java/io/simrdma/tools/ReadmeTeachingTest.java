package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.testsupport.ExternalTool;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's "Seeing what RDMA does" stays true: its ladder is the demo's, its tshark block is
 * what tshark prints for the demo's capture, and the diagrams and tutorial it links to exist. A
 * line holding only {@code ...} in a block stands for lines left out; the lines between are
 * consecutive in the real output.
 */
class ReadmeTeachingTest {

    private static String readme;
    private static String demoOut;
    private static Path pcap;

    @TempDir
    static Path dir;

    @BeforeAll
    static void runTheDemo() throws IOException {
        readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        pcap = dir.resolve("demo.pcapng");
        StringWriter out = new StringWriter();
        CommandLine cl = Simrdma.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        int code = cl.execute("demo", "--ladder", "--pcap", pcap.toString());
        demoOut = out.toString();
        assertEquals(0, code, "./simrdma demo --ladder --pcap FILE exit code; output:\n" + demoOut);
    }

    /** The lines of the README's fenced block between {@code <!-- NAME:begin -->} and its end marker. */
    private static List<String> block(String name) {
        int b = readme.indexOf("<!-- " + name + ":begin -->");
        int e = readme.indexOf("<!-- " + name + ":end -->");
        assertTrue(b >= 0 && e > b, "README.md lacks the " + name + " markers");
        String s = readme.substring(b, e);
        s = s.substring(s.indexOf("```text\n") + 8, s.lastIndexOf("```"));
        return Arrays.asList(s.split("\n"));
    }

    /**
     * Checks that the runs of {@code shown} between "..." lines occur in {@code actual} in order,
     * each as consecutive lines, after {@code norm}.
     */
    private static void assertShownIn(
            List<String> shown, List<String> actual, java.util.function.UnaryOperator<String> norm, String what) {
        List<String> real = actual.stream().map(norm).toList();
        List<List<String>> runs = new ArrayList<>();
        runs.add(new ArrayList<>());
        for (String l : shown) {
            if (l.trim().equals("...")) {
                runs.add(new ArrayList<>());
            } else {
                runs.get(runs.size() - 1).add(norm.apply(l));
            }
        }
        int from = 0;
        for (List<String> run : runs) {
            if (run.isEmpty()) {
                continue;
            }
            int at = -1;
            for (int i = from; i + run.size() <= real.size() && at < 0; i++) {
                if (real.subList(i, i + run.size()).equals(run)) {
                    at = i;
                }
            }
            assertTrue(
                    at >= 0,
                    what + ": the README shows lines the real output does not have (in this order):\n"
                            + String.join("\n", run) + "\n--- real output ---\n" + String.join("\n", real));
            from = at + run.size();
        }
    }

    @Test
    @DisplayName("the README's ladder is the one ./simrdma demo --ladder prints (seed 1)")
    void shouldShowTheDemosOwnLadderWhenTheReadmeDrawsIt() {
        List<String> shown = block("ladder");
        assertTrue(shown.size() > 10 && shown.get(0).startsWith("-- part 1:"), "a ladder of part 1: " + shown);
        assertShownIn(shown, Arrays.asList(demoOut.split("\n")), String::stripTrailing, "ladder");
    }

    @Test
    @DisplayName("the README's tshark block is what its command prints for the demo's capture")
    void shouldShowWhatTsharkPrintsWhenTheReadmeOpensTheDemosCapture() {
        List<String> shown = block("tshark");
        String command = shown.get(0);
        assertTrue(command.startsWith("$ tshark -r demo.pcapng "), "the block starts with its command: " + command);
        Path tshark = ExternalTool.require("tshark", "tshark");
        List<String> cmd = new ArrayList<>(List.of(tshark.toString(), "-r", pcap.toString()));
        cmd.addAll(Arrays.asList(
                command.substring("$ tshark -r demo.pcapng ".length()).split(" ")));
        ExternalTool.Result r = ExternalTool.run(60, cmd);
        assertEquals(0, r.exitCode(), "tshark: " + r.err());
        assertTrue(shown.size() > 3, "a few lines of output");
        assertShownIn(
                shown.subList(1, shown.size()),
                Arrays.asList(r.out().split("\n")),
                l -> l.trim().replaceAll("\\s+", " "),
                "tshark");
    }

    @Test
    @DisplayName("every file the README links to exists (the diagrams, the tutorial)")
    void shouldLinkOnlyToFilesThatExistWhenTheReadmeLinksToDocs() {
        Matcher m = Pattern.compile("\\]\\(([^)#:]+)\\)").matcher(readme);
        List<String> links = new ArrayList<>();
        while (m.find()) {
            links.add(m.group(1));
        }
        for (String want : List.of(
                "docs/tutorial.md",
                "docs/diagrams/qp-states.md",
                "docs/diagrams/ep-states.md",
                "docs/diagrams/opcode-headers.md")) {
            assertTrue(links.contains(want), "the README links to " + want + "; its links: " + links);
        }
        for (String link : links) {
            assertTrue(Files.exists(Path.of("..", link)), "README links to " + link + ", which does not exist");
        }
    }
}
