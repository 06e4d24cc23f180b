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
 * <p>No buffer is made per frame in steady state: heads go into buffers kept by a
 * {@link FrameBuffers}, and a payload in the sender's memory leaves through one of the views it
 * keeps of that memory (the same bytes, not a copy: the socket write is the one copy of the hop).
 *
 * <p>Thread safety: one instance per channel, used on its event loop.
 */
final class FrameEncoder extends ChannelOutboundHandlerAdapter {

    /** What the encoder asks of its connection. */
    interface Peer {
        /** How many packets of {@code mtu} bytes one BURST frame may carry (below 2: none). */
        int burstLimit(int mtu);

        /** {@code packets} packets were encoded (one frame). */
        void packetWritten(int packets);
    }

    private final Peer connection;
    /** For the buffers before a frame's last: no listener, and no exception fired on failure. */
    private ChannelPromise quiet;
    /** Heads and payload views, kept (the channel's allocator) from handlerAdded to handlerRemoved. */
    private FrameBuffers buffers;

    FrameEncoder(Peer connection) {
        this.connection = connection;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        quiet = new VoidChannelPromise(ctx.channel(), false);
        buffers = new FrameBuffers(ctx.alloc());
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        buffers.release();
    }

    /** The heads and views this encoder keeps; for tests. */
    FrameBuffers buffers() {
        return buffers;
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
                ByteBuf head = buffers.head();
                ByteBuf payload;
                try {
                    PacketCodec.encodeBurstHead(p, n, bytes, head);
                    payload = payloadView(ctx, p, bytes);
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

    /**
     * A view of the first {@code bytes} bytes of {@code p}'s payload: a kept view of the sender's
     * memory if they lie in one piece of direct memory, else one made for the frame (an owned
     * payload's slice, several pieces' composite, or heap memory such as a WQE's inline data,
     * which the channel copies into a direct buffer of its own anyway).
     */
    private ByteBuf payloadView(ChannelHandlerContext ctx, Packet p, int bytes) {
        java.nio.ByteBuffer memory = p.payloadRegion(0, bytes);
        if (memory != null && memory.isDirect()) {
            return buffers.view(memory, p.payloadRegionIndex(0), bytes);
        }
        return p.payloadView(ctx.alloc(), 0, bytes);
    }

    private void writeOne(ChannelHandlerContext ctx, Packet p, ChannelPromise promise) {
        ByteBuf head = buffers.head();
        ByteBuf payload = null;
        ByteBuf trailer = null;
        try {
            PacketCodec.encodeHead(p, head);
            if (p.payloadLength() > 0) {
                payload = payloadView(ctx, p, p.payloadLength());
                if (PacketCodec.trailerLength(p) > 0) {
                    trailer = buffers.head();
                    PacketCodec.writeTrailer(p, trailer);
                }
            }
        } catch (RuntimeException e) {
            head.release();
            if (payload != null) {
                payload.release();
            }
            if (trailer != null) {
                trailer.release();
            }
            throw e;
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
