package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.assertNoEvent;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.expectEvent;
import static io.simrdma.fabric.ProfileSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Device profiles, what a device supports (DeviceProfile ZERO_LENGTH_MR, ATOMICS, ATOMIC_ARGUMENTS,
 * IMMEDIATE_DATA, MEMORY_WINDOWS, UNSUPPORTED_OPERATION, LIMITS): an operation a device lacks fails
 * the way that device fails it, at post on the requester (its errno) and as an invalid request
 * on a responder that receives it.
 */
class ProfileOperationsTest {

    private static PostException refused(QueuePair qp, SendWr wr) {
        return assertThrows(PostException.class, () -> qp.postSend(wr));
    }

    static Stream<Arguments> noZeroLengthMr() {
        return ProfileSupport.modesWith(DeviceProfile.MLX5, DeviceProfile.RXE, DeviceProfile.SIW);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("noZeroLengthMr")
    @DisplayName(
            "ZERO_LENGTH_MR = no (mlx5, rxe: ib_umem_get; siw_reg_user_mr): ibv_reg_mr of zero bytes is EINVAL (ibta registers it)")
    void shouldRefuseZeroLengthRegionWhenProfileDoesNotAllowIt(String mode, DeviceProfile profile) {
        try (RcPair p = pair(mode, profile)) {
            VerbsException e = assertThrows(
                    VerbsException.class,
                    () -> p.a.pd.registerMemory(ByteBuffer.allocate(0), EnumSet.of(AccessFlag.LOCAL_WRITE)));
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertEquals(
                    1,
                    p.a.pd
                            .registerMemory(ByteBuffer.allocate(1), EnumSet.of(AccessFlag.LOCAL_WRITE))
                            .length());
        }
    }

    static Stream<Arguments> atomicOps() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(
                        Arguments.of(m, DeviceProfile.SIW, WrOpcode.ATOMIC_CMP_AND_SWP, Errno.EINVAL),
                        Arguments.of(m, DeviceProfile.SIW, WrOpcode.ATOMIC_FETCH_AND_ADD, Errno.EINVAL),
                        Arguments.of(
                                m, ProfileSupport.MLX5_NO_ATOMICS, WrOpcode.ATOMIC_FETCH_AND_ADD, Errno.EOPNOTSUPP)));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("atomicOps")
    @DisplayName(
            "ATOMICS = no, UNSUPPORTED_OPERATION (siw push_send_wqe: EINVAL; mlx5 without atomics: EOPNOTSUPP): an atomic post fails with the profile's errno; nothing queued")
    void shouldRefuseAtomicPostWithProfileErrnoWhenDeviceHasNoAtomics(
            String mode, DeviceProfile profile, WrOpcode op, Errno errno) {
        try (RcPair p = pair(mode, profile).connect()) {
            assertEquals(AtomicCap.NONE, p.a.dev.query().atomicCap());
            SendWr wr = new SendWr()
                    .wrId(1)
                    .opcode(op)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .atomic(0, 1)
                    .flag(SendFlag.SIGNALED);
            PostException e = refused(p.a.qp, wr);
            assertEquals(errno, e.errno(), e.getMessage());
            assertSame(wr, e.badWr());
            assertEquals(0, p.a.qp.sendQueueDepth());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "ATOMICS = no (siw), responder side (IBA 9.7.5.2.1): an atomic reaching a device without atomics is NAKed as an invalid request: REM_INV_REQ_ERR, memory unchanged, QP_REQ_ERR")
    void shouldNakIncomingAtomicWhenResponderHasNoAtomics(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.IBTA, DeviceProfile.SIW, 1024).connect()) {
            p.b.buf.putLong(64, 40);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .atomic(5, 0)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.REM_INV_REQ_ERR);
            assertEquals(40, p.b.buf.getLong(64), "not executed");
            expectEvent(p.b.dev, AsyncEventType.QP_REQ_ERR, p.b.qp);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
        }
    }

    static Stream<Arguments> immediateOps() {
        return ErrorPathSupport.modesWith(WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("immediateOps")
    @DisplayName(
            "IMMEDIATE_DATA = no (siw maps the WITH_IMM opcodes to none): a post of SEND_WITH_IMM or RDMA_WRITE_WITH_IMM is EINVAL")
    void shouldRefuseImmediateDataPostWhenProfileIsSiw(String mode, WrOpcode op) {
        try (RcPair p = pair(mode, DeviceProfile.SIW).connect()) {
            SendWr wr = new SendWr()
                    .wrId(1)
                    .opcode(op)
                    .immData(7)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED);
            assertEquals(Errno.EINVAL, refused(p.a.qp, wr).errno());
            assertEquals(0, p.a.qp.sendQueueDepth());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "IMMEDIATE_DATA = no (siw), responder side: an RDMA WRITE with immediate reaching it is NAKed as invalid: REM_INV_REQ_ERR, nothing written")
    void shouldNakIncomingImmediateDataWhenResponderIsSiw(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.IBTA, DeviceProfile.SIW, 1024).connect()) {
            p.b.qp.postRecv(new RecvWr().wrId(50).sge(p.b.mr, 0, 64));
            p.a.buf.putLong(0, 99);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(7)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(1024), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.REM_INV_REQ_ERR);
            assertEquals(0, p.b.buf.getLong(1024), "nothing written");
            awaitState(p.fabric, p.b.qp, QpState.ERR);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "MEMORY_WINDOWS = none (siw: no alloc_mw, libibverbs EOPNOTSUPP; BIND_MW and LOCAL_INV map to none, EINVAL); max_mw 0")
    void shouldRefuseMemoryWindowsWhenProfileIsSiw(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.SIW).connect()) {
            assertEquals(0, p.a.dev.query().maxMw());
            for (MwType t : MwType.values()) {
                VerbsException e = assertThrows(VerbsException.class, () -> p.a.pd.allocMw(t));
                assertEquals(Errno.EOPNOTSUPP, e.errno(), t + ": " + e.getMessage());
            }
            PostException inv = refused(
                    p.a.qp,
                    new SendWr()
                            .wrId(1)
                            .opcode(WrOpcode.LOCAL_INV)
                            .invalidateRkey(0x100)
                            .flag(SendFlag.SIGNALED));
            assertEquals(Errno.EINVAL, inv.errno());
            // SEND with invalidate is siw's (SIW_OP_SEND_REMOTE_INV): it is posted; b has nothing to invalidate
            p.b.qp.postRecv(new RecvWr().wrId(50).sge(p.b.mr, 0, 64));
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND_WITH_INV)
                    .invalidateRkey(p.b.mr.rkey())
                    .sge(p.a.mr, 0, 8)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 2, WcStatus.SUCCESS);
            expect(p.b, 50, WcStatus.REM_INV_REQ_ERR);
            assertNoEvent(p.a.dev);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "MEMORY_WINDOWS = type 1 only (a derived profile): ibv_alloc_mw of type 2 is EINVAL, BIND_MW and LOCAL_INV are refused; type 1 works")
    void shouldRefuseType2WindowsWhenProfileHasType1Only(String mode) {
        try (RcPair p = pair(mode, ProfileSupport.TYPE_1_ONLY).connect()) {
            VerbsException e = assertThrows(VerbsException.class, () -> p.b.pd.allocMw(MwType.TYPE_2));
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            int key = p.b.qp.bindMw(
                    mw,
                    p.b.mr,
                    p.b.addr(0),
                    1024,
                    EnumSet.of(AccessFlag.REMOTE_READ),
                    7,
                    EnumSet.of(SendFlag.SIGNALED));
            expect(p.b, 7, WcStatus.SUCCESS);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 0, 64)
                    .remote(p.b.addr(0), key)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.SUCCESS);
            assertEquals(
                    Errno.EINVAL,
                    refused(
                                    p.b.qp,
                                    new SendWr()
                                            .wrId(8)
                                            .opcode(WrOpcode.LOCAL_INV)
                                            .invalidateRkey(key))
                            .errno());
        }
    }

    static Stream<Arguments> rxeAtomicArguments() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(Arguments.of(m, 4, 64), Arguments.of(m, 8, 68), Arguments.of(m, 0, 64)));
    }

    @ParameterizedTest(name = "{0} {1} bytes at +{2}")
    @MethodSource("rxeAtomicArguments")
    @DisplayName(
            "ATOMIC_ARGUMENTS = AT_POST (rxe validate_send_wr: length < 8 or remote_addr & 7 is EINVAL): the post fails, nothing queued")
    void shouldRefuseAtomicWithBadArgumentsAtPostWhenProfileIsRxe(String mode, int len, int remoteOff) {
        try (RcPair p = pair(mode, DeviceProfile.RXE).connect()) {
            SendWr wr = new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .remote(p.b.addr(remoteOff), p.b.mr.rkey())
                    .atomic(0, 1)
                    .flag(SendFlag.SIGNALED);
            if (len > 0) {
                wr.sge(p.a.mr, 0, len);
            }
            PostException e = refused(p.a.qp, wr);
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertEquals(0, p.a.qp.sendQueueDepth());
            assertEquals(QpState.RTS, p.a.qp.state());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "ATOMIC_ARGUMENTS = AT_POST (rxe): a 16-byte gather list passes rxe's length < 8 check at post; the completion then reports LOC_LEN_ERR")
    void shouldCompleteLocLenErrWhenRxeAtomicGatherListIsLongerThanEightBytes(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.RXE).connect()) {
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(p.a.mr, 0, 16)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .atomic(0, 1)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.LOC_LEN_ERR);
        }
    }

    static Stream<Arguments> limits() {
        return ProfileSupport.modesWith(DeviceProfile.shipped().toArray(new DeviceProfile[0]));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("limits")
    @DisplayName(
            "LIMITS are enforced (ibv_create_qp(3), ibv_post_send(3)): a QP's inline data and SGEs up to the profile's limit are accepted, one more is EINVAL; an RDMA READ beyond max_sge_rd is EINVAL (siw: 1)")
    void shouldEnforceProfileLimitsWhenCreatingQpsAndPostingReads(String mode, DeviceProfile profile) {
        try (RcPair p = pair(mode, profile).connect()) {
            DeviceProfile.Limits l = profile.limits();
            QpCaps atLimit = new QpCaps(4, 4, l.maxSge(), 1, l.maxInlineData());
            assertEquals(
                    atLimit,
                    p.a.pd.createQp(QpInitAttr.rc(p.a.cq, p.a.cq).caps(atLimit)).caps());
            VerbsException inline = assertThrows(
                    VerbsException.class,
                    () -> p.a.pd.createQp(
                            QpInitAttr.rc(p.a.cq, p.a.cq).caps(new QpCaps(4, 4, 1, 1, l.maxInlineData() + 1))));
            assertEquals(Errno.EINVAL, inline.errno());
            VerbsException sges = assertThrows(
                    VerbsException.class,
                    () -> p.a.pd.createQp(QpInitAttr.rc(p.a.cq, p.a.cq).caps(new QpCaps(4, 4, l.maxSge() + 1, 1, 0))));
            assertEquals(Errno.EINVAL, sges.errno());
            SendWr read = new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED);
            for (int i = 0; i <= Math.min(l.maxSgeRd(), 3); i++) {
                read.sge(p.a.mr, 64L * i, 8);
            }
            if (l.maxSgeRd() < 4) {
                assertEquals(Errno.EINVAL, refused(p.a.qp, read).errno(), "READ with max_sge_rd + 1 SGEs");
            } else {
                p.a.qp.postSend(read);
                expect(p.a, 1, WcStatus.SUCCESS);
            }
        }
    }
}
