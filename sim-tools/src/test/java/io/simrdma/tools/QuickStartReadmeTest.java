package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's quick start, compiled and run exactly as the README shows it. */
class QuickStartReadmeTest {

    private static final String BEGIN = "<!-- quickstart:begin -->";
    private static final String END = "<!-- quickstart:end -->";

    static String quickStartSource() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int b = readme.indexOf(BEGIN);
        int e = readme.indexOf(END);
        assertTrue(b >= 0 && e > b, "README.md lacks the quick start markers");
        String block = readme.substring(b + BEGIN.length(), e).strip();
        assertTrue(block.startsWith("```java") && block.endsWith("```"), "the quick start is not one java block");
        return block.substring("```java".length(), block.length() - 3);
    }

    @Test
    void shouldCompileAndRunTheQuickStartOfTheReadme(@TempDir Path dir) throws Exception {
        String source = quickStartSource();
        long lines = source.strip().lines().count();
        assertTrue(lines < 60, "the quick start must stay under 60 lines, it has " + lines);
        Path file = dir.resolve("QuickStart.java");
        Files.writeString(file, source, StandardCharsets.UTF_8);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests need a JDK");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            boolean ok = javac.getTask(
                            null,
                            fm,
                            diagnostics,
                            List.of(
                                    "-classpath",
                                    System.getProperty("java.class.path"),
                                    "-d",
                                    dir.toString(),
                                    "-Xlint:all",
                                    "-Werror"),
                            null,
                            fm.getJavaFileObjects(file))
                    .call();
            assertTrue(ok, () -> "the quick start does not compile: " + diagnostics.getDiagnostics());
        }

        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass("QuickStart").getMethod("main", String[].class);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(saved);
        }
        assertEquals(
                "RDMA WRITE of 4096 bytes verified",
                captured.toString(StandardCharsets.UTF_8).strip());
    }
}
