package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;

/**
 * The wire encoding of simrdma packets between nodes: the one codec the TCP link uses, meant to be
 * reused by a capture writer (its {@link #writeIba IBA part} is a RoCEv2 packet from the BTH on).
 *
 * <p>Every frame on a connection is length-prefixed; the length counts the bytes after it and is
 * checked against the connection's maximum before anything is read or allocated:
 * <pre>
 *  0        4      5
 *  +--------+------+-------------------------------------------+
 *  | length | type | type-specific body (length - 1 bytes)     |
 *  | u32 BE | u8   |                                           |
 *  +--------+------+-------------------------------------------+
 *  type 0x01 HELLO, 0x03 REFUSE (see Handshake), 0x10 PACKET:
 *
 *  4      5       6                  22                 38           38+H        +P        +pad
 *  +------+-------+------------------+------------------+------------+-----------+---------+-------+
 *  | 0x10 | flags | source GID (16)  | dest GID (16)    | IBA headers| payload   | pad     | ICRC  |
 *  |      |       |                  |                  | BTH, ETHs  | P bytes   | 0..3    | 4, if |
 *  |      |       |                  |                  | H bytes    |           | zeros   | flag 1|
 *  +------+-------+------------------+------------------+------------+-----------+---------+-------+
 * </pre>
 * type 0x11 BURST (segmentation offload: a run of consecutive packets of one message, see
 * {@link Packet#burst}), only to a peer whose HELLO allows frames of that length:
 *
 *  4      5       6                  22                 38           38+H      +10                     +P
 *  +------+-------+------------------+------------------+------------+---------+-----------------------+
 *  | 0x11 | flags | source GID (16)  | dest GID (16)    | first      | run     | payload of the whole  |
 *  |      | = 0   |                  |                  | packet's   | (below) | run, P bytes, no pad  |
 *  |      |       |                  |                  | IBA headers|         |                       |
 *  +------+-------+------------------+------------------+------------+---------+-----------------------+
 *  run: packets u16 (>= 2), MTU u16 (each packet but the last carries MTU bytes), last packet's
 *  opcode u8, its flags u8 (bit 0 SE, bit 1 AckReq), its ImmDt / IETH R_Key / AETH u32 (or 0)
 *
 * flags bit 0: an ICRC follows (set only by fault rules: a corrupting rule's ICRC makes the
 * receiving port drop the packet as a NIC would, a rewriting rule's correct one over the new
 * bytes lets it through); other bits must be 0. H is the header length the BTH opcode
 * implies ({@link Opcode#headerLength()}); the pad count is the BTH's PadCnt; P is what remains.
 * The IBA header bytes are exactly those {@link Packet} holds.
 *
 * <p>Payload: {@link #encode} writes the payload straight from the sender's registered memory
 * ({@link Packet#payloadView}) as a component of a composite buffer, without copying it; the
 * receiver's {@link #decode} hands a retained slice of the received frame to
 * {@link Packet#fromWire}, and the responder copies it once into the target memory.
 *
 * <p>Thread safety: the static methods are thread-safe; an instance (its decoding scratch space
 * and GID cache) belongs to one connection's event loop.
 */
public final class PacketCodec {

    /** Bytes of the length prefix. */
    public static final int LENGTH_FIELD_LENGTH = 4;
    /** Frame types. */
    public static final int TYPE_HELLO = 0x01;

    public static final int TYPE_REFUSE = 0x03;
    public static final int TYPE_PACKET = 0x10;
    /** A run of packets of one message as one frame (segmentation offload). */
    public static final int TYPE_BURST = 0x11;
    /** Bytes of a BURST frame's run description. */
    public static final int BURST_RUN_LENGTH = 2 + 2 + 1 + 1 + 4;
    /** Largest frame body of a BURST with {@code packets} of an MTU: what a peer's maximum frame length must allow. */
    static int burstBodyLength(int packets, int mtu) {
        return PACKET_PREFIX_LENGTH + Packet.MAX_HEADER_LENGTH + BURST_RUN_LENGTH + packets * mtu;
    }

    private static final int BURST_LAST_SOLICITED = 1;
    private static final int BURST_LAST_ACK_REQ = 2;
    /** PACKET flag: an ICRC trails the packet. */
    public static final int FLAG_ICRC = 0x01;
    /** Bytes of a PACKET body before the IBA headers: type, flags, two GIDs. */
    public static final int PACKET_PREFIX_LENGTH = 1 + 1 + 16 + 16;
    /** The smallest PACKET body: its prefix and a BTH. */
    public static final int MIN_PACKET_BODY = PACKET_PREFIX_LENGTH + HeaderType.BTH.length();
    /** Largest payload of one packet (MTU 4096). */
    public static final int MAX_PAYLOAD = 4096;
    /** The smallest maximum frame length a connection may be configured with: a full MTU 4096 packet. */
    public static final int MIN_MAX_FRAME_LENGTH =
            PACKET_PREFIX_LENGTH + Packet.MAX_HEADER_LENGTH + MAX_PAYLOAD + 3 + Packet.ICRC_LENGTH;
    /**
     * The longest frame head {@link #encodeHead(Packet, ByteBuf)} and
     * {@link #encodeBurstHead(Packet, int, int, ByteBuf)} write: length prefix, type, flags, GIDs,
     * the longest IBA headers, and a BURST's run or a payload-less packet's pad and ICRC.
     */
    static final int MAX_HEAD_LENGTH = LENGTH_FIELD_LENGTH
            + PACKET_PREFIX_LENGTH
            + Packet.MAX_HEADER_LENGTH
            + Math.max(BURST_RUN_LENGTH, 3 + Packet.ICRC_LENGTH);
    /** Default maximum frame length: 64 KiB of payload plus headers. */
    public static final int DEFAULT_MAX_FRAME_LENGTH =
            64 * 1024 + PACKET_PREFIX_LENGTH + Packet.MAX_HEADER_LENGTH + 3 + Packet.ICRC_LENGTH;

    private final byte[] gidBytes = new byte[16];
    private Gid lastSource;
    private Gid lastDestination;

    /** Length of the PACKET body (everything after the length prefix) that encodes {@code p}. */
    public static int bodyLength(Packet p) {
        return PACKET_PREFIX_LENGTH + ibaLength(p);
    }

    /** Length of the IBA part: headers, payload, pad and the ICRC if one is attached. */
    public static int ibaLength(Packet p) {
        return p.headerLength() + p.payloadLength() + trailerLength(p);
    }

    /** Bytes after the payload: the pad and the ICRC if one is attached. */
    static int trailerLength(Packet p) {
        return p.padCount() + (p.icrcPresent() ? Packet.ICRC_LENGTH : 0);
    }

    /**
     * Encodes {@code p} as a complete frame, length prefix included. The payload is not copied:
     * the result is a composite of a direct header buffer, a view of the payload (the sender's
     * memory, or the buffer the packet owns, retained) and a trailer with pad and ICRC. The
     * caller owns the result and releases it (writing it to a channel does); {@code p} is not
     * released.
     *
     * @throws IllegalStateException if the packet has no source or destination GID
     */
    public static ByteBuf encode(Packet p, ByteBufAllocator alloc) {
        ByteBuf head = encodeHead(p, alloc);
        if (p.payloadLength() == 0) {
            return head;
        }
        CompositeByteBuf frame = alloc.compositeDirectBuffer(3);
        frame.addComponent(true, head);
        try {
            frame.addComponent(true, p.payloadView(alloc));
            ByteBuf t = encodeTrailer(p, alloc);
            if (t != null) {
                frame.addComponent(true, t);
            }
        } catch (RuntimeException e) {
            frame.release();
            throw e;
        }
        return frame;
    }

    /**
     * The start of {@code p}'s frame in a direct buffer of its own: the length prefix (which counts
     * the whole frame), type, flags, GIDs and IBA headers; for a packet without payload also its
     * trailer, so that the result is the complete frame. A packet with payload continues with
     * {@link Packet#payloadView} and {@link #encodeTrailer}, written after it as separate buffers
     * (what {@link FrameEncoder} does, so that no composite buffer is built per frame).
     *
     * @throws IllegalStateException if the packet has no source or destination GID
     */
    static ByteBuf encodeHead(Packet p, ByteBufAllocator alloc) {
        int headLength = LENGTH_FIELD_LENGTH + PACKET_PREFIX_LENGTH + p.headerLength();
        ByteBuf head = alloc.directBuffer(p.payloadLength() == 0 ? headLength + trailerLength(p) : headLength);
        try {
            return encodeHead(p, head);
        } catch (RuntimeException e) {
            head.release();
            throw e;
        }
    }

    /**
     * {@link #encodeHead(Packet, ByteBufAllocator)} written into {@code head} (at its writer
     * index; at most {@link #MAX_HEAD_LENGTH} bytes) instead of a buffer of its own.
     */
    static ByteBuf encodeHead(Packet p, ByteBuf head) {
        Gid src = p.sourceGid();
        Gid dst = p.destinationGid();
        if (src == null || dst == null) {
            throw new IllegalStateException("packet without a route: " + p);
        }
        int payload = p.payloadLength();
        int trailer = trailerLength(p);
        int headLength = LENGTH_FIELD_LENGTH + PACKET_PREFIX_LENGTH + p.headerLength();
        head.writeInt(headLength - LENGTH_FIELD_LENGTH + payload + trailer);
        head.writeByte(TYPE_PACKET);
        head.writeByte(p.icrcPresent() ? FLAG_ICRC : 0);
        writeGid(head, src);
        writeGid(head, dst);
        p.copyHeaderTo(head);
        if (payload == 0) {
            writeTrailer(p, head);
        }
        return head;
    }

    /**
     * The start of a BURST frame for the next {@code packets} packets of {@code p}, a burst, whose
     * payload ({@code bytes} bytes, {@link Packet#payloadView(ByteBufAllocator, int, int)}) follows as a
     * buffer of its own: length prefix, type, GIDs, the current packet's IBA headers and the run. A
     * run shorter than the rest of the burst ends with a Middle packet without SE or AckReq.
     */
    static ByteBuf encodeBurstHead(Packet p, int packets, int bytes, ByteBufAllocator alloc) {
        ByteBuf head =
                alloc.directBuffer(LENGTH_FIELD_LENGTH + PACKET_PREFIX_LENGTH + p.headerLength() + BURST_RUN_LENGTH);
        try {
            return encodeBurstHead(p, packets, bytes, head);
        } catch (RuntimeException e) {
            head.release();
            throw e;
        }
    }

    /**
     * {@link #encodeBurstHead(Packet, int, int, ByteBufAllocator)} written into {@code head} (at
     * its writer index; at most {@link #MAX_HEAD_LENGTH} bytes) instead of a buffer of its own.
     */
    static ByteBuf encodeBurstHead(Packet p, int packets, int bytes, ByteBuf head) {
        Gid src = p.sourceGid();
        Gid dst = p.destinationGid();
        if (src == null || dst == null) {
            throw new IllegalStateException("packet without a route: " + p);
        }
        boolean whole = packets == p.burstPackets();
        int headLength = LENGTH_FIELD_LENGTH + PACKET_PREFIX_LENGTH + p.headerLength() + BURST_RUN_LENGTH;
        head.writeInt(headLength - LENGTH_FIELD_LENGTH + bytes);
        head.writeByte(TYPE_BURST);
        head.writeByte(0);
        writeGid(head, src);
        writeGid(head, dst);
        p.copyHeaderTo(head);
        head.writeShort(packets);
        head.writeShort(p.burstMtu());
        if (whole) {
            head.writeByte(p.burstLastOpcode().value());
            head.writeByte((p.burstLastSolicited() ? BURST_LAST_SOLICITED : 0)
                    | (p.burstLastAckReq() ? BURST_LAST_ACK_REQ : 0));
            head.writeInt(p.burstLastExtra());
        } else {
            head.writeByte(middleOf(p.opcode()).value());
            head.writeByte(0);
            head.writeInt(0);
        }
        return head;
    }

    /** The Middle opcode of the message kind of {@code op} (an RC SEND, RDMA WRITE or READ response). */
    private static Opcode middleOf(Opcode op) {
        return op.isWrite()
                ? Opcode.RC_RDMA_WRITE_MIDDLE
                : op.isSend() ? Opcode.RC_SEND_MIDDLE : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
    }

    /**
     * Decodes a BURST body (type byte first) of {@code length} bytes at {@code base}, read in place:
     * a packet standing for the run ({@link Packet#burst}) whose payload is a retained slice of
     * {@code body}; the indexes of {@code body} do not change.
     *
     * @throws FrameException for a body that is not a well-formed run of packets
     */
    Packet decodeBurst(ByteBuf body, int base, int length) {
        if (length < MIN_PACKET_BODY + BURST_RUN_LENGTH) {
            throw new FrameException(
                    FrameError.TRUNCATED,
                    "burst frame of " + length + " bytes, shorter than two GIDs, a BTH and a run");
        }
        if (body.getUnsignedByte(base) != TYPE_BURST) {
            throw new IllegalArgumentException("not a BURST frame");
        }
        int flags = body.getUnsignedByte(base + 1);
        if (flags != 0) {
            throw new FrameException(
                    FrameError.MALFORMED_HEADER, "unknown burst flags 0x" + Integer.toHexString(flags));
        }
        int ibaStart = base + PACKET_PREFIX_LENGTH;
        Opcode op = opcode(body, ibaStart);
        if (!op.isRc() || !op.hasPayload() || !(op.isFirst() || op.isMiddle())) {
            throw new FrameException(FrameError.MALFORMED_HEADER, "a burst cannot start with " + op.ibaName());
        }
        int hl = op.headerLength();
        int run = ibaStart + hl;
        int payloadStart = run + BURST_RUN_LENGTH;
        int payloadLength = base + length - payloadStart;
        if (payloadLength < 0) {
            throw new FrameException(
                    FrameError.TRUNCATED, "burst frame of " + length + " bytes has no room for its headers and run");
        }
        int b1 = body.getUnsignedByte(ibaStart + 1);
        if ((b1 & 0x0F) != 0) {
            throw new FrameException(FrameError.MALFORMED_HEADER, "BTH transport version " + (b1 & 0x0F));
        }
        if ((b1 & 0x30) != 0) {
            throw new FrameException(FrameError.BAD_PAD, "a burst's first packet carries a full MTU, no pad");
        }
        int packets = body.getUnsignedShort(run);
        int mtu = body.getUnsignedShort(run + 2);
        Opcode last = Opcode.fromValue(body.getUnsignedByte(run + 4));
        int lastFlags = body.getUnsignedByte(run + 5);
        int lastExtra = body.getInt(run + 6);
        if (last == null
                || !(last == middleOf(op) || (last.isLast() && last.isRc() && sameKind(op, last)))
                || (lastFlags & ~(BURST_LAST_SOLICITED | BURST_LAST_ACK_REQ)) != 0) {
            throw new FrameException(
                    FrameError.MALFORMED_HEADER, "a burst of " + op.ibaName() + " cannot end as described");
        }
        if (packets < 2
                || mtu < 256
                || mtu > MAX_PAYLOAD
                || Integer.bitCount(mtu) != 1
                || payloadLength <= (packets - 1) * mtu
                || payloadLength > packets * mtu) {
            throw new FrameException(
                    FrameError.MALFORMED_HEADER,
                    "a burst of " + packets + " packets of MTU " + mtu + " cannot carry " + payloadLength + " bytes");
        }
        Packet p = Packet.fromWire(body, ibaStart, hl, null);
        p.addReceivedSegment(body.retainedSlice(payloadStart, payloadLength));
        p.burst(
                packets,
                mtu,
                last,
                lastExtra,
                (lastFlags & BURST_LAST_SOLICITED) != 0,
                (lastFlags & BURST_LAST_ACK_REQ) != 0);
        lastSource = gidAt(body, base + 2, lastSource);
        lastDestination = gidAt(body, base + 18, lastDestination);
        p.route(lastSource, lastDestination);
        return p;
    }

    private static boolean sameKind(Opcode a, Opcode b) {
        return a.isWrite() == b.isWrite() && a.isSend() == b.isSend() && a.isRead() == b.isRead();
    }

    /** The pad and ICRC that end the frame of {@code p}, a packet with payload, or null if it has neither. */
    static ByteBuf encodeTrailer(Packet p, ByteBufAllocator alloc) {
        int trailer = trailerLength(p);
        if (trailer == 0) {
            return null;
        }
        ByteBuf t = alloc.directBuffer(trailer);
        writeTrailer(p, t);
        return t;
    }

    /**
     * Writes the IBA part of {@code p} into {@code dst} (copying the payload): headers, payload,
     * zero pad and the ICRC if one is attached; a RoCEv2 packet from the BTH on, for a capture.
     */
    public static void writeIba(Packet p, ByteBuf dst) {
        p.copyHeaderTo(dst);
        p.writePayloadTo(dst);
        writeTrailer(p, dst);
    }

    static void writeTrailer(Packet p, ByteBuf dst) {
        dst.writeZero(p.padCount());
        if (p.icrcPresent()) {
            dst.writeInt(p.icrc());
        }
    }

    /** The GID's sixteen bytes as two big-endian longs (not sixteen checked single-byte writes). */
    private static void writeGid(ByteBuf dst, Gid g) {
        dst.writeLong(g.high());
        dst.writeLong(g.low());
    }

    /**
     * Decodes a PACKET body (the bytes after the length prefix, type byte first), which the
     * caller has checked against the maximum frame length. The returned packet owns a retained
     * slice of {@code body} as its payload; {@code body} itself is not released.
     *
     * <p>A frame with the ICRC flag whose headers do not parse is a packet a fault corrupted on
     * the way: it yields null (the caller counts and drops it) rather than an exception; a
     * parseable one yields a packet carrying the ICRC, which the receiving port checks.
     *
     * @throws FrameException for a body that is not a well-formed packet
     */
    public Packet decode(ByteBuf body) {
        return decode(body, body.readerIndex(), body.readableBytes());
    }

    /**
     * {@link #decode(ByteBuf)} of the {@code length} bytes at {@code base} in {@code body}, read
     * in place (the frame decoder's cumulation, without a slice per frame): the payload is a
     * retained slice of {@code body}; its indexes are not changed.
     */
    Packet decode(ByteBuf body, int base, int length) {
        if (length < MIN_PACKET_BODY) {
            throw new FrameException(
                    FrameError.TRUNCATED,
                    "packet frame of " + length + " bytes, shorter than two GIDs and a BTH (" + MIN_PACKET_BODY + ")");
        }
        if (body.getUnsignedByte(base) != TYPE_PACKET) {
            throw new IllegalArgumentException("not a PACKET frame");
        }
        int flags = body.getUnsignedByte(base + 1);
        if ((flags & ~FLAG_ICRC) != 0) {
            throw new FrameException(
                    FrameError.MALFORMED_HEADER, "unknown packet flags 0x" + Integer.toHexString(flags));
        }
        boolean icrc = (flags & FLAG_ICRC) != 0;
        int ibaStart = base + PACKET_PREFIX_LENGTH;
        int ibaLength = length - PACKET_PREFIX_LENGTH - (icrc ? Packet.ICRC_LENGTH : 0);
        if (ibaLength < HeaderType.BTH.length()) {
            throw new FrameException(
                    FrameError.TRUNCATED, "packet frame of " + length + " bytes has no room for a BTH and an ICRC");
        }
        Opcode op;
        int payloadLength;
        try {
            op = opcode(body, ibaStart);
            payloadLength = payloadLength(op, body, ibaStart, ibaLength);
        } catch (FrameException e) {
            if (icrc) {
                return null;
            }
            throw e;
        }
        int hl = op.headerLength();
        ByteBuf payload = payloadLength == 0 ? null : body.retainedSlice(ibaStart + hl, payloadLength);
        Packet p = Packet.fromWire(body, ibaStart, hl, payload);
        lastSource = gidAt(body, base + 2, lastSource);
        lastDestination = gidAt(body, base + 18, lastDestination);
        p.route(lastSource, lastDestination);
        if (icrc) {
            p.icrc(body.getInt(base + length - Packet.ICRC_LENGTH));
        }
        return p;
    }

    private static Opcode opcode(ByteBuf body, int ibaStart) {
        int value = body.getUnsignedByte(ibaStart);
        Opcode op = Opcode.fromValue(value);
        if (op == null) {
            throw new FrameException(FrameError.UNKNOWN_OPCODE, "BTH opcode 0x" + Integer.toHexString(value));
        }
        return op;
    }

    /** Checks the header length, BTH byte 1 and pad against the opcode (IBA 9.2); returns the payload length. */
    private static int payloadLength(Opcode op, ByteBuf body, int ibaStart, int ibaLength) {
        int hl = op.headerLength();
        if (ibaLength < hl) {
            throw new FrameException(
                    FrameError.MALFORMED_HEADER,
                    op.ibaName() + " needs " + hl + " header bytes, the frame has " + ibaLength);
        }
        int b1 = body.getUnsignedByte(ibaStart + 1);
        if ((b1 & 0x0F) != 0) {
            // IBA 9.2.6: TVer is 0 for this version of the transport.
            throw new FrameException(FrameError.MALFORMED_HEADER, "BTH transport version " + (b1 & 0x0F));
        }
        int pad = (b1 >>> 4) & 3;
        int payload = ibaLength - hl - pad;
        if (payload < 0) {
            throw new FrameException(
                    FrameError.BAD_PAD,
                    "pad count " + pad + " but only " + (ibaLength - hl) + " bytes follow the headers");
        }
        if (!op.hasPayload() && (payload != 0 || pad != 0)) {
            throw new FrameException(
                    FrameError.MALFORMED_HEADER,
                    op.ibaName() + " carries no payload, the frame has " + (payload + pad)
                            + " bytes after its headers");
        }
        if (((payload + pad) & 3) != 0) {
            // IBA 9.2.4: the pad brings the payload to a multiple of 4 bytes.
            throw new FrameException(
                    FrameError.BAD_PAD, "pad count " + pad + " does not align a payload of " + payload + " bytes to 4");
        }
        return payload;
    }

    /** The GID at {@code index}: {@code last} if it holds the same bytes (no allocation), else a new one. */
    private Gid gidAt(ByteBuf body, int index, Gid last) {
        if (last != null && sameGid(last, body, index)) {
            return last;
        }
        body.getBytes(index, gidBytes);
        return Gid.of(gidBytes);
    }

    /** Two big-endian reads instead of sixteen byte reads (each checking the buffer's reference count). */
    private static boolean sameGid(Gid g, ByteBuf body, int index) {
        return g.high() == body.getLong(index) && g.low() == body.getLong(index + 8);
    }
}
