package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertConstant;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.expect;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.fillConstant;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Registered memory as the data path sees it (ibv_reg_mr(3)): heap and direct ByteBuffers, the
 * bytes from the buffer's position to its limit, at the virtual address the device chose, at a
 * chosen iova (ibv_reg_mr_iova(3)), or ZERO_BASED (addresses are offsets from the region's start,
 * ibv_post_send(3) struct ibv_sge); and atomics that read and write their 8-byte operand in the
 * byte order the buffer had when it was registered (MemoryRegion).
 */
class BufferAddressingTest {

    private static final int CAPACITY = 70_000;
    private static final int POSITION = 1_234;
    private static final int LENGTH = 65_536;
    private static final byte UNTOUCHED = (byte) 0x9D;

    /** How a region's virtual addresses are chosen. */
    enum Addressing {
        DEVICE_CHOSEN,
        IOVA_LOW,
        IOVA_ACROSS_2_63,
        ZERO_BASED;

        MemoryRegion register(ProtectionDomain pd, ByteBuffer buf) {
            switch (this) {
                case DEVICE_CHOSEN:
                    return pd.registerMemory(buf, RcPair.ALL);
                case IOVA_LOW:
                    return pd.registerMemory(buf, RcPair.ALL, 0x1000);
                case IOVA_ACROSS_2_63:
                    // The range [2^63 - 32 KiB, 2^63 + 32 KiB): addresses above 2^63 are negative Java longs.
                    return pd.registerMemory(buf, RcPair.ALL, Long.MAX_VALUE - 0x7FFF);
                default:
                    EnumSet<AccessFlag> acc = EnumSet.copyOf(RcPair.ALL);
                    acc.add(AccessFlag.ZERO_BASED);
                    return pd.registerMemory(buf, acc);
            }
        }

        long expectedAddress(MemoryRegion mr) {
            switch (this) {
                case IOVA_LOW:
                    return 0x1000;
                case IOVA_ACROSS_2_63:
                    return Long.MAX_VALUE - 0x7FFF;
                case ZERO_BASED:
                    return 0;
                default:
                    return mr.address();
            }
        }
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String s : List.of(DataPathSupport.DETERMINISTIC, DataPathSupport.THREADED)) {
            for (boolean direct : new boolean[] {false, true}) {
                for (Addressing a : Addressing.values()) {
                    out.add(Arguments.of(s, direct ? "direct" : "heap", a));
                }
            }
        }
        return out.stream();
    }

    /** One side's buffer: capacity 70000, registered from position 1234 for 64 KiB. */
    private static final class Region {
        final ByteBuffer whole;
        final MemoryRegion mr;

        Region(ProtectionDomain pd, boolean direct, Addressing addressing) {
            whole = direct ? ByteBuffer.allocateDirect(CAPACITY) : ByteBuffer.allocate(CAPACITY);
            fillConstant(whole, 0, CAPACITY, UNTOUCHED);
            whole.position(POSITION).limit(POSITION + LENGTH);
            mr = addressing.register(pd, whole);
            whole.clear();
            assertEquals(LENGTH, mr.length(), "the region covers position..limit");
            assertEquals(addressing.expectedAddress(mr), mr.address());
        }

        /** The simulated address of region offset {@code off}. */
        long addr(long off) {
            return mr.address() + off;
        }

        /** The buffer index of region offset {@code off}. */
        int index(int off) {
            return POSITION + off;
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    @DisplayName(
            "SEND, RDMA WRITE/READ and atomics address the right bytes of heap/direct buffers at device-chosen, chosen-iova and ZERO_BASED addresses")
    void shouldAddressRegisteredBytesWhenRegionIsPlacedAnywhere(String mode, String kind, Addressing addressing) {
        try (RcPair p = DataPathSupport.pair(mode).connect()) {
            boolean direct = kind.equals("direct");
            Region a = new Region(p.a.pd, direct, addressing);
            Region b = new Region(p.b.pd, direct, addressing);

            // SEND from two SGEs into two receive SGEs.
            fill(a.whole, a.index(0), 3000, 51);
            p.b.qp.postRecv(
                    new RecvWr().wrId(1).sge(b.addr(100), 1000, b.mr.lkey()).sge(b.addr(20_000), 4000, b.mr.lkey()));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(a.addr(0), 1000, a.mr.lkey())
                    .sge(a.addr(1000), 2000, a.mr.lkey())
                    .flag(SendFlag.SIGNALED));
            assertEquals(3000, expect(p.b.cq, 1, WcOpcode.RECV).byteLen());
            expect(p.a.cq, 1, WcOpcode.SEND);
            assertBytes("SEND, first receive SGE", a.whole, a.index(0), b.whole, b.index(100), 1000);
            assertBytes("SEND, second receive SGE", a.whole, a.index(1000), b.whole, b.index(20_000), 2000);

            // RDMA WRITE to the region's last bytes.
            fill(a.whole, a.index(5000), 4000, 52);
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(a.addr(5000), 4000, a.mr.lkey())
                    .remote(b.addr(LENGTH - 4000), b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 2, WcOpcode.RDMA_WRITE);
            assertBytes("WRITE at the region's end", a.whole, a.index(5000), b.whole, b.index(LENGTH - 4000), 4000);

            // RDMA READ from the region's first bytes.
            fill(b.whole, b.index(0), 100, 53);
            p.a.qp.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(a.addr(30_000), 5000, a.mr.lkey())
                    .remote(b.addr(0), b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 3, WcOpcode.RDMA_READ);
            assertBytes("READ from the region's start", b.whole, b.index(0), a.whole, a.index(30_000), 5000);

            // Atomics.
            b.whole.putLong(b.index(40_000), 1000);
            p.a.qp.postSend(new SendWr()
                    .wrId(4)
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(a.addr(40_000), 8, a.mr.lkey())
                    .remote(b.addr(40_000), b.mr.rkey())
                    .atomic(24, 0)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(5)
                            .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                            .sge(a.addr(40_008), 8, a.mr.lkey())
                            .remote(b.addr(40_000), b.mr.rkey())
                            .atomic(1024, 77)
                            .flag(SendFlag.SIGNALED)));
            expect(p.a.cq, 4, WcOpcode.FETCH_ADD);
            expect(p.a.cq, 5, WcOpcode.COMP_SWAP);
            assertEquals(1000, a.whole.getLong(a.index(40_000)));
            assertEquals(1024, a.whole.getLong(a.index(40_008)));
            assertEquals(77, b.whole.getLong(b.index(40_000)));

            // Nothing outside position..limit was touched on either side.
            for (Region r : List.of(a, b)) {
                assertConstant("bytes before the registered range", r.whole, 0, POSITION, UNTOUCHED);
                assertConstant(
                        "bytes after the registered range",
                        r.whole,
                        POSITION + LENGTH,
                        CAPACITY - POSITION - LENGTH,
                        UNTOUCHED);
            }
            assertEngineHealthy(p.fabric);
        }
    }

    static Stream<Arguments> orders() {
        List<Arguments> out = new ArrayList<>();
        for (String s : List.of(DataPathSupport.DETERMINISTIC, DataPathSupport.THREADED)) {
            for (ByteOrder remote : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
                for (ByteOrder local : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
                    out.add(Arguments.of(s, remote, local));
                }
            }
        }
        return out.stream();
    }

    private static byte[] bytes(ByteBuffer buf, int index) {
        byte[] b = new byte[8];
        buf.get(index, b);
        return b;
    }

    private static byte[] encode(long v, ByteOrder order) {
        return ByteBuffer.allocate(8).order(order).putLong(0, v).array();
    }

    @ParameterizedTest(name = "{0} remote {1} local {2}")
    @MethodSource("orders")
    @DisplayName(
            "Atomics use each region's registered byte order: the target word in the remote's, the fetched value in the local's")
    void shouldHonourRegisteredByteOrderWhenAtomic(String mode, ByteOrder remoteOrder, ByteOrder localOrder) {
        try (RcPair p = DataPathSupport.pair(mode).connect()) {
            ByteBuffer remote = ByteBuffer.allocateDirect(4096).order(remoteOrder);
            ByteBuffer local = ByteBuffer.allocate(4096).order(localOrder);
            MemoryRegion rmr = p.b.pd.registerMemory(remote, RcPair.ALL);
            MemoryRegion lmr = p.a.pd.registerMemory(local, RcPair.ALL);
            // Changing the application's buffer objects afterwards does not change the regions' order.
            ByteOrder other = remoteOrder == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
            remote.order(other);
            local.order(other);

            long v = 0x00_00_00_00_00_00_01_FFL;
            remote.put(64, encode(v, remoteOrder));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(lmr, 0, 8)
                    .remote(rmr.address() + 64, rmr.rkey())
                    .atomic(1, 0)
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 1, WcOpcode.FETCH_ADD);
            assertArrayEquals(
                    encode(v + 1, remoteOrder),
                    bytes(remote, 64),
                    "target word after FETCH_AND_ADD, in " + remoteOrder);
            assertArrayEquals(encode(v, localOrder), bytes(local, 0), "fetched value, in " + localOrder);

            // CMP_AND_SWP compares the value as read in the remote's order.
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(lmr, 8, 8)
                    .remote(rmr.address() + 64, rmr.rkey())
                    .atomic(v + 1, 0x0102_0304_0506_0708L)
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 2, WcOpcode.COMP_SWAP);
            assertArrayEquals(encode(0x0102_0304_0506_0708L, remoteOrder), bytes(remote, 64), "swapped word");
            assertArrayEquals(encode(v + 1, localOrder), bytes(local, 8), "original value");
            assertEngineHealthy(p.fabric);
        }
    }
}
