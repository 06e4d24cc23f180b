package io.simrdma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** A test that needs tshark or chromium fails in CI when the program is missing, and is skipped elsewhere. */
class ExternalToolTest {

    @TempDir
    Path dir;

    private Path program(Path in, String name) throws IOException {
        Files.createDirectories(in);
        Path p = in.resolve(name);
        Files.writeString(p, "#!/bin/sh\necho \"$@\"\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    @DisplayName("in CI (CI set) a missing program fails the test, naming the program and its Debian package")
    void shouldFailWhenTheProgramIsMissingInCi() {
        AssertionFailedError e = assertThrows(
                AssertionFailedError.class, () -> ExternalTool.require("tshark", dir.toString(), true, "tshark"));
        assertTrue(e.getMessage().contains("tshark is not installed (Debian package tshark"), e.getMessage());
        assertTrue(e.getMessage().contains("fails instead of being skipped"), e.getMessage());
    }

    @Test
    @DisplayName("outside CI a missing program aborts (skips) the test with the same message")
    void shouldAbortWhenTheProgramIsMissingOutsideCi() {
        TestAbortedException e = assertThrows(
                TestAbortedException.class,
                () -> ExternalTool.require("chromium", dir.toString(), false, "chromium", "chromium-browser"));
        assertTrue(
                e.getMessage().contains("chromium or chromium-browser is not installed (Debian package chromium"),
                e.getMessage());
    }

    @Test
    @DisplayName("the first name found on the search path wins, a later directory's or a later name's")
    void shouldFindTheFirstNameOnTheSearchPathWhenSeveralAreGiven() throws IOException {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Files.createDirectories(a);
        Path chrome = program(b, "google-chrome");
        Files.createDirectories(a.resolve("chromium")); // a directory of that name is not the program
        String path = a + File.pathSeparator + b;
        assertEquals(chrome, ExternalTool.require("chromium", path, true, "chromium", "google-chrome"));
        Path chromium = program(b, "chromium");
        assertEquals(chromium, ExternalTool.require("chromium", path, true, "chromium", "google-chrome"));
    }

    @Test
    @DisplayName("run returns the program's exit code and output")
    void shouldReturnExitCodeAndOutputWhenAProgramRuns() throws IOException {
        Path echo = program(dir, "say");
        ExternalTool.Result r = ExternalTool.run(30, List.of(echo.toString(), "hello", "RDMA"));
        assertEquals(0, r.exitCode(), r.err());
        assertEquals("hello RDMA\n", r.out());
    }
}
