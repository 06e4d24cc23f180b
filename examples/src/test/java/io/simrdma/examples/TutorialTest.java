package io.simrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/tutorial.md shows each example's output between {@code <!-- output: NAME -->} and
 * {@code <!-- /output -->}; this test runs the examples and fails when a block differs from what
 * its example prints now. {@code -Dtutorial.write=true} writes the blocks anew.
 */
class TutorialTest {

    private static final Pattern BLOCK =
            Pattern.compile("<!-- output: ([a-z-]+) -->\\n```text\\n(.*?)```\\n<!-- /output -->", Pattern.DOTALL);

    @Test
    @DisplayName("the tutorial shows every example, each with the output it prints today")
    void shouldShowTheOutputEachExamplePrintsWhenTheTutorialIsRead() throws IOException {
        Path file = tutorial();
        String text = Files.readString(file, StandardCharsets.UTF_8);
        Matcher m = BLOCK.matcher(text);
        StringBuilder rewritten = new StringBuilder();
        List<String> shown = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        while (m.find()) {
            String name = m.group(1);
            shown.add(name);
            String output = ExamplesTest.run(name);
            if (!output.equals(m.group(2))) {
                stale.add(name);
            }
            m.appendReplacement(
                    rewritten,
                    Matcher.quoteReplacement(
                            "<!-- output: " + name + " -->\n```text\n" + output + "```\n<!-- /output -->"));
        }
        m.appendTail(rewritten);
        if (Boolean.getBoolean("tutorial.write")) {
            Files.writeString(file, rewritten.toString(), StandardCharsets.UTF_8);
            return;
        }
        List<String> all = new ArrayList<>();
        Examples.all().forEach(e -> all.add(e.name()));
        assertTrue(shown.containsAll(all), "the tutorial shows every example: shown " + shown + ", examples " + all);
        assertEquals(
                List.of(),
                stale,
                "examples whose output in docs/tutorial.md is stale (run the test with "
                        + "-Dtutorial.write=true and read the diff)");
    }

    private static Path tutorial() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("docs").resolve("tutorial.md"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new AssertionError("no docs/tutorial.md above " + Path.of("").toAbsolutePath());
        }
        return p.resolve("docs").resolve("tutorial.md");
    }
}
