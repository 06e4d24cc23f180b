package io.simrdma.fabric.tcp;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM running {@link TcpPeerMain} with this JVM's java and class path. Its stdout lines
 * are collected by a reader thread; its stderr goes to a file shown in failure messages. Always
 * {@link #close()} it (destroys the process if it still runs).
 */
final class ChildJvm implements AutoCloseable {

    private static final String EOF = "\u0000EOF";

    final Process process;
    final String address;
    private final File stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(Process process, File stderr, long seconds) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::readStdout, "tcp-test-child-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        String line = awaitLine("LISTENING ", seconds);
        this.address = line.substring("LISTENING ".length()).trim();
    }

    /** Starts the child and waits (at most {@code seconds}) for its listen address. */
    static ChildJvm start(long seconds) {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        File err;
        Process p;
        try {
            err = Files.createTempFile("simrdma-tcp-child", ".err").toFile();
            err.deleteOnExit();
            ProcessBuilder pb = new ProcessBuilder(
                    List.of(java, "-Xss1m", "-cp", System.getProperty("java.class.path"), TcpPeerMain.class.getName()));
            pb.redirectError(err);
            p = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            return new ChildJvm(p, err, seconds);
        } catch (RuntimeException | AssertionError e) {
            p.destroyForcibly();
            throw e;
        }
    }

    private void readStdout() {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the process was killed
        } finally {
            lines.add(EOF);
        }
    }

    /** The next stdout line starting with {@code prefix}, waiting at most {@code seconds}. */
    String awaitLine(String prefix, long seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (line == null || line.equals(EOF)) {
                    throw new AssertionError("child printed no '" + prefix + "' line"
                            + (line == null ? " within " + seconds + " s" : "") + "; stderr:\n" + stderr());
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The exit code, waiting at most {@code seconds}; fails if the child is still running. */
    int awaitExit(long seconds) {
        try {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                throw new AssertionError("child still running after " + seconds + " s; stderr:\n" + stderr());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Kills the child (SIGKILL) and waits for it to be gone. */
    void kill() {
        process.destroyForcibly();
        awaitExit(30);
    }

    String stderr() {
        try {
            return new String(Files.readAllBytes(stderr.toPath()), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stderr.delete();
    }
}
