package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventType;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The attacks of issue 11 against two connected nodes: an impostor that claims a connected node's
 * GID, and a relay between the nodes. Each must fail: the impostor receives nothing meant for the
 * node it claims to be and the real pair keeps working; the relay can neither read nor alter what
 * crosses, nor get a connection accepted.
 */
class TcpImpostorTest {

    private static final int PORT = TcpNodeTest.PORT;

    /** A SEND from each side to the other, checked byte for byte. */
    private static void exchange(RcEnd a, RcEnd b, long seed) {
        b.postRecv(7, 0, 16 * 1024);
        RcEnd.fill(a.buf, 0, 6000, seed);
        a.postSend(1, 0, 6000);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, a.next());
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RECV, b.next());
        assertEquals(-1, RcEnd.mismatch(b.buf, 0, 6000, seed), "A's SEND reached B intact");
        a.postRecv(8, 8192, 16 * 1024);
        RcEnd.fill(b.buf, 32_768, 5000, seed + 1);
        b.postSend(2, 32_768, 5000);
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, b.next());
        TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RECV, a.next());
        assertEquals(-1, RcEnd.mismatch(a.buf, 8192, 5000, seed + 1), "B's SEND reached A intact");
    }

    @DisplayName(
            "plain nodes: a party claiming A's GID to B receives none of B's packets for A, and A and B keep working")
    @Test
    void shouldNotLetAnImpostorTakeOverAPlainLink() {
        try (TcpPair p = new TcpPair(true)) {
            RcEnd[] ends = p.connect(PORT);
            long handshakes = p.b.counter(TcpCounter.HANDSHAKES_COMPLETED);
            List<byte[]> toImpostor;
            try (RawPeer impostor = new RawPeer(p.b)) {
                impostor.send(
                        Handshake.encode(Frames.hello(TcpPair.FABRIC, p.a.gid(), false), ByteBufAllocator.DEFAULT));
                assertTrue(
                        TcpPair.await(
                                () -> p.b.counter(TcpCounter.HANDSHAKES_COMPLETED) > handshakes,
                                p.eventsB,
                                TcpPair.WAIT_SECONDS),
                        "B heard the impostor's HELLO");
                exchange(ends[0], ends[1], 40);
                exchange(ends[0], ends[1], 50);
                assertTrue(p.b.link(p.a.gid()).isConnected(), "B still sends to A over the connection it dialled");
                p.b.link(p.a.gid()).disconnect(); // closes every connection with "A", the impostor's too
                toImpostor = impostor.readUntilClosed();
            }
            assertEquals(1, toImpostor.size(), "the impostor received B's HELLO and nothing else");
            assertEquals(PacketCodec.TYPE_HELLO, toImpostor.get(0)[0] & 0xFF);
            exchange(ends[0], ends[1], 60);
        }
    }

    @DisplayName("TLS nodes: an impostor with a certificate of another CA claiming A's GID is refused before any frame")
    @Test
    void shouldRefuseATlsImpostorWithAStrangersCertificate() {
        try (TcpPair p = new TcpPair(
                true, TcpPair.CM, TcpTlsTest.tls(TestPki.FABRIC, "a"), TcpTlsTest.tls(TestPki.FABRIC, "b"))) {
            RcEnd[] ends = p.connect(PORT);
            TlsImpostor.Outcome o = TlsImpostor.claim(p.b, TestPki.STRANGER.node("mallory"), p.a.gid());
            assertNotNull(o.tlsFailure(), "B's TLS refused the stranger's certificate");
            assertFalse(
                    o.nodeShowedCertificate(),
                    "the dialled node proves nothing (shows no certificate) before the dialler has");
            assertTrue(
                    TcpPair.await(
                            () -> p.b.counter(TcpCounter.REFUSED_UNTRUSTED) == 1, p.eventsB, TcpPair.WAIT_SECONDS),
                    p.b.counters().toString());
            exchange(ends[0], ends[1], 70);
            assertEquals(1, p.b.counter(TcpCounter.HANDSHAKES_COMPLETED), "only A's connection was ever accepted");
        }
    }

    @DisplayName("TLS nodes: a fabric member whose certificate names another address cannot claim A's GID")
    @Test
    void shouldRefuseATlsImpostorWhoseCertificateDoesNotNameTheClaimedAddress() {
        try (TcpPair p = new TcpPair(
                true, TcpPair.CM, TcpTlsTest.tls(TestPki.FABRIC, "a"), TcpTlsTest.tls(TestPki.FABRIC, "b"))) {
            RcEnd[] ends = p.connect(PORT);
            TlsImpostor.Outcome o = TlsImpostor.claim(p.b, TestPki.FABRIC.node("insider", "127.0.0.9"), p.a.gid());
            assertNull(o.tlsFailure(), "TLS itself succeeds: the certificate is the fabric's");
            assertTrue(o.nodeShowedCertificate(), "B showed its certificate once the dialler had proved itself");
            assertEquals(2, o.frames().size(), "B's HELLO, then its REFUSE");
            assertEquals(PacketCodec.TYPE_REFUSE, o.frames().get(1)[0] & 0xFF);
            assertEquals(HandshakeFailure.WRONG_PEER.code(), o.frames().get(1)[1]);
            assertEquals(1, p.b.counter(TcpCounter.REFUSED_WRONG_PEER));
            exchange(ends[0], ends[1], 80);
        }
    }

    @DisplayName(
            "TLS nodes: a relay that dials both nodes and splices them gets no connection accepted and no packet across")
    @Test
    void shouldDefeatARelaySplicingTwoTlsNodes() {
        try (TcpPair p = new TcpPair(
                        true, TcpPair.CM, TcpTlsTest.tls(TestPki.FABRIC, "a"), TcpTlsTest.tls(TestPki.FABRIC, "b"));
                Relay relay = Relay.splice(p.a.listenAddress(), p.b.listenAddress())) {
            assertTrue(
                    TcpPair.await(
                            () -> p.a.counter(TcpCounter.CONNECTIONS_ACCEPTED) == 1
                                    && p.b.counter(TcpCounter.CONNECTIONS_ACCEPTED) == 1
                                    && p.a.connectionCount() == 0
                                    && p.b.connectionCount() == 0,
                            p.eventsA,
                            TcpPair.WAIT_SECONDS),
                    "both nodes closed the spliced connection: " + p.a.counters() + " / " + p.b.counters());
            assertEquals(
                    0, p.a.counter(TcpCounter.HANDSHAKES_COMPLETED) + p.b.counter(TcpCounter.HANDSHAKES_COMPLETED));
            assertFalse(relay.saw(TcpPair.FABRIC), "no HELLO crossed in clear");
            assertTrue(p.a.links().isEmpty() && p.b.links().isEmpty(), "no link to anyone");
        }
    }

    @DisplayName(
            "TLS nodes: a relay A dials, forwarding to B, reads nothing, and A refuses B's identity and fails fast")
    @Test
    void shouldDefeatARelayInThePathOfATlsConnection() {
        try (TcpPair p = new TcpPair(
                        true,
                        TcpTlsTest.SLOW_RETRY,
                        TcpTlsTest.tls(TestPki.FABRIC, "a"),
                        TcpTlsTest.tls(TestPki.FABRIC, "b"));
                Relay relay = Relay.listen(p.b.listenAddress(), -1)) {
            p.listen(PORT);
            RcEnd a = p.activeEnd(relay.address(), PORT);
            a.id.connect(null);
            CmEvent e = TcpPair.expect(p.chA, CmEventType.UNREACHABLE);
            assertTrue(
                    e.detail().contains("WRONG_PEER"),
                    "A dialled the relay's address and B is not there: " + e.detail());
            assertTrue(relay.forwarded() > 0, "the relay forwarded the TLS handshake");
            assertFalse(relay.saw(TcpPair.FABRIC), "the HELLOs crossed the relay encrypted");
            assertEquals(0, p.b.device().counters().get(Counter.PACKETS_RECEIVED), "no packet reached B");
            assertNull(p.chB.pollEvent());
        }
    }

    @DisplayName("TLS nodes: a relay that flips one byte ends the handshake; nothing is accepted")
    @Test
    void shouldEndTheConnectionWhenARelayFlipsAByte() {
        try (TcpPair p = new TcpPair(
                        true,
                        TcpTlsTest.SLOW_RETRY,
                        TcpTlsTest.tls(TestPki.FABRIC, "a"),
                        TcpTlsTest.tls(TestPki.FABRIC, "b"));
                Relay relay = Relay.listen(p.b.listenAddress(), 300)) {
            p.listen(PORT);
            RcEnd a = p.activeEnd(relay.address(), PORT);
            a.id.connect(null);
            CmEvent e = TcpPair.expect(p.chA, CmEventType.UNREACHABLE);
            assertTrue(
                    e.detail() != null && e.detail().contains("UNTRUSTED"), "the altered TLS record was refused: " + e);
            assertEquals(
                    0, p.a.counter(TcpCounter.HANDSHAKES_COMPLETED) + p.b.counter(TcpCounter.HANDSHAKES_COMPLETED));
            assertEquals(0, p.b.device().counters().get(Counter.PACKETS_RECEIVED));
        }
    }

    @DisplayName("control: between plain nodes a relay does read the HELLO (so the TLS assertions above can fail)")
    @Test
    void shouldShowTheHelloInClearBetweenPlainNodes() {
        try (TcpPair p = new TcpPair(true);
                Relay relay = Relay.splice(p.a.listenAddress(), p.b.listenAddress())) {
            assertTrue(
                    TcpPair.await(
                            () -> p.a.counter(TcpCounter.HANDSHAKES_COMPLETED) == 1, p.eventsA, TcpPair.WAIT_SECONDS),
                    "A took the relayed HELLO: " + p.a.counters());
            assertTrue(relay.saw(TcpPair.FABRIC), "a plain HELLO carries the fabric name in clear");
        }
    }
}
