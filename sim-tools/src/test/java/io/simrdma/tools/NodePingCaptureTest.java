package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.testsupport.ExternalTool;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code node --pcap} and {@code ping --pcap --ladder}: each side of a TCP link captures its packets as RoCEv2 (IPv6 from the nodes' GIDs). */
class NodePingCaptureTest {

    private static final Pattern LISTENING = Pattern.compile("IA address 127\\.0\\.0\\.1:(\\d+),");

    @TempDir
    Path dir;

    @Test
    @DisplayName(
            "node --pcap and ping --pcap --ladder --html: both captures read by tshark as RoCEv2 (IPv6 from the nodes' GIDs) with "
                    + "the connection's IB CM messages; ping prints its ladder and writes its run viewer page")
    void shouldCaptureBothSidesOfATcpLinkWhenNodeAndPingAreGivenPcap() throws Exception {
        Path nodePcap = dir.resolve("node.pcapng");
        Path pingPcap = dir.resolve("ping.pcapng");
        Path pingHtml = dir.resolve("ping.html");
        try (ChildCli node = ChildCli.start(
                "node",
                "--listen",
                "127.0.0.1:0",
                "--connections",
                "1",
                "--region",
                "4096",
                "--pcap",
                nodePcap.toString())) {
            String port = node.await(LISTENING);
            StringWriter out = new StringWriter();
            CommandLine cl = Simrdma.commandLine();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(new StringWriter(), true));
            int code = cl.execute(
                    "ping",
                    "--peer",
                    "127.0.0.1:" + port,
                    "--count",
                    "3",
                    "--size",
                    "100",
                    "--rdma-size",
                    "4096",
                    "--timeout",
                    "20000",
                    "--pcap",
                    pingPcap.toString(),
                    "--ladder",
                    "--html",
                    pingHtml.toString());
            assertEquals(0, code, out::toString);
            assertTrue(out.toString().contains("-- simrdma ping 127.0.0.1:" + port), "ladder printed:\n" + out);
            assertTrue(out.toString().contains("CM REQ") && out.toString().contains("SEND Only"), "ladder:\n" + out);
            assertTrue(out.toString().contains("run viewer: " + pingHtml), "ping says where the page is:\n" + out);
            String page = Files.readString(pingHtml);
            assertTrue(
                    page.contains("simrdma ping 127.0.0.1:" + port) && page.contains("CM REQ"),
                    "the run viewer page holds the ping's run");
            assertEquals(0, node.exitCode(), "the node exits after its connection");
        }
        for (Path pcap : List.of(pingPcap, nodePcap)) {
            List<String> read = ExternalTool.tshark(pcap);
            read.addAll(List.of(
                    "-T",
                    "fields",
                    "-E",
                    "occurrence=f",
                    "-e",
                    "ipv6.dst",
                    "-e",
                    "udp.dstport",
                    "-e",
                    "infiniband.mad.attributeid",
                    "-e",
                    "_ws.malformed"));
            ExternalTool.Result t = ExternalTool.run(60, read);
            assertEquals(0, t.exitCode(), t.err());
            List<String[]> rows = Arrays.stream(t.out().split("\n"))
                    .map(l -> Arrays.copyOf(l.split("\t", -1), 4))
                    .toList();
            assertTrue(rows.size() > 10, pcap + ": frames " + rows.size());
            for (String[] r : rows) {
                // a TCP node's GID is fd53:494d::PORT:IPV4 (TcpNode.gidOf): the IPv6 addresses of the frames
                assertTrue(
                        r[0].startsWith("fd53:494d::"), pcap + ": IPv6 destination from the TCP node's GID: " + r[0]);
                assertEquals("4791", r[1], pcap + ": RoCEv2 port");
                assertEquals("", r[3], pcap + ": malformed frame");
            }
            // REQ, REP, RTU, DREQ, DREP (the CM may send a REQ or RTU again while the TCP connection opens)
            for (String attr : List.of("0x0010", "0x0013", "0x0014", "0x0015", "0x0016")) {
                assertTrue(rows.stream().anyMatch(r -> attr.equals(r[2])), pcap + ": CM attribute " + attr);
            }
        }
    }
}
