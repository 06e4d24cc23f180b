package io.simrdma.junit.example;

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
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.junit.FabricMatrix;
import io.simrdma.junit.Faults;
import io.simrdma.junit.Node;
import io.simrdma.junit.ScriptedFault;
import io.simrdma.junit.SimFabricTest;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/** The README's example ("Testing your RDMA application"), kept compiling and passing here. */
@SimFabricTest // a fresh fabric per test, devices "a" and "b", all checks on
class RdmaWriteTest {

    @FabricMatrix // deterministic, threaded and TCP loopback
    void shouldWriteIntoPeerWhenFirstAckIsLost(@Node("a") Device a, @Node("b") Device b, Faults faults) {
        ScriptedFault lostAck = faults.add("drop 1st ACK b->a");

        ProtectionDomain pdA = a.allocPd();
        ProtectionDomain pdB = b.allocPd();
        CompletionQueue cqA = a.createCq(16);
        CompletionQueue cqB = b.createCq(16);
        ByteBuffer src = ByteBuffer.allocateDirect(4096);
        ByteBuffer dst = ByteBuffer.allocateDirect(4096);
        MemoryRegion mrA = pdA.registerMemory(src, EnumSet.of(AccessFlag.LOCAL_WRITE));
        MemoryRegion mrB = pdB.registerMemory(dst, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
        QueuePair qpA = pdA.createQp(QpInitAttr.rc(cqA, cqA));
        QueuePair qpB = pdB.createQp(QpInitAttr.rc(cqB, cqB));
        RcConnect.connect(qpA, qpB);

        for (int i = 0; i < 4096; i++) {
            src.put(i, (byte) i);
        }
        qpA.postSend(new SendWr()
                .wrId(1)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(mrA, 0, 4096)
                .remote(mrB.address(), mrB.rkey())
                .flag(SendFlag.SIGNALED));
        // src is the NIC's until the completion: writing into it here would fail the test
        assertTrue(cqA.awaitCompletions(1, 5, TimeUnit.SECONDS), "the WRITE completes");
        WorkCompletion[] wc = WorkCompletion.array(1);
        cqA.poll(wc);
        assertEquals(WcStatus.SUCCESS, wc[0].status());
        assertEquals(src, dst, "b's memory holds a's bytes");
        lostAck.awaitFired(1, TimeUnit.SECONDS);

        // free everything: a leaked QP, MR, CQ or PD fails the test, naming the line that created it
        qpA.destroy();
        qpB.destroy();
        mrA.deregister();
        mrB.deregister();
        cqA.destroy();
        cqB.destroy();
        pdA.dealloc();
        pdB.dealloc();
    }
}
