package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/**
 * The handshake every TCP connection starts with (version, identity, fabric; TLS in
 * {@link TcpTlsTest}) and the node's answer to bad input: the offending connection closes, with a counter, and nothing
 * else is disturbed.
 */
class TcpHandshakeTest {

    @Test
    void shouldRefuseANodeOfAnotherFabric() {
        try (Fabric fa = Fabric.builder().name("one").threaded().build();
                Fabric fb = Fabric.builder().name("two").threaded().build()) {
            TcpNode a = TcpNode.start(fa, TcpConfig.builder("a").build());
            TcpNode b = TcpNode.start(fb, TcpConfig.builder("b").build());
            BlockingQueue<TcpEvent> events = new LinkedBlockingQueue<>();
            b.addListener(events::add);
            a.device().sendMad(b.gid(), Device.GSI_QPN, new byte[Device.MAD_SIZE]);
            TcpEvent e = TcpPair.nextEvent(events, TcpEvent.Type.REFUSED);
            assertNotNull(e);
            assertTrue(e.detail().startsWith("WRONG_FABRIC"), e.detail());
            assertEquals(1, b.counter(TcpCounter.REFUSED_WRONG_FABRIC));
            assertEquals(0, b.device().counters().get(Counter.PACKETS_RECEIVED));
        }
    }

    // ------------------------------------------------------------------ raw peers

    private static TcpNode node(Fabric f, Duration handshakeTimeout) {
        return TcpNode.start(
                f, TcpConfig.builder("n").handshakeTimeout(handshakeTimeout).build());
    }

    private static Fabric fabric() {
        return Fabric.builder().name(TcpPair.FABRIC).threaded().build();
    }

    private static int type(byte[] frame) {
        return frame[0] & 0xFF;
    }

    @Test
    void shouldRefuseWithAReasonWhenThePeerSpeaksAnotherVersion() {
        try (Fabric f = fabric();
                RawPeer raw = new RawPeer(node(f, Duration.ofSeconds(10)))) {
            TcpNode n = f.serviceIfPresent(TcpNode.class);
            raw.send(Frames.frame(PacketCodec.TYPE_HELLO, 0x53, 0x49, 0x4D, 0x52, 0, Handshake.VERSION + 1));
            List<byte[]> frames = raw.readUntilClosed();
            assertEquals(2, frames.size(), "the node's HELLO, then its REFUSE");
            assertEquals(PacketCodec.TYPE_HELLO, type(frames.get(0)));
            assertEquals(PacketCodec.TYPE_REFUSE, type(frames.get(1)));
            assertEquals(HandshakeFailure.BAD_VERSION.code(), frames.get(1)[1]);
            assertEquals(1, n.counter(TcpCounter.REFUSED_BAD_VERSION));
        }
    }

    @Test
    void shouldRefuseWhenTheHandshakeDoesNotCompleteInTime() {
        try (Fabric f = fabric();
                RawPeer raw = new RawPeer(node(f, Duration.ofMillis(200)))) {
            TcpNode n = f.serviceIfPresent(TcpNode.class);
            List<byte[]> frames = raw.readUntilClosed();
            assertEquals(PacketCodec.TYPE_REFUSE, type(frames.get(frames.size() - 1)));
            assertEquals(HandshakeFailure.TIMEOUT.code(), frames.get(frames.size() - 1)[1]);
            assertEquals(1, n.counter(TcpCounter.REFUSED_TIMEOUT));
        }
    }

    @Test
    void shouldRefuseAPeerClaimingTheNodesOwnGid() {
        try (Fabric f = fabric();
                RawPeer raw = new RawPeer(node(f, Duration.ofSeconds(10)))) {
            TcpNode n = f.serviceIfPresent(TcpNode.class);
            raw.send(Handshake.encode(Frames.hello(TcpPair.FABRIC, n.gid(), false), ByteBufAllocator.DEFAULT));
            List<byte[]> frames = raw.readUntilClosed();
            assertEquals(HandshakeFailure.WRONG_PEER.code(), frames.get(frames.size() - 1)[1]);
            assertEquals(1, n.counter(TcpCounter.REFUSED_WRONG_PEER));
        }
    }

    @Test
    void shouldCloseOnlyThatConnectionWhenAPeerSendsGarbage() {
        try (TcpPair p = new TcpPair(true)) {
            RcEnd[] ends = p.connect(TcpNodeTest.PORT);
            try (RawPeer raw = new RawPeer(p.b)) {
                raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                raw.readUntilClosed();
            }
            assertEquals(
                    1, p.b.counter(TcpCounter.CLOSED_TOO_LONG_FRAME), "'GET ' read as a length is over the maximum");
            RcEnd.fill(ends[0].buf, 0, 3000, 9);
            ends[0].postSend(1, 0, 3000);
            TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, ends[0].next());
            TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RECV, ends[1].next());
            assertEquals(-1, RcEnd.mismatch(ends[1].buf, 0, 3000, 9), "the other connection is undisturbed");
            assertEquals(0, p.b.counter(TcpCounter.CONNECTIONS_LOST));
        }
    }

    @Test
    void shouldCloseTheConnectionWhenAPacketComesBeforeTheHandshake() {
        try (Fabric f = fabric();
                RawPeer raw = new RawPeer(node(f, Duration.ofSeconds(10)))) {
            TcpNode n = f.serviceIfPresent(TcpNode.class);
            raw.packet(raw.gid, n, Device.GSI_QPN);
            raw.readUntilClosed();
            assertEquals(1, n.counter(TcpCounter.CLOSED_UNEXPECTED_FRAME));
            assertEquals(0, n.device().counters().get(Counter.PACKETS_RECEIVED));
        }
    }

    @Test
    void shouldCloseTheConnectionWhenAPacketCarriesAnotherNodesGid() {
        try (Fabric f = fabric();
                RawPeer raw = new RawPeer(node(f, Duration.ofSeconds(10)))) {
            TcpNode n = f.serviceIfPresent(TcpNode.class);
            raw.hello(TcpPair.FABRIC);
            raw.packet(Frames.SRC, n, Device.GSI_QPN);
            raw.readUntilClosed();
            assertEquals(1, n.counter(TcpCounter.CLOSED_WRONG_ADDRESS));
        }
    }

    @Test
    void shouldCloseTheConnectionForAQpNeverAllocatedButOnlyDropAPacketForADestroyedOne() {
        try (Fabric f = fabric();
                RawPeer raw = new RawPeer(node(f, Duration.ofSeconds(10)))) {
            TcpNode n = f.serviceIfPresent(TcpNode.class);
            CompletionQueue cq = n.device().createCq(16);
            QueuePair qp = n.device().allocPd().createQp(QpInitAttr.rc(cq, cq).caps(QpCaps.defaults()));
            int destroyed = qp.qpNum();
            qp.destroy();
            raw.hello(TcpPair.FABRIC);
            raw.packet(raw.gid, n, destroyed); // a late packet: dropped by the device
            raw.packet(raw.gid, n, 0x777777); // garbage: the connection closes
            raw.readUntilClosed();
            assertEquals(1, n.counter(TcpCounter.CLOSED_UNKNOWN_QP));
            assertEquals(
                    1,
                    n.device().counters().get(Counter.DROPPED_PACKETS),
                    "the destroyed QP's packet was only dropped");
            assertEquals(1, n.counter(TcpCounter.HANDSHAKES_COMPLETED));
        }
    }
}
