package io.simrdma.fabric;

import static io.simrdma.fabric.AccessFlag.LOCAL_WRITE;
import static io.simrdma.fabric.AccessFlag.MW_BIND;
import static io.simrdma.fabric.AccessFlag.REMOTE_READ;
import static io.simrdma.fabric.AccessFlag.REMOTE_WRITE;
import static io.simrdma.fabric.AccessFlag.ZERO_BASED;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.recv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Pairs;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Type 2 memory windows (ibv_alloc_mw(3), ibv_post_send(3) IBV_WR_BIND_MW, IBV_WR_LOCAL_INV,
 * IBV_WR_SEND_WITH_INV): bound by a posted work request with an R_Key the application chooses,
 * bound to the QP that bound it, invalidated locally or by the peer, and never bound twice
 * without an invalidation in between.
 *
 * <p>b owns the windows (bound through qb1 onto {@code target}); a accesses them.
 */
class MemoryWindowType2Test {

    private static final EnumSet<AccessFlag> RW = EnumSet.of(REMOTE_READ, REMOTE_WRITE);

    private static SendWr bindWr(
            MemoryWindow mw, int key, MemoryRegion mr, long addr, long len, Set<AccessFlag> access, long wrId) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.BIND_MW)
                .flag(SendFlag.SIGNALED)
                .bind(mw, key, mr, addr, len, access);
    }

    /** Binds {@code mw} through qb1 with the next key and checks the completion; returns the key. */
    private static int bind(Pairs p, MemoryWindow mw, long offset, long len, Set<AccessFlag> access) {
        int key = MemoryWindow.incrementRkey(mw.rkey());
        p.qb1.postSend(bindWr(mw, key, p.target, p.t(offset), len, access, 40));
        WorkCompletion wc = assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertEquals(40, wc.wrId());
        assertEquals(key, mw.rkey(), "the window has the R_Key the bind chose");
        return key;
    }

    /** Posts a LOCAL_INV of {@code key} on qb1 and returns its completion. */
    private static WorkCompletion localInv(Pairs p, int key) {
        p.qb1.postSend(new SendWr()
                .wrId(41)
                .opcode(WrOpcode.LOCAL_INV)
                .invalidateRkey(key)
                .flag(SendFlag.SIGNALED));
        return pollOne(p.b.cq);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_alloc_mw(3): a type 2 window is bound by a posted BIND_MW with the chosen R_Key; RDMA through it works")
    void shouldBindWithChosenRkeyWhenBindMwPosted(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int before = mw.rkey();
            int key = (before & 0xFFFFFF00) | ((before + 0x42) & 0xFF);
            p.qb1.postSend(bindWr(mw, key, p.target, p.t(2048), 2048, RW, 40));
            assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
            assertEquals(key, mw.rkey());
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(2048), key, 2048, 7));
            RcPair.assertBytes(p.a.buf, 0, p.targetBuf, 2048, 2048);
            p.targetBuf.putLong(4088, 42);
            assertStatus(WcStatus.SUCCESS, p.read(p.qa1, p.t(4088), key, 8, 8));
            assertEquals(42, p.a.buf.getLong(32 * 1024));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_inc_rkey(3): a BIND_MW whose R_Key changes the index bits is refused (MW_BIND_ERR)")
    void shouldFailBindWhenRkeyIndexChanges(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int before = mw.rkey();
            p.qb1.postSend(bindWr(mw, before + 0x100, p.target, p.t(0), 64, RW, 40));
            assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            assertEquals(before, mw.rkey());
            p.target.deregister();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA o10-37.2.40 (rxe_check_bind_mw): a type 2 window is not bound or unbound by a zero-length BIND_MW (MW_BIND_ERR); LOCAL_INV unbinds it")
    void shouldFailBindWhenType2LengthZero(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow unbound = p.b.pd.allocMw(MwType.TYPE_2);
            p.qb2.postSend(bindWr(unbound, MemoryWindow.incrementRkey(unbound.rkey()), p.target, p.t(0), 0, RW, 46));
            assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = bind(p, mw, 0, 64, RW);
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(0), key, 8, 1));
            p.qb1.postSend(bindWr(mw, MemoryWindow.incrementRkey(key), p.target, p.t(0), 0, RW, 47));
            assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            assertErrno(Errno.EBUSY, p.target::deregister);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 10.6.7.2: a type 2 window serves only the QP it is bound to; through another QP of the PD it is a remote access error")
    void shouldServeOnlyBoundQpWhenType2(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = bind(p, mw, 0, 1024, RW);
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(0), key, 64, 1));
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa2, p.t(64), key, 64, 2));
            assertEquals(0, p.targetBuf.getLong(64));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_post_send(3) IBV_WR_LOCAL_INV: invalidates a bound type 2 window; its key stops working and it can be bound again")
    void shouldInvalidateWhenLocalInvPosted(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int k1 = bind(p, mw, 0, 1024, RW);
            WorkCompletion inv = assertStatus(WcStatus.SUCCESS, localInv(p, k1));
            assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
            assertEquals(41, inv.wrId());
            int k2 = bind(p, mw, 4096, 1024, RW);
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(4096), k2, 8, 1));
            assertStatus(WcStatus.SUCCESS, localInv(p, k2));
            p.target.deregister();
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, p.t(4096), k2, 8, 2));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 10.6.7.2.5: a type 2 window is invalidated only through the QP it is bound to; LOCAL_INV from another QP fails with MW_BIND_ERR")
    void shouldFailLocalInvWhenPostedOnAnotherQp(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = bind(p, mw, 0, 1024, RW);
            p.qb2.postSend(new SendWr()
                    .wrId(42)
                    .opcode(WrOpcode.LOCAL_INV)
                    .invalidateRkey(key)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion wc = assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            assertEquals(42, wc.wrId());
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(0), key, 8, 1));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_destroy_qp(3): a QP with a type 2 window bound to it cannot be destroyed (EBUSY) until the window is invalidated")
    void shouldRefuseQpDestroyWhenType2WindowBound(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = bind(p, mw, 0, 1024, RW);
            VerbsException e =
                    org.junit.jupiter.api.Assertions.assertThrows(VerbsException.class, () -> p.qb1.destroy());
            assertEquals(Errno.EBUSY, e.errno());
            assertStatus(WcStatus.SUCCESS, localInv(p, key));
            p.qb1.destroy();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_post_send(3) IBV_WR_SEND_WITH_INV: the peer's SEND invalidates the window; the receive reports the key with IBV_WC_WITH_INV")
    void shouldInvalidateWhenPeerSendsWithInvalidate(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = bind(p, mw, 0, 1024, RW);
            p.qb1.postRecv(recv(p.b, 50, 0, 64));
            p.qa1.postSend(new SendWr()
                    .wrId(51)
                    .opcode(WrOpcode.SEND_WITH_INV)
                    .sge(p.a.mr, 0, 16)
                    .invalidateRkey(key)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
            assertEquals(50, r.wrId());
            assertEquals(WcOpcode.RECV, r.opcode());
            assertTrue(r.hasFlag(WcFlag.WITH_INV), r.toString());
            assertEquals(key, r.invalidatedRkey());
            assertStatus(WcStatus.SUCCESS, pollOne(p.a.cq));
            p.target.deregister();
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, p.t(0), key, 8, 1));
        }
    }

    /** An R_Key that a SEND with invalidate cannot invalidate. */
    enum NotInvalidatable {
        /** A key that names nothing. */
        GARBAGE,
        /** A memory region's key: regions are not invalidated by a SEND. */
        REGION,
        /** A type 1 window, which only a zero-length bind unbinds. */
        TYPE_1_WINDOW,
        /** A type 2 window bound through another QP (qb2) than the one the SEND arrives on (qb1). */
        TYPE_2_ON_OTHER_QP
    }

    static Stream<Arguments> notInvalidatable() {
        return Stream.of(Mode.values())
                .flatMap(m -> Stream.of(NotInvalidatable.values()).map(k -> Arguments.of(m, k)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("notInvalidatable")
    @DisplayName(
            "IBA 10.6.7.2.6 (class J, rxe_resp.c): a SEND with invalidate of an R_Key that cannot be invalidated: the receive completes in error (LOC_ACCESS_ERR under ibta), the receiver's QP enters ERR; no NAK, the sender's SEND succeeds; nothing is invalidated")
    void shouldFailReceiveAndKeepKeyWhenSendWithInvalidateNamesKeyThatCannotBeInvalidated(
            Mode mode, NotInvalidatable kind) {
        try (Pairs p = new Pairs(mode)) {
            int key;
            QueuePair through; // a QP pair through which the key must still work afterwards
            switch (kind) {
                case GARBAGE:
                    key = 0x00ABCD00;
                    through = null;
                    break;
                case REGION:
                    key = p.target.rkey();
                    through = p.qa2;
                    break;
                case TYPE_1_WINDOW: {
                    MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
                    key = p.qb2.bindMw(mw, p.target, p.t(0), 1024, RW, 77, EnumSet.of(SendFlag.SIGNALED));
                    assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
                    through = p.qa2;
                    break;
                }
                default: {
                    MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
                    key = MemoryWindow.incrementRkey(mw.rkey());
                    p.qb2.postSend(bindWr(mw, key, p.target, p.t(0), 1024, RW, 40));
                    assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
                    through = p.qa2;
                    break;
                }
            }
            p.qb1.postRecv(recv(p.b, 50, 0, 64));
            p.qa1.postSend(new SendWr()
                    .wrId(51)
                    .opcode(WrOpcode.SEND_WITH_INV)
                    .sge(p.a.mr, 0, 16)
                    .invalidateRkey(key)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = assertStatus(WcStatus.LOC_ACCESS_ERR, pollOne(p.b.cq));
            assertEquals(50, r.wrId());
            assertEquals(p.qb1.qpNum(), r.qpNum());
            WorkCompletion s = assertStatus(WcStatus.SUCCESS, pollOne(p.a.cq));
            assertEquals(51, s.wrId(), "the SEND was acknowledged, not NAKed");
            assertTrue(ErrorPathSupport.await(p.fabric, () -> p.qb1.state() == QpState.ERR, 5_000), "qb1 in ERR");
            long naks = p.qb1.counters().get(Counter.NAK_REM_ACCESS_SENT)
                    + p.qb1.counters().get(Counter.NAK_INV_REQ_SENT)
                    + p.qb1.counters().get(Counter.NAK_REM_OP_SENT);
            assertEquals(0, naks, "no NAK left qb1");
            if (through != null) {
                assertStatus(WcStatus.SUCCESS, p.write(through, p.t(64), key, 8, 3));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 10.6.7.2: a bound type 2 window cannot be bound again before it is invalidated (MW_BIND_ERR); it stays bound as it was")
    void shouldFailBindWhenType2AlreadyBound(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int k1 = bind(p, mw, 0, 1024, RW);
            p.qb2.postSend(bindWr(mw, MemoryWindow.incrementRkey(k1), p.target, p.t(0), 512, RW, 42));
            WorkCompletion wc = assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            assertEquals(42, wc.wrId());
            assertEquals(QpState.ERR, p.qb2.query().state());
            assertEquals(k1, mw.rkey());
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, p.t(1016), k1, 8, 1));
            assertErrno(Errno.EBUSY, p.target::deregister);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): without MW_BIND on the region, or REMOTE_WRITE on a region without LOCAL_WRITE, the bind fails (MW_BIND_ERR)")
    void shouldFailBindWhenRegionRightsInsufficient(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryRegion noBind =
                    p.b.pd.registerMemory(ByteBuffer.allocate(1024), EnumSet.of(LOCAL_WRITE, REMOTE_WRITE));
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            p.qb1.postSend(bindWr(mw, MemoryWindow.incrementRkey(mw.rkey()), noBind, noBind.address(), 64, RW, 43));
            assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
        }
        try (Pairs p = new Pairs(mode)) {
            MemoryRegion noLocalWrite =
                    p.b.pd.registerMemory(ByteBuffer.allocate(1024), EnumSet.of(REMOTE_READ, MW_BIND));
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = MemoryWindow.incrementRkey(mw.rkey());
            p.qb1.postSend(bindWr(mw, key, noLocalWrite, noLocalWrite.address(), 64, EnumSet.of(REMOTE_READ), 44));
            assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
            assertStatus(WcStatus.SUCCESS, localInv(p, key));
            p.qb1.postSend(bindWr(
                    mw,
                    MemoryWindow.incrementRkey(key),
                    noLocalWrite,
                    noLocalWrite.address(),
                    64,
                    EnumSet.of(REMOTE_WRITE),
                    45));
            assertStatus(WcStatus.MW_BIND_ERR, pollOne(p.b.cq));
            noLocalWrite.deregister();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_alloc_mw(3): dealloc unbinds a bound type 2 window; ibv_dereg_mr is EBUSY until then")
    void shouldUnbindWhenType2Deallocated(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = bind(p, mw, 0, 1024, RW);
            assertErrno(Errno.EBUSY, p.target::deregister);
            mw.dealloc();
            p.target.deregister();
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, p.t(0), key, 8, 1));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 10.6.7 ZERO_BASED: a zero-based type 2 window is addressed by offsets; beyond its length is a remote access error")
    void shouldAddressByOffsetWhenType2ZeroBased(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_2);
            int key = bind(p, mw, 3000, 100, EnumSet.of(REMOTE_WRITE, ZERO_BASED));
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, 0, key, 100, 1));
            RcPair.assertBytes(p.a.buf, 0, p.targetBuf, 3000, 100);
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, 1, key, 100, 2));
            assertEquals(0, p.targetBuf.get(3100));
        }
    }
}
