package io.simrdma.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * 'simrdma ARGS' in a second JVM with this JVM's java and class path; its stdout and stderr
 * lines are collected in order. Always close it (destroys the process if it still runs).
 */
final class ChildCli implements AutoCloseable {

    static final long DEADLINE_SECONDS = 60;
    private static final String EOF = "\u0000EOF";

    final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private ChildCli(Process process) {
        this.process = process;
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String l = r.readLine(); l != null; l = r.readLine()) {
                            lines.add(l);
                        }
                    } catch (IOException e) {
                        lines.add("reader: " + e);
                    } finally {
                        lines.add(EOF);
                    }
                },
                "child-cli-output");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildCli start(String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd =
                new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Simrdma.class.getName()));
        cmd.addAll(List.of(args));
        try {
            return new ChildCli(
                    new ProcessBuilder(cmd).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first group of {@code pattern} in the next matching line, waiting at most the deadline. */
    String await(Pattern pattern) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String l = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (l == null || l.equals(EOF)) {
                    if (l != null) {
                        lines.add(EOF);
                    }
                    throw new AssertionError("no line matching '" + pattern + "'"
                            + (l == null ? " within " + DEADLINE_SECONDS + " s" : " before the output ended")
                            + "; output so far:\n" + String.join("\n", seen));
                }
                seen.add(l);
                Matcher m = pattern.matcher(l);
                if (m.find()) {
                    return m.groupCount() > 0 ? m.group(1) : l;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The exit code, waiting at most the deadline. */
    int exitCode() {
        try {
            if (!process.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("still running after " + DEADLINE_SECONDS + " s; output:\n" + output());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Everything printed, once the process has ended. */
    String output() {
        List<String> rest = new ArrayList<>();
        lines.drainTo(rest);
        rest.remove(EOF);
        seen.addAll(rest);
        return String.join("\n", seen);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
