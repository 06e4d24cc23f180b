package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits a connection's byte stream into frames ({@link PacketCodec} draws them) and decodes
 * each: a PACKET into a {@link io.simrdma.fabric.wire.Packet} whose payload is a retained slice
 * of the received bytes, a BURST into a packet standing for its run whose payload references the
 * received bytes, a handshake frame into a {@link Handshake} message.
 *
 * <p>The length prefix is checked against the maximum before anything else happens, and nothing
 * is ever allocated from it: a frame is decoded only once all its bytes have arrived, as slices
 * of what the socket read. Bad input throws a {@link FrameException} (the only exception this
 * decoder throws), after which the rest of the stream is discarded; the connection closes.
 * A frame with an ICRC whose headers do not parse is dropped and counted
 * ({@link TcpCounter#CORRUPT_PACKETS_DROPPED}) without closing anything.
 *
 * <p>On a plain connection, a stream that starts with a TLS handshake record (byte 0x16: no
 * HELLO's length prefix starts so) is a TLS peer: the decoder throws {@link PeerSpeaksTls} so
 * that the connection refuses it with a reason instead of reading a length from it.
 *
 * <p>The decoder also tells its connection when bytes last arrived and whether a frame is
 * partly received, for the frame timeout.
 *
 * <p>Thread safety: one instance per channel, used on its event loop.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private final int maxFrameLength;
    private final TcpCounters counters;
    private final PacketCodec codec = new PacketCodec();
    private static final int TLS_HANDSHAKE_RECORD = 0x16;

    private final boolean plain;
    private boolean failed;
    private boolean started;
    private long lastReadNanos = System.nanoTime();

    /** A TLS record arrived on a plain connection. */
    static final class PeerSpeaksTls extends io.netty.handler.codec.DecoderException {
        private static final long serialVersionUID = 1L;

        PeerSpeaksTls() {
            super("the peer speaks TLS; this node has no TLS credentials");
        }
    }

    FrameDecoder(int maxFrameLength, TcpCounters counters) {
        this(maxFrameLength, counters, false);
    }

    /** @param plain true on a plain connection (a first byte 0x16 then means a TLS peer) */
    FrameDecoder(int maxFrameLength, TcpCounters counters, boolean plain) {
        if (maxFrameLength < PacketCodec.MIN_MAX_FRAME_LENGTH) {
            throw new IllegalArgumentException("maximum frame length " + maxFrameLength + " below "
                    + PacketCodec.MIN_MAX_FRAME_LENGTH + " (an MTU 4096 packet)");
        }
        this.maxFrameLength = maxFrameLength;
        this.counters = counters;
        this.plain = plain;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        lastReadNanos = System.nanoTime();
        super.channelRead(ctx, msg);
    }

    /** When bytes last arrived ({@link System#nanoTime()}). Event loop. */
    long lastReadNanos() {
        return lastReadNanos;
    }

    /** True if part of a frame has arrived and the rest not yet. Event loop. */
    boolean hasPartialFrame() {
        return !failed && actualReadableBytes() > 0;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (!started && in.isReadable()) {
            started = true;
            if (plain && in.getUnsignedByte(in.readerIndex()) == TLS_HANDSHAKE_RECORD) {
                failed = true;
                in.skipBytes(in.readableBytes());
                throw new PeerSpeaksTls();
            }
        }
        if (in.readableBytes() < PacketCodec.LENGTH_FIELD_LENGTH) {
            return;
        }
        long length = in.getUnsignedInt(in.readerIndex());
        if (length > maxFrameLength) {
            throw fail(
                    in,
                    new FrameException(
                            FrameError.TOO_LONG, "frame of " + length + " bytes, the maximum is " + maxFrameLength));
        }
        if (length == 0) {
            throw fail(in, new FrameException(FrameError.TRUNCATED, "empty frame (no type byte)"));
        }
        if (in.readableBytes() - PacketCodec.LENGTH_FIELD_LENGTH < length) {
            return;
        }
        int start = in.readerIndex() + PacketCodec.LENGTH_FIELD_LENGTH;
        Object message;
        try {
            int type = in.getUnsignedByte(start);
            switch (type) {
                case PacketCodec.TYPE_PACKET:
                    message = codec.decode(in, start, (int) length);
                    break;
                case PacketCodec.TYPE_BURST:
                    message = codec.decodeBurst(in, start, (int) length);
                    break;
                case PacketCodec.TYPE_HELLO:
                case PacketCodec.TYPE_REFUSE:
                    message = Handshake.decode(in.slice(start, (int) length));
                    break;
                default:
                    throw new FrameException(FrameError.UNKNOWN_TYPE, "frame type 0x" + Integer.toHexString(type));
            }
        } catch (FrameException e) {
            throw fail(in, e);
        }
        in.skipBytes(PacketCodec.LENGTH_FIELD_LENGTH + (int) length);
        if (message == null) {
            counters.increment(TcpCounter.CORRUPT_PACKETS_DROPPED);
        } else {
            out.add(message);
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        // Every complete frame was decoded before this call: what is left is a frame cut short.
        if (!failed && in.isReadable()) {
            throw fail(
                    in,
                    new FrameException(
                            FrameError.TRUNCATED,
                            "the connection ended inside a frame, " + in.readableBytes() + " bytes of it received"));
        }
        in.skipBytes(in.readableBytes());
    }

    private FrameException fail(ByteBuf in, FrameException e) {
        failed = true;
        in.skipBytes(in.readableBytes());
        return e;
    }
}
