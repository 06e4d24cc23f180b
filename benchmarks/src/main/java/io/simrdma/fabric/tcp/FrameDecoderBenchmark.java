package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The TCP frame decoder as a socket read feeds it: {@value #FRAMES} frames of RDMA WRITE packets
 * arriving in one buffer (or cut in reads of 1460 bytes), split into frames and decoded into
 * packets; per frame. On Netty's EmbeddedChannel, so no socket is involved.
 *
 * <p>White-box: it sits in the package of the decoder it measures, as FrameDecoderTest does; the
 * benchmarks module is built only with -Pbenchmarks.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameDecoderBenchmark {

    static final int FRAMES = 64;

    @Param({"64", "4096"})
    public int payload;

    @Param({"whole", "segments"})
    public String reads;

    private final TcpCounters counters = new TcpCounters();
    private EmbeddedChannel channel;
    private ByteBuf stream;

    @Setup
    public void setUp() {
        channel = new EmbeddedChannel(new FrameDecoder(PacketCodec.DEFAULT_MAX_FRAME_LENGTH, counters));
        Gid src = Gid.parse("fd53:494d::1b58:7f00:1");
        Gid dst = Gid.parse("fd53:494d::1b59:7f00:1");
        ByteBuffer data = ByteBuffer.allocateDirect(payload);
        stream = PooledByteBufAllocator.DEFAULT.directBuffer();
        for (int i = 0; i < FRAMES; i++) {
            Packet p = Packet.allocate(Opcode.RC_RDMA_WRITE_ONLY)
                    .destQp(0x42)
                    .psn(i)
                    .route(src, dst)
                    .reth(0x1000, 0x77, payload)
                    .addSegment(data, 0, payload)
                    .updatePadCount();
            ByteBuf frame = PacketCodec.encode(p, PooledByteBufAllocator.DEFAULT);
            p.release();
            stream.writeBytes(frame);
            frame.release();
        }
    }

    @TearDown
    public void tearDown() {
        stream.release();
        channel.finishAndReleaseAll();
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int decode() {
        if (reads.equals("whole")) {
            channel.writeInbound(stream.retainedDuplicate());
        } else {
            int at = stream.readerIndex();
            int end = stream.writerIndex();
            while (at < end) {
                int n = Math.min(1460, end - at);
                channel.writeInbound(stream.retainedSlice(at, n));
                at += n;
            }
        }
        int n = 0;
        Object m;
        while ((m = channel.readInbound()) != null) {
            ((Packet) m).release();
            n++;
        }
        return n;
    }
}
