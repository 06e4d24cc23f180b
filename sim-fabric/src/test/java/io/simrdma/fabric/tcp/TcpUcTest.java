package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * UC over a TCP link: the UC opcodes (First/Middle/Last, RETH on the first WRITE packet,
 * immediate data on the last) cross the packet codec between two nodes, connected out of band
 * with {@link RcConnect} as ibv_uc_pingpong would.
 */
class TcpUcTest {

    private static WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        assertTrue(cq.awaitCompletions(1, TcpPair.WAIT_SECONDS, TimeUnit.SECONDS), "no completion on " + cq);
        assertEquals(1, cq.poll(wc, 1));
        return wc[0];
    }

    @Test
    @DisplayName(
            "IBA 9.8.3 over TCP: a three-packet UC SEND and a three-packet UC RDMA WRITE with immediate arrive whole at a QP of another node")
    void shouldCarryUcMessagesWhenNodesAreOverTcp() {
        try (TcpPair p = new TcpPair(false)) {
            Device da = p.a.device();
            Device db = p.b.device();
            ProtectionDomain pa = da.allocPd();
            ProtectionDomain pb = db.allocPd();
            CompletionQueue ca = da.createCq(16);
            CompletionQueue cb = db.createCq(16);
            ByteBuffer src = ByteBuffer.allocate(8192);
            ByteBuffer dst = ByteBuffer.allocate(8192);
            EnumSet<AccessFlag> rw = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
            MemoryRegion ms = pa.registerMemory(src, rw);
            MemoryRegion md = pb.registerMemory(dst, rw);
            QueuePair qa = pa.createQp(QpInitAttr.uc(ca, ca));
            QueuePair qb = pb.createQp(QpInitAttr.uc(cb, cb));
            RcConnect.connect(qa, 0x100, RcConnect.Endpoint.of(qb, 0x200), RcConnect.Options.defaults());
            RcConnect.connect(qb, 0x200, RcConnect.Endpoint.of(qa, 0x100), RcConnect.Options.defaults());
            for (int i = 0; i < 3000; i++) {
                src.put(i, (byte) (i * 31 + 7));
            }
            qb.postRecv(new RecvWr().wrId(1).sge(md, 0, 4096));
            qa.postSend(
                    new SendWr().wrId(10).opcode(WrOpcode.SEND).sge(ms, 0, 3000).flag(SendFlag.SIGNALED));
            assertEquals(WcStatus.SUCCESS, pollOne(ca).status());
            WorkCompletion r = pollOne(cb);
            assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
            assertEquals(3000, r.byteLen());
            byte[] want = new byte[3000];
            byte[] got = new byte[3000];
            src.get(0, want);
            dst.get(0, got);
            assertArrayEquals(want, got, "SEND");

            qb.postRecv(new RecvWr().wrId(2).sge(md, 0, 0));
            qa.postSend(new SendWr()
                    .wrId(11)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(0xABC)
                    .sge(ms, 0, 3000)
                    .remote(md.address() + 4096, md.rkey())
                    .flag(SendFlag.SIGNALED));
            assertEquals(WcStatus.SUCCESS, pollOne(ca).status());
            WorkCompletion w = pollOne(cb);
            assertEquals(WcStatus.SUCCESS, w.status(), w.toString());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, w.opcode());
            assertEquals(0xABC, w.immData());
            dst.get(4096, got);
            assertArrayEquals(want, got, "RDMA WRITE");
            qa.destroy();
            qb.destroy();
            ms.deregister();
            md.deregister();
            ca.destroy();
            cb.destroy();
            pa.dealloc();
            pb.dealloc();
        }
    }
}
