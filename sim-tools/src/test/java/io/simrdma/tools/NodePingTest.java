package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** 'simrdma node' in a second JVM, 'simrdma ping' in this one, over loopback TCP. */
class NodePingTest {

    private static final Pattern LISTENING = Pattern.compile("IA address 127\\.0\\.0\\.1:(\\d+),");

    @Test
    void shouldEchoEveryMessageAndVerifyRdmaWhenNodeRunsInAnotherJvm() {
        try (ChildCli node =
                ChildCli.start("node", "--listen", "127.0.0.1:0", "--connections", "1", "--region", "65536")) {
            String port = node.await(LISTENING);

            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cl = Simrdma.commandLine();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            int code = cl.execute(
                    "ping",
                    "--peer",
                    "127.0.0.1:" + port,
                    "--count",
                    "200",
                    "--size",
                    "1000",
                    "--rdma-size",
                    "65536",
                    "--timeout",
                    "20000");
            assertEquals(0, code, () -> out + "\n" + err);
            assertTrue(out.toString().contains("200 round trips of 1000 bytes, every echo verified"), out::toString);
            assertTrue(out.toString().contains("RDMA WRITE of 65536 bytes"), out::toString);

            assertEquals(0, node.exitCode(), "the node exits after its one connection");
            String nodeOut = node.output();
            assertTrue(
                    nodeOut.contains(
                            "disconnected after 200 echoed messages; freed its endpoint and 65536-byte region"),
                    nodeOut);
        }
    }

    @Test
    void shouldFailWithAUsageErrorWhenPeerIsMalformed() {
        StringWriter err = new StringWriter();
        CommandLine cl = Simrdma.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertEquals(2, cl.execute("ping", "--peer", "nohostport"));
        assertTrue(err.toString().startsWith("simrdma ping: --peer must be HOST:PORT"), err::toString);
    }
}
