package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ProfileSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Device profiles, what a requester hears from a responder that cannot serve it
 * (DeviceProfile REMOTE_QP_IN_ERROR, SEND_INVALIDATE_ERROR, SEND_INVALIDATE_RECV_STATUS): silence
 * and a retry count running out, or a NAK at once; and for a SEND with invalidate that cannot
 * invalidate, an acknowledged SEND or a remote access error, with the receive's status.
 */
class ProfileRemoteErrorTest {

    private static SendWr send(RcPair p, long wrId) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sge(p.a.mr, 0, 16).flag(SendFlag.SIGNALED);
    }

    static Stream<Arguments> silentInError() {
        return ProfileSupport.modesWith(DeviceProfile.IBTA, DeviceProfile.MLX5, DeviceProfile.RXE);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("silentInError")
    @DisplayName(
            "REMOTE_QP_IN_ERROR = SILENT (IBA 10.3.1; mlx5; rxe_resp.c): a request to a QP in ERR is dropped; the requester retries retry_cnt times and completes RETRY_EXC_ERR")
    void shouldCompleteRetryExcErrWhenRemoteQpInErrorIsSilent(String mode, DeviceProfile profile) {
        try (RcPair p = pair(mode, DeviceProfile.IBTA, profile, 1024)) {
            p.retryCnt = 1;
            p.connect();
            p.b.qp.modify(new QpAttr().state(QpState.ERR));
            p.a.qp.postSend(send(p, 1));
            expect(p.a, 1, WcStatus.RETRY_EXC_ERR);
            assertEquals(2, p.a.qp.counters().get(Counter.RETRY_TIMEOUTS), "the first try and retry_cnt 1 timed out");
            assertEquals(
                    0,
                    p.b.qp.counters().get(Counter.NAK_REM_OP_SENT)
                            + p.b.qp.counters().get(Counter.NAK_INV_REQ_SENT),
                    "the QP in ERR sent no NAK");
        }
    }

    static Stream<Arguments> nakInError() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(
                        Arguments.of(m, DeviceProfile.SIW, WcStatus.REM_OP_ERR, Counter.NAK_REM_OP_SENT),
                        Arguments.of(
                                m, ProfileSupport.NAK_INVALID, WcStatus.REM_INV_REQ_ERR, Counter.NAK_INV_REQ_SENT)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("nakInError")
    @DisplayName(
            "REMOTE_QP_IN_ERROR = NAK_REMOTE_OPERATIONAL (siw: an iWARP Terminate) / NAK_INVALID_REQUEST: a request to a QP in ERR is NAKed; the requester fails at once with REM_OP_ERR / REM_INV_REQ_ERR, without a retry")
    void shouldFailAtOnceWhenRemoteQpInErrorNaks(String mode, DeviceProfile profile, WcStatus status, Counter nak) {
        try (RcPair p = pair(mode, DeviceProfile.IBTA, profile, 1024)) {
            p.connect();
            p.b.qp.modify(new QpAttr().state(QpState.ERR));
            p.a.qp.postSend(send(p, 1).next(send(p, 2)));
            expect(p.a, 1, status);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(0, p.a.qp.counters().get(Counter.RETRY_TIMEOUTS), "no retry was needed");
            assertTrue(
                    ErrorPathSupport.await(p.fabric, () -> p.b.qp.counters().get(nak) == 2, 5_000),
                    "the QP in ERR NAKs each request that reaches it: "
                            + p.b.qp.counters().get(nak));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "REMOTE_QP_IN_ERROR covers ERR only: a QP in INIT knows no remote QP to answer, so even siw stays silent: RETRY_EXC_ERR")
    void shouldStaySilentWhenRemoteQpIsInInitWhateverTheProfile(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.IBTA, DeviceProfile.SIW, 1024)) {
            p.retryCnt = 1;
            p.toInit(p.a.qp);
            p.toInit(p.b.qp);
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            p.toRts(p.a.qp, p.psnA);
            p.a.qp.postSend(send(p, 1));
            expect(p.a, 1, WcStatus.RETRY_EXC_ERR);
            assertEquals(QpState.INIT, p.b.qp.state());
            assertEquals(0, p.b.qp.counters().get(Counter.NAK_REM_OP_SENT));
        }
    }

    /** a SENDs with invalidate of an R_Key b cannot invalidate (it names nothing). */
    private static void sendWithBadInvalidate(RcPair p) {
        p.b.qp.postRecv(new RecvWr().wrId(50).sge(p.b.mr, 0, 64));
        p.a.qp.postSend(new SendWr()
                .wrId(1)
                .opcode(WrOpcode.SEND_WITH_INV)
                .sge(p.a.mr, 0, 16)
                .invalidateRkey(0x00ABCD00)
                .flag(SendFlag.SIGNALED));
    }

    static Stream<Arguments> silentInvalidate() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(
                        Arguments.of(m, DeviceProfile.IBTA, WcStatus.LOC_ACCESS_ERR),
                        Arguments.of(m, DeviceProfile.RXE, WcStatus.REM_INV_REQ_ERR),
                        Arguments.of(m, DeviceProfile.SIW, WcStatus.REM_INV_REQ_ERR)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("silentInvalidate")
    @DisplayName(
            "SEND_INVALIDATE_ERROR = SILENT (IBA class J; rxe_resp.c; siw_qp_rx.c): the SEND with an R_Key that cannot be invalidated succeeds at the sender; the receive completes with the profile's status (LOC_ACCESS_ERR for ibta, REM_INV_REQ_ERR for rxe and siw); the receiver's QP enters ERR")
    void shouldAcknowledgeSendWhenSendInvalidateErrorIsSilent(String mode, DeviceProfile profile, WcStatus recvStatus) {
        try (RcPair p = pair(mode, DeviceProfile.IBTA, profile, 1024).connect()) {
            sendWithBadInvalidate(p);
            expect(p.b, 50, recvStatus);
            expect(p.a, 1, WcStatus.SUCCESS);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            assertEquals(QpState.RTS, p.a.qp.state());
            assertEquals(0, p.b.qp.counters().get(Counter.NAK_REM_ACCESS_SENT), "no NAK");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "SEND_INVALIDATE_ERROR = NAK_REMOTE_ACCESS (mlx5, modelled): the SEND with an R_Key that cannot be invalidated completes REM_ACCESS_ERR at the sender; the receive LOC_ACCESS_ERR; both QPs in ERR")
    void shouldCompleteRemAccessErrWhenSendInvalidateErrorIsNaked(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.MLX5, DeviceProfile.MLX5, 1024).connect()) {
            sendWithBadInvalidate(p);
            expect(p.b, 50, WcStatus.LOC_ACCESS_ERR);
            expect(p.a, 1, WcStatus.REM_ACCESS_ERR);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(1, p.b.qp.counters().get(Counter.NAK_REM_ACCESS_SENT));
        }
    }
}
