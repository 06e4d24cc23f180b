package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.assertNoEvent;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.expectEvent;
import static io.simrdma.fabric.ProfileSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Device profiles, a completion arriving at a full CQ (DeviceProfile CQ_OVERRUN): ERROR (IBA,
 * mlx5: the CQ is lost and the QP fails), LOSE_COMPLETION (rxe: the completion is dropped, the CQ
 * stays usable, only a receive loss fails the QP) and STALL (siw: the QP waits until room is
 * polled free, then every completion arrives in order). CQ_ERR is raised in every case.
 */
class ProfileCqOverrunTest {

    /** Posts {@code n} RDMA WRITEs of 64 bytes from a to b, wrIds first..first+n-1, signaled as asked. */
    private static void writes(RcPair p, int first, int n, boolean signaled) {
        SendWr chain = null;
        for (int i = first + n - 1; i >= first; i--) {
            SendWr w = new SendWr()
                    .wrId(i)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 64)
                    .remote(p.b.addr(i * 64L), p.b.mr.rkey())
                    .next(chain);
            chain = signaled ? w.flag(SendFlag.SIGNALED) : w;
        }
        p.a.qp.postSend(chain);
    }

    static Stream<Arguments> erroring() {
        return ProfileSupport.modesWith(DeviceProfile.IBTA, DeviceProfile.MLX5);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("erroring")
    @DisplayName(
            "CQ_OVERRUN = ERROR (IBA 11.6.3; mlx5): a 3rd completion for a send CQ of 2: CQ_ERR, polls fail with EIO, the QP enters ERR")
    void shouldPutCqAndQpInErrorWhenCqOverrunIsError(String mode, DeviceProfile profile) {
        try (RcPair p = pair(mode, profile, profile, 2).connect()) {
            writes(p, 1, 3, true);
            expectEvent(p.a.dev, AsyncEventType.CQ_ERR, p.a.cq);
            assertTrue(p.a.cq.isInError());
            VerbsException e = assertThrows(VerbsException.class, () -> p.a.cq.poll(WorkCompletion.array(4)));
            assertEquals(Errno.EIO, e.errno());
            awaitState(p.fabric, p.a.qp, QpState.ERR);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "CQ_OVERRUN = LOSE_COMPLETION (rxe_cq.c, rxe_comp.c): a send completion that finds the CQ full is lost; CQ_ERR; the CQ stays usable and the QP in RTS")
    void shouldLoseSendCompletionAndKeepGoingWhenCqOverrunLosesIt(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.RXE, DeviceProfile.RXE, 2).connect()) {
            writes(p, 1, 3, true);
            expectEvent(p.a.dev, AsyncEventType.CQ_ERR, p.a.cq);
            assertTrue(
                    ErrorPathSupport.await(p.fabric, () -> p.a.qp.sendQueueDepth() == 0, 5_000), "all three retired");
            assertFalse(p.a.cq.isInError(), "the CQ stays usable");
            WorkCompletion[] wc = WorkCompletion.array(4);
            assertEquals(2, p.a.cq.poll(wc, 4), "the third completion was lost");
            assertEquals(1, wc[0].wrId());
            assertEquals(2, wc[1].wrId());
            assertEquals(QpState.RTS, p.a.qp.query().state());
            writes(p, 4, 1, true);
            expect(p.a, 4, WcStatus.SUCCESS);
            assertNoEvent(p.a.dev);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "CQ_OVERRUN = LOSE_COMPLETION (rxe_resp.c, class G): a receive completion that finds the CQ full is lost and the receiver's QP enters ERR; the CQ stays usable")
    void shouldLoseReceiveCompletionAndFailQpWhenCqOverrunLosesIt(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.RXE, DeviceProfile.RXE, 2)) {
            p.retryCnt = 1;
            p.connect();
            for (int i = 1; i <= 3; i++) {
                p.b.qp.postRecv(new RecvWr().wrId(50 + i).sge(p.b.mr, 64L * i, 64));
            }
            // unsignaled SENDs: a's CQ holds only what fails
            for (int i = 1; i <= 3; i++) {
                p.a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sge(p.a.mr, 0, 8));
            }
            expectEvent(p.b.dev, AsyncEventType.CQ_ERR, p.b.cq);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            assertFalse(p.b.cq.isInError());
            WorkCompletion[] wc = WorkCompletion.array(4);
            assertEquals(2, p.b.cq.poll(wc, 4), "two receive completions, the third lost");
            assertEquals(51, wc[0].wrId());
            assertEquals(52, wc[1].wrId());
            expect(p.a, 3, WcStatus.RETRY_EXC_ERR);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "CQ_OVERRUN = STALL (siw_qp.c, modelled): a send CQ of 2 given 4 completions raises CQ_ERR once and stalls the QP; once polled, the rest arrive in order and the QP goes on")
    void shouldStallQpUntilRoomIsPolledWhenCqOverrunStalls(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.SIW, DeviceProfile.SIW, 2).connect()) {
            writes(p, 1, 4, true);
            expectEvent(p.a.dev, AsyncEventType.CQ_ERR, p.a.cq);
            assertTrue(p.a.cq.awaitCompletions(2, 5, TimeUnit.SECONDS));
            assertFalse(p.a.cq.awaitCompletions(3, 50, TimeUnit.MILLISECONDS), "the stalled QP adds nothing more");
            assertFalse(p.a.cq.isInError(), "the CQ stays usable");
            assertEquals(QpState.RTS, p.a.qp.state());
            WorkCompletion[] wc = WorkCompletion.array(4);
            assertEquals(2, p.a.cq.poll(wc, 4));
            assertEquals(1, wc[0].wrId());
            assertEquals(2, wc[1].wrId());
            expect(p.a, 3, WcStatus.SUCCESS);
            expect(p.a, 4, WcStatus.SUCCESS);
            writes(p, 5, 1, true);
            expect(p.a, 5, WcStatus.SUCCESS);
            assertNoEvent(p.a.dev);
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 5 * 64, 64);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.simrdma.fabric.ProfileSupport#modes")
    @DisplayName(
            "CQ_OVERRUN = STALL: a receiver whose CQ is full stops taking messages; the sender's next SEND waits (and is retried) until the receiver polls room free, then arrives")
    void shouldHoldIncomingMessagesWhileReceiverIsStalled(String mode) {
        try (RcPair p = pair(mode, DeviceProfile.SIW, DeviceProfile.SIW, 2).connect()) {
            for (int i = 1; i <= 4; i++) {
                p.b.qp.postRecv(new RecvWr().wrId(50 + i).sge(p.b.mr, 64L * i, 64));
            }
            for (int i = 1; i <= 3; i++) {
                p.a.buf.putLong(0, i);
                p.a.qp.postSend(new SendWr()
                        .wrId(i)
                        .opcode(WrOpcode.SEND)
                        .sge(p.a.mr, 0, 8)
                        .flag(SendFlag.INLINE));
            }
            expectEvent(p.b.dev, AsyncEventType.CQ_ERR, p.b.cq);
            assertTrue(p.b.cq.awaitCompletions(2, 5, TimeUnit.SECONDS));
            p.a.buf.putLong(0, 4);
            p.a.qp.postSend(new SendWr()
                    .wrId(4)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 8)
                    .flag(SendFlag.INLINE)
                    .flag(SendFlag.SIGNALED));
            assertFalse(
                    p.b.cq.awaitCompletions(3, 100, TimeUnit.MILLISECONDS), "the stalled receiver takes nothing more");
            WorkCompletion[] wc = WorkCompletion.array(2);
            assertEquals(2, p.b.cq.poll(wc, 2));
            assertEquals(51, wc[0].wrId());
            assertEquals(52, wc[1].wrId());
            expect(p.b, 53, WcStatus.SUCCESS);
            expect(p.b, 54, WcStatus.SUCCESS);
            expect(p.a, 4, WcStatus.SUCCESS);
            for (int i = 1; i <= 4; i++) {
                assertEquals(i, p.b.buf.getLong(64 * i), "message " + i);
            }
            assertEquals(QpState.RTS, p.b.qp.state());
        }
    }
}
