package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.ConnSupport.expectRequest;
import static io.simrdma.provider.ConnSupport.nobody;
import static io.simrdma.provider.ConnSupport.psp;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static io.simrdma.provider.EventTestSupport.await;
import static io.simrdma.provider.EventTestSupport.fabric;
import static io.simrdma.provider.EventTestSupport.queued;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.cm.CmConfig;
import io.simrdma.fabric.cm.RdmaCm;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.provider.ConnSupport.Listener;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * dat_ep_connect(3DAT) against a peer that is slow, absent or on another kind of fabric: the
 * active side waits while the passive side's connection manager acknowledges the request (the IB
 * CM's MRA, IBA 12.6.6, which rdma_cm sends for a request its consumer has not accepted), so a late
 * dat_cr_accept(3DAT) establishes both ends; the consumer's timeout then ends the attempt with
 * TIMED_OUT if the peer answered and UNREACHABLE if nothing did; and an address the IA's fabric
 * cannot carry fails at once with DAT_INVALID_ADDRESS.
 *
 * <p>Long waits run in the deterministic scheduler's virtual time; the threaded and TCP cases use
 * connection-manager timings or conditions (an MRA seen on the wire) that keep them short.
 */
class EpConnectionTest {

    private static final EnumSet<ConnectFlag> NO_FLAGS = EnumSet.noneOf(ConnectFlag.class);
    private static final long SECOND = 1_000_000_000L;
    private static final AtomicInteger FABRICS = new AtomicInteger();
    /** The connection manager's defaults: what a DAT IA runs with. */
    private static final CmConfig CM = CmConfig.defaults();

    /** The fabrics these tests open two IAs on. */
    enum Kind {
        DETERMINISTIC,
        THREADED,
        TCP
    }

    /**
     * Two IAs ({@link #a} active, {@link #b} passive) with the standard objects of {@link DatPair.Side}:
     * in-process (deterministic or threaded, on a fabric registered with the given connection-manager
     * timing) or two TCP nodes on loopback. {@link #mras} counts the MRAs delivered to a.
     */
    static final class Peers implements AutoCloseable {
        final Kind kind;
        final DatPair.Side a;
        final DatPair.Side b;
        final MraWatch mras;
        private final Fabric registered;
        private final String name;
        private int nextQual = 4000;

        private Peers(Kind kind, CmConfig cm) {
            this.kind = kind;
            this.name = "epconn" + FABRICS.incrementAndGet();
            if (kind == Kind.TCP) {
                registered = null;
                String opts = "?fabric=" + name + "&node=";
                a = side("simtcp:127.0.0.1:0" + opts + "a", null);
                b = side("simtcp:127.0.0.1:0" + opts + "b", a);
            } else {
                registered = kind == Kind.DETERMINISTIC
                        ? Fabric.builder().name(name).deterministic(29).build()
                        : Fabric.builder().name(name).threaded().build();
                RdmaCm.of(registered, cm);
                SimProvider.registerFabric(name, registered);
                a = side("sim:" + name + "/a", null);
                b = side("sim:" + name + "/b", a);
            }
            mras = new MraWatch(EventTestSupport.sim(a.ia).fabric);
        }

        static Peers open(Kind kind) {
            return new Peers(kind, CM);
        }

        static Peers open(Kind kind, CmConfig cm) {
            return new Peers(kind, cm);
        }

        private DatPair.Side side(String iaName, DatPair.Side other) {
            InterfaceAdapter ia = Dat.openIa(iaName, 64);
            try {
                return new DatPair.Side(ia, 256, 64, 64 * 1024);
            } catch (RuntimeException e) {
                ia.close(CloseFlag.ABRUPT);
                if (other != null) {
                    other.ia.close(CloseFlag.ABRUPT);
                }
                throw e;
            }
        }

        int qual() {
            return nextQual++;
        }

        /**
         * Makes the nodes talk once (a connect nobody listens for, NON_PEER_REJECTED), so that a TCP
         * connection between them is open before a test times the connection manager: the first
         * connection of a JVM can take longer than a short connect timeout.
         */
        void warmUp() {
            Endpoint probe = a.ep();
            connect(probe, b.address(), qual(), DatPair.WAIT);
            expect(a.conn, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, probe);
            probe.free();
        }

        /** Virtual time of a deterministic pair. */
        long now() {
            return EventTestSupport.sim(a.ia).fabric.now();
        }

        /** Runs the deterministic fabric for {@code nanos} of virtual time. */
        void advance(long nanos) {
            EventTestSupport.sim(a.ia).fabric.deterministicScheduler().advanceTime(nanos);
        }

        @Override
        public void close() {
            try {
                mras.close();
                a.ia.close(CloseFlag.ABRUPT);
            } finally {
                try {
                    b.ia.close(CloseFlag.ABRUPT);
                } finally {
                    if (registered != null) {
                        SimProvider.unregisterFabric(name);
                        registered.close();
                    }
                }
            }
        }
    }

    /**
     * Counts the IB CM MRAs (a 256-byte MAD of management class 07h, attribute 0011h, IBA 12.6.6 and
     * table 104) delivered on a fabric.
     */
    static final class MraWatch implements TraceListener, AutoCloseable {
        private final Fabric fabric;
        private final AtomicInteger delivered = new AtomicInteger();

        MraWatch(Fabric fabric) {
            this.fabric = fabric;
            fabric.addTraceListener(this);
        }

        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
            if (event != PacketEvent.DELIVERED
                    || packet.opcode() != Opcode.UD_SEND_ONLY
                    || packet.payloadLength() != 256) {
                return;
            }
            byte[] h = new byte[24];
            packet.copyPayload(0, h, 0, h.length);
            if ((h[1] & 0xFF) == 0x07 && ((h[16] & 0xFF) << 8 | (h[17] & 0xFF)) == 0x0011) {
                delivered.incrementAndGet();
            }
        }

        int delivered() {
            return delivered.get();
        }

        @Override
        public void close() {
            fabric.removeTraceListener(this);
        }
    }

    private static void connect(Endpoint ep, SocketAddress to, long qual, Timeout timeout) {
        ep.connect(to, qual, timeout, null, Qos.BEST_EFFORT, NO_FLAGS);
    }

    /** The next event of {@code evd} within {@code timeout} (virtual time on a deterministic fabric). */
    private static DatEvent nextWithin(EventDispatcher evd, Timeout timeout) {
        EvdWaitResult r = evd.waitForEvent(timeout, 1);
        if (r.event().isEmpty()) {
            fail("no event on " + evd + " within " + timeout + ": " + r);
        }
        return r.event().get();
    }

    // ------------------------------------------------------------------ item 9: a slow accept

    @Test
    @DisplayName(
            "dat_ep_connect(3DAT), dat_cr_accept(3DAT), IBA 12.6.6: with a 10 s connect timeout and the server "
                    + "accepting after 6 s (virtual), the server's CM acknowledges the request (MRA) and both sides get ESTABLISHED")
    void shouldEstablishBothSidesWhenTheServerAcceptsAfterSixSecondsOfATenSecondTimeout() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC);
                MraWatch mras = new MraWatch(fabric(p))) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            EventDispatcher passiveConn = connEvd(p.b);
            Endpoint passive = ConnSupport.ep(p.b, passiveConn);
            Endpoint active = p.a.ep();
            long start = fabric(p).now();
            connect(active, p.b.address(), psp.qual(), Timeout.ofMillis(10_000));
            ConnectionRequestEvent req = expectRequest(psp.evd(), psp.sp(), p.b);

            fabric(p)
                    .deterministicScheduler()
                    .advanceTime(start + 6 * SECOND - fabric(p).now());
            assertEquals(0, queued(p.a.conn), "no connection event yet (looked at without running the fabric)");
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, active);
            assertTrue(mras.delivered() >= 1, "the server's CM acknowledged the resent request with an MRA");
            req.cr().accept(passive, null);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(passiveConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
            assertTrue(fabric(p).now() - start < 10 * SECOND, "established within the consumer's timeout");
            assertState(EndpointState.CONNECTED, active);
            assertState(EndpointState.CONNECTED, passive);
            assertNoEvent(psp.evd());
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"DETERMINISTIC", "THREADED"})
    @DisplayName("dat_ep_connect(3DAT), dat_cr_accept(3DAT), IBA 12.6.6: an accept long after the CM would have given "
            + "up without an MRA ((R + 1) x response timeout) establishes both sides")
    void shouldEstablishBothSidesWhenTheServerAcceptsAfterThePlainCmRetriesWouldHaveRunOut(Kind kind) {
        // Plain retries end after 9 x 33.5 ms = 302 ms; each MRA asks for 537 ms more.
        CmConfig late = CM.withResponseTimeout(13, 8).withMraServiceTimeout(17);
        try (Peers p = Peers.open(kind, late)) {
            int q = p.qual();
            PublicServicePoint psp = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            Endpoint passive = p.b.ep();
            connect(active, p.b.address(), q, Timeout.ofMillis(10_000));
            ConnectionRequestEvent req = DatPair.next(p.b.conn, ConnectionRequestEvent.class);
            // The second MRA answers a resend made one service timeout after the first: the plain give-up is past.
            await(p.a.ia, () -> p.mras.delivered() >= 2, "two MRAs at the active side");
            assertEquals(0, queued(p.a.conn), "no connection event while the MRAs hold the request");
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, active);

            req.cr().accept(passive, null);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
            psp.free();
        }
    }

    @Test
    @DisplayName("dat_ep_connect(3DAT), dat_cr_accept(3DAT), IBA 12.6.6 over TCP: the passive node's CM answers the "
            + "resent request with an MRA across the socket; the accept that follows establishes both sides")
    void shouldEstablishOverTcpWhenTheServerAcceptsAfterItsCmAcknowledgedTheRequest() {
        try (Peers p = Peers.open(Kind.TCP)) {
            int q = p.qual();
            PublicServicePoint psp = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            Endpoint passive = p.b.ep();
            connect(active, p.b.address(), q, Timeout.ofMillis(20_000));
            ConnectionRequestEvent req = DatPair.next(p.b.conn, ConnectionRequestEvent.class);
            await(p.a.ia, () -> p.mras.delivered() >= 1, "an MRA at the active node");
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, active);

            req.cr().accept(passive, null);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
            psp.free();
        }
    }

    @Test
    @DisplayName("dat_ep_connect(3DAT): with DAT_TIMEOUT_INFINITE the connect waits as long as the peer takes: an "
            + "accept after 10 minutes (virtual) establishes both sides")
    void shouldWaitForTheAcceptWhenTheTimeoutIsInfinite() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            EventDispatcher passiveConn = connEvd(p.b);
            Endpoint passive = ConnSupport.ep(p.b, passiveConn);
            Endpoint active = p.a.ep();
            connect(active, p.b.address(), psp.qual(), Timeout.INFINITE);
            ConnectionRequestEvent req = expectRequest(psp.evd(), psp.sp(), p.b);
            fabric(p).deterministicScheduler().advanceTime(600 * SECOND);
            assertEquals(0, queued(p.a.conn), "no connection event after 10 minutes");
            assertState(EndpointState.ACTIVE_CONNECTION_PENDING, active);

            req.cr().accept(passive, null);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(passiveConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
        }
    }

    @Test
    @DisplayName("dat_ep_connect(3DAT) S9: with DAT_TIMEOUT_INFINITE and a server that never accepts, the event comes "
            + "when the CM's MRA-stretched retries run out (response timeout + R x (MRA service timeout + response "
            + "timeout)): TIMED_OUT, since the remote host did respond; the EP is DISCONNECTED")
    void shouldReportTimedOutWhenTheCmGivesUpOnAPeerThatAnsweredAndTheTimeoutIsInfinite() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            Listener<PublicServicePoint> psp = psp(p, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            long start = fabric(p).now();
            connect(active, p.b.address(), psp.qual(), Timeout.INFINITE);
            expectRequest(psp.evd(), psp.sp(), p.b);
            long t = CM.responseTimeoutNanos();
            long giveUp = t + CM.maxCmRetries() * (CM.mraServiceTimeoutNanos() + t);
            DatEvent e = nextWithin(p.a.conn, Timeout.ofMillis(2 * giveUp / 1_000_000));
            assertEquals(EventNumber.CONNECTION_EVENT_TIMED_OUT, e.eventNumber(), () -> "event " + e);
            long elapsed = fabric(p).now() - start;
            assertTrue(
                    elapsed >= giveUp && elapsed < giveUp + t, "the CM gave up at " + elapsed + " ns, not " + giveUp);
            assertState(EndpointState.DISCONNECTED, active);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    @DisplayName("dat_ep_connect(3DAT): a finite timeout that expires while the peer has answered (MRA) but not "
            + "accepted gives TIMED_OUT; the EP is DISCONNECTED, and the server's late dat_cr_accept(3DAT) ends in "
            + "ACCEPT_COMPLETION_ERROR")
    void shouldReportTimedOutWhenTheTimeoutExpiresAfterThePeerAnsweredButBeforeItAccepted(Kind kind) {
        try (Peers p = Peers.open(kind)) {
            p.warmUp();
            int q = p.qual();
            PublicServicePoint psp = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            EventDispatcher passiveConn = connEvd(p.b);
            Endpoint passive = ConnSupport.ep(p.b, passiveConn);
            Endpoint active = p.a.ep();
            long start = p.now();
            connect(active, p.b.address(), q, Timeout.ofMillis(1000));
            ConnectionRequestEvent req = DatPair.next(p.b.conn, ConnectionRequestEvent.class);

            expect(p.a.conn, EventNumber.CONNECTION_EVENT_TIMED_OUT, active);
            assertTrue(p.mras.delivered() >= 1, "the server's CM had answered with an MRA");
            if (kind == Kind.DETERMINISTIC) {
                long elapsed = p.now() - start;
                assertTrue(
                        elapsed >= SECOND && elapsed < SECOND + CM.responseTimeoutNanos(),
                        "TIMED_OUT when the 1 s timeout expires, not after " + elapsed + " ns");
            }
            assertState(EndpointState.DISCONNECTED, active);

            req.cr().accept(passive, null);
            expect(passiveConn, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, passive);
            assertState(EndpointState.DISCONNECTED, passive);
            assertNoEvent(p.a.conn);
            psp.free();
        }
    }

    // ------------------------------------------------------------------ item 10: nobody answers, a bad address

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_connect(3DAT): \"the remote host does not respond within the Consumer requested Timeout\": an "
            + "address no device owns, with a 1 s timeout (shorter than the CM's retries), gives UNREACHABLE; the EP "
            + "is DISCONNECTED")
    void shouldReportUnreachableWhenNothingAnswersWithinTheTimeout(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint active = p.a.ep();
            long start = fabric(p).now();
            connect(active, nobody(p.a), p.qual(), Timeout.ofMillis(1000));
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_UNREACHABLE, active);
            if (mode == DatPair.Mode.DETERMINISTIC) {
                long elapsed = fabric(p).now() - start;
                assertTrue(
                        elapsed >= SECOND && elapsed < (CM.maxCmRetries() + 1) * CM.responseTimeoutNanos(),
                        "UNREACHABLE when the consumer's 1 s timeout expires, before the CM's retries run out: "
                                + elapsed);
            }
            assertState(EndpointState.DISCONNECTED, active);
            assertNoEvent(p.a.conn);
        }
    }

    @Test
    @DisplayName("dat_ep_connect(3DAT) over TCP: a node address where no node listens, with a 1 s timeout, gives "
            + "UNREACHABLE; the EP is DISCONNECTED")
    void shouldReportUnreachableOverTcpWhenNoNodeListensOnTheAddress() {
        InetSocketAddress gone;
        try (Peers other = Peers.open(Kind.TCP)) {
            gone = (InetSocketAddress) other.b.address();
        }
        try (Peers p = Peers.open(Kind.TCP)) {
            Endpoint active = p.a.ep();
            connect(active, gone, p.qual(), Timeout.ofMillis(1000));
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_UNREACHABLE, active);
            assertState(EndpointState.DISCONNECTED, active);
            assertEquals(0, p.mras.delivered());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_connect(3DAT): \"If the Provider can locally determine that the remote_ia_address is invalid, "
                    + "or that [it] cannot be converted to a Transport-specific address, the operation can fail synchronously "
                    + "with a DAT_INVALID_ADDRESS return\": an IPv4 address given to an in-process IA (whose addresses are GIDs)")
    void shouldRefuseAnIpv4AddressAtOnceWhenTheIaIsInProcess(DatPair.Mode mode) throws Exception {
        try (DatPair p = DatPair.open(mode)) {
            int q = p.qual();
            p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
            Endpoint active = p.a.ep();
            SocketAddress v4 = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 4791);
            assertDat(
                    DatReturnType.INVALID_ADDRESS,
                    DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                    () -> connect(active, v4, q, Timeout.ofMillis(1000)));
            assertState(EndpointState.UNCONNECTED, active);
            assertNoEvent(p.a.conn);
            assertNoEvent(p.b.conn);
            // Nothing was left behind: the GID address the IA reports connects.
            connect(active, p.b.address(), q, DatPair.WAIT);
            DatPair.next(p.b.conn, ConnectionRequestEvent.class).cr().accept(p.b.ep(), null);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
        }
    }

    @Test
    @DisplayName(
            "dat_ep_connect(3DAT) over TCP: an address no TCP node can have fails at once with DAT_INVALID_ADDRESS: "
                    + "an IPv6 address that is no node's GID, an IPv4 address with port 0")
    void shouldRefuseAddressesNoTcpNodeCanHaveAtOnce() throws Exception {
        try (Peers p = Peers.open(Kind.TCP)) {
            Endpoint active = p.a.ep();
            int q = p.qual();
            SocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fe80::1"), 0);
            SocketAddress port0 = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0);
            for (SocketAddress bad : new SocketAddress[] {v6, port0}) {
                assertDat(
                        DatReturnType.INVALID_ADDRESS,
                        DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                        () -> connect(active, bad, q, Timeout.ofMillis(1000)));
            }
            assertState(EndpointState.UNCONNECTED, active);
            assertNoEvent(p.a.conn);
        }
    }
}
