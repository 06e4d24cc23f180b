package io.simrdma.fabric.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.simrdma.fabric.wire.Gid;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Captures read by the real tshark: every opcode and CM message dissects cleanly with the fields
 * as sent, the ICRC is right, comments say what the fabric did, and a seed gives the same bytes.
 */
class PacketCaptureTest {

    private static final String[] OPCODE_FIELDS = {
        "infiniband.bth.opcode",
        "infiniband.bth.destqp",
        "infiniband.bth.psn",
        "infiniband.bth.a",
        "infiniband.reth.va",
        "infiniband.reth.r_key",
        "infiniband.reth.dmalen",
        "infiniband.aeth.syndrome",
        "infiniband.aeth.msn",
        "infiniband.immdt",
        "infiniband.ieth",
        "infiniband.atomiceth.swapdt",
        "infiniband.atomiceth.cmpdt",
        "infiniband.atomicacketh.origremdt"
    };

    @TempDir
    Path dir;

    @Test
    @DisplayName("IBA 9.2 / annex A17: every RC opcode dissects as RoCEv2 with BTH, RETH, AETH, ImmDt, IETH, "
            + "AtomicETH and AtomicAckETH fields as sent")
    void shouldReadBackEveryHeaderFieldWhenTsharkDissectsEveryOpcode() {
        Path file = dir.resolve("opcodes.pcapng");
        List<CaptureScenarios.Expected> sent;
        try (Fabric fabric = Fabric.deterministic(1)) {
            Device a = fabric.createDevice("a");
            Device b = fabric.createDevice("b");
            try (PacketCapture c = PacketCapture.on(fabric).start(file)) {
                sent = CaptureScenarios.injectEveryRcAndUcOpcode(fabric, a, b);
            }
        }
        List<String[]> rows = Tshark.fields(file, OPCODE_FIELDS);
        assertEquals(sent.size(), rows.size(), "expected a frame per injected packet");
        for (int i = 0; i < sent.size(); i++) {
            CaptureScenarios.Expected e = sent.get(i);
            String[] expected = {
                e.opcode(),
                pad6(e.destQp()),
                e.psn(),
                e.ackReq(),
                pad16(e.rethVa()),
                pad8(e.rethRkey()),
                e.rethLength(),
                e.aethSyndrome(),
                e.aethMsn(),
                e.immDt(),
                e.ieth(),
                e.atomicSwap(),
                e.atomicCompare(),
                e.atomicOriginal()
            };
            assertArrayEquals(
                    expected,
                    rows.get(i),
                    "frame " + (i + 1) + ": expected " + String.join("|", expected) + ", tshark read "
                            + String.join("|", rows.get(i)));
        }
    }

    @Test
    @DisplayName("IBA 12.6: the CM's REQ, REJ, REP, RTU, DREQ and DREP travel as MADs to QP1 and dissect as IB CM")
    void shouldDissectEveryCmMessageAsInfinibandCmWhenTsharkReadsAConnection() {
        Path file = dir.resolve("cm.pcapng");
        try (Fabric fabric = Fabric.deterministic(2)) {
            Device a = fabric.createDevice("a");
            Device b = fabric.createDevice("b");
            try (PacketCapture c = PacketCapture.on(fabric).start(file)) {
                CaptureScenarios.cmConversation(fabric, a, b);
            }
        }
        List<String[]> rows = Tshark.fields(
                file,
                "infiniband.bth.opcode",
                "infiniband.bth.destqp",
                "infiniband.deth.srcqp",
                "infiniband.mad.mgmtclass",
                "infiniband.mad.attributeid",
                "infiniband.cm.req.serviceid.dport",
                "infiniband.cm.rej.reason",
                "infiniband.cm.rtu.localcommid",
                "infiniband.cm.dreq.localcommid",
                "_ws.col.Info");
        List<String> messages = rows.stream()
                .filter(r -> r[0].equals("100"))
                .map(r -> r[4] + " " + r[9].trim())
                .collect(Collectors.toList());
        assertEquals(
                List.of(
                        "0x0010 CM: ConnectRequest",
                        "0x0012 CM: ConnectReject",
                        "0x0010 CM: ConnectRequest",
                        "0x0013 CM: ConnectReply",
                        "0x0014 CM: ReadyToUse",
                        "0x0015 CM: DisconnectRequest",
                        "0x0016 CM: DisconnectReply"),
                messages,
                "CM messages as tshark names them, in order");
        for (String[] r : rows) {
            if (r[0].equals("100")) {
                assertEquals("0x000001", r[1], "a CM MAD goes to QP1");
                assertEquals("0x07", r[3], "management class CM");
            }
        }
        String[] firstReq =
                rows.stream().filter(r -> r[4].equals("0x0010")).findFirst().orElseThrow();
        assertEquals("0x1b58", firstReq[5], "the REQ's service ID names RDMA CM port 7000 (0x1b58)");
        String[] rej =
                rows.stream().filter(r -> r[4].equals("0x0012")).findFirst().orElseThrow();
        assertEquals("0x0008", rej[6], "REJ reason 8, invalid service ID (IBA 12.6.7.2): nobody listens on port 7000");
    }

    @Test
    @DisplayName("no frame of a capture (every opcode, the CM, a lossy transfer) draws a malformed-packet or "
            + "checksum expert note, and every ICRC is the RoCEv2 invariant CRC (annex A17.8)")
    void shouldHaveNoMalformedOrChecksumNotesAndCorrectIcrcsWhenTsharkReadsACapture() throws IOException {
        Path file = dir.resolve("all.pcapng");
        try (Fabric fabric = Fabric.deterministic(3)) {
            Device a = fabric.createDevice("a");
            Device b = fabric.createDevice("b");
            try (PacketCapture c = PacketCapture.on(fabric).start(file)) {
                CaptureScenarios.injectEveryRcOpcode(fabric, a, b);
                CaptureScenarios.cmConversation(fabric, a, b);
            }
        }
        List<String[]> rows = Tshark.fields(
                file,
                "frame.number",
                "_ws.malformed",
                "_ws.expert.group",
                "_ws.expert.message",
                "infiniband.invariant.crc");
        assertEquals(32, rows.size(), "23 crafted RC packets and 9 of the CM conversation");
        for (String[] r : rows) {
            assertEquals("", r[1], "frame " + r[0] + " is malformed: " + r[3]);
            // the only expert group allowed is PI_COMMENTS_GROUP (0x0b000000): a packet comment
            assertTrue(
                    r[2].isEmpty() || r[2].equals(Integer.toString(0x0b000000)),
                    "frame " + r[0] + " has an expert note of group " + r[2] + ": " + r[3]);
        }
        List<byte[]> frames = PcapngFrames.read(file);
        assertEquals(rows.size(), frames.size(), "frames in the file");
        for (int i = 0; i < frames.size(); i++) {
            byte[] f = frames.get(i);
            assertEquals(expectedIcrc(f), carriedIcrc(f), "frame " + (i + 1) + ": ICRC");
            // tshark shows the four ICRC bytes in wire order; the CRC goes out least significant byte first
            assertEquals(
                    Long.parseLong(rows.get(i)[4].substring(2), 16),
                    Integer.reverseBytes(carriedIcrc(f)) & 0xFFFFFFFFL,
                    "frame " + (i + 1) + ": tshark reads the ICRC bytes as written");
        }
    }

    @Test
    @DisplayName("comments: a dropped request names its rule, the retransmission, the duplicate the responder "
            + "answers again (IBA 9.7.5.1.2), the second copy, the delay")
    void shouldCommentEachPacketWithWhatTheFabricDidWhenFaultsFire() {
        Path file = dir.resolve("faults.pcapng");
        lossyTransfer(file, 7);
        List<String[]> rows = Tshark.fields(file, "frame.number", "frame.comment", "infiniband.bth.psn");
        String comments = rows.stream().map(r -> r[1]).filter(s -> !s.isEmpty()).collect(Collectors.joining("\n"));
        for (String expected : List.of(
                "dropped by fault rule \"DROP, max 1\"",
                "retransmission: the requester sent this PSN again",
                "duplicated by fault rule \"DUPLICATE, max 1\"",
                "second copy of a packet, made by fault rule \"DUPLICATE, max 1\"",
                "delayed by fault rule \"DELAY 200000ns, max 1\"",
                "duplicate: the responder already took PSN",
                "out of sequence: the responder expects PSN")) {
            assertTrue(
                    comments.contains(expected),
                    "expected a comment containing <" + expected + ">, comments were:\n" + comments);
        }
    }

    @Test
    @DisplayName("the deterministic fabric's captures are byte-identical for the same seed (virtual timestamps)")
    void shouldWriteByteIdenticalCapturesWhenTheSameSeedRunsTwice() throws IOException {
        Path first = dir.resolve("first.pcapng");
        Path second = dir.resolve("second.pcapng");
        Path other = dir.resolve("other.pcapng");
        lossyTransfer(first, 11);
        lossyTransfer(second, 11);
        lossyTransfer(other, 12);
        assertEquals(-1L, Files.mismatch(first, second), "same seed, same bytes");
        assertTrue(Files.mismatch(first, other) >= 0, "another seed loses other packets, so other bytes");
    }

    @Test
    @DisplayName("a capture of one link leaves out the packets of the fabric's other links")
    void shouldCaptureOnlyThatLinkWhenStartedOnALink() {
        Path file = dir.resolve("link.pcapng");
        try (Fabric fabric = Fabric.deterministic(4)) {
            Device a = fabric.createDevice("a");
            Device b = fabric.createDevice("b");
            Device c = fabric.createDevice("c");
            try (PacketCapture cap =
                    PacketCapture.on(fabric).link(fabric.link(a, c)).start(file)) {
                CaptureScenarios.injectEveryRcOpcode(fabric, a, b);
                CaptureScenarios.injectEveryRcOpcode(fabric, a, c);
                assertEquals(23, cap.frames(), "frames of a<->c only");
            }
        }
        List<String[]> rows = Tshark.fields(file, "ipv6.dst");
        assertEquals(23, rows.size(), "frames in the file");
        assertTrue(rows.stream().allMatch(r -> r[0].endsWith(":3")), "every frame goes to c (fe80::...:3)");
    }

    @Test
    @DisplayName(
            "RoCEv2 over IPv4 (annex A17.4): devices whose GIDs are IPv4-mapped (::ffff:a.b.c.d) send IPv4 "
                    + "frames with a correct header checksum and ICRC; every opcode and the CM dissect without a malformed note")
    void shouldWriteIpv4FramesWhenTheGidsAreIpv4Mapped() throws IOException {
        Path file = dir.resolve("ipv4.pcapng");
        try (Fabric fabric = Fabric.deterministic(6)) {
            Device a = fabric.createDevice(DeviceConfig.named("a").gid(Gid.parse("::ffff:10.0.0.1")));
            Device b = fabric.createDevice(DeviceConfig.named("b").gid(Gid.parse("::ffff:10.0.0.2")));
            try (PacketCapture c = PacketCapture.on(fabric).start(file)) {
                CaptureScenarios.injectEveryRcOpcode(fabric, a, b);
                CaptureScenarios.cmConversation(fabric, a, b);
            }
        }
        List<String[]> rows = Tshark.fields(
                file,
                "frame.number",
                "eth.type",
                "ip.src",
                "ip.dst",
                "udp.dstport",
                "_ws.malformed",
                "infiniband.bth.opcode");
        assertEquals(32, rows.size(), "23 crafted RC packets and 9 of the CM conversation");
        for (String[] r : rows) {
            assertEquals("0x0800", r[1], "frame " + r[0] + ": EtherType IPv4");
            assertTrue(
                    List.of("10.0.0.1", "10.0.0.2").contains(r[2])
                            && List.of("10.0.0.1", "10.0.0.2").contains(r[3])
                            && !r[2].equals(r[3]),
                    "frame " + r[0] + ": IPv4 addresses from the GIDs: " + r[2] + " -> " + r[3]);
            assertEquals("4791", r[4], "frame " + r[0] + ": RoCEv2 UDP port");
            assertEquals("", r[5], "frame " + r[0] + " is malformed");
            assertTrue(!r[6].isEmpty(), "frame " + r[0] + ": dissected as InfiniBand");
        }
        List<byte[]> frames = PcapngFrames.read(file);
        assertEquals(rows.size(), frames.size(), "frames in the file");
        for (int i = 0; i < frames.size(); i++) {
            byte[] f = frames.get(i);
            assertEquals(
                    0,
                    ipv4HeaderSum(f),
                    "frame " + (i + 1) + ": IPv4 header checksum (RFC 791: the one's "
                            + "complement sum of the header is all ones)");
            assertEquals(expectedIcrc(f), carriedIcrc(f), "frame " + (i + 1) + ": ICRC over the IPv4 form");
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The one's complement of the one's complement sum of the IPv4 header's 16-bit words: 0 when its checksum is right. */
    private static int ipv4HeaderSum(byte[] f) {
        int len = (f[14] & 0x0F) * 4;
        int sum = 0;
        for (int i = 14; i < 14 + len; i += 2) {
            sum += ((f[i] & 0xFF) << 8) | (f[i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    /**
     * A 16 KiB RDMA WRITE and an 8 KiB RDMA READ between two devices (path MTU 1024) on a link
     * that duplicates the 2nd request, drops the 5th and delays the 12th by 200 us, plus 5% random
     * request loss drawn from the seed.
     */
    static void lossyTransfer(Path file, long seed) {
        try (Fabric fabric = Fabric.deterministic(seed)) {
            Device a = fabric.createDevice(DeviceConfig.named("a").maxMtu(Mtu.MTU_1024));
            Device b = fabric.createDevice(DeviceConfig.named("b").maxMtu(Mtu.MTU_1024));
            Link link = fabric.link(a, b);
            link.addFault(FaultRule.duplicate(PacketMatcher.nth(2, PacketMatcher.requests()), 1.0)
                    .times(1));
            link.addFault(FaultRule.drop(PacketMatcher.nth(5, PacketMatcher.requests()))
                    .times(1));
            link.addFault(FaultRule.delay(PacketMatcher.nth(12, PacketMatcher.requests()), 1.0, 200_000)
                    .times(1));
            link.addFault(FaultRule.drop(PacketMatcher.requests(), 0.05));
            EnumSet<AccessFlag> all =
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);
            ProtectionDomain pdA = a.allocPd();
            ProtectionDomain pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(16);
            CompletionQueue cqB = b.createCq(16);
            QueuePair qa = pdA.createQp(QpInitAttr.rc(cqA, cqA).caps(QpCaps.defaults()));
            QueuePair qb = pdB.createQp(QpInitAttr.rc(cqB, cqB).caps(QpCaps.defaults()));
            ByteBuffer bufA = ByteBuffer.allocateDirect(32 * 1024);
            ByteBuffer bufB = ByteBuffer.allocateDirect(32 * 1024);
            MemoryRegion mrA = pdA.registerMemory(bufA, all);
            MemoryRegion mrB = pdB.registerMemory(bufB, all);
            try (PacketCapture c = PacketCapture.on(fabric).start(file)) {
                RcConnect.connect(qa, qb);
                qa.postSend(new SendWr()
                        .wrId(1)
                        .opcode(WrOpcode.RDMA_WRITE)
                        .sge(mrA, 0, 16 * 1024)
                        .remote(mrB.address(), mrB.rkey())
                        .flag(SendFlag.SIGNALED));
                awaitSuccess(cqA);
                qa.postSend(new SendWr()
                        .wrId(2)
                        .opcode(WrOpcode.RDMA_READ)
                        .sge(mrA, 16 * 1024, 8 * 1024)
                        .remote(mrB.address(), mrB.rkey())
                        .flag(SendFlag.SIGNALED));
                awaitSuccess(cqA);
            }
            mrA.deregister();
            mrB.deregister();
            qa.destroy();
            qb.destroy();
        }
    }

    private static void awaitSuccess(CompletionQueue cq) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        assertTrue(cq.awaitCompletions(1, 10, TimeUnit.SECONDS), "no completion");
        assertEquals(1, cq.poll(wc, 1), "completion vanished");
        assertEquals(WcStatus.SUCCESS, wc[0].status(), "completion " + wc[0]);
    }

    private static String pad6(String hex) {
        return hex.isEmpty() ? "" : String.format("0x%06x", Long.parseLong(hex.substring(2), 16));
    }

    private static String pad8(String hex) {
        return hex.isEmpty() ? "" : String.format("0x%08x", Long.parseLong(hex.substring(2), 16));
    }

    private static String pad16(String hex) {
        return hex.isEmpty() ? "" : String.format("0x%016x", Long.parseUnsignedLong(hex.substring(2), 16));
    }

    private static int carriedIcrc(byte[] f) {
        return ByteBuffer.wrap(f, f.length - 4, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt();
    }

    /**
     * The invariant CRC of a RoCEv2 frame computed here from the annex's rule, independently of
     * {@link RoceFrame}: CRC-32 over 64 one-bits (the LRH stand-in), the IP header with its variant
     * fields set to ones, the UDP header with its checksum set to ones, the BTH with byte 4 set to
     * ones, and everything after up to the ICRC.
     */
    private static int expectedIcrc(byte[] frame) {
        int etherType = ((frame[12] & 0xFF) << 8) | (frame[13] & 0xFF);
        byte[] ib = java.util.Arrays.copyOfRange(frame, 14, frame.length - 4);
        Map<Integer, Integer> ones = new TreeMap<>(); // offset -> byte count set to 0xFF
        int udp;
        if (etherType == 0x0800) {
            ones.put(1, 1); // TOS
            ones.put(8, 1); // TTL
            ones.put(10, 2); // header checksum
            udp = 20;
        } else {
            assertEquals(0x86DD, etherType, "IPv4 or IPv6");
            ib[0] |= 0x0F; // traffic class, high nibble
            ones.put(1, 3); // traffic class low nibble + flow label
            ones.put(7, 1); // hop limit
            udp = 40;
        }
        ones.put(udp + 6, 2); // UDP checksum
        ones.put(udp + 8 + 4, 1); // BTH byte 4
        for (Map.Entry<Integer, Integer> e : ones.entrySet()) {
            for (int i = 0; i < e.getValue(); i++) {
                ib[e.getKey() + i] = (byte) 0xFF;
            }
        }
        CRC32 crc = new CRC32();
        for (int i = 0; i < 8; i++) {
            crc.update(0xFF);
        }
        crc.update(ib);
        return (int) crc.getValue();
    }

    /** The frames of a pcapng file's Enhanced Packet Blocks. */
    static final class PcapngFrames {
        static List<byte[]> read(Path file) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            List<byte[]> frames = new ArrayList<>();
            while (b.remaining() >= 12) {
                int start = b.position();
                int type = b.getInt(start);
                int length = b.getInt(start + 4);
                if (type == 6) {
                    int captured = b.getInt(start + 20);
                    byte[] f = new byte[captured];
                    b.get(start + 28, f);
                    frames.add(f);
                }
                b.position(start + length);
            }
            return frames;
        }
    }
}
