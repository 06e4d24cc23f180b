package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmTestKit.expect;
import static io.simrdma.fabric.cm.CmTestKit.expectAcked;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AddressHandle;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QpType;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcFlag;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * rdma_cm's UDP port space (RDMA_PS_UDP): an id's QP is a UD QP; rdma_connect(3) "initiates a
 * lookup of the remote QP providing the datagram service" with an IB CM SIDR REQ; rdma_accept
 * answers with a SIDR REP naming the QP and Q_Key, reported to the active side as ESTABLISHED with
 * the UD event data of rdma_get_cm_event(3); a reject or a missing listener is UNREACHABLE with
 * the SIDR REP's status, no answer UNREACHABLE with -ETIMEDOUT.
 */
class CmUdpTest {

    private static final int PORT = 7474;

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @DisplayName(
            "rdma_connect(3) / rdma_accept(3) / rdma_get_cm_event(3) UD EVENT DATA: SIDR REQ -> CONNECT_REQUEST, SIDR REP -> ESTABLISHED with ah_attr, qp_num, qkey and private data; a datagram then flows")
    void shouldResolveRemoteUdQpWhenAccepted(boolean threaded) {
        try (CmTestKit k = CmTestKit.seeded(threaded, 41)) {
            CmId listen = k.listener(PortSpace.UDP, PORT, 4);
            CmId client = k.requester(PortSpace.UDP, PORT);
            assertEquals(QpType.UD, typeOf(client), "rdma_create_qp on an RDMA_PS_UDP id makes a UD QP");
            assertEquals(QpState.RTS, client.qp().state(), "a UD id's QP is ready at once");
            assertEquals(CmId.RDMA_UDP_QKEY, client.qp().query().qkey());
            client.connect(ConnParam.withPrivateData(text("who is there")));

            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            assertEquals("who is there", new String(req.privateData(), 0, 12, StandardCharsets.US_ASCII));
            assertNotNull(req.ud(), "a UD request carries UD event data");
            CmId server = CmTestKit.accept(req, ConnParam.withPrivateData(text("here")));
            req.ack();

            CmEvent est = expectAcked(k.chA, CmEventType.ESTABLISHED);
            UdParam ud = est.ud();
            assertNotNull(ud, "ESTABLISHED of a UDP id carries UD event data");
            assertEquals(server.qp().qpNum(), ud.qpNum(), "qp_num: the remote QP");
            assertEquals(CmId.RDMA_UDP_QKEY, ud.qkey(), "qkey: the remote QP's Q_Key");
            assertEquals(k.b.gid(), ud.ahAttr().dgid(), "ah_attr: a path to the remote port");
            assertEquals("here", new String(ud.privateData(), 0, 4, StandardCharsets.US_ASCII));
            assertEquals(CmId.State.ESTABLISHED, client.state());

            // The UD event data is all a datagram needs.
            AddressHandle ah = client.qp().pd().createAh(ud.ahAttr());
            ByteBuffer sb = ByteBuffer.allocate(64);
            ByteBuffer rb = ByteBuffer.allocate(128);
            sb.put(0, text("datagram"));
            MemoryRegion smr = client.qp().pd().registerMemory(sb, EnumSet.of(AccessFlag.LOCAL_WRITE));
            MemoryRegion rmr = server.qp().pd().registerMemory(rb, EnumSet.of(AccessFlag.LOCAL_WRITE));
            server.qp().postRecv(new RecvWr().wrId(1).sge(rmr, 0, 128));
            client.qp()
                    .postSend(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.SEND)
                            .sge(smr, 0, 8)
                            .ud(ah, ud.qpNum(), ud.qkey())
                            .flag(SendFlag.SIGNALED));
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertTrue(server.recvCq().awaitCompletions(1, CmTestKit.WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(1, server.recvCq().poll(wc, 1));
            assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
            assertTrue(wc[0].hasFlag(WcFlag.GRH));
            assertEquals(client.qp().qpNum(), wc[0].srcQp());
            byte[] got = new byte[8];
            rb.get(AddressHandle.GRH_LENGTH, got);
            assertArrayEquals(text("datagram"), got);
            listen.destroy();
        }
    }

    private static QpType typeOf(CmId id) {
        return ((io.simrdma.fabric.internal.ucud.UnreliableQueuePair) id.qp()).type();
    }

    @Test
    @DisplayName(
            "rdma_get_cm_event(3) UNREACHABLE: a rejected UD resolution reports the SIDR REP status (2, rejected) with the reject's private data")
    void shouldReportUnreachableWithSidrStatusWhenRejected() {
        try (CmTestKit k = CmTestKit.seeded(false, 42)) {
            k.listener(PortSpace.UDP, PORT, 4);
            CmId client = k.requester(PortSpace.UDP, PORT);
            client.connect(null);
            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            req.id().reject(text("go away"));
            req.ack();
            CmEvent e = expectAcked(k.chA, CmEventType.UNREACHABLE);
            assertEquals(ConnectionMachine.SIDR_REJECT, e.status(), "the SIDR REP's status");
            assertEquals("go away", new String(e.privateData(), 0, 7, StandardCharsets.US_ASCII));
            assertEquals(CmId.State.DISCONNECT, client.state());
        }
    }

    @Test
    @DisplayName(
            "rdma_get_cm_event(3) UNREACHABLE: no RDMA_PS_UDP listener on the port: SIDR REP status 1 (service ID not supported, IBA table 115)")
    void shouldReportUnreachableWhenNobodyListens() {
        try (CmTestKit k = CmTestKit.seeded(false, 43)) {
            k.listener(PortSpace.TCP, PORT, 4);
            CmId client = k.requester(PortSpace.UDP, PORT);
            client.connect(null);
            CmEvent e = expectAcked(k.chA, CmEventType.UNREACHABLE);
            assertEquals(ConnectionMachine.SIDR_UNSUPPORTED, e.status());
            assertNull(k.chB.pollEvent(), "the TCP listener of the same port heard nothing");
        }
    }

    @Test
    @DisplayName(
            "rdma_get_cm_event(3) UNREACHABLE: a SIDR REQ nobody answers ends after the CM retries with -ETIMEDOUT")
    void shouldReportUnreachableWithEtimedoutWhenNoAnswer() {
        try (CmTestKit k = CmTestKit.of(false, CmTestKit.fastConfig())) {
            k.fabric
                    .link(k.a, k.b)
                    .addFault(io.simrdma.fabric.FaultRule.drop(io.simrdma.fabric.PacketMatcher.managementDatagrams()));
            CmId client = k.requester(PortSpace.UDP, PORT);
            client.connect(null);
            CmEvent e = expectAcked(k.chA, CmEventType.UNREACHABLE);
            assertEquals(-110, e.status(), "-ETIMEDOUT");
        }
    }

    @Test
    @DisplayName(
            "rdma_connect(3): RDMA_PS_UDP private data is limited to 180 bytes; rdma_accept(3): to 136 (EINVAL beyond)")
    void shouldLimitPrivateDataWhenUdp() {
        try (CmTestKit k = CmTestKit.seeded(false, 44)) {
            k.listener(PortSpace.UDP, PORT, 4);
            CmId client = k.requester(PortSpace.UDP, PORT);
            CmTestKit.assertErrno(
                    io.simrdma.fabric.Errno.EINVAL, () -> client.connect(ConnParam.withPrivateData(new byte[181])));
            client.connect(ConnParam.withPrivateData(new byte[180]));
            CmEvent req = expect(k.chB, CmEventType.CONNECT_REQUEST);
            CmId server = req.id();
            server.createQp(null, CmTestKit.qpAttr());
            CmTestKit.assertErrno(
                    io.simrdma.fabric.Errno.EINVAL, () -> server.accept(ConnParam.withPrivateData(new byte[137])));
            server.accept(ConnParam.withPrivateData(new byte[136]));
            req.ack();
            assertEquals(136, expectAcked(k.chA, CmEventType.ESTABLISHED).ud().privateData().length);
        }
    }
}
