package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.wire.Gid;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a node holds is bounded: connections and handshakes are capped, a frame that stops
 * arriving and a connection that idles are closed, and links to peers that are gone are removed.
 */
class TcpBoundsTest {

    private static final class Node implements AutoCloseable {
        final Fabric fabric = Fabric.builder().name(TcpPair.FABRIC).threaded().build();
        final TcpNode node;
        final BlockingQueue<TcpEvent> events = new LinkedBlockingQueue<>();

        Node(UnaryOperator<TcpConfig.Builder> config) {
            try {
                node = TcpNode.start(
                        fabric, config.apply(TcpConfig.builder("n")).build());
            } catch (RuntimeException e) {
                fabric.close();
                throw e;
            }
            node.addListener(events::add);
        }

        boolean await(java.util.function.BooleanSupplier condition) {
            return TcpPair.await(condition, events, TcpPair.WAIT_SECONDS);
        }

        @Override
        public void close() {
            fabric.close();
        }
    }

    @DisplayName(
            "a peer that sends 65,005 bytes of a frame of the maximum length and then nothing is closed after the frame timeout")
    @Test
    void shouldCloseConnectionsWhoseFrameStopsArriving() {
        try (Node n = new Node(c -> c.frameTimeout(Duration.ofMillis(200)).handshakeTimeout(Duration.ofSeconds(30)))) {
            int max = n.node.config().maxFrameLength();
            List<RawPeer> peers = new ArrayList<>();
            try {
                for (int i = 0; i < 5; i++) {
                    RawPeer raw = new RawPeer(n.node);
                    peers.add(raw);
                    raw.hello(TcpPair.FABRIC);
                    assertEquals(PacketCodec.TYPE_HELLO, raw.readFrame()[0], "the node's HELLO");
                    byte[] part = ByteBuffer.allocate(4 + 65_005)
                            .putInt(max)
                            .put((byte) PacketCodec.TYPE_PACKET)
                            .array();
                    raw.send(part);
                }
                for (RawPeer raw : peers) {
                    assertNull(raw.readFrame(), "the node closed the connection without another frame");
                }
            } finally {
                peers.forEach(RawPeer::close);
            }
            assertEquals(
                    5,
                    n.node.counter(TcpCounter.CLOSED_FRAME_TIMEOUT),
                    n.node.counters().toString());
            assertTrue(n.await(() -> n.node.connectionCount() == 0), "every stalled connection is gone");
        }
    }

    @DisplayName(
            "connections beyond maxHandshakes that have not completed their handshake are closed as they are accepted")
    @Test
    void shouldCloseConnectionsBeyondTheHandshakeCap() {
        try (Node n = new Node(c -> c.maxHandshakes(2).handshakeTimeout(Duration.ofSeconds(30)));
                RawPeer first = RawPeer.idle(n.node);
                RawPeer second = RawPeer.idle(n.node)) {
            assertEquals(PacketCodec.TYPE_HELLO, first.readFrame()[0]);
            assertEquals(PacketCodec.TYPE_HELLO, second.readFrame()[0]);
            try (RawPeer third = RawPeer.idle(n.node)) {
                assertNull(third.readFrame(), "closed at once, before any HELLO");
            }
            assertEquals(1, n.node.counter(TcpCounter.REFUSED_TOO_MANY_HANDSHAKES));
            first.hello(TcpPair.FABRIC); // completes: one handshake in progress left
            assertTrue(n.await(() -> n.node.counter(TcpCounter.HANDSHAKES_COMPLETED) == 1));
            try (RawPeer fourth = RawPeer.idle(n.node)) {
                assertEquals(PacketCodec.TYPE_HELLO, fourth.readFrame()[0], "admitted again under the cap");
            }
            assertEquals(1, n.node.counter(TcpCounter.REFUSED_TOO_MANY_HANDSHAKES));
        }
    }

    @DisplayName("connections beyond maxConnections are closed as they are accepted")
    @Test
    void shouldCloseConnectionsBeyondTheConnectionCap() {
        try (Node n = new Node(c -> c.maxConnections(2));
                RawPeer first = RawPeer.idle(n.node);
                RawPeer second = RawPeer.idle(n.node)) {
            first.hello(TcpPair.FABRIC);
            assertEquals(PacketCodec.TYPE_HELLO, first.readFrame()[0]);
            second.send(Handshake.encode(
                    Frames.hello(TcpPair.FABRIC, TcpNode.gidOf(new InetSocketAddress("127.0.0.1", 9)), false),
                    ByteBufAllocator.DEFAULT));
            assertEquals(PacketCodec.TYPE_HELLO, second.readFrame()[0]);
            assertTrue(n.await(() -> n.node.counter(TcpCounter.HANDSHAKES_COMPLETED) == 2));
            try (RawPeer third = RawPeer.idle(n.node)) {
                assertNull(third.readFrame(), "closed at once");
            }
            assertEquals(1, n.node.counter(TcpCounter.REFUSED_TOO_MANY_CONNECTIONS));
        }
    }

    @DisplayName("each distinct GID claimed in a HELLO leaves no link behind once its connection closed")
    @Test
    void shouldRemoveTheLinksOfPeersThatOnlyConnectedIn() {
        try (Node n = new Node(c -> c)) {
            int claims = 40;
            for (int i = 0; i < claims; i++) {
                Gid claimed = TcpNode.gidOf(new InetSocketAddress("127.0.0.1", 20_000 + i));
                try (RawPeer raw = RawPeer.idle(n.node)) {
                    raw.send(Handshake.encode(Frames.hello(TcpPair.FABRIC, claimed, false), ByteBufAllocator.DEFAULT));
                    assertEquals(PacketCodec.TYPE_HELLO, raw.readFrame()[0]);
                    int completed = i + 1;
                    assertTrue(n.await(() -> n.node.counter(TcpCounter.HANDSHAKES_COMPLETED) == completed));
                }
            }
            assertTrue(
                    n.await(() -> n.node.links().isEmpty() && n.node.counter(TcpCounter.LINKS_REMOVED) == claims),
                    n.node.links().size() + " links left, " + n.node.counter(TcpCounter.LINKS_REMOVED) + " removed");
        }
    }

    @DisplayName(
            "idle connections close after the idle timeout, the link to a vanished peer goes, and links reopen on demand")
    @Test
    void shouldCloseIdleConnectionsRemoveLinksToVanishedPeersAndReopenOnDemand() {
        UnaryOperator<TcpConfig.Builder> idle = c -> c.idleTimeout(Duration.ofMillis(500));
        try (TcpPair p = new TcpPair(true, TcpPair.CM, idle, idle)) {
            RcEnd[] ends = p.connect(TcpNodeTest.PORT);
            assertTrue(
                    TcpPair.await(
                            () -> p.a.counter(TcpCounter.CLOSED_IDLE) + p.b.counter(TcpCounter.CLOSED_IDLE) >= 1
                                    && !p.a.link(p.b.gid()).isConnected()
                                    && !p.b.link(p.a.gid()).isConnected(),
                            p.eventsA,
                            TcpPair.WAIT_SECONDS),
                    "the idle connections closed: " + p.a.counters());
            RcEnd.fill(ends[0].buf, 0, 3000, 17);
            ends[0].postSend(1, 0, 3000);
            TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, ends[0].next());
            TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RECV, ends[1].next());
            assertEquals(-1, RcEnd.mismatch(ends[1].buf, 0, 3000, 17), "the link reopened on demand");
        }
        // B's link to A, made by B's own traffic (not asked for by B's application), goes once A is gone
        try (TcpPair p = new TcpPair(true, TcpPair.CM, idle, idle)) {
            p.connect(TcpNodeTest.PORT);
            Gid a = p.a.gid();
            p.fa.close();
            TcpEvent removed = null;
            while (removed == null || !a.equals(removed.peer())) {
                removed = TcpPair.nextEvent(p.eventsB, TcpEvent.Type.LINK_REMOVED);
                assertNotNull(removed, "B removed its link to the vanished A: " + p.b.counters());
            }
            assertTrue(p.b.links().stream().noneMatch(l -> l.peer().equals(a)));
        }
    }

    @DisplayName("RateLimitedLog: the first line, then one per interval with the count of those left out")
    @Test
    void shouldAdmitOneLinePerIntervalAndCountTheRest() {
        long[] now = {1_000};
        RateLimitedLog log = new RateLimitedLog(10, () -> now[0]);
        assertTrue(log.admit());
        assertEquals("", log.suppressedSuffix());
        for (int i = 0; i < 16; i++) {
            now[0]++;
            if (now[0] - 1_000 < 10) {
                assertTrue(!log.admit(), "within the interval at " + now[0]);
            } else {
                assertTrue(log.admit(), "the interval passed at " + now[0]);
                assertEquals(9, log.suppressedBeforeLast());
                assertEquals(" (9 more like it since the last one, not logged)", log.suppressedSuffix());
                break;
            }
        }
        assertTrue(!log.admit());
    }
}
