package io.simrdma.fabric.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CmSmokeTest {

    @Test
    void shouldConnectWithAsyncChannels() {
        try (CmTestKit k = CmTestKit.seeded(false, 3)) {
            CmId listen = k.listener(PortSpace.TCP, 7471, 4);

            // unbound: the CM picks the source device
            CmId client = k.cm.createId(k.chA, null, PortSpace.TCP);
            CmSteps.resolve(client, null, RdmaCm.addressOf(k.b, 7471), 1000, 1);
            client.createQp(null, CmTestKit.qpAttr());
            client.connect(ConnParam.withPrivateData("hello".getBytes(StandardCharsets.US_ASCII)));

            CmEvent req = CmSteps.next(k.chB, CmEventType.CONNECT_REQUEST, 1);
            assertEquals("hello", new String(req.privateData(), 0, 5, StandardCharsets.US_ASCII));
            CmId server =
                    CmTestKit.accept(req, ConnParam.withPrivateData("welcome".getBytes(StandardCharsets.US_ASCII)));
            req.ack();

            CmEvent e = CmSteps.nextAcked(k.chA, CmEventType.ESTABLISHED, 1);
            assertEquals("welcome", new String(e.privateData(), 0, 7, StandardCharsets.US_ASCII));
            CmSteps.nextAcked(k.chB, CmEventType.ESTABLISHED, 1);
            assertEquals(QpState.RTS, client.qp().state());
            assertEquals(QpState.RTS, server.qp().state());

            // data over the connection
            ByteBuffer sb = ByteBuffer.allocate(64);
            ByteBuffer rb = ByteBuffer.allocate(64);
            sb.put(0, "ping".getBytes(StandardCharsets.US_ASCII));
            MemoryRegion smr = client.qp().pd().registerMemory(sb, EnumSet.of(AccessFlag.LOCAL_WRITE));
            MemoryRegion rmr = server.qp().pd().registerMemory(rb, EnumSet.of(AccessFlag.LOCAL_WRITE));
            server.qp().postRecv(new RecvWr().wrId(1).sge(rmr, 0, 64));
            client.qp()
                    .postSend(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.SEND)
                            .sge(smr, 0, 4)
                            .flag(SendFlag.SIGNALED));
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertTrue(server.recvCq().awaitCompletions(1, 1, TimeUnit.SECONDS));
            server.recvCq().poll(wc);
            assertEquals(WcStatus.SUCCESS, wc[0].status());
            assertEquals('p', rb.get(0));

            client.disconnect();
            CmSteps.nextAcked(k.chA, CmEventType.DISCONNECTED, 1);
            CmSteps.nextAcked(k.chB, CmEventType.DISCONNECTED, 1);
            server.disconnect();
            CmSteps.nextAcked(k.chA, CmEventType.TIMEWAIT_EXIT, 1);
            smr.deregister();
            rmr.deregister();
            client.destroyEp();
            server.destroyEp();
            listen.destroy();
        }
    }

    @Test
    void shouldConnectWithCreateEpSynchronously() {
        try (CmTestKit k = CmTestKit.seeded(false, 4)) {
            RdmaCm cm = k.cm;
            QpInitAttr attr = CmTestKit.qpAttr();
            CmId listen = cm.createEp(
                    cm.getAddrInfo("b", "7471", AddrInfo.passiveHints()).get(0), null, attr);
            listen.listen(1);
            CmId client =
                    cm.createEp(cm.getAddrInfo("b", "7471", AddrInfo.active()).get(0), null, attr);
            assertNotNull(client.qp());
            // Connect blocks in sync mode until ESTABLISHED; the passive side must accept meanwhile.
            // Under the deterministic scheduler the request is queued first, then get_request/accept run.
            CmEventChannel ch = cm.createEventChannel();
            client.migrate(ch);
            client.connect(null);
            CmId conn = listen.getRequest();
            assertNotNull(conn.qp());
            assertEquals(CmEventType.CONNECT_REQUEST, conn.event().type());
            conn.migrate(cm.createEventChannel());
            conn.accept(null);
            CmSteps.nextAcked(ch, CmEventType.ESTABLISHED, 1);
            assertEquals(QpState.RTS, client.qp().state());
        }
    }

    @Test
    void shouldBeRejectedWithReasonWhenNoListener() {
        try (CmTestKit k = CmTestKit.seeded(false, 5)) {
            CmId client = k.cm.createEp(
                    k.cm.getAddrInfo("b", "9999", AddrInfo.active()).get(0), null, CmTestKit.qpAttr());
            CmException ex =
                    org.junit.jupiter.api.Assertions.assertThrows(CmException.class, () -> client.connect(null));
            assertEquals(CmEventType.REJECTED, ex.event().type());
            assertEquals(RejectReason.INVALID_SERVICE_ID, ex.event().rejectReason());
        }
    }

    @Test
    void shouldEndUnreachableAfterConfiguredTimeoutWhenNoDeviceOwnsTheAddress() {
        try (Fabric f = Fabric.deterministic(6)) {
            f.createDevice("a");
            CmConfig c = CmConfig.defaults().withResponseTimeout(10, 3);
            RdmaCm cm = RdmaCm.of(f, c);
            CmId client = cm.createEp(
                    cm.getAddrInfo("fe80::dead:beef", "1", AddrInfo.active()).get(0),
                    null,
                    new QpInitAttr().caps(QpCaps.defaults()));
            long t0 = f.now();
            CmException ex =
                    org.junit.jupiter.api.Assertions.assertThrows(CmException.class, () -> client.connect(null));
            assertEquals(CmEventType.UNREACHABLE, ex.event().type());
            assertEquals((c.maxCmRetries() + 1) * c.responseTimeoutNanos(), f.now() - t0);
        }
    }
}
