package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The hot path allocates nothing per packet in steady state (the engine issue's rule). Counted, not
 * timed: the driving thread runs the whole deterministic engine, so its allocated-bytes counter
 * covers every packet, ACK and completion.
 */
class HotPathAllocationTest {

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private static void run(RcPair p, SendWr wr, RecvWr rwr, WorkCompletion[] wc, int rounds, boolean send) {
        for (int i = 0; i < rounds; i++) {
            if (send) {
                p.b.qp.postRecv(rwr);
            }
            p.a.qp.postSend(wr);
            assertTrue(p.a.cq.awaitCompletions(1, 5, TimeUnit.SECONDS));
            assertEquals(1, p.a.cq.poll(wc, 1));
            assertEquals(WcStatus.SUCCESS, wc[0].status());
            if (send) {
                assertTrue(p.b.cq.awaitCompletions(1, 5, TimeUnit.SECONDS));
                assertEquals(1, p.b.cq.poll(wc, 1));
                assertEquals(WcStatus.SUCCESS, wc[0].status());
            }
        }
    }

    private static void assertNoPerPacketAllocation(WrOpcode op) {
        assertNoPerPacketAllocation(op, true);
    }

    /** With {@code offload} off every packet travels alone (Link.segmentationOffload), so the per-packet path is measured. */
    private static void assertNoPerPacketAllocation(WrOpcode op, boolean offload) {
        try (RcPair p = RcPair.deterministic(3).connect()) {
            p.link().segmentationOffload(offload);
            int len = 16 * 1024; // 16 packets at MTU 1024
            boolean send = op == WrOpcode.SEND;
            SendWr wr = new SendWr().wrId(7).opcode(op).sge(p.a.mr, 0, len).flag(SendFlag.SIGNALED);
            if (!send) {
                wr.remote(p.b.addr(0), p.b.mr.rkey());
            }
            RecvWr rwr = new RecvWr().wrId(8).sge(p.b.mr, 0, len);
            WorkCompletion[] wc = WorkCompletion.array(1);
            run(p, wr, rwr, wc, 2_000, send); // warm-up: pools fill, code is compiled
            int rounds = 2_000;
            long before = allocatedBytes();
            run(p, wr, rwr, wc, rounds, send);
            long perPacket = (allocatedBytes() - before)
                    / (rounds * 17L); // 16 data packets + 1 ACK (or 16 responses + 1 request)
            assertTrue(perPacket < 8, op + ": " + perPacket + " bytes allocated per packet in steady state");
        }
    }

    @Test
    void shouldNotAllocatePerPacketWhenSendingInSteadyState() {
        assertNoPerPacketAllocation(WrOpcode.SEND);
    }

    @Test
    void shouldNotAllocatePerPacketWhenWritingInSteadyState() {
        assertNoPerPacketAllocation(WrOpcode.RDMA_WRITE);
    }

    @Test
    void shouldNotAllocatePerPacketWhenReadingInSteadyState() {
        assertNoPerPacketAllocation(WrOpcode.RDMA_READ);
    }

    @Test
    void shouldNotAllocatePerPacketWhenSendingPacketByPacket() {
        assertNoPerPacketAllocation(WrOpcode.SEND, false);
    }

    @Test
    void shouldNotAllocatePerPacketWhenWritingPacketByPacket() {
        assertNoPerPacketAllocation(WrOpcode.RDMA_WRITE, false);
    }

    @Test
    void shouldNotAllocatePerPacketWhenReadingPacketByPacket() {
        assertNoPerPacketAllocation(WrOpcode.RDMA_READ, false);
    }

    /**
     * Sends {@code rounds} messages from qa to qb, each received and both completions polled. The
     * engine runs until idle after each post (nothing waits with a deadline: a UC or UD send
     * completes before its packet is delivered, so the round has no single completion to wait for).
     */
    private static void runUnreliable(
            Fabric f,
            QueuePair qa,
            CompletionQueue ca,
            QueuePair qb,
            CompletionQueue cb,
            SendWr wr,
            RecvWr rwr,
            WorkCompletion[] wc,
            int rounds) {
        for (int i = 0; i < rounds; i++) {
            qb.postRecv(rwr);
            qa.postSend(wr);
            f.deterministicScheduler().runUntilIdle();
            assertEquals(1, cb.poll(wc, 1));
            assertEquals(WcStatus.SUCCESS, wc[0].status());
            assertEquals(1, ca.poll(wc, 1));
            assertEquals(WcStatus.SUCCESS, wc[0].status());
        }
    }

    @Test
    void shouldNotAllocatePerPacketWhenSendingUdDatagramsInSteadyState() {
        try (UdQueuePairTest.UdPair p = new UdQueuePairTest.UdPair(Fabric.deterministic(5), DeviceProfile.IBTA)) {
            SendWr wr = p.datagram(1, 1024, UdQueuePairTest.QKEY);
            RecvWr rwr = new RecvWr().wrId(2).sge(p.mb, 0, 1024 + AddressHandle.GRH_LENGTH);
            WorkCompletion[] wc = WorkCompletion.array(1);
            runUnreliable(p.fabric, p.qa, p.ca, p.qb, p.cb, wr, rwr, wc, 5_000);
            int rounds = 5_000;
            long before = allocatedBytes();
            runUnreliable(p.fabric, p.qa, p.ca, p.qb, p.cb, wr, rwr, wc, rounds);
            long perPacket = (allocatedBytes() - before) / rounds;
            assertTrue(perPacket < 8, "UD: " + perPacket + " bytes allocated per datagram in steady state");
        }
    }

    @Test
    void shouldNotAllocatePerPacketWhenSendingUcMessagesInSteadyState() {
        try (UcQueuePairTest.UcPair p = new UcQueuePairTest.UcPair(Fabric.deterministic(6))) {
            int len = 16 * 1024; // 16 packets at MTU 1024
            SendWr wr =
                    new SendWr().wrId(1).opcode(WrOpcode.SEND).sge(p.ma, 0, len).flag(SendFlag.SIGNALED);
            RecvWr rwr = new RecvWr().wrId(2).sge(p.mb, 0, len);
            WorkCompletion[] wc = WorkCompletion.array(1);
            runUnreliable(p.fabric, p.qa, p.ca, p.qb, p.cb, wr, rwr, wc, 2_000);
            int rounds = 2_000;
            long before = allocatedBytes();
            runUnreliable(p.fabric, p.qa, p.ca, p.qb, p.cb, wr, rwr, wc, rounds);
            long perPacket = (allocatedBytes() - before) / (rounds * 16L);
            assertTrue(perPacket < 8, "UC: " + perPacket + " bytes allocated per packet in steady state");
        }
    }
}
