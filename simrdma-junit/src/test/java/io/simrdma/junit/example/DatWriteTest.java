package io.simrdma.junit.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
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
import io.simrdma.junit.FabricMatrix;
import io.simrdma.junit.Node;
import io.simrdma.junit.OwnershipChecker;
import io.simrdma.junit.SimFabricTest;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A DAT application under the toolkit: two injected IAs, a connection, an RDMA WRITE. The checks
 * that watch verbs applications watch DAT ones too, since the provider's LMRs and endpoints are
 * verbs MRs and QPs: this test frees every handle (or the leak check would fail it), and the
 * second one writes into an LMR a posted WRITE still owns.
 */
@SimFabricTest
class DatWriteTest {

    /** Both sides' objects, connected. */
    static final class Connected {
        final ProtectionZone cpz;
        final ProtectionZone spz;
        final EventDispatcher cdto;
        final EventDispatcher cconn;
        final EventDispatcher sdto;
        final EventDispatcher sconn;
        final ByteBuffer src = ByteBuffer.allocateDirect(4096);
        final ByteBuffer dst = ByteBuffer.allocateDirect(4096);
        final LocalMemoryRegion slmr;
        final LocalMemoryRegion dlmr;
        final Endpoint cep;
        final Endpoint sep;
        final PublicServicePoint psp;

        Connected(InterfaceAdapter client, InterfaceAdapter server) {
            cpz = client.createPz();
            spz = server.createPz();
            cdto = client.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            cconn = client.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION));
            sdto = server.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            sconn = server.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            slmr = client.createLmr(new RegionDescription.Virtual(src), cpz, MemoryPrivilege.all());
            dlmr = server.createLmr(new RegionDescription.Virtual(dst), spz, MemoryPrivilege.all());
            cep = client.createEndpoint(cpz, cdto, cdto, cconn, null);
            sep = server.createEndpoint(spz, sdto, sdto, sconn, null);
            psp = server.createPsp(1234, sconn, PspFlag.CONSUMER);
            cep.connect(
                    server.query().iaAttributes().iaAddress(),
                    1234,
                    Timeout.ofMillis(5000),
                    null,
                    Qos.BEST_EFFORT,
                    EnumSet.noneOf(ConnectFlag.class));
            next(sconn).asConnectionRequest().cr().accept(sep, null);
            next(cconn);
            next(sconn);
        }

        void postWrite() {
            cep.postRdmaWrite(
                    List.of(new LmrTriplet(slmr.lmrContext(), slmr.registeredAddress(), 4096)),
                    1,
                    new RmrTriplet(dlmr.rmrContext().orElseThrow(), dlmr.registeredAddress(), 4096),
                    CompletionFlag.defaults());
        }

        /** dat_ep_disconnect, then every free in dependency order (dat_ia_close(3DAT) graceful would now succeed). */
        void free() {
            cep.disconnect(CloseFlag.ABRUPT);
            next(cconn);
            next(sconn);
            cep.free();
            sep.free();
            psp.free();
            slmr.free();
            dlmr.free();
            for (EventDispatcher e : List.of(cdto, cconn, sdto, sconn)) {
                e.free();
            }
            cpz.free();
            spz.free();
        }
    }

    static DatEvent next(EventDispatcher evd) {
        return evd.waitForEvent(Timeout.ofMillis(5000), 1).event().orElseThrow();
    }

    @FabricMatrix
    @DisplayName(
            "dat_ep_post_rdma_write(3DAT) between two injected IAs; everything freed, so the end-of-test checks pass")
    void shouldWriteWhenBothIasAreInjected(@Node("a") InterfaceAdapter client, @Node("b") InterfaceAdapter server) {
        Connected c = new Connected(client, server);
        for (int i = 0; i < 4096; i++) {
            c.src.put(i, (byte) i);
        }
        c.postWrite();
        assertEquals(DtoCompletionStatus.SUCCESS, next(c.cdto).asDtoCompletion().status());
        assertEquals(c.src, c.dst);
        c.free();
    }

    @Test
    @DisplayName(
            "dat_ep_post_rdma_write(3DAT): the LMR is the provider's until the DTO completes; a write before is reported")
    void shouldReportViolationWhenLmrIsWrittenBeforeCompletion(
            @Node("a") InterfaceAdapter client, @Node("b") InterfaceAdapter server, OwnershipChecker checker) {
        Connected c = new Connected(client, server);
        c.postWrite();
        c.src.put(100, (byte) 0x7F); // the mistake
        assertEquals(DtoCompletionStatus.SUCCESS, next(c.cdto).asDtoCompletion().status());
        List<String> v = checker.takeViolations();
        assertEquals(1, v.size(), v.toString());
        assertTrue(
                v.get(0).contains("(RDMA_WRITE) on QP 0x")
                        && v.get(0).contains("of device a, source buffer sge 0")
                        && v.get(0).contains("bytes [100, 101) of the region written by the application")
                        && v.get(0).contains("posted: 00\n      now:    7f"),
                v.get(0));
        c.free();
    }
}
