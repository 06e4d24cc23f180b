package io.simrdma.provider;

import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.Qos;
import io.simrdma.dat.ServicePoint;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.EnumSet;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Helpers of the connection tests (ConnectionTest, PspTest, RspTest, CrTest): EVDs of one stream,
 * connect calls with the defaults, event expectations that check the EVD and endpoint an event
 * names, and access to the fabric under a {@link DatPair}.
 */
final class ConnSupport {

    /** DAT max_private_data_size of the sim provider (provider attributes). */
    static final int MAX_PD = 89;

    private ConnSupport() {
    }

    /** An EVD of {@code side} fed by the connection request stream only (a service point's EVD). */
    static EventDispatcher crEvd(DatPair.Side side, int qlen) {
        return side.ia.createEvd(qlen, null, EnumSet.of(EvdFlag.CR));
    }

    /** An EVD of {@code side} fed by the connection event stream only (an endpoint's connect EVD). */
    static EventDispatcher connEvd(DatPair.Side side) {
        return side.ia.createEvd(16, null, EnumSet.of(EvdFlag.CONNECTION));
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

    /** No event is queued on {@code evd} now. */
    static void assertNoEvent(EventDispatcher evd) {
        Optional<DatEvent> e = evd.dequeue();
        if (e.isPresent()) {
            fail("expected no event on " + evd + ", got " + e.get());
        }
    }

    static void assertState(EndpointState expected, Endpoint ep) {
        assertEquals(expected, ep.status().state(), () -> "state of " + ep);
    }

    static SimIa sim(DatPair.Side side) {
        return (SimIa) side.ia;
    }

    static Fabric fabric(DatPair.Side side) {
        return sim(side).fabric;
    }

    static Device device(DatPair.Side side) {
        return sim(side).device;
    }

    /** An IA address of the pair's fabric that no device owns: {@code side}'s GID with its last byte changed. */
    static SocketAddress nobody(DatPair.Side side) {
        InetSocketAddress own = (InetSocketAddress) side.address();
        byte[] raw = own.getAddress().getAddress();
        raw[raw.length - 1] ^= (byte) 0x5A;
        raw[raw.length - 2] ^= (byte) 0xA5;
        try {
            InetSocketAddress other = new InetSocketAddress(InetAddress.getByAddress(raw), 0);
            for (Device d : fabric(side).devices()) {
                assertTrue(!other.equals(io.simrdma.fabric.cm.RdmaCm.addressOf(d, 0)), "an address no device owns");
            }
            return other;
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
