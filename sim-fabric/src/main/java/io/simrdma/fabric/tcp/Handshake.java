package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.simrdma.fabric.wire.Gid;
import java.nio.charset.StandardCharsets;

/**
 * The handshake frames every connection exchanges before any packet. Both sides send a HELLO at
 * once (on a TLS node, once the TLS handshake has completed, inside TLS); a side that finds the
 * peer unacceptable sends a REFUSE and closes.
 * <pre>
 * HELLO  (type 0x01)
 *  +------+-----------+---------+-------+-----------+----------+-----------------+-----------+-----+--------+-----+------+
 *  | 0x01 | magic u32 | version | flags | max frame | GID (16) | incarnation u64 | nonce (32)| len | fabric | len | node |
 *  |      | "SIMR"    | u16 = 3 | bit 0 | u32       |          | (random per     | (random)  | u8  | UTF-8  | u8  | UTF-8|
 *  |      |           |         | = TLS |           |          |  node start)    |           |     |        |     |      |
 *  +------+-----------+---------+-------+-----------+----------+-----------------+-----------+-----+--------+-----+------+
 * REFUSE (type 0x03): 0x03, reason code (1 byte, {@link HandshakeFailure#code()})
 * </pre>
 * Authentication is TLS's ({@link TlsCredentials}); the HELLO only names the node, its fabric and
 * its incarnation. Version 1 (a pre-shared key proved by an HMAC in an AUTH frame, type 0x02) is
 * gone: its proof was not bound to the connection, so a relay could pass it on, and frames were
 * not authenticated; a version 1 peer is refused with BAD_VERSION.
 *
 * <p>Max frame: the longest frame body the sender accepts ({@link TcpConfig#maxFrameLength()}), so
 * that the peer sends BURST frames ({@link PacketCodec#TYPE_BURST}) no longer than that. Version 2
 * had no such field and no BURST frames; a version 2 peer is refused with BAD_VERSION.
 *
 * <p>Thread safety: the messages are immutable; the static methods are thread-safe.
 */
final class Handshake {

    static final int MAGIC = 0x53494D52;
    static final int VERSION = 3;
    static final int NONCE_LENGTH = 32;
    static final int MAX_NAME_BYTES = 255;
    private static final int FLAG_TLS = 1;
    /** type, magic, version: what every version of HELLO starts with. */
    private static final int HELLO_PREFIX = 1 + 4 + 2;

    private static final int HELLO_FIXED = HELLO_PREFIX + 1 + 4 + 16 + 8 + NONCE_LENGTH + 1 + 1;

    private Handshake() {}

    /** A HELLO; for another magic or version only {@code magic} and {@code version} are set. */
    record Hello(
            int magic,
            int version,
            boolean tls,
            int maxFrameLength,
            Gid gid,
            long incarnation,
            byte[] nonce,
            String fabric,
            String node) {

        boolean compatible() {
            return magic == MAGIC && version == VERSION;
        }
    }

    /** A REFUSE; {@code reason} is null for a code this version does not know. */
    record Refuse(int code, HandshakeFailure reason) {}

    static ByteBuf encode(Hello h, ByteBufAllocator alloc) {
        byte[] fabric = h.fabric().getBytes(StandardCharsets.UTF_8);
        byte[] node = h.node().getBytes(StandardCharsets.UTF_8);
        if (fabric.length > MAX_NAME_BYTES || node.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("names are limited to " + MAX_NAME_BYTES + " bytes of UTF-8");
        }
        int body = HELLO_FIXED + fabric.length + node.length;
        ByteBuf b = alloc.directBuffer(PacketCodec.LENGTH_FIELD_LENGTH + body);
        b.writeInt(body);
        b.writeByte(PacketCodec.TYPE_HELLO);
        b.writeInt(h.magic());
        b.writeShort(h.version());
        b.writeByte(h.tls() ? FLAG_TLS : 0);
        b.writeInt(h.maxFrameLength());
        b.writeBytes(h.gid().toBytes());
        b.writeLong(h.incarnation());
        b.writeBytes(h.nonce());
        b.writeByte(fabric.length);
        b.writeBytes(fabric);
        b.writeByte(node.length);
        b.writeBytes(node);
        return b;
    }

    static ByteBuf encode(Refuse r, ByteBufAllocator alloc) {
        ByteBuf b = alloc.directBuffer(PacketCodec.LENGTH_FIELD_LENGTH + 2);
        b.writeInt(2);
        b.writeByte(PacketCodec.TYPE_REFUSE);
        b.writeByte(r.code());
        return b;
    }

    /**
     * Decodes a handshake frame body (type byte first); {@code body} is not released.
     *
     * @throws FrameException MALFORMED_HANDSHAKE for a body of the wrong length or layout
     */
    static Object decode(ByteBuf body) {
        int type = body.getUnsignedByte(body.readerIndex());
        switch (type) {
            case PacketCodec.TYPE_HELLO:
                return decodeHello(body);
            case PacketCodec.TYPE_REFUSE: {
                expectLength(body, 2, "REFUSE");
                int code = body.getUnsignedByte(body.readerIndex() + 1);
                return new Refuse(code, HandshakeFailure.ofCode(code));
            }
            default:
                throw new IllegalArgumentException("not a handshake frame: " + type);
        }
    }

    private static void expectLength(ByteBuf body, int length, String what) {
        if (body.readableBytes() != length) {
            throw new FrameException(
                    FrameError.MALFORMED_HANDSHAKE,
                    what + " frame of " + body.readableBytes() + " bytes, expected " + length);
        }
    }

    private static Hello decodeHello(ByteBuf body) {
        int length = body.readableBytes();
        if (length < HELLO_PREFIX) {
            throw new FrameException(FrameError.MALFORMED_HANDSHAKE, "HELLO frame of " + length + " bytes");
        }
        int at = body.readerIndex() + 1;
        int magic = body.getInt(at);
        int version = body.getUnsignedShort(at + 4);
        if (magic != MAGIC || version != VERSION) {
            // Another version may lay out the rest differently: stop here and refuse.
            return new Hello(magic, version, false, 0, null, 0, null, null, null);
        }
        if (length < HELLO_FIXED) {
            throw new FrameException(
                    FrameError.MALFORMED_HANDSHAKE,
                    "HELLO frame of " + length + " bytes, at least " + HELLO_FIXED + " needed");
        }
        at += 6;
        int flags = body.getUnsignedByte(at++);
        if ((flags & ~FLAG_TLS) != 0) {
            throw new FrameException(
                    FrameError.MALFORMED_HANDSHAKE, "unknown HELLO flags 0x" + Integer.toHexString(flags));
        }
        long maxFrame = body.getUnsignedInt(at);
        at += 4;
        if (maxFrame < PacketCodec.MIN_MAX_FRAME_LENGTH || maxFrame > Integer.MAX_VALUE) {
            throw new FrameException(
                    FrameError.MALFORMED_HANDSHAKE,
                    "HELLO maximum frame length " + maxFrame + " below " + PacketCodec.MIN_MAX_FRAME_LENGTH);
        }
        byte[] gid = new byte[16];
        body.getBytes(at, gid);
        at += 16;
        long incarnation = body.getLong(at);
        at += 8;
        byte[] nonce = new byte[NONCE_LENGTH];
        body.getBytes(at, nonce);
        at += NONCE_LENGTH;
        int end = body.readerIndex() + length;
        int fabricLength = body.getUnsignedByte(at++);
        if (at + fabricLength + 1 > end) {
            throw new FrameException(
                    FrameError.MALFORMED_HANDSHAKE,
                    "HELLO fabric name of " + fabricLength + " bytes overruns the frame");
        }
        String fabric = body.toString(at, fabricLength, StandardCharsets.UTF_8);
        at += fabricLength;
        int nodeLength = body.getUnsignedByte(at++);
        if (at + nodeLength != end) {
            throw new FrameException(
                    FrameError.MALFORMED_HANDSHAKE,
                    "HELLO node name of " + nodeLength + " bytes does not end the frame");
        }
        String node = body.toString(at, nodeLength, StandardCharsets.UTF_8);
        return new Hello(
                magic, version, (flags & FLAG_TLS) != 0, (int) maxFrame, Gid.of(gid), incarnation, nonce, fabric, node);
    }
}
