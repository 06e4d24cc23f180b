package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.simrdma.fabric.wire.Packet;

/**
 * Encodes what a connection writes into frames: packets through {@link PacketCodec#encode}
 * (payload not copied), handshake messages through {@link Handshake}. Takes ownership of a
 * packet written to it and releases it once encoded.
 *
 * <p>Thread safety: one instance per channel, used on its event loop.
 */
final class FrameEncoder extends ChannelOutboundHandlerAdapter {

    private final Connection connection;

    FrameEncoder(Connection connection) {
        this.connection = connection;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ByteBuf frame;
        if (msg instanceof Packet) {
            Packet p = (Packet) msg;
            try {
                frame = PacketCodec.encode(p, ctx.alloc());
            } finally {
                p.release();
            }
            connection.packetWritten();
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
}
