package io.simrdma.provider;

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
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
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
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

class SmokeTest {

    private static DatEvent next(EventDispatcher evd) {
        EvdWaitResult r = evd.waitForEvent(Timeout.ofMillis(5000), 1);
        return r.event().orElseThrow(() -> new AssertionError("no event: " + r));
    }

    @Test
    void connectSendWriteReadDisconnect() {
        InterfaceAdapter a = Dat.openIa("sim:smoke/a?seed=7", 8);
        InterfaceAdapter b = Dat.openIa("sim:smoke/b", 8);
        ProtectionZone pa = a.createPz();
        ProtectionZone pb = b.createPz();
        EventDispatcher dtoA = a.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
        EventDispatcher dtoB = b.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
        EventDispatcher connA = a.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION));
        EventDispatcher connB = b.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
        ByteBuffer bufA = ByteBuffer.allocateDirect(4096);
        ByteBuffer bufB = ByteBuffer.allocate(4096);
        LocalMemoryRegion la = a.createLmr(new RegionDescription.Virtual(bufA), pa, MemoryPrivilege.all());
        LocalMemoryRegion lb = b.createLmr(new RegionDescription.Virtual(bufB), pb, MemoryPrivilege.all());
        Endpoint epA = a.createEndpoint(pa, dtoA, dtoA, connA, null);
        Endpoint epB = b.createEndpoint(pb, dtoB, dtoB, connB, null);
        PublicServicePoint psp = b.createPsp(4711, connB, PspFlag.CONSUMER);

        epB.postRecv(List.of(new LmrTriplet(lb.lmrContext(), lb.registeredAddress(), 64)), 1, CompletionFlag.defaults());
        epA.connect(b.query().iaAttributes().iaAddress(), 4711, Timeout.ofMillis(5000), "hello".getBytes(StandardCharsets.US_ASCII),
                Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
        ConnectionRequestEvent req = assertInstanceOf(ConnectionRequestEvent.class, next(connB));
        assertArrayEquals("hello".getBytes(StandardCharsets.US_ASCII), req.cr().query().privateData());
        req.cr().accept(epB, "welcome".getBytes(StandardCharsets.US_ASCII));
        ConnectionEvent estA = assertInstanceOf(ConnectionEvent.class, next(connA));
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, estA.eventNumber());
        assertArrayEquals("welcome".getBytes(StandardCharsets.US_ASCII), estA.privateData());
        ConnectionEvent estB = assertInstanceOf(ConnectionEvent.class, next(connB));
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, estB.eventNumber());
        assertEquals(EndpointState.CONNECTED, epA.status().state());

        bufA.put(0, "ping".getBytes(StandardCharsets.US_ASCII));
        epA.postSend(List.of(new LmrTriplet(la.lmrContext(), la.registeredAddress(), 4)), 2, CompletionFlag.defaults());
        DtoCompletionEvent sent = assertInstanceOf(DtoCompletionEvent.class, next(dtoA));
        assertEquals(DtoCompletionStatus.SUCCESS, sent.status());
        DtoCompletionEvent got = assertInstanceOf(DtoCompletionEvent.class, next(dtoB));
        assertEquals(1, got.userCookie());
        assertEquals(4, got.transferredLength());
        assertEquals('p', bufB.get(0));

        bufA.put(100, (byte) 42);
        epA.postRdmaWrite(List.of(new LmrTriplet(la.lmrContext(), la.registeredAddress() + 100, 1)), 3,
                new RmrTriplet(lb.rmrContext().orElseThrow(), lb.registeredAddress() + 200, 1), CompletionFlag.defaults());
        assertEquals(3, assertInstanceOf(DtoCompletionEvent.class, next(dtoA)).userCookie());
        assertEquals(42, bufB.get(200));
        bufB.put(300, (byte) 9);
        epA.postRdmaRead(List.of(new LmrTriplet(la.lmrContext(), la.registeredAddress() + 300, 1)), 4,
                new RmrTriplet(lb.rmrContext().orElseThrow(), lb.registeredAddress() + 300, 1), CompletionFlag.defaults());
        assertEquals(4, assertInstanceOf(DtoCompletionEvent.class, next(dtoA)).userCookie());
        assertEquals(9, bufA.get(300));

        epA.disconnect(CloseFlag.GRACEFUL);
        assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, assertInstanceOf(ConnectionEvent.class, next(connA)).eventNumber());
        assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, assertInstanceOf(ConnectionEvent.class, next(connB)).eventNumber());

        psp.free();
        epA.free();
        epB.free();
        la.free();
        lb.free();
        dtoA.free();
        dtoB.free();
        connA.free();
        connB.free();
        pa.free();
        pb.free();
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
            java.net.InetSocketAddress bAddr = (java.net.InetSocketAddress) b.query().iaAttributes().iaAddress();
            assertEquals("127.0.0.1", bAddr.getAddress().getHostAddress());
            ProtectionZone pa = a.createPz();
            ProtectionZone pb = b.createPz();
            EventDispatcher dtoA = a.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher dtoB = b.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher connA = a.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION));
            EventDispatcher connB = b.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            ByteBuffer bufA = ByteBuffer.allocateDirect(8192);
            ByteBuffer bufB = ByteBuffer.allocateDirect(8192);
            LocalMemoryRegion la = a.createLmr(new RegionDescription.Virtual(bufA), pa, MemoryPrivilege.all());
            LocalMemoryRegion lb = b.createLmr(new RegionDescription.Virtual(bufB), pb, MemoryPrivilege.all());
            Endpoint epA = a.createEndpoint(pa, dtoA, dtoA, connA, null);
            Endpoint epB = b.createEndpoint(pb, dtoB, dtoB, connB, null);
            b.createPsp(4711, connB, PspFlag.CONSUMER);
            epA.connect(bAddr, 4711, Timeout.ofMillis(10_000), new byte[] {7}, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
            ConnectionRequestEvent req = assertInstanceOf(ConnectionRequestEvent.class, next(connB));
            assertEquals(a.query().iaAttributes().iaAddress(), req.cr().query().remoteIaAddress());
            req.cr().accept(epB, null);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, assertInstanceOf(ConnectionEvent.class, next(connA)).eventNumber());
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, assertInstanceOf(ConnectionEvent.class, next(connB)).eventNumber());
            for (int i = 0; i < 8192; i++) {
                bufA.put(i, (byte) (i * 31));
            }
            epA.postRdmaWrite(List.of(new LmrTriplet(la.lmrContext(), la.registeredAddress(), 8192)), 9,
                    new RmrTriplet(lb.rmrContext().orElseThrow(), lb.registeredAddress(), 8192), CompletionFlag.defaults());
            assertEquals(DtoCompletionStatus.SUCCESS, assertInstanceOf(DtoCompletionEvent.class, next(dtoA)).status());
            assertEquals(bufA, bufB);
            epA.disconnect(CloseFlag.GRACEFUL);
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, assertInstanceOf(ConnectionEvent.class, next(connA)).eventNumber());
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, assertInstanceOf(ConnectionEvent.class, next(connB)).eventNumber());
        } finally {
            a.close(CloseFlag.ABRUPT);
            b.close(CloseFlag.ABRUPT);
        }
    }
}
