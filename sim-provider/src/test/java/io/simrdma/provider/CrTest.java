package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.MAX_PD;
import static io.simrdma.provider.ConnSupport.acceptWithNewEndpoint;
import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.bytes;
import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.crEvd;
import static io.simrdma.provider.ConnSupport.equipProviderEndpoint;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.ConnSupport.expectEstablished;
import static io.simrdma.provider.ConnSupport.expectRequest;
import static io.simrdma.provider.ConnSupport.psp;
import static io.simrdma.provider.ConnSupport.rejectAndExpect;
import static io.simrdma.provider.ConnSupport.rsp;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.provider.ConnSupport.Listener;
import java.util.HashSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Connection Requests: dat_cr_query(3DAT), dat_cr_accept(3DAT), dat_cr_reject(3DAT),
 * dat_cr_handoff(3DAT), and the CR handle's life (dat_evd_wait(3DAT): destroyed by accept, reject
 * and handoff).
 */
class CrTest {

    private static final EventNumber ESTABLISHED = EventNumber.CONNECTION_EVENT_ESTABLISHED;

    /** Every CR operation on a destroyed CR is DAT_INVALID_HANDLE_CR. */
    private static void assertCrInvalid(ConnectionRequest cr, Endpoint someEp, long someQual) {
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, cr::query);
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, () -> cr.accept(someEp, null));
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, cr::reject);
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, () -> cr.handoff(someQual));
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_query(3DAT): the requester's IA address, its port qualifier (the one its EP was bound to), "
            + "exactly the private data it sent, and no local EP for a consumer PSP")
    void shouldDescribeRequesterWhenQueried(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            for (int size : new int[] {0, 1, 40, MAX_PD}) {
                Endpoint active = p.a.ep();
                byte[] data = bytes(size, 11 * size);
                ConnectionRequestEvent req = psp.request(active, data);
                CrParams cp = req.cr().query();
                assertEquals(p.a.address(), cp.remoteIaAddress());
                OptionalLong port = active.query().localPortQual();
                assertEquals(port.getAsLong(), cp.remotePortQual(), "the requester's port qualifier");
                assertEquals(size, cp.privateDataSize());
                assertArrayEquals(data, cp.privateData());
                assertEquals(Optional.empty(), cp.localEp());
                assertEquals(cp, req.cr().query(), "a query changes nothing");
                rejectAndExpect(p, req, active);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_accept(3DAT): a request that names no EP needs one: DAT_HANDLE_NULL, a freed EP or an EP of "
            + "another IA is DAT_INVALID_HANDLE_EP, oversized private data DAT_INVALID_PARAMETER, an EP in the "
            + "wrong state DAT_INVALID_STATE (S2 choice); none has an effect, and the CR is accepted afterwards")
    void shouldRefuseAcceptWithoutEffectWhenArgumentsAreInvalid(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequestEvent req = psp.request(active, bytes(8, 8));
            ConnectionRequest cr = req.cr();
            Endpoint passive = p.b.ep();

            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> cr.accept(null, null));
            Endpoint freed = p.b.ep();
            freed.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> cr.accept(freed, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> cr.accept(p.a.ep(), null));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> cr.accept(passive, bytes(MAX_PD + 1, 0)));
            assertState(EndpointState.UNCONNECTED, passive);
            Endpoint busy = p.b.ep();
            p.b.ia.createRsp(p.qual(), busy, p.b.conn);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_RESERVED,
                    () -> cr.accept(busy, null));
            assertState(EndpointState.RESERVED, busy);

            assertArrayEquals(bytes(8, 8), cr.query().privateData());
            byte[] reply = bytes(MAX_PD, 1);
            cr.accept(passive, reply);
            assertArrayEquals(reply, expectEstablished(p, active, passive).privateData());
            assertCrInvalid(cr, passive, psp.qual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_accept(3DAT): a request that names an EP (provider PSP) is accepted with DAT_HANDLE_NULL; "
            + "naming another EP is an invalid combination (DAT_INVALID_PARAMETER) without effect")
    void shouldAcceptWithNamedEndpointWhenEpHandleIsNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.PROVIDER);
            Endpoint active = p.a.ep();
            ConnectionRequestEvent req = psp.request(active, null);
            Endpoint named = req.cr().query().localEp().orElseThrow();
            EventDispatcher namedConn = connEvd(p.b);
            equipProviderEndpoint(named, p.b, namedConn);
            Endpoint other = p.b.ep();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> req.cr().accept(other, null));
            assertState(EndpointState.UNCONNECTED, other);
            assertState(EndpointState.TENTATIVE_CONNECTION_PENDING, named);
            req.cr().accept(null, null);
            expect(p.a.conn, ESTABLISHED, active);
            expect(namedConn, ESTABLISHED, named);
            assertNoEvent(p.b.conn);
            assertCrInvalid(req.cr(), other, psp.qual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_reject(3DAT): the requester gets PEER_REJECTED and the CR handle is destroyed")
    void shouldDestroyRequestWhenRejected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequest cr = psp.request(active, bytes(3, 3)).cr();
            cr.reject();
            assertCrInvalid(cr, p.b.ep(), psp.qual());
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED, active);
            assertState(EndpointState.DISCONNECTED, active);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_handoff(3DAT): handed to another PSP of the IA, the request arrives there as a new CR "
            + "event with the same requester and private data; the old CR handle is destroyed; the new one is accepted")
    void shouldDeliverNewRequestWhenHandedOffToAnotherPsp(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> first = psp(p, PspFlag.CONSUMER);
            long q = first.qual();
            EventDispatcher targetEvd = crEvd(p.b, 4);
            PublicServicePoint target = p.b.ia.createPspAny(targetEvd, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            byte[] data = bytes(MAX_PD, 2);
            ConnectionRequest old = first.request(active, data).cr();
            CrParams before = old.query();

            old.handoff(target.connQual());
            assertCrInvalid(old, p.b.ep(), q);
            ConnectionRequestEvent moved = expectRequest(targetEvd, target, p.b);
            assertNotSame(old, moved.cr());
            assertEquals(before, moved.cr().query(), "same requester, port and private data");
            assertNoEvent(first.evd());
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, active);

            Endpoint passive = p.b.ep();
            moved.cr().accept(passive, bytes(4, 4));
            assertArrayEquals(bytes(4, 4), expectEstablished(p, active, passive).privateData());
            // The requester asked for the first qualifier and is connected to it as far as it knows.
            assertEquals(OptionalLong.of(q), active.query().remotePortQual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_handoff(3DAT), dat_rsp_create(3DAT): handed to an RSP's qualifier, the request names the "
            + "reserved EP, which moves to PASSIVE_CONNECTION_PENDING and accepts with DAT_HANDLE_NULL")
    void shouldReserveEndpointWhenHandedOffToRsp(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint reserved = p.b.ep();
            Listener<ReservedServicePoint> rsp = rsp(p, reserved);
            long r = rsp.qual();
            Endpoint active = p.a.ep();
            ConnectionRequest old = psp.request(active, bytes(5, 5)).cr();
            old.handoff(r);
            assertCrInvalid(old, reserved, r);
            ConnectionRequestEvent moved = expectRequest(rsp.evd(), rsp.sp(), p.b);
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);
            assertEquals(Optional.of(reserved), moved.cr().query().localEp());
            assertArrayEquals(bytes(5, 5), moved.cr().query().privateData());
            moved.cr().accept(null, null);
            expectEstablished(p, active, reserved);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_handoff(3DAT): a qualifier no service point of the IA listens on (or one of another IA) is "
            + "DAT_INVALID_PARAMETER and the CR stays usable")
    void shouldRefuseHandoffWhenQualifierIsUnknown(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            int elsewhere = p.qual();
            p.a.ia.createPsp(elsewhere, p.a.conn, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequest cr = psp.request(active, bytes(2, 2)).cr();
            for (long bad : new long[] {p.qual(), elsewhere, 0, -1, 0x10000}) {
                assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> cr.handoff(bad));
            }
            assertArrayEquals(bytes(2, 2), cr.query().privateData());
            assertNoEvent(psp.evd());
            assertNoEvent(p.a.conn);
            acceptWithNewEndpoint(p, cr, active);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_handoff(3DAT), dat_cr_reject(3DAT): handing off a provider-PSP request returns its "
            + "provider EP to the provider; the target PSP's request names no EP")
    void shouldReleaseProviderEndpointWhenHandedOff(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Listener<PublicServicePoint> prov = psp(p, PspFlag.PROVIDER);
            Listener<PublicServicePoint> cons = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequest old = prov.request(active, null).cr();
            Endpoint providerEp = old.query().localEp().orElseThrow();
            old.handoff(cons.qual());
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, providerEp::status);
            ConnectionRequestEvent moved = expectRequest(cons.evd(), cons.sp(), p.b);
            assertEquals(Optional.empty(), moved.cr().query().localEp());
            rejectAndExpect(p, moved, active);
            assertCrInvalid(moved.cr(), p.b.ep(), cons.qual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_cr_accept(3DAT): an EP that another request names (its RSP's) cannot accept a consumer PSP's request "
                    + "(DAT_INVALID_PARAMETER, an invalid combination); both requests are then accepted by their own EPs")
    void shouldRefuseAcceptWhenTheEndpointBelongsToAnotherRequest(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint reserved = p.b.ep();
            Listener<ReservedServicePoint> rsp = rsp(p, reserved);
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint toRsp = p.a.ep();
            Endpoint toPsp = p.a.ep();
            ConnectionRequestEvent rspReq = rsp.request(toRsp, null);
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);
            ConnectionRequestEvent pspReq = psp.request(toPsp, null);

            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> pspReq.cr().accept(reserved, null));
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);

            rspReq.cr().accept(null, null);
            Endpoint other = p.b.ep();
            pspReq.cr().accept(other, null);
            Set<Endpoint> established = new HashSet<>();
            established.add(DatPair.expectConnection(p.b.conn, ESTABLISHED).ep());
            established.add(DatPair.expectConnection(p.b.conn, ESTABLISHED).ep());
            assertEquals(Set.of(reserved, other), established);
        }
    }
}
