package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.connect;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static io.simrdma.provider.EventTestSupport.attrs;
import static io.simrdma.provider.EventTestSupport.await;
import static io.simrdma.provider.EventTestSupport.completion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.RmrTriplet;
import java.util.EnumSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Endpoints created with DAT_HANDLE_NULL for one of their EVDs (dat_ep_create(3DAT): "the Consumer
 * is not interested in events for completions of receives / of requests / in connection events")
 * still do everything the pages allow: dat_ep_post_recv(3DAT) is valid in every state, sends, RDMA
 * operations and RMR binds run, connections form and end; only the events of the stream without an
 * EVD are not generated. Each case runs on the deterministic and the threaded fabric.
 */
class EpConfigurationTest {

    private static final EnumSet<CompletionFlag> DEFAULT = CompletionFlag.defaults();

    /** Bytes {@code seed}, {@code seed + 1}, ... written at {@code offset} of {@code side}'s buffer. */
    private static void fill(DatPair.Side side, int offset, int len, int seed) {
        for (int i = 0; i < len; i++) {
            side.buf.put(offset + i, (byte) (seed + i));
        }
    }

    private static void assertFilled(DatPair.Side side, int offset, int len, int seed, String what) {
        for (int i = 0; i < len; i++) {
            assertEquals((byte) (seed + i), side.buf.get(offset + i), what + ", byte " + i);
        }
    }

    /** Connects {@code active} (on a) to {@code passive} (on b) through a consumer PSP; the request is accepted at once. */
    private static void connectAndAccept(DatPair p, Endpoint active, Endpoint passive) {
        int q = p.qual();
        PublicServicePoint psp = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
        connect(active, p.b, q, null);
        DatPair.next(p.b.conn, ConnectionRequestEvent.class).cr().accept(passive, null);
        psp.free();
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT) request_evd_handle DAT_HANDLE_NULL, dat_ep_post_recv(3DAT) (valid in every "
            + "state), dat_ep_post_send(3DAT), dat_ep_post_rdma_write(3DAT), dat_rmr_bind(3DAT): receives post and "
            + "complete, and requests run (more than max_request_dtos in turn) without a completion event")
    void shouldPostAndTransferWhenTheRequestEvdIsNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EpAttributes a = attrs(p.a).maxRequestDtos(2).build();
            Endpoint active = p.a.ia.createEndpoint(p.a.pz, p.a.dto, null, p.a.conn, a);
            EpParams params = active.query();
            assertTrue(params.requestEvd().isEmpty(), "dat_ep_query: no request EVD");
            // The reported bug: DAT_INVALID_STATE / EP_NOTREADY, which dat_ep_post_recv does not list.
            active.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            Endpoint passive = p.b.ep();
            for (int i = 0; i < 5; i++) {
                passive.postRecv(p.b.iov(1024 + 64 * i, 64), 100 + i, DEFAULT);
            }
            connectAndAccept(p, active, passive);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);

            // Five sends in turn through a request queue of two: each send's slot is retired without an event.
            for (int i = 0; i < 5; i++) {
                fill(p.a, 2048 + 64 * i, 64, 10 * i);
                active.postSend(p.a.iov(2048 + 64 * i, 64), 200 + i, DEFAULT);
                completion(p.b.dto, 100 + i, DtoCompletionStatus.SUCCESS);
                assertFilled(p.b, 1024 + 64 * i, 64, 10 * i, "send " + i);
                // The peer's receive completes before this side takes the ACK: wait for the retirement
                // (on the threaded fabric the ACK may still be on its way when the next send posts).
                await(p.a.ia, () -> active.status().requestIdle(), "send " + i + " retired");
            }
            fill(p.b, 4096, 32, 77);
            passive.postSend(p.b.iov(4096, 32), 300, DEFAULT);
            completion(p.b.dto, 300, DtoCompletionStatus.SUCCESS);
            completion(p.a.dto, 1, DtoCompletionStatus.SUCCESS);
            assertFilled(p.a, 0, 32, 77, "the receive posted before the connection");

            fill(p.a, 8192, 128, 5);
            active.postRdmaWrite(p.a.iov(8192, 128), 400, p.b.remote(16384, 128), DEFAULT);
            RemoteMemoryRegion rmr = p.a.pz.createRmr();
            LmrTriplet window = new LmrTriplet(p.a.lmr.lmrContext(), p.a.lmr.registeredAddress() + 32768, 256);
            int ctx = rmr.bind(window, EnumSet.of(MemoryPrivilege.REMOTE_WRITE), active, 401, DEFAULT);
            // Without a request EVD the bind's completion is never seen: the drained request queue says the write
            // and the bind completed (dat_rmr_bind(3DAT): the rmr_context is usable once the bind has completed;
            // ibv_bind_mw(3): not before a successful completion). Then the passive side writes through the window.
            await(p.a.ia, () -> active.status().requestIdle(), "the request queue drained");
            fill(p.b, 20000, 256, 9);
            passive.postRdmaWrite(p.b.iov(20000, 256), 301, new RmrTriplet(ctx, window.virtualAddress(), 256), DEFAULT);
            completion(p.b.dto, 301, DtoCompletionStatus.SUCCESS);
            assertFilled(p.a, 32768, 256, 9, "the write through the bound RMR");
            assertFilled(p.b, 16384, 128, 5, "the RDMA Write");
            assertNoEvent(p.a.dto);
            rmr.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT) recv_evd_handle DAT_HANDLE_NULL, dat_ep_post_recv(3DAT): receives post in "
            + "every state and take the peer's messages (more than max_recv_dtos in turn) without a completion "
            + "event; the endpoint's own requests complete on its request EVD; in DISCONNECTED a receive is flushed "
            + "with no event")
    void shouldReceiveWithoutEventsWhenTheRecvEvdIsNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EpAttributes a = attrs(p.b).maxRecvDtos(2).build();
            Endpoint passive = p.b.ia.createEndpoint(p.b.pz, null, p.b.dto, p.b.conn, a);
            assertTrue(passive.query().recvEvd().isEmpty(), "dat_ep_query: no recv EVD");
            passive.postRecv(p.b.iov(0, 64), 1, DEFAULT);
            Endpoint active = p.a.ep();
            connectAndAccept(p, active, passive);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);

            // Four messages through a receive queue of two: each receive is retired without an event.
            for (int i = 0; i < 4; i++) {
                if (i > 0) {
                    passive.postRecv(p.b.iov(64 * i, 64), 1 + i, DEFAULT);
                }
                fill(p.a, 4096 + 64 * i, 64, 20 * i);
                active.postSend(p.a.iov(4096 + 64 * i, 64), 10 + i, DEFAULT);
                completion(p.a.dto, 10 + i, DtoCompletionStatus.SUCCESS);
                int n = i;
                await(p.b.ia, () -> passive.recvQuery().nbufsAllocated() == 0, "receive " + n + " retired");
                assertFilled(p.b, 64 * i, 64, 20 * i, "message " + i);
            }
            active.postRecv(p.a.iov(0, 8), 60, DEFAULT);
            passive.postSend(p.b.iov(8192, 8), 50, DEFAULT);
            completion(p.b.dto, 50, DtoCompletionStatus.SUCCESS);
            completion(p.a.dto, 60, DtoCompletionStatus.SUCCESS);
            assertNoEvent(p.b.dto);

            passive.disconnect(CloseFlag.ABRUPT);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, passive);
            passive.postRecv(p.b.iov(0, 64), 99, DEFAULT);
            await(p.b.ia, () -> passive.recvQuery().nbufsAllocated() == 0, "the flushed receive retired");
            assertNoEvent(p.b.dto);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT) recv_evd_handle DAT_HANDLE_NULL: receives still posted when the connection "
            + "ends are flushed without an event, and dat_ep_disconnect returns (the flush used to re-enter itself "
            + "through the fabric's scheduler and never end on the deterministic fabric)")
    @Timeout(60)
    void shouldFlushPostedReceivesWithoutEventsWhenTheRecvEvdIsNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint passive = p.b.ia.createEndpoint(
                    p.b.pz, null, p.b.dto, p.b.conn, attrs(p.b).maxRecvDtos(64).build());
            Endpoint active = p.a.ep();
            connectAndAccept(p, active, passive);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
            for (int i = 0; i < 64; i++) {
                passive.postRecv(p.b.iov(64 * i, 64), 1 + i, DEFAULT);
            }
            active.postRecv(p.a.iov(0, 64), 7, DEFAULT);
            passive.postSend(p.b.iov(8192, 64), 8, DEFAULT);
            // dat_ep_disconnect returns (a hang fails the test through its @Timeout)
            passive.disconnect(CloseFlag.ABRUPT);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, passive);
            await(p.b.ia, () -> passive.recvQuery().nbufsAllocated() == 0, "the flushed receives retired");
            completion(p.b.dto, 8);
            assertNoEvent(p.b.dto);
            assertState(EndpointState.DISCONNECTED, passive);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT) connect_evd_handle DAT_HANDLE_NULL on both ends: the connection forms, carries "
            + "data and ends; dat_ep_get_status(3DAT) shows CONNECTED, then DISCONNECTED; no connection event anywhere")
    void shouldConnectAndDisconnectWhenTheConnectEvdIsNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ia.createEndpoint(p.a.pz, p.a.dto, p.a.dto, null, null);
            Endpoint passive = p.b.ia.createEndpoint(p.b.pz, p.b.dto, p.b.dto, null, null);
            assertTrue(active.query().connectEvd().isEmpty(), "dat_ep_query: no connect EVD");
            passive.postRecv(p.b.iov(0, 16), 1, DEFAULT);
            connectAndAccept(p, active, passive);
            await(
                    p.a.ia,
                    () -> active.status().state() == EndpointState.CONNECTED
                            && passive.status().state() == EndpointState.CONNECTED,
                    "both endpoints CONNECTED");

            fill(p.a, 512, 16, 3);
            active.postSend(p.a.iov(512, 16), 2, DEFAULT);
            completion(p.a.dto, 2, DtoCompletionStatus.SUCCESS);
            completion(p.b.dto, 1, DtoCompletionStatus.SUCCESS);
            assertFilled(p.b, 0, 16, 3, "the message");

            active.disconnect(CloseFlag.GRACEFUL);
            await(
                    p.a.ia,
                    () -> active.status().state() == EndpointState.DISCONNECTED
                            && passive.status().state() == EndpointState.DISCONNECTED,
                    "both endpoints DISCONNECTED");
            assertNoEvent(p.a.conn);
            assertNoEvent(p.b.conn);
            assertState(EndpointState.DISCONNECTED, active);
        }
    }
}
