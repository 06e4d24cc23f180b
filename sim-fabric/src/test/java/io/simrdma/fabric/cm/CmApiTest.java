package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmTestKit.assertErrno;
import static io.simrdma.fabric.cm.CmTestKit.expect;
import static io.simrdma.fabric.cm.CmTestKit.expectAcked;
import static io.simrdma.fabric.cm.CmTestKit.qpAttr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.wire.Gid;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The connection manager's local API: event channels and ids, acknowledgement and destroy rules,
 * migration, handler channels, rdma_getaddrinfo, rdma_bind_addr, rdma_resolve_addr,
 * rdma_resolve_route and rdma_set_option, each against its librdmacm man page.
 */
@Timeout(120)
class CmApiTest {

    private static final long MS = 1_000_000L;

    // ------------------------------------------------------------------ channels and ids

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_create_id(3): an id keeps its channel, context and port space; a null channel makes it synchronous")
    void shouldCreateIdOnChannelAndSynchronousIdWhenChannelIsNull(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            Object ctx = new Object();
            CmId async = k.cm.createId(k.chA, ctx, PortSpace.IB);
            CmId sync = k.cm.createId(null, null, PortSpace.TCP);
            assertSame(k.chA, async.channel());
            assertSame(ctx, async.context());
            assertEquals(PortSpace.IB, async.portSpace());
            assertNull(sync.channel());
            assertEquals(CmId.State.IDLE, async.state());
            assertNull(async.device());
            assertNull(async.qp());
            assertTrue(async.localAddress().getAddress().isAnyLocalAddress());
            assertEquals(0, async.srcPort());
            assertEquals(0, async.dstPort());
            async.destroy();
            sync.destroy();
            assertEquals(CmId.State.DESTROYED, async.state());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_destroy_event_channel(3): every id of the channel must be destroyed first (EBUSY); a destroyed channel is unusable")
    void shouldRefuseToDestroyChannelWhileIdsUseIt(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmEventChannel ch = k.cm.createEventChannel();
            assertFalse(ch.hasHandler());
            CmId id = k.cm.createId(ch, null, PortSpace.TCP);
            assertErrno(Errno.EBUSY, ch::destroy);
            id.destroy();
            ch.destroy();
            assertErrno(Errno.EINVAL, ch::destroy);
            assertErrno(Errno.EINVAL, () -> ch.getEvent(1, TimeUnit.MILLISECONDS));
            assertErrno(Errno.EINVAL, () -> k.cm.createId(ch, null, PortSpace.TCP));
            assertErrno(
                    Errno.EINVAL, () -> k.cm.createId(null, null, PortSpace.TCP).migrate(ch));
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_ack_cm_event(3): one ack per get; a second ack of the same event fails with EINVAL")
    void shouldFailWithEinvalWhenAnEventIsAcknowledgedTwice(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            CmEvent e = expect(k.chA, CmEventType.ADDR_RESOLVED);
            assertSame(id, e.id());
            assertNull(e.listenId());
            assertEquals(0, e.status());
            e.ack();
            assertErrno(Errno.EINVAL, e::ack);
            id.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_destroy_id(3): an id whose returned events are not acknowledged cannot be destroyed (EBUSY), nor destroyed twice")
    void shouldRefuseToDestroyIdWhenItsEventIsUnacknowledged(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            CmEvent e = expect(k.chA, CmEventType.ADDR_RESOLVED);
            assertErrno(Errno.EBUSY, id::destroy);
            assertEquals(CmId.State.ADDR_RESOLVED, id.state(), "a refused destroy changes nothing");
            e.ack();
            id.destroy();
            assertEquals(CmId.State.DESTROYED, id.state());
            assertErrno(Errno.EINVAL, id::destroy);
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_destroy_id(3): the id's QP must be freed first (EBUSY), rdma_destroy_qp(3) frees it")
    void shouldRefuseToDestroyIdWhileItHasAQp(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.routed(PortSpace.TCP, 1);
            assertNotNull(id.createQp(null, qpAttr()));
            assertErrno(Errno.EINVAL, () -> id.createQp(null, qpAttr()));
            assertErrno(Errno.EBUSY, id::destroy);
            id.destroyQp();
            assertNull(id.qp());
            id.destroy();
        }
    }

    @Test
    @DisplayName("rdma_destroy_id(3) cancels an outstanding operation: no event of the destroyed id is reported")
    void shouldReportNoEventOfAnIdDestroyedWithAResolutionOutstanding() {
        try (CmTestKit k = CmTestKit.of(false)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            assertEquals(CmId.State.ADDR_QUERY, id.state());
            id.destroy();
            k.assertNoEvent(k.chA);
            k.chA.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_migrate_id(3): pending events of the id move to the new channel, other ids' events stay, later events follow the id")
    void shouldMovePendingEventsWhenMigratingToAnotherChannel(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmEventChannel ch1 = k.cm.createEventChannel();
            CmEventChannel ch2 = k.cm.createEventChannel();
            CmId moving = k.cm.createId(ch1, null, PortSpace.TCP);
            CmId staying = k.cm.createId(ch1, null, PortSpace.TCP);
            moving.bind(RdmaCm.addressOf(k.a, 0));
            staying.bind(RdmaCm.addressOf(k.a, 0));
            moving.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            staying.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            if (!threaded) {
                k.fabric.deterministicScheduler().runUntilIdle();
                assertEquals(2, ch1.pending(), "both events are queued before the migration");
            }
            moving.migrate(ch2);
            assertSame(ch2, moving.channel());
            CmEvent moved = expectAcked(ch2, CmEventType.ADDR_RESOLVED);
            assertSame(moving, moved.id());
            CmEvent kept = expectAcked(ch1, CmEventType.ADDR_RESOLVED);
            assertSame(staying, kept.id());

            moving.resolveRoute(1000);
            assertSame(moving, expectAcked(ch2, CmEventType.ROUTE_RESOLVED).id());
            assertEquals(0, ch1.pending());
            // The channel the id left no longer counts it.
            staying.destroy();
            ch1.destroy();
            assertErrno(Errno.EBUSY, ch2::destroy);
            moving.destroy();
            ch2.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_migrate_id(3) with a NULL channel: the id becomes synchronous, its calls block until their event")
    void shouldOperateSynchronouslyAfterMigratingToNoChannel(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.bind(RdmaCm.addressOf(k.a, 0));
            id.migrate(null);
            assertNull(id.channel());
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            assertEquals(CmId.State.ADDR_RESOLVED, id.state(), "a synchronous resolve returns resolved");
            assertEquals(CmEventType.ADDR_RESOLVED, id.event().type());
            id.resolveRoute(1000);
            assertEquals(CmId.State.ROUTE_RESOLVED, id.state());
            assertEquals(CmEventType.ROUTE_RESOLVED, id.event().type());
            assertErrno(Errno.EINVAL, () -> id.event().ack());
            assertNull(k.chA.pollEvent());
            // and back to a channel: its next event is queued there
            id.migrate(k.chA);
            id.destroy();
            k.chA.destroy();
        }
    }

    @Test
    @DisplayName("rdma_migrate_id(3) blocks while events of the id returned by its current channel are unacknowledged")
    void shouldWaitForTheAcknowledgementBeforeMigrating() throws Exception {
        try (CmTestKit k = CmTestKit.of(true)) {
            CmEventChannel ch2 = k.cm.createEventChannel();
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            CmEvent e = expect(k.chA, CmEventType.ADDR_RESOLVED);
            CompletableFuture<Void> migrating = CompletableFuture.runAsync(() -> id.migrate(ch2));
            assertFalse(migrating.isDone(), "migrate returned with an event unacknowledged");
            assertSame(k.chA, id.channel());
            e.ack();
            migrating.get(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertSame(ch2, id.channel());
            id.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "handler channel (RdmaCm.createEventChannel(handler)): events go to the handler, not the queue, and still need rdma_ack_cm_event(3)")
    void shouldHandEventsToTheHandlerOfAHandlerChannel(boolean threaded) throws Exception {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            LinkedBlockingQueue<CmEvent> seen = new LinkedBlockingQueue<>();
            LinkedBlockingQueue<String> threads = new LinkedBlockingQueue<>();
            CmEventChannel ch = k.cm.createEventChannel(e -> {
                threads.add(Thread.currentThread().getName());
                seen.add(e);
            });
            assertTrue(ch.hasHandler());
            CmId id = k.cm.createId(ch, null, PortSpace.TCP);
            id.bind(RdmaCm.addressOf(k.a, 0));
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            if (!threaded) {
                k.fabric.deterministicScheduler().runUntilIdle();
            }
            CmEvent e = seen.poll(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(e, "the handler got no event");
            assertEquals(CmEventType.ADDR_RESOLVED, e.type());
            assertSame(id, e.id());
            assertNull(ch.pollEvent(), "a handler channel queues nothing");
            assertEquals(0, ch.pending());
            if (threaded) {
                assertTrue(threads.take().startsWith("simrdma-"), "the handler runs on the device's executor");
            }
            assertErrno(Errno.EBUSY, id::destroy);
            e.ack();
            assertErrno(Errno.EINVAL, e::ack);
            id.destroy();
            ch.destroy();
        }
    }

    // ------------------------------------------------------------------ rdma_getaddrinfo

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_getaddrinfo(3) RAI_PASSIVE with a node: the source is the node's address and service port, no destination")
    void shouldResolvePassiveAddressOfANamedNode(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            List<AddrInfo> res = k.cm.getAddrInfo("b", "7471", AddrInfo.passiveHints());
            assertEquals(1, res.size());
            AddrInfo ai = res.get(0);
            assertTrue(ai.passive());
            assertEquals(PortSpace.TCP, ai.portSpace());
            assertEquals(RdmaCm.addressOf(k.b, 7471), ai.srcAddr());
            assertNull(ai.dstAddr(), "ai_dst_len is 0 with RAI_PASSIVE");
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_getaddrinfo(3) RAI_PASSIVE without a node: the wildcard address with the service port")
    void shouldResolvePassiveWildcardAddressWhenNoNodeIsGiven(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            AddrInfo ai = k.cm.getAddrInfo(null, "18515", new AddrInfo(true, PortSpace.IB, null, null, null))
                    .get(0);
            assertTrue(ai.passive());
            assertEquals(PortSpace.IB, ai.portSpace(), "the hints' port space");
            assertTrue(ai.srcAddr().getAddress().isAnyLocalAddress());
            assertEquals(18515, ai.srcAddr().getPort());
            assertNull(ai.dstAddr());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_getaddrinfo(3) active: a device name resolves to the device's address as the destination")
    void shouldResolveActiveDestinationOfADeviceName(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            AddrInfo ai = k.cm.getAddrInfo("b", "9", AddrInfo.active()).get(0);
            assertFalse(ai.passive());
            assertEquals(RdmaCm.addressOf(k.b, 9), ai.dstAddr());
            assertNull(ai.srcAddr(), "no source asked for");
            assertEquals("b", ai.dstName());
            // with no service, port 0
            assertEquals(0, k.cm.getAddrInfo("a", null, null).get(0).dstAddr().getPort());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_getaddrinfo(3): numeric IPv6 (GID) and dotted IPv4 nodes, and hints.ai_dst_addr without a node")
    void shouldResolveNumericNodesAndHintDestinations(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            String gidText = k.b.gid().toString();
            AddrInfo byGid = k.cm.getAddrInfo(gidText, "100", null).get(0);
            assertEquals(RdmaCm.addressOf(k.b, 100), byGid.dstAddr(), "the GID " + gidText + " is b's address");

            AddrInfo foreign =
                    k.cm.getAddrInfo("fe80::dead:beef", "1", AddrInfo.active()).get(0);
            assertEquals(
                    Gid.parse("fe80::dead:beef"),
                    RdmaCm.gidOf(foreign.dstAddr()),
                    "a numeric address nobody owns still resolves (rdma_getaddrinfo does not probe)");

            AddrInfo v4 = k.cm.getAddrInfo("10.1.2.3", "2", AddrInfo.active()).get(0);
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            mapped[12] = 10;
            mapped[13] = 1;
            mapped[14] = 2;
            mapped[15] = 3;
            assertEquals(
                    Gid.of(mapped), RdmaCm.gidOf(v4.dstAddr()), "dotted IPv4 is the IPv4-mapped GID ::ffff:10.1.2.3");
            assertEquals(2, v4.dstAddr().getPort());

            InetSocketAddress dst = RdmaCm.addressOf(k.b, 4242);
            AddrInfo hinted = k.cm.getAddrInfo(null, null, new AddrInfo(false, PortSpace.TCP, null, dst, null))
                    .get(0);
            assertEquals(dst, hinted.dstAddr());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_getaddrinfo(3) errors: nothing given (EINVAL), unknown node (EAI_NONAME: ENOENT), bad service (EAI_SERVICE: EINVAL)")
    void shouldRefuseBadAddressInformationRequests(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            assertErrno(Errno.EINVAL, () -> k.cm.getAddrInfo(null, null, null));
            assertErrno(Errno.ENOENT, () -> k.cm.getAddrInfo("nosuchnode", "1", AddrInfo.active()));
            assertErrno(Errno.ENOENT, () -> k.cm.getAddrInfo("nosuchnode", "1", AddrInfo.passiveHints()));
            assertErrno(Errno.EINVAL, () -> k.cm.getAddrInfo("b", "rdma-service", AddrInfo.active()));
            assertErrno(Errno.EINVAL, () -> k.cm.getAddrInfo("b", "65536", AddrInfo.active()));
            assertErrno(Errno.EINVAL, () -> k.cm.getAddrInfo("b", "-1", AddrInfo.active()));
            assertErrno(
                    Errno.EINVAL,
                    () -> k.cm.getAddrInfo(null, "1", AddrInfo.active()),
                    "an active lookup needs a node or hints.ai_dst_addr");
            assertEquals(
                    65535,
                    k.cm.getAddrInfo("b", "65535", AddrInfo.active())
                            .get(0)
                            .dstAddr()
                            .getPort());
        }
    }

    // ------------------------------------------------------------------ rdma_bind_addr

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_bind_addr(3): a wildcard address binds no device; a device's address binds the id to that device")
    void shouldBindToWildcardOrDeviceAddress(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId any = k.cm.createId(k.chB, null, PortSpace.TCP);
            any.bind(new InetSocketAddress(RdmaCm.WILDCARD, 5000));
            assertEquals(CmId.State.ADDR_BOUND, any.state());
            assertNull(any.device());
            assertTrue(any.localAddress().getAddress().isAnyLocalAddress());
            assertEquals(5000, any.srcPort());

            CmId onB = k.cm.createId(k.chB, null, PortSpace.TCP);
            onB.bind(RdmaCm.addressOf(k.b, 5001));
            assertSame(k.b, onB.device());
            assertEquals(RdmaCm.addressOf(k.b, 5001), onB.localAddress());
            assertEquals(5001, onB.srcPort());
            any.destroy();
            onB.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_bind_addr(3): port 0 selects an available port, which rdma_get_src_port(3) returns")
    void shouldPickAFreePortWhenBindingPortZero(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId first = k.cm.createId(k.chA, null, PortSpace.TCP);
            CmId second = k.cm.createId(k.chA, null, PortSpace.TCP);
            first.bind(RdmaCm.addressOf(k.a, 0));
            second.bind(RdmaCm.addressOf(k.a, 0));
            assertNotEquals(0, first.srcPort());
            assertNotEquals(0, second.srcPort());
            assertNotEquals(first.srcPort(), second.srcPort(), "two ids of a device never share a picked port");
            // the picked port is really taken
            CmId third = k.cm.createId(k.chA, null, PortSpace.TCP);
            assertErrno(Errno.EADDRINUSE, () -> third.bind(RdmaCm.addressOf(k.a, first.srcPort())));
            first.destroy();
            second.destroy();
            third.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_bind_addr(3): EADDRINUSE for a taken port of the same device or overlapping the wildcard; other devices and port spaces are free; destroy frees the port")
    void shouldRefuseAPortInUse(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId onB = k.cm.createId(k.chB, null, PortSpace.TCP);
            onB.bind(RdmaCm.addressOf(k.b, 6000));
            CmId again = k.cm.createId(k.chB, null, PortSpace.TCP);
            assertErrno(Errno.EADDRINUSE, () -> again.bind(RdmaCm.addressOf(k.b, 6000)));
            assertEquals(CmId.State.IDLE, again.state(), "a refused bind leaves the id unbound");
            assertErrno(Errno.EADDRINUSE, () -> again.bind(new InetSocketAddress(RdmaCm.WILDCARD, 6000)));

            CmId onA = k.cm.createId(k.chA, null, PortSpace.TCP);
            onA.bind(RdmaCm.addressOf(k.a, 6000));
            CmId otherSpace = k.cm.createId(k.chB, null, PortSpace.IB);
            otherSpace.bind(RdmaCm.addressOf(k.b, 6000));

            CmId wild = k.cm.createId(k.chB, null, PortSpace.TCP);
            wild.bind(new InetSocketAddress(RdmaCm.WILDCARD, 6001));
            CmId underWild = k.cm.createId(k.chB, null, PortSpace.TCP);
            assertErrno(Errno.EADDRINUSE, () -> underWild.bind(RdmaCm.addressOf(k.a, 6001)));

            onB.destroy();
            again.bind(RdmaCm.addressOf(k.b, 6000));
            for (CmId id : List.of(again, onA, otherSpace, wild, underWild)) {
                id.destroy();
            }
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_set_option(3) RDMA_OPTION_ID_REUSEADDR: ids that both set it share an address and port")
    void shouldShareAPortWhenBothIdsSetReuseAddr(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId x = k.cm.createId(k.chB, null, PortSpace.TCP);
            CmId y = k.cm.createId(k.chB, null, PortSpace.TCP);
            CmId z = k.cm.createId(k.chB, null, PortSpace.TCP);
            x.setOption(CmOption.REUSEADDR, 1);
            y.setOption(CmOption.REUSEADDR, 1);
            x.bind(RdmaCm.addressOf(k.b, 6100));
            y.bind(RdmaCm.addressOf(k.b, 6100));
            assertEquals(6100, y.srcPort());
            assertErrno(Errno.EADDRINUSE, () -> z.bind(RdmaCm.addressOf(k.b, 6100)), "z did not set REUSEADDR");
            assertErrno(Errno.EINVAL, () -> x.setOption(CmOption.REUSEADDR, 0), "REUSEADDR only before binding");
            x.destroy();
            y.destroy();
            z.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_bind_addr(3): EADDRNOTAVAIL for an address no device has; EINVAL on an id already bound")
    void shouldRefuseUnknownAddressAndSecondBind(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            assertErrno(
                    Errno.EADDRNOTAVAIL,
                    () -> id.bind(new InetSocketAddress(RdmaCm.inetOf(Gid.parse("fe80::dead:beef")), 1)));
            assertEquals(CmId.State.IDLE, id.state());
            id.bind(RdmaCm.addressOf(k.a, 7000));
            assertErrno(Errno.EINVAL, () -> id.bind(RdmaCm.addressOf(k.a, 7001)));
            assertEquals(7000, id.srcPort(), "the second bind changed nothing");
            id.destroy();
            assertErrno(Errno.EINVAL, () -> id.bind(RdmaCm.addressOf(k.a, 7002)));
        }
    }

    // ------------------------------------------------------------------ rdma_resolve_addr / rdma_resolve_route

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_resolve_addr(3): ADDR_RESOLVED; the source address given is bound as by rdma_bind_addr; the id is bound to a device")
    void shouldReportAddrResolvedAndBindTheSourceAddress(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.resolveAddr(RdmaCm.addressOf(k.a, 7100), RdmaCm.addressOf(k.b, 7471), 1000);
            CmEvent e = expectAcked(k.chA, CmEventType.ADDR_RESOLVED);
            assertSame(id, e.id());
            assertEquals(0, e.status());
            assertEquals(CmId.State.ADDR_RESOLVED, id.state());
            assertSame(k.a, id.device());
            assertEquals(RdmaCm.addressOf(k.a, 7100), id.localAddress());
            assertEquals(RdmaCm.addressOf(k.b, 7471), id.peerAddress());
            assertEquals(7471, id.dstPort(), "rdma_get_dst_port(3)");
            assertEquals(7100, id.srcPort(), "rdma_get_src_port(3)");
            // resolving again from ADDR_RESOLVED is allowed (a new destination)
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 7472), 1000);
            expectAcked(k.chA, CmEventType.ADDR_RESOLVED);
            assertEquals(7472, id.dstPort());
            id.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_resolve_addr(3) without a source: the id is bound to a device and an available port")
    void shouldBindAnUnboundIdWhenResolving(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 7471), 1000);
            expectAcked(k.chA, CmEventType.ADDR_RESOLVED);
            assertNotNull(id.device(), "after this call the rdma_cm_id is bound to an RDMA device");
            assertNotEquals(0, id.srcPort());
            assertEquals(RdmaCm.addressOf(id.device(), id.srcPort()), id.localAddress());
            id.destroy();
        }
    }

    @Test
    @DisplayName(
            "rdma_resolve_addr(3) with the local port down: ADDR_ERROR exactly timeout_ms later, the id back to ADDR_BOUND")
    void shouldReportAddrErrorAfterTheTimeoutWhenThePortIsDown() {
        try (CmTestKit k = CmTestKit.of(false)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.bind(RdmaCm.addressOf(k.a, 0));
            k.a.setPortActive(false);
            long t0 = k.now();
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 250);
            assertEquals(CmId.State.ADDR_QUERY, id.state());
            CmEvent e = expectAcked(k.chA, CmEventType.ADDR_ERROR);
            assertEquals(250 * MS, e.timeNanos() - t0, "the error comes when timeout_ms has passed");
            assertTrue(e.status() < 0, "status is a negative errno: " + e.status());
            assertEquals(CmId.State.ADDR_BOUND, id.state());
            assertErrno(Errno.EINVAL, () -> id.resolveRoute(100), "no route without an address");
            // the port back up: a new resolution succeeds
            k.a.setPortActive(true);
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 250);
            expectAcked(k.chA, CmEventType.ADDR_RESOLVED);
            id.destroy();
        }
    }

    @Test
    @DisplayName(
            "rdma_resolve_addr(3): timeout_ms is the time to wait for resolution, so a port that becomes active within it resolves the address")
    void shouldResolveWhenThePortComesUpWithinTheTimeout() {
        try (CmTestKit k = CmTestKit.of(false)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.bind(RdmaCm.addressOf(k.a, 0));
            k.a.setPortActive(false);
            long t0 = k.now();
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            k.fabric.deterministicScheduler().advanceTime(100 * MS);
            k.a.setPortActive(true);
            CmEvent e = expectAcked(k.chA, CmEventType.ADDR_RESOLVED);
            assertTrue(
                    e.timeNanos() - t0 < 1000 * MS,
                    "resolved at " + (e.timeNanos() - t0) + " ns, not within the timeout");
            assertEquals(CmId.State.ADDR_RESOLVED, id.state());
            k.assertNoEvent(k.chA);
            id.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_resolve_addr(3) on a synchronous id with the port down fails with the ADDR_ERROR event")
    void shouldThrowWithTheEventWhenASynchronousResolutionFails(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(null, null, PortSpace.TCP);
            id.bind(RdmaCm.addressOf(k.a, 0));
            k.a.setPortActive(false);
            CmException ex = assertThrows(CmException.class, () -> id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 20));
            assertEquals(CmEventType.ADDR_ERROR, ex.event().type());
            assertEquals(CmId.State.ADDR_BOUND, id.state());
            id.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_resolve_route(3): ROUTE_RESOLVED after rdma_resolve_addr; EINVAL before it")
    void shouldReportRouteResolved(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId fresh = k.cm.createId(k.chA, null, PortSpace.TCP);
            assertErrno(Errno.EINVAL, () -> fresh.resolveRoute(1000));
            fresh.bind(RdmaCm.addressOf(k.a, 0));
            assertErrno(Errno.EINVAL, () -> fresh.resolveRoute(1000));
            fresh.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            expectAcked(k.chA, CmEventType.ADDR_RESOLVED);
            fresh.resolveRoute(1000);
            CmEvent e = expectAcked(k.chA, CmEventType.ROUTE_RESOLVED);
            assertSame(fresh, e.id());
            assertEquals(CmId.State.ROUTE_RESOLVED, fresh.state());
            assertErrno(Errno.EINVAL, () -> fresh.resolveRoute(1000), "the route is already resolved");
            fresh.destroy();
        }
    }

    @Test
    @DisplayName(
            "rdma_resolve_route(3) with the local port down: ROUTE_ERROR exactly timeout_ms later, the id back to ADDR_RESOLVED")
    void shouldReportRouteErrorAfterTheTimeoutWhenThePortIsDown() {
        try (CmTestKit k = CmTestKit.of(false)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.bind(RdmaCm.addressOf(k.a, 0));
            id.resolveAddr(null, RdmaCm.addressOf(k.b, 1), 1000);
            expectAcked(k.chA, CmEventType.ADDR_RESOLVED);
            k.a.setPortActive(false);
            long t0 = k.now();
            id.resolveRoute(75);
            assertEquals(CmId.State.ROUTE_QUERY, id.state());
            CmEvent e = expectAcked(k.chA, CmEventType.ROUTE_ERROR);
            assertEquals(75 * MS, e.timeNanos() - t0);
            assertTrue(e.status() < 0);
            assertEquals(CmId.State.ADDR_RESOLVED, id.state());
            assertErrno(Errno.EINVAL, () -> id.connect(null), "rdma_connect needs a resolved route");
            k.a.setPortActive(true);
            id.resolveRoute(75);
            expectAcked(k.chA, CmEventType.ROUTE_RESOLVED);
            id.destroy();
        }
    }

    // ------------------------------------------------------------------ rdma_set_option

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_set_option(3): TOS is a uint8_t, ACK_TIMEOUT an IB timeout exponent (5 bits); a destroyed id takes no option")
    void shouldRefuseOptionValuesOutOfRange(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId id = k.cm.createId(k.chA, null, PortSpace.TCP);
            id.setOption(CmOption.TOS, 0);
            id.setOption(CmOption.TOS, 255);
            assertErrno(Errno.EINVAL, () -> id.setOption(CmOption.TOS, 256));
            assertErrno(Errno.EINVAL, () -> id.setOption(CmOption.TOS, -1));
            id.setOption(CmOption.ACK_TIMEOUT, 0);
            id.setOption(CmOption.ACK_TIMEOUT, 31);
            assertErrno(Errno.EINVAL, () -> id.setOption(CmOption.ACK_TIMEOUT, 32));
            assertErrno(Errno.EINVAL, () -> id.setOption(CmOption.ACK_TIMEOUT, -1));
            id.destroy();
            assertErrno(Errno.EINVAL, () -> id.setOption(CmOption.TOS, 1));
            assertThrows(VerbsException.class, () -> id.setOption(CmOption.ACK_TIMEOUT, 1));
        }
    }
}
