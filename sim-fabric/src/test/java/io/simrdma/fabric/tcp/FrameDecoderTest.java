package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The frame decoder and packet codec on Netty's EmbeddedChannel: whole, split and byte-by-byte
 * frames, every opcode, and each kind of bad input; every buffer is released (paranoid leak
 * detection fails the class otherwise, and each test checks the buffers it wrote in).
 */
class FrameDecoderTest {

    private final TcpCounters counters = new TcpCounters();
    private final List<ByteBuf> written = new ArrayList<>();
    private final List<Packet> packets = new ArrayList<>();
    private EmbeddedChannel ch;

    @BeforeEach
    void setUp() {
        ch = new EmbeddedChannel(new FrameDecoder(PacketCodec.DEFAULT_MAX_FRAME_LENGTH, counters));
    }

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
        for (Packet p : packets) {
            p.release();
        }
        for (ByteBuf b : written) {
            assertEquals(0, b.refCnt(), "a buffer given to the decoder was not released");
        }
    }

    private void write(ByteBuf b) {
        written.add(b);
        ch.writeInbound(b);
    }

    private List<Object> readAll() {
        List<Object> out = new ArrayList<>();
        Object m;
        while ((m = ch.readInbound()) != null) {
            out.add(m);
            if (m instanceof Packet) {
                packets.add((Packet) m);
            }
        }
        return out;
    }

    private FrameException rejected(ByteBuf b) {
        written.add(b);
        return assertThrows(FrameException.class, () -> ch.writeInbound(b));
    }

    private static byte[] header(Packet p) {
        byte[] h = new byte[p.headerLength()];
        p.copyHeaderTo(h, 0);
        return h;
    }

    private static byte[] payload(Packet p) {
        ByteBuf b = Unpooled.buffer();
        p.writePayloadTo(b);
        return Frames.bytes(b);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Opcode.class)
    void shouldRoundTripHeadersAndPayloadWhenEncodingEveryOpcode(Opcode op) {
        Packet sent = Frames.packet(op, op.isUd() ? 256 : 1_001, op.value());
        byte[] h = header(sent);
        byte[] pl = payload(sent);
        write(Frames.encode(sent));
        List<Object> out = readAll();
        assertEquals(1, out.size());
        Packet p = assertInstanceOf(Packet.class, out.get(0));
        assertEquals(op, p.opcode());
        assertArrayEquals(h, header(p), "header bytes travel as Packet holds them");
        assertArrayEquals(pl, payload(p));
        assertEquals(Frames.SRC, p.sourceGid());
        assertEquals(Frames.DST, p.destinationGid());
        assertTrue(p.ownsPayload() || p.payloadLength() == 0);
        assertFalse(p.icrcPresent());
    }

    @Test
    void shouldDecodeABurstIntoAPacketStandingForItsRunWhenSplitAnywhere() {
        byte[] frame = Frames.bytes(Frames.burst(4, 100, 4, 6));
        for (int cut : new int[] {1, 3, 4, 40, 70, 4096, frame.length - 1}) {
            write(Unpooled.wrappedBuffer(frame, 0, cut));
            write(Unpooled.wrappedBuffer(frame, cut, frame.length - cut));
            List<Object> out = readAll();
            assertEquals(1, out.size(), "cut at " + cut);
            Packet p = (Packet) out.get(0);
            assertTrue(p.isBurst(), "a run of packets");
            assertEquals(4, p.burstPackets());
            assertEquals(3 * 4096 + 100, p.burstBytes());
            ByteBuffer landed = ByteBuffer.allocate(3 * 4096 + 100);
            p.copyPayload(0, landed, 0, 3 * 4096 + 100);
            assertEquals(-1, RcEnd.mismatch(landed, 0, 3 * 4096 + 100, 6), "the run's payload, cut at " + cut);
            // the payload references the reads (not a merged copy): a change there shows in the packet
            frame[frame.length - 1] ^= 0x5A;
            p.copyPayload(0, landed, 0, 3 * 4096 + 100);
            assertEquals(frame[frame.length - 1], landed.get(3 * 4096 + 99), "not copied, cut at " + cut);
            frame[frame.length - 1] ^= 0x5A;
            // IBA 9.7.2: each packet of the run as if it had arrived alone
            assertEquals(Opcode.RC_RDMA_WRITE_FIRST, p.opcode());
            assertEquals(0x123456, p.psn());
            assertFalse(p.ackReq(), "only the last packet asks for an ACK");
            p.skipInBurst(3);
            assertEquals(Opcode.RC_RDMA_WRITE_LAST, p.opcode());
            assertEquals(0x123459, p.psn(), "PSN advanced by the packets skipped");
            assertEquals(100, p.payloadLength());
            assertTrue(p.ackReq(), "the last packet asks for an ACK");
            assertEquals(Frames.SRC, p.sourceGid());
            assertEquals(Frames.DST, p.destinationGid());
        }
    }

    @Test
    void shouldRejectABurstWhosePacketCountDoesNotFitItsPayload() {
        assertEquals(
                FrameError.MALFORMED_HEADER,
                rejected(Frames.burst(4, 100, 5, 1)).kind(),
                "5 packets of 4096 cannot carry 3 x 4096 + 100 bytes");
    }

    @Test
    void shouldRejectABurstOfOnePacket() {
        assertEquals(
                FrameError.MALFORMED_HEADER,
                rejected(Frames.burst(2, 100, 1, 1)).kind());
    }

    @Test
    void shouldRejectABurstThatStartsWithALastPacket() {
        ByteBuf f = Frames.burst(2, 100, 2, 1);
        f.setByte(4 + PacketCodec.PACKET_PREFIX_LENGTH, Opcode.RC_RDMA_WRITE_LAST.value());
        assertEquals(FrameError.MALFORMED_HEADER, rejected(f).kind());
    }

    @Test
    void shouldRejectABurstThatEndsWithAnotherKindOfPacket() {
        ByteBuf f = Frames.burst(2, 100, 2, 1);
        int runAt = 4 + PacketCodec.PACKET_PREFIX_LENGTH + Opcode.RC_RDMA_WRITE_FIRST.headerLength();
        f.setByte(runAt + 4, Opcode.RC_SEND_LAST.value());
        assertEquals(FrameError.MALFORMED_HEADER, rejected(f).kind());
    }

    @Test
    void shouldDecodeWhenTheFrameIsSplitAtEveryPoint() {
        byte[] frame = Frames.bytes(Frames.encode(Frames.packet(Opcode.RC_SEND_ONLY, 77, 5)));
        for (int cut = 1; cut < frame.length; cut++) {
            write(Unpooled.wrappedBuffer(frame, 0, cut));
            assertTrue(readAll().isEmpty(), "nothing before the frame is complete (cut at " + cut + ")");
            write(Unpooled.wrappedBuffer(frame, cut, frame.length - cut));
            List<Object> out = readAll();
            assertEquals(1, out.size(), "cut at " + cut);
            assertEquals(77, ((Packet) out.get(0)).payloadLength());
        }
    }

    @Test
    void shouldDecodeAFrameSplitAcrossReadsWithoutCopyingItsBytes() {
        byte[] frame = Frames.bytes(Frames.encode(Frames.packet(Opcode.RC_SEND_ONLY, 3000, 4)));
        int cut = 1000;
        byte[] second = java.util.Arrays.copyOfRange(frame, cut, frame.length);
        write(Unpooled.wrappedBuffer(frame, 0, cut));
        write(Unpooled.wrappedBuffer(second));
        Packet p = (Packet) readAll().get(0);
        int payloadStart = 4 + PacketCodec.PACKET_PREFIX_LENGTH + Opcode.RC_SEND_ONLY.headerLength();
        // the payload's last byte lies in the second read: change it there, see it in the packet
        second[second.length - 1] ^= 0x5A;
        byte[] seen = payload(p);
        assertEquals(
                second[second.length - 1], seen[seen.length - 1], "the payload is a view of the reads, not a copy");
        assertEquals(3000, frame.length - payloadStart, "the frame ends with its payload");
    }

    @Test
    void shouldDecodeEveryFrameWhenFedOneByteAtATime() {
        ByteBuf all = Unpooled.buffer();
        all.writeBytes(
                Frames.bytes(Handshake.encode(Frames.hello("fabric-1", Frames.SRC, true), ByteBufAllocator.DEFAULT)));
        all.writeBytes(Frames.bytes(Handshake.encode(
                new Handshake.Refuse(HandshakeFailure.WRONG_FABRIC.code(), HandshakeFailure.WRONG_FABRIC),
                ByteBufAllocator.DEFAULT)));
        all.writeBytes(Frames.bytes(Frames.encode(Frames.packet(Opcode.RC_RDMA_WRITE_ONLY, 4096, 9))));
        all.writeBytes(Frames.bytes(Frames.encode(Frames.packet(Opcode.RC_ACKNOWLEDGE, 0, 0))));
        byte[] bytes = Frames.bytes(all);
        List<Object> out = new ArrayList<>();
        for (byte b : bytes) {
            write(Unpooled.wrappedBuffer(new byte[] {b}));
            out.addAll(readAll());
        }
        assertEquals(4, out.size());
        Handshake.Hello h = assertInstanceOf(Handshake.Hello.class, out.get(0));
        assertTrue(h.compatible());
        assertEquals("fabric-1", h.fabric());
        assertEquals("test-peer", h.node());
        assertEquals(Frames.SRC, h.gid());
        assertTrue(h.tls());
        assertEquals(
                HandshakeFailure.WRONG_FABRIC,
                assertInstanceOf(Handshake.Refuse.class, out.get(1)).reason());
        assertEquals(4096, ((Packet) out.get(2)).payloadLength());
        assertEquals(Opcode.RC_ACKNOWLEDGE, ((Packet) out.get(3)).opcode());
    }

    @Test
    void shouldDecodeSeveralFramesWhenOneReadHoldsThem() {
        ByteBuf two = Unpooled.buffer();
        for (int i = 0; i < 3; i++) {
            two.writeBytes(Frames.bytes(Frames.encode(Frames.packet(Opcode.RC_SEND_ONLY, 10 + i, i))));
        }
        write(two);
        List<Object> out = readAll();
        assertEquals(3, out.size());
        assertEquals(12, ((Packet) out.get(2)).payloadLength());
    }

    @Test
    void shouldRejectTheLengthBeforeTheFrameArrivesWhenItExceedsTheMaximum() {
        ByteBuf prefix = Unpooled.buffer().writeInt(Integer.MAX_VALUE);
        FrameException e = rejected(prefix);
        assertEquals(FrameError.TOO_LONG, e.kind());
        // nothing was allocated for it, and the rest of the stream is discarded quietly
        write(Unpooled.wrappedBuffer(new byte[100]));
        assertTrue(readAll().isEmpty());
    }

    @Test
    void shouldRejectAFrameJustOverTheMaximum() {
        ByteBuf prefix = Unpooled.buffer().writeInt(PacketCodec.DEFAULT_MAX_FRAME_LENGTH + 1);
        assertEquals(FrameError.TOO_LONG, rejected(prefix).kind());
    }

    @Test
    void shouldRejectAnEmptyFrame() {
        assertEquals(
                FrameError.TRUNCATED, rejected(Unpooled.buffer().writeInt(0)).kind());
    }

    @Test
    void shouldReportTruncatedWhenTheStreamEndsInsideAFrame() {
        byte[] frame = Frames.bytes(Frames.encode(Frames.packet(Opcode.RC_SEND_ONLY, 100, 1)));
        write(Unpooled.wrappedBuffer(frame, 0, frame.length - 1));
        FrameException e = assertThrows(FrameException.class, () -> ch.finish());
        assertEquals(FrameError.TRUNCATED, e.kind());
    }

    @Test
    void shouldRejectAPacketFrameShorterThanItsGidsAndBth() {
        assertEquals(
                FrameError.TRUNCATED,
                rejected(Frames.packetFrame(0, new byte[11])).kind());
    }

    @Test
    void shouldRejectAnUnknownFrameType() {
        assertEquals(
                FrameError.UNKNOWN_TYPE, rejected(Frames.frame(0x7F, 1, 2, 3)).kind());
    }

    @Test
    void shouldRejectAnUnknownOpcode() {
        byte[] bth = new byte[12];
        bth[0] = 0x1F;
        assertEquals(
                FrameError.UNKNOWN_OPCODE, rejected(Frames.packetFrame(0, bth)).kind());
    }

    @Test
    void shouldRejectAHeaderShorterThanItsOpcodeNeeds() {
        byte[] bth = new byte[12];
        bth[0] = (byte) Opcode.RC_RDMA_WRITE_ONLY.value(); // needs a RETH: 28 header bytes
        FrameException e = rejected(Frames.packetFrame(0, bth));
        assertEquals(FrameError.MALFORMED_HEADER, e.kind());
    }

    @Test
    void shouldRejectAPayloadOnAnOpcodeWithoutOne() {
        byte[] iba = new byte[16 + 4];
        iba[0] = (byte) Opcode.RC_ACKNOWLEDGE.value();
        assertEquals(
                FrameError.MALFORMED_HEADER,
                rejected(Frames.packetFrame(0, iba)).kind());
    }

    @Test
    void shouldRejectUnknownFlagBits() {
        byte[] bth = new byte[16];
        bth[0] = (byte) Opcode.RC_ACKNOWLEDGE.value();
        assertEquals(
                FrameError.MALFORMED_HEADER,
                rejected(Frames.packetFrame(0x80, bth)).kind());
    }

    @Test
    void shouldRejectATransportVersionOtherThanZero() {
        byte[] bth = new byte[16];
        bth[0] = (byte) Opcode.RC_ACKNOWLEDGE.value();
        bth[1] = 0x01;
        assertEquals(
                FrameError.MALFORMED_HEADER,
                rejected(Frames.packetFrame(0, bth)).kind());
    }

    @Test
    void shouldRejectAPadCountLargerThanWhatFollowsTheHeaders() {
        byte[] bth = new byte[12];
        bth[0] = (byte) Opcode.RC_SEND_ONLY.value();
        bth[1] = 0x30; // pad 3, nothing follows
        assertEquals(FrameError.BAD_PAD, rejected(Frames.packetFrame(0, bth)).kind());
    }

    @Test
    void shouldRejectAPadThatDoesNotAlignThePayload() {
        byte[] iba = new byte[12 + 5];
        iba[0] = (byte) Opcode.RC_SEND_ONLY.value(); // pad 0 for a 5-byte payload
        assertEquals(FrameError.BAD_PAD, rejected(Frames.packetFrame(0, iba)).kind());
    }

    @Test
    void shouldRejectAHandshakeFrameOfTheWrongLength() {
        assertEquals(
                FrameError.MALFORMED_HANDSHAKE,
                rejected(Frames.frame(PacketCodec.TYPE_REFUSE, 1, 2, 3)).kind());
    }

    @Test
    void shouldTellATlsPeerFromBadInputOnAPlainConnection() {
        EmbeddedChannel plain =
                new EmbeddedChannel(new FrameDecoder(PacketCodec.DEFAULT_MAX_FRAME_LENGTH, counters, true));
        ByteBuf clientHello = Unpooled.wrappedBuffer(new byte[] {0x16, 0x03, 0x01, 0x01, 0x20, 0x01});
        written.add(clientHello);
        assertThrows(FrameDecoder.PeerSpeaksTls.class, () -> plain.writeInbound(clientHello));
        plain.finishAndReleaseAll();
        assertEquals(
                FrameError.TOO_LONG,
                rejected(Unpooled.wrappedBuffer(new byte[] {0x16, 0x03, 0x01, 0x01, 0x20}))
                        .kind(),
                "on a TLS connection (decrypted bytes) 0x16 is only a length byte");
    }

    @Test
    void shouldTellWhenAFrameIsPartlyReceived() {
        FrameDecoder d = ch.pipeline().get(FrameDecoder.class);
        byte[] frame = Frames.bytes(Frames.encode(Frames.packet(Opcode.RC_RDMA_WRITE_ONLY, 1000, 3)));
        assertFalse(d.hasPartialFrame());
        write(Unpooled.wrappedBuffer(frame, 0, 600));
        assertTrue(d.hasPartialFrame(), "600 of " + frame.length + " bytes arrived");
        write(Unpooled.wrappedBuffer(frame, 600, frame.length - 600));
        assertEquals(1, readAll().size());
        assertFalse(d.hasPartialFrame());
    }

    @Test
    void shouldRejectTheAuthFrameOfProtocolVersion1AsAnUnknownType() {
        assertEquals(
                FrameError.UNKNOWN_TYPE, rejected(Frames.frame(0x02, 1, 2, 3)).kind());
    }

    @Test
    void shouldRejectAHelloWhoseNameOverrunsTheFrame() {
        ByteBuf hello = Handshake.encode(Frames.hello("fabric", Frames.SRC, false), ByteBufAllocator.DEFAULT);
        byte[] b = Frames.bytes(hello);
        b[b.length - "test-peer".length() - 1] = (byte) 200; // node name length past the end
        assertEquals(
                FrameError.MALFORMED_HANDSHAKE,
                rejected(Unpooled.wrappedBuffer(b)).kind());
    }

    @Test
    void shouldStopReadingAHelloOfAnotherVersionAfterItsVersion() {
        write(Frames.frame(PacketCodec.TYPE_HELLO, 0x53, 0x49, 0x4D, 0x52, 0, 1, 0xEE));
        Handshake.Hello h = assertInstanceOf(Handshake.Hello.class, readAll().get(0));
        assertFalse(h.compatible(), "version 1 (pre-shared keys) is another version");
        assertEquals(1, h.version());
    }

    @Test
    void shouldDropWithoutClosingWhenACorruptedPacketCannotBeParsed() {
        byte[] iba = new byte[12 + 4];
        iba[0] = 0x1F; // a flipped opcode; the ICRC flag says the frame was checked by CRC
        write(Frames.packetFrame(PacketCodec.FLAG_ICRC, iba));
        write(Frames.encode(Frames.packet(Opcode.RC_ACKNOWLEDGE, 0, 0)));
        List<Object> out = readAll();
        assertEquals(1, out.size(), "the next frame still decodes");
        assertEquals(1, counters.get(TcpCounter.CORRUPT_PACKETS_DROPPED));
    }

    @Test
    void shouldLeaveTheIcrcCheckToThePortWhenACorruptedPacketParses() {
        Packet p = Frames.packet(Opcode.RC_SEND_ONLY, 64, 3);
        p.materialize(ByteBufAllocator.DEFAULT);
        p.attachIcrc();
        p.flipBit(12 * 8 + 5, ByteBufAllocator.DEFAULT); // a payload bit
        write(Frames.encode(p));
        Packet got = (Packet) readAll().get(0);
        assertTrue(got.icrcPresent());
        assertFalse(got.icrcValid(), "the receiving port's ICRC check will drop it");
    }

    @Test
    void shouldEncodeThePayloadWithoutCopyingIt() {
        ByteBuffer memory = ByteBuffer.allocateDirect(4096);
        RcEnd.fill(memory, 0, 4096, 8);
        Packet p = Packet.allocate(Opcode.RC_SEND_ONLY)
                .destQp(0x11)
                .route(Frames.SRC, Frames.DST)
                .addSegment(memory, 100, 1000)
                .updatePadCount();
        ByteBuf frame = PacketCodec.encode(p, ByteBufAllocator.DEFAULT);
        p.release();
        try {
            CompositeByteBuf c = assertInstanceOf(CompositeByteBuf.class, frame);
            assertTrue(c.isDirect(), "a direct frame: written to the socket as it is");
            int payloadAt = PacketCodec.LENGTH_FIELD_LENGTH + PacketCodec.PACKET_PREFIX_LENGTH + 12;
            memory.put(100, (byte) 0x5A);
            assertEquals(0x5A, frame.getByte(payloadAt), "the frame reads the registered memory itself");
            assertEquals(frame.readableBytes() - PacketCodec.LENGTH_FIELD_LENGTH, frame.getInt(0));
        } finally {
            frame.release();
        }
    }

    @Test
    void shouldWriteTheSameBytesWhenTheFrameIsSplitIntoHeadPayloadAndTrailer() {
        // FrameEncoder writes a packet's frame as its head, a view of its payload and its trailer,
        // one buffer after the other: their bytes in order must be exactly the one-buffer frame.
        SplittableRandom r = new SplittableRandom(12);
        Opcode[] ops = Opcode.values();
        for (int i = 0; i < 200; i++) {
            Opcode op = ops[r.nextInt(ops.length)];
            Packet p = Frames.packet(op, op.hasPayload() ? r.nextInt(4097) : 0, i);
            if (i % 3 == 0) {
                p.icrc(r.nextInt());
            }
            boolean trailed = p.payloadLength() > 0 && (p.padCount() > 0 || p.icrcPresent());
            ByteBuf whole = PacketCodec.encode(p, ByteBufAllocator.DEFAULT);
            ByteBuf head = PacketCodec.encodeHead(p, ByteBufAllocator.DEFAULT);
            ByteBuf payload = p.payloadLength() == 0 ? null : p.payloadView(ByteBufAllocator.DEFAULT);
            ByteBuf trailer = p.payloadLength() == 0 ? null : PacketCodec.encodeTrailer(p, ByteBufAllocator.DEFAULT);
            p.release();
            assertEquals(
                    trailed,
                    trailer != null,
                    op + ": a trailer buffer exactly when a payload is followed by pad or an ICRC");
            ByteBuf split = Unpooled.buffer();
            for (ByteBuf b : new ByteBuf[] {head, payload, trailer}) {
                if (b != null) {
                    split.writeBytes(b);
                    b.release();
                }
            }
            assertArrayEquals(
                    Frames.bytes(whole), // releases whole
                    Frames.bytes(split), // releases split
                    op + ": the frame written as head, payload and trailer differs from the one-buffer frame");
        }
    }

    @Test
    void shouldDecodeRandomValidStreamsSplitAnywhere() {
        SplittableRandom r = new SplittableRandom(7);
        Opcode[] ops = Opcode.values();
        ByteBuf all = Unpooled.buffer();
        int n = 50;
        for (int i = 0; i < n; i++) {
            all.writeBytes(Frames.bytes(Frames.encode(Frames.packet(ops[r.nextInt(ops.length)], r.nextInt(4097), i))));
        }
        byte[] bytes = Frames.bytes(all);
        int at = 0;
        int decoded = 0;
        while (at < bytes.length) {
            int len = Math.min(bytes.length - at, 1 + r.nextInt(9000));
            write(Unpooled.wrappedBuffer(bytes, at, len));
            at += len;
            decoded += readAll().size();
        }
        assertEquals(n, decoded);
        assertNull(ch.readInbound());
    }
}
