package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.assertNoCompletion;
import static io.simrdma.fabric.ErrorPathSupport.await;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Flushing (IBA 10.3.1, ibv_modify_qp(3)): a QP moved to ERR completes every outstanding WR with
 * WR_FLUSH_ERR, the send queue and the receive queue each in post order, unsignaled sends
 * included; a QP moved to RESET discards its WRs without any completion.
 */
class FlushTest {

    private static final long[] SEND_IDS = {1, 2, 3, 4, 5, 6};
    private static final long[] RECV_IDS = {10, 11, 12, 13};

    /**
     * Posts receives and a mix of sends on a while the link is down and the ACK timeout is
     * infinite, so that every WR stays outstanding: some of them started (sent and lost), and in
     * deterministic mode with {@code start} false none of them started.
     */
    private static void postOutstanding(RcPair p, boolean start) {
        p.link().setUp(false);
        for (long id : RECV_IDS) {
            p.a.qp.postRecv(new RecvWr().wrId(id).sge(p.a.mr, id * 1024, 1024));
        }
        SendWr w1 =
                new SendWr().wrId(1).opcode(WrOpcode.SEND).sge(p.a.mr, 0, 100).flag(SendFlag.SIGNALED);
        SendWr w2 = new SendWr()
                .wrId(2)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(p.a.mr, 0, 5000)
                .remote(p.b.addr(0), p.b.mr.rkey()); // unsignaled, 5 packets
        SendWr w3 = new SendWr()
                .wrId(3)
                .opcode(WrOpcode.RDMA_READ)
                .sge(p.a.mr, 20_000, 3000)
                .remote(p.b.addr(0), p.b.mr.rkey())
                .flag(SendFlag.SIGNALED);
        SendWr w4 = new SendWr()
                .wrId(4)
                .opcode(WrOpcode.SEND_WITH_IMM)
                .sge(p.a.mr, 0, 10)
                .immData(7); // unsignaled
        SendWr w5 = new SendWr()
                .wrId(5)
                .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sge(p.a.mr, 30_000, 8)
                .remote(p.b.addr(64), p.b.mr.rkey())
                .atomic(1, 0); // unsignaled
        SendWr w6 = new SendWr()
                .wrId(6)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(p.a.mr, 0, 16)
                .remote(p.b.addr(0), p.b.mr.rkey())
                .flag(SendFlag.SIGNALED);
        p.a.qp.postSend(w1.next(w2.next(w3)));
        p.a.qp.postSend(w4.next(w5.next(w6)));
        if (start) {
            assertTrue(
                    await(p.fabric, () -> p.a.qp.counters().get(Counter.PACKETS_SENT) >= 10, 5_000),
                    "the requester sends (into the void): " + p.a.qp.counters());
        }
    }

    /** Polls all flush completions of a, checks each is WR_FLUSH_ERR, and returns the order per queue. */
    private static void assertAllFlushedInPostOrder(RcPair p) {
        List<Long> sends = new ArrayList<>();
        List<Long> recvs = new ArrayList<>();
        for (int i = 0; i < SEND_IDS.length + RECV_IDS.length; i++) {
            WorkCompletion wc = p.a.poll();
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc.toString());
            assertEquals(p.a.qp.qpNum(), wc.qpNum());
            (wc.wrId() >= 10 ? recvs : sends).add(wc.wrId());
        }
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), sends, "sends flushed in post order, unsignaled ones included");
        assertEquals(List.of(10L, 11L, 12L, 13L), recvs, "receives flushed in post order");
        assertNoCompletion(p.a, 20);
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "IBA 10.3.1: moving a QP with outstanding sends and receives to ERR flushes every WR, each queue in post order")
    void shouldFlushEveryOutstandingWrInPostOrderWhenMovedToErr(String mode) {
        try (RcPair p = pair(mode)) {
            p.timeout = 0; // no ACK timeout: the WRs stay outstanding until the modify
            p.connect();
            postOutstanding(p, true);
            assertEquals(0, p.a.cq.size());
            p.a.qp.modify(new QpAttr().state(QpState.ERR));
            assertEquals(QpState.ERR, p.a.qp.state());
            assertAllFlushedInPostOrder(p);
            assertEquals(
                    (long) SEND_IDS.length + RECV_IDS.length, p.a.qp.counters().get(Counter.COMPLETION_ERRORS));
            // ERR -> ERR flushes nothing more
            p.a.qp.modify(new QpAttr().state(QpState.ERR));
            assertNoCompletion(p.a, 20);
            assertEquals(QpState.RTS, p.b.qp.state(), "the peer is not told");
        }
    }

    @Test
    @DisplayName("IBA 10.3.1: WRs the requester never started are flushed just the same")
    void shouldFlushWrsThatWereNeverStarted() {
        try (RcPair p = pair(ErrorPathSupport.DET)) {
            p.timeout = 0;
            p.connect();
            postOutstanding(p, false); // the engine has not run: nothing was sent
            p.a.qp.modify(new QpAttr().state(QpState.ERR));
            assertAllFlushedInPostOrder(p);
            assertEquals(0, p.a.qp.counters().get(Counter.PACKETS_SENT));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    @DisplayName(
            "ibv_modify_qp(3) / IBA 10.3.1: moving to RESET discards all WRs without completions; the QP is reusable")
    void shouldDiscardWithoutCompletionsWhenMovedToReset(String mode) {
        try (RcPair p = pair(mode)) {
            p.timeout = 0;
            p.connect();
            postOutstanding(p, true);
            p.a.qp.modify(new QpAttr().state(QpState.RESET));
            assertEquals(QpState.RESET, p.a.qp.state());
            assertNoCompletion(p.a, 50);
            assertEquals(0, p.a.qp.counters().get(Counter.COMPLETIONS));

            // reconnect both ends: the discarded WRs never reappear and the queues are empty again
            p.b.qp.modify(new QpAttr().state(QpState.RESET));
            p.link().setUp(true);
            p.timeout = 14;
            p.connect();
            p.b.qp.postRecv(new RecvWr().wrId(200).sge(p.b.mr, 0, 1024));
            p.a.qp.postRecv(new RecvWr().wrId(300).sge(p.a.mr, 0, 1024));
            RcPair.fill(p.a.buf, 40_000, 64, 41);
            SendWr chain = null;
            for (int i = 128; i >= 1; i--) {
                // all 128 slots (max_send_wr) are free again: a SEND and 127 unsignaled WRITEs
                chain = new SendWr()
                        .wrId(1000 + i)
                        .opcode(i == 1 ? WrOpcode.SEND : WrOpcode.RDMA_WRITE)
                        .sge(p.a.mr, 40_000, 64)
                        .remote(p.b.addr(2048), p.b.mr.rkey())
                        .next(chain);
            }
            chain.flag(SendFlag.SIGNALED);
            p.a.qp.postSend(chain);
            expect(p.a, 1001, WcStatus.SUCCESS);
            expect(p.b, 200, WcStatus.SUCCESS);
            RcPair.assertBytes(p.a.buf, 40_000, p.b.buf, 0, 64); // the SEND's data
            // the unsignaled WRITEs follow the SEND: their data is in place once all of them are acknowledged
            assertTrue(await(p.fabric, () -> p.a.qp.sendQueueDepth() == 0, 5_000), "all 128 WRs retire");
            RcPair.assertBytes(p.a.buf, 40_000, p.b.buf, 2048, 64);
            assertNoCompletion(p.a, 20);
            p.b.qp.postSend(new SendWr()
                    .wrId(400)
                    .opcode(WrOpcode.SEND)
                    .sge(p.b.mr, 0, 16)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 300, WcStatus.SUCCESS); // the first receive a got after RESET, not one of the discarded
            expect(p.b, 400, WcStatus.SUCCESS);
        }
    }
}
