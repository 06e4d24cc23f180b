package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.await;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.expectEvent;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CQ overrun (ibv_poll_cq(3), ibv_get_async_event(3)) under the default device profile (ibta,
 * DeviceProfile.CqOverrun.ERROR): a completion that finds its CQ full raises IBV_EVENT_CQ_ERR, the
 * CQ cannot be used any more (poll fails with EIO) and the QP that produced the completion moves to
 * ERR. The other profiles' overrun is ProfileCqOverrunTest's.
 */
class ErrorCqOverrunTest {

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("ibv_poll_cq(3): a send CQ of 2 entries given a 3rd completion: CQ_ERR, poll throws EIO, QP in ERR")
    void shouldRaiseCqErrFailPollWithEioAndMoveQpToErrWhenSendCqOverruns(String mode) {
        try (RcPair p = pair(mode, QpCaps.defaults(), 2)) {
            p.connect();
            RcPair.fill(p.a.buf, 0, 64, 1);
            SendWr chain = null;
            for (int i = 3; i >= 1; i--) {
                chain = new SendWr()
                        .wrId(i)
                        .opcode(WrOpcode.RDMA_WRITE)
                        .sge(p.a.mr, 0, 64)
                        .remote(p.b.addr(i * 64L), p.b.mr.rkey())
                        .flag(SendFlag.SIGNALED)
                        .next(chain);
            }
            p.a.qp.postSend(chain);

            expectEvent(p.a.dev, AsyncEventType.CQ_ERR, p.a.cq);
            assertTrue(p.a.cq.isInError());
            VerbsException e = assertThrows(VerbsException.class, () -> p.a.cq.poll(WorkCompletion.array(4)));
            assertEquals(Errno.EIO, e.errno(), e.getMessage());
            assertFalse(p.a.cq.awaitCompletions(1, 10, TimeUnit.MILLISECONDS), "an overrun CQ reports no completions");
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            // the responder did its part: all three WRITEs landed and its QP is unaffected
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 192, 64);
            assertEquals(QpState.RTS, p.b.qp.state());
            // posting to the QP in ERR is accepted; its flush completion is lost like every later one
            p.a.qp.postSend(new SendWr()
                    .wrId(4)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            assertThrows(VerbsException.class, () -> p.a.cq.poll(WorkCompletion.array(1)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName("ibv_poll_cq(3): a receive CQ overrun raises CQ_ERR on the receiver and moves its QP to ERR")
    void shouldRaiseCqErrAndMoveQpToErrWhenReceiveCqOverruns(String mode) {
        try (RcPair p = pair(mode, QpCaps.defaults(), 2)) {
            p.timeout = 14; // 67 ms: the unacknowledged third SEND exhausts its one retry in 134 ms
            p.retryCnt = 1;
            p.connect();
            for (int i = 1; i <= 3; i++) {
                p.b.qp.postRecv(new RecvWr().wrId(100 + i).sge(p.b.mr, i * 1024L, 1024));
            }
            // one SEND at a time, so that the sender's CQ (also 2 entries) never overruns
            for (int i = 1; i <= 2; i++) {
                p.a.qp.postSend(new SendWr()
                        .wrId(i)
                        .opcode(WrOpcode.SEND)
                        .sge(p.a.mr, 0, 32)
                        .flag(SendFlag.SIGNALED));
                expect(p.a, i, WcStatus.SUCCESS);
            }
            p.a.qp.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 32)
                    .flag(SendFlag.SIGNALED));
            expectEvent(p.b.dev, AsyncEventType.CQ_ERR, p.b.cq);
            assertTrue(p.b.cq.isInError());
            assertEquals(
                    Errno.EIO,
                    assertThrows(VerbsException.class, () -> p.b.cq.poll(WorkCompletion.array(1)))
                            .errno());
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            // the receiver's QP died before acknowledging: the sender retries in vain
            expect(p.a, 3, WcStatus.RETRY_EXC_ERR);
            assertTrue(await(p.fabric, () -> p.a.qp.state() == QpState.ERR, 5_000));
        }
    }
}
