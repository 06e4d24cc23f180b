package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.WAIT_MS;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static io.simrdma.fabric.ControlPlaneFixture.nextEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Completion queues (ibv_poll_cq(3), ibv_resize_cq(3)): polling in batches into reusable
 * completions, resizing with completions waiting, and overrun.
 */
class CqTest {

    /** a and b connected; a's CQ holds {@code cqe} entries. */
    private static QueuePair[] pair(Fabric f, int cqe) {
        Device ad = f.createDevice("a");
        Node a = new Node(ad, ad.createCq(cqe));
        Node b = Node.of(f, "b");
        QueuePair qa = a.qp();
        QueuePair qb = b.qp();
        connect(qa, qb);
        return new QueuePair[] {qa, qb};
    }

    /** Posts {@code n} signaled 8-byte RDMA WRITEs with wrIds from {@code firstId} on, as one list. */
    private static void writes(QueuePair qa, QueuePair qb, MemoryRegion src, MemoryRegion dst, long firstId, int n) {
        SendWr head = null;
        for (int i = n - 1; i >= 0; i--) {
            SendWr w = new SendWr()
                    .wrId(firstId + i)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(src, 8L * i, 8)
                    .remote(dst.address() + 8L * i, dst.rkey())
                    .flag(SendFlag.SIGNALED);
            head = w.next(head);
        }
        qa.postSend(head);
    }

    private static MemoryRegion mrOf(QueuePair qp) {
        return qp.pd().registerMemory(java.nio.ByteBuffer.allocate(4096), ControlPlaneFixture.ALL);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_poll_cq(3): polls at most num_entries, oldest first, into the same WorkCompletion objects each time")
    void shouldPollInBatchesIntoReusableArrayWhenManyCompletionsWait(Mode mode) {
        try (Fabric f = mode.fabric()) {
            QueuePair[] q = pair(f, 16);
            QueuePair qa = q[0];
            CompletionQueue cq = qa.sendCq();
            writes(qa, q[1], mrOf(qa), mrOf(q[1]), 100, 10);
            assertTrue(cq.awaitCompletions(10, WAIT_MS, TimeUnit.MILLISECONDS));
            assertEquals(10, cq.size());

            WorkCompletion[] wcs = WorkCompletion.array(4);
            WorkCompletion first = wcs[0];
            long expected = 100;
            int[] batches = new int[4];
            for (int round = 0; round < 4; round++) {
                int n = cq.poll(wcs);
                batches[round] = n;
                for (int i = 0; i < n; i++) {
                    WorkCompletion wc = wcs[i];
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(expected++, wc.wrId());
                    assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
                    assertEquals(8, wc.byteLen());
                    assertEquals(qa.qpNum(), wc.qpNum());
                    assertEquals(q[1].qpNum(), wc.srcQp());
                }
            }
            assertEquals(4, batches[0]);
            assertEquals(4, batches[1]);
            assertEquals(2, batches[2]);
            assertEquals(0, batches[3]);
            assertSame(first, wcs[0], "the array's completions are reused, never replaced");
            assertEquals(0, cq.size());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_poll_cq(3): num_entries smaller than the array limits the batch")
    void shouldPollNoMoreThanMaxWhenMaxSmallerThanArray(Mode mode) {
        try (Fabric f = mode.fabric()) {
            QueuePair[] q = pair(f, 16);
            CompletionQueue cq = q[0].sendCq();
            writes(q[0], q[1], mrOf(q[0]), mrOf(q[1]), 1, 3);
            assertTrue(cq.awaitCompletions(3, WAIT_MS, TimeUnit.MILLISECONDS));
            WorkCompletion[] wcs = WorkCompletion.array(8);
            assertEquals(1, cq.poll(wcs, 1));
            assertEquals(1, wcs[0].wrId());
            assertEquals(0, cq.poll(wcs, 0));
            assertEquals(2, cq.poll(wcs, 8));
            assertEquals(2, wcs[0].wrId());
            assertEquals(3, wcs[1].wrId());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_resize_cq(3): a resize keeps waiting completions in order, also when they wrapped around the ring")
    void shouldKeepCompletionsWhenResized(Mode mode) {
        try (Fabric f = mode.fabric()) {
            QueuePair[] q = pair(f, 4);
            QueuePair qa = q[0];
            CompletionQueue cq = qa.sendCq();
            MemoryRegion src = mrOf(qa);
            MemoryRegion dst = mrOf(q[1]);
            WorkCompletion[] wcs = WorkCompletion.array(8);
            writes(qa, q[1], src, dst, 1, 3);
            assertTrue(cq.awaitCompletions(3, WAIT_MS, TimeUnit.MILLISECONDS));
            assertEquals(2, cq.poll(wcs, 2));
            // One left at ring index 2; three more wrap around the end of the 4-entry ring.
            writes(qa, q[1], src, dst, 4, 3);
            assertTrue(cq.awaitCompletions(4, WAIT_MS, TimeUnit.MILLISECONDS));
            assertEquals(4, cq.size());

            cq.resize(10);
            assertEquals(10, cq.capacity());
            assertEquals(4, cq.size());
            // The resized CQ takes more than the old one could.
            writes(qa, q[1], src, dst, 7, 5);
            assertTrue(cq.awaitCompletions(9, WAIT_MS, TimeUnit.MILLISECONDS));
            assertFalse(cq.isInError());
            assertEquals(8, cq.poll(wcs));
            for (int i = 0; i < 8; i++) {
                assertEquals(3 + i, wcs[i].wrId(), "completion " + i);
            }
            assertEquals(1, cq.poll(wcs));
            assertEquals(11, wcs[0].wrId());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_resize_cq(3): cqe must be at least the number of unpolled entries (EINVAL, nothing changes)")
    void shouldRefuseShrinkWhenCompletionsWouldNotFit(Mode mode) {
        try (Fabric f = mode.fabric()) {
            QueuePair[] q = pair(f, 8);
            CompletionQueue cq = q[0].sendCq();
            writes(q[0], q[1], mrOf(q[0]), mrOf(q[1]), 1, 5);
            assertTrue(cq.awaitCompletions(5, WAIT_MS, TimeUnit.MILLISECONDS));
            assertErrno(Errno.EINVAL, () -> cq.resize(4));
            assertEquals(8, cq.capacity());
            assertEquals(5, cq.size());
            cq.resize(5);
            assertEquals(5, cq.capacity());
            WorkCompletion[] wcs = WorkCompletion.array(8);
            assertEquals(5, cq.poll(wcs));
            assertEquals(1, wcs[0].wrId());
            assertEquals(5, wcs[4].wrId());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_poll_cq(3) / ibv_get_async_event(3): an overrun CQ raises CQ_ERR, every poll fails (EIO), the QP moves to ERR")
    void shouldRaiseCqErrAndFailPollsWhenCqOverruns(Mode mode) {
        try (Fabric f = mode.fabric()) {
            QueuePair[] q = pair(f, 2);
            QueuePair qa = q[0];
            CompletionQueue cq = qa.sendCq();
            writes(qa, q[1], mrOf(qa), mrOf(q[1]), 1, 3);
            AsyncEvent e = nextEvent(qa.device());
            assertEquals(AsyncEventType.CQ_ERR, e.type(), e.toString());
            assertSame(cq, e.cq());
            assertEquals(null, e.qp());
            qa.device().ackAsyncEvent(e);
            assertTrue(cq.isInError());
            assertErrno(Errno.EIO, () -> cq.poll(WorkCompletion.array(4)));
            assertErrno(Errno.EIO, () -> cq.poll(WorkCompletion.array(4)));
            assertFalse(cq.awaitCompletions(1, 10, TimeUnit.MILLISECONDS), "an overrun CQ reports no completions");
            assertEquals(QpState.ERR, qa.query().state());
            assertEquals(QpState.ERR, qa.state());
        }
    }
}
