package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertConstant;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.expect;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.fillConstant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scatter/gather lists (struct ibv_sge, ibv_post_send(3) / ibv_post_recv(3)): several SGEs of uneven
 * sizes, some empty, spread over two memory regions, gathered by the requester and scattered by
 * the responder (SEND) or by the requester (RDMA READ), with MTU boundaries falling inside SGEs.
 * The message is the concatenation of the gather list; the receive side fills its SGEs in order.
 */
class ScatterGatherTest {

    private static final QpCaps CAPS = new QpCaps(64, 64, 8, 8, 64);
    private static final byte UNTOUCHED = (byte) 0xC3;

    static Stream<Arguments> schedulersAndMtus() {
        return DataPathSupport.schedulersWith(Mtu.MTU_256, Mtu.MTU_1024, Mtu.MTU_4096);
    }

    /** One SGE and the buffer behind it. */
    private record Seg(MemoryRegion mr, ByteBuffer buf, int offset, int length) {}

    /** Two regions per side: the pair's own, and a second one registered in the same PD. */
    private static final class Sides {
        final RcPair p;
        final ByteBuffer a2 = ByteBuffer.allocateDirect(16 * 1024);
        final ByteBuffer b2 = ByteBuffer.allocate(16 * 1024);
        final MemoryRegion a2mr;
        final MemoryRegion b2mr;

        Sides(String mode, Mtu mtu) {
            p = DataPathSupport.pair(mode, CAPS, 256, false);
            p.mtu = mtu;
            a2mr = p.a.pd.registerMemory(a2, RcPair.ALL);
            b2mr = p.b.pd.registerMemory(b2, RcPair.ALL);
            p.connect();
            fillConstant(p.a.buf, 0, RcPair.BUF, UNTOUCHED);
            fillConstant(p.b.buf, 0, RcPair.BUF, UNTOUCHED);
            fillConstant(a2, 0, a2.capacity(), UNTOUCHED);
            fillConstant(b2, 0, b2.capacity(), UNTOUCHED);
        }
    }

    private static int total(List<Seg> segs) {
        int t = 0;
        for (Seg s : segs) {
            t += s.length();
        }
        return t;
    }

    private static ByteBuffer concat(List<Seg> segs) {
        ByteBuffer out = ByteBuffer.allocate(total(segs));
        for (Seg s : segs) {
            out.put(out.position(), s.buf(), s.offset(), s.length());
            out.position(out.position() + s.length());
        }
        return out;
    }

    private static void fillSegs(List<Seg> segs, long seed) {
        for (Seg s : segs) {
            fill(s.buf(), s.offset(), s.length(), seed++);
        }
    }

    private static SendWr gather(SendWr wr, List<Seg> segs) {
        for (Seg s : segs) {
            wr.sge(s.mr(), s.offset(), s.length());
        }
        return wr;
    }

    /** Checks that {@code segs}, filled in order, hold {@code message} followed by untouched bytes. */
    private static void assertScattered(String what, ByteBuffer message, List<Seg> segs) {
        int at = 0;
        for (int i = 0; i < segs.size(); i++) {
            Seg s = segs.get(i);
            int n = Math.max(0, Math.min(s.length(), message.capacity() - at));
            assertBytes(what + ", SGE " + i, message, at, s.buf(), s.offset(), n);
            assertConstant(
                    what + ", SGE " + i + " beyond the message", s.buf(), s.offset() + n, s.length() - n, UNTOUCHED);
            at += n;
        }
        assertEquals(message.capacity(), at, what + ": the scatter list holds the whole message");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("schedulersAndMtus")
    @DisplayName(
            "SEND: six uneven send SGEs (one empty, two regions) arrive in order in six uneven receive SGEs (the first empty)")
    void shouldGatherAndScatterUnevenSgesWhenSend(String mode, Mtu mtu) {
        Sides s = new Sides(mode, mtu);
        try (RcPair p = s.p) {
            List<Seg> send = List.of(
                    new Seg(p.a.mr, p.a.buf, 5, 1),
                    new Seg(p.a.mr, p.a.buf, 10_000, 1023),
                    new Seg(s.a2mr, s.a2, 3, 1500),
                    new Seg(p.a.mr, p.a.buf, 20_000, 0),
                    new Seg(p.a.mr, p.a.buf, 100, 777),
                    new Seg(s.a2mr, s.a2, 8000, 2049));
            List<Seg> recv = List.of(
                    new Seg(p.b.mr, p.b.buf, 50_000, 0),
                    new Seg(p.b.mr, p.b.buf, 40_000, 700),
                    new Seg(s.b2mr, s.b2, 1, 2000),
                    new Seg(p.b.mr, p.b.buf, 7, 1),
                    new Seg(p.b.mr, p.b.buf, 30_000, 1603),
                    new Seg(s.b2mr, s.b2, 9000, 5000));
            fillSegs(send, 100);
            RecvWr rwr = new RecvWr().wrId(9);
            for (Seg r : recv) {
                rwr.sge(r.mr(), r.offset(), r.length());
            }
            p.b.qp.postRecv(rwr);
            p.a.qp.postSend(
                    gather(new SendWr().wrId(1).opcode(WrOpcode.SEND), send).flag(SendFlag.SIGNALED));

            WorkCompletion r = expect(p.b.cq, 9, WcOpcode.RECV);
            assertEquals(total(send), r.byteLen());
            expect(p.a.cq, 1, WcOpcode.SEND);
            assertScattered("SEND", concat(send), recv);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("schedulersAndMtus")
    @DisplayName("SEND: a message that ends exactly at a receive SGE boundary leaves the next SGE untouched")
    void shouldFillReceiveSgesExactlyWhenMessageEndsOnSgeBoundary(String mode, Mtu mtu) {
        Sides s = new Sides(mode, mtu);
        try (RcPair p = s.p) {
            int m = mtu.bytes();
            List<Seg> send = List.of(new Seg(p.a.mr, p.a.buf, 0, m + 1), new Seg(p.a.mr, p.a.buf, 8000, m - 1));
            List<Seg> recv = List.of(
                    new Seg(p.b.mr, p.b.buf, 1000, m - 1),
                    new Seg(p.b.mr, p.b.buf, 20_000, m + 1),
                    new Seg(p.b.mr, p.b.buf, 40_000, 100));
            fillSegs(send, 200);
            RecvWr rwr = new RecvWr().wrId(1);
            for (Seg r : recv) {
                rwr.sge(r.mr(), r.offset(), r.length());
            }
            p.b.qp.postRecv(rwr);
            p.a.qp.postSend(
                    gather(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(7), send)
                            .flag(SendFlag.SIGNALED));
            WorkCompletion r = expect(p.b.cq, 1, WcOpcode.RECV);
            assertEquals(2 * m, r.byteLen());
            assertTrue(r.hasFlag(WcFlag.WITH_IMM));
            expect(p.a.cq, 2, WcOpcode.SEND);
            assertScattered("SEND with immediate", concat(send), recv);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("schedulersAndMtus")
    @DisplayName("RDMA WRITE (with and without immediate): the gather list lands contiguously at the remote address")
    void shouldGatherIntoContiguousRemoteRangeWhenRdmaWrite(String mode, Mtu mtu) {
        Sides s = new Sides(mode, mtu);
        try (RcPair p = s.p) {
            List<Seg> send = List.of(
                    new Seg(s.a2mr, s.a2, 77, 333),
                    new Seg(p.a.mr, p.a.buf, 0, 0),
                    new Seg(p.a.mr, p.a.buf, 1, 4097),
                    new Seg(s.a2mr, s.a2, 5000, 1),
                    new Seg(p.a.mr, p.a.buf, 9000, 2600));
            fillSegs(send, 300);
            ByteBuffer message = concat(send);
            int len = message.capacity();

            p.a.qp.postSend(gather(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE), send)
                    .remote(p.b.addr(12_345), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 1, WcOpcode.RDMA_WRITE);
            assertBytes("RDMA WRITE", message, 0, p.b.buf, 12_345, len);
            assertConstant("before the written range", p.b.buf, 12_000, 345, UNTOUCHED);
            assertConstant("after the written range", p.b.buf, 12_345 + len, 100, UNTOUCHED);

            p.b.qp.postRecv(new RecvWr().wrId(4).sge(p.b.mr, 60_000, 16));
            p.a.qp.postSend(gather(
                            new SendWr()
                                    .wrId(2)
                                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                                    .immData(9),
                            send)
                    .remote(s.b2mr.address() + 100, s.b2mr.rkey())
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = expect(p.b.cq, 4, WcOpcode.RECV_RDMA_WITH_IMM);
            assertEquals(len, r.byteLen());
            expect(p.a.cq, 2, WcOpcode.RDMA_WRITE);
            assertBytes("RDMA WRITE with immediate", message, 0, s.b2, 100, len);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("schedulersAndMtus")
    @DisplayName("RDMA READ: the response data is scattered in order over several local SGEs (one empty, two regions)")
    void shouldScatterIntoSeveralLocalSgesWhenRdmaRead(String mode, Mtu mtu) {
        Sides s = new Sides(mode, mtu);
        try (RcPair p = s.p) {
            List<Seg> local = List.of(
                    new Seg(p.a.mr, p.a.buf, 100, 513),
                    new Seg(s.a2mr, s.a2, 0, 1),
                    new Seg(p.a.mr, p.a.buf, 30_000, 2047),
                    new Seg(p.a.mr, p.a.buf, 50_000, 0),
                    new Seg(s.a2mr, s.a2, 4000, 3000),
                    new Seg(p.a.mr, p.a.buf, 2000, 255));
            int len = total(local);
            fill(p.b.buf, 10_001, len, 400);
            SendWr wr = new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ);
            for (Seg l : local) {
                wr.sge(l.mr(), l.offset(), l.length());
            }
            p.a.qp.postSend(wr.remote(p.b.addr(10_001), p.b.mr.rkey()).flag(SendFlag.SIGNALED));
            WorkCompletion c = expect(p.a.cq, 3, WcOpcode.RDMA_READ);
            assertEquals(len, c.byteLen());
            ByteBuffer expected = ByteBuffer.allocate(len);
            expected.put(0, p.b.buf, 10_001, len);
            assertScattered("RDMA READ", expected, local);
            assertConstant("local memory between SGEs", p.a.buf, 613, 1000, UNTOUCHED);
            assertEngineHealthy(p.fabric);
        }
    }
}
