package io.simrdma.fabric.diagrams;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The committed diagrams under docs/diagrams/ at the repository root. A test compares each with
 * what its generator makes from the code's table; run the tests with {@code -Ddiagrams.write=true}
 * to write them anew after changing a table.
 */
public final class DiagramFiles {

    private DiagramFiles() {}

    /** The docs/diagrams directory, found from the module's directory. */
    public static Path dir() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("docs").resolve("diagrams"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new AssertionError("no docs/diagrams above " + Path.of("").toAbsolutePath());
        }
        return p.resolve("docs").resolve("diagrams");
    }

    /** Writes (with -Ddiagrams.write=true) or checks that the committed {@code name} is {@code generated}. */
    public static void check(String name, String generated) throws IOException {
        Path file = dir().resolve(name);
        if (Boolean.getBoolean("diagrams.write")) {
            Files.writeString(file, generated, StandardCharsets.UTF_8);
            return;
        }
        String committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(missing)";
        assertEquals(
                generated,
                committed,
                "docs/diagrams/" + name + " no longer matches its table; run the test with "
                        + "-Ddiagrams.write=true and commit the result");
    }
}
