package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The command line as a person meets it: one-line errors, exit codes, help, version, verbosity, keygen. */
class CliTest {

    record Run(int exitCode, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Simrdma.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static void assertNoStackTrace(Run r) {
        assertFalse(
                r.err().contains("\tat ") || r.err().contains("Exception"),
                "no stack trace, no exception name:\n" + r.err());
    }

    @DisplayName("a bad option value: one line naming the option and why, a hint, exit code 2")
    @ParameterizedTest
    @ValueSource(
            strings = {
                "node --listen nonsense|simrdma node: --listen must be HOST:PORT (for example 127.0.0.1:7471), not 'nonsense'",
                "node --listen 127.0.0.1:99999|simrdma node: --listen: port 99999 is out of range (0 to 65535, 0 for any free port)",
                "node --listen 0.0.0.0:7471|simrdma node: --listen: 0.0.0.0 is the wildcard",
                "node --keepalive 5|simrdma node: --keepalive must be 100 to 3600000 ms, not 5",
                "node --tls /no/such/dir|simrdma node: --tls /no/such/dir: no such directory",
                "node --fabric=|simrdma node: --fabric must have 1 to 255 bytes, not 0",
                "node -v --region 0|simrdma node: --region must be 1 to 1048576 bytes, not 0",
                "node --bogus|simrdma node: Unknown option: '--bogus'",
                "ping --peer 127.0.0.1:1 --timeout 0|simrdma ping: --timeout must be 1 to 4294967 ms, not 0",
                "ping --peer 127.0.0.1:1 --size 0 --count -1|simrdma ping: --count must be 0 or more, not -1",
                "ping --peer 127.0.0.1:0|simrdma ping: --peer: port 0 is out of range (1 to 65535)",
                "ping -q --peer nohostport|simrdma ping: --peer must be HOST:PORT",
                "keygen node --ca x --out y --name n --ip 300.1.1.1|simrdma keygen node: --ip must be an IPv4 address"
            })
    void shouldPrintOneLineAndExitWithTwoForABadValue(String caseText) {
        String[] c = caseText.split("\\|");
        Run r = run(c[0].split(" "));
        assertEquals(CliOutput.USAGE, r.exitCode(), r.err());
        assertTrue(r.err().startsWith(c[1]), "expected the line '" + c[1] + "', saw:\n" + r.err());
        assertTrue(r.err().contains("Try 'simrdma "), r.err());
        assertNoStackTrace(r);
    }

    @DisplayName("a port in use: one line naming the address, exit code 1")
    @Test
    void shouldNameTheAddressWhenThePortIsInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            Run r = run("node", "--listen", "127.0.0.1:" + taken.getLocalPort());
            assertEquals(CliOutput.FAILED, r.exitCode(), r.err());
            assertTrue(
                    r.err()
                            .startsWith("simrdma node: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                                    + ": the address is in use"),
                    r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertNoStackTrace(r);
        }
    }

    @DisplayName(
            "--fabric 'a&b' is a fabric name like another: the IA opens, and an unreachable node is a one-line failure")
    @Test
    void shouldAcceptAnyFabricNameAndFailInOneLineWhenNoNodeAnswers() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            closed = s.getLocalPort();
        }
        Run r = run("ping", "--fabric", "a&b", "--peer", "127.0.0.1:" + closed, "--count", "1", "--timeout", "1500");
        assertEquals(CliOutput.FAILED, r.exitCode(), r.err());
        assertTrue(
                r.err().startsWith("simrdma ping: FAILED: cannot connect to the node at 127.0.0.1:" + closed), r.err());
        assertNoStackTrace(r);
    }

    @DisplayName("help lists the exit codes and the real defaults")
    @Test
    void shouldDocumentExitCodesAndRealDefaultsInHelp() {
        Run node = run("node", "--help");
        assertEquals(0, node.exitCode());
        assertTrue(node.out().contains("Exit codes:") && node.out().contains("usage error"), node.out());
        assertTrue(node.out().contains("default: 127.0.0.1:7471"), node.out());
        assertFalse(node.out().contains("default: null"), node.out());
        assertTrue(node.out().contains("-v, --verbose") && node.out().contains("-q, --quiet"), node.out());
        Run ping = run("help", "ping");
        assertTrue(ping.out().contains("default: 127.0.0.1:0"), ping.out());
        assertFalse(ping.out().contains("default: null"), ping.out());
        Run top = run("--help");
        assertTrue(top.out().contains("Exit codes:") && top.out().contains("keygen"), top.out());
    }

    @DisplayName("--version prints the version of the build")
    @Test
    void shouldPrintTheBuildsVersion() {
        Run r = run("--version");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().matches("(?s)simrdma \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R.*"), r.out());
        assertTrue(run("node", "--version").out().startsWith("simrdma "), "every command knows it");
    }

    @DisplayName("keygen ca then keygen node write credentials; a second keygen into the same place fails in one line")
    @Test
    void shouldWriteCredentialsAndRefuseToOverwriteThem(@TempDir Path dir) throws Exception {
        Run ca = run("keygen", "ca", "--out", dir.resolve("ca").toString(), "--fabric", "lab");
        assertEquals(0, ca.exitCode(), ca.err());
        assertTrue(ca.out().contains("SHA-256"), ca.out());
        Run node = run(
                "keygen",
                "node",
                "--ca",
                dir.resolve("ca").toString(),
                "--out",
                dir.resolve("n1").toString(),
                "--name",
                "n1",
                "--ip",
                "127.0.0.1",
                "--ip",
                "10.0.0.5");
        assertEquals(0, node.exitCode(), node.err());
        for (String f : new String[] {"node.crt", "node.key", "ca.crt"}) {
            assertTrue(Files.isRegularFile(dir.resolve("n1").resolve(f)), f);
        }
        assertTrue(node.out().contains("simrdma node --tls"), node.out());
        if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            assertEquals(
                    "rw-------",
                    java.nio.file.attribute.PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(dir.resolve("n1").resolve("node.key"))));
        }
        Run again = run("keygen", "ca", "--out", dir.resolve("ca").toString());
        assertEquals(CliOutput.FAILED, again.exitCode());
        assertTrue(
                again.err().startsWith("simrdma keygen ca: ") && again.err().contains("exists already"), again.err());
        assertNoStackTrace(again);
        Run noCa = run(
                "keygen",
                "node",
                "--ca",
                dir.resolve("nowhere").toString(),
                "--out",
                dir.resolve("n2").toString(),
                "--name",
                "n2",
                "--ip",
                "127.0.0.1");
        assertEquals(CliOutput.FAILED, noCa.exitCode());
        assertTrue(noCa.err().contains("ca.crt does not exist"), noCa.err());
    }
}
