package io.simrdma.fabric.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The packet flyweight writes the IBA header encodings byte for byte (IBA 9.2 BTH, 9.3 extension
 * headers, all fields big-endian), references payload without copying, and computes the ICRC of
 * IBA 7.8.1. Every buffer is released: the build runs Netty's leak detector in paranoid mode and
 * fails the class on a leak.
 */
class PacketTest {

    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private final List<Packet> packets = new ArrayList<>();

    private Packet alloc(Opcode op) {
        Packet p = Packet.allocate(op);
        packets.add(p);
        return p;
    }

    @AfterEach
    void releaseAll() {
        for (Packet p : packets) {
            p.release();
        }
    }

    private static byte[] header(Packet p) {
        byte[] b = new byte[p.headerLength()];
        p.copyHeaderTo(b, 0);
        return b;
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    // ------------------------------------------------------------------ BTH

    @Test
    @DisplayName("IBA 9.2: BTH of SEND Only, SE=1, pad 2, P_Key 0xFFFF, DestQP 0x123456, AckReq, PSN 0xABCDEF")
    void shouldEncodeBthExactlyWhenFieldsAreSet() {
        Packet p = alloc(Opcode.RC_SEND_ONLY);
        ByteBuffer data = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6});
        p.addSegment(data, 0, 6).updatePadCount();
        p.solicited(true).pkey(0xFFFF).destQp(0x123456).ackReq(true).psn(0xABCDEF);
        // byte 0 OpCode 0x04; byte 1 SE(1) M(0) PadCnt(10) TVer(0000) = 1010 0000; bytes 2-3 P_Key;
        // byte 4 FECN BECN resv6 = 0; bytes 5-7 DestQP; byte 8 A(1) resv7; bytes 9-11 PSN.
        assertArrayEquals(hex("04 A0 FFFF 00 123456 80 ABCDEF"), header(p));
        assertEquals(12, p.headerLength());
        assertEquals(Opcode.RC_SEND_ONLY, p.opcode());
        assertTrue(p.solicited());
        assertFalse(p.migReq());
        assertEquals(2, p.padCount());
        assertEquals(0, p.transportVersion());
        assertEquals(0xFFFF, p.pkey());
        assertEquals(0x123456, p.destQp());
        assertTrue(p.ackReq());
        assertEquals(0xABCDEF, p.psn());
        assertEquals(6, p.payloadLength());
    }

    @Test
    @DisplayName("IBA 9.2: clearing SE and AckReq leaves the other BTH bits alone; 24-bit fields are truncated")
    void shouldClearOnlyTheFlagWhenSolicitedOrAckReqIsReset() {
        Packet p = alloc(Opcode.RC_SEND_LAST);
        p.addSegment(ByteBuffer.allocate(3), 0, 3).updatePadCount();
        p.solicited(true).ackReq(true).destQp(0xFF_FEDCBA).psn(0x7F_000001);
        p.solicited(false).ackReq(false);
        assertArrayEquals(hex("02 10 0000 00 FEDCBA 00 000001"), header(p));
        assertEquals(1, p.padCount());
        for (int len = 0; len < 8; len++) {
            Packet q = alloc(Opcode.RC_SEND_ONLY);
            if (len > 0) {
                q.addSegment(ByteBuffer.allocate(len), 0, len);
            }
            q.updatePadCount();
            assertEquals((4 - len % 4) % 4, q.padCount(), "pad for " + len + " bytes");
        }
    }

    // ------------------------------------------------------------------ extension headers

    @Test
    @DisplayName("IBA 9.3.3: RETH VA, R_Key, DMA length big-endian at offset 12")
    void shouldEncodeRethAfterBthWhenRdmaWriteFirst() {
        Packet p = alloc(Opcode.RC_RDMA_WRITE_FIRST);
        p.reth(0x0123456789ABCDEFL, 0xDEADBEEF, 0x00010000).psn(1);
        assertArrayEquals(hex("06 00 0000 00 000000 00 000001 0123456789ABCDEF DEADBEEF 00010000"), header(p));
        assertEquals(0x0123456789ABCDEFL, p.rethVa());
        assertEquals(0xDEADBEEF, p.rethRkey());
        assertEquals(0x00010000, p.rethLength());
        Packet r = alloc(Opcode.RC_RDMA_READ_REQUEST);
        r.reth(-1L, 7, Integer.MIN_VALUE);
        assertArrayEquals(hex("0C 00 0000 00 000000 00 000000 FFFFFFFFFFFFFFFF 00000007 80000000"), header(r));
        assertEquals(-1L, r.rethVa());
        assertEquals(Integer.MIN_VALUE, r.rethLength());
    }

    @Test
    @DisplayName("IBA 9.3.4: AtomicETH VA, R_Key, swap/add data, compare data at offset 12")
    void shouldEncodeAtomicEthWhenCmpSwapOrFetchAdd() {
        Packet c = alloc(Opcode.RC_CMP_SWAP);
        c.atomicEth(0x00007F0000001000L, 0x11223344, 0x0102030405060708L, 0xA1A2A3A4A5A6A7A8L);
        assertArrayEquals(
                hex("13 00 0000 00 000000 00 000000 00007F0000001000 11223344 0102030405060708 A1A2A3A4A5A6A7A8"),
                header(c));
        assertEquals(40, c.headerLength());
        assertEquals(0x00007F0000001000L, c.atomicVa());
        assertEquals(0x11223344, c.atomicRkey());
        assertEquals(0x0102030405060708L, c.atomicSwapOrAdd());
        assertEquals(0xA1A2A3A4A5A6A7A8L, c.atomicCompare());
        Packet f = alloc(Opcode.RC_FETCH_ADD);
        f.atomicEth(8, 1, -1L, 0);
        assertArrayEquals(
                hex("14 00 0000 00 000000 00 000000 0000000000000008 00000001 FFFFFFFFFFFFFFFF 0000000000000000"),
                header(f));
    }

    @Test
    @DisplayName("IBA 9.3.5/9.3.6: AETH syndrome + 24-bit MSN, AtomicAckETH original data")
    void shouldEncodeAethAndAtomicAckEthWhenAcknowledging() {
        Packet a = alloc(Opcode.RC_ACKNOWLEDGE);
        a.psn(0xFFFFFF).aeth(Aeth.nak(Aeth.NakCode.REMOTE_ACCESS_ERROR), 0x345678);
        assertArrayEquals(hex("11 00 0000 00 000000 00 FFFFFF 62 345678"), header(a));
        assertEquals(0x62, a.aethSyndrome());
        assertEquals(0x345678, a.aethMsn());
        Packet aa = alloc(Opcode.RC_ATOMIC_ACKNOWLEDGE);
        aa.aeth(Aeth.ack(Aeth.CREDITS_INVALID), 1).atomicAckOriginal(0x8000000000000001L);
        assertArrayEquals(hex("12 00 0000 00 000000 00 000000 1F 000001 8000000000000001"), header(aa));
        assertEquals(0x8000000000000001L, aa.atomicAckOriginal());
        Packet rr = alloc(Opcode.RC_RDMA_READ_RESPONSE_FIRST);
        rr.aeth(Aeth.ack(3), 0xABCDEF);
        assertArrayEquals(hex("0D 00 0000 00 000000 00 000000 03 ABCDEF"), header(rr));
    }

    @Test
    @DisplayName("IBA 9.3.7/9.3.8/9.3.2: ImmDt, IETH and DETH at their offsets")
    void shouldEncodeImmIethAndDethWhenPresent() {
        Packet s = alloc(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE);
        s.immediate(0xCAFEBABE);
        assertArrayEquals(hex("05 00 0000 00 000000 00 000000 CAFEBABE"), header(s));
        assertEquals(0xCAFEBABE, s.immediate());
        Packet w = alloc(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
        w.reth(0x10, 0x20, 0x30).immediate(0x01020304);
        assertArrayEquals(hex("0B 00 0000 00 000000 00 000000 0000000000000010 00000020 00000030 01020304"), header(w));
        Packet wl = alloc(Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE);
        wl.immediate(-2);
        assertArrayEquals(hex("09 00 0000 00 000000 00 000000 FFFFFFFE"), header(wl));
        Packet i = alloc(Opcode.RC_SEND_ONLY_WITH_INVALIDATE);
        i.iethRkey(0x0000AB12);
        assertArrayEquals(hex("17 00 0000 00 000000 00 000000 0000AB12"), header(i));
        assertEquals(0xAB12, i.iethRkey());
        Packet u = alloc(Opcode.UD_SEND_ONLY);
        u.deth(0x80010000, 0x000001).destQp(1).pkey(0xFFFF);
        assertArrayEquals(hex("64 00 FFFF 00 000001 00 000000 80010000 00 000001"), header(u));
        assertEquals(0x80010000, u.dethQkey());
        assertEquals(1, u.dethSrcQp());
    }

    @Test
    @DisplayName("A field the opcode does not carry cannot be written (header set from the table)")
    void shouldRejectFieldWhenOpcodeHasNoSuchHeader() {
        Packet p = alloc(Opcode.RC_SEND_MIDDLE);
        assertThrows(IllegalStateException.class, () -> p.reth(0, 0, 0));
        assertThrows(IllegalStateException.class, () -> p.immediate(1));
        assertThrows(IllegalStateException.class, p::aethSyndrome);
        assertThrows(IllegalStateException.class, p::atomicVa);
        assertThrows(IllegalStateException.class, p::iethRkey);
        assertThrows(IllegalStateException.class, p::dethQkey);
    }

    @Test
    @DisplayName("A pooled packet comes back with a zeroed header for its new opcode")
    void shouldStartFromZeroedHeaderWhenReallocatedFromThePool() {
        Packet p = Packet.allocate(Opcode.RC_CMP_SWAP);
        p.atomicEth(-1, -1, -1, -1)
                .psn(0xFFFFFF)
                .destQp(0xFFFFFF)
                .pkey(0xFFFF)
                .solicited(true)
                .ackReq(true);
        p.release();
        Packet q = alloc(Opcode.RC_CMP_SWAP);
        byte[] expected = new byte[40];
        expected[0] = 0x13;
        assertArrayEquals(expected, header(q));
        assertEquals(0, q.payloadLength());
        assertFalse(q.icrcPresent());
        assertFalse(q.retransmission());
        assertNull(q.sourceGid());
    }

    // ------------------------------------------------------------------ payload

    /** Three segments in three buffers (heap, direct, heap at an offset): 5 + 300 + 7 bytes. */
    private static final class Segments {
        final ByteBuffer s1 = ByteBuffer.allocate(50);
        final ByteBuffer s2 = ByteBuffer.allocateDirect(400);
        final ByteBuffer s3 = ByteBuffer.allocate(20);
        final byte[] all = new byte[312];

        Segments() {
            for (int i = 0; i < 50; i++) {
                s1.put(i, (byte) (i + 1));
            }
            for (int i = 0; i < 400; i++) {
                s2.put(i, (byte) (100 + i));
            }
            for (int i = 0; i < 20; i++) {
                s3.put(i, (byte) (-i - 1));
            }
            int at = 0;
            for (int i = 10; i < 15; i++) {
                all[at++] = s1.get(i);
            }
            for (int i = 33; i < 333; i++) {
                all[at++] = s2.get(i);
            }
            for (int i = 13; i < 20; i++) {
                all[at++] = s3.get(i);
            }
        }

        Packet attach(Packet p) {
            return p.addSegment(s1, 10, 5)
                    .addSegment(s2, 33, 300)
                    .addSegment(ByteBuffer.allocate(1), 0, 0)
                    .addSegment(s3, 13, 7);
        }
    }

    @Test
    @DisplayName("Payload segments reference memory without copying; copyPayload works across segment boundaries")
    void shouldCopyAnyRangeAcrossSegmentsWhenPayloadIsReferenced() {
        Segments s = new Segments();
        Packet p = s.attach(alloc(Opcode.RC_SEND_MIDDLE));
        assertEquals(312, p.payloadLength());
        assertFalse(p.ownsPayload());
        int[][] ranges = {{0, 312}, {0, 5}, {4, 2}, {5, 300}, {3, 305}, {304, 8}, {305, 7}, {311, 1}, {100, 1}, {0, 1}};
        for (int[] r : ranges) {
            byte[] dst = new byte[r[1] + 3];
            p.copyPayload(r[0], dst, 3, r[1]);
            byte[] want = new byte[r[1] + 3];
            System.arraycopy(s.all, r[0], want, 3, r[1]);
            assertArrayEquals(want, dst, "range " + r[0] + "+" + r[1]);
            ByteBuffer direct = ByteBuffer.allocateDirect(r[1] + 1);
            p.copyPayload(r[0], direct, 1, r[1]);
            for (int i = 0; i < r[1]; i++) {
                assertEquals(s.all[r[0] + i], direct.get(1 + i));
            }
        }
        // No copy was taken: a change to the source shows through.
        s.s2.put(33, (byte) 0x5A);
        byte[] one = new byte[1];
        p.copyPayload(5, one, 0, 1);
        assertEquals(0x5A, one[0]);
    }

    @Test
    @DisplayName("copyPayload of zero bytes is a no-op anywhere in [0, payloadLength]; out of range throws")
    void shouldCopyNothingWhenLengthIsZeroAndRejectOutOfRange() {
        Segments s = new Segments();
        Packet p = s.attach(alloc(Opcode.RC_SEND_MIDDLE));
        byte[] dst = new byte[4];
        p.copyPayload(0, dst, 0, 0);
        p.copyPayload(5, dst, 0, 0);
        p.copyPayload(312, dst, 0, 0);
        assertArrayEquals(new byte[4], dst);
        Packet empty = alloc(Opcode.RC_SEND_ONLY);
        empty.copyPayload(0, dst, 0, 0);
        assertThrows(IndexOutOfBoundsException.class, () -> p.copyPayload(310, dst, 0, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> p.copyPayload(-1, dst, 0, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> p.copyPayload(0, dst, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> empty.copyPayload(0, dst, 0, 1));
    }

    @Test
    @DisplayName("writePayloadTo and payloadView give the concatenated segments; the view is released by its caller")
    void shouldGiveConcatenatedBytesWhenPayloadIsWrittenOrViewed() {
        Segments s = new Segments();
        Packet p = s.attach(alloc(Opcode.RC_SEND_MIDDLE));
        ByteBuf out = ALLOC.buffer(400);
        ByteBuf view = p.payloadView(ALLOC);
        try {
            p.writePayloadTo(out);
            assertArrayEquals(s.all, bytes(out));
            assertArrayEquals(s.all, bytes(view));
        } finally {
            out.release();
            view.release();
        }
        Packet single = alloc(Opcode.RC_SEND_ONLY).addSegment(s.s1, 10, 5);
        ByteBuf v = single.payloadView(ALLOC);
        try {
            assertArrayEquals(new byte[] {11, 12, 13, 14, 15}, bytes(v));
        } finally {
            v.release();
        }
    }

    @Test
    @DisplayName("materialize copies the payload into a buffer the packet owns; release frees it")
    void shouldOwnACopyWhenMaterialized() {
        Segments s = new Segments();
        Packet p = s.attach(alloc(Opcode.RC_SEND_MIDDLE));
        p.materialize(ALLOC);
        assertTrue(p.ownsPayload());
        assertEquals(312, p.payloadLength());
        s.s2.put(40, (byte) 0);
        byte[] dst = new byte[312];
        p.copyPayload(0, dst, 0, 312);
        assertArrayEquals(s.all, dst, "the materialized copy no longer reads the sender's memory");
        ByteBuffer direct = ByteBuffer.allocateDirect(312);
        p.copyPayload(0, direct, 0, 312);
        for (int i = 0; i < 312; i++) {
            assertEquals(s.all[i], direct.get(i));
        }
        p.materialize(ALLOC);
        assertThrows(IllegalStateException.class, () -> p.addSegment(s.s1, 0, 1));
        ByteBuf view = p.payloadView(ALLOC);
        try {
            assertArrayEquals(s.all, bytes(view));
        } finally {
            view.release();
        }
    }

    @Test
    @DisplayName("duplicate copies headers and routing and shares the payload; both release independently")
    void shouldShareOwnedPayloadAndCopyHeadersWhenDuplicated() {
        Segments s = new Segments();
        Packet p = s.attach(alloc(Opcode.RC_RDMA_WRITE_FIRST));
        p.reth(1, 2, 312).psn(77).destQp(0x42).ackReq(true).retransmission(true);
        Gid g1 = Gid.linkLocal(1);
        Gid g2 = Gid.linkLocal(2);
        p.route(g1, g2);
        Packet d = p.duplicate();
        packets.add(d);
        assertNotSame(p, d);
        assertArrayEquals(header(p), header(d));
        assertEquals(312, d.payloadLength());
        assertTrue(d.retransmission());
        assertEquals(g1, d.sourceGid());
        assertEquals(g2, d.destinationGid());
        d.psn(78);
        assertEquals(77, p.psn(), "the copy's header is its own");

        p.materialize(ALLOC);
        p.attachIcrc();
        Packet d2 = p.duplicate();
        packets.add(d2);
        assertTrue(d2.ownsPayload());
        assertTrue(d2.icrcPresent());
        assertEquals(p.icrc(), d2.icrc());
        byte[] dst = new byte[312];
        d2.copyPayload(0, dst, 0, 312);
        assertArrayEquals(s.all, dst);
    }

    @Test
    @DisplayName("fromWire takes ownership of the payload; unknown opcodes and short headers are refused")
    void shouldOwnWirePayloadWhenBuiltFromWireBytes() {
        byte[] hdr = hex("0A 40 FFFF 00 000011 80 000100 0000000000001000 00000099 00000003");
        ByteBuf payload = ALLOC.buffer(3).writeBytes(new byte[] {7, 8, 9});
        Packet p = Packet.fromWire(hdr, hdr.length, payload);
        packets.add(p);
        assertEquals(Opcode.RC_RDMA_WRITE_ONLY, p.opcode());
        assertTrue(p.migReq());
        assertEquals(0x100, p.psn());
        assertEquals(0x99, p.rethRkey());
        assertEquals(3, p.payloadLength());
        assertTrue(p.ownsPayload());
        assertArrayEquals(hdr, header(p));
        packets.remove(p);
        p.release();
        assertEquals(0, payload.refCnt(), "release frees the owned payload");

        byte[] reserved = hex("15 00 0000 00 000000 00 000000");
        ByteBuf b = Unpooled.buffer(1);
        try {
            assertNull(Packet.fromWire(reserved, reserved.length, b), "0x15 is reserved");
            assertNull(Packet.fromWire(hdr, 27, b), "RDMA WRITE Only needs 28 header bytes");
        } finally {
            b.release();
        }
    }

    @Test
    @DisplayName("A packet is released exactly once")
    void shouldThrowWhenReleasedTwice() {
        Packet p = Packet.allocate(Opcode.RC_ACKNOWLEDGE);
        p.release();
        assertThrows(IllegalStateException.class, p::release);
    }

    // ------------------------------------------------------------------ ICRC

    /** IBA 7.8.1 as simrdma applies it: CRC-32 over the headers with BTH byte 4 set to 0xFF, payload, pad. */
    private static int expectedIcrc(byte[] header, byte[] payload, int pad) {
        CRC32 crc = new CRC32();
        byte[] h = header.clone();
        h[4] = (byte) 0xFF;
        crc.update(h);
        crc.update(payload);
        crc.update(new byte[pad]);
        return (int) crc.getValue();
    }

    @Test
    @DisplayName(
            "IBA 7.8.1: ICRC over headers (variant byte masked), payload and pad; any flipped invariant bit is caught")
    void shouldDetectEveryFlippedBitWhenIcrcIsAttached() {
        Segments s = new Segments();
        Packet p = s.attach(alloc(Opcode.RC_SEND_LAST_WITH_IMMEDIATE));
        p.immediate(0x01020304).psn(0x10).destQp(0x11).pkey(0xFFFF).ackReq(true).updatePadCount();
        assertFalse(p.icrcPresent());
        assertTrue(p.icrcValid(), "no ICRC attached: nothing to check");
        p.attachIcrc();
        assertTrue(p.icrcPresent());
        assertEquals(expectedIcrc(header(p), s.all, p.padCount()), p.icrc());
        assertTrue(p.icrcValid());

        int headerBits = p.headerLength() * 8;
        for (int bit = 0; bit < headerBits; bit++) {
            p.flipBit(bit, ALLOC);
            boolean variant = bit / 8 == 4; // FECN, BECN, resv6a: masked to ones (IBA 7.8.1)
            assertEquals(variant, p.icrcValid(), "header bit " + bit);
            p.flipBit(bit, ALLOC);
            assertTrue(p.icrcValid(), "restored header bit " + bit);
        }
        assertFalse(p.ownsPayload(), "header flips do not touch the payload");
        p.flipBit(headerBits + 8 * 100 + 3, ALLOC);
        assertTrue(p.ownsPayload(), "a payload flip materializes first");
        assertFalse(p.icrcValid());
        assertEquals(0x00, s.all[100] ^ s.s2.get(33 + 95), "the sender's memory is untouched");
        p.flipBit(headerBits + 8 * 100 + 3, ALLOC);
        assertTrue(p.icrcValid());
        p.icrc(p.icrc() ^ 1);
        assertFalse(p.icrcValid(), "an ICRC read from the wire that does not match");
    }

    @Test
    @DisplayName("IBA 7.8.1: the ICRC of a packet without payload covers the headers only")
    void shouldCoverHeadersOnlyWhenThereIsNoPayload() {
        Packet a = alloc(Opcode.RC_ACKNOWLEDGE);
        a.psn(5).aeth(Aeth.ack(Aeth.CREDITS_INVALID), 9).destQp(0x11);
        a.attachIcrc();
        assertEquals(expectedIcrc(header(a), new byte[0], 0), a.icrc());
        a.flipBit(16 * 8 + 1, ALLOC);
        assertTrue(a.icrcValid(), "a payload bit of an empty payload: nothing to flip");
        assertFalse(a.ownsPayload());
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }
}
