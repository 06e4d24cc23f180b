package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** Builds frames for the codec tests: real packets encoded by {@link PacketCodec}, and raw bytes. */
final class Frames {

    static final Gid SRC = TcpNode.gidOf(new InetSocketAddress("127.0.0.1", 7000));
    static final Gid DST = TcpNode.gidOf(new InetSocketAddress("127.0.0.1", 7001));

    private Frames() {}

    /** A packet of {@code op} to QP 0x11 with a payload of {@code payload} bytes (if the opcode has one). */
    static Packet packet(Opcode op, int payload, long seed) {
        Packet p = Packet.allocate(op).destQp(0x11).psn(0x123456).pkey(0xFFFF).route(SRC, DST);
        if (op.hasPayload() && payload > 0) {
            ByteBuffer b = ByteBuffer.allocate(payload);
            RcEnd.fill(b, 0, payload, seed);
            p.addSegment(b, 0, payload);
        }
        p.updatePadCount();
        return p;
    }

    /** The frame of {@code p} as one heap buffer (the packet is released). */
    static ByteBuf encode(Packet p) {
        ByteBuf f = PacketCodec.encode(p, ByteBufAllocator.DEFAULT);
        p.release();
        ByteBuf copy = Unpooled.buffer(f.readableBytes());
        copy.writeBytes(f);
        f.release();
        return copy;
    }

    /**
     * The BURST frame of a WRITE's first {@code packets} packets of MTU 4096, the last carrying
     * {@code lastBytes} and asking for an ACK, as one heap buffer; the run field may be altered
     * by {@code packetsOnWire} (the count written in the frame).
     */
    static ByteBuf burst(int packets, int lastBytes, int packetsOnWire, long seed) {
        int bytes = (packets - 1) * 4096 + lastBytes;
        ByteBuffer data = ByteBuffer.allocate(bytes);
        RcEnd.fill(data, 0, bytes, seed);
        Packet p = Packet.allocate(Opcode.RC_RDMA_WRITE_FIRST)
                .destQp(0x11)
                .psn(0x123456)
                .pkey(0xFFFF)
                .reth(0x1000, 0x77, bytes)
                .route(SRC, DST);
        p.addSegment(data, 0, bytes);
        p.burst(packets, 4096, Opcode.RC_RDMA_WRITE_LAST, 0, false, true);
        ByteBuf head = PacketCodec.encodeBurstHead(p, packets, bytes, ByteBufAllocator.DEFAULT);
        ByteBuf payload = p.payloadView(ByteBufAllocator.DEFAULT, 0, bytes);
        p.release();
        ByteBuf frame = Unpooled.buffer(head.readableBytes() + bytes);
        frame.writeBytes(head).writeBytes(payload);
        head.release();
        payload.release();
        int runAt = 4 + PacketCodec.PACKET_PREFIX_LENGTH + Opcode.RC_RDMA_WRITE_FIRST.headerLength();
        frame.setShort(runAt, packetsOnWire);
        return frame;
    }

    static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), a);
        b.release();
        return a;
    }

    /** A PACKET frame from raw parts: flags, GIDs and the IBA bytes (headers, payload, pad, ICRC). */
    static ByteBuf packetFrame(int flags, byte[] iba) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(PacketCodec.PACKET_PREFIX_LENGTH + iba.length);
        b.writeByte(PacketCodec.TYPE_PACKET);
        b.writeByte(flags);
        b.writeBytes(SRC.toBytes());
        b.writeBytes(DST.toBytes());
        b.writeBytes(iba);
        return b;
    }

    /** A frame of any type from its body (type byte first). */
    static ByteBuf frame(int... body) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(body.length);
        for (int v : body) {
            b.writeByte(v);
        }
        return b;
    }

    /** A HELLO of this protocol version. */
    static Handshake.Hello hello(String fabric, Gid gid, boolean tls) {
        return new Handshake.Hello(
                Handshake.MAGIC,
                Handshake.VERSION,
                tls,
                PacketCodec.DEFAULT_MAX_FRAME_LENGTH,
                gid,
                42L,
                new byte[Handshake.NONCE_LENGTH],
                fabric,
                "test-peer");
    }
}
