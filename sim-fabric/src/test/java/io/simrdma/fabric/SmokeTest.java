package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SmokeTest {

    private static RcPair pair(String mode) {
        return mode.equals("det") ? RcPair.deterministic(1) : RcPair.threaded();
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    void shouldSendAndReceiveWhenConnectedLikePingpong(String mode) {
        try (RcPair p = pair(mode).connect()) {
            RcPair.fill(p.a.buf, 0, 3000, 7);
            p.b.qp.postRecv(new RecvWr().wrId(9).sge(p.b.mr, 100, 4000));
            p.a.qp.postSend(new SendWr()
                    .wrId(5)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 3000)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = p.b.poll();
            assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
            assertEquals(9, r.wrId());
            assertEquals(3000, r.byteLen());
            WorkCompletion s = p.a.poll();
            assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 100, 3000);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"det", "threaded"})
    void shouldWriteReadAndAtomic(String mode) {
        try (RcPair p = pair(mode).connect()) {
            RcPair.fill(p.a.buf, 0, 10000, 3);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 10000)
                    .remote(p.b.addr(5000), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            WorkCompletion w = p.a.poll();
            assertEquals(WcStatus.SUCCESS, w.status(), w.toString());
            RcPair.assertBytes(p.a.buf, 0, p.b.buf, 5000, 10000);

            RcPair.fill(p.b.buf, 30000, 7000, 4);
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 20000, 7000)
                    .remote(p.b.addr(30000), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            WorkCompletion r = p.a.poll();
            assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
            assertEquals(WcOpcode.RDMA_READ, r.opcode());
            RcPair.assertBytes(p.b.buf, 30000, p.a.buf, 20000, 7000);

            p.b.buf.putLong(800, 40);
            p.a.qp.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(p.a.mr, 64, 8)
                    .remote(p.b.addr(800), p.b.mr.rkey())
                    .atomic(2, 0)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion f = p.a.poll();
            assertEquals(WcStatus.SUCCESS, f.status(), f.toString());
            assertEquals(40, p.a.buf.getLong(64));
            assertEquals(42, p.b.buf.getLong(800));

            p.a.qp.postSend(new SendWr()
                    .wrId(4)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(p.a.mr, 72, 8)
                    .remote(p.b.addr(800), p.b.mr.rkey())
                    .atomic(42, 99)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion c = p.a.poll();
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
            assertEquals(42, p.a.buf.getLong(72));
            assertEquals(99, p.b.buf.getLong(800));
        }
    }
}
