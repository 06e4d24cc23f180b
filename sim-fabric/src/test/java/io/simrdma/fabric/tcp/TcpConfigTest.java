package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.cm.AddrInfo;
import io.simrdma.fabric.cm.RdmaCm;
import io.simrdma.fabric.wire.Gid;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Where a node listens, how its GID encodes that, how names resolve, and its life cycle in a fabric. */
class TcpConfigTest {

    @Test
    void shouldListenOnLoopbackWithAnEphemeralPortWhenNotToldOtherwise() {
        try (Fabric f = Fabric.threaded()) {
            TcpNode n = TcpNode.start(f, TcpConfig.builder("a").build());
            InetSocketAddress l = n.listenAddress();
            assertEquals(InetAddress.getLoopbackAddress(), l.getAddress());
            assertEquals("127.0.0.1", l.getAddress().getHostAddress());
            assertTrue(l.getPort() > 0);
            assertEquals("127.0.0.1:" + l.getPort(), n.address());
            assertEquals(n.gid(), n.device().gid(), "the device's GID encodes the listen address");
            assertEquals(l, TcpNode.addressOf(n.gid()));
            assertSame(n, f.serviceIfPresent(TcpNode.class));
        }
    }

    @Test
    void shouldListenOnAnotherAddressOnlyWhenConfiguredExplicitly() {
        try (Fabric f = Fabric.threaded()) {
            TcpNode n = TcpNode.start(
                    f, TcpConfig.builder("a").listen("127.0.0.2", 0).build());
            assertEquals("127.0.0.2", n.listenAddress().getAddress().getHostAddress());
            assertEquals(n.listenAddress(), TcpNode.addressOf(n.gid()));
        }
    }

    @Test
    void shouldEncodeTheListenAddressInTheGidAsDocumented() {
        Gid g = TcpNode.gidOf(new InetSocketAddress("127.0.0.1", 7000));
        assertEquals(Gid.parse("fd53:494d::1b58:7f00:1"), g);
        assertTrue(TcpNode.isTcpGid(g));
        assertFalse(TcpNode.isTcpGid(Gid.linkLocal(5)));
        assertThrows(IllegalArgumentException.class, () -> TcpNode.addressOf(Gid.linkLocal(5)));
    }

    @Test
    void shouldRefuseTheWildcardIpv6AndImpossibleLimits() {
        IllegalArgumentException wild = assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a").listen("0.0.0.0", 0).build());
        assertTrue(wild.getMessage().contains("wildcard"), wild.getMessage());
        IllegalArgumentException v6 = assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a").listen("::1", 0).build());
        assertTrue(v6.getMessage().contains("IPv6"), v6.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a")
                        .maxFrameLength(PacketCodec.MIN_MAX_FRAME_LENGTH - 1)
                        .build());
        assertThrows(IllegalArgumentException.class, () -> TcpConfig.builder("").build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a").listen("127.0.0.1", 70000).build());
        assertEquals(
                PacketCodec.MIN_MAX_FRAME_LENGTH,
                TcpConfig.builder("a")
                        .maxFrameLength(PacketCodec.MIN_MAX_FRAME_LENGTH)
                        .build()
                        .maxFrameLength());
        assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a").maxHandshakes(0).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a").maxConnections(0).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a")
                        .idleTimeout(java.time.Duration.ZERO)
                        .build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a")
                        .frameTimeout(java.time.Duration.ofMillis(-1))
                        .build());
    }

    @Test
    void shouldRefuseAPlainNodeOnANonLoopbackAddressUnlessToldInsecure() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> TcpConfig.builder("a").listen("10.0.0.5", 7000).build());
        assertTrue(e.getMessage().contains("10.0.0.5") && e.getMessage().contains("without TLS"), e.getMessage());
        TcpConfig insecure =
                TcpConfig.builder("a").listen("10.0.0.5", 7000).insecure(true).build();
        assertTrue(insecure.isInsecure() && !insecure.isTls());
        assertTrue(insecure.toString().contains("insecure"), insecure.toString());
        assertFalse(TcpConfig.builder("a").build().isInsecure(), "loopback needs no permission");
    }

    @Test
    void shouldThrowAnExceptionNamingTheAddressWhenThePortIsInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket();
                Fabric f = Fabric.threaded()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            java.io.UncheckedIOException e = assertThrows(
                    java.io.UncheckedIOException.class,
                    () -> TcpNode.start(
                            f,
                            TcpConfig.builder("a")
                                    .listenPort(taken.getLocalPort())
                                    .build()));
            assertEquals(
                    "cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + ": the address is in use (another node or program listens there)",
                    e.getMessage());
            assertTrue(e.getCause() instanceof java.net.BindException, String.valueOf(e.getCause()));
            assertNull(f.serviceIfPresent(TcpNode.class), "no node was left behind");
        }
    }

    @Test
    void shouldResolveHostAndPortToTheNodesGidForRdmaGetaddrinfo() {
        try (Fabric f = Fabric.threaded()) {
            TcpNode n = TcpNode.start(f, TcpConfig.builder("a").build());
            Gid g = Gid.parse("fd53:494d::1b58:7f00:1");
            assertEquals(g, n.resolve("127.0.0.1:7000"));
            assertEquals(g, f.resolve("127.0.0.1:7000"));
            assertNull(n.resolve("[::1]:7000"), "IPv6 nodes do not exist");
            assertNull(n.resolve("fe80::1"));
            assertNull(n.resolve("a"));
            assertNull(n.resolve("127.0.0.1:0"));
            assertNull(n.resolve("127.0.0.1:x"));
            AddrInfo ai = RdmaCm.of(f)
                    .getAddrInfo("127.0.0.1:7000", "7471", AddrInfo.active())
                    .get(0);
            assertEquals(7471, ai.dstAddr().getPort());
            assertEquals(g, Gid.of(ai.dstAddr().getAddress().getAddress()));
            assertEquals(n.gid(), f.resolve(n.address()), "a node resolves its own address to its device");
        }
    }

    @Test
    void shouldNeedAThreadedFabricAndAllowOneNodePerFabric() {
        try (Fabric det = Fabric.deterministic(1)) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> TcpNode.start(det, TcpConfig.builder("a").build()));
        }
        try (Fabric f = Fabric.threaded()) {
            TcpNode.start(f, TcpConfig.builder("a").build());
            assertThrows(
                    IllegalStateException.class,
                    () -> TcpNode.start(f, TcpConfig.builder("b").build()));
        }
    }

    @Test
    void shouldReleaseItsPortAndRoutesWhenTheFabricCloses() throws Exception {
        InetSocketAddress listen;
        TcpNode n;
        try (Fabric f = Fabric.threaded()) {
            n = TcpNode.start(f, TcpConfig.builder("a").build());
            listen = n.listenAddress();
            TcpLink l = n.link("127.0.0.1:7000");
            assertFalse(l.isRemoved());
        }
        assertTrue(n.links().get(0).isRemoved(), "closing the fabric closed the node");
        assertNull(n.route(n.device(), Gid.parse("fd53:494d::1b58:7f00:1")));
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(listen);
            assertEquals(listen.getPort(), s.getLocalPort(), "the listen port is free again");
        }
    }
}
