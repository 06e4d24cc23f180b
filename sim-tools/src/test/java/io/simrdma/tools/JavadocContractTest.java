package io.simrdma.tools;

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
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * STYLE.md rule 8, checked on the sources of every module's public API (everything but
 * sim-fabric's internal packages): each public type's javadoc states its thread safety, and a type
 * whose public methods take a buffer (ByteBuffer, ByteBuf, byte[]) says who owns it.
 */
class JavadocContractTest {

    private static final List<String> MODULES = List.of(
            "provider-api",
            "sim-fabric",
            "sim-provider",
            "conformance-tests",
            "examples",
            "sim-tools",
            "test-support",
            "simrdma-junit");
    private static final Pattern TYPE = Pattern.compile(
            "^public\\s+(?:final\\s+|abstract\\s+|sealed\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);
    private static final Pattern THREADS = Pattern.compile("(?i)thread|immutable|stateless");
    private static final Pattern TAKES_BUFFER = Pattern.compile("public [^;{]*\\([^)]*(ByteBuffer|ByteBuf|byte\\[\\])");
    private static final Pattern OWNERSHIP = Pattern.compile("(?i)\\bown|copie|copy|caller|releas|borrow|valid only");

    @Test
    @DisplayName("STYLE.md 8: every public type says its thread safety and, if it takes buffers, who owns them")
    void shouldStateThreadSafetyAndBufferOwnershipWhenATypeIsPublic() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<String> noThreads = new ArrayList<>();
        List<String> noOwner = new ArrayList<>();
        int types = 0;
        for (String module : MODULES) {
            Path src = root.resolve(module).resolve("src/main/java");
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                    String path = src.relativize(f).toString();
                    if (path.contains("/internal/") || path.endsWith("package-info.java")) {
                        continue;
                    }
                    String s = Files.readString(f, StandardCharsets.UTF_8);
                    Matcher m = TYPE.matcher(s);
                    if (!m.find()) {
                        continue;
                    }
                    types++;
                    String before = s.substring(0, m.start());
                    int doc = before.lastIndexOf("/**");
                    String javadoc = doc < 0 ? "" : before.substring(doc);
                    if (!THREADS.matcher(javadoc).find()) {
                        noThreads.add(module + ": " + path);
                    }
                    if (TAKES_BUFFER.matcher(s).find() && !OWNERSHIP.matcher(s).find()) {
                        noOwner.add(module + ": " + path);
                    }
                }
            }
        }
        assertTrue(types > 100, "public types found: " + types);
        assertEquals(List.of(), noThreads, "public types whose javadoc does not state their thread safety");
        assertEquals(List.of(), noOwner, "public types taking buffers without saying who owns them");
    }
}
