package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmokeTest {

    private static DatEvent next(EventDispatcher evd) {
        EvdWaitResult r = evd.waitForEvent(Timeout.ofMillis(5000), 1);
        return r.event().orElseThrow(() -> new AssertionError("no event: " + r));
    }

    /**
     * One IA's objects for a connection: a PZ, a DTO EVD, a connect EVD (that also takes connection
     * requests when {@code listens}), an LMR over {@code buf} with every privilege, and an endpoint.
     */
    private record End(
            ProtectionZone pz,
            EventDispatcher dto,
            EventDispatcher conn,
            ByteBuffer buf,
            LocalMemoryRegion lmr,
            Endpoint ep) {
        static End on(InterfaceAdapter ia, boolean listens, ByteBuffer buf) {
            ProtectionZone pz = ia.createPz();
            EventDispatcher dto = ia.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher conn = ia.createEvd(
                    4, null, listens ? EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR) : EnumSet.of(EvdFlag.CONNECTION));
            LocalMemoryRegion lmr = ia.createLmr(new RegionDescription.Virtual(buf), pz, MemoryPrivilege.all());
            return new End(pz, dto, conn, buf, lmr, ia.createEndpoint(pz, dto, dto, conn, null));
        }

        void free() {
            ep.free();
            lmr.free();
            dto.free();
            conn.free();
            pz.free();
        }
    }

    @Test
    void connectSendWriteReadDisconnect() {
        InterfaceAdapter a = Dat.openIa("sim:smoke/a?seed=7", 8);
        InterfaceAdapter b = Dat.openIa("sim:smoke/b", 8);
        End ea = End.on(a, false, ByteBuffer.allocateDirect(4096));
        End eb = End.on(b, true, ByteBuffer.allocate(4096));
        PublicServicePoint psp = b.createPsp(4711, eb.conn(), PspFlag.CONSUMER);

        eb.ep()
                .postRecv(
                        List.of(new LmrTriplet(eb.lmr().lmrContext(), eb.lmr().registeredAddress(), 64)),
                        1,
                        CompletionFlag.defaults());
        ea.ep()
                .connect(
                        b.query().iaAttributes().iaAddress(),
                        4711,
                        Timeout.ofMillis(5000),
                        "hello".getBytes(StandardCharsets.US_ASCII),
                        Qos.BEST_EFFORT,
                        EnumSet.noneOf(ConnectFlag.class));
        ConnectionRequestEvent req = assertInstanceOf(ConnectionRequestEvent.class, next(eb.conn()));
        assertArrayEquals(
                "hello".getBytes(StandardCharsets.US_ASCII), req.cr().query().privateData());
        req.cr().accept(eb.ep(), "welcome".getBytes(StandardCharsets.US_ASCII));
        ConnectionEvent estA = assertInstanceOf(ConnectionEvent.class, next(ea.conn()));
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, estA.eventNumber());
        assertArrayEquals("welcome".getBytes(StandardCharsets.US_ASCII), estA.privateData());
        ConnectionEvent estB = assertInstanceOf(ConnectionEvent.class, next(eb.conn()));
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, estB.eventNumber());
        assertEquals(EndpointState.CONNECTED, ea.ep().status().state());

        ea.buf().put(0, "ping".getBytes(StandardCharsets.US_ASCII));
        ea.ep()
                .postSend(
                        List.of(new LmrTriplet(ea.lmr().lmrContext(), ea.lmr().registeredAddress(), 4)),
                        2,
                        CompletionFlag.defaults());
        DtoCompletionEvent sent = assertInstanceOf(DtoCompletionEvent.class, next(ea.dto()));
        assertEquals(DtoCompletionStatus.SUCCESS, sent.status());
        DtoCompletionEvent got = assertInstanceOf(DtoCompletionEvent.class, next(eb.dto()));
        assertEquals(1, got.userCookie());
        assertEquals(4, got.transferredLength());
        assertEquals('p', eb.buf().get(0));

        ea.buf().put(100, (byte) 42);
        ea.ep()
                .postRdmaWrite(
                        List.of(new LmrTriplet(ea.lmr().lmrContext(), ea.lmr().registeredAddress() + 100, 1)),
                        3,
                        new RmrTriplet(
                                eb.lmr().rmrContext().orElseThrow(), eb.lmr().registeredAddress() + 200, 1),
                        CompletionFlag.defaults());
        assertEquals(
                3, assertInstanceOf(DtoCompletionEvent.class, next(ea.dto())).userCookie());
        assertEquals(42, eb.buf().get(200));
        eb.buf().put(300, (byte) 9);
        ea.ep()
                .postRdmaRead(
                        List.of(new LmrTriplet(ea.lmr().lmrContext(), ea.lmr().registeredAddress() + 300, 1)),
                        4,
                        new RmrTriplet(
                                eb.lmr().rmrContext().orElseThrow(), eb.lmr().registeredAddress() + 300, 1),
                        CompletionFlag.defaults());
        assertEquals(
                4, assertInstanceOf(DtoCompletionEvent.class, next(ea.dto())).userCookie());
        assertEquals(9, ea.buf().get(300));

        ea.ep().disconnect(CloseFlag.GRACEFUL);
        assertEquals(
                EventNumber.CONNECTION_EVENT_DISCONNECTED,
                assertInstanceOf(ConnectionEvent.class, next(ea.conn())).eventNumber());
        assertEquals(
                EventNumber.CONNECTION_EVENT_DISCONNECTED,
                assertInstanceOf(ConnectionEvent.class, next(eb.conn())).eventNumber());

        psp.free();
        ea.free();
        eb.free();
        a.close(CloseFlag.GRACEFUL);
        b.close(CloseFlag.GRACEFUL);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(DatPair.Mode.class)
    void pairConnectsAndSends(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ea = p.a.ep();
            Endpoint eb = p.b.ep();
            eb.postRecv(p.b.iov(0, 16), 5, CompletionFlag.defaults());
            p.connect(ea, eb, new byte[] {1, 2}, new byte[] {3});
            p.a.buf.put(0, (byte) 77);
            ea.postSend(p.a.iov(0, 1), 6, CompletionFlag.defaults());
            assertEquals(6, DatPair.next(p.a.dto, DtoCompletionEvent.class).userCookie());
            assertEquals(5, DatPair.next(p.b.dto, DtoCompletionEvent.class).userCookie());
            assertEquals(77, p.b.buf.get(0));
            ea.disconnect(CloseFlag.ABRUPT);
            DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            DatPair.expectConnection(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }

    @Test
    void tcpNodesConnectAndWrite() {
        InterfaceAdapter a = Dat.openIa("simtcp:127.0.0.1:0?node=smoke-a", 8);
        InterfaceAdapter b = Dat.openIa("simtcp:127.0.0.1:0?node=smoke-b", 8);
        try {
            java.net.InetSocketAddress bAddr =
                    (java.net.InetSocketAddress) b.query().iaAttributes().iaAddress();
            assertEquals("127.0.0.1", bAddr.getAddress().getHostAddress());
            // A TCP node's CM gives its QPs the longer ACK timeout (RdmaCm.of refuses another configuration)
            SimIa sa = (SimIa) a;
            assertEquals(17, SimFabrics.TCP_CM.ackTimeout());
            assertSame(sa.cm, io.simrdma.fabric.cm.RdmaCm.of(sa.fabric, SimFabrics.TCP_CM));
            End ea = End.on(a, false, ByteBuffer.allocateDirect(8192));
            End eb = End.on(b, true, ByteBuffer.allocateDirect(8192));
            b.createPsp(4711, eb.conn(), PspFlag.CONSUMER);
            ea.ep()
                    .connect(
                            bAddr,
                            4711,
                            Timeout.ofMillis(10_000),
                            new byte[] {7},
                            Qos.BEST_EFFORT,
                            EnumSet.noneOf(ConnectFlag.class));
            ConnectionRequestEvent req = assertInstanceOf(ConnectionRequestEvent.class, next(eb.conn()));
            assertEquals(a.query().iaAttributes().iaAddress(), req.cr().query().remoteIaAddress());
            req.cr().accept(eb.ep(), null);
            assertEquals(
                    EventNumber.CONNECTION_EVENT_ESTABLISHED,
                    assertInstanceOf(ConnectionEvent.class, next(ea.conn())).eventNumber());
            assertEquals(
                    EventNumber.CONNECTION_EVENT_ESTABLISHED,
                    assertInstanceOf(ConnectionEvent.class, next(eb.conn())).eventNumber());
            for (int i = 0; i < 8192; i++) {
                ea.buf().put(i, (byte) (i * 31));
            }
            ea.ep()
                    .postRdmaWrite(
                            List.of(new LmrTriplet(
                                    ea.lmr().lmrContext(), ea.lmr().registeredAddress(), 8192)),
                            9,
                            new RmrTriplet(
                                    eb.lmr().rmrContext().orElseThrow(),
                                    eb.lmr().registeredAddress(),
                                    8192),
                            CompletionFlag.defaults());
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    assertInstanceOf(DtoCompletionEvent.class, next(ea.dto())).status());
            assertEquals(ea.buf(), eb.buf());
            ea.ep().disconnect(CloseFlag.GRACEFUL);
            assertEquals(
                    EventNumber.CONNECTION_EVENT_DISCONNECTED,
                    assertInstanceOf(ConnectionEvent.class, next(ea.conn())).eventNumber());
            assertEquals(
                    EventNumber.CONNECTION_EVENT_DISCONNECTED,
                    assertInstanceOf(ConnectionEvent.class, next(eb.conn())).eventNumber());
        } finally {
            a.close(CloseFlag.ABRUPT);
            b.close(CloseFlag.ABRUPT);
        }
    }
}
