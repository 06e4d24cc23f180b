package io.simrdma.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The README's "Testing your RDMA application" example is {@code example/RdmaWriteTest.java} (which
 * runs with this module's tests) in the package {@code com.example}: this test keeps the two the same.
 */
class ReadmeExampleTest {

    private static final String BEGIN = "<!-- junit-example:begin -->";
    private static final String END = "<!-- junit-example:end -->";

    @Test
    @DisplayName("the README's toolkit example is RdmaWriteTest, word for word")
    void shouldMatchRdmaWriteTestWhenReadmeShowsTheExample() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int b = readme.indexOf(BEGIN);
        int e = readme.indexOf(END);
        assertTrue(b >= 0 && e > b, "README.md lacks the " + BEGIN + " and " + END + " markers");
        String block = readme.substring(b + BEGIN.length(), e).strip();
        assertTrue(block.startsWith("```java\n") && block.endsWith("\n```"), "the example is not one java block");
        String shown = block.substring("```java\n".length(), block.length() - 4).strip();
        String source = Files.readString(
                        Path.of("src/test/java/io/simrdma/junit/example/RdmaWriteTest.java"), StandardCharsets.UTF_8)
                .replace("package io.simrdma.junit.example;", "package com.example;")
                .replace(
                        "/** The README's example (\"Testing your RDMA application\"), kept compiling and passing here. */\n",
                        "")
                .strip();
        assertEquals(source, shown, "README.md's example differs from example/RdmaWriteTest.java");
    }
}
