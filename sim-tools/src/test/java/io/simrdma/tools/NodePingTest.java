package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** 'simrdma node' in a second JVM, 'simrdma ping' in this one, over loopback TCP. */
class NodePingTest {

    private static final Pattern LISTENING = Pattern.compile("IA address 127\\.0\\.0\\.1:(\\d+),");
    private static final long DEADLINE_SECONDS = 60;

    @Test
    void shouldEchoEveryMessageAndVerifyRdmaWhenNodeRunsInAnotherJvm() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                Simrdma.class.getName(),
                "node",
                "--listen",
                "127.0.0.1:0",
                "--connections",
                "1",
                "--region",
                "65536"));
        Process node = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader r =
                            new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String l = r.readLine(); l != null; l = r.readLine()) {
                            lines.add(l);
                        }
                    } catch (java.io.IOException e) {
                        lines.add("reader: " + e);
                    }
                },
                "node-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String port = null;
            StringBuilder seen = new StringBuilder();
            while (port == null) {
                String l = lines.poll(DEADLINE_SECONDS, TimeUnit.SECONDS);
                assertNotNull(l, () -> "the node did not start listening; its output:\n" + seen);
                seen.append(l).append('\n');
                Matcher m = LISTENING.matcher(l);
                if (m.find()) {
                    port = m.group(1);
                }
            }

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

            assertTrue(
                    node.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS), "the node did not exit after its one connection");
            assertEquals(0, node.exitValue());
            reader.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            List<String> rest = new ArrayList<>();
            lines.drainTo(rest);
            String nodeOut = String.join("\n", rest);
            assertTrue(
                    nodeOut.contains(
                            "disconnected after 200 echoed messages; freed its endpoint and 65536-byte region"),
                    nodeOut);
        } finally {
            node.destroyForcibly();
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
