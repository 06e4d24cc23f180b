package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmTestKit.assertErrno;
import static io.simrdma.fabric.cm.CmTestKit.expectAcked;
import static io.simrdma.fabric.cm.CmTestKit.qpAttr;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * rdma_create_ep(3) exactly as its man page (the project's seed document) says, and
 * rdma_destroy_ep(3): the active side gets a QP when qp_init_attr is given, on the given PD or a
 * default one, and connects without resolve calls; the passive side saves pd and qp_init_attr and
 * applies them to every id rdma_get_request returns, and listens without rdma_bind_addr; new ids
 * are synchronous until rdma_migrate_id; rdma_destroy_ep releases what was created.
 */
@Timeout(120)
class CmCreateEpTest {

    private static final int PORT = 7471;

    /** Active address information for b:port whose source is device a (so the two sides are two devices). */
    private static AddrInfo activeFromA(CmTestKit k, int port) {
        return activeFromA(k, PortSpace.TCP, 0, port);
    }

    /** Active address information of port space {@code ps} for b:port whose source is a:srcPort. */
    private static AddrInfo activeFromA(CmTestKit k, PortSpace ps, int srcPort, int port) {
        AddrInfo hints = new AddrInfo(false, ps, RdmaCm.addressOf(k.a, srcPort), null, null);
        return k.cm.getAddrInfo("b", Integer.toString(port), hints).get(0);
    }

    /** Port {@code port} of a is free again: a new id binds to it (and is destroyed). */
    private static void assertPortFreeOnA(CmTestKit k, int port) {
        CmId again = k.cm.createId(k.chA, null, PortSpace.TCP);
        again.bind(RdmaCm.addressOf(k.a, port));
        again.destroy();
    }

    private static AddrInfo passiveOnB(CmTestKit k, int port) {
        return k.cm.getAddrInfo("b", Integer.toString(port), AddrInfo.passiveHints())
                .get(0);
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_create_ep(3) active with qp_init_attr: a QP on the given protection domain; the id may be connected at once")
    void shouldCreateAQpOnTheGivenPdWhenActive(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            ProtectionDomain pd = k.a.allocPd();
            CmId id = k.cm.createEp(activeFromA(k, PORT), pd, qpAttr());
            QueuePair qp = id.qp();
            assertNotNull(qp, "a QP is created when qp_init_attr is not NULL");
            assertSame(pd, qp.pd());
            assertSame(pd, id.pd());
            assertSame(k.a, id.device());
            assertEquals(QpState.INIT, qp.state());
            assertEquals(
                    CmId.State.ROUTE_RESOLVED,
                    id.state(),
                    "rdma_resolve_addr and rdma_resolve_route are not necessary");
            assertEquals(RdmaCm.addressOf(k.b, PORT), id.peerAddress());
            assertNull(id.channel(), "the newly created rdma_cm_id is set to use synchronous operation");
            assertNotNull(id.sendCq(), "rdma_create_qp(3): CQs are created when qp_init_attr has none");
            id.destroyEp();
            pd.dealloc();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_create_ep(3) active without a pd: the QP is associated with a default protection domain of the device")
    void shouldUseADefaultPdWhenNoneIsGiven(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId first = k.cm.createEp(activeFromA(k, PORT), null, qpAttr());
            CmId second = k.cm.createEp(activeFromA(k, PORT), null, qpAttr());
            ProtectionDomain pd = first.qp().pd();
            assertNotNull(pd);
            assertSame(k.a, pd.device());
            assertSame(pd, second.qp().pd(), "one default PD per device");
            first.destroyEp();
            second.destroyEp();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_create_ep(3) active with a NULL qp_init_attr: no QP; the id still connects without resolve calls (CONNECT_RESPONSE path)")
    void shouldCreateNoQpWithoutQpInitAttr(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId listen = k.listener(PortSpace.TCP, PORT, 4);
            CmId id = k.cm.createEp(activeFromA(k, PORT), k.a.allocPd(), null);
            assertNull(id.qp());
            assertEquals(CmId.State.ROUTE_RESOLVED, id.state());
            id.migrate(k.chA);
            id.connect(ConnParam.defaults().qpNum(0x77));
            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            assertSame(listen, req.listenId());
            req.id().createQp(null, qpAttr());
            req.id().accept(null);
            expectAcked(k.chA, CmEventType.CONNECT_RESPONSE);
            id.establish();
            expectAcked(k.chB, CmEventType.ESTABLISHED);
            assertEquals(0x77, req.id().qp().query().destQpn());
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_create_ep(3) passive: rdma_listen may follow at once without rdma_bind_addr, on the node's address or the wildcard one")
    void shouldListenAtOnceWithoutBind(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId onB = k.cm.createEp(passiveOnB(k, PORT), null, qpAttr());
            assertEquals(CmId.State.ADDR_BOUND, onB.state());
            assertSame(k.b, onB.device());
            assertEquals(RdmaCm.addressOf(k.b, PORT), onB.localAddress());
            assertNull(onB.qp(), "the passive id itself gets no QP");
            assertNull(onB.channel());
            onB.listen(4);
            assertEquals(CmId.State.LISTEN, onB.state());

            CmId any = k.cm.createEp(
                    k.cm.getAddrInfo(null, Integer.toString(PORT + 1), AddrInfo.passiveHints())
                            .get(0),
                    null,
                    qpAttr());
            assertNull(any.device());
            assertTrue(any.localAddress().getAddress().isAnyLocalAddress());
            assertEquals(PORT + 1, any.srcPort());
            any.listen(4);
            onB.destroyEp();
            any.destroyEp();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_create_ep(3) passive: the saved pd and qp_init_attr give every id rdma_get_request returns its QP; those ids are synchronous")
    void shouldApplyTheSavedPdAndQpInitAttrToEveryRequest(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            ProtectionDomain pd = k.b.allocPd();
            CompletionQueue scq = k.b.createCq(64);
            CompletionQueue rcq = k.b.createCq(64);
            QpCaps caps = new QpCaps(7, 9, 2, 3, 32);
            QpInitAttr attr = QpInitAttr.rc(scq, rcq).caps(caps).sqSigAll(true);
            CmId listen = k.cm.createEp(passiveOnB(k, PORT), pd, attr);
            listen.listen(4);

            List<CmId> clients = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                CmId c = k.cm.createEp(activeFromA(k, PORT), null, qpAttr());
                c.migrate(k.chA);
                c.connect(null);
                clients.add(c);
            }
            List<CmId> conns = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                CmId conn = listen.getRequest();
                assertNotNull(conn.qp(), "the new id is associated with a QP");
                assertSame(pd, conn.qp().pd());
                assertSame(scq, conn.qp().sendCq());
                assertSame(rcq, conn.qp().recvCq());
                assertEquals(caps, conn.qp().caps());
                assertTrue(conn.qp().sqSigAll());
                assertEquals(QpState.INIT, conn.qp().state());
                assertNull(conn.channel(), "synchronous, like its listener");
                assertEquals(CmEventType.CONNECT_REQUEST, conn.event().type());
                conn.accept(null); // synchronous: returns once established
                assertEquals(QpState.RTS, conn.qp().state());
                conns.add(conn);
            }
            assertNotSame(conns.get(0).qp(), conns.get(1).qp());
            for (int i = 0; i < 2; i++) {
                CmEvent e = expectAcked(k.chA, CmEventType.ESTABLISHED);
                assertTrue(clients.contains(e.id()));
            }
            // rdma_destroy_ep(3) of the request ids: their QPs go, the user's CQs and PD stay usable until freed
            for (CmId conn : conns) {
                conn.disconnect();
                conn.destroyEp();
                assertEquals(CmId.State.DESTROYED, conn.state());
            }
            listen.destroyEp();
            scq.destroy();
            rcq.destroy();
            pd.dealloc();
        }
    }

    @Test
    @DisplayName("rdma_create_ep(3): both sides synchronous on two threads, as rdma_server(1)/rdma_client(1) use it")
    void shouldConnectSynchronousEndpointsOnTwoThreads() throws Exception {
        try (CmTestKit k = CmTestKit.of(true)) {
            CmId listen = k.cm.createEp(passiveOnB(k, PORT), null, qpAttr());
            listen.listen(1);
            byte[][] requestData = new byte[1][];
            CompletableFuture<CmId> server = CompletableFuture.supplyAsync(() -> {
                CmId conn = listen.getRequest();
                requestData[0] = conn.event().privateData();
                conn.accept(ConnParam.withPrivateData(new byte[] {'o', 'k'}));
                return conn;
            });
            CmId client = k.cm.createEp(activeFromA(k, PORT), null, qpAttr());
            client.connect(ConnParam.withPrivateData(new byte[] {'h', 'i'}));
            assertEquals(CmId.State.ESTABLISHED, client.state());
            assertEquals(CmEventType.ESTABLISHED, client.event().type());
            assertEquals('o', client.event().privateData()[0]);
            CmId conn = server.get(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals('h', requestData[0][0]);
            assertEquals('i', requestData[0][1]);
            assertEquals(CmEventType.ESTABLISHED, conn.event().type());
            assertEquals(QpState.RTS, conn.qp().state());
            assertEquals(QpState.RTS, client.qp().state());
            assertSame(k.b, conn.qp().pd().device(), "no pd saved: the request's QP is on b's default PD");
            client.disconnect();
            conn.disconnect();
            client.destroyEp();
            conn.destroyEp();
            listen.destroyEp();
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_create_ep(3): synchronous until rdma_migrate_id(3) moves the new id to a user created channel")
    void shouldBeSynchronousUntilMigratedToAChannel(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            CmId listen = k.cm.createEp(passiveOnB(k, PORT), null, qpAttr());
            listen.listen(4);
            CmId client = k.cm.createEp(activeFromA(k, PORT), null, qpAttr());
            assertNull(client.channel());
            client.migrate(k.chA);
            assertSame(k.chA, client.channel());
            client.connect(null); // asynchronous now: returns at once
            CmId conn = listen.getRequest(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(conn);
            conn.migrate(k.chB);
            conn.accept(null); // asynchronous too
            assertSame(conn, expectAcked(k.chB, CmEventType.ESTABLISHED).id());
            assertSame(client, expectAcked(k.chA, CmEventType.ESTABLISHED).id());
            listen.migrate(k.chB);
            assertErrno(Errno.EINVAL, listen::getRequest, "rdma_get_request(3) only on synchronous ids");
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_destroy_ep(3): releases the id, its QP and the CQs created for it; the user's PD is free again")
    void shouldReleaseEverythingItCreatedOnDestroyEp(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            ProtectionDomain pd = k.a.allocPd();
            CmId id = k.cm.createEp(activeFromA(k, PortSpace.TCP, 5555, PORT), pd, qpAttr());
            QueuePair qp = id.qp();
            CompletionQueue scq = id.sendCq();
            CompletionQueue rcq = id.recvCq();
            assertErrno(Errno.EBUSY, pd::dealloc, "the QP holds the PD");
            id.destroyEp();
            assertEquals(CmId.State.DESTROYED, id.state());
            assertNull(id.qp());
            assertErrno(Errno.ENOENT, qp::destroy, "the QP is already destroyed (a stale handle)");
            assertErrno(Errno.ENOENT, scq::destroy, "the send CQ is already destroyed");
            assertErrno(Errno.ENOENT, rcq::destroy, "the receive CQ is already destroyed");
            assertErrno(Errno.EINVAL, id::destroy, "the id is already destroyed");
            pd.dealloc();
            assertPortFreeOnA(k, 5555); // the port went with the id
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_create_ep(3) with a protection domain of another device fails (EINVAL) and leaves nothing behind")
    void shouldFailWithAPdOfAnotherDeviceAndLeaveNothing(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            ProtectionDomain pdB = k.b.allocPd();
            AddrInfo res = activeFromA(k, PortSpace.TCP, 5556, PORT);
            assertErrno(Errno.EINVAL, () -> k.cm.createEp(res, pdB, qpAttr()));
            pdB.dealloc();
            assertPortFreeOnA(k, 5556);
        }
    }

    @Test
    @DisplayName(
            "rdma_create_ep(3) active with the local port down: the address resolution fails and the id is released")
    void shouldFailAndReleaseTheIdWhenTheAddressCannotBeResolved() {
        try (CmTestKit k = CmTestKit.of(false)) {
            k.a.setPortActive(false);
            AddrInfo res = activeFromA(k, PortSpace.TCP, 5557, PORT);
            CmException ex = assertThrows(CmException.class, () -> k.cm.createEp(res, null, qpAttr()));
            assertEquals(CmEventType.ADDR_ERROR, ex.event().type());
            assertEquals(CmId.State.DESTROYED, ex.event().id().state());
            assertPortFreeOnA(k, 5557); // the port went with the failed id
        }
    }

    @ParameterizedTest(name = "threaded={0}")
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_create_ep(3) RDMA_PS_IB: the port space of the address information is the id's")
    void shouldTakeThePortSpaceFromTheAddressInformation(boolean threaded) {
        try (CmTestKit k = CmTestKit.of(threaded)) {
            AddrInfo passive = k.cm.getAddrInfo(
                            "b", Integer.toString(PORT), new AddrInfo(true, PortSpace.IB, null, null, null))
                    .get(0);
            CmId listen = k.cm.createEp(passive, null, qpAttr());
            assertEquals(PortSpace.IB, listen.portSpace());
            listen.listen(2);
            CmId client = k.cm.createEp(activeFromA(k, PortSpace.IB, 0, PORT), null, qpAttr());
            assertEquals(PortSpace.IB, client.portSpace());
            client.migrate(k.chA);
            byte[] data = CmTestKit.pattern(CmId.MAX_CONNECT_PRIVATE_DATA_IB, 4);
            client.connect(ConnParam.withPrivateData(data));
            CmId conn = listen.getRequest(CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(conn);
            assertEquals(PortSpace.IB, conn.portSpace());
            assertArrayEquals(data, conn.event().privateData());
            assertNotNull(conn.qp());
            conn.reject(null);
            expectAcked(k.chA, CmEventType.REJECTED);
        }
    }
}
