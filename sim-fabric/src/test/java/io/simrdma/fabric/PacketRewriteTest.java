package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Each {@link PacketRewrite} changes exactly its field (IBA 9.2 header layout: BTH, RETH, AETH,
 * ImmDt), an opcode change keeps the headers both opcodes carry, and a payload change never
 * touches the sender's memory or a copy sharing the payload.
 */
class PacketRewriteTest {

    private final List<Packet> packets = new ArrayList<>();

    private Packet packet(Opcode op) {
        Packet p = Packet.allocate(op).psn(0x123456).destQp(0x42).pkey(0xFFFF).ackReq(true);
        packets.add(p);
        return p;
    }

    @AfterEach
    void release() {
        packets.forEach(Packet::release);
    }

    private static byte[] payload(Packet p) {
        byte[] b = new byte[p.payloadLength()];
        p.copyPayload(0, b, 0, b.length);
        return b;
    }

    private static void rewrite(PacketRewrite r, Packet p) {
        assertTrue(r.appliesTo(p), r + " applies to " + p);
        r.apply(p);
    }

    @Test
    @DisplayName("PSN: set, and shifted modulo 2^24 (IBA 9.7.1)")
    void shouldSetAndShiftThePsnModulo2To24WhenRewritingThePsn() {
        Packet p = packet(Opcode.RC_SEND_ONLY);
        rewrite(PacketRewrite.psn(0xFFFFFF), p);
        assertEquals(0xFFFFFF, p.psn());
        rewrite(PacketRewrite.psnShift(2), p);
        assertEquals(1, p.psn(), "wraps past 2^24 - 1");
        rewrite(PacketRewrite.psnShift(-2), p);
        assertEquals(0xFFFFFF, p.psn());
        assertEquals(0x42, p.destQp(), "the rest of the BTH is kept");
        assertTrue(p.ackReq());
    }

    @Test
    @DisplayName("RETH: VA, R_Key and DMA length each change alone")
    void shouldChangeOnlyThatFieldWhenRewritingTheReth() {
        Packet p = packet(Opcode.RC_RDMA_READ_REQUEST).reth(0x1000, 0x77, 4096);
        rewrite(PacketRewrite.rethVa(0x2000), p);
        assertEquals(0x2000, p.rethVa());
        assertEquals(0x77, p.rethRkey());
        rewrite(PacketRewrite.rethRkey(0xBAD), p);
        assertEquals(0xBAD, p.rethRkey());
        rewrite(PacketRewrite.rethLength(-1), p);
        assertEquals(0xFFFFFFFFL, Integer.toUnsignedLong(p.rethLength()), "an unsigned 32-bit length");
        assertEquals(0x2000, p.rethVa());
        assertFalse(PacketRewrite.rethVa(1).appliesTo(packet(Opcode.RC_SEND_ONLY)));
    }

    @Test
    @DisplayName("AETH: syndrome (ACK to NAK) and MSN; ImmDt")
    void shouldChangeSyndromeMsnAndImmediateWhenRewritten() {
        Packet ack = packet(Opcode.RC_ACKNOWLEDGE).aeth(Aeth.ack(Aeth.CREDITS_INVALID), 17);
        rewrite(PacketRewrite.nak(Aeth.NakCode.REMOTE_ACCESS_ERROR), ack);
        assertEquals(Aeth.Kind.NAK, Aeth.kind(ack.aethSyndrome()));
        assertEquals(Aeth.NakCode.REMOTE_ACCESS_ERROR.code(), Aeth.value(ack.aethSyndrome()));
        assertEquals(17, ack.aethMsn());
        rewrite(PacketRewrite.aethMsn(0x1FFFFFF), ack);
        assertEquals(0xFFFFFF, ack.aethMsn(), "24 bits");
        rewrite(PacketRewrite.aethSyndrome(Aeth.rnrNak(4)), ack);
        assertEquals(Aeth.Kind.RNR_NAK, Aeth.kind(ack.aethSyndrome()));
        Packet imm = packet(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE).immediate(1);
        rewrite(PacketRewrite.immediate(0xCAFE), imm);
        assertEquals(0xCAFE, imm.immediate());
        assertFalse(PacketRewrite.immediate(1).appliesTo(packet(Opcode.RC_SEND_ONLY)));
        assertFalse(PacketRewrite.aethMsn(1).appliesTo(packet(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE)));
    }

    @Test
    @DisplayName("Opcode: headers both opcodes carry keep their values, new ones are zero, BTH fields stay")
    void shouldKeepCommonHeadersWhenRewritingTheOpcode() {
        Packet p = packet(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)
                .reth(0xABC, 5, 64)
                .immediate(0x5150);
        rewrite(PacketRewrite.opcode(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE), p);
        assertEquals(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, p.opcode());
        assertEquals(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.value(), p.headerByte(0) & 0xFF);
        assertEquals(0x5150, p.immediate(), "ImmDt moved to where the SEND carries it");
        assertEquals(0x123456, p.psn());
        assertEquals(0x42, p.destQp());

        Packet ack = packet(Opcode.RC_ACKNOWLEDGE).aeth(Aeth.ack(3), 9);
        rewrite(PacketRewrite.opcode(Opcode.RC_ATOMIC_ACKNOWLEDGE), ack);
        assertEquals(9, ack.aethMsn());
        assertEquals(0, ack.atomicAckOriginal(), "a header only the new opcode has is zero");
        assertEquals(Opcode.RC_ATOMIC_ACKNOWLEDGE.headerLength(), ack.headerLength());

        Packet mid = packet(Opcode.RC_RDMA_WRITE_FIRST).reth(1, 2, 3);
        rewrite(PacketRewrite.opcode(Opcode.RC_RDMA_WRITE_MIDDLE), mid);
        assertFalse(mid.opcode().has(HeaderType.RETH));
        assertEquals(12, mid.headerLength());
    }

    @Test
    @DisplayName("Opcode without payload: a READ response turned into an Acknowledge loses its payload and pad")
    void shouldDropThePayloadWhenTheNewOpcodeCarriesNone() {
        Packet p = packet(Opcode.RC_RDMA_READ_RESPONSE_ONLY).aeth(Aeth.ack(0), 4);
        p.addSegment(ByteBuffer.allocate(10), 0, 10).updatePadCount();
        assertEquals(2, p.padCount());
        rewrite(PacketRewrite.opcode(Opcode.RC_ACKNOWLEDGE), p);
        assertEquals(0, p.payloadLength());
        assertEquals(0, p.padCount());
        assertEquals(4, p.aethMsn());
    }

    @Test
    @DisplayName("Payload: bytes change in a copy; the sender's memory and a duplicate keep theirs")
    void shouldNeverTouchTheSendersMemoryWhenRewritingPayload() {
        ByteBuffer memory = ByteBuffer.allocate(16);
        for (int i = 0; i < 16; i++) {
            memory.put(i, (byte) i);
        }
        Packet p = packet(Opcode.RC_SEND_ONLY).addSegment(memory, 4, 8).updatePadCount();
        Packet copy = p.duplicate();
        packets.add(copy);
        rewrite(PacketRewrite.payload(2, new byte[] {(byte) 0xEE, (byte) 0xFF}), p);
        assertArrayEquals(new byte[] {4, 5, (byte) 0xEE, (byte) 0xFF, 8, 9, 10, 11}, payload(p));
        assertEquals(6, memory.get(6), "the sender's memory is untouched");
        assertArrayEquals(new byte[] {4, 5, 6, 7, 8, 9, 10, 11}, payload(copy), "the duplicate keeps the original");
        assertFalse(PacketRewrite.payload(7, new byte[2]).appliesTo(p), "past the end");

        // An owned payload (as received from TCP) shared with a duplicate: the copy keeps its bytes.
        Packet owned = packet(Opcode.RC_SEND_ONLY).addSegment(memory, 0, 4).updatePadCount();
        owned.materialize(PooledByteBufAllocator.DEFAULT);
        Packet shared = owned.duplicate();
        packets.add(shared);
        rewrite(PacketRewrite.payload(0, new byte[] {9}), owned);
        assertArrayEquals(new byte[] {9, 1, 2, 3}, payload(owned));
        assertArrayEquals(new byte[] {0, 1, 2, 3}, payload(shared));
    }

    @Test
    @DisplayName("andThen applies the second change to the packet as the first left it")
    void shouldApplyBothInOrderWhenChained() {
        Packet p = packet(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE);
        PacketRewrite r =
                PacketRewrite.opcode(Opcode.RC_ACKNOWLEDGE).andThen(PacketRewrite.nak(Aeth.NakCode.INVALID_REQUEST));
        assertTrue(r.appliesTo(p), "the chain applies where its first change does");
        r.apply(p);
        assertEquals(Opcode.RC_ACKNOWLEDGE, p.opcode());
        assertEquals(Aeth.nak(Aeth.NakCode.INVALID_REQUEST), p.aethSyndrome(), "the AETH the new opcode brought");
        assertEquals("opcode=RC Acknowledge, aeth=NAK INVALID_REQUEST", r.toString());
    }
}
