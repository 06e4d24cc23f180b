package io.simrdma.provider;

import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.ReservedServicePoint;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Optional;
import java.util.OptionalLong;

import static io.simrdma.provider.ConnSupport.MAX_PD;
import static io.simrdma.provider.ConnSupport.assertNoEvent;
import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.bytes;
import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.connect;
import static io.simrdma.provider.ConnSupport.crEvd;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.ConnSupport.expectRequest;
import static io.simrdma.provider.DatPair.assertDat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * Connection Requests: dat_cr_query(3DAT), dat_cr_accept(3DAT), dat_cr_reject(3DAT),
 * dat_cr_handoff(3DAT), and the CR handle's life (dat_evd_wait(3DAT): destroyed by accept, reject
 * and handoff).
 */
class CrTest {

    private static final EventNumber ESTABLISHED = EventNumber.CONNECTION_EVENT_ESTABLISHED;

    /** A request from a new EP of {@code p.a} on a consumer PSP of {@code p.b} whose EVD is {@code spEvd}. */
    private static ConnectionRequestEvent request(DatPair p, EventDispatcher spEvd, PublicServicePoint psp,
                                                  Endpoint active, byte[] data) {
        connect(active, p.b, psp.connQual(), data);
        return expectRequest(spEvd, psp, p.b);
    }

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
            EventDispatcher spEvd = crEvd(p.b, 4);
            PublicServicePoint psp = p.b.ia.createPsp(p.qual(), spEvd, PspFlag.CONSUMER);
            for (int size : new int[] {0, 1, 40, MAX_PD}) {
                Endpoint active = p.a.ep();
                byte[] data = bytes(size, 11 * size);
                ConnectionRequestEvent req = request(p, spEvd, psp, active, data);
                CrParams cp = req.cr().query();
                assertEquals(p.a.address(), cp.remoteIaAddress());
                OptionalLong port = active.query().localPortQual();
                assertEquals(port.getAsLong(), cp.remotePortQual(), "the requester's port qualifier");
                assertEquals(size, cp.privateDataSize());
                assertArrayEquals(data, cp.privateData());
                assertEquals(Optional.empty(), cp.localEp());
                assertEquals(cp, req.cr().query(), "a query changes nothing");
                req.cr().reject();
                expect(p.a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED, active);
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
            EventDispatcher spEvd = crEvd(p.b, 4);
            PublicServicePoint psp = p.b.ia.createPsp(p.qual(), spEvd, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequestEvent req = request(p, spEvd, psp, active, bytes(8, 8));
            ConnectionRequest cr = req.cr();
            Endpoint passive = p.b.ep();

            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> cr.accept(null, null));
            Endpoint freed = p.b.ep();
            freed.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> cr.accept(freed, null));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> cr.accept(p.a.ep(), null));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE,
                    () -> cr.accept(passive, bytes(MAX_PD + 1, 0)));
            assertState(EndpointState.UNCONNECTED, passive);
            Endpoint busy = p.b.ep();
            p.b.ia.createRsp(p.qual(), busy, p.b.conn);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_RESERVED, () -> cr.accept(busy, null));
            assertState(EndpointState.RESERVED, busy);

            assertArrayEquals(bytes(8, 8), cr.query().privateData());
            byte[] reply = bytes(MAX_PD, 1);
            cr.accept(passive, reply);
            assertArrayEquals(reply, expect(p.a.conn, ESTABLISHED, active).privateData());
            expect(p.b.conn, ESTABLISHED, passive);
            assertCrInvalid(cr, passive, psp.connQual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_accept(3DAT): a request that names an EP (provider PSP) is accepted with DAT_HANDLE_NULL; "
            + "naming another EP is an invalid combination (DAT_INVALID_PARAMETER) without effect")
    void shouldAcceptWithNamedEndpointWhenEpHandleIsNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher spEvd = crEvd(p.b, 4);
            PublicServicePoint psp = p.b.ia.createPsp(p.qual(), spEvd, PspFlag.PROVIDER);
            Endpoint active = p.a.ep();
            ConnectionRequestEvent req = request(p, spEvd, psp, active, null);
            Endpoint named = req.cr().query().localEp().orElseThrow();
            EventDispatcher namedConn = connEvd(p.b);
            named.modify(EpModify.builder().pz(p.b.pz).recvEvd(p.b.dto).requestEvd(p.b.dto).connectEvd(namedConn).build());
            Endpoint other = p.b.ep();
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> req.cr().accept(other, null));
            assertState(EndpointState.UNCONNECTED, other);
            assertState(EndpointState.TENTATIVE_CONNECTION_PENDING, named);
            req.cr().accept(null, null);
            expect(p.a.conn, ESTABLISHED, active);
            expect(namedConn, ESTABLISHED, named);
            assertNoEvent(p.b.conn);
            assertCrInvalid(req.cr(), other, psp.connQual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_reject(3DAT): the requester gets PEER_REJECTED and the CR handle is destroyed")
    void shouldDestroyRequestWhenRejected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher spEvd = crEvd(p.b, 4);
            PublicServicePoint psp = p.b.ia.createPsp(p.qual(), spEvd, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequest cr = request(p, spEvd, psp, active, bytes(3, 3)).cr();
            cr.reject();
            assertCrInvalid(cr, p.b.ep(), psp.connQual());
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
            EventDispatcher firstEvd = crEvd(p.b, 4);
            EventDispatcher targetEvd = crEvd(p.b, 4);
            int q = p.qual();
            PublicServicePoint first = p.b.ia.createPsp(q, firstEvd, PspFlag.CONSUMER);
            PublicServicePoint target = p.b.ia.createPspAny(targetEvd, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            byte[] data = bytes(MAX_PD, 2);
            ConnectionRequest old = request(p, firstEvd, first, active, data).cr();
            CrParams before = old.query();

            old.handoff(target.connQual());
            assertCrInvalid(old, p.b.ep(), q);
            ConnectionRequestEvent moved = expectRequest(targetEvd, target, p.b);
            assertNotSame(old, moved.cr());
            assertEquals(before, moved.cr().query(), "same requester, port and private data");
            assertNoEvent(firstEvd);
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, active);

            Endpoint passive = p.b.ep();
            moved.cr().accept(passive, bytes(4, 4));
            assertArrayEquals(bytes(4, 4), expect(p.a.conn, ESTABLISHED, active).privateData());
            expect(p.b.conn, ESTABLISHED, passive);
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
            EventDispatcher pspEvd = crEvd(p.b, 4);
            EventDispatcher rspEvd = crEvd(p.b, 4);
            PublicServicePoint psp = p.b.ia.createPsp(p.qual(), pspEvd, PspFlag.CONSUMER);
            Endpoint reserved = p.b.ep();
            int r = p.qual();
            ReservedServicePoint rsp = p.b.ia.createRsp(r, reserved, rspEvd);
            Endpoint active = p.a.ep();
            ConnectionRequest old = request(p, pspEvd, psp, active, bytes(5, 5)).cr();
            old.handoff(r);
            assertCrInvalid(old, reserved, r);
            ConnectionRequestEvent moved = expectRequest(rspEvd, rsp, p.b);
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);
            assertEquals(Optional.of(reserved), moved.cr().query().localEp());
            assertArrayEquals(bytes(5, 5), moved.cr().query().privateData());
            moved.cr().accept(null, null);
            expect(p.a.conn, ESTABLISHED, active);
            expect(p.b.conn, ESTABLISHED, reserved);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_handoff(3DAT): a qualifier no service point of the IA listens on (or one of another IA) is "
            + "DAT_INVALID_PARAMETER and the CR stays usable")
    void shouldRefuseHandoffWhenQualifierIsUnknown(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher spEvd = crEvd(p.b, 4);
            PublicServicePoint psp = p.b.ia.createPsp(p.qual(), spEvd, PspFlag.CONSUMER);
            int elsewhere = p.qual();
            p.a.ia.createPsp(elsewhere, p.a.conn, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequest cr = request(p, spEvd, psp, active, bytes(2, 2)).cr();
            for (long bad : new long[] {p.qual(), elsewhere, 0, -1, 0x10000}) {
                assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> cr.handoff(bad));
            }
            assertArrayEquals(bytes(2, 2), cr.query().privateData());
            assertNoEvent(spEvd);
            assertNoEvent(p.a.conn);
            Endpoint passive = p.b.ep();
            cr.accept(passive, null);
            expect(p.a.conn, ESTABLISHED, active);
            expect(p.b.conn, ESTABLISHED, passive);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_handoff(3DAT), dat_cr_reject(3DAT): handing off a provider-PSP request returns its "
            + "provider EP to the provider; the target PSP's request names no EP")
    void shouldReleaseProviderEndpointWhenHandedOff(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher provEvd = crEvd(p.b, 4);
            EventDispatcher consEvd = crEvd(p.b, 4);
            PublicServicePoint prov = p.b.ia.createPsp(p.qual(), provEvd, PspFlag.PROVIDER);
            PublicServicePoint cons = p.b.ia.createPsp(p.qual(), consEvd, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            ConnectionRequest old = request(p, provEvd, prov, active, null).cr();
            Endpoint providerEp = old.query().localEp().orElseThrow();
            old.handoff(cons.connQual());
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, providerEp::status);
            ConnectionRequestEvent moved = expectRequest(consEvd, cons, p.b);
            assertEquals(Optional.empty(), moved.cr().query().localEp());
            moved.cr().reject();
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED, active);
            assertCrInvalid(moved.cr(), p.b.ep(), cons.connQual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cr_accept(3DAT): an EP that another request names (its RSP's) cannot accept a consumer PSP's request "
            + "(DAT_INVALID_PARAMETER, an invalid combination); both requests are then accepted by their own EPs")
    void shouldRefuseAcceptWhenTheEndpointBelongsToAnotherRequest(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher rspEvd = crEvd(p.b, 4);
            EventDispatcher pspEvd = crEvd(p.b, 4);
            Endpoint reserved = p.b.ep();
            ReservedServicePoint rsp = p.b.ia.createRsp(p.qual(), reserved, rspEvd);
            PublicServicePoint psp = p.b.ia.createPsp(p.qual(), pspEvd, PspFlag.CONSUMER);
            Endpoint toRsp = p.a.ep();
            Endpoint toPsp = p.a.ep();
            ConnectionRequestEvent rspReq = request(p, rspEvd, rsp, toRsp);
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);
            ConnectionRequestEvent pspReq = request(p, pspEvd, psp, toPsp, null);

            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> pspReq.cr().accept(reserved, null));
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);

            rspReq.cr().accept(null, null);
            Endpoint other = p.b.ep();
            pspReq.cr().accept(other, null);
            java.util.Set<Endpoint> established = new java.util.HashSet<>();
            established.add(DatPair.expectConnection(p.b.conn, ESTABLISHED).ep());
            established.add(DatPair.expectConnection(p.b.conn, ESTABLISHED).ep());
            assertEquals(java.util.Set.of(reserved, other), established);
        }
    }

    private static ConnectionRequestEvent request(DatPair p, EventDispatcher spEvd, ReservedServicePoint rsp, Endpoint active) {
        connect(active, p.b, rsp.connQual(), null);
        return expectRequest(spEvd, rsp, p.b);
    }
}
