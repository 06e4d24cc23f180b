package io.simrdma.fabric.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.simrdma.testsupport.ExternalTool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs the real tshark (Debian package tshark) on a capture and returns its rows of fields. */
final class Tshark {

    private Tshark() {}

    /** One row per frame: the values of {@code fields}, first occurrence each, "" when absent. */
    static List<String[]> fields(Path capture, String... fields) {
        Path tshark = ExternalTool.require("tshark", "tshark");
        List<String> cmd = new ArrayList<>(List.of(
                tshark.toString(),
                "-n",
                "-r",
                capture.toString(),
                "-T",
                "fields",
                "-E",
                "separator=|",
                "-E",
                "occurrence=f"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        ExternalTool.Result r = ExternalTool.run(60, cmd);
        assertEquals(0, r.exitCode(), "tshark failed: " + r.err());
        List<String[]> rows = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            if (!line.isEmpty()) {
                rows.add(Arrays.copyOf(line.split("\\|", -1), fields.length));
            }
        }
        return rows;
    }
}
