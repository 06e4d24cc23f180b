package io.simrdma.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.simrdma.fabric.tcp.PacketCodec;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Encoding an RDMA WRITE packet into its TCP frame ({@link PacketCodec#encode}: a composite of
 * header, payload view and trailer, the payload not copied), and decoding a frame's body back into
 * a packet ({@link PacketCodec#decode}: the payload a retained slice). Public API of the tcp and
 * wire packages.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PacketCodecBenchmark {

    @Param({"0", "4096"})
    public int payload;

    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private final PacketCodec codec = new PacketCodec();
    private final Gid src = Gid.parse("fd53:494d::1b58:7f00:1");
    private final Gid dst = Gid.parse("fd53:494d::1b59:7f00:1");
    private ByteBuffer data;
    private ByteBuf body;

    @Setup
    public void setUp() {
        data = ByteBuffer.allocateDirect(Math.max(1, payload));
        Packet p = packet();
        ByteBuf frame = PacketCodec.encode(p, alloc);
        p.release();
        body = alloc.directBuffer(frame.readableBytes())
                .writeBytes(
                        frame,
                        frame.readerIndex() + PacketCodec.LENGTH_FIELD_LENGTH,
                        frame.readableBytes() - PacketCodec.LENGTH_FIELD_LENGTH);
        frame.release();
    }

    @TearDown
    public void tearDown() {
        body.release();
    }

    private Packet packet() {
        Packet p = Packet.allocate(payload == 0 ? Opcode.RC_ACKNOWLEDGE : Opcode.RC_RDMA_WRITE_ONLY)
                .destQp(0x123)
                .psn(77)
                .route(src, dst);
        if (payload > 0) {
            p.reth(0x1000, 0x1234, payload).addSegment(data, 0, payload).updatePadCount();
        } else {
            p.aeth(0, 5);
        }
        return p;
    }

    @Benchmark
    public int encode() {
        Packet p = packet();
        ByteBuf frame = PacketCodec.encode(p, alloc);
        p.release();
        int n = frame.readableBytes();
        frame.release();
        return n;
    }

    @Benchmark
    public int decode() {
        Packet p = codec.decode(body);
        int n = p.payloadLength();
        p.release();
        return n;
    }
}
