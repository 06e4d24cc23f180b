package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmTestKit.accept;
import static io.simrdma.fabric.cm.CmTestKit.assertErrno;
import static io.simrdma.fabric.cm.CmTestKit.expect;
import static io.simrdma.fabric.cm.CmTestKit.expectAcked;
import static io.simrdma.fabric.cm.CmTestKit.pattern;
import static io.simrdma.fabric.cm.CmTestKit.qpAttr;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Connection events of the connection manager: listen and its backlog, rdma_get_request,
 * connect / accept / reject with private data and resource negotiation, the reject reasons,
 * CONNECT_RESPONSE and rdma_establish, disconnect and timewait, rdma_notify, DEVICE_REMOVAL,
 * CONNECT_ERROR, UNREACHABLE, and the QP attributes a connection leaves, each against its
 * librdmacm man page (rdma_get_cm_event(3) for the event data).
 */
@Timeout(120)
class CmEventsTest {

    private static final int PORT = 7471;

    // ------------------------------------------------------------------ rdma_listen / rdma_get_request

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_listen(3): an unbound id listens on a free port of every device; listening twice is EINVAL")
    void shouldListenOnAFreeWildcardPortWhenUnbound(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId l = k.cm.createId(k.chB, null, PortSpace.TCP);
            l.listen(4);
            assertEquals(CmId.State.LISTEN, l.state());
            assertNull(l.device());
            assertTrue(l.localAddress().getAddress().isAnyLocalAddress());
            int port = l.srcPort();
            assertNotEquals(0, port);
            assertErrno(Errno.EINVAL, () -> l.listen(4));
            // a request to b's address on that port reaches the wildcard listener
            CmId c = k.connecting(PortSpace.TCP, port, null);
            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertSame(l, req.listenId());
            assertSame(k.b, req.id().device(), "the request's id is bound to the device it arrived on");
            assertEquals(RdmaCm.addressOf(k.b, port), req.id().localAddress());
            assertEquals(RdmaCm.addressOf(k.a, c.srcPort()), req.id().peerAddress());
            req.id().reject(null);
            req.ack();
            expectAcked(k.chA, CmEventType.REJECTED);
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_listen(3): a listener bound to a device's address hears only that device; requests to another are refused INVALID_SERVICE_ID")
    void shouldRestrictTheListenToTheBoundDevice(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.cm.createId(k.chA, null, PortSpace.TCP);
            c.bind(RdmaCm.addressOf(k.a, 0));
            CmSteps.resolve(
                    c, null, RdmaCm.addressOf(k.a, PORT), 1000, CmTestKit.WAIT_SECONDS); // a's own address, same port
            c.createQp(null, qpAttr());
            c.connect(null);
            CmEvent rej = expectAcked(k.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_SERVICE_ID, rej.rejectReason());
            assertEquals(0, k.chB.pending());
        }
    }

    /** A listener with a backlog of one and two routed requesters with QPs that connect at once ({@code t0} is just before). */
    private record TwoRequests(CmId c1, CmId c2, long t0) {
        static TwoRequests overBacklogOfOne(CmTestKit k) {
            k.listener(PortSpace.TCP, PORT, 1);
            CmId c1 = k.requester(PortSpace.TCP, PORT);
            CmId c2 = k.requester(PortSpace.TCP, PORT);
            long t0 = k.now();
            c1.connect(null);
            c2.connect(null);
            return new TwoRequests(c1, c2, t0);
        }
    }

    /** Accepts {@code request} (NULL parameters), acknowledges it, and checks ESTABLISHED on both sides' ids. */
    private static void acceptAndEstablish(CmTestKit k, CmEvent request, CmId client) {
        CmTestKit.accept(request, null);
        request.ack();
        assertSame(client, expectAcked(k.chA, CmEventType.ESTABLISHED).id());
        assertSame(request.id(), expectAcked(k.chB, CmEventType.ESTABLISHED).id());
    }

    @Test
    @DisplayName(
            "rdma_listen(3) backlog: a request beyond it is dropped, its sender retries and connects once an accept frees room")
    void shouldConnectARequestBeyondTheBacklogOnceRoomFrees() {
        CmConfig config = CmTestKit.fastConfig();
        try (CmTestKit k = CmTestKit.of(false, config)) {
            TwoRequests two = TwoRequests.overBacklogOfOne(k);
            CmId c1 = two.c1();
            CmId c2 = two.c2();
            long t0 = two.t0();

            k.fabric.deterministicScheduler().advanceTime(100_000L); // both REQs arrive within microseconds
            assertEquals(1, k.chB.pending(), "the backlog of 1 holds one request; the other REQ was dropped");
            CmEvent r1 = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertEquals(c1.srcPort(), r1.id().peerAddress().getPort());
            acceptAndEstablish(k, r1, c1);

            CmEvent r2 = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertEquals(c2.srcPort(), r2.id().peerAddress().getPort());
            assertTrue(
                    r2.timeNanos() - t0 >= config.responseTimeoutNanos(),
                    "the second request arrived by a retry: " + (r2.timeNanos() - t0) + " ns");
            acceptAndEstablish(k, r2, c2);
        }
    }

    @Test
    @DisplayName("rdma_listen(3) backlog: a request dropped until its sender's retries run out ends UNREACHABLE after "
            + "(max_cm_retries + 1) CM response timeouts; the admitted one, never answered, is acknowledged by an MRA "
            + "(IBA 12.6.6) and ends UNREACHABLE only after its remaining retries, each a service timeout longer")
    void shouldEndUnreachableWhenTheBacklogNeverFrees() {
        CmConfig config = CmTestKit.fastConfig().withMraServiceTimeout(16);
        try (CmTestKit k = CmTestKit.of(false, config)) {
            TwoRequests two = TwoRequests.overBacklogOfOne(k);
            CmId c1 = two.c1();
            CmId c2 = two.c2();
            long t0 = two.t0();
            CmEvent r1 = expectAcked(k.chB, CmEventType.CONNECT_REQUEST); // never answered

            long t = config.responseTimeoutNanos();
            int r = config.maxCmRetries();
            long giveUp = (r + 1) * t;
            Map<CmId, CmEvent> unreachable = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                CmEvent e = expectAcked(k.chA, CmEventType.UNREACHABLE);
                unreachable.put(e.id(), e);
            }
            assertEquals(giveUp, unreachable.get(c2).timeNanos() - t0, "c2, always dropped, gives up on time");
            assertEquals(-Errno.ETIMEDOUT.value(), unreachable.get(c2).status());
            assertFalse(c2.requestAcknowledged(), "a dropped REQ earns no MRA");
            // c1's first resend (at T) is MRAed within microseconds; its R - 1 resends left then wait S + T each.
            assertTrue(c1.requestAcknowledged(), "c1's resent REQ was answered with an MRA");
            long mraWait = r * (config.mraServiceTimeoutNanos() + t);
            long c1GaveUp = unreachable.get(c1).timeNanos() - t0;
            assertTrue(
                    c1GaveUp >= t + mraWait && c1GaveUp < 2 * t + mraWait,
                    "c1, MRAed, gives up R x (S + T) after the MRA, not at " + c1GaveUp + " ns");
            assertEquals(-Errno.ETIMEDOUT.value(), unreachable.get(c1).status());
            assertEquals(QpState.ERR, c2.qp().state());
            // The passive side learns that the unanswered request was withdrawn.
            CmEvent gone = expectAcked(k.chB, CmEventType.REJECTED);
            assertSame(r1.id(), gone.id());
            k.assertNoEvent(k.chB);
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_get_request(3): only on a synchronous listening id; the new id carries the request event and is synchronous")
    void shouldReturnRequestsOfASynchronousListener(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId sync = k.cm.createId(null, null, PortSpace.TCP);
            sync.bind(RdmaCm.addressOf(k.b, PORT));
            assertErrno(Errno.EINVAL, sync::getRequest, "not listening");
            sync.listen(4);
            CmId async = k.listener(PortSpace.TCP, PORT + 1, 4);
            assertErrno(Errno.EINVAL, async::getRequest, "not synchronous");

            long t0 = k.now();
            assertNull(sync.getRequest(10, TimeUnit.MILLISECONDS), "no request within the timeout");
            if (!threaded) {
                assertEquals(10_000_000L, k.now() - t0, "the timed wait lasts its timeout in virtual time");
            }

            CmId c = k.requester(PortSpace.TCP, PORT);
            byte[] hello = pattern(20, 3);
            c.connect(ConnParam.withPrivateData(hello));
            CmId conn = sync.getRequest(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(conn);
            assertNull(conn.channel(), "a request of a synchronous listener is synchronous");
            assertEquals(CmEventType.CONNECT_REQUEST, conn.event().type());
            assertSame(sync, conn.event().listenId());
            assertArrayEquals(hello, Arrays.copyOf(conn.event().privateData(), hello.length));
            assertEquals(CmId.State.CONNECT, conn.state());
            conn.createQp(null, qpAttr());
            conn.accept(null); // synchronous: returns established
            assertEquals(CmId.State.ESTABLISHED, conn.state());
            assertEquals(CmEventType.ESTABLISHED, conn.event().type());
            expectAcked(k.chA, CmEventType.ESTABLISHED);
        }
    }

    @Test
    @DisplayName("rdma_get_request(3) blocks until a request arrives; synchronous connect and accept on two threads")
    void shouldBlockInGetRequestUntilARequestArrives() throws Exception {
        try (CmTestKit k = CmTestKit.of(true)) {
            CmId listen = k.cm.createId(null, null, PortSpace.IB);
            listen.bind(RdmaCm.addressOf(k.b, PORT));
            listen.listen(1);
            CompletableFuture<CmId> server = CompletableFuture.supplyAsync(() -> {
                CmId conn = listen.getRequest();
                conn.createQp(null, qpAttr());
                conn.accept(ConnParam.withPrivateData(new byte[] {42}));
                return conn;
            });
            assertFalse(server.isDone(), "rdma_get_request returned without a request");
            CmId c = k.cm.createId(null, null, PortSpace.IB);
            c.resolveAddr(RdmaCm.addressOf(k.a, 0), RdmaCm.addressOf(k.b, PORT), 1000);
            c.resolveRoute(1000);
            c.createQp(null, qpAttr());
            c.connect(null);
            assertEquals(CmId.State.ESTABLISHED, c.state());
            assertEquals(42, c.event().privateData()[0]);
            CmId conn = server.get(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals(CmId.State.ESTABLISHED, conn.state());
            assertEquals(c.qp().qpNum(), conn.qp().query().destQpn());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_migrate_id(3) of a listener: its pending connection requests (listen_id, rdma_get_cm_event(3)) move with it, and so do their new ids")
    void shouldMovePendingConnectionRequestsWithAMigratedListener(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmEventChannel ch2 = k.cm.createEventChannel();
            CmId listen = k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(PortSpace.TCP, PORT, null);
            if (!threaded) {
                k.fabric.deterministicScheduler().advanceTime(100_000L);
                assertEquals(1, k.chB.pending(), "the request is queued on the listener's channel");
            }
            listen.migrate(ch2);
            CmEvent req = expect(ch2, CmEventType.CONNECT_REQUEST);
            assertSame(listen, req.listenId());
            assertSame(ch2, req.id().channel(), "the request's id follows its listener");
            assertEquals(0, k.chB.pending());
            accept(req, null);
            req.ack();
            assertSame(req.id(), expectAcked(ch2, CmEventType.ESTABLISHED).id());
            expectAcked(k.chA, CmEventType.ESTABLISHED);
            // chB no longer serves anything: it can go
            k.chB.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_migrate_id(3) of a listener to synchronous operation: its pending request is then returned by rdma_get_request(3)")
    void shouldHandAPendingRequestToGetRequestAfterMigratingTheListenerToNoChannel(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId listen = k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(PortSpace.TCP, PORT, ConnParam.withPrivateData(new byte[] {5}));
            if (!threaded) {
                k.fabric.deterministicScheduler().advanceTime(100_000L);
                assertEquals(1, k.chB.pending());
            }
            listen.migrate(null);
            CmId conn = listen.getRequest(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(conn, "the request moved to the synchronous listener");
            assertNull(conn.channel());
            assertEquals(5, conn.event().privateData()[0]);
            assertEquals(0, k.chB.pending());
            conn.createQp(null, qpAttr());
            conn.accept(null);
            assertEquals(CmId.State.ESTABLISHED, conn.state());
            expectAcked(k.chA, CmEventType.ESTABLISHED);
            k.chB.destroy();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_migrate_id(3) of a synchronous listener to a channel: a request rdma_get_request(3) has not returned "
                    + "arrives there as CONNECT_REQUEST, its id on the channel")
    void shouldMoveARequestNotYetReturnedByGetRequestWhenASynchronousListenerMigratesToAChannel(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmEventChannel ch2 = k.cm.createEventChannel();
            CmId listen = k.cm.createId(null, "listener", PortSpace.TCP);
            listen.bind(RdmaCm.addressOf(k.b, PORT));
            listen.listen(4);
            k.connecting(PortSpace.TCP, PORT, ConnParam.withPrivateData(new byte[] {6}));
            if (!threaded) {
                k.fabric.deterministicScheduler().advanceTime(100_000L);
            }
            listen.migrate(ch2);
            assertErrno(Errno.EINVAL, () -> listen.getRequest(0, TimeUnit.SECONDS));
            CmEvent req = expect(ch2, CmEventType.CONNECT_REQUEST);
            assertSame(listen, req.listenId());
            assertSame(ch2, req.id().channel(), "the request's id follows its listener");
            assertEquals(6, req.privateData()[0]);
            accept(req, null);
            req.ack();
            assertSame(req.id(), expectAcked(ch2, CmEventType.ESTABLISHED).id());
            expectAcked(k.chA, CmEventType.ESTABLISHED);
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_migrate_id(3) of a synchronous id to a channel: an event it has not consumed (DISCONNECTED) moves to the channel")
    void shouldMoveTheUnconsumedEventOfASynchronousIdToTheChannel(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmTestKit.Conn conn = k.connect(PortSpace.TCP, PORT, null, null);
            CmId c = conn.client();
            c.migrate(null);
            conn.server().disconnect();
            expectAcked(k.chB, CmEventType.DISCONNECTED);
            if (!threaded) {
                k.fabric.deterministicScheduler().advanceTime(100_000L); // the DREQ reaches the synchronous client
            }
            c.migrate(k.chA);
            CmEvent e = expectAcked(k.chA, CmEventType.DISCONNECTED);
            assertSame(c, e.id());
        }
    }

    // ------------------------------------------------------------------ private data

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_connect(3): 56 bytes of private data on RDMA_PS_TCP arrive intact, zero-padded (rdma_get_cm_event(3)); 57 are EINVAL")
    void shouldCarry56BytesOfConnectPrivateDataOnPsTcp(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.requester(PortSpace.TCP, PORT);
            assertErrno(Errno.EINVAL, () -> c.connect(ConnParam.withPrivateData(new byte[57])));
            assertEquals(CmId.State.ROUTE_RESOLVED, c.state(), "a refused connect changes nothing");
            byte[] full = pattern(CmId.MAX_CONNECT_PRIVATE_DATA, 11);
            c.connect(ConnParam.withPrivateData(full));
            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertArrayEquals(full, req.privateData());
            req.id().reject(null);
            req.ack();
            expectAcked(k.chA, CmEventType.REJECTED);

            CmId c2 = k.requester(PortSpace.TCP, PORT);
            byte[] shortData = pattern(5, 1);
            c2.connect(ConnParam.withPrivateData(shortData));
            CmEvent req2 = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            byte[] padded = Arrays.copyOf(shortData, CmId.MAX_CONNECT_PRIVATE_DATA);
            assertArrayEquals(padded, req2.privateData(), "the rest of the private data buffer is zeroed");
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_connect(3) on RDMA_PS_IB: the whole 92-byte IB CM REQ private data field is the user's; 93 are EINVAL")
    void shouldCarry92BytesOfConnectPrivateDataOnPsIb(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.IB, PORT, 4);
            CmId c = k.requester(PortSpace.IB, PORT);
            assertErrno(Errno.EINVAL, () -> c.connect(ConnParam.withPrivateData(new byte[93])));
            byte[] full = pattern(CmId.MAX_CONNECT_PRIVATE_DATA_IB, 29);
            assertEquals(92, full.length);
            c.connect(ConnParam.withPrivateData(full));
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            assertArrayEquals(full, req.privateData());
            assertEquals(PortSpace.IB, req.id().portSpace());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_accept(3): 196 bytes of private data arrive intact with ESTABLISHED; 197 are EINVAL and leave the request pending")
    void shouldCarry196BytesOfAcceptPrivateData(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(PortSpace.TCP, PORT, null);
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            CmId s = req.id();
            s.createQp(null, qpAttr());
            assertErrno(Errno.EINVAL, () -> s.accept(ConnParam.withPrivateData(new byte[197])));
            byte[] full = pattern(CmId.MAX_ACCEPT_PRIVATE_DATA, 5);
            assertEquals(196, full.length);
            s.accept(ConnParam.withPrivateData(full));
            CmEvent est = expectAcked(k.chA, CmEventType.ESTABLISHED);
            assertArrayEquals(full, est.privateData());
            expectAcked(k.chB, CmEventType.ESTABLISHED);
            assertErrno(Errno.EINVAL, () -> s.accept(null), "nothing left to accept");

            CmId c2 = k.connecting(PortSpace.TCP, PORT, null);
            CmEvent req2 = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            accept(req2, ConnParam.withPrivateData(new byte[] {1, 2, 3}));
            CmEvent est2 = expectAcked(k.chA, CmEventType.ESTABLISHED);
            assertArrayEquals(Arrays.copyOf(new byte[] {1, 2, 3}, 196), est2.privateData());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_reject(3): 148 bytes of private data arrive with REJECTED, reason CONSUMER_DEFINED; 149 are EINVAL")
    void shouldCarry148BytesOfRejectPrivateDataWithAConsumerDefinedReject(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(PortSpace.TCP, PORT, null);
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            assertErrno(Errno.EINVAL, () -> req.id().reject(new byte[149]));
            byte[] full = pattern(CmId.MAX_REJECT_PRIVATE_DATA, 77);
            assertEquals(148, full.length);
            req.id().reject(full);
            CmEvent rej = expectAcked(k.chA, CmEventType.REJECTED);
            assertSame(c, rej.id());
            assertEquals(RejectReason.CONSUMER_DEFINED, rej.rejectReason());
            assertEquals(RejectReason.CONSUMER_DEFINED.code(), rej.status(), "status is the IB CM reject reason");
            assertArrayEquals(full, rej.privateData());
            assertEquals(QpState.ERR, c.qp().state());
            assertErrno(Errno.EINVAL, () -> req.id().reject(null), "the request is answered");
            assertErrno(Errno.EINVAL, () -> c.reject(null), "rdma_reject(3) is for the id of a connection request");
            assertErrno(Errno.EINVAL, () -> c.accept(null), "rdma_accept(3) is not called on an active id");

            CmId c2 = k.connecting(PortSpace.TCP, PORT, null);
            expectAcked(k.chB, CmEventType.CONNECT_REQUEST).id().reject(new byte[] {9});
            CmEvent rej2 = expectAcked(k.chA, CmEventType.REJECTED);
            assertArrayEquals(Arrays.copyOf(new byte[] {9}, 148), rej2.privateData());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_connect(3) on a synchronous id: a reject fails the call (ECONNREFUSED) with the REJECTED event and its private data")
    void shouldThrowTheRejectOfASynchronousConnect(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            Rejecter.listen(k, PORT, new byte[] {'n', 'o'});
            CmId c = k.cm.createId(null, null, PortSpace.TCP);
            c.resolveAddr(RdmaCm.addressOf(k.a, 0), RdmaCm.addressOf(k.b, PORT), 1000);
            c.resolveRoute(1000);
            c.createQp(null, qpAttr());
            CmException ex = assertThrows(CmException.class, () -> c.connect(null));
            assertEquals(Errno.ECONNREFUSED, ex.errno());
            assertEquals(CmEventType.REJECTED, ex.event().type());
            assertEquals(RejectReason.CONSUMER_DEFINED, ex.event().rejectReason());
            assertEquals('n', ex.event().privateData()[0]);
            assertEquals('o', ex.event().privateData()[1]);
        }
    }

    /** A handler-channel listener that rejects every request with fixed private data (runs on the device's executor). */
    private static final class Rejecter {
        static CmId listen(CmTestKit k, int port, byte[] data) {
            CmEventChannel ch = k.cm.createEventChannel(e -> {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    e.id().reject(data);
                }
                e.ack();
            });
            CmId l = k.cm.createId(ch, null, PortSpace.TCP);
            l.bind(RdmaCm.addressOf(k.b, port));
            l.listen(8);
            return l;
        }
    }

    // ------------------------------------------------------------------ resources

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_get_cm_event(3) / rdma_accept(3): the request shows the peer's values swapped; a NULL accept adjusts them down to the device; the QPs get them")
    void shouldNegotiateResponderResourcesAndInitiatorDepth(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(
                threaded,
                CmConfig.defaults(),
                DeviceConfig.named("a"),
                DeviceConfig.named("b").maxQpRdAtom(2).maxQpInitRdAtom(4))) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(
                    PortSpace.TCP,
                    PORT,
                    ConnParam.defaults().responderResources(5).initiatorDepth(3));
            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertEquals(3, req.param().responderResources(), "responder_resources = the peer's initiator depth");
            assertEquals(5, req.param().initiatorDepth(), "initiator_depth = the peer's responder resources");
            CmId s = accept(req, null);
            req.ack();
            CmEvent ce = expectAcked(k.chA, CmEventType.ESTABLISHED);
            CmEvent se = expectAcked(k.chB, CmEventType.ESTABLISHED);
            // NULL accept: responder resources min(3, max_qp_rd_atom 2) = 2, initiator depth min(5, max_qp_init_rd_atom
            // 4) = 4
            assertEquals(2, se.param().responderResources());
            assertEquals(4, se.param().initiatorDepth());
            assertEquals(4, ce.param().responderResources(), "the active side sees the accept's initiator depth");
            assertEquals(2, ce.param().initiatorDepth(), "and its responder resources");

            QpAttr cq = c.qp().query();
            QpAttr sq = s.qp().query();
            assertEquals(2, cq.maxRdAtomic(), "the active side reads at most what the passive side takes: min(3, 2)");
            assertEquals(4, cq.maxDestRdAtomic());
            assertEquals(2, sq.maxDestRdAtomic());
            assertEquals(4, sq.maxRdAtomic());
            assertTrue(cq.maxRdAtomic() <= sq.maxDestRdAtomic());
            assertTrue(sq.maxRdAtomic() <= cq.maxDestRdAtomic());
            assertTrue(cq.accessFlags().contains(AccessFlag.REMOTE_READ));
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_connect(3) / rdma_accept(3) limits: responder_resources <= max_qp_rd_atom, initiator_depth <= max_qp_init_rd_atom and, on accept, <= the request's")
    void shouldRefuseResourcesBeyondTheLimits(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(
                threaded,
                CmConfig.defaults(),
                DeviceConfig.named("a").maxQpRdAtom(4).maxQpInitRdAtom(3),
                DeviceConfig.named("b").maxQpRdAtom(2).maxQpInitRdAtom(8))) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.requester(PortSpace.TCP, PORT);
            assertErrno(Errno.EINVAL, () -> c.connect(ConnParam.defaults().responderResources(5)));
            assertErrno(Errno.EINVAL, () -> c.connect(ConnParam.defaults().initiatorDepth(4)));
            c.connect(ConnParam.defaults().responderResources(4).initiatorDepth(3));
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            CmId s = req.id();
            s.createQp(null, qpAttr());
            assertErrno(
                    Errno.EINVAL,
                    () -> s.accept(ConnParam.defaults().responderResources(3).initiatorDepth(1)),
                    "responder_resources over b's max_qp_rd_atom 2");
            assertErrno(
                    Errno.EINVAL,
                    () -> s.accept(ConnParam.defaults().responderResources(1).initiatorDepth(5)),
                    "initiator_depth over the request's 4");
            s.accept(ConnParam.defaults().responderResources(2).initiatorDepth(4));
            CmEvent ce = expectAcked(k.chA, CmEventType.ESTABLISHED);
            assertEquals(2, ce.param().initiatorDepth());
            expectAcked(k.chB, CmEventType.ESTABLISHED);
            assertEquals(2, c.qp().query().maxRdAtomic());
            assertEquals(4, s.qp().query().maxRdAtomic());
            assertEquals(4, c.qp().query().maxDestRdAtomic());

            assertThrows(
                    IllegalArgumentException.class, () -> ConnParam.defaults().responderResources(256));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> ConnParam.defaults().retryCount(8),
                    "retry count is a 3-bit value (rdma_connect(3))");
            assertThrows(
                    IllegalArgumentException.class, () -> ConnParam.defaults().rnrRetryCount(8));
        }
    }

    // ------------------------------------------------------------------ rejects

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "RDMA_CM_EVENT_REJECTED (rdma_get_cm_event(3)): no listener on the service is the remote CM's reject INVALID_SERVICE_ID")
    void shouldBeRejectedWithInvalidServiceIdWhenNobodyListens(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId c = k.connecting(PortSpace.TCP, PORT, ConnParam.withPrivateData(new byte[] {1}));
            CmEvent rej = expectAcked(k.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_SERVICE_ID, rej.rejectReason());
            assertEquals(8, rej.status());
            assertArrayEquals(
                    new byte[CmId.MAX_REJECT_PRIVATE_DATA], rej.privateData(), "the CM sends no private data");
            assertEquals(QpState.ERR, c.qp().state());
            assertEquals(0, k.chB.pending());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_destroy_id(3) of an unanswered request id rejects it with reason TIMEOUT, as the IB CM destroys a REQ_RCVD id")
    void shouldRejectWithTimeoutWhenThePassiveSideDestroysTheRequestId(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(PortSpace.TCP, PORT, null);
            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertErrno(Errno.EBUSY, req.id()::destroy, "its request event is not acknowledged");
            req.ack();
            req.id().destroy();
            CmEvent rej = expectAcked(k.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.TIMEOUT, rej.rejectReason());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "CONNECT_ERROR / REJECTED: an active QP that cannot move to RTR fails the connection on the active side and rejects it (NO_QP) to the passive one")
    void shouldReportConnectErrorAndRejectNoQpWhenTheActiveQpCannotConnect(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(PortSpace.TCP, PORT, null);
            c.qp().modify(new QpAttr().state(QpState.ERR));
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            accept(req, null);
            CmEvent err = expectAcked(k.chA, CmEventType.CONNECT_ERROR);
            assertSame(c, err.id());
            assertTrue(err.status() < 0, "a negative errno: " + err.status());
            CmEvent rej = expectAcked(k.chB, CmEventType.REJECTED);
            assertSame(req.id(), rej.id());
            assertEquals(RejectReason.NO_QP, rej.rejectReason());
            assertEquals(QpState.ERR, req.id().qp().state());
        }
    }

    @ParameterizedTest(name = "bound={0}")
    @ValueSource(booleans = {true, false})
    @DisplayName(
            "rdma_destroy_id(3) of a synchronous listener refuses the requests it never handed out at once, not after the requester's retries")
    void shouldRejectUnretrievedRequestsWhenASynchronousListenerIsDestroyed(boolean bound) {
        CmConfig config = CmTestKit.fastConfig();
        try (CmTestKit k = CmTestKit.of(false, config)) {
            CmId listen = k.cm.createId(null, null, PortSpace.TCP);
            listen.bind(bound ? RdmaCm.addressOf(k.b, PORT) : new InetSocketAddress(RdmaCm.WILDCARD, PORT));
            listen.listen(4);
            CmId c = k.requester(PortSpace.TCP, PORT);
            long t0 = k.now();
            c.connect(null);
            k.fabric.deterministicScheduler().advanceTime(100_000L); // the REQ arrives in microseconds
            listen.destroy();
            CmEvent rej = expectAcked(k.chA, CmEventType.REJECTED);
            assertTrue(
                    rej.timeNanos() - t0 < config.responseTimeoutNanos(),
                    "rejected at " + (rej.timeNanos() - t0) + " ns, after a retry");
            assertNotEquals(RejectReason.CONSUMER_DEFINED, rej.rejectReason(), "no application rejected it");
            assertNotEquals(RejectReason.INVALID_SERVICE_ID, rej.rejectReason(), "there was a listener");
        }
    }

    // ------------------------------------------------------------------ CONNECT_RESPONSE / rdma_establish

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_establish(3): an id without a QP gets CONNECT_RESPONSE, and rdma_establish gives the passive side ESTABLISHED")
    void shouldReportConnectResponseAndEstablishIdsWithoutAQp(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.routed(PortSpace.TCP, PORT);
            c.connect(ConnParam.defaults().qpNum(0x1234).responderResources(2).initiatorDepth(1));
            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertEquals(0x1234, req.param().qpNum(), "qp_num names the QP of an id without one");
            CmId s = req.id();
            s.createQp(null, qpAttr());
            byte[] data = pattern(30, 8);
            s.accept(ConnParam.withPrivateData(data).responderResources(1).initiatorDepth(2));
            req.ack();
            CmEvent resp = expect(k.chA, CmEventType.CONNECT_RESPONSE);
            assertSame(c, resp.id());
            assertEquals(s.qp().qpNum(), resp.param().qpNum(), "the passive QP's number");
            assertArrayEquals(Arrays.copyOf(data, CmId.MAX_ACCEPT_PRIVATE_DATA), resp.privateData());
            assertEquals(2, resp.param().responderResources());
            assertEquals(1, resp.param().initiatorDepth());
            resp.ack();
            assertEquals(0, k.chB.pending(), "the passive side waits for the RTU");
            c.establish();
            assertEquals(CmId.State.ESTABLISHED, c.state());
            CmEvent est = expectAcked(k.chB, CmEventType.ESTABLISHED);
            assertSame(s, est.id());
            assertEquals(0x1234, s.qp().query().destQpn());
            assertEquals(QpState.RTS, s.qp().state());
            assertErrno(Errno.EINVAL, c::establish, "no pending CONNECT_RESPONSE");
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_establish(3) must not be used on an id with a QP (EINVAL)")
    void shouldRefuseEstablishOnAnIdWithAQp(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmTestKit.Conn conn = k.connect(PortSpace.TCP, PORT, null, null);
            assertErrno(Errno.EINVAL, conn.client()::establish);
            assertEquals(CmId.State.ESTABLISHED, conn.client().state());
        }
    }

    // ------------------------------------------------------------------ rdma_disconnect

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_disconnect(3): QPs to ERR flushing posted work, DISCONNECTED on both sides, TIMEWAIT_EXIT after the timewait")
    void shouldDisconnectBothSidesAndExitTimewait(boolean threaded) {
        CmConfig config = CmConfig.defaults().withTimewaitNanos(1_000_000L);
        try (CmTestKit k = CmTestKit.of(threaded, config)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmTestKit.Conn conn = k.connect(PortSpace.TCP, PORT, null, null);
            CmId c = conn.client();
            CmId s = conn.server();
            ByteBuffer buf = ByteBuffer.allocate(64);
            MemoryRegion mr = s.pd().registerMemory(buf, EnumSet.of(AccessFlag.LOCAL_WRITE));
            s.qp().postRecv(new RecvWr().wrId(77).sge(mr, 0, 64));

            c.disconnect();
            CmEvent cd = expectAcked(k.chA, CmEventType.DISCONNECTED);
            CmEvent sd = expectAcked(k.chB, CmEventType.DISCONNECTED);
            assertSame(c, cd.id());
            assertSame(s, sd.id());
            assertEquals(QpState.ERR, c.qp().state());
            assertEquals(QpState.ERR, s.qp().state());
            assertEquals(CmId.State.DISCONNECT, c.state());
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertTrue(s.recvCq().awaitCompletions(1, CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(1, s.recvCq().poll(wc));
            assertEquals(77, wc[0].wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, wc[0].status());

            s.disconnect(); // both sides call it; the passive one after DISCONNECTED only confirms
            CmEvent cx = expectAcked(k.chA, CmEventType.TIMEWAIT_EXIT);
            CmEvent sx = expectAcked(k.chB, CmEventType.TIMEWAIT_EXIT);
            if (!threaded) {
                assertEquals(config.timewaitNanos(), cx.timeNanos() - cd.timeNanos());
                assertEquals(config.timewaitNanos(), sx.timeNanos() - sd.timeNanos());
                k.assertNoEvent(k.chA);
                k.assertNoEvent(k.chB);
            }
            mr.deregister();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_disconnect(3) of an id never connected is EINVAL; on a synchronous id it returns after DISCONNECTED")
    void shouldRefuseToDisconnectAnUnconnectedIdAndWaitOnASynchronousOne(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId idle = k.cm.createId(k.chA, null, PortSpace.TCP);
            assertErrno(Errno.EINVAL, idle::disconnect);
            CmId routed = k.routed(PortSpace.TCP, PORT);
            assertErrno(Errno.EINVAL, routed::disconnect);

            k.listener(PortSpace.TCP, PORT, 4);
            CmTestKit.Conn conn = k.connect(PortSpace.TCP, PORT, null, null);
            conn.client().migrate(null);
            conn.client().disconnect();
            assertEquals(CmEventType.DISCONNECTED, conn.client().event().type());
            expectAcked(k.chB, CmEventType.DISCONNECTED);
        }
    }

    // ------------------------------------------------------------------ rdma_notify

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_notify(3) COMM_EST: forces the accepted connection established (EISCONN if the RTU already did); exactly one ESTABLISHED")
    void shouldEstablishOnNotifyAndReportEisconnAfterwards(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.connecting(PortSpace.TCP, PORT, null);
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            CmId s = req.id();
            s.createQp(null, qpAttr());
            assertErrno(Errno.EINVAL, () -> s.notify(AsyncEventType.COMM_EST), "nothing accepted yet");
            s.accept(null);
            if (threaded) {
                try {
                    s.notify(AsyncEventType.COMM_EST);
                } catch (VerbsException e) {
                    assertEquals(Errno.EISCONN, e.errno(), "the only error the RTU winning the race may give");
                }
            } else {
                s.notify(AsyncEventType.COMM_EST); // before the REP has even left
            }
            assertEquals(CmId.State.ESTABLISHED, s.state());
            assertSame(s, expectAcked(k.chB, CmEventType.ESTABLISHED).id());
            expectAcked(k.chA, CmEventType.ESTABLISHED);
            assertErrno(Errno.EISCONN, () -> s.notify(AsyncEventType.COMM_EST));
            assertErrno(Errno.EINVAL, () -> s.notify(AsyncEventType.QP_FATAL), "only COMM_EST is for the CM");
            assertErrno(
                    Errno.EINVAL,
                    () -> k.cm.createId(k.chA, null, PortSpace.TCP).notify(AsyncEventType.COMM_EST));
            if (!threaded) {
                k.assertNoEvent(k.chB); // the late RTU adds no second ESTABLISHED
            } else {
                assertNull(k.chB.getEvent(100, TimeUnit.MILLISECONDS), "a second ESTABLISHED");
            }
        }
    }

    // ------------------------------------------------------------------ rdma_set_option effects

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_set_option(3): RDMA_OPTION_ID_ACK_TIMEOUT sets the QP's ACK timeout, RDMA_OPTION_ID_TOS the path's traffic class")
    void shouldApplyAckTimeoutAndTosToTheConnectedQp(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.routed(PortSpace.TCP, PORT);
            c.setOption(CmOption.ACK_TIMEOUT, 20);
            c.setOption(CmOption.TOS, 96);
            c.createQp(null, qpAttr());
            c.connect(null);
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            accept(req, null);
            expectAcked(k.chA, CmEventType.ESTABLISHED);
            expectAcked(k.chB, CmEventType.ESTABLISHED);
            QpAttr cq = c.qp().query();
            assertEquals(20, cq.timeout());
            assertEquals(96, cq.av().trafficClass());
            assertEquals(96, req.id().qp().query().av().trafficClass(), "both ends use the path's traffic class");

            CmTestKit.Conn plain = k.connect(PortSpace.TCP, PORT, null, null);
            assertEquals(k.cm.config().ackTimeout(), plain.client().qp().query().timeout(), "the configured default");
        }
    }

    // ------------------------------------------------------------------ DEVICE_REMOVAL

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "RDMA_CM_EVENT_DEVICE_REMOVAL (rdma_get_cm_event(3)): ids bound to a closed device are told, and may then be destroyed")
    void shouldReportDeviceRemovalToTheIdsOfAClosedDevice(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId listen = k.listener(PortSpace.TCP, PORT, 4);
            CmId resolved = k.cm.createId(k.chB, null, PortSpace.TCP);
            resolved.resolveAddr(RdmaCm.addressOf(k.b, 0), RdmaCm.addressOf(k.a, 1), 1000);
            expectAcked(k.chB, CmEventType.ADDR_RESOLVED);
            CmId wildcard = k.cm.createId(k.chB, null, PortSpace.TCP);
            wildcard.bind(new InetSocketAddress(RdmaCm.WILDCARD, PORT + 1));
            CmId onA = k.cm.createId(k.chA, null, PortSpace.TCP);
            onA.bind(RdmaCm.addressOf(k.a, PORT));

            k.b.close();
            Map<CmId, CmEvent> removed = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                CmEvent e = expect(k.chB, CmEventType.DEVICE_REMOVAL);
                removed.put(e.id(), e);
            }
            assertTrue(
                    removed.containsKey(listen) && removed.containsKey(resolved),
                    removed.keySet().toString());
            assertEquals(CmId.State.DEVICE_REMOVAL, listen.state());
            assertEquals(CmId.State.DEVICE_REMOVAL, resolved.state());
            assertEquals(CmId.State.ADDR_BOUND, wildcard.state(), "an id bound to no device stays");
            assertEquals(CmId.State.ADDR_BOUND, onA.state());
            assertErrno(Errno.EINVAL, () -> resolved.resolveRoute(1000));
            for (CmEvent e : removed.values()) {
                e.ack();
            }
            listen.destroy();
            resolved.destroy();
            if (!threaded) {
                k.assertNoEvent(k.chB);
                k.assertNoEvent(k.chA);
            }
            assertErrno(
                    Errno.EADDRNOTAVAIL,
                    () -> k.cm.createId(k.chB, null, PortSpace.TCP).bind(RdmaCm.addressOf(k.b, PORT)),
                    "the removed device's address is gone");
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "DEVICE_REMOVAL on a synchronous listener: rdma_get_request(3) ends with an error (ENODEV) instead of waiting forever")
    void shouldEndASynchronousGetRequestWhenTheDeviceIsRemoved(boolean threaded) throws Exception {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId listen = k.cm.createId(null, null, PortSpace.TCP);
            listen.bind(RdmaCm.addressOf(k.b, PORT));
            listen.listen(4);
            if (threaded) {
                CompletableFuture<CmId> waiting = CompletableFuture.supplyAsync(listen::getRequest);
                assertFalse(waiting.isDone());
                k.b.close();
                java.util.concurrent.ExecutionException ex = assertThrows(
                        java.util.concurrent.ExecutionException.class,
                        () -> waiting.get(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS));
                assertEquals(Errno.ENODEV, ((VerbsException) ex.getCause()).errno());
            } else {
                k.b.close();
                assertErrno(Errno.ENODEV, listen::getRequest);
            }
            assertEquals(CmId.State.DEVICE_REMOVAL, listen.state());
            listen.destroy();
        }
    }

    // ------------------------------------------------------------------ CONNECT_ERROR / UNREACHABLE

    @Test
    @DisplayName(
            "RDMA_CM_EVENT_CONNECT_ERROR on the passive side: an accept whose REP is never answered fails after (max_cm_retries + 1) response timeouts")
    void shouldReportConnectErrorWhenTheAcceptIsNeverAnswered() {
        CmConfig config = CmTestKit.fastConfig();
        try (CmTestKit k = CmTestKit.of(false, config)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId c = k.requester(PortSpace.TCP, PORT);
            long t0 = k.now();
            c.connect(null);
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            k.a.setPortActive(false); // the active node drops off
            CmId s = req.id();
            s.createQp(null, qpAttr());
            long t1 = k.now();
            s.accept(null);
            assertEquals(QpState.RTS, s.qp().state());
            long giveUp = (config.maxCmRetries() + 1) * config.responseTimeoutNanos();
            CmEvent err = expectAcked(k.chB, CmEventType.CONNECT_ERROR);
            assertSame(s, err.id());
            assertEquals(giveUp, err.timeNanos() - t1);
            assertEquals(-Errno.ETIMEDOUT.value(), err.status());
            assertEquals(QpState.ERR, s.qp().state());
            CmEvent un = expectAcked(k.chA, CmEventType.UNREACHABLE);
            assertEquals(giveUp, un.timeNanos() - t0);
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "RDMA_CM_EVENT_UNREACHABLE: a request to an address no device owns ends after (max_cm_retries + 1) CM response timeouts")
    void shouldEndUnreachableWhenNoDeviceOwnsTheAddress(boolean threaded) {
        CmConfig config = CmTestKit.fastConfig();
        try (CmTestKit k = CmTestKit.of(threaded, config)) {
            CmId c = k.cm.createId(k.chA, null, PortSpace.TCP);
            InetSocketAddress nowhere = k.cm.getAddrInfo("fe80::dead:beef", "1", AddrInfo.active())
                    .get(0)
                    .dstAddr();
            CmSteps.resolve(c, RdmaCm.addressOf(k.a, 0), nowhere, 1000, CmTestKit.WAIT_SECONDS);
            c.createQp(null, qpAttr());
            long t0 = k.now();
            c.connect(null);
            CmEvent e = expectAcked(k.chA, CmEventType.UNREACHABLE);
            assertSame(c, e.id());
            assertEquals(-Errno.ETIMEDOUT.value(), e.status());
            if (!threaded) {
                assertEquals((config.maxCmRetries() + 1) * config.responseTimeoutNanos(), e.timeNanos() - t0);
            }
            assertEquals(QpState.ERR, c.qp().state());
        }
    }

    // ------------------------------------------------------------------ QP state after establishment

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_connect(3) / rdma_accept(3): both QPs RTS with each other's PSN and QPN, the smaller port MTU, RNR timer 0, retry counts as negotiated")
    void shouldLeaveBothQpsInRtsWithTheNegotiatedAttributes(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(
                threaded, CmConfig.defaults(), DeviceConfig.named("a").maxMtu(Mtu.MTU_1024), DeviceConfig.named("b"))) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmTestKit.Conn conn = k.connect(
                    PortSpace.TCP,
                    PORT,
                    ConnParam.defaults().retryCount(5).rnrRetryCount(3),
                    ConnParam.defaults().rnrRetryCount(6));
            QpAttr cq = conn.client().qp().query();
            QpAttr sq = conn.server().qp().query();
            assertEquals(QpState.RTS, cq.state());
            assertEquals(QpState.RTS, sq.state());
            assertEquals(conn.server().qp().qpNum(), cq.destQpn());
            assertEquals(conn.client().qp().qpNum(), sq.destQpn());
            assertEquals(cq.sqPsn(), sq.rqPsn(), "the passive side expects the REQ's starting PSN");
            assertEquals(sq.sqPsn(), cq.rqPsn(), "the active side expects the REP's starting PSN");
            assertEquals(Mtu.MTU_1024, cq.pathMtu(), "path MTU: the smaller of the two ports");
            assertEquals(Mtu.MTU_1024, sq.pathMtu());
            assertEquals(0, cq.minRnrTimer(), "the minimum RNR NAK timer value is set to 0 (rdma_connect(3))");
            assertEquals(0, sq.minRnrTimer());
            assertEquals(5, cq.retryCnt(), "retry_count of the connect");
            assertEquals(5, sq.retryCnt(), "retry_count of the connect (ignored on accept)");
            assertEquals(6, cq.rnrRetry(), "the peer's rnr_retry_count: how often to retry the peer's RNR NAKs");
            assertEquals(3, sq.rnrRetry());
            assertEquals(conn.server().device().gid(), cq.av().dgid());
            assertEquals(conn.client().device().gid(), sq.av().dgid());
            assertEquals(3, conn.request().param().rnrRetryCount());
            assertEquals(5, conn.request().param().retryCount(), "retry_count, for CONNECT_REQUEST only");
            assertEquals(conn.client().qp().qpNum(), conn.request().param().qpNum());
            assertEquals(
                    conn.server().qp().qpNum(), conn.clientEstablished().param().qpNum());
        }
    }
}
