package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The frame encoder's output is the frames {@link PacketCodec} draws, whether its head buffers and
 * payload views are new or used again, and in steady state it makes no buffer and allocates
 * nothing per frame (issue 12: no per-frame allocation on the TCP path).
 */
class FrameEncoderTest {

    private static final int MTU = 4096;
    private static final int MAX_RUN = 16;

    /** A connection end whose peer takes runs of up to 16 packets; counts the packets encoded. */
    private static final class CountingPeer implements FrameEncoder.Peer {
        long written;

        @Override
        public int burstLimit(int mtu) {
            return MAX_RUN;
        }

        @Override
        public void packetWritten(int packets) {
            written += packets;
        }
    }

    private final ByteBuffer memory = ByteBuffer.allocateDirect(1 << 20);
    private final CountingPeer peer = new CountingPeer();
    private final EmbeddedChannel channel = new EmbeddedChannel(new FrameEncoder(peer));

    FrameEncoderTest() {
        RcEnd.fill(memory, 0, memory.capacity(), 12);
    }

    @AfterEach
    void closeChannel() {
        channel.finishAndReleaseAll();
    }

    /** A run of {@code packets} RDMA WRITE packets from {@code offset} of the memory, the last one {@code lastBytes} long. */
    private Packet burst(int offset, int packets, int lastBytes, int psn) {
        int bytes = (packets - 1) * MTU + lastBytes;
        Packet p = Packet.allocate(Opcode.RC_RDMA_WRITE_FIRST)
                .destQp(0x11)
                .psn(psn)
                .pkey(0xFFFF)
                .reth(0x1000, 0x77, bytes)
                .route(Frames.SRC, Frames.DST);
        p.addSegment(memory, offset, bytes);
        p.burst(packets, MTU, Opcode.RC_RDMA_WRITE_LAST, 0, false, true);
        return p;
    }

    /** A SEND ONLY of {@code bytes} bytes from {@code offset} of the memory (a pad, so a trailer, unless a multiple of 4). */
    private Packet send(int offset, int bytes, int psn) {
        Packet p = Packet.allocate(Opcode.RC_SEND_ONLY)
                .destQp(0x11)
                .psn(psn)
                .pkey(0xFFFF)
                .route(Frames.SRC, Frames.DST);
        p.addSegment(memory, offset, bytes);
        p.updatePadCount();
        return p;
    }

    /** The frame bytes of {@code p} as {@link PacketCodec} encodes it with buffers of its own (p released). */
    private static byte[] expected(Packet p) {
        ByteBuf frame;
        if (p.isBurst()) {
            ByteBuf head = PacketCodec.encodeBurstHead(p, p.burstPackets(), p.burstBytes(), ByteBufAllocator.DEFAULT);
            frame = Unpooled.wrappedBuffer(head, p.payloadView(ByteBufAllocator.DEFAULT, 0, p.burstBytes()));
        } else {
            frame = PacketCodec.encode(p, ByteBufAllocator.DEFAULT);
        }
        p.release();
        return Frames.bytes(frame);
    }

    /** What the channel has written since the last call, as one array; every buffer released. */
    private byte[] written() {
        ByteBuf all = Unpooled.buffer();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            all.writeBytes(b);
            b.release();
        }
        return Frames.bytes(all);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    @DisplayName(
            "Reused heads and views carry each frame's own bytes: BURST and PACKET frames as PacketCodec draws them")
    void shouldWriteCodecFramesWhenBuffersAreReused() {
        int psn = 0x100;
        long packetsWritten = 0;
        for (int i = 0; i < 200; i++) {
            int packets = 2 + i % (MAX_RUN - 1);
            int last = 1 + (i * 997) % MTU;
            int offset = (i * 8191) % (memory.capacity() - packets * MTU);
            byte[] want = expected(burst(offset, packets, last, psn));
            channel.writeAndFlush(burst(offset, packets, last, psn), channel.voidPromise());
            assertArrayEquals(want, written(), "frame " + i + " (a run of " + packets + ")");
            int sendBytes = 1 + i % 13; // pads of 0-3 bytes: a trailer now and then
            want = expected(send(offset + 3, sendBytes, psn));
            channel.writeAndFlush(send(offset + 3, sendBytes, psn), channel.voidPromise());
            assertArrayEquals(want, written(), "SEND " + i + " of " + sendBytes + " bytes");
            psn += packets + 1;
            packetsWritten += packets + 1;
        }
        assertEquals(packetsWritten, peer.written, "packets counted as written");
    }

    @Test
    @DisplayName("A head or view still being written is not reused: frames queued together keep their own bytes")
    void shouldNotReuseBuffersWhenTheyAreStillBeingWritten() {
        // warm the rings with one frame each, then queue many before anything is released
        channel.writeAndFlush(burst(0, 4, MTU, 1), channel.voidPromise());
        written();
        byte[] want = new byte[0];
        int psn = 10;
        for (int i = 0; i < 40; i++) {
            want = concat(want, expected(burst(i * 4096, 3, 100 + i, psn)));
            channel.write(burst(i * 4096, 3, 100 + i, psn), channel.voidPromise());
            want = concat(want, expected(send(i * 5, 6, psn + 3)));
            channel.write(send(i * 5, 6, psn + 3), channel.voidPromise());
            psn += 4;
        }
        channel.flush();
        assertArrayEquals(want, written(), "40 runs and 40 SENDs queued before any was released");
    }

    @Test
    @DisplayName("Issue 12: in steady state no head, view or trailer buffer is made per frame")
    void shouldMakeNoBufferPerFrameWhenWritingInSteadyState() {
        FrameEncoder encoder = channel.pipeline().get(FrameEncoder.class);
        writeRounds(100); // the rings fill
        long made = encoder.buffers().made();
        writeRounds(1_000);
        assertEquals(made, encoder.buffers().made(), "buffers made by 1000 rounds of steady-state frames");
    }

    @Test
    @DisplayName("Issue 12: in steady state writing a frame allocates nothing (heads, views, trailers, packets)")
    void shouldNotAllocatePerFrameWhenWritingInSteadyState() throws InterruptedException {
        // Paranoid leak detection (the test setting) records every retain and release of a pooled
        // buffer: it allocates itself. Off for this measurement only.
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        long[] perFrame = {-1};
        try {
            // on a thread like an event loop's: Netty recycles its per-write entries on those only
            Thread loop = new FastThreadLocalThread(() -> perFrame[0] = allocatedPerFrame());
            loop.start();
            loop.join(TimeUnit.MINUTES.toMillis(5));
            assertFalse(loop.isAlive(), "the measuring thread did not finish in 5 minutes");
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
        assertTrue(
                perFrame[0] >= 0 && perFrame[0] < 8,
                perFrame[0] + " bytes allocated per frame in steady state, expected none");
    }

    /** Bytes the calling thread allocates per frame in steady state (a run, a SEND and an ACK per round). */
    private long allocatedPerFrame() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameEncoder(new CountingPeer()));
        try {
            for (int i = 0; i < 20_000; i++) { // warm-up: pools fill, code is compiled
                writeRound(ch, i);
            }
            int rounds = 20_000;
            long before = allocatedBytes();
            for (int i = 0; i < rounds; i++) {
                writeRound(ch, i);
            }
            return (allocatedBytes() - before) / (rounds * 3L);
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    private void writeRounds(int rounds) {
        for (int i = 0; i < rounds; i++) {
            writeRound(channel, i);
        }
    }

    /** A run of 16 packets, a SEND with a trailer and an ACK (a head alone), then the written buffers released. */
    private void writeRound(EmbeddedChannel ch, int i) {
        int offset = (i & 7) * 65536;
        ch.write(burst(offset, MAX_RUN, MTU, i * 20), ch.voidPromise());
        ch.write(send(offset, 5, i * 20 + 16), ch.voidPromise());
        Packet ack = Packet.allocate(Opcode.RC_ACKNOWLEDGE)
                .destQp(0x11)
                .psn(i * 20 + 17)
                .pkey(0xFFFF)
                .aeth(0, 1)
                .route(Frames.SRC, Frames.DST);
        ch.write(ack, ch.voidPromise());
        ch.flush();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            b.release();
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
