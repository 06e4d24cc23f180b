package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertConstant;
import static io.simrdma.fabric.DataPathSupport.assertCqEmpty;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.expect;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.fillConstant;
import static io.simrdma.fabric.DataPathSupport.pair;
import static io.simrdma.fabric.DataPathSupport.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every RC send work request opcode end to end (ibv_post_send(3) opcode table, RC column), with
 * the data checked byte for byte and every completion field ibv_poll_cq(3) defines for a
 * successful completion: wr_id, opcode, byte_len, imm_data / invalidated_rkey with their
 * wc_flags, qp_num and src_qp. Runs under both schedulers.
 */
class DataPathTest {

    private static final String SCHEDULERS = "io.simrdma.fabric.DataPathSupport#schedulers";

    /** Checks the fields of a successful completion that identify the QPs (ibv_poll_cq(3)). */
    private static void assertQps(WorkCompletion wc, QueuePair local, QueuePair remote) {
        assertEquals(local.qpNum(), wc.qpNum(), () -> "qp_num of " + wc);
        // src_qp: the remote QP; for RC the connected QP (WorkCompletion#srcQp).
        assertEquals(remote.qpNum(), wc.srcQp(), () -> "src_qp of " + wc);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "ibv_post_send(3) IBV_WR_SEND: bytes land in the receive buffer; both completions carry ibv_poll_cq(3)'s fields")
    void shouldDeliverSendAndReportCompletionFieldsWhenSend(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.a.buf, 0, 3000, 11);
            fillConstant(p.b.buf, 0, 8192, (byte) 0x5A);
            p.b.qp.postRecv(new RecvWr().wrId(0xB0B0_0001L).sge(p.b.mr, 100, 4000));
            p.a.qp.postSend(new SendWr()
                    .wrId(0xA0A0_0001L)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 3000)
                    .flag(SendFlag.SIGNALED));

            WorkCompletion r = expect(p.b.cq, 0xB0B0_0001L, WcOpcode.RECV);
            assertEquals(3000, r.byteLen(), "byte_len of the receive completion is the message length");
            assertEquals(0, r.wcFlags(), "no WITH_IMM / WITH_INV on a plain SEND");
            assertQps(r, p.b.qp, p.a.qp);

            WorkCompletion s = expect(p.a.cq, 0xA0A0_0001L, WcOpcode.SEND);
            assertEquals(3000, s.byteLen(), "send completion byte_len (as rdma_rxe reports it: the WR's length)");
            assertEquals(0, s.wcFlags());
            assertQps(s, p.a.qp, p.b.qp);

            assertBytes("received message", p.a.buf, 0, p.b.buf, 100, 3000);
            assertConstant("receive buffer beyond the message", p.b.buf, 3100, 1000, (byte) 0x5A);
            assertConstant("memory before the receive buffer", p.b.buf, 0, 100, (byte) 0x5A);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "IBV_WR_SEND_WITH_IMM: the receive completion has IBV_WC_WITH_IMM and the immediate value (one and several packets)")
    void shouldDeliverImmediateDataWhenSendWithImm(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.a.buf, 0, 5000, 12);
            p.b.qp.postRecv(new RecvWr().wrId(1).sge(p.b.mr, 0, 8192));
            p.b.qp.postRecv(new RecvWr().wrId(2).sge(p.b.mr, 8192, 8192));
            p.a.qp.postSend(new SendWr()
                    .wrId(10)
                    .opcode(WrOpcode.SEND_WITH_IMM)
                    .immData(0xCAFEBABE)
                    .sge(p.a.mr, 0, 100)
                    .flag(SendFlag.SIGNALED));
            // 5000 bytes at MTU 1024: SEND First, Middle x3, Last with Immediate.
            p.a.qp.postSend(new SendWr()
                    .wrId(11)
                    .opcode(WrOpcode.SEND_WITH_IMM)
                    .immData(0x00000001)
                    .sge(p.a.mr, 0, 5000)
                    .flag(SendFlag.SIGNALED));

            WorkCompletion r1 = expect(p.b.cq, 1, WcOpcode.RECV);
            assertTrue(r1.hasFlag(WcFlag.WITH_IMM), () -> "WITH_IMM on " + r1);
            assertFalse(r1.hasFlag(WcFlag.WITH_INV), () -> "WITH_INV on " + r1);
            assertEquals(0xCAFEBABE, r1.immData());
            assertEquals(100, r1.byteLen());
            assertQps(r1, p.b.qp, p.a.qp);
            WorkCompletion r2 = expect(p.b.cq, 2, WcOpcode.RECV);
            assertTrue(r2.hasFlag(WcFlag.WITH_IMM), () -> "WITH_IMM on " + r2);
            assertEquals(1, r2.immData());
            assertEquals(5000, r2.byteLen());

            expect(p.a.cq, 10, WcOpcode.SEND);
            expect(p.a.cq, 11, WcOpcode.SEND);
            assertBytes("one-packet SEND with immediate", p.a.buf, 0, p.b.buf, 0, 100);
            assertBytes("multi-packet SEND with immediate", p.a.buf, 0, p.b.buf, 8192, 5000);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "IBV_WR_SEND_WITH_INV: IBV_WC_WITH_INV and the invalidated R_Key on the receiver; the window then refuses access")
    void shouldInvalidateWindowWhenSendWithInv(String mode) {
        try (RcPair p = pair(mode).connect()) {
            // b binds a type 2 window over 4 KiB of its region to its QP (ibv_bind_mw(3), IBV_WR_BIND_MW).
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int windowKey = MemoryWindow.incrementRkey(mw.rkey());
            long windowAddr = p.b.addr(0x4000);
            p.b.qp.postSend(new SendWr()
                    .wrId(77)
                    .opcode(WrOpcode.BIND_MW)
                    .bind(
                            mw,
                            windowKey,
                            p.b.mr,
                            windowAddr,
                            4096,
                            EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ))
                    .flag(SendFlag.SIGNALED));
            expect(p.b.cq, 77, WcOpcode.BIND_MW);

            // The window works before it is invalidated.
            fill(p.a.buf, 0, 4096, 13);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 4096)
                    .remote(windowAddr, windowKey)
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 1, WcOpcode.RDMA_WRITE);
            assertBytes("write through the window", p.a.buf, 0, p.b.buf, 0x4000, 4096);

            // SEND with invalidate of 2500 bytes (SEND First, Middle, Last with Invalidate).
            fill(p.a.buf, 8192, 2500, 14);
            p.b.qp.postRecv(new RecvWr().wrId(5).sge(p.b.mr, 0x8000, 4096));
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND_WITH_INV)
                    .invalidateRkey(windowKey)
                    .sge(p.a.mr, 8192, 2500)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = expect(p.b.cq, 5, WcOpcode.RECV);
            assertTrue(r.hasFlag(WcFlag.WITH_INV), () -> "WITH_INV on " + r);
            assertFalse(r.hasFlag(WcFlag.WITH_IMM), () -> "WITH_IMM on " + r);
            assertEquals(windowKey, r.invalidatedRkey(), "invalidated_rkey names the window's R_Key");
            assertEquals(2500, r.byteLen());
            assertQps(r, p.b.qp, p.a.qp);
            expect(p.a.cq, 2, WcOpcode.SEND);
            assertBytes("SEND with invalidate payload", p.a.buf, 8192, p.b.buf, 0x8000, 2500);

            // The old R_Key is unusable: a write through it is refused and touches nothing.
            fill(p.a.buf, 0, 4096, 15);
            ByteBuffer before = ByteBuffer.allocate(4096);
            before.put(0, p.b.buf, 0x4000, 4096);
            p.a.qp.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 4096)
                    .remote(windowAddr, windowKey)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion bad = poll(p.a.cq);
            assertEquals(3, bad.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, bad.status(), () -> "write through an invalidated R_Key: " + bad);
            assertBytes("memory behind the invalidated window", before, 0, p.b.buf, 0x4000, 4096);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "IBV_WR_RDMA_WRITE: data lands at the remote address; no receive WR is consumed and the responder sees no completion")
    void shouldPlaceDataWithoutConsumingReceiveWhenRdmaWrite(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.a.buf, 0, 10_000, 16);
            fillConstant(p.b.buf, 0, RcPair.BUF, (byte) 0x33);
            p.b.qp.postRecv(new RecvWr().wrId(500).sge(p.b.mr, 60_000, 1000));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 10_000)
                    .remote(p.b.addr(20_001), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            WorkCompletion w = expect(p.a.cq, 1, WcOpcode.RDMA_WRITE);
            assertEquals(10_000, w.byteLen(), "byte_len (as rdma_rxe reports it)");
            assertQps(w, p.a.qp, p.b.qp);
            assertBytes("written data", p.a.buf, 0, p.b.buf, 20_001, 10_000);
            assertConstant("before the write", p.b.buf, 0, 20_001, (byte) 0x33);
            assertConstant("after the write", p.b.buf, 30_001, 29_999, (byte) 0x33);

            // The receive posted before is still there: the next SEND consumes it.
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 10)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = expect(p.b.cq, 500, WcOpcode.RECV);
            assertEquals(10, r.byteLen());
            expect(p.a.cq, 2, WcOpcode.SEND);
            assertCqEmpty(p.fabric, p.b.cq);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "IBV_WR_RDMA_WRITE_WITH_IMM: IBV_WC_RECV_RDMA_WITH_IMM, byte_len = write length, one receive WR consumed, its buffer untouched")
    void shouldCompleteOneReceiveWithWriteLengthWhenRdmaWriteWithImm(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.a.buf, 0, 5000, 17);
            fillConstant(p.b.buf, 0, RcPair.BUF, (byte) 0x44);
            p.b.qp.postRecv(new RecvWr().wrId(201).sge(p.b.mr, 50_000, 64));
            p.b.qp.postRecv(new RecvWr().wrId(202).sge(p.b.mr, 51_000, 64));
            p.b.qp.postRecv(new RecvWr().wrId(203).sge(p.b.mr, 52_000, 64));
            // One packet, then five (RDMA WRITE First, Middle x3, Last with Immediate).
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(0x11223344)
                    .sge(p.a.mr, 0, 700)
                    .remote(p.b.addr(1000), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(0x55667788)
                    .sge(p.a.mr, 0, 5000)
                    .remote(p.b.addr(10_000), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));

            WorkCompletion r1 = expect(p.b.cq, 201, WcOpcode.RECV_RDMA_WITH_IMM);
            assertEquals(700, r1.byteLen(), "ibv_poll_cq(3): byte_len of RECV_RDMA_WITH_IMM is the write's length");
            assertTrue(r1.hasFlag(WcFlag.WITH_IMM));
            assertEquals(0x11223344, r1.immData());
            assertQps(r1, p.b.qp, p.a.qp);
            WorkCompletion r2 = expect(p.b.cq, 202, WcOpcode.RECV_RDMA_WITH_IMM);
            assertEquals(5000, r2.byteLen());
            assertTrue(r2.hasFlag(WcFlag.WITH_IMM));
            assertEquals(0x55667788, r2.immData());

            WorkCompletion s1 = expect(p.a.cq, 1, WcOpcode.RDMA_WRITE);
            assertQps(s1, p.a.qp, p.b.qp);
            expect(p.a.cq, 2, WcOpcode.RDMA_WRITE);
            assertBytes("write with immediate (1 packet)", p.a.buf, 0, p.b.buf, 1000, 700);
            assertBytes("write with immediate (5 packets)", p.a.buf, 0, p.b.buf, 10_000, 5000);
            assertConstant("receive buffers of the consumed WRs", p.b.buf, 50_000, 64, (byte) 0x44);
            assertConstant("receive buffers of the consumed WRs", p.b.buf, 51_000, 64, (byte) 0x44);

            // Exactly one receive WR per write was consumed: the third is still posted.
            p.a.qp.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 64)
                    .flag(SendFlag.SIGNALED));
            expect(p.b.cq, 203, WcOpcode.RECV);
            expect(p.a.cq, 3, WcOpcode.SEND);
            assertBytes("SEND after the writes", p.a.buf, 0, p.b.buf, 52_000, 64);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName("IBV_WR_RDMA_READ: remote bytes land in the local buffer; IBV_WC_RDMA_READ with byte_len = length")
    void shouldFetchRemoteBytesWhenRdmaRead(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.b.buf, 30_000, 7001, 18);
            fillConstant(p.a.buf, 0, RcPair.BUF, (byte) 0x66);
            p.a.qp.postSend(new SendWr()
                    .wrId(0x7FFF_FFFF_FFFF_FFFFL)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 20_003, 7001)
                    .remote(p.b.addr(30_000), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = expect(p.a.cq, 0x7FFF_FFFF_FFFF_FFFFL, WcOpcode.RDMA_READ);
            assertEquals(7001, r.byteLen(), "byte_len of an RDMA READ completion");
            assertQps(r, p.a.qp, p.b.qp);
            assertBytes("read data", p.b.buf, 30_000, p.a.buf, 20_003, 7001);
            assertConstant("before the read buffer", p.a.buf, 0, 20_003, (byte) 0x66);
            assertConstant("after the read buffer", p.a.buf, 27_004, 1000, (byte) 0x66);
            assertCqEmpty(p.fabric, p.b.cq);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName("IBV_WR_ATOMIC_CMP_AND_SWP: original value returned; memory swapped only when compare matches")
    void shouldSwapOnlyWhenCompareMatchesWhenCmpAndSwp(String mode) {
        try (RcPair p = pair(mode).connect()) {
            p.b.buf.putLong(800, 0x0123_4567_89AB_CDEFL);
            p.b.buf.putLong(808, 0x1111_1111_1111_1111L);
            // Compare matches: swapped.
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(p.a.mr, 64, 8)
                    .remote(p.b.addr(800), p.b.mr.rkey())
                    .atomic(0x0123_4567_89AB_CDEFL, 0xFEDC_BA98_7654_3210L)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion c1 = expect(p.a.cq, 1, WcOpcode.COMP_SWAP);
            assertEquals(8, c1.byteLen(), "byte_len of an atomic completion");
            assertQps(c1, p.a.qp, p.b.qp);
            assertEquals(0x0123_4567_89AB_CDEFL, p.a.buf.getLong(64), "original value returned");
            assertEquals(0xFEDC_BA98_7654_3210L, p.b.buf.getLong(800), "swapped");

            // Compare does not match: unchanged, the current value returned.
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(p.a.mr, 72, 8)
                    .remote(p.b.addr(800), p.b.mr.rkey())
                    .atomic(0x0123_4567_89AB_CDEFL, 42)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion c2 = expect(p.a.cq, 2, WcOpcode.COMP_SWAP);
            assertEquals(8, c2.byteLen());
            assertEquals(0xFEDC_BA98_7654_3210L, p.a.buf.getLong(72), "original value returned on a mismatch");
            assertEquals(0xFEDC_BA98_7654_3210L, p.b.buf.getLong(800), "not swapped on a mismatch");
            assertEquals(0x1111_1111_1111_1111L, p.b.buf.getLong(808), "the neighbouring word is untouched");
            assertCqEmpty(p.fabric, p.b.cq);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "IBV_WR_ATOMIC_FETCH_AND_ADD: each returns the value before it; memory is added to once per WR (mod 2^64)")
    void shouldAddOnceAndReturnOriginalWhenFetchAndAdd(String mode) {
        try (RcPair p = pair(mode).connect()) {
            long start = 0xFFFF_FFFF_FFFF_FFF0L;
            p.b.buf.putLong(4096, start);
            int n = 40;
            SendWr wr = new SendWr();
            for (int i = 0; i < n; i++) {
                wr.clear()
                        .wrId(i)
                        .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                        .sge(p.a.mr, 8L * i, 8)
                        .remote(p.b.addr(4096), p.b.mr.rkey())
                        .atomic(3, 0)
                        .flag(SendFlag.SIGNALED);
                p.a.qp.postSend(wr);
            }
            List<WorkCompletion> wcs = poll(p.a.cq, n);
            for (int i = 0; i < n; i++) {
                DataPathSupport.assertSuccess(wcs.get(i), i, WcOpcode.FETCH_ADD);
                assertEquals(8, wcs.get(i).byteLen());
                assertEquals(start + 3L * i, p.a.buf.getLong(8 * i), "value fetched by FETCH_AND_ADD #" + i);
            }
            assertCqEmpty(p.fabric, p.a.cq);
            assertEquals(start + 3L * n, p.b.buf.getLong(4096), "the sum wraps modulo 2^64 and counts each WR once");
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "Zero-length SEND with immediate, RDMA WRITE with immediate and INLINE SEND: byte_len 0, immediates delivered, buffers untouched")
    void shouldCompleteWithZeroByteLenWhenImmediateOrInlineMessageIsEmpty(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fillConstant(p.b.buf, 0, 4096, (byte) 0x77);
            p.b.qp.postRecv(new RecvWr().wrId(1).sge(p.b.mr, 0, 1000));
            p.b.qp.postRecv(new RecvWr().wrId(2).sge(p.b.mr, 1000, 1000));
            p.b.qp.postRecv(new RecvWr().wrId(3).sge(p.b.mr, 2000, 1000));
            p.a.qp.postSend(new SendWr()
                    .wrId(11)
                    .opcode(WrOpcode.SEND_WITH_IMM)
                    .immData(0x01020304)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(12)
                            .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                            .immData(0x05060708)
                            .remote(p.b.addr(3000), p.b.mr.rkey())
                            .flag(SendFlag.SIGNALED)
                            .next(new SendWr()
                                    .wrId(13)
                                    .opcode(WrOpcode.SEND)
                                    .sge(p.a.mr, 0, 0)
                                    .flag(SendFlag.INLINE)
                                    .flag(SendFlag.SIGNALED))));
            List<WorkCompletion> r = poll(p.b.cq, 3);
            DataPathSupport.assertSuccess(r.get(0), 1, WcOpcode.RECV);
            assertEquals(0, r.get(0).byteLen());
            assertTrue(r.get(0).hasFlag(WcFlag.WITH_IMM));
            assertEquals(0x01020304, r.get(0).immData());
            DataPathSupport.assertSuccess(r.get(1), 2, WcOpcode.RECV_RDMA_WITH_IMM);
            assertEquals(0, r.get(1).byteLen());
            assertTrue(r.get(1).hasFlag(WcFlag.WITH_IMM));
            assertEquals(0x05060708, r.get(1).immData());
            DataPathSupport.assertSuccess(r.get(2), 3, WcOpcode.RECV);
            assertEquals(0, r.get(2).byteLen());
            assertEquals(0, r.get(2).wcFlags());
            List<WorkCompletion> s = poll(p.a.cq, 3);
            DataPathSupport.assertSuccess(s.get(0), 11, WcOpcode.SEND);
            DataPathSupport.assertSuccess(s.get(1), 12, WcOpcode.RDMA_WRITE);
            DataPathSupport.assertSuccess(s.get(2), 13, WcOpcode.SEND);
            assertConstant("receive buffers and write target", p.b.buf, 0, 4096, (byte) 0x77);
            assertEngineHealthy(p.fabric);
        }
    }
}
