package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.ServicePoint;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.Device;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Helpers of the connection and endpoint tests (ConnectionTest, PspTest, RspTest, CrTest,
 * EndpointTest, EpModifyTest, {@link EpStates}): EVDs of one stream, service points with an EVD of
 * their own, connect calls with the defaults, and event expectations that check the EVD and
 * endpoint an event names. The fabric under a {@link DatPair} is reached through {@link EventTestSupport}.
 */
final class ConnSupport {

    /** DAT max_private_data_size of the sim provider (provider attributes). */
    static final int MAX_PD = 89;

    private ConnSupport() {}

    /**
     * Each fabric mode with each of {@code cases}, the modes outermost: the arguments of a
     * parameterized test that runs every case on both fabrics (the mode, then the case's own arguments).
     */
    static Stream<Arguments> everyMode(List<Arguments> cases) {
        return Arrays.stream(DatPair.Mode.values())
                .flatMap(m -> cases.stream().map(c -> {
                    Object[] rest = c.get();
                    Object[] all = new Object[rest.length + 1];
                    all[0] = m;
                    System.arraycopy(rest, 0, all, 1, rest.length);
                    return Arguments.of(all);
                }));
    }

    /** An EVD of {@code side} fed by the connection request stream only (a service point's EVD). */
    static EventDispatcher crEvd(DatPair.Side side, int qlen) {
        return side.ia.createEvd(qlen, null, EnumSet.of(EvdFlag.CR));
    }

    /** An EVD of {@code side} fed by the connection event stream only (an endpoint's connect EVD). */
    static EventDispatcher connEvd(DatPair.Side side) {
        return side.ia.createEvd(16, null, EnumSet.of(EvdFlag.CONNECTION));
    }

    /** An EVD of {@code side} fed by the DTO completion stream only (an endpoint's recv or request EVD). */
    static EventDispatcher dtoEvd(DatPair.Side side) {
        return side.ia.createEvd(64, null, EnumSet.of(EvdFlag.DTO));
    }

    /** An endpoint of {@code side} on its PZ and DTO EVD whose connect EVD is {@code connect}. */
    static Endpoint ep(DatPair.Side side, EventDispatcher connect) {
        return side.ia.createEndpoint(side.pz, side.dto, side.dto, connect, null);
    }

    /** dat_ep_connect to {@code to}'s IA on {@code qual} with best-effort QoS and no flags. */
    static void connect(Endpoint ep, DatPair.Side to, long qual, Timeout timeout, byte[] privateData) {
        ep.connect(to.address(), qual, timeout, privateData, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
    }

    static void connect(Endpoint ep, DatPair.Side to, long qual, byte[] privateData) {
        connect(ep, to, qual, DatPair.WAIT, privateData);
    }

    /**
     * Connects {@code active} (on {@code p.a}) to {@code passive} (on {@code p.b}) on qualifier
     * {@code qual} through a consumer PSP whose requests go to {@code p.b.conn}, and waits for
     * ESTABLISHED on the two endpoints' own connect EVDs; the PSP is freed afterwards.
     */
    static void establish(
            DatPair p,
            Endpoint active,
            EventDispatcher activeConn,
            Endpoint passive,
            EventDispatcher passiveConn,
            long qual) {
        PublicServicePoint psp = p.b.ia.createPsp(qual, p.b.conn, PspFlag.CONSUMER);
        try {
            connect(active, p.b, qual, null);
            expectRequest(p.b.conn, psp, p.b).cr().accept(passive, null);
            expect(activeConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(passiveConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
        } finally {
            psp.free();
        }
    }

    /**
     * A service point of {@code side}, the EVD its requests go to and the qualifier it was created
     * on (which stays known after a free).
     */
    record Listener<S extends ServicePoint>(DatPair.Side side, EventDispatcher evd, S sp, long qual) {

        /** dat_ep_connect(3DAT) of {@code active} to this service point; the request it delivers ({@link ConnSupport#expectRequest}). */
        ConnectionRequestEvent request(Endpoint active, byte[] privateData) {
            connect(active, side, qual, privateData);
            return expectRequest(evd, sp, side);
        }
    }

    /** A PSP of {@code p.b} with {@code flag} on a new qualifier, its requests on a CR EVD of its own (4 deep). */
    static Listener<PublicServicePoint> psp(DatPair p, PspFlag flag) {
        return psp(p, flag, 4);
    }

    /** A PSP of {@code p.b} with {@code flag} on a new qualifier, its requests on a CR EVD of its own {@code qlen} deep (its backlog). */
    static Listener<PublicServicePoint> psp(DatPair p, PspFlag flag, int qlen) {
        EventDispatcher evd = crEvd(p.b, qlen);
        int q = p.qual();
        return new Listener<>(p.b, evd, p.b.ia.createPsp(q, evd, flag), q);
    }

    /** An RSP of {@code p.b} reserving {@code ep} on a new qualifier, its request on a CR EVD of its own (4 deep). */
    static Listener<ReservedServicePoint> rsp(DatPair p, Endpoint ep) {
        EventDispatcher evd = crEvd(p.b, 4);
        int q = p.qual();
        return new Listener<>(p.b, evd, p.b.ia.createRsp(q, ep, evd), q);
    }

    /** Bytes 0..n-1 offset by {@code seed}: private data whose every byte is checked. */
    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    /** The next event of {@code evd}: a connection event {@code number} of {@code ep}, queued on {@code evd}. */
    static ConnectionEvent expect(EventDispatcher evd, EventNumber number, Endpoint ep) {
        ConnectionEvent e = DatPair.expectConnection(evd, number);
        assertSame(evd, e.evd(), "the EVD the event names");
        assertSame(ep, e.ep(), () -> "the endpoint of " + e);
        return e;
    }

    /** The next event of {@code evd}: a connection request on {@code sp}'s qualifier, queued on {@code evd}. */
    static ConnectionRequestEvent expectRequest(EventDispatcher evd, ServicePoint sp, DatPair.Side at) {
        ConnectionRequestEvent r = DatPair.next(evd, ConnectionRequestEvent.class);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, r.eventNumber());
        assertSame(evd, r.evd(), "the EVD the request names");
        assertEquals(Optional.of(sp), r.servicePoint(), "the service point the request names");
        assertEquals(sp.connQual(), r.connQual(), "the connection qualifier of the request");
        assertEquals(at.address(), r.localIaAddress(), "the local IA address of the request");
        return r;
    }

    /** ESTABLISHED for {@code active} on {@code p.a.conn} and for {@code passive} on {@code p.b.conn}; the active side's event. */
    static ConnectionEvent expectEstablished(DatPair p, Endpoint active, Endpoint passive) {
        ConnectionEvent e = expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
        expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
        return e;
    }

    /**
     * dat_cr_accept(3DAT) of {@code cr} with a new endpoint of {@code p.b} and no private data;
     * ESTABLISHED for {@code active} and for the new endpoint ({@link #expectEstablished}), which it returns.
     */
    static Endpoint acceptWithNewEndpoint(DatPair p, ConnectionRequest cr, Endpoint active) {
        Endpoint passive = p.b.ep();
        cr.accept(passive, null);
        expectEstablished(p, active, passive);
        return passive;
    }

    /**
     * dat_ep_connect(3DAT) of a new endpoint of {@code p.a} to qualifier {@code qual} of {@code p.b},
     * where no service point takes the request: NON_PEER_REJECTED on {@code p.a.conn}. Returns the endpoint.
     */
    static Endpoint connectRefused(DatPair p, long qual) {
        Endpoint ep = p.a.ep();
        connect(ep, p.b, qual, null);
        expect(p.a.conn, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, ep);
        return ep;
    }

    /**
     * The consumer's part before it accepts with a provider endpoint (dat_psp_create(3DAT)):
     * dat_ep_modify(3DAT) gives it {@code side}'s PZ, {@code side}'s DTO EVD for both streams, and
     * {@code connectEvd}.
     */
    static void equipProviderEndpoint(Endpoint ep, DatPair.Side side, EventDispatcher connectEvd) {
        ep.modify(EpModify.builder()
                .pz(side.pz)
                .recvEvd(side.dto)
                .requestEvd(side.dto)
                .connectEvd(connectEvd)
                .build());
    }

    /** dat_cr_reject(3DAT) of {@code req}; the requester {@code active} (on {@code p.a}) gets PEER_REJECTED. */
    static void rejectAndExpect(DatPair p, ConnectionRequestEvent req, Endpoint active) {
        req.cr().reject();
        expect(p.a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED, active);
    }

    static void assertState(EndpointState expected, Endpoint ep) {
        assertEquals(expected, ep.status().state(), () -> "state of " + ep);
    }

    /** An IA address of the pair's fabric that no device owns: {@code side}'s GID with its last byte changed. */
    static SocketAddress nobody(DatPair.Side side) {
        InetSocketAddress own = (InetSocketAddress) side.address();
        byte[] raw = own.getAddress().getAddress();
        raw[raw.length - 1] ^= (byte) 0x5A;
        raw[raw.length - 2] ^= (byte) 0xA5;
        try {
            InetSocketAddress other = new InetSocketAddress(InetAddress.getByAddress(raw), 0);
            for (Device d : EventTestSupport.sim(side.ia).fabric.devices()) {
                assertTrue(!other.equals(io.simrdma.fabric.cm.RdmaCm.addressOf(d, 0)), "an address no device owns");
            }
            return other;
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
