package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.MAX_PD;
import static io.simrdma.provider.ConnSupport.acceptWithNewEndpoint;
import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.bytes;
import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.connect;
import static io.simrdma.provider.ConnSupport.connectRefused;
import static io.simrdma.provider.ConnSupport.crEvd;
import static io.simrdma.provider.ConnSupport.equipProviderEndpoint;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.ConnSupport.expectEstablished;
import static io.simrdma.provider.ConnSupport.expectRequest;
import static io.simrdma.provider.ConnSupport.psp;
import static io.simrdma.provider.ConnSupport.rejectAndExpect;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.next;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static io.simrdma.provider.EventTestSupport.attrs;
import static io.simrdma.provider.EventTestSupport.completion;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PspParams;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.provider.ConnSupport.Listener;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Public Service Points: dat_psp_create(3DAT) with the consumer and the provider flag,
 * dat_psp_create_any(3DAT), dat_psp_query(3DAT), dat_psp_free(3DAT), and the PSP's EVD as its
 * backlog.
 */
class PspTest {

    private static final EventNumber ESTABLISHED = EventNumber.CONNECTION_EVENT_ESTABLISHED;

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_create(3DAT), dat_psp_query(3DAT), dat_cr_query(3DAT): a DAT_PSP_CONSUMER PSP gives "
            + "requests with no local EP; the query returns IA, qualifier, EVD and flag")
    void shouldDeliverRequestsWithoutEndpointWhenPspIsConsumerFlagged(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> listener = psp(p, PspFlag.CONSUMER);
            PublicServicePoint psp = listener.sp();
            long q = listener.qual();
            PspParams pp = psp.query();
            assertSame(p.b.ia, pp.ia());
            assertEquals(q, pp.connQual());
            assertEquals(q, psp.connQual());
            assertSame(listener.evd(), pp.evd());
            assertEquals(PspFlag.CONSUMER, pp.flag());

            // The PSP is persistent: it takes several requests.
            for (int i = 0; i < 2; i++) {
                Endpoint active = p.a.ep();
                ConnectionRequestEvent req = listener.request(active, bytes(4, i));
                assertTrue(req.cr().query().localEp().isEmpty(), "no provider EP for a consumer PSP");
                acceptWithNewEndpoint(p, req.cr(), active);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_create(3DAT), dat_cr_accept(3DAT): a DAT_PSP_PROVIDER PSP gives each request an EP in "
            + "TENTATIVE_CONNECTION_PENDING with no PZ and no EVDs and RDMA Read limits matching the request; "
            + "modified with PZ and EVDs, it accepts with a null EP handle and carries data")
    void shouldProvideTentativeEndpointWhenPspIsProviderFlagged(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.PROVIDER);
            assertEquals(PspFlag.PROVIDER, psp.sp().query().flag());
            EpAttributes activeAttrs =
                    attrs(p.a).maxRdmaReadIn(2).maxRdmaReadOut(1).build();
            Endpoint active = p.a.ep(activeAttrs);
            byte[] request = bytes(MAX_PD, 4);
            ConnectionRequestEvent req = psp.request(active, request);
            CrParams cp = req.cr().query();
            assertArrayEquals(request, cp.privateData());
            Endpoint ep = cp.localEp().orElseThrow(() -> new AssertionError("a provider EP in the request"));
            assertState(EndpointState.TENTATIVE_CONNECTION_PENDING, ep);
            EpParams params = ep.query();
            assertTrue(params.pz().isEmpty(), "DAT_HANDLE_NULL PZ");
            assertTrue(
                    params.recvEvd().isEmpty()
                            && params.requestEvd().isEmpty()
                            && params.connectEvd().isEmpty(),
                    "DAT_HANDLE_NULL EVDs");
            // Matching the request: it answers as many reads as the requester issues, issues as many as it answers.
            assertEquals(1, params.attributes().maxRdmaReadIn());
            assertEquals(2, params.attributes().maxRdmaReadOut());

            // dat_ep_free(3DAT): a TENTATIVE EP cannot be freed (reject instead); nor disconnected.
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING, ep::free);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING,
                    () -> ep.disconnect(CloseFlag.ABRUPT));
            // Without PZ and EVDs it does not satisfy the request: the accept fails without effect
            // (dat_cr_accept(3DAT); the code is SILENT there, the provider says the EP is not ready).
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                    () -> req.cr().accept(null, null));
            assertState(EndpointState.TENTATIVE_CONNECTION_PENDING, ep);

            EventDispatcher epConn = connEvd(p.b);
            equipProviderEndpoint(ep, p.b, epConn);
            assertState(EndpointState.TENTATIVE_CONNECTION_PENDING, ep);
            ep.postRecv(p.b.iov(256, 8), 31, CompletionFlag.defaults());
            byte[] reply = bytes(MAX_PD, 5);
            req.cr().accept(null, reply);
            assertArrayEquals(reply, expect(p.a.conn, ESTABLISHED, active).privateData());
            assertEquals(0, expect(epConn, ESTABLISHED, ep).privateDataSize());
            assertNoEvent(psp.evd());
            assertState(EndpointState.CONNECTED, ep);

            p.a.buf.put(8, (byte) 0x5C);
            active.postSend(p.a.iov(8, 1), 32, CompletionFlag.defaults());
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    next(p.a.dto, DtoCompletionEvent.class).status());
            completion(p.b.dto, 31, DtoCompletionStatus.SUCCESS);
            assertEquals((byte) 0x5C, p.b.buf.get(256));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_reject(3DAT), dat_psp_create(3DAT): rejecting a DAT_PSP_PROVIDER request returns the EP to "
            + "the provider (its handle is invalid from then on) and the requester sees PEER_REJECTED")
    void shouldReturnEndpointToProviderWhenRequestIsRejected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            ConnectionRequestEvent req = psp(p, PspFlag.PROVIDER).request(active, null);
            Endpoint ep = req.cr().query().localEp().orElseThrow();
            rejectAndExpect(p, req, active);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, ep::status);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, ep::free);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_create_any(3DAT): each PSP gets an unused nonprivileged qualifier of its own, which "
            + "dat_psp_query returns and on which requests arrive")
    void shouldAllocateDistinctUsableQualifiersWhenCreatingAny(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            int taken = p.qual();
            p.b.ia.createPsp(taken, p.b.conn, PspFlag.CONSUMER);
            Set<Long> quals = new HashSet<>();
            List<Listener<PublicServicePoint>> any = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                EventDispatcher evd = crEvd(p.b, 4);
                PublicServicePoint psp = p.b.ia.createPspAny(evd, PspFlag.CONSUMER);
                long q = psp.connQual();
                any.add(new Listener<>(p.b, evd, psp, q));
                assertEquals(q, psp.query().connQual());
                assertTrue(q >= 1024 && q <= 0xFFFF, "a nonprivileged qualifier, not " + q);
                assertNotEquals(taken, q);
                assertTrue(quals.add(q), "qualifier " + q + " allocated twice");
                // dat_psp_create(3DAT) on it now finds it in use.
                assertDat(
                        DatReturnType.CONN_QUAL_IN_USE,
                        DatReturnSubtype.NO_SUBTYPE,
                        () -> p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER));
            }
            for (int i = 2; i >= 0; i--) {
                Endpoint active = p.a.ep();
                ConnectionRequestEvent req = any.get(i).request(active, bytes(2, i));
                assertArrayEquals(bytes(2, i), req.cr().query().privateData());
                acceptWithNewEndpoint(p, req.cr(), active);
            }
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                    () -> p.b.ia.createPspAny(p.b.dto, PspFlag.CONSUMER));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.b.ia.createPspAny(any.get(0).evd(), null));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_create(3DAT), dat_rsp_create(3DAT): a qualifier a service point of the IA listens on is "
            + "DAT_CONN_QUAL_IN_USE until that one is freed; another IA may use it")
    void shouldRefuseQualifierWhenInUse(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            int q = p.qual();
            PublicServicePoint psp = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            assertDat(
                    DatReturnType.CONN_QUAL_IN_USE,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.b.ia.createPsp(q, p.b.conn, PspFlag.PROVIDER));
            Endpoint ep = p.b.ep();
            assertDat(
                    DatReturnType.CONN_QUAL_IN_USE,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.b.ia.createRsp(q, ep, p.b.conn));
            assertState(EndpointState.UNCONNECTED, ep);
            int r = p.qual();
            ReservedServicePoint rsp = p.b.ia.createRsp(r, ep, p.b.conn);
            assertDat(
                    DatReturnType.CONN_QUAL_IN_USE,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.b.ia.createPsp(r, p.b.conn, PspFlag.CONSUMER));
            // Another IA has qualifiers of its own.
            p.a.ia.createPsp(q, p.a.conn, PspFlag.CONSUMER);
            // Freed, the qualifier is free again.
            psp.free();
            rsp.free();
            PublicServicePoint again = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            p.b.ia.createPsp(r, p.b.conn, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            connect(active, p.b, q, null);
            rejectAndExpect(p, expectRequest(p.b.conn, again, p.b), active);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_create(3DAT): a qualifier outside 1..65535 or a null flag is DAT_INVALID_PARAMETER; an EVD "
            + "without the connection request stream, freed, null or of another IA is DAT_INVALID_HANDLE_EVD_CR")
    void shouldRefusePspWhenArgumentsAreInvalid(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            for (long bad : new long[] {0, -1, 0x10000, Long.MIN_VALUE}) {
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.NO_SUBTYPE,
                        () -> p.b.ia.createPsp(bad, p.b.conn, PspFlag.CONSUMER));
            }
            int q = p.qual();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.b.ia.createPsp(q, p.b.conn, null));
            EventDispatcher connOnly = p.b.ia.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION));
            EventDispatcher freed = crEvd(p.b, 4);
            freed.free();
            for (EventDispatcher bad : new EventDispatcher[] {p.b.dto, connOnly, freed, null, p.a.conn}) {
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                        () -> p.b.ia.createPsp(q, bad, PspFlag.CONSUMER));
            }
            // None of the failures took the qualifier.
            p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            p.b.ia.createPsp(0xFFFF, p.b.conn, PspFlag.CONSUMER);
            p.b.ia.createPsp(1, p.b.conn, PspFlag.PROVIDER);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_free(3DAT): later requests are rejected as if nobody listened (NON_PEER_REJECTED); a request "
            + "that arrived before stays acceptable; the freed handle is DAT_INVALID_HANDLE_PSP")
    void shouldRejectLaterRequestsAndKeepEarlierOnesWhenPspIsFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> listener = psp(p, PspFlag.CONSUMER);
            PublicServicePoint psp = listener.sp();
            Endpoint early = p.a.ep();
            ConnectionRequestEvent req = listener.request(early, bytes(3, 1));
            psp.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PSP, psp::query);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PSP, psp::free);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PSP, psp::connQual);

            Endpoint late = connectRefused(p, listener.qual());
            assertState(EndpointState.DISCONNECTED, late);
            assertNoEvent(listener.evd());

            assertArrayEquals(bytes(3, 1), req.cr().query().privateData());
            acceptWithNewEndpoint(p, req.cr(), early);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_psp_free(3DAT): an EP the provider created for an earlier request survives the free and " + "accepts")
    void shouldKeepProviderEndpointWhenPspIsFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.PROVIDER);
            Endpoint active = p.a.ep();
            ConnectionRequestEvent req = psp.request(active, null);
            psp.sp().free();
            Endpoint ep = req.cr().query().localEp().orElseThrow();
            assertState(EndpointState.TENTATIVE_CONNECTION_PENDING, ep);
            equipProviderEndpoint(ep, p.b, p.b.conn);
            req.cr().accept(null, null);
            expectEstablished(p, active, ep);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_create(3DAT), dat_ep_connect(3DAT): the EVD's queue is the backlog: with it full a request "
            + "is refused (NON_PEER_REJECTED); once the queued request is dequeued, requests come in again")
    void shouldRefuseRequestsWhenBacklogEvdIsFull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER, 1);
            EventDispatcher backlog = psp.evd();
            long q = psp.qual();
            Endpoint first = p.a.ep();
            Endpoint second = p.a.ep();
            connect(first, p.b, q, null);
            connect(second, p.b, q, null);
            // Whichever request arrives second finds the one-event queue full.
            ConnectionEvent refused =
                    DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            Endpoint queued = refused.ep() == first ? second : first;
            assertTrue(refused.ep() == first || refused.ep() == second, "a refused request of ours");
            assertState(EndpointState.DISCONNECTED, refused.ep());
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, queued);

            ConnectionRequestEvent req = expectRequest(backlog, psp.sp(), p.b);
            assertEquals(
                    queued.query().localPortQual().getAsLong(), req.cr().query().remotePortQual());
            acceptWithNewEndpoint(p, req.cr(), queued);

            // The queue is empty again: the refused EP, reset, gets through.
            Endpoint again = refused.ep();
            again.reset();
            ConnectionRequestEvent req2 = psp.request(again, null);
            assertEquals(
                    again.query().localPortQual().getAsLong(), req2.cr().query().remotePortQual());
            rejectAndExpect(p, req2, again);
            assertNoEvent(backlog);
        }
    }
}
