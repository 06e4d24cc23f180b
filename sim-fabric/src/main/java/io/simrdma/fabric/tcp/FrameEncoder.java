package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.simrdma.fabric.wire.Packet;

/**
 * Encodes what a connection writes into frames: packets through {@link PacketCodec#encodeHead}
 * (payload not copied), handshake messages through {@link Handshake}. Takes ownership of a
 * packet written to it and releases it once encoded.
 *
 * <p>A packet with payload goes out as two or three buffers written one after the other: the head
 * (length prefix, GIDs, IBA headers), a view of the payload (the sender's memory, or the buffer the
 * packet owns) and, if there is one, the trailer (pad, ICRC). The channel gathers them into one
 * vectored socket write at the flush, as it would the components of a composite buffer, without a
 * composite buffer and its component array built and torn down per frame. Only the last buffer
 * carries the caller's promise: the ones before it cannot succeed unless it does, and if they fail
 * (the channel closed) it fails too.
 *
 * <p>Thread safety: one instance per channel, used on its event loop.
 */
final class FrameEncoder extends ChannelOutboundHandlerAdapter {

    private final Connection connection;
    /** For the buffers before a frame's last: no listener, and no exception fired on failure. */
    private ChannelPromise quiet;

    FrameEncoder(Connection connection) {
        this.connection = connection;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        quiet = new VoidChannelPromise(ctx.channel(), false);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ByteBuf frame;
        if (msg instanceof Packet) {
            writePacket(ctx, (Packet) msg, promise);
            return;
        } else if (msg instanceof Handshake.Hello) {
            frame = Handshake.encode((Handshake.Hello) msg, ctx.alloc());
        } else if (msg instanceof Handshake.Refuse) {
            frame = Handshake.encode((Handshake.Refuse) msg, ctx.alloc());
        } else {
            ctx.write(msg, promise);
            return;
        }
        ctx.write(frame, promise);
    }

    private void writePacket(ChannelHandlerContext ctx, Packet p, ChannelPromise promise) {
        if (p.isBurst()) {
            writeBurst(ctx, p, promise);
            return;
        }
        writeOne(ctx, p, promise);
    }

    /**
     * A burst goes out as BURST frames of as many of its packets as the peer's maximum frame length
     * allows (all of them in one frame, normally: a 64 KiB run at the default maximum), then, if one
     * packet is left, that packet as a PACKET frame. Each frame is its head and a view of its run's
     * payload in the sender's memory.
     */
    private void writeBurst(ChannelHandlerContext ctx, Packet p, ChannelPromise promise) {
        int limit = connection.burstLimit(p.burstMtu());
        try {
            while (p.isBurst()) {
                int n = Math.min(limit, p.burstPackets());
                if (n < 2) {
                    writeOne(ctx, p.splitFirst(), quiet);
                    continue;
                }
                int bytes = n == p.burstPackets() ? p.burstBytes() : n * p.burstMtu();
                ByteBuf head = PacketCodec.encodeBurstHead(p, n, bytes, ctx.alloc());
                ByteBuf payload;
                try {
                    payload = p.payloadView(ctx.alloc(), 0, bytes);
                } catch (RuntimeException e) {
                    head.release();
                    throw e;
                }
                connection.packetWritten(n);
                ctx.write(head, quiet);
                if (n == p.burstPackets()) {
                    p.release();
                    ctx.write(payload, promise);
                    return;
                }
                ctx.write(payload, quiet);
                p.skipInBurst(n);
            }
        } catch (RuntimeException e) {
            p.release();
            throw e;
        }
        writeOne(ctx, p, promise);
    }

    private void writeOne(ChannelHandlerContext ctx, Packet p, ChannelPromise promise) {
        ByteBuf head;
        ByteBuf payload = null;
        ByteBuf trailer = null;
        try {
            head = PacketCodec.encodeHead(p, ctx.alloc());
            if (p.payloadLength() > 0) {
                try {
                    payload = p.payloadView(ctx.alloc());
                    trailer = PacketCodec.encodeTrailer(p, ctx.alloc());
                } catch (RuntimeException e) {
                    head.release();
                    if (payload != null) {
                        payload.release();
                    }
                    throw e;
                }
            }
        } finally {
            p.release();
        }
        connection.packetWritten(1);
        if (payload == null) {
            ctx.write(head, promise);
            return;
        }
        ctx.write(head, quiet);
        if (trailer == null) {
            ctx.write(payload, promise);
            return;
        }
        ctx.write(payload, quiet);
        ctx.write(trailer, promise);
    }
}
