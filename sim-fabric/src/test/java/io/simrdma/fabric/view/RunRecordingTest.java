package io.simrdma.fabric.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.testsupport.ExternalTool;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ladder and the HTML viewer of a recorded run; the page is rendered by a real headless chromium. */
class RunRecordingTest {

    @TempDir
    Path dir;

    /**
     * An 8 KiB RDMA WRITE (8 packets at MTU 1024) whose 3rd packet is dropped, then an RDMA READ
     * whose first response is dropped: the ladder shows the drops, the NAK, the retransmissions.
     */
    static RunRecording lossyWrite(long seed) {
        try (Fabric fabric = Fabric.deterministic(seed)) {
            Device a = fabric.createDevice(DeviceConfig.named("a").maxMtu(Mtu.MTU_1024));
            Device b = fabric.createDevice(DeviceConfig.named("b").maxMtu(Mtu.MTU_1024));
            Link link = fabric.link(a, b);
            link.addFault(FaultRule.drop(PacketMatcher.nth(3, PacketMatcher.requests()))
                    .times(1));
            link.addFault(FaultRule.drop(PacketMatcher.nth(1, PacketMatcher.readResponses()))
                    .times(1));
            EnumSet<AccessFlag> all =
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);
            ProtectionDomain pdA = a.allocPd();
            ProtectionDomain pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(8);
            CompletionQueue cqB = b.createCq(8);
            QueuePair qa = pdA.createQp(QpInitAttr.rc(cqA, cqA).caps(QpCaps.defaults()));
            QueuePair qb = pdB.createQp(QpInitAttr.rc(cqB, cqB).caps(QpCaps.defaults()));
            MemoryRegion mrA = pdA.registerMemory(ByteBuffer.allocateDirect(16384), all);
            MemoryRegion mrB = pdB.registerMemory(ByteBuffer.allocateDirect(16384), all);
            RunRecording run = RunRecording.start(fabric, "RDMA WRITE and READ on a lossy link");
            RcConnect.connect(qa, qb);
            qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(mrA, 0, 8192)
                    .remote(mrB.address(), mrB.rkey())
                    .flag(SendFlag.SIGNALED));
            awaitSuccess(cqA);
            qa.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(mrA, 8192, 2048)
                    .remote(mrB.address(), mrB.rkey())
                    .flag(SendFlag.SIGNALED));
            awaitSuccess(cqA);
            run.stop();
            mrA.deregister();
            mrB.deregister();
            qa.destroy();
            qb.destroy();
            return run;
        }
    }

    private static void awaitSuccess(CompletionQueue cq) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        assertTrue(cq.awaitCompletions(1, 10, TimeUnit.SECONDS), "no completion");
        assertEquals(1, cq.poll(wc, 1), "completion vanished");
        assertEquals(WcStatus.SUCCESS, wc[0].status(), "completion " + wc[0]);
    }

    @Test
    @DisplayName("the ladder has a column per QP, an arrow per packet, the drops with their rule, the NAK, "
            + "the retransmissions, the QP state changes and the completions, in virtual time")
    void shouldDrawEveryPacketStateChangeAndCompletionWhenRenderingALadder() {
        RunRecording run = lossyWrite(5);
        String ladder = Ladder.render(run);
        List<RunRecording.Lane> lanes = run.lanes();
        assertEquals(2, lanes.size(), "one column per QP, none unknown: " + lanes);
        assertTrue(lanes.stream().noneMatch(l -> l.qpn() < 0), "every packet's sending QP learned: " + lanes);
        String[] lines = ladder.split("\n");
        assertTrue(lines[0].contains("virtual time"), "title says the clock: " + lines[0]);
        assertTrue(
                lines[1].contains(lanes.get(0).title())
                        && lines[1].contains(lanes.get(1).title()),
                "header names the columns: " + lines[1]);
        Pattern arrow = Pattern.compile("->\\||\\|<-|-X |\\| *X-");
        long arrows = java.util.Arrays.stream(lines)
                .filter(l -> arrow.matcher(l).find())
                .count();
        assertEquals(run.packets(), arrows, "an arrow per packet:\n" + ladder);
        assertEquals(2, run.drops(), "the two scripted drops");
        assertEquals(
                2,
                java.util.Arrays.stream(lines)
                        .filter(l -> l.contains("dropped by fault rule \"DROP, max 1\""))
                        .count(),
                "each drop names its rule:\n" + ladder);
        for (String expected : List.of(
                "[RESET->INIT]",
                "[INIT->RTR]",
                "[RTR->RTS]",
                "NAK PSN seq #",
                "re WRITE Middle",
                "re READ Request",
                "(wc RDMA_WRITE)",
                "(wc RDMA_READ)",
                "retransmission")) {
            assertTrue(ladder.contains(expected), "ladder shows <" + expected + ">:\n" + ladder);
        }
        assertEquals(ladder, Ladder.render(lossyWrite(5)), "same seed, same ladder");
    }

    @Test
    @DisplayName("the HTML viewer renders in headless chromium: every packet drawn, drops marked, a selected "
            + "packet shows its headers, nothing loaded from elsewhere")
    void shouldRenderEveryPacketAndShowHeadersWhenChromiumOpensThePage() throws Exception {
        RunRecording run = lossyWrite(5);
        Path page = dir.resolve("run.html");
        HtmlView.write(page, "simrdma run", List.of(run));
        String html = java.nio.file.Files.readString(page);
        assertFalse(
                Pattern.compile("<script[^>]+src|<link|@import|url\\(['\"]?https?:|@font-face")
                        .matcher(html)
                        .find(),
                "the page loads no script, style sheet or font");

        RunRecording.Event third = run.events().stream()
                .filter(e -> e.kind() == RunRecording.Kind.PACKET)
                .skip(3)
                .findFirst()
                .orElseThrow();
        String psn = third.headers().stream()
                .filter(f -> f.name().equals("PSN"))
                .findFirst()
                .orElseThrow()
                .value();
        String dom = Chromium.dumpDom(page.toUri() + "#packet=3", dir.resolve("profile"));

        assertTrue(dom.contains("data-rendered=\"yes\""), "the page's script ran to its end:\n" + head(dom));
        Matcher summary = Pattern.compile("<span id=\"summary\">(\\d+) packets, (\\d+) dropped</span>")
                .matcher(dom);
        assertTrue(summary.find(), "summary filled in by the script:\n" + head(dom));
        assertEquals(run.packets(), Long.parseLong(summary.group(1)), "packets drawn");
        assertEquals(run.drops(), Long.parseLong(summary.group(2)), "drops drawn");
        assertEquals(run.packets(), count(dom, "<g class=\"pkt"), "packet elements in the DOM");
        assertEquals(run.drops(), count(dom, "<g class=\"pkt drop"), "dropped packet elements in the DOM");
        Matcher table = Pattern.compile("<table id=\"headers\">(.*?)</table>", Pattern.DOTALL)
                .matcher(dom);
        assertTrue(table.find(), "packet 3 selected: its header table shown");
        assertTrue(
                table.group(1).contains("<td>PSN</td><td>" + psn + "</td>"),
                "packet 3's PSN " + psn + " in the table: " + table.group(1));
        assertTrue(table.group(1).contains("<td>BTH</td><td>OpCode</td>"), "BTH opcode row: " + table.group(1));
    }

    private static long count(String s, String what) {
        return Pattern.compile(Pattern.quote(what)).matcher(s).results().count();
    }

    private static String head(String s) {
        return s.length() > 2000 ? s.substring(0, 2000) : s;
    }

    /**
     * Debian's chromium (or Chrome, where a CI image has that instead), headless, isolated: a fresh
     * profile, no network services of its own.
     */
    static final class Chromium {
        static String dumpDom(String url, Path profile) {
            Path chromium = ExternalTool.require(
                    "chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable");
            ExternalTool.Result r = ExternalTool.run(
                    120,
                    List.of(
                            chromium.toString(),
                            "--headless",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--disable-quic",
                            "--no-first-run",
                            "--disable-background-networking",
                            "--disable-component-update",
                            "--disable-sync",
                            "--disable-extensions",
                            "--user-data-dir=" + profile,
                            "--virtual-time-budget=2000",
                            "--dump-dom",
                            url));
            assertEquals(0, r.exitCode(), "chromium failed: " + r.err());
            return r.out();
        }
    }
}
