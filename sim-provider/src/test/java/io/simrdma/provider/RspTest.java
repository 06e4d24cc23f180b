package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.bytes;
import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.connect;
import static io.simrdma.provider.ConnSupport.connectRefused;
import static io.simrdma.provider.ConnSupport.crEvd;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.ConnSupport.expectEstablished;
import static io.simrdma.provider.ConnSupport.expectRequest;
import static io.simrdma.provider.ConnSupport.rejectAndExpect;
import static io.simrdma.provider.ConnSupport.rsp;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.RspParams;
import io.simrdma.provider.ConnSupport.Listener;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reserved Service Points: dat_rsp_create(3DAT), dat_rsp_query(3DAT), dat_rsp_free(3DAT), and the
 * states they give the reserved EP (RESERVED, PASSIVE_CONNECTION_PENDING).
 */
class RspTest {

    private static final EventNumber ESTABLISHED = EventNumber.CONNECTION_EVENT_ESTABLISHED;

    /** A new EP of {@code b} reserved by an RSP, and the request of a new EP of {@code a} on it (PASSIVE_CONNECTION_PENDING). */
    private record Pending(
            Endpoint ep, Listener<ReservedServicePoint> rsp, Endpoint active, ConnectionRequestEvent req) {

        static Pending open(DatPair p, byte[] privateData) {
            Endpoint ep = p.b.ep();
            Listener<ReservedServicePoint> rsp = ConnSupport.rsp(p, ep);
            Endpoint active = p.a.ep();
            return new Pending(ep, rsp, active, rsp.request(active, privateData));
        }

        /** dat_cr_accept(3DAT) with DAT_HANDLE_NULL: the reserved EP accepts; ESTABLISHED on both sides. */
        void accept(DatPair p) {
            req.cr().accept(null, null);
            expectEstablished(p, active, ep);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rsp_create(3DAT), dat_rsp_query(3DAT): the EP moves to RESERVED, then on the request to "
            + "PASSIVE_CONNECTION_PENDING; the request names the EP, which accepts with a null EP handle")
    void shouldReserveEndpointAndAcceptWhenRequestArrives(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher epConn = connEvd(p.b);
            Endpoint ep = ConnSupport.ep(p.b, epConn);
            Listener<ReservedServicePoint> reserved = rsp(p, ep);
            ReservedServicePoint rsp = reserved.sp();
            long q = reserved.qual();
            assertState(EndpointState.RESERVED, ep);
            assertEquals(OptionalLong.of(q), ep.query().localPortQual());
            RspParams rp = rsp.query();
            assertSame(p.b.ia, rp.ia());
            assertEquals(q, rp.connQual());
            assertEquals(q, rsp.connQual());
            assertSame(reserved.evd(), rp.evd());
            assertSame(ep, rp.ep());

            Endpoint active = p.a.ep();
            byte[] request = bytes(17, 3);
            ConnectionRequestEvent req = reserved.request(active, request);
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, ep);
            CrParams cp = req.cr().query();
            assertEquals(Optional.of(ep), cp.localEp());
            assertArrayEquals(request, cp.privateData());
            byte[] reply = bytes(5, 9);
            req.cr().accept(null, reply);
            assertArrayEquals(reply, expect(p.a.conn, ESTABLISHED, active).privateData());
            assertEquals(0, expect(epConn, ESTABLISHED, ep).privateDataSize());
            assertState(EndpointState.CONNECTED, ep);
            assertNoEvent(reserved.evd());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rsp_create(3DAT), dat_cr_accept(3DAT): only the reserved EP can accept; another EP is a "
            + "combination of parameters the request does not allow (DAT_INVALID_PARAMETER), without effect")
    void shouldRefuseAcceptWhenAnotherEndpointIsGiven(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Pending r = Pending.open(p, null);
            Endpoint other = p.b.ep();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> r.req().cr().accept(other, null));
            assertState(EndpointState.UNCONNECTED, other);
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, r.ep());
            assertEquals(Optional.of(r.ep()), r.req().cr().query().localEp());
            r.accept(p);
            assertState(EndpointState.UNCONNECTED, other);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rsp_create(3DAT), dat_ep_connect(3DAT): an RSP yields at most one request; a second one is "
            + "refused by the provider (NON_PEER_REJECTED), the first stays acceptable")
    void shouldRefuseSecondRequestWhenRspWasUsed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Pending r = Pending.open(p, null);
            connectRefused(p, r.rsp().qual());
            assertNoEvent(r.rsp().evd());
            r.accept(p);
            // After the connection too.
            connectRefused(p, r.rsp().qual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rsp_free(3DAT), dat_ep_free(3DAT): freed before a request, the RSP gives the EP back "
            + "(UNCONNECTED, free to use); later requests are rejected as if nobody listened")
    void shouldReturnEndpointToConsumerWhenFreedBeforeRequest(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.b.ep();
            Listener<ReservedServicePoint> reserved = rsp(p, ep);
            ReservedServicePoint rsp = reserved.sp();
            rsp.free();
            assertState(EndpointState.UNCONNECTED, ep);
            assertEquals(OptionalLong.empty(), ep.query().localPortQual(), "the qualifier is no longer the EP's");
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RSP, rsp::query);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RSP, rsp::free);

            long q = reserved.qual();
            Endpoint active = connectRefused(p, q);
            assertNoEvent(reserved.evd());

            // The EP is the consumer's again: reserved anew on the same qualifier, it is connected.
            ReservedServicePoint again = p.b.ia.createRsp(q, ep, reserved.evd());
            active.reset();
            connect(active, p.b, q, null);
            expectRequest(reserved.evd(), again, p.b).cr().accept(null, null);
            expectEstablished(p, active, ep);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rsp_free(3DAT): freed after its request arrived, the RSP leaves the request and the EP "
            + "(PASSIVE_CONNECTION_PENDING) as they were; the request is accepted")
    void shouldKeepRequestWhenFreedAfterRequest(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Pending r = Pending.open(p, bytes(6, 6));
            ReservedServicePoint rsp = r.rsp().sp();
            rsp.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RSP, rsp::query);
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, r.ep());
            assertEquals(Optional.of(r.ep()), r.req().cr().query().localEp());
            r.accept(p);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_reject(3DAT), dat_rsp_create(3DAT): rejecting the request of an RSP returns its EP to the "
            + "consumer (UNCONNECTED); the requester sees PEER_REJECTED; the EP connects afterwards")
    void shouldReturnEndpointToConsumerWhenRequestIsRejected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Pending r = Pending.open(p, null);
            Endpoint ep = r.ep();
            Endpoint active = r.active();
            rejectAndExpect(p, r.req(), active);
            assertState(EndpointState.UNCONNECTED, ep);
            r.rsp().sp().free();
            assertState(EndpointState.UNCONNECTED, ep);
            // Free for any use: here it connects actively.
            int q = p.qual();
            p.a.ia.createPsp(q, p.a.conn, PspFlag.CONSUMER);
            connect(ep, p.a, q, null);
            ConnectionRequestEvent back = DatPair.next(p.a.conn, ConnectionRequestEvent.class);
            active.reset();
            back.cr().accept(active, null);
            expectEstablished(p, active, ep);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rsp_create(3DAT): an EP that is not UNCONNECTED (\"Idle\") is DAT_INVALID_STATE with the "
            + "subtype of its state, and the qualifier stays free")
    void shouldRefuseRspWhenEndpointIsNotUnconnected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            int q = p.qual();
            Endpoint reserved = p.b.ep();
            p.b.ia.createRsp(p.qual(), reserved, p.b.conn);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_RESERVED,
                    () -> p.b.ia.createRsp(q, reserved, p.b.conn));
            assertState(EndpointState.RESERVED, reserved);

            Endpoint active = p.a.ep();
            Endpoint connected = p.b.ep();
            p.connect(active, connected);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                    () -> p.b.ia.createRsp(q, connected, p.b.conn));
            active.disconnect(CloseFlag.ABRUPT);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, active);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, connected);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED,
                    () -> p.b.ia.createRsp(q, connected, p.b.conn));
            Endpoint pending = p.a.ep();
            int nobody = p.qual();
            p.b.ia.createPsp(nobody, crEvd(p.b, 2), PspFlag.CONSUMER);
            connect(pending, p.b, nobody, null);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                    () -> p.a.ia.createRsp(q, pending, p.a.conn));

            // The failures left the qualifier free; after dat_ep_reset the EP is idle again.
            connected.reset();
            p.b.ia.createRsp(q, connected, p.b.conn);
            assertState(EndpointState.RESERVED, connected);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_free(3DAT), dat_ep_disconnect(3DAT), dat_ep_connect(3DAT): a RESERVED or "
            + "PASSIVE_CONNECTION_PENDING EP refuses them with DAT_INVALID_STATE and the subtype of its state")
    void shouldRefuseEndpointOperationsWhileReservedOrPending(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.b.ep();
            Listener<ReservedServicePoint> rsp = rsp(p, ep);
            long q = rsp.qual();
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_RESERVED, ep::free);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_RESERVED,
                    () -> ep.disconnect(CloseFlag.ABRUPT));
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_RESERVED,
                    () -> connect(ep, p.a, q, null));
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_RESERVED, ep::reset);
            Endpoint active = p.a.ep();
            ConnectionRequestEvent req = rsp.request(active, null);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING, ep::free);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING,
                    () -> ep.disconnect(CloseFlag.GRACEFUL));
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING,
                    () -> connect(ep, p.a, q, null));
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, ep);
            rejectAndExpect(p, req, active);
            ep.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rsp_create(3DAT): a qualifier outside 1..65535 is DAT_INVALID_PARAMETER; an EP or EVD that is "
            + "invalid is DAT_INVALID_HANDLE (EP, EVD_CR); a qualifier in use DAT_CONN_QUAL_IN_USE; the EP stays "
            + "UNCONNECTED")
    void shouldRefuseRspWhenArgumentsAreInvalid(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.b.ep();
            int q = p.qual();
            for (long bad : new long[] {0, -1, 0x10000}) {
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.NO_SUBTYPE,
                        () -> p.b.ia.createRsp(bad, ep, p.b.conn));
            }
            EventDispatcher connOnly = p.b.ia.createEvd(4, null, EnumSet.of(EvdFlag.CONNECTION));
            for (EventDispatcher bad : new EventDispatcher[] {p.b.dto, connOnly, null, p.a.conn}) {
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                        () -> p.b.ia.createRsp(q, ep, bad));
            }
            Endpoint freed = p.b.ep();
            freed.free();
            for (Endpoint bad : new Endpoint[] {freed, p.a.ep()}) {
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_EP,
                        () -> p.b.ia.createRsp(q, bad, p.b.conn));
            }
            p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            assertDat(
                    DatReturnType.CONN_QUAL_IN_USE,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.b.ia.createRsp(q, ep, p.b.conn));
            assertState(EndpointState.UNCONNECTED, ep);
            assertEquals(OptionalLong.empty(), ep.query().localPortQual(), "no qualifier from a failed dat_rsp_create");
            p.b.ia.createRsp(p.qual(), ep, p.b.conn);
            assertState(EndpointState.RESERVED, ep);
        }
    }
}
