package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * 'simrdma node' and 'simrdma ping' in JVMs of their own, ended the ways people end them: a
 * client killed outright (its node must free what it held), Ctrl-C or SIGTERM (a clean
 * disconnect first).
 */
class NodeLifecycleTest {

    private static final Pattern PORT = Pattern.compile("IA address 127\\.0\\.0\\.1:(\\d+),");

    private static ChildCli node(String... extra) {
        String[] base = {
            "node", "--listen", "127.0.0.1:0", "--connections", "1", "--region", "65536", "--keepalive", "500"
        };
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return ChildCli.start(args);
    }

    private static ChildCli endlessPing(String port) {
        return ChildCli.start(
                "ping",
                "--peer",
                "127.0.0.1:" + port,
                "--count",
                "2000000000",
                "--size",
                "64",
                "--rdma-size",
                "4096",
                "--timeout",
                "60000");
    }

    @DisplayName("a client killed outright: the node's keepalive finds it gone and frees its endpoint and region")
    @Test
    void shouldFreeWhatAVanishedClientHeld() {
        try (ChildCli node = node("-v");
                ChildCli ping = endlessPing(node.await(PORT))) {
            // -v: info log lines with a timestamp (stderr, merged here with stdout in no fixed order)
            node.await(Pattern.compile(
                    "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\S* INFO TcpLink - .*connected to"));
            ping.await(Pattern.compile("^connected to "));
            ping.process.destroyForcibly(); // SIGKILL: no disconnect, no FIN from the DAT layer
            String line = node.await(Pattern.compile("(connection broken.*)"));
            assertTrue(
                    line.matches("connection broken \\(the peer stopped answering\\) after \\d+ echoed messages; "
                            + "freed its endpoint and 65536-byte region"),
                    line);
            assertEquals(0, node.exitCode(), "the node ended after its one connection:\n" + node.output());
        }
    }

    @DisplayName("SIGTERM to ping: it stops sending, disconnects cleanly, says so, and exits 143")
    @Test
    void shouldDisconnectCleanlyWhenPingGetsSigterm() {
        try (ChildCli node = node();
                ChildCli ping = endlessPing(node.await(PORT))) {
            ping.await(Pattern.compile("^connected to "));
            ping.await(Pattern.compile("^\\.\\.\\. \\d+ of 2000000000 round trips \\(\\d+%\\)$")); // progress every 2 s
            ping.process.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its output)
            String stopped = ping.await(
                    Pattern.compile("(stopped \\(signal\\) after \\d+ of 2000000000 round trips; disconnected)"));
            assertTrue(stopped.startsWith("stopped"), stopped);
            assertEquals(143, ping.exitCode(), ping.output());
            node.await(Pattern.compile("disconnected after \\d+ echoed messages; freed its endpoint"));
            assertEquals(0, node.exitCode(), node.output());
        }
    }

    @DisplayName("SIGTERM to node: it disconnects its clients, frees everything, says so, and exits 143")
    @Test
    void shouldDisconnectItsClientsWhenNodeGetsSigterm() {
        try (ChildCli node = node();
                ChildCli ping = endlessPing(node.await(PORT))) {
            node.await(Pattern.compile("^connected: "));
            node.process.toHandle().destroy(); // SIGTERM
            node.await(Pattern.compile("node stopping \\(signal\\): disconnected 1 connection, freed everything"));
            assertEquals(143, node.exitCode(), node.output());
            assertEquals(CliOutput.FAILED, ping.exitCode(), "the client saw its connection end:\n" + ping.output());
        }
    }
}
