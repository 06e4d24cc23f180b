package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.cm.CmConfig;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.RejectReason;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two TCP nodes in one JVM (two threaded fabrics) connected through the connection manager over
 * loopback; every test runs on the native epoll transport and on NIO.
 */
class TcpNodeTest {

    static final int PORT = 7471;

    @DisplayName("SEND/RECV, RDMA WRITE and READ, both atomics over TCP, then rdma_disconnect(3)")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldCarryEveryOperationWhenTwoNodesConnectThroughTheCm(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            assertTrue(p.a.link(p.b.gid()).isConnected(), "one connection carries the CM traffic");

            // SEND of 3 MTU-sized packets and a bit, into B's posted receive (ibv_post_send(3))
            RcEnd.fill(a.buf, 0, 12_345, 1);
            a.postSend(10, 0, 12_345);
            assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, a.next());
            WorkCompletion recv = b.next();
            assertStatus(WcStatus.SUCCESS, WcOpcode.RECV, recv);
            assertEquals(12_345, recv.byteLen());
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, 12_345, 1), "SEND payload landed in B's buffer");

            // RDMA WRITE into B's memory, then READ it back into another part of A's buffer
            RcEnd.fill(a.buf, 16_384, 9_000, 2);
            a.postWrite(11, 16_384, 20_000, 9_000);
            assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, a.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 20_000, 9_000, 2), "WRITE landed in B's buffer");
            RcEnd.fill(b.buf, 40_000, 7_000, 3);
            a.postRead(12, 32_768, 40_000, 7_000);
            assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_READ, a.next());
            assertEquals(-1, RcEnd.mismatch(a.buf, 32_768, 7_000, 3), "READ brought B's bytes");

            // atomics on B's 8 bytes at 60000 (the buffer's byte order is the atomic operand order)
            b.buf.order(ByteOrder.BIG_ENDIAN).putLong(60_000, 1000L);
            a.postFetchAdd(13, 50_000, 60_000, 5);
            assertStatus(WcStatus.SUCCESS, WcOpcode.FETCH_ADD, a.next());
            assertEquals(1000L, a.buf.getLong(50_000), "FETCH_ADD returns the original value");
            assertEquals(1005L, b.buf.getLong(60_000));
            a.postCmpSwap(14, 50_008, 60_000, 1005L, 77L);
            assertStatus(WcStatus.SUCCESS, WcOpcode.COMP_SWAP, a.next());
            assertEquals(1005L, a.buf.getLong(50_008), "CMP_SWAP returns the original value");
            assertEquals(77L, b.buf.getLong(60_000), "CMP_SWAP swapped on a match");

            a.id.disconnect();
            TcpPair.expect(p.chA, CmEventType.DISCONNECTED);
            TcpPair.expect(p.chB, CmEventType.DISCONNECTED);
            assertTrue(p.a.counter(TcpCounter.HANDSHAKES_COMPLETED) >= 1);
            Link.LinkStats out = p.a.link(p.b.gid()).stats();
            assertEquals(out.sent(), out.delivered(), "no packet lost without faults: " + out);
            assertEquals(0, p.a.counter(TcpCounter.CONNECTIONS_LOST));
            assertEquals(0, p.b.counter(TcpCounter.CONNECTIONS_LOST));
        }
    }

    @DisplayName("rdma_connect(3): REJECTED (invalid service ID) when the node is up but nobody listens on the port")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldBeRejectedWhenNobodyListensOnThePort(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            p.listen(PORT);
            RcEnd a = p.activeEnd(p.b.address(), 9999);
            a.id.connect(null);
            CmEvent e = TcpPair.expect(p.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_SERVICE_ID, e.rejectReason());
        }
    }

    @DisplayName("rdma_connect(3): UNREACHABLE after (retries + 1) CM timeouts when nothing listens at the address")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldEndUnreachableWhenNothingListensAtTheAddress(boolean nativeTransport) {
        CmConfig cm = TcpPair.CM.withResponseTimeout(12, 2);
        try (TcpPair p = new TcpPair(nativeTransport, cm, c -> c, c -> c)) {
            String nowhere = "127.0.0.1:" + TcpPair.closedPort();
            RcEnd a = p.activeEnd(nowhere, PORT);
            long t0 = p.fa.now();
            a.id.connect(null);
            CmEvent e = TcpPair.expect(p.chA, CmEventType.UNREACHABLE);
            assertTrue(
                    e.timeNanos() - t0 >= (cm.maxCmRetries() + 1) * cm.responseTimeoutNanos(),
                    "UNREACHABLE only after every CM retry timed out");
            assertTrue(p.a.counter(TcpCounter.CONNECT_FAILURES) >= 1);
            TcpLink l = p.a.link(nowhere);
            assertTrue(l.stats().dropped() >= 1, "the REQs were lost: " + l.stats());
            assertEquals(0, l.stats().delivered());
            assertTrue(!l.isConnected());
        }
    }

    @DisplayName(
            "a closed connection is a link down: in-flight packets are retried and the connection reopens on next use")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldReconnectOnNextUseWhenTheConnectionWasClosed(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            TcpLink link = p.a.link(p.b.gid());
            link.disconnect();
            assertNotNull(TcpPair.nextEvent(p.eventsA, TcpEvent.Type.DISCONNECTED));
            assertNotNull(TcpPair.nextEvent(p.eventsB, TcpEvent.Type.DISCONNECTED));
            assertTrue(!link.isConnected());

            RcEnd.fill(a.buf, 0, 4000, 21);
            a.postSend(1, 0, 4000);
            assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, a.next());
            assertStatus(WcStatus.SUCCESS, WcOpcode.RECV, b.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, 4000, 21));
            assertTrue(link.isConnected());
            assertEquals(2, p.a.counter(TcpCounter.CONNECTS_STARTED), "reopened by the next packet");
            assertEquals(4, p.b.counter(TcpCounter.HANDSHAKES_COMPLETED), "plain nodes: A's connection and B's, twice");

            // closed again with writes in flight: lost packets are retransmitted over a new connection
            for (int i = 0; i < 8; i++) {
                RcEnd.fill(a.buf, 8192 + i * 4096, 4096, 100 + i);
                a.postWrite(10 + i, 8192 + i * 4096, 8192 + i * 4096, 4096);
            }
            link.disconnect();
            for (int i = 0; i < 8; i++) {
                WorkCompletion wc = a.next();
                assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, wc);
                assertEquals(10 + i, wc.wrId());
            }
            for (int i = 0; i < 8; i++) {
                assertEquals(-1, RcEnd.mismatch(b.buf, 8192 + i * 4096, 4096, 100 + i), "write " + i);
            }
        }
    }

    @DisplayName("fault rules on a TCP link (drop, duplicate, delay, corrupt) are recovered by the RC engine")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldRecoverWhenFaultRulesDropDuplicateDelayAndCorruptPackets(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            TcpLink link = p.a.link(p.b.gid());
            link.addFault(FaultRule.drop(PacketMatcher.requests(), 1.0).times(3))
                    .addFault(FaultRule.duplicate(PacketMatcher.any(), 1.0).times(4))
                    .addFault(FaultRule.delay(PacketMatcher.requests(), 1.0, 2_000_000)
                            .times(2));
            writeAndVerify(a, b, 0);
            Link.LinkStats s = link.stats();
            assertEquals(3, s.dropped(), s.toString());
            assertEquals(4, s.duplicated(), s.toString());
            assertEquals(2, s.delayed(), s.toString());
            assertTrue(
                    p.a.device().counters().get(Counter.RETRANSMITTED_PACKETS) >= 3,
                    "lost requests were retransmitted");
            assertTrue(
                    p.b.device().counters().get(Counter.DUPLICATE_REQUESTS) >= 1,
                    "duplicates answered, not re-executed");

            link.clearFaults()
                    .addFault(FaultRule.corrupt(PacketMatcher.requests(), 1.0).times(2));
            long invalidBefore = p.b.device().counters().get(Counter.INVALID_PACKETS);
            writeAndVerify(a, b, 100);
            assertEquals(2, link.stats().corrupted());
            assertEquals(
                    2,
                    p.b.device().counters().get(Counter.INVALID_PACKETS)
                            - invalidBefore
                            + p.b.counter(TcpCounter.CORRUPT_PACKETS_DROPPED),
                    "corrupted packets dropped by the receiving port");
            assertEquals(
                    0,
                    p.b.counter(TcpCounter.CONNECTIONS_LOST) + p.a.counter(TcpCounter.CONNECTIONS_LOST),
                    "faults never close the connection");
            assertEquals(
                    2,
                    p.a.counter(TcpCounter.HANDSHAKES_COMPLETED),
                    "plain nodes: one connection each way, never reopened");
        }
    }

    @DisplayName("setUp(false), downAt/upAt: packets are lost both ways while the link is down; RC retries recover")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldLoseTrafficWhileTheLinkIsDownAndRecoverWhenItComesUp(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd a = ends[0];
            RcEnd b = ends[1];
            // "out" or "in" (seen by A's or B's side) and the drop reason, for every packet lost
            BlockingQueue<String> drops = new LinkedBlockingQueue<>();
            TraceListener tracer = new TraceListener() {
                @Override
                public void onPacket(
                        PacketEvent ev, DropReason reason, long time, Device from, Device to, Packet packet) {
                    if (ev == PacketEvent.DROPPED) {
                        drops.add((from != null ? "out:" : "in:") + reason);
                    }
                }
            };
            p.fa.addTraceListener(tracer);
            p.fb.addTraceListener(tracer);

            // outbound: A's side down
            TcpLink out = p.a.link(p.b.gid());
            out.setUp(false);
            RcEnd.fill(a.buf, 0, 1000, 31);
            a.postWrite(1, 0, 0, 1000);
            assertTrue(awaitDrop(drops, "out:LINK_DOWN"), "traced as lost on a down link");
            out.setUp(true);
            assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, a.next());
            assertEquals(-1, RcEnd.mismatch(b.buf, 0, 1000, 31));
            assertTrue(out.stats().dropped() >= 1);

            // inbound: B drops what arrives from A while its side is down
            TcpLink in = p.b.link(p.a.gid());
            in.setUp(false);
            a.postWrite(2, 0, 2000, 1000);
            assertTrue(awaitDrop(drops, "in:LINK_DOWN"), "traced as lost on arrival");
            in.setUp(true);
            assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, a.next());
            assertTrue(in.inboundStats().dropped() >= 1, in.inboundStats().toString());

            // at a time on the fabric's clock
            long now = p.fa.now();
            out.downAt(now).upAt(now + 150_000_000L);
            assertNotNull(TcpPair.nextEvent(p.eventsA, TcpEvent.Type.LINK_DOWN));
            long droppedBefore = out.stats().dropped();
            a.postWrite(3, 0, 4000, 1000);
            assertNotNull(TcpPair.nextEvent(p.eventsA, TcpEvent.Type.LINK_UP));
            assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, a.next());
            assertTrue(out.stats().dropped() > droppedBefore, "lost while down: " + out.stats());
            assertTrue(p.a.device().counters().get(Counter.RETRANSMITTED_PACKETS) >= 2);
            assertTrue(out.isConnected(), "administrative down keeps the connection");
        }
    }

    /** Waits for a drop described as {@code what} ("out:LINK_DOWN", "in:LINK_DOWN"). */
    private static boolean awaitDrop(BlockingQueue<String> drops, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RcEnd.WAIT_SECONDS);
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String d = left > 0 ? drops.poll(left, TimeUnit.NANOSECONDS) : null;
                if (d == null) {
                    return false;
                }
                if (d.equals(what)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @DisplayName("TLS nodes connect at once: both keep the connection opened by the lower GID and close the other")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldKeepOneConnectionWhenBothNodesConnectAtOnce(boolean nativeTransport) throws Exception {
        try (TcpPair p = new TcpPair(
                nativeTransport,
                TcpPair.CM,
                TcpTlsTest.tls(TestPki.FABRIC, "a"),
                TcpTlsTest.tls(TestPki.FABRIC, "b"))) {
            BlockingQueue<TcpEvent> events = new LinkedBlockingQueue<>();
            p.a.addListener(events::add);
            p.b.addListener(events::add);
            // Hold both event loops until each has a packet for the other queued: both then dial.
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(2);
            for (TcpNode n : List.of(p.a, p.b)) {
                n.eventLoop().execute(() -> {
                    held.countDown();
                    try {
                        gate.await(RcEnd.WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertTrue(held.await(RcEnd.WAIT_SECONDS, TimeUnit.SECONDS));
            p.a.device().sendMad(p.b.gid(), Device.GSI_QPN, new byte[Device.MAD_SIZE]);
            p.b.device().sendMad(p.a.gid(), Device.GSI_QPN, new byte[Device.MAD_SIZE]);
            gate.countDown();

            TcpLink ab = p.a.link(p.b.gid());
            TcpLink ba = p.b.link(p.a.gid());
            assertTrue(
                    TcpPair.await(
                            () -> ab.isConnected()
                                    && ba.isConnected()
                                    && open(p.a) == 1
                                    && open(p.b) == 1
                                    && sameConnection(ab, ba),
                            events,
                            RcEnd.WAIT_SECONDS),
                    "one connection left, the same at both ends");
            assertEquals(1, p.a.counter(TcpCounter.CONNECTS_STARTED));
            assertEquals(1, p.b.counter(TcpCounter.CONNECTS_STARTED));
            assertTrue(p.a.counter(TcpCounter.DUPLICATE_CONNECTIONS_CLOSED)
                            + p.b.counter(TcpCounter.DUPLICATE_CONNECTIONS_CLOSED)
                    >= 1);
            boolean aLower = TcpNode.compare(p.a.gid(), p.b.gid()) < 0;
            assertEquals(aLower, ab.activeConnection().isOutbound(), "the lower GID's connection is kept");

            RcEnd[] ends = p.connect(PORT);
            RcEnd.fill(ends[0].buf, 0, 100, 5);
            ends[0].postSend(1, 0, 100);
            assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, ends[0].next());
            assertEquals(1, open(p.a));
        }
    }

    @DisplayName(
            "plain nodes: each sends over the connection it dialled (a peer's claim on an accepted one proves nothing)")
    @ParameterizedTest(name = "native transport: {0}")
    @ValueSource(booleans = {true, false})
    void shouldSendOverTheConnectionItDialledWhenNodesArePlain(boolean nativeTransport) {
        try (TcpPair p = new TcpPair(nativeTransport)) {
            RcEnd[] ends = p.connect(PORT);
            RcEnd.fill(ends[0].buf, 0, 100, 5);
            ends[0].postSend(1, 0, 100);
            assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, ends[0].next());
            TcpLink ab = p.a.link(p.b.gid());
            TcpLink ba = p.b.link(p.a.gid());
            assertTrue(
                    ab.activeConnection().isOutbound() && ba.activeConnection().isOutbound(),
                    "each node's packets go over the connection it dialled");
            assertEquals(2, open(p.a), "one connection each way");
            assertEquals(1, p.a.counter(TcpCounter.CONNECTS_STARTED));
            assertEquals(1, p.b.counter(TcpCounter.CONNECTS_STARTED));
            assertEquals(
                    0,
                    p.a.counter(TcpCounter.DUPLICATE_CONNECTIONS_CLOSED)
                            + p.b.counter(TcpCounter.DUPLICATE_CONNECTIONS_CLOSED));
        }
    }

    private static int open(TcpNode n) {
        try {
            return n.eventLoop().submit(n::openConnections).get(RcEnd.WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static boolean sameConnection(TcpLink ab, TcpLink ba) {
        Connection x = ab.activeConnection();
        Connection y = ba.activeConnection();
        return x != null
                && y != null
                && x.channel().localAddress().equals(y.channel().remoteAddress())
                && x.channel().remoteAddress().equals(y.channel().localAddress());
    }

    /** Four 4 KiB RDMA WRITEs from {@code a} into {@code b}, completed in order and verified. */
    private static void writeAndVerify(RcEnd a, RcEnd b, long seed) {
        for (int i = 0; i < 4; i++) {
            RcEnd.fill(a.buf, i * 8192, 4096, seed + i);
            a.postWrite(seed + i, i * 8192, 32_768 + i * 4096, 4096);
        }
        for (int i = 0; i < 4; i++) {
            WorkCompletion wc = a.next();
            assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, wc);
            assertEquals(seed + i, wc.wrId(), "completions in order");
        }
        for (int i = 0; i < 4; i++) {
            assertEquals(-1, RcEnd.mismatch(b.buf, 32_768 + i * 4096, 4096, seed + i), "write " + i);
        }
    }

    static void assertStatus(WcStatus status, WcOpcode opcode, WorkCompletion wc) {
        assertNotNull(wc, "no completion within " + RcEnd.WAIT_SECONDS + " s");
        assertEquals(status, wc.status(), wc.toString());
        if (status == WcStatus.SUCCESS) {
            assertEquals(opcode, wc.opcode(), wc.toString());
        }
    }
}
