package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.CANARY;
import static io.simrdma.fabric.ErrorPathSupport.assertNoEvent;
import static io.simrdma.fabric.ErrorPathSupport.assertUntouched;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.expectEvent;
import static io.simrdma.fabric.ErrorPathSupport.fill;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Memory protection (IBA 10.6; ibv_reg_mr(3)): every local and remote access is checked against
 * key, PD, access rights and bounds before a byte moves. A failed check is a completion status
 * (and for the responder an affiliated async event), the QPs move to ERR, later WRs are flushed,
 * and canary bytes prove that nothing inside or around the target was touched.
 */
class ProtectionErrorTest {

    /** Remote operations checked against an R_Key. */
    enum Op {
        WRITE(AccessFlag.REMOTE_WRITE),
        READ(AccessFlag.REMOTE_READ),
        CMP_SWAP(AccessFlag.REMOTE_ATOMIC),
        FETCH_ADD(AccessFlag.REMOTE_ATOMIC);

        final AccessFlag right;

        Op(AccessFlag right) {
            this.right = right;
        }

        boolean atomic() {
            return this == CMP_SWAP || this == FETCH_ADD;
        }

        /** A signaled WR of this op between local [mr+off, +len) and remote [raddr, +len). */
        SendWr wr(long wrId, MemoryRegion local, long off, int len, long raddr, int rkey) {
            SendWr w = new SendWr()
                    .wrId(wrId)
                    .sge(local, off, atomic() ? 8 : len)
                    .remote(raddr, rkey)
                    .flag(SendFlag.SIGNALED);
            switch (this) {
                case WRITE:
                    return w.opcode(WrOpcode.RDMA_WRITE);
                case READ:
                    return w.opcode(WrOpcode.RDMA_READ);
                case CMP_SWAP:
                    return w.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).atomic(CANARY_LONG, 0x1111_2222_3333_4444L);
                default:
                    return w.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(5, 0);
            }
        }
    }

    /** A compare value equal to the canary pattern, so a CMP_SWAP that wrongly executed would swap. */
    static final long CANARY_LONG = 0xC5C5_C5C5_C5C5_C5C5L;

    static Stream<Arguments> modesAndOps() {
        return ErrorPathSupport.modesWith((Object[]) Op.values());
    }

    /**
     * Where in a's buffer an op's local SGE points: the WRITE source at 2048 (a pattern), a READ or
     * atomic result inside the canary area [0, 1024), so that a wrongly written result shows.
     */
    private static long localOffset(Op op) {
        return op == Op.WRITE ? 2048 : 512;
    }

    /** A good RDMA WRITE of 16 bytes to b's region, to follow a failing WR and be flushed. */
    private static SendWr goodWrite(RcPair p, long wrId) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(p.a.mr, 60_000, 16)
                .remote(p.b.addr(60_000), p.b.mr.rkey())
                .flag(SendFlag.SIGNALED);
    }

    /**
     * With canary in a's [0, 1024) and a pattern at 2048 (see {@link #localOffset}), posts {@code op}
     * of 512 bytes to {@code raddr} through {@code rkey} as wr 1, followed by {@link #goodWrite} as wr 2.
     */
    private static void postOpThenGoodWrite(RcPair p, Op op, long raddr, int rkey) {
        fill(p.a.buf, 0, 1024, CANARY);
        RcPair.fill(p.a.buf, 2048, 512, 9);
        p.a.qp.postSend(op.wr(1, p.a.mr, localOffset(op), 512, raddr, rkey).next(goodWrite(p, 2)));
    }

    /**
     * Checks the outcome of a remote access the responder refused with a remote access error:
     * the requester's WR completes REM_ACCESS_ERR and the next one WR_FLUSH_ERR, both QPs end in
     * ERR, and the responder reports QP_ACCESS_ERR.
     */
    private static void assertRemoteAccessError(RcPair p, long failedId, long nextId) {
        expect(p.a, failedId, WcStatus.REM_ACCESS_ERR);
        expect(p.a, nextId, WcStatus.WR_FLUSH_ERR);
        awaitState(p.fabric, p.a.qp, QpState.ERR);
        expectEvent(p.b.dev, AsyncEventType.QP_ACCESS_ERR, p.b.qp);
        awaitState(p.fabric, p.b.qp, QpState.ERR);
        assertEquals(1, p.b.qp.counters().get(Counter.NAK_REM_ACCESS_SENT), "remote access NAKs sent by b");
        assertEquals(1, p.a.qp.counters().get(Counter.NAK_REM_ACCESS_RECEIVED), "remote access NAKs received by a");
    }

    // ------------------------------------------------------------------ local keys

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 10.6.3.1: a SEND whose L_Key names no region completes LOC_PROT_ERR, the QP enters ERR, later WRs flush")
    void shouldCompleteLocProtErrAndFlushLaterWrsWhenSendLkeyIsBad(String mode) {
        try (RcPair p = pair(mode).connect()) {
            p.b.qp.postRecv(new RecvWr().wrId(100).sge(p.b.mr, 0, 4096));
            fill(p.b.buf, 0, RcPair.BUF, CANARY);
            SendWr bad = new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.addr(0), 64, p.a.mr.lkey() ^ 0x1)
                    .flag(SendFlag.SIGNALED);
            SendWr later1 = new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 64)
                    .flag(SendFlag.SIGNALED);
            SendWr later2 = new SendWr().wrId(3).opcode(WrOpcode.SEND).sge(p.a.mr, 0, 64);
            p.a.qp.postSend(bad.next(later1.next(later2)));

            expect(p.a, 1, WcStatus.LOC_PROT_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            expect(p.a, 3, WcStatus.WR_FLUSH_ERR); // flushed WRs complete even when unsignaled
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(
                    0,
                    p.a.qp.counters().get(Counter.PACKETS_SENT),
                    "nothing may be sent after a local protection error");
            assertEquals(QpState.RTS, p.b.qp.state(), "the responder never saw a packet");
            assertUntouched(p.b.buf, 0, RcPair.BUF, CANARY, "receiver memory");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("IBA 10.6.3.1: an L_Key of a region in another PD of the same device is a local protection error")
    void shouldCompleteLocProtErrWhenLkeyBelongsToAnotherPd(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ProtectionDomain other = p.a.dev.allocPd();
            ByteBuffer src = ByteBuffer.allocate(256);
            MemoryRegion foreign = other.registerMemory(src, RcPair.ALL);
            fill(p.b.buf, 0, RcPair.BUF, CANARY);
            p.a.qp.postSend(new SendWr()
                    .wrId(7)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(foreign, 0, 64)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED)
                    .next(goodWrite(p, 8)));
            expect(p.a, 7, WcStatus.LOC_PROT_ERR);
            expect(p.a, 8, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertUntouched(p.b.buf, 0, RcPair.BUF, CANARY, "remote memory");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_reg_mr(3): local read access is always enabled: a region registered with no rights can be sent from")
    void shouldSendFromARegionRegisteredWithoutAnyRight(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer src = ByteBuffer.allocate(512);
            RcPair.fill(src, 0, 512, 13);
            MemoryRegion noRights = p.a.pd.registerMemory(src.asReadOnlyBuffer(), EnumSet.noneOf(AccessFlag.class));
            p.b.qp.postRecv(new RecvWr().wrId(100).sge(p.b.mr, 0, 1024));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(noRights, 0, 300)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.RDMA_WRITE)
                            .sge(noRights, 300, 212)
                            .remote(p.b.addr(2048), p.b.mr.rkey())
                            .flag(SendFlag.SIGNALED)));
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.a, 2, WcStatus.SUCCESS);
            expect(p.b, 100, WcStatus.SUCCESS);
            RcPair.assertBytes(src, 0, p.b.buf, 0, 300);
            RcPair.assertBytes(src, 300, p.b.buf, 2048, 212);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_reg_mr(3) / IBA 10.6.3.1: the local target of an RDMA READ needs LOCAL_WRITE; it is checked when the response is written: the READ goes out, then LOC_PROT_ERR, nothing written")
    void shouldCompleteLocProtErrWhenReadTargetLacksLocalWrite(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer dst = ByteBuffer.allocate(512);
            fill(dst, 0, 512, CANARY);
            MemoryRegion readOnly = p.a.pd.registerMemory(dst, EnumSet.of(AccessFlag.REMOTE_READ));
            // The WRITE after it is fenced, so that it waits for the READ and is flushed unsent.
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(readOnly, 128, 256)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED)
                    .next(goodWrite(p, 2).flag(SendFlag.FENCE)));
            expect(p.a, 1, WcStatus.LOC_PROT_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            assertUntouched(dst, 0, 512, CANARY, "READ target without LOCAL_WRITE");
            assertEquals(1, p.a.qp.counters().get(Counter.PACKETS_SENT), "the READ request is sent (and nothing else)");
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoEvent(p.b.dev);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_reg_mr(3) / IBA 10.6.3.1: the local result buffer of an atomic needs LOCAL_WRITE; checked when the result comes back: the responder executes it, the requester completes LOC_PROT_ERR")
    void shouldCompleteLocProtErrWhenAtomicResultBufferLacksLocalWrite(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer dst = ByteBuffer.allocate(64);
            fill(dst, 0, 64, CANARY);
            MemoryRegion readOnly = p.a.pd.registerMemory(dst, EnumSet.of(AccessFlag.REMOTE_READ));
            p.b.buf.putLong(64, 40);
            p.a.qp.postSend(Op.FETCH_ADD.wr(1, readOnly, 8, 8, p.b.addr(64), p.b.mr.rkey()));
            expect(p.a, 1, WcStatus.LOC_PROT_ERR);
            assertUntouched(dst, 0, 64, CANARY, "atomic result buffer without LOCAL_WRITE");
            assertEquals(45, p.b.buf.getLong(64), "the responder executed the FETCH_ADD (40 + 5)");
            assertEquals(1, p.a.qp.counters().get(Counter.PACKETS_SENT), "the atomic request was sent");
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoEvent(p.b.dev);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 10.6.3 / rxe_comp.c: an RDMA READ with a bad R_Key and a bad L_Key completes REM_ACCESS_ERR: the remote check comes first")
    void shouldCompleteRemAccessErrWhenReadHasBadRkeyAndBadLkey(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.a.buf, 0, 1024, CANARY);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.addr(0), 256, p.a.mr.lkey() ^ 0x1)
                    .remote(p.b.addr(0), p.b.mr.rkey() ^ 0x1)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.REM_ACCESS_ERR);
            assertUntouched(p.a.buf, 0, 1024, CANARY, "a's memory");
            expectEvent(p.b.dev, AsyncEventType.QP_ACCESS_ERR, p.b.qp);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 10.6.3.1 / rxe_comp.c: a CMP_SWAP whose L_Key names nothing is executed by the responder (remote memory swaps); the requester completes LOC_PROT_ERR")
    void shouldExecuteCmpSwapRemotelyAndCompleteLocProtErrWhenLkeyIsBad(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.a.buf, 0, 1024, CANARY);
            p.b.buf.putLong(128, CANARY_LONG);
            SendWr wr = new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(p.a.addr(512), 8, 0x0BAD_0000)
                    .remote(p.b.addr(128), p.b.mr.rkey())
                    .atomic(CANARY_LONG, 0x1111_2222_3333_4444L)
                    .flag(SendFlag.SIGNALED);
            p.a.qp.postSend(wr.next(goodWrite(p, 2).flag(SendFlag.FENCE)));
            expect(p.a, 1, WcStatus.LOC_PROT_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            assertEquals(0x1111_2222_3333_4444L, p.b.buf.getLong(128), "the responder swapped (compare matched)");
            assertUntouched(p.a.buf, 0, 1024, CANARY, "a's memory (the original value has nowhere to go)");
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoEvent(p.b.dev);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("ibv_dereg_mr(3): a deregistered region's L_Key fails with LOC_PROT_ERR")
    void shouldCompleteLocProtErrWhenLkeyWasDeregistered(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer src = ByteBuffer.allocate(256);
            MemoryRegion gone = p.a.pd.registerMemory(src, RcPair.ALL);
            int lkey = gone.lkey();
            long addr = gone.address();
            gone.deregister();
            fill(p.b.buf, 0, RcPair.BUF, CANARY);
            p.a.qp.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(addr, 64, lkey)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 3, WcStatus.LOC_PROT_ERR);
            assertUntouched(p.b.buf, 0, RcPair.BUF, CANARY, "remote memory");
        }
    }

    // ------------------------------------------------------------------ remote keys

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modesAndOps")
    @DisplayName(
            "IBA 10.6.3.2, 9.7.5.2.1: a bad R_Key is NAKed: requester REM_ACCESS_ERR, responder ERR + QP_ACCESS_ERR")
    void shouldCompleteRemAccessErrAndRaiseQpAccessErrWhenRkeyIsBad(String mode, Op op) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.b.buf, 0, RcPair.BUF, CANARY);
            postOpThenGoodWrite(p, op, p.b.addr(1024), p.b.mr.rkey() ^ 0x1);
            assertRemoteAccessError(p, 1, 2);
            assertUntouched(p.b.buf, 0, RcPair.BUF, CANARY, "responder memory after a refused " + op);
            assertUntouched(p.a.buf, 0, 1024, CANARY, "requester memory after a refused " + op);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modesAndOps")
    @DisplayName("IBA 10.6.3.2: an R_Key of a region in another PD of the responder is a remote access error")
    void shouldCompleteRemAccessErrWhenRkeyBelongsToAnotherPd(String mode, Op op) {
        try (RcPair p = pair(mode).connect()) {
            ProtectionDomain other = p.b.dev.allocPd();
            ByteBuffer target = ByteBuffer.allocate(1024);
            fill(target, 0, 1024, CANARY);
            MemoryRegion foreign = other.registerMemory(target, RcPair.ALL);
            postOpThenGoodWrite(p, op, foreign.address() + 256, foreign.rkey());
            assertRemoteAccessError(p, 1, 2);
            assertUntouched(target, 0, 1024, CANARY, "region of another PD");
            assertUntouched(p.a.buf, 0, 1024, CANARY, "requester memory");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modesAndOps")
    @DisplayName("ibv_reg_mr(3): a region registered without the operation's REMOTE_* right refuses it: REM_ACCESS_ERR")
    void shouldCompleteRemAccessErrWhenRegionLacksTheRemoteRight(String mode, Op op) {
        try (RcPair p = pair(mode).connect()) {
            EnumSet<AccessFlag> rights = EnumSet.of(
                    AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
            rights.remove(op.right);
            ByteBuffer target = ByteBuffer.allocate(1024);
            fill(target, 0, 1024, CANARY);
            MemoryRegion lacking = p.b.pd.registerMemory(target, rights);
            postOpThenGoodWrite(p, op, lacking.address() + 256, lacking.rkey());
            assertRemoteAccessError(p, 1, 2);
            assertUntouched(target, 0, 1024, CANARY, "region without " + op.right);
            assertUntouched(p.a.buf, 0, 1024, CANARY, "requester memory");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modesAndOps")
    @DisplayName(
            "ibv_modify_qp(3) qp_access_flags: a QP not enabled for the operation NAKs it: REM_INV_REQ_ERR, QP_REQ_ERR")
    void shouldCompleteRemInvReqErrWhenQpAccessFlagsLackTheRemoteRight(String mode, Op op) {
        try (RcPair p = pair(mode)) {
            p.qpAccess = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
            p.qpAccess.remove(op.right);
            p.connect();
            fill(p.b.buf, 0, RcPair.BUF, CANARY);
            postOpThenGoodWrite(p, op, p.b.addr(1024), p.b.mr.rkey());
            expect(p.a, 1, WcStatus.REM_INV_REQ_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            expectEvent(p.b.dev, AsyncEventType.QP_REQ_ERR, p.b.qp);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            assertEquals(1, p.b.qp.counters().get(Counter.NAK_INV_REQ_SENT));
            assertUntouched(p.b.buf, 0, RcPair.BUF, CANARY, "responder memory");
            assertUntouched(p.a.buf, 0, 1024, CANARY, "requester memory");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_dereg_mr(3): a deregistered region's R_Key fails, even after its key slot is reused by a new region")
    void shouldCompleteRemAccessErrWhenRkeyWasDeregistered(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer oldBuf = ByteBuffer.allocate(1024);
            ByteBuffer newBuf = ByteBuffer.allocate(1024);
            fill(oldBuf, 0, 1024, CANARY);
            fill(newBuf, 0, 1024, CANARY);
            MemoryRegion old = p.b.pd.registerMemory(oldBuf, RcPair.ALL);
            int oldRkey = old.rkey();
            long oldAddr = old.address();
            old.deregister();
            MemoryRegion fresh = p.b.pd.registerMemory(newBuf, RcPair.ALL, oldAddr);
            assertEquals(
                    oldRkey >>> 8, fresh.rkey() >>> 8, "the new region reuses the key index (ibv_inc_rkey(3) tag)");
            assertNotEquals(oldRkey, fresh.rkey(), "a reused key index gets a new tag");

            RcPair.fill(p.a.buf, 0, 512, 9);
            p.a.qp.postSend(
                    Op.WRITE.wr(1, p.a.mr, 0, 512, oldAddr + 256, oldRkey).next(goodWrite(p, 2)));
            assertRemoteAccessError(p, 1, 2);
            assertUntouched(oldBuf, 0, 1024, CANARY, "deregistered region");
            assertUntouched(newBuf, 0, 1024, CANARY, "region that reuses the key index at the same address");
        }
    }

    // ------------------------------------------------------------------ bounds

    /** Length of the target region: not a multiple of 8, so an atomic can straddle its end. */
    static final int REGION = 252;
    /** Where the region starts in its (canary-filled) backing buffer. */
    static final int AT = 256;

    enum Edge {
        /** The access starts one byte (an atomic: 8 bytes) before the region. */
        BEFORE,
        /** The access ends one byte (an atomic: 4 bytes, alignment forbids less) after the region. */
        AFTER
    }

    static Stream<Arguments> boundsCases() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(Op.WRITE, Op.READ, Op.FETCH_ADD, Op.CMP_SWAP)
                        .flatMap(op -> Stream.of(Edge.values()).map(e -> Arguments.of(m, op, e))));
    }

    /** Fills {@code backing} with the canary and registers its bytes [at, at + len) on {@code pd}. */
    private static MemoryRegion boundedRegion(ProtectionDomain pd, ByteBuffer backing, int at, int len) {
        fill(backing, 0, backing.capacity(), CANARY);
        ByteBuffer slice = backing.duplicate();
        slice.position(at).limit(at + len);
        return pd.registerMemory(slice, RcPair.ALL);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("boundsCases")
    @DisplayName(
            "IBA 10.6.3.2: an access one byte outside the region is refused as a whole; no byte inside or around moves")
    void shouldRefuseRemoteAccessOneByteOutsideTheRegion(String mode, Op op, Edge edge) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer backing = ByteBuffer.allocate(1024);
            MemoryRegion r = boundedRegion(p.b.pd, backing, AT, REGION);
            long x = r.address();
            int len = op.atomic() ? 8 : 64;
            long raddr;
            if (op.atomic()) {
                raddr = edge == Edge.BEFORE ? x - 8 : x + 248;
            } else {
                raddr = edge == Edge.BEFORE ? x - 1 : x + REGION - len + 1;
            }
            fill(p.a.buf, 0, 1024, CANARY);
            RcPair.fill(p.a.buf, 2048, len, 5);
            long off = localOffset(op);
            p.a.qp.postSend(op.wr(1, p.a.mr, off, len, raddr, r.rkey()).next(goodWrite(p, 2)));
            assertRemoteAccessError(p, 1, 2);
            assertUntouched(backing, 0, 1024, CANARY, op + " " + edge + ": responder region and its surroundings");
            assertUntouched(p.a.buf, 0, 1024, CANARY, op + " " + edge + ": requester target and its surroundings");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modesAndOps")
    @DisplayName(
            "IBA 10.6.3.2: accesses that exactly reach the first and the last byte of the region succeed (the bound is exact)")
    void shouldAllowAccessesThatExactlyReachTheRegionEdges(String mode, Op op) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer backing = ByteBuffer.allocate(1024);
            MemoryRegion r = boundedRegion(p.b.pd, backing, AT, REGION);
            long x = r.address();
            if (op == Op.READ) {
                RcPair.fill(backing, AT, REGION, 6);
            }
            RcPair.fill(p.a.buf, 2048, REGION, 5);
            p.a.buf.put(4096, (byte) 0x3C);
            // first WR: from the region's first byte (a whole-region WRITE/READ, an atomic at its start);
            // second WR: up to its last byte (1 byte for WRITE/READ, the last aligned 8 bytes for an atomic)
            SendWr first = op.wr(1, p.a.mr, op == Op.WRITE ? 2048 : 0, op.atomic() ? 8 : REGION, x, r.rkey());
            SendWr last = op.wr(2, p.a.mr, 4096, 1, op.atomic() ? x + 240 : x + REGION - 1, r.rkey());
            p.a.qp.postSend(first.next(last));
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.a, 2, WcStatus.SUCCESS);
            assertUntouched(backing, 0, AT, CANARY, "bytes before the region");
            assertUntouched(backing, AT + REGION, 1024 - AT - REGION, CANARY, "bytes after the region");
            switch (op) {
                case WRITE:
                    RcPair.assertBytes(p.a.buf, 2048, backing, AT, REGION - 1);
                    assertEquals((byte) 0x3C, backing.get(AT + REGION - 1), "last byte, written by the 1-byte WRITE");
                    break;
                case READ:
                    RcPair.assertBytes(backing, AT, p.a.buf, 0, REGION);
                    assertEquals(backing.get(AT + REGION - 1), p.a.buf.get(4096), "last byte, read by the 1-byte READ");
                    break;
                case FETCH_ADD:
                    assertEquals(CANARY_LONG, p.a.buf.getLong(0), "original value returned");
                    assertEquals(CANARY_LONG + 5, backing.getLong(AT), "sum at the region's start");
                    assertEquals(CANARY_LONG + 5, backing.getLong(AT + 240), "sum at the region's last aligned word");
                    break;
                default:
                    assertEquals(CANARY_LONG, p.a.buf.getLong(0), "original value returned");
                    assertEquals(0x1111_2222_3333_4444L, backing.getLong(AT), "swapped at the region's start");
                    assertEquals(0x1111_2222_3333_4444L, backing.getLong(AT + 240), "swapped at the last aligned word");
                    break;
            }
            if (op.atomic()) {
                assertUntouched(
                        backing, AT + 248, REGION - 248, CANARY, "the region's last 4 bytes (no atomic covers them)");
            }
            assertEquals(QpState.RTS, p.b.qp.state());
        }
    }

    /** Which local SGE of a WR lies one byte outside its region. */
    enum LocalSge {
        /** The only SGE of a SEND (the gather list). */
        SEND_SOURCE,
        /** The second of two SGEs of an RDMA WRITE: the first one is fine. */
        SECOND_WRITE_SOURCE,
        /** The target of an RDMA READ (the scatter list). */
        READ_TARGET
    }

    static Stream<Arguments> localBoundsCases() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(LocalSge.values())
                        .flatMap(k -> Stream.of(Edge.values()).map(e -> Arguments.of(m, k, e))));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("localBoundsCases")
    @DisplayName(
            "IBA 10.6.3.1: a local SGE one byte outside its region: LOC_PROT_ERR, no byte moved on either side (a SEND or WRITE sends nothing; a READ is refused when its response arrives)")
    void shouldCompleteLocProtErrWhenALocalSgeIsOneByteOutsideItsRegion(String mode, LocalSge kind, Edge edge) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer backing = ByteBuffer.allocate(1024);
            MemoryRegion local = boundedRegion(p.a.pd, backing, AT, REGION);
            long x = local.address();
            int len = 64;
            long addr = edge == Edge.BEFORE ? x - 1 : x + REGION - len + 1;
            fill(p.b.buf, 0, RcPair.BUF, CANARY);
            p.b.qp.postRecv(new RecvWr().wrId(100).sge(p.b.mr, 0, 4096));
            SendWr wr = new SendWr().wrId(1).flag(SendFlag.SIGNALED);
            switch (kind) {
                case SEND_SOURCE:
                    wr.opcode(WrOpcode.SEND).sge(addr, len, local.lkey());
                    break;
                case SECOND_WRITE_SOURCE:
                    wr.opcode(WrOpcode.RDMA_WRITE)
                            .sge(x + 8, 16, local.lkey())
                            .sge(addr, len, local.lkey())
                            .remote(p.b.addr(1024), p.b.mr.rkey());
                    break;
                default:
                    wr.opcode(WrOpcode.RDMA_READ).sge(addr, len, local.lkey()).remote(p.b.addr(1024), p.b.mr.rkey());
                    break;
            }
            // A READ's target is checked when its response arrives (rxe_comp.c copy_data): the READ
            // is sent, so the WRITE after it is fenced to stay unsent. A SEND or WRITE source is
            // checked before anything is sent.
            boolean read = kind == LocalSge.READ_TARGET;
            p.a.qp.postSend(wr.next(read ? goodWrite(p, 2).flag(SendFlag.FENCE) : goodWrite(p, 2)));
            expect(p.a, 1, WcStatus.LOC_PROT_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(
                    read ? 1 : 0,
                    p.a.qp.counters().get(Counter.PACKETS_SENT),
                    read ? "only the READ request is sent" : "nothing may be sent");
            assertUntouched(backing, 0, 1024, CANARY, kind + " " + edge + ": local region and its surroundings");
            assertUntouched(p.b.buf, 0, RcPair.BUF, CANARY, kind + " " + edge + ": remote memory");
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoEvent(p.b.dev);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 10.6.3.2: a WRITE through one region's R_Key may not run into the adjacent region registered right after it")
    void shouldRefuseWriteThatStraddlesIntoAnAdjacentRegion(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer first = ByteBuffer.allocate(256);
            ByteBuffer second = ByteBuffer.allocate(256);
            fill(first, 0, 256, CANARY);
            fill(second, 0, 256, CANARY);
            long iova = 0x10_0000L;
            MemoryRegion r1 = p.b.pd.registerMemory(first, RcPair.ALL, iova);
            MemoryRegion r2 = p.b.pd.registerMemory(second, RcPair.ALL, iova + 256);
            assertEquals(iova + 256, r2.address());
            RcPair.fill(p.a.buf, 0, 16, 3);
            p.a.qp.postSend(Op.WRITE.wr(1, p.a.mr, 0, 16, iova + 248, r1.rkey()).next(goodWrite(p, 2)));
            assertRemoteAccessError(p, 1, 2);
            assertUntouched(first, 0, 256, CANARY, "first region");
            assertUntouched(second, 0, 256, CANARY, "adjacent region");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 10.6.3.2: a multi-packet WRITE whose last byte is out of bounds writes nothing, not even its first packets")
    void shouldRefuseMultiPacketWriteWhoseEndIsOutOfBounds(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer backing = ByteBuffer.allocate(8192);
            MemoryRegion r = boundedRegion(p.b.pd, backing, 1024, 4000);
            RcPair.fill(p.a.buf, 0, 4001, 8);
            p.a.qp.postSend(
                    Op.WRITE.wr(1, p.a.mr, 0, 4001, r.address(), r.rkey()).next(goodWrite(p, 2)));
            assertRemoteAccessError(p, 1, 2);
            assertUntouched(backing, 0, 8192, CANARY, "region of a refused 4-packet WRITE");
        }
    }

    // ------------------------------------------------------------------ 64-bit arithmetic

    /** Address/length combinations whose end would wrap around 2^64 or cross 2^63. */
    enum Overflow {
        /** WRITE at 2^64 - 16, 32 bytes: the end wraps to 16. */
        WRITE_WRAPS_2_64,
        /** READ at 2^64 - 16, 32 bytes. */
        READ_WRAPS_2_64,
        /** FETCH_ADD at 2^64 - 8: the 8 bytes end exactly at 2^64 (0 after wrapping). */
        ATOMIC_AT_2_64_MINUS_8,
        /** WRITE at region + 2^63: a signed subtraction would make it look negative. */
        WRITE_AT_REGION_PLUS_2_63,
        /** A ZERO_BASED region addressed at offset 2^64 - 8, 16 bytes: the offset plus length wraps. */
        ZERO_BASED_OFFSET_WRAPS,
        /** A local SGE at 2^64 - 16, 32 bytes. */
        LOCAL_SGE_WRAPS_2_64
    }

    @ParameterizedTest
    @EnumSource(Overflow.class)
    @DisplayName("IBA 10.6.3: address + length is computed without 64-bit overflow; wrapping ranges are refused")
    void shouldRefuseAccessWhoseAddressArithmeticWouldOverflow(Overflow c) {
        try (RcPair p = pair(ErrorPathSupport.DET).connect()) {
            fill(p.b.buf, 0, RcPair.BUF, CANARY);
            fill(p.a.buf, 0, 1024, CANARY);
            int rkey = p.b.mr.rkey();
            SendWr wr;
            WcStatus expected = WcStatus.REM_ACCESS_ERR;
            switch (c) {
                case WRITE_WRAPS_2_64:
                    wr = Op.WRITE.wr(1, p.a.mr, 2048, 32, -16L, rkey);
                    break;
                case READ_WRAPS_2_64:
                    wr = Op.READ.wr(1, p.a.mr, 0, 32, -16L, rkey);
                    break;
                case ATOMIC_AT_2_64_MINUS_8:
                    wr = Op.FETCH_ADD.wr(1, p.a.mr, 0, 8, -8L, rkey);
                    break;
                case WRITE_AT_REGION_PLUS_2_63:
                    wr = Op.WRITE.wr(1, p.a.mr, 2048, 32, p.b.mr.address() + Long.MIN_VALUE, rkey);
                    break;
                case ZERO_BASED_OFFSET_WRAPS: {
                    MemoryRegion zb = p.b.pd.registerMemory(
                            p.b.buf.duplicate().position(0).limit(4096),
                            EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.ZERO_BASED));
                    assertEquals(0, zb.address());
                    wr = Op.WRITE.wr(1, p.a.mr, 2048, 16, -8L, zb.rkey());
                    break;
                }
                default:
                    wr = new SendWr()
                            .wrId(1)
                            .opcode(WrOpcode.RDMA_WRITE)
                            .sge(-16L, 32, p.a.mr.lkey())
                            .remote(p.b.addr(0), rkey)
                            .flag(SendFlag.SIGNALED);
                    expected = WcStatus.LOC_PROT_ERR;
                    break;
            }
            p.a.qp.postSend(wr.next(goodWrite(p, 2)));
            expect(p.a, 1, expected);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            if (expected == WcStatus.REM_ACCESS_ERR) {
                expectEvent(p.b.dev, AsyncEventType.QP_ACCESS_ERR, p.b.qp);
            }
            assertUntouched(p.b.buf, 0, RcPair.BUF, CANARY, c + ": responder memory");
            assertUntouched(p.a.buf, 0, 1024, CANARY, c + ": requester memory");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_reg_mr_iova: a region whose range crosses 2^63 is checked in unsigned arithmetic: inside works, past the end fails")
    void shouldCheckBoundsInUnsignedArithmeticForRegionCrossingTwoToThe63(String mode) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer backing = ByteBuffer.allocate(256);
            fill(backing, 0, 256, CANARY);
            long iova = Long.MAX_VALUE - 0x7F; // region covers [2^63 - 128, 2^63 + 128)
            MemoryRegion r = p.b.pd.registerMemory(backing, RcPair.ALL, iova);
            RcPair.fill(p.a.buf, 0, 64, 4);
            p.a.qp.postSend(Op.WRITE.wr(1, p.a.mr, 0, 64, iova + 96, r.rkey()));
            expect(p.a, 1, WcStatus.SUCCESS);
            RcPair.assertBytes(p.a.buf, 0, backing, 96, 64);
            fill(backing, 0, 256, CANARY);
            p.a.qp.postSend(Op.WRITE.wr(2, p.a.mr, 0, 64, iova + 193, r.rkey()).next(goodWrite(p, 3)));
            assertRemoteAccessError(p, 2, 3);
            assertUntouched(backing, 0, 256, CANARY, "region crossing 2^63 after a refused WRITE");
        }
    }
}
