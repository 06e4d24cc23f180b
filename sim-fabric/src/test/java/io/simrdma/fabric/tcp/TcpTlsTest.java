package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.cm.CmConfig;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.RdmaCm;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * TLS between TCP nodes: mutual authentication through the fabric CA, and the dialling node's
 * fast, named failure when a handshake is refused (rdma_connect(3) UNREACHABLE with
 * -ECONNREFUSED instead of after every CM retry).
 */
class TcpTlsTest {

    /**
     * A CM whose first REQ timeout (4.096 us x 2^20 = 4.3 s) is far longer than a refused
     * handshake takes: an UNREACHABLE before it can only be the refusal's.
     */
    static final CmConfig SLOW_RETRY = TcpPair.CM.withResponseTimeout(20, 3);

    static UnaryOperator<TcpConfig.Builder> tls(TestPki pki, String name) {
        return c -> c.tls(pki.node(name));
    }

    @DisplayName("TLS 1.3 with certificates of the fabric CA: every operation crosses, one handshake each way")
    @Test
    void shouldCarryDataWhenBothNodesHoldCertificatesOfTheFabricCa() {
        try (TcpPair p = new TcpPair(true, TcpPair.CM, tls(TestPki.FABRIC, "a"), tls(TestPki.FABRIC, "b"))) {
            RcEnd[] ends = p.connect(TcpNodeTest.PORT);
            RcEnd.fill(ends[0].buf, 0, 12_000, 5);
            ends[0].postSend(1, 0, 12_000);
            TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.SEND, ends[0].next());
            TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RECV, ends[1].next());
            assertEquals(-1, RcEnd.mismatch(ends[1].buf, 0, 12_000, 5));
            RcEnd.fill(ends[0].buf, 32_768, 9_000, 6);
            ends[0].postWrite(2, 32_768, 40_000, 9_000);
            TcpNodeTest.assertStatus(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, ends[0].next());
            assertEquals(-1, RcEnd.mismatch(ends[1].buf, 40_000, 9_000, 6));
            assertEquals(1, p.a.counter(TcpCounter.HANDSHAKES_COMPLETED), "one TLS connection carries both directions");
            assertEquals(1, p.b.counter(TcpCounter.HANDSHAKES_COMPLETED));
            assertEquals(0, p.a.counter(TcpCounter.REFUSED_UNTRUSTED) + p.b.counter(TcpCounter.REFUSED_UNTRUSTED));
        }
    }

    /** Connects A to B's listener and expects a fast UNREACHABLE naming {@code failure}; returns the event. */
    private static CmEvent expectFastRefusal(TcpPair p, HandshakeFailure failure) {
        p.listen(TcpNodeTest.PORT);
        RcEnd a = p.activeEnd(p.b.address(), TcpNodeTest.PORT);
        long t0 = p.fa.now();
        a.id.connect(null);
        CmEvent e = TcpPair.expect(p.chA, CmEventType.UNREACHABLE);
        assertEquals(-Errno.ECONNREFUSED.value(), e.status(), "rdma_connect(3) ends with -ECONNREFUSED: " + e);
        assertNotNull(e.detail(), "the event names the cause");
        assertTrue(
                e.detail().contains(failure.name())
                        && e.detail().contains(failure.cause())
                        && e.detail().contains(p.b.address()),
                "expected the cause " + failure + " and B's address, saw: " + e.detail());
        assertTrue(
                e.timeNanos() - t0 < SLOW_RETRY.responseTimeoutNanos(),
                "UNREACHABLE before the first CM retry, after " + (e.timeNanos() - t0) / 1_000_000 + " ms");
        assertEquals(1, p.a.counter(TcpCounter.CONNECTS_STARTED), "the refused attempt is final: no second dial");
        assertEquals(0, p.b.device().counters().get(Counter.PACKETS_RECEIVED), "nothing reached B's device");
        assertEquals(null, p.chB.pollEvent(), "no connection request reached B's listener");
        return e;
    }

    @DisplayName("a node with a certificate of another CA is refused, and the dialler fails fast naming UNTRUSTED")
    @Test
    void shouldRefuseAndFailFastWhenTheDiallerHoldsACertificateOfAnotherCa() {
        try (TcpPair p = new TcpPair(true, SLOW_RETRY, tls(TestPki.STRANGER, "a"), tls(TestPki.FABRIC, "b"))) {
            expectFastRefusal(p, HandshakeFailure.UNTRUSTED);
            assertTrue(
                    TcpPair.await(
                            () -> p.b.counter(TcpCounter.REFUSED_UNTRUSTED) == 1, p.eventsB, TcpPair.WAIT_SECONDS),
                    "B refused A's certificate: " + p.b.counters());
            assertEquals(0, p.b.counter(TcpCounter.HANDSHAKES_COMPLETED));
        }
    }

    @DisplayName("a dialled node with a certificate of another CA: the dialler's TLS refuses it and fails fast")
    @Test
    void shouldRefuseAndFailFastWhenTheDialledNodeHoldsACertificateOfAnotherCa() {
        try (TcpPair p = new TcpPair(true, SLOW_RETRY, tls(TestPki.FABRIC, "a"), tls(TestPki.STRANGER, "b"))) {
            expectFastRefusal(p, HandshakeFailure.UNTRUSTED);
        }
    }

    @DisplayName("a plain node dialling a TLS node fails fast naming NO_TLS; the TLS node counts the refusal")
    @Test
    void shouldFailFastWhenAPlainNodeDialsATlsNode() {
        try (TcpPair p = new TcpPair(true, SLOW_RETRY, c -> c, tls(TestPki.FABRIC, "b"))) {
            expectFastRefusal(p, HandshakeFailure.NO_TLS);
            assertTrue(
                    TcpPair.await(() -> p.b.counter(TcpCounter.REFUSED_NO_TLS) == 1, p.eventsB, TcpPair.WAIT_SECONDS),
                    p.b.counters().toString());
        }
    }

    @DisplayName("a TLS node dialling a plain node fails fast naming NO_TLS")
    @Test
    void shouldFailFastWhenATlsNodeDialsAPlainNode() {
        try (TcpPair p = new TcpPair(true, SLOW_RETRY, tls(TestPki.FABRIC, "a"), c -> c)) {
            expectFastRefusal(p, HandshakeFailure.NO_TLS);
        }
    }

    @DisplayName("a node of another fabric name is refused and the dialler fails fast naming WRONG_FABRIC")
    @Test
    void shouldFailFastWhenTheDialledNodeIsInAnotherFabric() {
        try (Fabric fa = Fabric.builder().name("one").threaded().build();
                Fabric fb = Fabric.builder().name("two").threaded().build()) {
            TcpNode a = TcpNode.start(fa, TcpConfig.builder("a").build());
            TcpNode b = TcpNode.start(fb, TcpConfig.builder("b").build());
            RdmaCm cm = RdmaCm.of(fa, SLOW_RETRY);
            RcEnd end = TcpPair.activeEnd(cm, cm.createEventChannel(), b.address(), TcpNodeTest.PORT);
            long t0 = fa.now();
            end.id.connect(null);
            CmEvent e = TcpPair.expect(end.id.channel(), CmEventType.UNREACHABLE);
            assertTrue(e.detail().contains("WRONG_FABRIC"), e.detail());
            assertTrue(e.timeNanos() - t0 < SLOW_RETRY.responseTimeoutNanos(), "failed fast");
            assertEquals(1, a.counter(TcpCounter.CONNECTS_STARTED));
            assertEquals(0, b.device().counters().get(Counter.PACKETS_RECEIVED));
        }
    }

    @DisplayName("a node's certificate must name its listen address: TcpConfig refuses credentials that do not")
    @Test
    void shouldRefuseCredentialsThatDoNotNameTheListenAddress() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a")
                        .tls(TestPki.FABRIC.node("elsewhere", "10.1.2.3"))
                        .build());
        assertTrue(e.getMessage().contains("10.1.2.3") && e.getMessage().contains("127.0.0.1"), e.getMessage());
    }

    @DisplayName("TlsCredentials.toString names the directory, subject and fingerprint, never the key")
    @Test
    void shouldNeverShowThePrivateKey() throws Exception {
        TlsCredentials c = TestPki.FABRIC.node("shown");
        String key = java.nio.file.Files.readString(c.directory().resolve(FabricPki.NODE_KEY));
        String body = key.replace("-----BEGIN PRIVATE KEY-----", "")
                .replace("-----END PRIVATE KEY-----", "")
                .replace("\n", "");
        String shown = c + " " + TcpConfig.builder("a").tls(c).build();
        assertTrue(shown.contains(c.fingerprint()), shown);
        for (int i = 0; i + 16 <= body.length(); i += 16) {
            assertFalse(shown.contains(body.substring(i, i + 16)), "no part of the key is shown: " + shown);
        }
    }
}
