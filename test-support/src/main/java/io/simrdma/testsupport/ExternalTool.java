package io.simrdma.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A program from the machine's packages that a test runs (tshark, chromium). {@code .ci/run}
 * installs them, so in CI (environment variable {@code CI} set) a missing program fails the test
 * with a message saying which package to install; on a developer's machine without it the test
 * is skipped (aborted) with the same message.
 *
 * <p>Thread safety: stateless.
 */
public final class ExternalTool {

    private ExternalTool() {}

    /**
     * The path of the first of {@code names} found on the PATH; fails (CI) or aborts (elsewhere)
     * the test when none is.
     *
     * @param debianPackage the package that provides it, for the message
     */
    public static Path require(String debianPackage, String... names) {
        return require(debianPackage, System.getenv("PATH"), System.getenv("CI") != null, names);
    }

    /** {@link #require(String, String...)} with the search path and the CI flag given. */
    static Path require(String debianPackage, String searchPath, boolean ci, String... names) {
        for (String name : names) {
            for (String dir : searchPath == null ? new String[0] : searchPath.split(File.pathSeparator)) {
                if (dir.isEmpty()) {
                    continue;
                }
                Path p = Path.of(dir, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        String message = String.join(" or ", names) + " is not installed (Debian package " + debianPackage
                + "; .ci/run installs it with apt-get)";
        if (ci) {
            Assertions.fail(message + ": in CI a test that needs it fails instead of being skipped");
        }
        Assumptions.abort(message);
        throw new AssertionError(message);
    }

    /**
     * The start of a command line that reads {@code capture} with tshark (fails or aborts the test
     * as {@link #require(String, String...)} when tshark is missing); add the output options.
     * Wireshark's SDP heuristics are off: they take any connection whose CM service ID has bit 16
     * set for Sockets Direct Protocol, and RDMA_PS_IB's service IDs ({@code 0x013F << 16 | port}),
     * which the DAT provider connects through, have it, so a DAT run's packets would be parsed as
     * SDP headers.
     */
    public static List<String> tshark(Path capture) {
        Path tshark = require("tshark", "tshark");
        return new ArrayList<>(List.of(
                tshark.toString(),
                "-n",
                "--disable-heuristic",
                "sdp_infiniband",
                "--disable-heuristic",
                "sdp_ib_private",
                "-r",
                capture.toString()));
    }

    /** What a finished program printed. */
    public record Result(int exitCode, String out, String err) {}

    /**
     * Runs {@code command} to completion, at most {@code timeoutSeconds}, and returns its exit
     * code and output; fails the test if it does not finish in time.
     */
    public static Result run(long timeoutSeconds, List<String> command) {
        try {
            Path out = Files.createTempFile("simrdma-tool", ".out");
            Path err = Files.createTempFile("simrdma-tool", ".err");
            try {
                ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command))
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                Process p = pb.start();
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    Assertions.fail(command.get(0) + " did not finish within " + timeoutSeconds + " s");
                }
                return new Result(
                        p.exitValue(),
                        Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + command, e);
        }
    }
}
