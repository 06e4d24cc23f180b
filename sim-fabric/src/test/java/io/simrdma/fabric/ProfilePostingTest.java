package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.assertNoCompletion;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ProfileSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Device profiles, posting before the QP is ready (DeviceProfile POST_SEND_BEFORE_RTS,
 * POST_RECV_IN_RESET): ibv_post_send(3) in RESET, INIT or RTR and ibv_post_recv(3) in RESET do
 * what the device does: refuse (EINVAL, or ENOTCONN for siw), hold the work request until the QP
 * can run it (mlx5), or drop it.
 */
class ProfilePostingTest {

    static Stream<Arguments> refusingSends() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(
                        Arguments.of(m, DeviceProfile.IBTA, Errno.EINVAL),
                        Arguments.of(m, DeviceProfile.RXE, Errno.EINVAL),
                        Arguments.of(m, DeviceProfile.SIW, Errno.ENOTCONN)));
    }

    private static SendWr send(RcPair p, long wrId, int offset) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.SEND)
                .sge(p.a.mr, offset, 8)
                .flag(SendFlag.SIGNALED);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("refusingSends")
    @DisplayName(
            "POST_SEND_BEFORE_RTS = REFUSE_EINVAL (ibta: IBA 10.3.1; rxe: rxe_post_send) / REFUSE_ENOTCONN (siw_post_send): a send posted in RESET, INIT or RTR fails with that errno and nothing is queued")
    void shouldRefusePostSendWithProfileErrnoWhenQpIsNotYetInRts(String mode, DeviceProfile profile, Errno errno) {
        try (RcPair p = pair(mode, profile)) {
            assertRefused(p, errno, 1, QpState.RESET);
            p.toInit(p.a.qp);
            p.toInit(p.b.qp);
            p.b.qp.postRecv(new RecvWr().wrId(90).sge(p.b.mr, 0, 64));
            assertRefused(p, errno, 2, QpState.INIT);
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            p.toRtr(p.b.qp, p.a.dev, p.a.qp.qpNum(), p.psnA);
            assertRefused(p, errno, 3, QpState.RTR);
            p.toRts(p.a.qp, p.psnA);
            p.toRts(p.b.qp, p.psnB);
            p.a.buf.putLong(64, 4);
            p.a.qp.postSend(send(p, 4, 64));
            expect(p.a, 4, WcStatus.SUCCESS);
            expect(p.b, 90, WcStatus.SUCCESS);
            assertEquals(4, p.b.buf.getLong(0), "the first message the receiver gets is the one posted in RTS");
            assertNoCompletion(p.a, 50);
        }
    }

    private static void assertRefused(RcPair p, Errno errno, long wrId, QpState state) {
        assertEquals(state, p.a.qp.state());
        PostException e = assertThrows(PostException.class, () -> p.a.qp.postSend(send(p, wrId, 0)));
        assertEquals(errno, e.errno(), state + ": " + e.getMessage());
        assertEquals(0, e.badIndex());
        assertEquals(0, p.a.qp.sendQueueDepth(), state + ": nothing queued");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "POST_SEND_BEFORE_RTS = HOLD_UNTIL_RTS (mlx5: _mlx5_post_send checks no state): sends posted in RESET, INIT and RTR succeed, wait, and run in order once the QP is in RTS")
    void shouldHoldPostedSendsUntilRtsWhenProfileIsMlx5(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.MLX5)) {
            for (int i = 0; i < 4; i++) {
                p.b.qp.postRecv(new RecvWr().wrId(90 + i).sge(p.b.mr, 64L * i, 64)); // held in RESET too
                p.a.buf.putLong(8 * i, 100 + i);
            }
            p.a.qp.postSend(send(p, 1, 0)); // RESET
            p.toInit(p.a.qp);
            p.toInit(p.b.qp);
            p.a.qp.postSend(send(p, 2, 8)); // INIT
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            p.toRtr(p.b.qp, p.a.dev, p.a.qp.qpNum(), p.psnA);
            p.a.qp.postSend(send(p, 3, 16)); // RTR
            assertEquals(3, p.a.qp.sendQueueDepth(), "three WRs wait in the send queue");
            assertNoCompletion(p.a, 50);
            p.toRts(p.a.qp, p.psnA);
            p.toRts(p.b.qp, p.psnB);
            p.a.qp.postSend(send(p, 4, 24)); // RTS
            for (int i = 0; i < 4; i++) {
                expect(p.a, i + 1, WcStatus.SUCCESS);
                expect(p.b, 90 + i, WcStatus.SUCCESS);
                assertEquals(100 + i, p.b.buf.getLong(64 * i), "message " + (i + 1) + " in posting order");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "POST_SEND_BEFORE_RTS = DROP (a profile derived for it): a send posted in INIT succeeds and is never executed; no completion, nothing queued")
    void shouldDropPostedSendWhenProfileDropsBeforeRts(String mode) {
        try (RcPair p = pair(mode, ProfileSupport.DROPPING)) {
            p.toInit(p.a.qp);
            p.a.buf.putLong(0, 1);
            p.a.qp.postSend(send(p, 1, 0));
            assertEquals(0, p.a.qp.sendQueueDepth(), "the WR was dropped, not queued");
            p.toInit(p.b.qp);
            p.b.qp.postRecv(new RecvWr().wrId(90).sge(p.b.mr, 0, 64));
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            p.toRtr(p.b.qp, p.a.dev, p.a.qp.qpNum(), p.psnA);
            p.toRts(p.a.qp, p.psnA);
            p.toRts(p.b.qp, p.psnB);
            p.a.buf.putLong(8, 2);
            p.a.qp.postSend(send(p, 2, 8));
            expect(p.a, 2, WcStatus.SUCCESS);
            expect(p.b, 90, WcStatus.SUCCESS);
            assertEquals(2, p.b.buf.getLong(0), "only the send posted in RTS arrived");
            assertNoCompletion(p.a, 50);
        }
    }

    static Stream<Arguments> recvInReset() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(
                        Arguments.of(m, DeviceProfile.IBTA, false), Arguments.of(m, DeviceProfile.RXE, false),
                        Arguments.of(m, DeviceProfile.MLX5, true), Arguments.of(m, DeviceProfile.SIW, true)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("recvInReset")
    @DisplayName(
            "POST_RECV_IN_RESET = REFUSE_EINVAL (ibta: C10-97.2.1; rxe_post_recv) / HOLD (mlx5_post_recv, siw_post_recv check no state): a receive posted in RESET fails, or waits and later takes a message")
    void shouldRefuseOrHoldPostRecvInResetAsProfileSays(String mode, DeviceProfile profile, boolean held) {
        try (RcPair p = pair(mode, profile)) {
            RecvWr r = new RecvWr().wrId(90).sge(p.b.mr, 0, 64);
            if (!held) {
                PostException e = assertThrows(PostException.class, () -> p.b.qp.postRecv(r));
                assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
                p.connect();
                p.b.qp.postRecv(new RecvWr().wrId(91).sge(p.b.mr, 0, 64));
            } else {
                p.b.qp.postRecv(r);
                p.connect();
            }
            p.a.buf.putLong(0, 7);
            p.a.qp.postSend(send(p, 1, 0));
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.b, held ? 90 : 91, WcStatus.SUCCESS);
            assertEquals(7, p.b.buf.getLong(0));
        }
    }
}
