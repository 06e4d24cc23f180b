package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Splits a connection's byte stream into frames ({@link PacketCodec} draws them) and decodes
 * each: a PACKET into a {@link io.simrdma.fabric.wire.Packet} whose payload is a retained slice
 * of the received bytes, a BURST into a packet standing for its run whose payload references the
 * received bytes, a handshake frame into a {@link Handshake} message.
 *
 * <p>No received byte is copied: frames that lie whole in one read are decoded in place, and the
 * bytes of a frame split across reads are gathered as retained slices of those reads (a composite
 * buffer of them), not copied into a cumulation buffer. A decoded packet's payload keeps the reads
 * it lies in alive until the packet is released (the responder's one copy into the target memory).
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
final class FrameDecoder extends ChannelInboundHandlerAdapter {

    /** Slices a split frame may be gathered from before they are merged into one buffer. */
    private static final int MAX_PARTS = 64;

    private final int maxFrameLength;
    private final TcpCounters counters;
    private final PacketCodec codec = new PacketCodec();
    private static final int TLS_HANDSHAKE_RECORD = 0x16;

    private final boolean plain;
    private boolean failed;
    private boolean started;
    private long lastReadNanos = System.nanoTime();
    /** The received part of a frame split across reads (slices of them), or null. */
    private CompositeByteBuf partial;

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

    /** When bytes last arrived ({@link System#nanoTime()}). Event loop. */
    long lastReadNanos() {
        return lastReadNanos;
    }

    /** True if part of a frame has arrived and the rest not yet. Event loop. */
    boolean hasPartialFrame() {
        return !failed && partial != null && partial.isReadable();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastReadNanos = System.nanoTime();
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf in = (ByteBuf) msg;
        try {
            if (failed) {
                return;
            }
            if (!started && in.isReadable()) {
                started = true;
                if (plain && in.getUnsignedByte(in.readerIndex()) == TLS_HANDSHAKE_RECORD) {
                    failed = true;
                    throw new PeerSpeaksTls();
                }
            }
            if (partial != null && !completePartial(ctx, in)) {
                return;
            }
            while (in.isReadable() && !failed) {
                int frame = frameLength(in);
                if (frame < 0 || in.readableBytes() < frame) {
                    break;
                }
                decodeFrame(ctx, in, in.readerIndex());
                in.skipBytes(frame);
            }
            if (in.isReadable() && !failed) {
                partial = ctx.alloc().compositeDirectBuffer(MAX_PARTS);
                partial.addComponent(true, in.retainedSlice());
                in.skipBytes(in.readableBytes());
            }
        } finally {
            in.release();
        }
    }

    /**
     * Adds to the split frame what {@code in} holds of it, and decodes it once complete. Returns
     * true if the frame was completed (the rest of {@code in} follows it), false if {@code in} was
     * used up.
     */
    private boolean completePartial(ChannelHandlerContext ctx, ByteBuf in) {
        while (true) {
            int have = partial.readableBytes();
            int frame = have < PacketCodec.LENGTH_FIELD_LENGTH ? -1 : frameLength(partial);
            int want = frame < 0 ? PacketCodec.LENGTH_FIELD_LENGTH - have : frame - have;
            int take = Math.min(want, in.readableBytes());
            if (take > 0) {
                partial.addComponent(true, in.retainedSlice(in.readerIndex(), take));
                in.skipBytes(take);
            }
            if (take < want) {
                return false;
            }
            if (frame >= 0) {
                break;
            }
            // the length prefix is complete: check it, then gather the rest of the frame
            if (frameLength(partial) < 0) {
                return false;
            }
        }
        CompositeByteBuf whole = partial;
        partial = null;
        try {
            decodeFrame(ctx, whole, whole.readerIndex());
        } finally {
            whole.release();
        }
        return true;
    }

    /**
     * The length of the frame at the reader index of {@code in}, length prefix included, once its
     * prefix has arrived and passed the checks; -1 if the prefix has not arrived in full.
     *
     * @throws FrameException if the prefix is over the maximum or zero
     */
    private int frameLength(ByteBuf in) {
        if (in.readableBytes() < PacketCodec.LENGTH_FIELD_LENGTH) {
            return -1;
        }
        long length = in.getUnsignedInt(in.readerIndex());
        if (length > maxFrameLength) {
            throw fail(new FrameException(
                    FrameError.TOO_LONG, "frame of " + length + " bytes, the maximum is " + maxFrameLength));
        }
        if (length == 0) {
            throw fail(new FrameException(FrameError.TRUNCATED, "empty frame (no type byte)"));
        }
        return PacketCodec.LENGTH_FIELD_LENGTH + (int) length;
    }

    /** Decodes the complete frame whose length prefix is at {@code index} of {@code in} and passes it on. */
    private void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, int index) {
        int length = (int) in.getUnsignedInt(index);
        int start = index + PacketCodec.LENGTH_FIELD_LENGTH;
        Object message;
        try {
            int type = in.getUnsignedByte(start);
            switch (type) {
                case PacketCodec.TYPE_PACKET:
                    message = codec.decode(in, start, length);
                    break;
                case PacketCodec.TYPE_BURST:
                    message = codec.decodeBurst(in, start, length);
                    break;
                case PacketCodec.TYPE_HELLO:
                case PacketCodec.TYPE_REFUSE:
                    message = Handshake.decode(in.slice(start, length));
                    break;
                default:
                    throw new FrameException(FrameError.UNKNOWN_TYPE, "frame type 0x" + Integer.toHexString(type));
            }
        } catch (FrameException e) {
            throw fail(e);
        }
        if (message == null) {
            counters.increment(TcpCounter.CORRUPT_PACKETS_DROPPED);
        } else {
            ctx.fireChannelRead(message);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // Every complete frame was decoded as it arrived: what is left is a frame cut short.
        FrameException truncated = null;
        if (hasPartialFrame()) {
            truncated = new FrameException(
                    FrameError.TRUNCATED,
                    "the connection ended inside a frame, " + partial.readableBytes() + " bytes of it received");
            failed = true;
        }
        releasePartial();
        ctx.fireChannelInactive();
        if (truncated != null) {
            ctx.fireExceptionCaught(truncated);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releasePartial();
    }

    private void releasePartial() {
        if (partial != null) {
            partial.release();
            partial = null;
        }
    }

    private FrameException fail(FrameException e) {
        failed = true;
        releasePartial();
        return e;
    }
}
