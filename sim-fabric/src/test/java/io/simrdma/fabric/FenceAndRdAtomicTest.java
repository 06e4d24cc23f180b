package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.assertSuccess;
import static io.simrdma.fabric.DataPathSupport.chain;
import static io.simrdma.fabric.DataPathSupport.expect;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.fabric.DataPathSupport.PacketLog;
import io.simrdma.fabric.DataPathSupport.PacketLog.Entry;
import io.simrdma.fabric.wire.Opcode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * IBV_SEND_FENCE (ibv_post_send(3); IBA 10.8.3.3: a fenced WR does not begin until every prior
 * RDMA READ and atomic on the send queue has completed) and the initiator depth max_rd_atomic
 * (ibv_modify_qp(3): the number of RDMA READs and atomics outstanding at once). Order is observed
 * through a trace listener: the packets a device sends and the responses delivered to it are
 * recorded on that device's own engine thread, so their order in the log is the order it saw.
 */
class FenceAndRdAtomicTest {

    private static final String SCHEDULERS = "io.simrdma.fabric.DataPathSupport#schedulers";

    private static boolean readOrAtomicRequest(Opcode op) {
        return op == Opcode.RC_RDMA_READ_REQUEST || op == Opcode.RC_CMP_SWAP || op == Opcode.RC_FETCH_ADD;
    }

    /** The response that ends a READ or an atomic. */
    private static boolean finalReadOrAtomicResponse(Opcode op) {
        return op == Opcode.RC_RDMA_READ_RESPONSE_LAST
                || op == Opcode.RC_RDMA_READ_RESPONSE_ONLY
                || op == Opcode.RC_ATOMIC_ACKNOWLEDGE;
    }

    private static int indexOf(List<Entry> log, Entry e) {
        for (int i = 0; i < log.size(); i++) {
            if (log.get(i).seq() == e.seq()) {
                return i;
            }
        }
        throw new AssertionError("entry " + e + " not in the log");
    }

    /** The first packet sent by device a with {@code opcode}. */
    private static Entry firstSentByA(PacketLog log, Opcode opcode) {
        List<Entry> l = log.sent("a", op -> op == opcode);
        assertTrue(!l.isEmpty(), () -> "no " + opcode + " sent by a: " + log.all());
        return l.get(0);
    }

    /** The first packet delivered to device a with {@code opcode}. */
    private static Entry firstDeliveredToA(PacketLog log, Opcode opcode) {
        List<Entry> l = log.delivered("a", op -> op == opcode);
        assertTrue(!l.isEmpty(), () -> "no " + opcode + " delivered to a: " + log.all());
        return l.get(0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "FENCE after an RDMA READ: the fenced WRITE's first packet leaves after the READ's last response arrived, and carries the read data")
    void shouldSendFencedWriteAfterReadResponseWhenFenceFollowsRead(String mode) {
        try (RcPair p = DataPathSupport.pair(mode).connect()) {
            PacketLog log = PacketLog.attach(p.fabric);
            fill(p.b.buf, 0, 8192, 31);
            fill(p.a.buf, 10_000, 8192, 32); // stale contents of the READ's target
            // READ 8 KiB of b into a[10000..), then a fenced WRITE of that same local range to b[30000..).
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 10_000, 8192)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.RDMA_WRITE)
                            .sge(p.a.mr, 10_000, 8192)
                            .remote(p.b.addr(30_000), p.b.mr.rkey())
                            .flag(SendFlag.FENCE)
                            .flag(SendFlag.SIGNALED)));
            expect(p.a.cq, 1, WcOpcode.RDMA_READ);
            expect(p.a.cq, 2, WcOpcode.RDMA_WRITE);

            List<Entry> all = log.all();
            Entry response = firstDeliveredToA(log, Opcode.RC_RDMA_READ_RESPONSE_LAST);
            Entry write = firstSentByA(log, Opcode.RC_RDMA_WRITE_FIRST);
            assertTrue(
                    indexOf(all, write) > indexOf(all, response),
                    () -> "fenced WRITE " + write + " was sent before the READ response " + response + " arrived");
            assertBytes("READ", p.b.buf, 0, p.a.buf, 10_000, 8192);
            assertBytes("fenced WRITE carries the data the READ fetched", p.b.buf, 0, p.b.buf, 30_000, 8192);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "FENCE after an atomic: the fenced SEND leaves after the atomic acknowledge arrived and carries the fetched value")
    void shouldSendFencedSendAfterAtomicResponseWhenFenceFollowsAtomic(String mode) {
        try (RcPair p = DataPathSupport.pair(mode).connect()) {
            PacketLog log = PacketLog.attach(p.fabric);
            p.b.buf.putLong(4000, 0x0A0B_0C0D_0E0F_1011L);
            p.a.buf.putLong(800, -1L);
            p.b.qp.postRecv(new RecvWr().wrId(7).sge(p.b.mr, 9000, 64));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(p.a.mr, 800, 8)
                    .remote(p.b.addr(4000), p.b.mr.rkey())
                    .atomic(1, 0)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.SEND)
                            .sge(p.a.mr, 800, 8)
                            .flag(SendFlag.FENCE)
                            .flag(SendFlag.SIGNALED)));
            expect(p.a.cq, 2, WcOpcode.SEND);
            WorkCompletion r = expect(p.b.cq, 7, WcOpcode.RECV);
            assertEquals(8, r.byteLen());

            List<Entry> all = log.all();
            Entry ack = firstDeliveredToA(log, Opcode.RC_ATOMIC_ACKNOWLEDGE);
            Entry send = firstSentByA(log, Opcode.RC_SEND_ONLY);
            assertTrue(
                    indexOf(all, send) > indexOf(all, ack),
                    () -> "fenced SEND " + send + " was sent before the atomic acknowledge " + ack + " arrived");
            assertEquals(0x0A0B_0C0D_0E0F_1011L, p.b.buf.getLong(9000), "the SEND carried the fetched value");
            assertEquals(0x0A0B_0C0D_0E0F_1012L, p.b.buf.getLong(4000));
            assertEngineHealthy(p.fabric);
        }
    }

    @Test
    @DisplayName(
            "Without FENCE (deterministic, 1 us links) the WRITE leaves before the READ response arrives: the fence tests above can fail")
    void shouldNotWaitForReadWhenNoFence() {
        try (RcPair p = DataPathSupport.pair(DataPathSupport.DETERMINISTIC).connect()) {
            PacketLog log = PacketLog.attach(p.fabric);
            fill(p.b.buf, 0, 8192, 33);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 10_000, 8192)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.RDMA_WRITE)
                            .sge(p.a.mr, 20_000, 8192)
                            .remote(p.b.addr(30_000), p.b.mr.rkey())
                            .flag(SendFlag.SIGNALED)));
            expect(p.a.cq, 1, WcOpcode.RDMA_READ);
            expect(p.a.cq, 2, WcOpcode.RDMA_WRITE);
            List<Entry> all = log.all();
            Entry response = firstDeliveredToA(log, Opcode.RC_RDMA_READ_RESPONSE_LAST);
            Entry write = firstSentByA(log, Opcode.RC_RDMA_WRITE_FIRST);
            assertTrue(indexOf(all, write) < indexOf(all, response), "an unfenced WRITE does not wait");
        }
    }

    @Test
    @DisplayName(
            "FENCE waits only for READs and atomics (deterministic): a fenced SEND after a SEND leaves before that SEND's ACK arrives")
    void shouldNotWaitForSendAcknowledgementWhenFencedAfterSend() {
        try (RcPair p = DataPathSupport.pair(DataPathSupport.DETERMINISTIC).connect()) {
            PacketLog log = PacketLog.attach(p.fabric);
            p.b.qp.postRecv(new RecvWr().wrId(1).sge(p.b.mr, 0, 4096));
            p.b.qp.postRecv(new RecvWr().wrId(2).sge(p.b.mr, 4096, 4096));
            fill(p.a.buf, 0, 200, 34);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 100)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.SEND)
                            .sge(p.a.mr, 100, 100)
                            .flag(SendFlag.FENCE)
                            .flag(SendFlag.SIGNALED)));
            expect(p.a.cq, 1, WcOpcode.SEND);
            expect(p.a.cq, 2, WcOpcode.SEND);
            expect(p.b.cq, 1, WcOpcode.RECV);
            expect(p.b.cq, 2, WcOpcode.RECV);
            List<Entry> all = log.all();
            List<Entry> sends = log.sent("a", op -> op == Opcode.RC_SEND_ONLY);
            assertEquals(2, sends.size());
            Entry firstAck =
                    log.delivered("a", op -> op == Opcode.RC_ACKNOWLEDGE).get(0);
            assertTrue(
                    indexOf(all, sends.get(1)) < indexOf(all, firstAck),
                    () -> "the fenced SEND waited for an acknowledgement: " + all);
            assertBytes("second SEND", p.a.buf, 100, p.b.buf, 4096, 100);
        }
    }

    static Stream<Arguments> depths() {
        return DataPathSupport.schedulersWith(1, 2, 4);
    }

    @ParameterizedTest(name = "{0} max_rd_atomic={1}")
    @MethodSource("depths")
    @DisplayName(
            "max_rd_atomic N: at most N READ/atomic requests are outstanding (trace), N are reached, and every result is right")
    void shouldLimitOutstandingReadsAndAtomicsWhenMaxRdAtomicIsSet(String mode, int depth) {
        try (RcPair p = DataPathSupport.pair(mode)) {
            p.maxRdAtomic = depth;
            p.connect();
            PacketLog log = PacketLog.attach(p.fabric);
            SplittableRandom rnd = new SplittableRandom(depth);
            int n = 16;
            fill(p.b.buf, 0, 32_768, 35);
            p.b.buf.putLong(40_000, 100);
            int[] sizes = new int[n];
            List<SendWr> wrs = new ArrayList<>(n);
            int adds = 0;
            for (int i = 0; i < n; i++) {
                SendWr wr = new SendWr().wrId(i).flag(SendFlag.SIGNALED);
                if (i % 4 == 3) {
                    wr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                            .sge(p.a.mr, 60_000 + 8L * i, 8)
                            .remote(p.b.addr(40_000), p.b.mr.rkey())
                            .atomic(1, 0);
                    adds++;
                } else {
                    sizes[i] = 1 + rnd.nextInt(2048);
                    wr.opcode(WrOpcode.RDMA_READ)
                            .sge(p.a.mr, 2048L * i, sizes[i])
                            .remote(p.b.addr(2048L * i), p.b.mr.rkey());
                }
                wrs.add(wr);
            }
            p.a.qp.postSend(chain(wrs));
            List<WorkCompletion> wcs = poll(p.a.cq, n);
            int fetched = 100;
            for (int i = 0; i < n; i++) {
                if (i % 4 == 3) {
                    assertSuccess(wcs.get(i), i, WcOpcode.FETCH_ADD);
                    assertEquals(fetched++, p.a.buf.getLong(60_000 + 8 * i), "FETCH_AND_ADD #" + i);
                } else {
                    assertSuccess(wcs.get(i), i, WcOpcode.RDMA_READ);
                    assertBytes("READ #" + i, p.b.buf, 2048 * i, p.a.buf, 2048 * i, sizes[i]);
                }
            }
            assertEquals(100 + adds, p.b.buf.getLong(40_000));

            int outstanding = 0;
            int max = 0;
            java.util.Set<Integer> answered = new java.util.HashSet<>();
            for (Entry e : log.all()) {
                if (e.event() == PacketEvent.SENT && "a".equals(e.from()) && readOrAtomicRequest(e.opcode())) {
                    outstanding++;
                    if (outstanding > depth) {
                        fail("request " + e + " made " + outstanding + " READs/atomics outstanding, max_rd_atomic is "
                                + depth + ": " + log.all());
                    }
                    max = Math.max(max, outstanding);
                } else if (e.event() == PacketEvent.DELIVERED
                        && "a".equals(e.to())
                        && finalReadOrAtomicResponse(e.opcode())
                        && answered.add(e.psn())) {
                    // (a response answered again after a real-time retry is counted once)
                    outstanding--;
                }
            }
            assertEquals(depth, max, "the requester uses its whole initiator depth");
            assertEquals(0, outstanding);
            log.assertCleanWhenDeterministic(p.fabric);
            assertEngineHealthy(p.fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "FENCE, repeated: 8 x (READ b->a, fenced WRITE of the same bytes a->b) in one post; every block arrives as read, never stale")
    void shouldCopyEveryBlockThroughLocalBufferWhenReadAndFencedWriteAlternate(String mode) {
        try (RcPair p = DataPathSupport.pair(mode).connect()) {
            int blocks = 8;
            int len = 3000;
            fill(p.b.buf, 0, blocks * len, 36);
            fill(p.a.buf, 30_000, blocks * len, 37); // stale staging contents
            List<SendWr> wrs = new ArrayList<>(2 * blocks);
            for (int i = 0; i < blocks; i++) {
                long stage = 30_000L + (long) i * len;
                SendWr read = new SendWr()
                        .wrId(2L * i)
                        .opcode(WrOpcode.RDMA_READ)
                        .sge(p.a.mr, stage, len)
                        .remote(p.b.addr((long) i * len), p.b.mr.rkey());
                SendWr write = new SendWr()
                        .wrId(2L * i + 1)
                        .opcode(WrOpcode.RDMA_WRITE)
                        .sge(p.a.mr, stage, len)
                        .remote(p.b.addr(32_768L + (long) i * len), p.b.mr.rkey())
                        .flag(SendFlag.FENCE)
                        .flag(SendFlag.SIGNALED);
                wrs.add(read);
                wrs.add(write);
            }
            p.a.qp.postSend(chain(wrs));
            List<WorkCompletion> wcs = poll(p.a.cq, blocks);
            for (int i = 0; i < blocks; i++) {
                assertSuccess(wcs.get(i), 2L * i + 1, WcOpcode.RDMA_WRITE);
                assertBytes("block " + i, p.b.buf, i * len, p.b.buf, 32_768 + i * len, len);
            }
            assertEngineHealthy(p.fabric);
        }
    }
}
