package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code simrdma conform}: the suite against sim-provider, its matrix, JSON, and exit codes 0 / 1 / 2. */
class ConformCommandTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("conform against sim-provider: every check holds, exit 0, the coverage line printed and matrix.md "
            + "written with it as its first line")
    void shouldPassAndWriteMatrixWhenProviderConforms() throws IOException {
        CliTest.Run r = CliTest.run(
                "conform",
                "--ia",
                "sim:cli{run}/ia{ia}?seed={seed}",
                "--seeds",
                "3",
                "--actions",
                "60",
                "--report",
                dir.toString(),
                "--no-progress");
        assertEquals(CliOutput.OK, r.exitCode(), "exit code 0 expected; out:\n" + r.out() + "\nerr:\n" + r.err());
        String first = Files.readAllLines(dir.resolve("matrix.md")).get(0);
        assertTrue(
                first.matches(
                        "covered \\d+ of \\d+ clauses \\(\\d+\\.\\d%\\); \\d+ more listed with their reason \\(\\d+\\.\\d% covered or listed\\)"),
                "matrix.md starts with the coverage " + "line, saw: " + first);
        assertTrue(r.out().startsWith(first), "the command prints the coverage line first, saw:\n" + r.out());
        assertTrue(Files.readString(dir.resolve("matrix.csv")).startsWith("clause,kind,page"), "matrix.csv written");
    }

    @Test
    @DisplayName("conform --json: one JSON object with the coverage, the counts and passed")
    void shouldPrintJsonWhenAsked() {
        CliTest.Run r = CliTest.run(
                "conform",
                "--ia",
                "sim:clj{run}/ia{ia}?seed={seed}",
                "--seed",
                "2",
                "--actions",
                "40",
                "--report",
                dir.toString(),
                "--json");
        assertEquals(CliOutput.OK, r.exitCode(), r.out() + r.err());
        String out = r.out().trim();
        assertTrue(out.startsWith("{\"coverage\": \"covered ") && out.endsWith("]}"), "a JSON object, saw: " + out);
        assertTrue(out.contains("\"seeds\": 1,") && out.contains("\"passed\": true"), "one seed, passed: " + out);
    }

    @Test
    @DisplayName("conform against a name no provider serves: dat_ia_open fails, the check fails, exit 1")
    void shouldExitOneWhenTheProviderCannotBeOpened() {
        CliTest.Run r = CliTest.run(
                "conform",
                "--ia",
                "nosuchprovider:x{ia}",
                "--seeds",
                "1",
                "--actions",
                "5",
                "--report",
                dir.toString(),
                "--no-shrink",
                "--no-progress");
        assertEquals(CliOutput.FAILED, r.exitCode(), r.out() + r.err());
    }

    @Test
    @DisplayName("conform with a bad --profile or --mode: one line naming the option, exit 2")
    void shouldExitTwoWhenAnOptionIsBad() {
        CliTest.Run p = CliTest.run("conform", "--ia", "sim:x/ia{ia}", "--profile", "bogus");
        assertEquals(CliOutput.USAGE, p.exitCode(), p.err());
        assertTrue(p.err().contains("unknown --profile 'bogus'"), p.err());
        CliTest.Run m = CliTest.run("conform", "--ia", "sim:x/ia{ia}", "--mode", "warp");
        assertEquals(CliOutput.USAGE, m.exitCode(), m.err());
        CliTest.Run s = CliTest.run("conform", "--ia", "sim:x/ia{ia}", "--seeds", "0");
        assertEquals(CliOutput.USAGE, s.exitCode(), s.err());
        CliTest.Run none = CliTest.run("conform");
        assertEquals(CliOutput.USAGE, none.exitCode(), "--ia is required: " + none.err());
    }
}
