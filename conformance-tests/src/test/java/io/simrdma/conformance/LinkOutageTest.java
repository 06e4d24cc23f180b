package io.simrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
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
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The one transport fault a DAT consumer must see (issue 9, fault profiles): a link that stays down
 * past the retry budget. Two IAs on a deterministic fabric whose links go down for 10 s every 20 s
 * (the IA-name option {@code flap=20000:10000}; the in-process retry budget is 0.5 s: an ACK timeout
 * of 67 ms, retry_cnt 7). Work posted in the up phase completes as if nothing happened; work posted
 * once the link is down ends in the documented errors and states, and the EP connects again once
 * the link is back. Virtual time: each wait below advances the fabric's clock, not the wall clock.
 */
class LinkOutageTest {

    private static final Set<CompletionFlag> SIGNALLED = EnumSet.noneOf(CompletionFlag.class);
    private static final int QUAL = 4242;

    private final List<InterfaceAdapter> ias = new ArrayList<>();

    @AfterEach
    void close() {
        for (InterfaceAdapter ia : ias) {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    private final class Side {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher dto;
        final EventDispatcher conn;
        final LocalMemoryRegion lmr;

        Side(String name) {
            ia = Dat.openIa(name, 16);
            ias.add(ia);
            pz = ia.createPz();
            dto = ia.createEvd(64, null, EnumSet.of(EvdFlag.DTO));
            conn = ia.createEvd(16, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            lmr = ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocateDirect(64 * 1024)), pz, MemoryPrivilege.all());
        }

        Endpoint ep() {
            return ia.createEndpoint(pz, dto, dto, conn, null);
        }

        List<LmrTriplet> iov(int offset, int len) {
            return List.of(new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() + offset, len));
        }

        RmrTriplet remote(int offset, int len) {
            return new RmrTriplet(lmr.rmrContext().orElseThrow(), lmr.registeredAddress() + offset, len);
        }
    }

    private static EvdWaitResult await(EventDispatcher evd, long millis) {
        return evd.waitForEvent(Timeout.ofMillis(millis), 1);
    }

    private static DatEvent next(EventDispatcher evd, String what) {
        EvdWaitResult r = await(evd, 5_000);
        assertTrue(r.event().isPresent(), () -> "expected " + what + " within 5 s of virtual time: " + r);
        return r.event().get();
    }

    private static void established(Side active, Endpoint ep, Side passive, Endpoint accepter) {
        ep.connect(
                passive.ia.query().iaAttributes().iaAddress(),
                QUAL,
                Timeout.ofMillis(5_000),
                null,
                Qos.BEST_EFFORT,
                EnumSet.noneOf(ConnectFlag.class));
        next(passive.conn, "a connection request").asConnectionRequest().cr().accept(accepter, null);
        assertEquals(
                EventNumber.CONNECTION_EVENT_ESTABLISHED,
                next(active.conn, "ESTABLISHED").eventNumber());
        assertEquals(
                EventNumber.CONNECTION_EVENT_ESTABLISHED,
                next(passive.conn, "ESTABLISHED").eventNumber());
    }

    private static void sendOnce(Side from, Endpoint ep, Side to, Endpoint peer, long cookie) {
        peer.postRecv(to.iov(0, 64), cookie, SIGNALLED);
        ep.postSend(from.iov(0, 16), cookie, SIGNALLED);
        DtoCompletionEvent s = next(from.dto, "the send's completion").asDtoCompletion();
        DtoCompletionEvent r = next(to.dto, "the receive's completion").asDtoCompletion();
        assertEquals(DtoCompletionStatus.SUCCESS, s.status(), () -> "send " + s);
        assertEquals(DtoCompletionStatus.SUCCESS, r.status(), () -> "receive " + r);
        assertEquals(16, r.transferredLength());
    }

    @Test
    @DisplayName("ep-state-machine.md (CONNECTED: connection broken -> DISCONNECTED), dat_ep_post_send(3DAT), "
            + "dat_ep_reset(3DAT): a link down past the retry budget fails the outstanding DTOs once each, "
            + "breaks the connection (DAT_CONNECTION_EVENT_BROKEN), leaves the EP DISCONNECTED, and the EP "
            + "connects again once reset and the link is back")
    void shouldEndInDocumentedErrorsAndStatesWhenLinkStaysDownPastRetryBudget() {
        String opts = "?seed=3&flap=20000:10000";
        Side a = new Side("sim:outage/a" + opts);
        Side b = new Side("sim:outage/b" + opts);
        PublicServicePoint psp = b.ia.createPsp(QUAL, b.conn, PspFlag.CONSUMER);
        Endpoint ea = a.ep();
        Endpoint eb = b.ep();
        established(a, ea, b, eb);
        sendOnce(a, ea, b, eb, 1); // the link is up: nothing to see

        for (int i = 0; i < 4; i++) {
            eb.postRecv(b.iov(1024 * i, 64), 10 + i, SIGNALLED);
        }
        // 10.5 s of virtual time with nothing outstanding: no event; the link went down at 10 s
        EvdWaitResult quiet = await(a.conn, 10_500);
        assertTrue(quiet.isTimedOut(), () -> "no connection event while idle across the link's fall: " + quiet);

        ea.postRdmaWrite(a.iov(0, 4096), 100, b.remote(8192, 4096), SIGNALLED);
        ea.postSend(a.iov(0, 32), 101, SIGNALLED);
        ea.postRdmaRead(a.iov(4096, 4096), 102, b.remote(8192, 4096), SIGNALLED);
        ea.postSend(a.iov(0, 32), 103, SIGNALLED);
        List<DtoCompletionEvent> done = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            done.add(next(a.dto, "completion " + (i + 1) + " of 4").asDtoCompletion());
        }
        for (int i = 0; i < 4; i++) {
            DtoCompletionEvent d = done.get(i);
            assertEquals(100 + i, d.userCookie(), "DTOs of one EP complete once each, in posting order: " + done);
            assertNotEquals(DtoCompletionStatus.SUCCESS, d.status(), "nothing reached the peer: " + d);
            assertTrue(
                    d.status() == DtoCompletionStatus.ERR_TRANSPORT || d.status() == DtoCompletionStatus.ERR_FLUSHED,
                    "a DTO that outlives the retry budget fails with DAT_DTO_ERR_TRANSPORT, those behind it are "
                            + "flushed (DAT_DTO_ERR_FLUSHED): " + d);
        }
        assertEquals(
                DtoCompletionStatus.ERR_TRANSPORT,
                done.get(0).status(),
                "the oldest DTO is the one whose retries ran out: " + done);
        DatEvent broken = next(a.conn, "the connection's end");
        assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, broken.eventNumber(), () -> "connect_evd: " + broken);
        assertEquals(ea, ((ConnectionEvent) broken).ep());
        assertEquals(EndpointState.DISCONNECTED, ea.status().state(), "dat_ep_get_status after the break");
        // dat_ep_post_send(3DAT), ep-state-machine.md: a post in DISCONNECTED is accepted and flushed at once
        ea.postSend(a.iov(0, 8), 104, SIGNALLED);
        DtoCompletionEvent flushed = next(a.dto, "the flushed post").asDtoCompletion();
        assertEquals(104, flushed.userCookie());
        assertEquals(DtoCompletionStatus.ERR_FLUSHED, flushed.status(), () -> "a post in DISCONNECTED: " + flushed);
        EvdWaitResult nothingMore = await(a.dto, 100);
        assertTrue(nothingMore.isTimedOut(), () -> "no completion twice: " + nothingMore);

        // the link comes back at 20 s; the reset EP connects to a fresh EP of the peer and works again
        await(a.conn, 10_000);
        ea.reset();
        assertEquals(EndpointState.UNCONNECTED, ea.status().state(), "dat_ep_reset(3DAT): back to UNCONNECTED");
        eb.disconnect(CloseFlag.ABRUPT);
        while (await(b.conn, 100).event().isPresent()) {
            // the old connection's end on the passive side, if its provider reports one
        }
        for (int i = 0; i < 4; i++) {
            DtoCompletionEvent r = next(b.dto, "flushed receive " + (10 + i)).asDtoCompletion();
            assertEquals(10 + i, r.userCookie(), "the peer's receives, in posting order");
            assertEquals(
                    DtoCompletionStatus.ERR_FLUSHED,
                    r.status(),
                    "dat_ep_disconnect(3DAT): receives still posted are flushed: " + r);
        }
        Endpoint eb2 = b.ep();
        established(a, ea, b, eb2);
        sendOnce(a, ea, b, eb2, 200);
        psp.free();
    }
}
