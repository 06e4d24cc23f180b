package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.MAX_PD;
import static io.simrdma.provider.ConnSupport.acceptWithNewEndpoint;
import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.bytes;
import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.connect;
import static io.simrdma.provider.ConnSupport.establish;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.ConnSupport.expectEstablished;
import static io.simrdma.provider.ConnSupport.expectRequest;
import static io.simrdma.provider.ConnSupport.nobody;
import static io.simrdma.provider.ConnSupport.psp;
import static io.simrdma.provider.ConnSupport.rejectAndExpect;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.next;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static io.simrdma.provider.EventTestSupport.completion;
import static io.simrdma.provider.EventTestSupport.device;
import static io.simrdma.provider.EventTestSupport.fabric;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import io.simrdma.provider.ConnSupport.Listener;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connection establishment and teardown of endpoints: every DAT_CONNECTION_EVENT_* number and the
 * EVD it goes to, private data both ways, the connect argument checks, dat_ep_dup_connect,
 * dat_ep_disconnect and dat_ep_reset with reconnection.
 */
class ConnectionTest {

    private static final EventNumber ESTABLISHED = EventNumber.CONNECTION_EVENT_ESTABLISHED;
    private static final EventNumber DISCONNECTED = EventNumber.CONNECTION_EVENT_DISCONNECTED;

    // ------------------------------------------------------------------ ESTABLISHED and private data

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT), dat_cr_accept(3DAT), dat_evd_wait(3DAT): ESTABLISHED on both connect EVDs; "
            + "the active side gets the accepter's private data, the passive side none")
    void shouldEstablishOnBothConnectEvdsWhenRequestIsAccepted(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            long q = psp.qual();
            EventDispatcher passiveConn = connEvd(p.b);
            Endpoint active = p.a.ep();
            Endpoint passive = ConnSupport.ep(p.b, passiveConn);
            byte[] request = bytes(13, 1);
            byte[] reply = bytes(21, 2);

            connect(active, p.b, q, request);
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, active);
            ConnectionRequestEvent req = expectRequest(psp.evd(), psp.sp(), p.b);
            assertArrayEquals(request, req.cr().query().privateData());
            req.cr().accept(passive, reply);

            ConnectionEvent activeEst = expect(p.a.conn, ESTABLISHED, active);
            assertArrayEquals(reply, activeEst.privateData(), "the accepter's private data");
            ConnectionEvent passiveEst = expect(passiveConn, ESTABLISHED, passive);
            assertEquals(0, passiveEst.privateDataSize(), "passive side private_data_size");
            assertNoEvent(psp.evd());
            assertNoEvent(p.b.conn);
            assertState(EndpointState.CONNECTED, active);
            assertState(EndpointState.CONNECTED, passive);

            // dat_ep_query(3DAT): the two ends name each other.
            EpParams ap = active.query();
            EpParams bp = passive.query();
            assertEquals(p.b.address(), ap.remoteIaAddress().orElseThrow());
            assertEquals(OptionalLong.of(q), ap.remotePortQual());
            assertEquals(p.a.address(), bp.remoteIaAddress().orElseThrow());
            assertEquals(ap.localPortQual(), bp.remotePortQual(), "the passive end's remote port is the requester's");
            assertEquals(OptionalLong.of(q), bp.localPortQual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT), dat_cr_accept(3DAT), dat_evd_wait(3DAT): private data of 0 and of "
            + "max_private_data_size (89) bytes arrives whole both ways")
    void shouldCarryPrivateDataUpToMaxBothWaysWhenConnecting(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            assertEquals(MAX_PD, p.a.ia.query().providerAttributes().maxPrivateDataSize());
            for (int size : new int[] {0, 1, MAX_PD}) {
                int q = p.qual();
                PublicServicePoint psp = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
                Endpoint active = p.a.ep();
                Endpoint passive = p.b.ep();
                byte[] request = bytes(size, size);
                byte[] reply = bytes(size, 3 * size + 1);
                connect(active, p.b, q, size == 0 ? null : request);
                ConnectionRequestEvent req = expectRequest(p.b.conn, psp, p.b);
                CrParams cp = req.cr().query();
                assertEquals(size, cp.privateDataSize());
                assertArrayEquals(request, cp.privateData());
                req.cr().accept(passive, size == 0 ? null : reply);
                ConnectionEvent est = expect(p.a.conn, ESTABLISHED, active);
                assertEquals(size, est.privateDataSize());
                assertArrayEquals(reply, est.privateData());
                assertEquals(0, expect(p.b.conn, ESTABLISHED, passive).privateDataSize());
                psp.free();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT), dat_evd_wait(3DAT): private data over max_private_data_size is "
            + "DAT_INVALID_PARAMETER and the endpoint stays UNCONNECTED")
    void shouldRefuseConnectWhenPrivateDataExceedsMax(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            int q = p.qual();
            p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> connect(active, p.b, q, bytes(MAX_PD + 1, 0)));
            assertState(EndpointState.UNCONNECTED, active);
            assertNoEvent(p.b.conn);
            // Nothing was started: the same endpoint connects with data of the maximum size.
            connect(active, p.b, q, bytes(MAX_PD, 0));
            ConnectionRequestEvent req = next(p.b.conn, ConnectionRequestEvent.class);
            assertEquals(MAX_PD, req.cr().query().privateDataSize());
            rejectAndExpect(p, req, active);
        }
    }

    // ------------------------------------------------------------------ the failure events

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT), dat_cr_reject(3DAT): a consumer reject is PEER_REJECTED on the active "
            + "connect EVD, with no private data (dat_cr_reject carries none); the EP is DISCONNECTED")
    void shouldReportPeerRejectedWhenConsumerRejects(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            psp.request(active, bytes(5, 5)).cr().reject();
            ConnectionEvent e = expect(p.a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED, active);
            assertEquals(0, e.privateDataSize());
            assertState(EndpointState.DISCONNECTED, active);
            assertNoEvent(psp.evd());
            assertNoEvent(p.b.conn);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT): nobody listening on the qualifier is NON_PEER_REJECTED on the connect EVD; "
            + "the EP is DISCONNECTED")
    void shouldReportNonPeerRejectedWhenNobodyListens(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            connect(active, p.b, p.qual(), bytes(3, 3));
            ConnectionEvent e = expect(p.a.conn, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, active);
            assertEquals(0, e.privateDataSize());
            assertState(EndpointState.DISCONNECTED, active);
            assertNoEvent(p.b.conn);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT): an IA address no device owns is UNREACHABLE once the transport gives up, "
            + "before a long connect timeout; the EP is DISCONNECTED")
    void shouldReportUnreachableWhenNoDeviceOwnsTheAddress(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            long start = fabric(p).now();
            active.connect(
                    nobody(p.a),
                    p.qual(),
                    Timeout.ofMillis(60_000),
                    null,
                    Qos.BEST_EFFORT,
                    EnumSet.noneOf(ConnectFlag.class));
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_UNREACHABLE, active);
            assertState(EndpointState.DISCONNECTED, active);
            if (mode == DatPair.Mode.DETERMINISTIC) {
                assertTrue(fabric(p).now() - start < 60_000_000_000L, "UNREACHABLE before the connect timeout");
            }
        }
    }

    @Test
    @DisplayName("dat_ep_connect(3DAT): a peer that never answers the request gives TIMED_OUT on the connect EVD "
            + "when the consumer's timeout expires (virtual time); the EP is DISCONNECTED")
    void shouldReportTimedOutWhenPeerNeverAccepts() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            long start = fabric(p).now();
            connect(active, p.b, psp.qual(), Timeout.ofMillis(1000), null);
            expectRequest(psp.evd(), psp.sp(), p.b);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_TIMED_OUT, active);
            long elapsed = fabric(p).now() - start;
            assertTrue(
                    elapsed >= 1_000_000_000L && elapsed < 2_000_000_000L,
                    "TIMED_OUT after 1 s, not " + elapsed + " ns");
            assertState(EndpointState.DISCONNECTED, active);
            assertNoEvent(p.b.conn);
        }
    }

    @Test
    @DisplayName("dat_cr_accept(3DAT): an accept after the requester's connect timed out ends in "
            + "ACCEPT_COMPLETION_ERROR on the passive connect EVD; the EP is DISCONNECTED and its receives flushed")
    void shouldReportAcceptCompletionErrorWhenRequesterGaveUp() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            EventDispatcher passiveConn = connEvd(p.b);
            Endpoint active = p.a.ep();
            Endpoint passive = ConnSupport.ep(p.b, passiveConn);
            passive.postRecv(p.b.iov(0, 64), 77, CompletionFlag.defaults());
            connect(active, p.b, psp.qual(), Timeout.ofMillis(500), null);
            ConnectionRequestEvent req = expectRequest(psp.evd(), psp.sp(), p.b);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_TIMED_OUT, active);

            req.cr().accept(passive, bytes(7, 7));
            expect(passiveConn, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, passive);
            assertState(EndpointState.DISCONNECTED, passive);
            completion(p.b.dto, 77, DtoCompletionStatus.ERR_FLUSHED);
            assertNoEvent(p.a.conn);
            assertNoEvent(psp.evd());
        }
    }

    // ------------------------------------------------------------------ DISCONNECTED and BROKEN

    static Stream<Arguments> disconnects() {
        return ConnSupport.everyMode(Stream.of(CloseFlag.values())
                .flatMap(f -> Stream.of(Arguments.of(f, true), Arguments.of(f, false)))
                .toList());
    }

    @ParameterizedTest(name = "{0} {1} from the active side: {2}")
    @MethodSource("disconnects")
    @DisplayName("dat_ep_disconnect(3DAT): graceful and abrupt disconnects, from either side, give DISCONNECTED on "
            + "both connect EVDs; both EPs DISCONNECTED; disconnecting again is a no-op")
    void shouldReportDisconnectedOnBothSidesWhenEitherSideDisconnects(
            DatPair.Mode mode, CloseFlag flag, boolean fromActive) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher passiveConn = connEvd(p.b);
            Endpoint active = p.a.ep();
            Endpoint passive = ConnSupport.ep(p.b, passiveConn);
            establish(p, active, p.a.conn, passive, passiveConn, p.qual());

            (fromActive ? active : passive).disconnect(flag);
            expect(p.a.conn, DISCONNECTED, active);
            expect(passiveConn, DISCONNECTED, passive);
            assertState(EndpointState.DISCONNECTED, active);
            assertState(EndpointState.DISCONNECTED, passive);

            active.disconnect(flag);
            passive.disconnect(CloseFlag.ABRUPT);
            assertState(EndpointState.DISCONNECTED, active);
            assertNoEvent(p.a.conn);
            assertNoEvent(passiveConn);
            assertNoEvent(p.b.conn);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_disconnect(3DAT): disconnecting during ACTIVE_CONNECTION_PENDING aborts the attempt: "
            + "DISCONNECTED on the connect EVD (S1 choice) and pre-posted receives flushed")
    void shouldAbortEstablishmentWhenDisconnectingWhileActivePending(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            active.postRecv(p.a.iov(0, 32), 5, CompletionFlag.defaults());
            connect(active, p.b, psp.qual(), null);
            active.disconnect(CloseFlag.GRACEFUL);
            assertState(EndpointState.DISCONNECTED, active);
            expect(p.a.conn, DISCONNECTED, active);
            completion(p.a.dto, 5, DtoCompletionStatus.ERR_FLUSHED);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_disconnect(3DAT): disconnecting an UNCONNECTED EP is DAT_INVALID_STATE (C3 choice)")
    void shouldRefuseDisconnectWhenUnconnected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            for (CloseFlag f : CloseFlag.values()) {
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                        () -> ep.disconnect(f));
            }
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> ep.disconnect(null));
            assertState(EndpointState.UNCONNECTED, ep);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT), connection broken: the peer's port going down makes the next send exhaust "
            + "its retries; BROKEN on the sender's connect EVD, the send completes in error, the EP is DISCONNECTED")
    void shouldReportBrokenWhenPeerPortGoesDown(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            Endpoint passive = p.b.ep();
            p.connect(active, passive);
            device(p.b).setPortActive(false);
            active.postSend(p.a.iov(0, 16), 9, CompletionFlag.defaults());
            completion(p.a.dto, 9, DtoCompletionStatus.ERR_TRANSPORT);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN, active);
            assertState(EndpointState.DISCONNECTED, active);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_rdma_write(3DAT), connection broken: a QP error while connected (an RDMA Write with "
            + "an unknown rmr_context fails the responder's QP) gives BROKEN on that EP's connect EVD, the "
            + "DAT_ASYNC_ERROR_EP_BROKEN async event, and DISCONNECTED state")
    void shouldReportBrokenWhenQpFailsWhileConnected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            Endpoint passive = p.b.ep();
            p.connect(active, passive);
            RmrTriplet good = p.b.remote(0, 64);
            RmrTriplet bad = new RmrTriplet(good.rmrContext() ^ 0x00FF_FF00, good.targetAddress(), 64);
            active.postRdmaWrite(p.a.iov(0, 64), 11, bad, CompletionFlag.defaults());

            expect(p.b.conn, EventNumber.CONNECTION_EVENT_BROKEN, passive);
            assertState(EndpointState.DISCONNECTED, passive);
            AsyncErrorEvent async = next(p.b.ia.query().asyncEvd().orElseThrow(), AsyncErrorEvent.class);
            assertEquals(EventNumber.ASYNC_ERROR_EP_BROKEN, async.eventNumber());
            assertSame(passive, async.handle());

            // The requester's QP fails on the NAK (before the responder CM's DREQ takes the connection down):
            // the write completes with the remote access error and the requester's connection is broken too.
            completion(p.a.dto, 11, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN, active);
            assertState(EndpointState.DISCONNECTED, active);
        }
    }

    @Test
    @DisplayName("dat_lmr_free(3DAT): \"The use of rmr_context of the destroyed LMR by a remote peer for an RDMA DTO "
            + "results in an error and broken connection on which it was used\"; an RDMA Write with an unknown "
            + "rmr_context that reaches the passive EP while it is still COMPLETION_PENDING breaks that EP's "
            + "connection: ESTABLISHED, then BROKEN (as dat_rmr_bind(3DAT) reports a broken connection) on its "
            + "connect EVD, not the DISCONNECTED of the active side's disconnect that follows")
    void shouldReportBrokenWhenQpFailsBeforePassiveSideIsEstablished() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            Endpoint active = p.a.ep();
            Endpoint passive = p.b.ep();
            int qual = p.qual();
            p.b.ia.createPsp(qual, p.b.conn, PspFlag.CONSUMER);
            active.connect(p.b.address(), qual, DatPair.WAIT, null, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
            next(p.b.conn, ConnectionRequestEvent.class).cr().accept(passive, null);
            expect(p.a.conn, ESTABLISHED, active);
            // the race this test is about: the active side is CONNECTED, the passive side has not had the RTU yet
            assertState(EndpointState.COMPLETION_PENDING, passive);
            RmrTriplet good = p.b.remote(0, 64);
            RmrTriplet bad = new RmrTriplet(good.rmrContext() ^ 0x00FF_FF00, good.targetAddress(), 64);
            active.postRdmaWrite(p.a.iov(0, 64), 11, bad, CompletionFlag.defaults());

            expect(p.b.conn, ESTABLISHED, passive);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_BROKEN, passive);
            assertState(EndpointState.DISCONNECTED, passive);
            completion(p.a.dto, 11, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN, active);
            assertState(EndpointState.DISCONNECTED, active);
            assertNoEvent(p.b.conn);
            assertNoEvent(p.a.conn);
        }
    }

    // ------------------------------------------------------------------ connect argument checks

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT): bad address, qualifier, qos, flags and timeout fail synchronously with "
            + "their exact codes; the EP stays UNCONNECTED and nothing reaches the peer")
    void shouldRefuseConnectWhenArgumentsAreInvalid(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            int q = p.qual();
            p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            Endpoint ep = p.a.ep();
            SocketAddress b = p.b.address();
            EnumSet<ConnectFlag> none = EnumSet.noneOf(ConnectFlag.class);
            Timeout t = DatPair.WAIT;

            // DAT_INVALID_ADDRESS: the address cannot be converted to a transport address.
            assertDat(
                    DatReturnType.INVALID_ADDRESS,
                    DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                    () -> ep.connect(null, q, t, null, Qos.BEST_EFFORT, none));
            assertDat(
                    DatReturnType.INVALID_ADDRESS,
                    DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                    () -> ep.connect(
                            InetSocketAddress.createUnresolved("nowhere.invalid", 0),
                            q,
                            t,
                            null,
                            Qos.BEST_EFFORT,
                            none));
            assertDat(
                    DatReturnType.INVALID_ADDRESS,
                    DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                    () -> ep.connect(
                            new SocketAddress() {
                                private static final long serialVersionUID = 1L;
                            },
                            q,
                            t,
                            null,
                            Qos.BEST_EFFORT,
                            none));
            // DAT_INVALID_PARAMETER: qualifier outside the IB service ids of the port space.
            for (long bad : new long[] {0, -1, 0x10000, Long.MAX_VALUE}) {
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.NO_SUBTYPE,
                        () -> ep.connect(b, bad, t, null, Qos.BEST_EFFORT, none));
            }
            // DAT_MODEL_NOT_SUPPORTED: a qos or multipath the provider does not support.
            for (Qos qos : Qos.values()) {
                if (qos != Qos.BEST_EFFORT) {
                    assertDat(
                            DatReturnType.MODEL_NOT_SUPPORTED,
                            DatReturnSubtype.NO_SUBTYPE,
                            () -> ep.connect(b, q, t, null, qos, none));
                }
            }
            assertEquals(false, p.a.ia.query().providerAttributes().supportsMultipath());
            assertDat(
                    DatReturnType.MODEL_NOT_SUPPORTED,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.connect(b, q, t, null, Qos.BEST_EFFORT, EnumSet.of(ConnectFlag.MULTIPATH)));
            // DAT_INVALID_PARAMETER: the timeout must be positive; null arguments.
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.connect(b, q, Timeout.ZERO, null, Qos.BEST_EFFORT, none));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.connect(b, q, null, null, Qos.BEST_EFFORT, none));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.connect(b, q, t, null, null, none));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.connect(b, q, t, null, Qos.BEST_EFFORT, null));

            assertState(EndpointState.UNCONNECTED, ep);
            assertNoEvent(p.a.conn);
            assertNoEvent(p.b.conn);
            // None of them left anything behind: a good connect still works.
            connect(ep, p.b, q, null);
            rejectAndExpect(p, next(p.b.conn, ConnectionRequestEvent.class), ep);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT): connecting an EP that is not UNCONNECTED is DAT_INVALID_STATE with the "
            + "subtype of its state; a freed EP is DAT_INVALID_HANDLE_EP")
    void shouldRefuseConnectWhenEndpointIsNotUnconnected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            long q = psp.qual();
            Endpoint ep = p.a.ep();
            connect(ep, p.b, q, null);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                    () -> connect(ep, p.b, q, null));
            Endpoint passive = acceptWithNewEndpoint(
                    p, expectRequest(psp.evd(), psp.sp(), p.b).cr(), ep);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                    () -> connect(ep, p.b, q, null));
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                    () -> connect(passive, p.a, q, null));
            ep.disconnect(CloseFlag.ABRUPT);
            expect(p.a.conn, DISCONNECTED, ep);
            // dat_ep_connect(3DAT): DISCONNECTED needs dat_ep_reset first.
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED,
                    () -> connect(ep, p.b, q, null));
            ep.free();
            assertDat(
                    DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> connect(ep, p.b, q, null));
            assertNoEvent(psp.evd());
        }
    }

    // ------------------------------------------------------------------ dat_ep_dup_connect

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_dup_connect(3DAT): connects to the remote IA and qualifier of a connected EP with its own "
            + "private data; both ends are ESTABLISHED")
    void shouldConnectToTheSameRemoteEndWhenDupConnecting(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint first = p.a.ep();
            acceptWithNewEndpoint(p, psp.request(first, null).cr(), first);

            Endpoint dup = p.a.ep();
            Endpoint dupPeer = p.b.ep();
            byte[] request = bytes(MAX_PD, 9);
            dup.dupConnect(first, DatPair.WAIT, request, Qos.BEST_EFFORT);
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, dup);
            ConnectionRequestEvent req = expectRequest(psp.evd(), psp.sp(), p.b);
            CrParams cp = req.cr().query();
            assertArrayEquals(request, cp.privateData());
            assertEquals(dup.query().localPortQual().getAsLong(), cp.remotePortQual());
            assertNotEquals(first.query().localPortQual(), dup.query().localPortQual(), "a port qualifier of its own");
            byte[] reply = bytes(4, 4);
            req.cr().accept(dupPeer, reply);
            assertArrayEquals(reply, expectEstablished(p, dup, dupPeer).privateData());
            assertEquals(p.b.address(), dup.query().remoteIaAddress().orElseThrow());
            assertEquals(OptionalLong.of(psp.qual()), dup.query().remotePortQual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_dup_connect(3DAT): dup_ep_handle not connected is DAT_INVALID_STATE, invalid is "
            + "DAT_INVALID_HANDLE; oversized private data DAT_INVALID_PARAMETER; unsupported qos "
            + "DAT_MODEL_NOT_SUPPORTED; an EP not UNCONNECTED DAT_INVALID_STATE")
    void shouldRefuseDupConnectWhenArgumentsAreInvalid(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint connected = p.a.ep();
            p.connect(connected, p.b.ep());
            Endpoint ep = p.a.ep();
            Endpoint idle = p.a.ep();
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> ep.dupConnect(idle, DatPair.WAIT, null, Qos.BEST_EFFORT));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> ep.dupConnect(null, DatPair.WAIT, null, Qos.BEST_EFFORT));
            Endpoint freed = p.a.ep();
            freed.free();
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> ep.dupConnect(freed, DatPair.WAIT, null, Qos.BEST_EFFORT));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> freed.dupConnect(connected, DatPair.WAIT, null, Qos.BEST_EFFORT));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.dupConnect(connected, DatPair.WAIT, bytes(MAX_PD + 1, 0), Qos.BEST_EFFORT));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.dupConnect(connected, Timeout.ZERO, null, Qos.BEST_EFFORT));
            assertDat(
                    DatReturnType.MODEL_NOT_SUPPORTED,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.dupConnect(connected, DatPair.WAIT, null, Qos.LOW_LATENCY));
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                    () -> connected.dupConnect(connected, DatPair.WAIT, null, Qos.BEST_EFFORT));
            assertState(EndpointState.UNCONNECTED, ep);
            assertNoEvent(p.a.conn);
            assertNoEvent(p.b.conn);
        }
    }

    // ------------------------------------------------------------------ dat_ep_reset and reconnection

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_reset(3DAT): a DISCONNECTED EP becomes UNCONNECTED without remote ends and connects "
            + "again, passively and actively, and carries data")
    void shouldReconnectTheSameEndpointsWhenReset(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            Endpoint passive = p.b.ep();
            p.connect(active, passive);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_CONNECTED, active::reset);
            active.disconnect(CloseFlag.ABRUPT);
            expect(p.a.conn, DISCONNECTED, active);
            expect(p.b.conn, DISCONNECTED, passive);

            for (int round = 0; round < 2; round++) {
                active.reset();
                passive.reset();
                assertState(EndpointState.UNCONNECTED, active);
                assertState(EndpointState.UNCONNECTED, passive);
                assertTrue(active.query().remoteIaAddress().isEmpty(), "no remote address after reset");
                assertTrue(active.query().remotePortQual().isEmpty(), "no remote port after reset");
                active.reset(); // dat_ep_reset(3DAT): a no-op on an UNCONNECTED EP

                passive.postRecv(p.b.iov(128, 16), 40 + round, CompletionFlag.defaults());
                p.a.buf.put(0, (byte) (0x30 + round));
                if (round == 0) {
                    p.connect(active, passive, bytes(2, 2), bytes(3, 3));
                } else {
                    // The roles swap: the former passive EP connects actively.
                    int q = p.qual();
                    PublicServicePoint psp = p.a.ia.createPsp(q, p.a.conn, PspFlag.CONSUMER);
                    connect(passive, p.a, q, null);
                    expectRequest(p.a.conn, psp, p.a).cr().accept(active, null);
                    expectEstablished(p, active, passive);
                    psp.free();
                }
                active.postSend(p.a.iov(0, 1), 50 + round, CompletionFlag.defaults());
                DtoCompletionEvent sent = next(p.a.dto, DtoCompletionEvent.class);
                assertEquals(DtoCompletionStatus.SUCCESS, sent.status());
                completion(p.b.dto, 40 + round, DtoCompletionStatus.SUCCESS);
                assertEquals((byte) (0x30 + round), p.b.buf.get(128));

                (round == 0 ? passive : active).disconnect(CloseFlag.GRACEFUL);
                expect(p.a.conn, DISCONNECTED, active);
                expect(p.b.conn, DISCONNECTED, passive);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_reset(3DAT), dat_ep_connect(3DAT): after a failed connect (NON_PEER_REJECTED) the reset "
            + "EP connects to a listener")
    void shouldConnectAfterResetWhenFirstAttemptFailed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            int q = p.qual();
            connect(active, p.b, q, null);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, active);
            active.reset();
            assertState(EndpointState.UNCONNECTED, active);
            Endpoint passive = p.b.ep();
            p.connect(active, passive, bytes(1, 1), bytes(MAX_PD, 1));
            assertState(EndpointState.CONNECTED, active);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_reset(3DAT): reset is refused in ACTIVE_CONNECTION_PENDING with its subtype")
    void shouldRefuseResetWhenConnectionIsPending(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            connect(active, p.b, psp.qual(), null);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING, active::reset);
            rejectAndExpect(p, expectRequest(psp.evd(), psp.sp(), p.b), active);
            active.reset();
            assertState(EndpointState.UNCONNECTED, active);
        }
    }
}
