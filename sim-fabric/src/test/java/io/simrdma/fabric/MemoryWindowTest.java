package io.simrdma.fabric;

import static io.simrdma.fabric.AccessFlag.LOCAL_WRITE;
import static io.simrdma.fabric.AccessFlag.MW_BIND;
import static io.simrdma.fabric.AccessFlag.REMOTE_ATOMIC;
import static io.simrdma.fabric.AccessFlag.REMOTE_READ;
import static io.simrdma.fabric.AccessFlag.REMOTE_WRITE;
import static io.simrdma.fabric.AccessFlag.ZERO_BASED;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Pairs;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Type 1 memory windows (ibv_alloc_mw(3), ibv_bind_mw(3), ibv_inc_rkey(3)): bound with
 * {@link QueuePair#bindMw}, which returns the new R_Key at once; remote access through the
 * window is limited to its range and rights; a rebind retires the old key; a zero-length bind
 * or deallocation unbinds.
 *
 * <p>b owns the windows (bound through qb1 onto {@code target}); a accesses them.
 */
class MemoryWindowTest {

    private static final EnumSet<SendFlag> SIGNALED = EnumSet.of(SendFlag.SIGNALED);
    private static final EnumSet<AccessFlag> RW = EnumSet.of(REMOTE_READ, REMOTE_WRITE);

    /** Binds {@code mw} through qb1 and checks the bind's completion. */
    private static int bind(Pairs p, MemoryWindow mw, MemoryRegion mr, long addr, long len, Set<AccessFlag> access) {
        int key = p.qb1.bindMw(mw, mr, addr, len, access, 77, SIGNALED);
        WorkCompletion wc = assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertEquals(77, wc.wrId());
        return key;
    }

    @Test
    @DisplayName("ibv_inc_rkey(3): increments the 8 low bits (wrapping) and keeps the index bits")
    void shouldChangeOnlyTagWhenRkeyIncremented() {
        assertEquals(0x12345601, MemoryWindow.incrementRkey(0x12345600));
        assertEquals(0x12345600, MemoryWindow.incrementRkey(0x123456FF));
        assertEquals(0xFFFFFF00, MemoryWindow.incrementRkey(0xFFFFFFFF));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): returns the window's new R_Key at once (only its low 8 bits change); RDMA through it works within its range")
    void shouldReturnNewRkeyAndAllowAccessWhenType1Bound(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            assertEquals(MwType.TYPE_1, mw.type());
            int old = mw.rkey();
            int key = p.qb1.bindMw(mw, p.target, p.t(4096), 1024, RW, 77, SIGNALED);
            assertEquals(old & 0xFFFFFF00, key & 0xFFFFFF00, "index bits stay");
            assertEquals((old + 1) & 0xFF, key & 0xFF, "the tag is incremented");
            assertEquals(key, mw.rkey(), "the window's rkey is the new one as soon as the bind is posted");
            assertNotEquals(p.target.rkey(), key);
            WorkCompletion bindWc = assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
            assertEquals(WcOpcode.BIND_MW, bindWc.opcode());

            // The whole window, through a QP of the PD.
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(4096), key, 1024, 3));
            RcPair.assertBytes(p.a.buf, 0, p.targetBuf, 4096, 1024);
            p.targetBuf.putLong(4096 + 1016, 0x0DDBA11L);
            WorkCompletion r = assertStatus(WcStatus.SUCCESS, p.read(p.qa1, p.t(4096 + 1016), key, 8, 4));
            assertEquals(WcOpcode.RDMA_READ, r.opcode());
            assertEquals(0x0DDBA11L, p.a.buf.getLong(32 * 1024));
            // A type 1 window belongs to the PD: any QP of it serves it.
            assertStatus(WcStatus.SUCCESS, p.write(p.qa2, p.t(4096 + 512), key, 16, 5));
        }
    }

    static Stream<Arguments> outsideWindow() {
        // window: [4096, 4096 + 1024) of target, bound with the given rights
        return Stream.of(Mode.values())
                .flatMap(m -> Stream.of(
                        Arguments.of(m, "ends past the window", RW, WrOpcode.RDMA_WRITE, 4096 + 1020, 8),
                        Arguments.of(m, "starts before the window", RW, WrOpcode.RDMA_WRITE, 4095, 8),
                        Arguments.of(m, "read past the window", RW, WrOpcode.RDMA_READ, 4096 + 1024, 1),
                        Arguments.of(
                                m,
                                "write to a read-only window",
                                EnumSet.of(REMOTE_READ),
                                WrOpcode.RDMA_WRITE,
                                4096,
                                8),
                        Arguments.of(
                                m,
                                "read of a write-only window",
                                EnumSet.of(REMOTE_WRITE),
                                WrOpcode.RDMA_READ,
                                4096,
                                8),
                        Arguments.of(m, "atomic without REMOTE_ATOMIC", RW, WrOpcode.ATOMIC_FETCH_AND_ADD, 4096, 8)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("outsideWindow")
    @DisplayName(
            "IBA 10.6.7 / ibv_bind_mw(3): access outside the window's range or rights is a remote access error and touches nothing")
    void shouldFailWithRemoteAccessErrorWhenOutsideWindow(
            Mode mode, String what, Set<AccessFlag> access, WrOpcode op, int offset, int len) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int key = bind(p, mw, p.target, p.t(4096), 1024, access);
            SendWr wr = new SendWr()
                    .wrId(9)
                    .opcode(op)
                    .sge(p.a.mr, 0, len)
                    .remote(p.t(offset), key)
                    .flag(SendFlag.SIGNALED);
            if (op.isAtomic()) {
                wr.atomic(1, 0);
            }
            RcPair.fill(p.a.buf, 0, 64, 1);
            p.qa1.postSend(wr);
            assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(p.a.cq));
            for (int i = 0; i < p.targetBuf.capacity(); i++) {
                if (p.targetBuf.get(i) != 0) {
                    throw new AssertionError(what + ": byte " + i + " of the region was written");
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_bind_mw(3): a rebind gives a new R_Key; the old one stops working")
    void shouldRetireOldRkeyWhenRebound(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int k1 = bind(p, mw, p.target, p.t(0), 256, RW);
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(0), k1, 8, 1));
            int k2 = bind(p, mw, p.target, p.t(1024), 256, RW);
            assertNotEquals(k1, k2);
            assertEquals(k1 & 0xFFFFFF00, k2 & 0xFFFFFF00);
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(1024), k2, 8, 2));
            RcPair.assertBytes(p.a.buf, 0, p.targetBuf, 1024, 8);
            // The old key no longer names the window, even for the new range.
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, p.t(1024), k1, 8, 3));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): a bind whose CQE reports a failure (flushed behind a failed RDMA WRITE) leaves the window as it was: the old R_Key still works, the new one does not")
    void shouldKeepOldBindingWhenBindFlushed(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int k1 = bind(p, mw, p.target, p.t(0), 256, RW);
            // a WRITE with an R_Key nobody has fails on its NAK; the bind posted behind it is flushed
            p.qb1.postSend(ControlPlaneFixture.write(p.b, 1, 0, 8, p.a.addr(0), 0x5555));
            int k2 = p.qb1.bindMw(mw, p.target, p.t(1024), 256, RW, 2, SIGNALED);
            assertNotEquals(k1, k2);
            WorkCompletion w = assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(p.b.cq));
            assertEquals(1, w.wrId());
            WorkCompletion b = assertStatus(WcStatus.WR_FLUSH_ERR, pollOne(p.b.cq));
            assertEquals(2, b.wrId(), "the bind's completion is a flush");
            // "keep a copy of the old R_key, and fix the mw structure if the subsequent CQE for the bind operation
            // indicates a failure": the old key is the window's, through any QP of the PD
            assertStatus(WcStatus.SUCCESS, p.write(p.qa2, p.t(0), k1, 8, 3));
            RcPair.assertBytes(p.a.buf, 0, p.targetBuf, 0, 8);
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa2, p.t(1024), k2, 8, 4));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "LOCAL_OPERATION_ORDER = WHEN_REACHED (rxe_req.c: a local operation runs when the requester reaches it): a bind flushed behind a failed RDMA WRITE has already changed the window: the new R_Key works, the old one does not")
    void shouldHaveBoundWhenBindFlushedAndProfileRunsBindWhenReached(Mode mode) {
        try (Pairs p = new Pairs(mode, DeviceProfile.RXE)) {
            assertEquals(
                    DeviceProfile.LocalOperationOrder.WHEN_REACHED,
                    p.b.dev.profile().localOperationOrder());
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int k1 = bind(p, mw, p.target, p.t(0), 256, RW);
            p.qb1.postSend(ControlPlaneFixture.write(p.b, 1, 0, 8, p.a.addr(0), 0x5555));
            int k2 = p.qb1.bindMw(mw, p.target, p.t(1024), 256, RW, 2, SIGNALED);
            assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(p.b.cq));
            WorkCompletion b = assertStatus(WcStatus.WR_FLUSH_ERR, pollOne(p.b.cq));
            assertEquals(2, b.wrId(), "the bind's completion is a flush");
            assertStatus(WcStatus.SUCCESS, p.write(p.qa2, p.t(1024), k2, 8, 3));
            RcPair.assertBytes(p.a.buf, 0, p.targetBuf, 1024, 8);
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa2, p.t(0), k1, 8, 4));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_alloc_mw(3): a type 1 window belongs to its PD: another QP of the PD may rebind it")
    void shouldRebindThroughAnotherQpWhenType1(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int k1 = bind(p, mw, p.target, p.t(0), 256, RW);
            int k2 = p.qb2.bindMw(mw, p.target, p.t(512), 256, RW, 78, SIGNALED);
            assertEquals(MemoryWindow.incrementRkey(k1), k2);
            WorkCompletion wc = assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
            assertEquals(p.qb2.qpNum(), wc.qpNum());
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(512), k2, 8, 1));
            RcPair.assertBytes(p.a.buf, 0, p.targetBuf, 512, 8);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_alloc_mw(3): a zero-length ibv_bind_mw invalidates a type 1 window; its region can then be deregistered")
    void shouldUnbindWhenBoundWithZeroLength(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int k1 = bind(p, mw, p.target, p.t(0), 256, RW);
            assertErrno(Errno.EBUSY, p.target::deregister);
            bind(p, mw, p.target, 0, 0, EnumSet.noneOf(AccessFlag.class));
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, p.t(0), k1, 8, 1));
            p.target.deregister();
            assertFalse(p.target.isValid());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): an unbinding (zero-length) bind needs no region; a bind of some length without one is EINVAL")
    void shouldUnbindWithoutRegionWhenLengthZero(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int k1 = bind(p, mw, p.target, p.t(0), 256, RW);
            assertErrno(Errno.EINVAL, () -> p.qb1.bindMw(mw, null, p.t(0), 256, RW, 1, SIGNALED));
            assertEquals(k1, mw.rkey(), "a refused bind leaves the key alone");
            bind(p, mw, null, 0, 0, EnumSet.noneOf(AccessFlag.class));
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, p.t(0), k1, 8, 1));
            p.target.deregister();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_alloc_mw(3): ibv_dealloc_mw unbinds the window (its key stops working, the region can go); a second dealloc is ENOENT (a stale handle)")
    void shouldUnbindWhenDeallocated(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int key = bind(p, mw, p.target, p.t(0), 256, RW);
            mw.dealloc();
            assertErrno(Errno.ENOENT, mw::dealloc);
            p.target.deregister();
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, p.b.addr(0), key, 8, 1));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA o10-36.2.2: a type 1 window cannot be zero based; the bind fails with MW_BIND_ERR and the QP moves to ERR")
    void shouldFailBindWhenType1WindowIsZeroBased(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            p.qb1.bindMw(mw, p.target, p.t(1000), 500, EnumSet.of(REMOTE_WRITE, REMOTE_READ, ZERO_BASED), 77, SIGNALED);
            WorkCompletion wc = assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            assertEquals(77, wc.wrId());
            assertEquals(QpState.ERR, p.qb1.query().state());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): a region registered without MW_BIND cannot have windows (MW_BIND_ERR), and the QP moves to ERR")
    void shouldFailBindWhenRegionLacksMwBind(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryRegion noBind = p.b.pd.registerMemory(
                    ByteBuffer.allocate(4096), EnumSet.of(LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ));
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            p.qb1.bindMw(mw, noBind, noBind.address(), 1024, RW, 5, SIGNALED);
            WorkCompletion wc = assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            assertEquals(5, wc.wrId());
            assertEquals(QpState.ERR, p.qb1.query().state());
            noBind.deregister();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): REMOTE_WRITE or REMOTE_ATOMIC on a window needs LOCAL_WRITE on the region (MW_BIND_ERR); REMOTE_READ does not")
    void shouldFailBindWhenRemoteWriteWithoutLocalWrite(Mode mode) {
        for (EnumSet<AccessFlag> access : java.util.List.of(EnumSet.of(REMOTE_WRITE), EnumSet.of(REMOTE_ATOMIC))) {
            try (Pairs p = new Pairs(mode)) {
                MemoryRegion readOnly =
                        p.b.pd.registerMemory(ByteBuffer.allocate(4096), EnumSet.of(REMOTE_READ, MW_BIND));
                MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
                int key = bind(p, mw, readOnly, readOnly.address(), 1024, EnumSet.of(REMOTE_READ));
                assertStatus(WcStatus.SUCCESS, p.read(p.qa1, readOnly.address(), key, 8, 1));
                p.qb1.bindMw(mw, readOnly, readOnly.address(), 1024, access, 6, SIGNALED);
                assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): binds type 1 windows only (EINVAL for type 2); BIND_MW through ibv_post_send is for type 2 only (EINVAL for type 1)")
    void shouldRefuseWrongBindVerbForWindowType(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow t1 = p.b.pd.allocMw(MwType.TYPE_1);
            MemoryWindow t2 = p.b.pd.allocMw(MwType.TYPE_2);
            int t2Key = t2.rkey();
            assertErrno(Errno.EINVAL, () -> p.qb1.bindMw(t2, p.target, p.t(0), 64, RW, 1, SIGNALED));
            assertEquals(t2Key, t2.rkey());
            SendWr wr = new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.BIND_MW)
                    .flag(SendFlag.SIGNALED)
                    .bind(t1, MemoryWindow.incrementRkey(t1.rkey()), p.target, p.t(0), 64, RW);
            PostException e = assertThrows(PostException.class, () -> p.qb1.postSend(wr));
            assertEquals(Errno.EINVAL, e.errno());
            assertEquals(0, e.badIndex());
            assertEquals(0, p.b.cq.size());
            assertEquals(QpState.RTS, p.qb1.state());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_bind_mw(3) / ibv_post_send(3): a bind cannot be posted before RTS (EINVAL)")
    void shouldRefuseBindWhenQpNotReadyToSend(Mode mode) {
        try (Fabric f = mode.fabric()) {
            ControlPlaneFixture.Node n = ControlPlaneFixture.Node.of(f, "n");
            QueuePair qp = n.qp();
            MemoryWindow mw = n.pd.allocMw(MwType.TYPE_1);
            int key = mw.rkey();
            assertErrno(Errno.EINVAL, () -> qp.bindMw(mw, n.mr, n.addr(0), 64, RW, 1, SIGNALED));
            ControlPlaneFixture.toInit(qp);
            assertErrno(Errno.EINVAL, () -> qp.bindMw(mw, n.mr, n.addr(0), 64, RW, 1, SIGNALED));
            assertEquals(key, mw.rkey(), "a refused bind leaves the key alone");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("IBA 10.6.7: a window and the QP binding it must share a PD (MW_BIND_ERR)")
    void shouldFailBindWhenWindowOfAnotherPd(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            ProtectionDomain other = p.b.dev.allocPd();
            MemoryWindow mw = other.allocMw(MwType.TYPE_1);
            p.qb1.bindMw(mw, p.target, p.t(0), 64, RW, 3, SIGNALED);
            assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            assertTrue(p.target.isValid());
            p.target.deregister();
        }
    }
}
