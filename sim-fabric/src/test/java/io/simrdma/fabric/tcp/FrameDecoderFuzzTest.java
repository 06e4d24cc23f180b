package io.simrdma.fabric.tcp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the frame decoder (and the packet codec and handshake parsing under it) with arbitrary
 * byte streams cut into arbitrary reads. The only exception allowed out is {@link FrameException}
 * (the connection closes); every decoded message must be of a documented type; every buffer the
 * decoder was given or allocated must be released once the decoded packets are.
 *
 * <p>Input layout: byte 0 chooses the read size (1 + value), the rest is the stream. The
 * regression inputs under {@code FrameDecoderFuzzTestInputs/fuzzFrameDecoder} run in every build;
 * fuzzing mode: see the project README ({@code JAZZER_FUZZ=1}).
 */
class FrameDecoderFuzzTest {

    /** Allocates unpooled buffers and remembers each, to check that all were released. */
    static final class TrackingAllocator extends AbstractByteBufAllocator {
        final List<ByteBuf> allocated = new ArrayList<>();

        TrackingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
            allocated.add(b);
            return b;
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
            allocated.add(b);
            return b;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    @FuzzTest(maxDuration = "10m")
    void fuzzFrameDecoder(byte[] input) {
        TrackingAllocator alloc = new TrackingAllocator();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(PacketCodec.MIN_MAX_FRAME_LENGTH, new TcpCounters()));
        ch.config().setAllocator(alloc);
        int readSize = input.length == 0 ? 1 : 1 + (input[0] & 0xFF);
        boolean closed = false;
        try {
            for (int at = 1; at < input.length && !closed; at += readSize) {
                int len = Math.min(readSize, input.length - at);
                ByteBuf read = alloc.directBuffer(len).writeBytes(input, at, len);
                try {
                    ch.writeInbound(read);
                } catch (FrameException e) {
                    closed = true;
                }
                drain(ch);
            }
            if (!closed) {
                try {
                    ch.finish();
                } catch (FrameException e) {
                    // the stream ended inside a frame: TRUNCATED
                }
                drain(ch);
            }
        } finally {
            ch.finishAndReleaseAll();
        }
        for (ByteBuf b : alloc.allocated) {
            if (b.refCnt() != 0) {
                throw new AssertionError("buffer leaked by the decoder: " + b);
            }
        }
    }

    private static void drain(EmbeddedChannel ch) {
        Object m;
        while ((m = ch.readInbound()) != null) {
            if (m instanceof Packet) {
                Packet p = (Packet) m;
                try {
                    check(p);
                } finally {
                    p.release();
                }
            } else if (!(m instanceof Handshake.Hello || m instanceof Handshake.Refuse)) {
                throw new AssertionError("undocumented message type out of the decoder: " + m);
            }
        }
    }

    /** A decoded packet is consistent: its lengths add up and its accessors work. */
    private static void check(Packet p) {
        if (p.payloadLength() < 0
                || p.headerLength() > Packet.MAX_HEADER_LENGTH
                || p.sourceGid() == null
                || p.destinationGid() == null) {
            throw new AssertionError("inconsistent packet " + p);
        }
        if (((p.payloadLength() + p.padCount()) & 3) != 0 && !p.icrcPresent()) {
            throw new AssertionError("unaligned payload accepted: " + p);
        }
        ByteBuf copy = ByteBufAllocator.DEFAULT.heapBuffer();
        try {
            PacketCodec.writeIba(p, copy);
            if (copy.readableBytes() != PacketCodec.ibaLength(p)) {
                throw new AssertionError("re-encoded length differs for " + p);
            }
        } finally {
            copy.release();
        }
        p.toString();
    }
}
