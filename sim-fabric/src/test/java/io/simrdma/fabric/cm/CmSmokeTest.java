package io.simrdma.fabric.cm;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.Device;
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
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CmSmokeTest {

    @Test
    void shouldConnectWithAsyncChannels() {
        try (Fabric f = Fabric.deterministic(3)) {
            Device a = f.createDevice("a");
            Device b = f.createDevice("b");
            RdmaCm cm = RdmaCm.of(f);
            CmEventChannel chA = cm.createEventChannel();
            CmEventChannel chB = cm.createEventChannel();
            CmId listen = cm.createId(chB, null, PortSpace.TCP);
            listen.bind(RdmaCm.addressOf(b, 7471));
            listen.listen(4);

            CmId client = cm.createId(chA, null, PortSpace.TCP);
            client.resolveAddr(null, RdmaCm.addressOf(b, 7471), 1000);
            CmEvent e = chA.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.ADDR_RESOLVED, e.type());
            e.ack();
            client.resolveRoute(1000);
            e = chA.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.ROUTE_RESOLVED, e.type());
            e.ack();
            client.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
            client.connect(ConnParam.withPrivateData("hello".getBytes(StandardCharsets.US_ASCII)));

            CmEvent req = chB.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.CONNECT_REQUEST, req.type());
            assertEquals("hello", new String(req.privateData(), 0, 5, StandardCharsets.US_ASCII));
            CmId server = req.id();
            server.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
            server.accept(ConnParam.withPrivateData("welcome".getBytes(StandardCharsets.US_ASCII)));
            req.ack();

            e = chA.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.ESTABLISHED, e.type(), e.toString());
            assertEquals("welcome", new String(e.privateData(), 0, 7, StandardCharsets.US_ASCII));
            e.ack();
            e = chB.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.ESTABLISHED, e.type());
            e.ack();
            assertEquals(QpState.RTS, client.qp().state());
            assertEquals(QpState.RTS, server.qp().state());

            // data over the connection
            ByteBuffer sb = ByteBuffer.allocate(64);
            ByteBuffer rb = ByteBuffer.allocate(64);
            sb.put(0, "ping".getBytes(StandardCharsets.US_ASCII));
            MemoryRegion smr = client.qp().pd().registerMemory(sb, EnumSet.of(AccessFlag.LOCAL_WRITE));
            MemoryRegion rmr = server.qp().pd().registerMemory(rb, EnumSet.of(AccessFlag.LOCAL_WRITE));
            server.qp().postRecv(new RecvWr().wrId(1).sge(rmr, 0, 64));
            client.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sge(smr, 0, 4).flag(SendFlag.SIGNALED));
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertTrue(server.recvCq().awaitCompletions(1, 1, TimeUnit.SECONDS));
            server.recvCq().poll(wc);
            assertEquals(WcStatus.SUCCESS, wc[0].status());
            assertEquals('p', rb.get(0));

            client.disconnect();
            e = chA.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.DISCONNECTED, e.type());
            e.ack();
            e = chB.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.DISCONNECTED, e.type());
            e.ack();
            server.disconnect();
            e = chA.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.TIMEWAIT_EXIT, e.type());
            e.ack();
            smr.deregister();
            rmr.deregister();
            client.destroyEp();
            server.destroyEp();
            listen.destroy();
        }
    }

    @Test
    void shouldConnectWithCreateEpSynchronously() {
        try (Fabric f = Fabric.deterministic(4)) {
            f.createDevice("a");
            f.createDevice("b");
            RdmaCm cm = RdmaCm.of(f);
            QpInitAttr attr = new QpInitAttr().caps(QpCaps.defaults());
            CmId listen = cm.createEp(cm.getAddrInfo("b", "7471", AddrInfo.passiveHints()).get(0), null, attr);
            listen.listen(1);
            CmId client = cm.createEp(cm.getAddrInfo("b", "7471", AddrInfo.active()).get(0), null, attr);
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
            CmEvent e = ch.getEvent(1, TimeUnit.SECONDS);
            assertEquals(CmEventType.ESTABLISHED, e.type());
            e.ack();
            assertEquals(QpState.RTS, client.qp().state());
        }
    }

    @Test
    void shouldBeRejectedWithReasonWhenNoListener() {
        try (Fabric f = Fabric.deterministic(5)) {
            f.createDevice("a");
            f.createDevice("b");
            RdmaCm cm = RdmaCm.of(f);
            CmId client = cm.createEp(cm.getAddrInfo("b", "9999", AddrInfo.active()).get(0), null,
                    new QpInitAttr().caps(QpCaps.defaults()));
            CmException ex = org.junit.jupiter.api.Assertions.assertThrows(CmException.class, () -> client.connect(null));
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
            CmId client = cm.createEp(cm.getAddrInfo("fe80::dead:beef", "1", AddrInfo.active()).get(0), null,
                    new QpInitAttr().caps(QpCaps.defaults()));
            long t0 = f.now();
            CmException ex = org.junit.jupiter.api.Assertions.assertThrows(CmException.class, () -> client.connect(null));
            assertEquals(CmEventType.UNREACHABLE, ex.event().type());
            assertEquals((c.maxCmRetries() + 1) * c.responseTimeoutNanos(), f.now() - t0);
        }
    }
}
