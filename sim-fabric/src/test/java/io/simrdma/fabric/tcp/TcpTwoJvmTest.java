package io.simrdma.fabric.tcp;

import static io.simrdma.fabric.tcp.TcpPeerMain.ATOMIC_ADD;
import static io.simrdma.fabric.tcp.TcpPeerMain.ATOMIC_OFF;
import static io.simrdma.fabric.tcp.TcpPeerMain.ATOMIC_START;
import static io.simrdma.fabric.tcp.TcpPeerMain.ATOMIC_SWAP;
import static io.simrdma.fabric.tcp.TcpPeerMain.SEND_LEN;
import static io.simrdma.fabric.tcp.TcpPeerMain.SEND_SEED;
import static io.simrdma.fabric.tcp.TcpPeerMain.WRITE_LEN;
import static io.simrdma.fabric.tcp.TcpPeerMain.WRITE_OFF;
import static io.simrdma.fabric.tcp.TcpPeerMain.WRITE_SEED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.RdmaCm;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A TCP node in this JVM and one in a second JVM ({@link TcpPeerMain}, forked with this JVM's
 * java and class path), connected through the connection manager over loopback.
 */
class TcpTwoJvmTest {

    private static final long START_SECONDS = 60;

    private static Fabric fabric() {
        return Fabric.builder().name(TcpPair.FABRIC).threaded().seed(5).build();
    }

    /** Connects to the child's listener; returns this side's end, ESTABLISHED, with the child's buffer known. */
    private static RcEnd connect(RdmaCm cm, CmEventChannel ch, ChildJvm child) {
        RcEnd end = TcpPair.activeEnd(cm, ch, child.address, TcpPeerMain.PORT);
        end.id.connect(ConnParam.withPrivateData(end.keyData()));
        CmEvent est = ch.getEvent(RcEnd.WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(est, "no ESTABLISHED; child stderr:\n" + child.stderr());
        assertEquals(CmEventType.ESTABLISHED, est.type(), est + "; child stderr:\n" + child.stderr());
        end.peer(est.privateData());
        est.ack();
        return end;
    }

    /** The child's part of the exchange: SEND, READ it back, WRITE, READ it back, FETCH_ADD, CMP_SWAP. */
    private static void exchange(RcEnd a) {
        RcEnd.fill(a.buf, 0, SEND_LEN, SEND_SEED);
        a.postSend(1, 0, SEND_LEN);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, a.next());
        a.postRead(2, 32_768, 0, SEND_LEN);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_READ, a.next());
        assertEquals(
                -1,
                RcEnd.mismatch(a.buf, 32_768, SEND_LEN, SEND_SEED),
                "the SEND landed in the child's receive buffer");

        RcEnd.fill(a.buf, 0, WRITE_LEN, WRITE_SEED);
        a.postWrite(3, 0, WRITE_OFF, WRITE_LEN);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, a.next());
        a.buf.put(32_768, (byte) 0).put(32_768 + WRITE_LEN - 1, (byte) 0);
        a.postRead(4, 32_768, WRITE_OFF, WRITE_LEN);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_READ, a.next());
        assertEquals(-1, RcEnd.mismatch(a.buf, 32_768, WRITE_LEN, WRITE_SEED), "READ returns what WRITE put there");

        a.postFetchAdd(5, 50_000, ATOMIC_OFF, ATOMIC_ADD);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.FETCH_ADD, a.next());
        assertEquals(ATOMIC_START, a.buf.getLong(50_000));
        a.postCmpSwap(6, 50_008, ATOMIC_OFF, ATOMIC_START + ATOMIC_ADD, ATOMIC_SWAP);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.COMP_SWAP, a.next());
        assertEquals(ATOMIC_START + ATOMIC_ADD, a.buf.getLong(50_008), "CMP_SWAP matched the added value");
    }

    @DisplayName(
            "SEND/RECV, RDMA WRITE, READ and atomics with a node in a second JVM; rdma_disconnect(3); the child exits 0")
    @Test
    void shouldRunEveryOperationAgainstASecondJvmAndDisconnectCleanly() {
        try (ChildJvm child = ChildJvm.start(START_SECONDS);
                Fabric f = fabric()) {
            TcpNode node = TcpNode.start(f, TcpConfig.builder("parent").build());
            RdmaCm cm = RdmaCm.of(f, TcpPeerMain.CM);
            CmEventChannel ch = cm.createEventChannel();
            RcEnd a = connect(cm, ch, child);
            exchange(a);
            a.id.disconnect();
            TcpPair.expect(ch, CmEventType.DISCONNECTED);
            assertEquals(0, child.awaitExit(START_SECONDS), "the child checked its memory; stderr:\n" + child.stderr());
            assertEquals("OK", child.awaitLine("OK", 1));
            assertEquals(2, node.counter(TcpCounter.HANDSHAKES_COMPLETED), "plain nodes: one connection each way");
        }
    }

    @DisplayName(
            "the peer JVM dies mid-transfer: outstanding WRs fail (RETRY_EXC_ERR, then WR_FLUSH_ERR), the CM reports"
                    + " DISCONNECTED, and a fresh peer can be reached afterwards")
    @Test
    void shouldFailOutstandingWorkAndDisconnectWhenThePeerJvmIsKilled() {
        try (Fabric f = fabric()) {
            TcpNode node = TcpNode.start(f, TcpConfig.builder("survivor").build());
            RdmaCm cm = RdmaCm.of(f, TcpPeerMain.CM);
            CmEventChannel ch = cm.createEventChannel();
            RcEnd a;
            int posted = 0;
            try (ChildJvm child = ChildJvm.start(START_SECONDS)) {
                a = connect(cm, ch, child);
                for (int i = 0; i < 100; i++) {
                    a.postWrite(i, (i % 4) * 16_384, (i % 4) * 16_384, 16_384);
                    posted++;
                }
                child.kill();
            }
            // posted after the peer is gone: certainly outstanding when the retries run out
            a.postWrite(999, 0, 0, 4096);
            posted++;
            List<WorkCompletion> done = new ArrayList<>();
            for (int i = 0; i < posted; i++) {
                WorkCompletion wc = a.next();
                assertNotNull(wc, "completion " + i + " of " + posted + " missing");
                done.add(wc);
            }
            int firstError = 0;
            while (done.get(firstError).status() == WcStatus.SUCCESS) {
                firstError++;
            }
            assertEquals(
                    WcStatus.RETRY_EXC_ERR,
                    done.get(firstError).status(),
                    "the oldest outstanding WR exhausts its retries");
            for (int i = firstError + 1; i < posted; i++) {
                assertEquals(
                        WcStatus.WR_FLUSH_ERR,
                        done.get(i).status(),
                        "then the QP in ERR flushes the rest: " + done.get(i));
            }
            for (int i = 0; i < posted; i++) {
                assertEquals(i < 100 ? i : 999, done.get(i).wrId(), "completions in post order");
            }
            // the CM turns the failed QP into a DREQ whose retries time out (IBA 12.9.6)
            long waitNanos = (TcpPeerMain.CM.maxCmRetries() + 2) * TcpPeerMain.CM.responseTimeoutNanos()
                    + TimeUnit.SECONDS.toNanos(5);
            CmEvent e = ch.getEvent(waitNanos, TimeUnit.NANOSECONDS);
            assertNotNull(e, "no DISCONNECTED within the CM timeout");
            assertEquals(CmEventType.DISCONNECTED, e.type(), e.toString());
            e.ack();
            assertTrue(
                    node.counter(TcpCounter.CONNECTIONS_LOST) >= 1,
                    node.counters().toString());
            a.id.destroyEp();

            try (ChildJvm fresh = ChildJvm.start(START_SECONDS)) {
                RcEnd b = connect(cm, ch, fresh);
                exchange(b);
                b.id.disconnect();
                TcpPair.expect(ch, CmEventType.DISCONNECTED);
                assertEquals(0, fresh.awaitExit(START_SECONDS), "stderr:\n" + fresh.stderr());
            }
        }
    }
}
