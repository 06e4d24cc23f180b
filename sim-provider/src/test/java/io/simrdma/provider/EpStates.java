package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.connect;
import static io.simrdma.provider.ConnSupport.crEvd;
import static io.simrdma.provider.ConnSupport.dtoEvd;
import static io.simrdma.provider.DatPair.expectConnection;
import static io.simrdma.provider.DatPair.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
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
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.Timeout;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Drives a real endpoint into each of the nine endpoint states the DAT 1.2 man pages use, through
 * the DAT API, on a {@link DatPair}: the one fixture of the state-machine, endpoint and
 * dat_ep_modify tests for an endpoint in a given state. The endpoint under test (the subject) always lives on IA
 * {@code b}, with EVDs of its own (receive, request, connection, and one for the requests of its
 * service points), so that a test can tell which EVD an event went to; its peers live on IA
 * {@code a}, with a connect EVD of their own.
 *
 * <p>How each state is reached (ep-state-machine.md section 1):
 * <ul>
 *   <li>UNCONNECTED: a new endpoint (dat_ep_create(3DAT));</li>
 *   <li>RESERVED: dat_rsp_create(3DAT) with it;</li>
 *   <li>PASSIVE_CONNECTION_PENDING: RESERVED, then a request from {@code a} arrives on the RSP;</li>
 *   <li>TENTATIVE_CONNECTION_PENDING: the provider's endpoint of a request on a PSP created with
 *       {@link PspFlag#PROVIDER} (dat_cr_query's local_ep_handle), given the subject's PZ and EVDs
 *       with dat_ep_modify(3DAT), as dat_psp_create(3DAT) expects of the consumer before it
 *       accepts (or, after {@link Subject#providerEndpointAsGiven}, as the provider gave it: no PZ,
 *       no EVDs);</li>
 *   <li>ACTIVE_CONNECTION_PENDING: dat_ep_connect(3DAT) to a consumer PSP on {@code a}; the
 *       request arrives there ({@link Subject#request}) and is left unanswered;</li>
 *   <li>COMPLETION_PENDING: a request from {@code a} on a consumer PSP, accepted with the subject
 *       (dat_cr_accept(3DAT)), before ESTABLISHED. The deterministic fabric moves only while the
 *       test waits, so the state holds until the test waits; on the threaded fabric the link
 *       between the IAs is taken down before the accept, so that the reply is lost and the state
 *       holds for the connection manager's retries (seconds);</li>
 *   <li>CONNECTED: dat_ep_connect to a consumer PSP on {@code a}, accepted there by {@link
 *       Subject#peer}; ESTABLISHED on both sides;</li>
 *   <li>DISCONNECT_PENDING: CONNECTED, then a send the peer has posted no receive for (it waits
 *       on RNR NAKs; rnr_retry 7 retries for ever), then a graceful dat_ep_disconnect(3DAT): the
 *       request DTO is outstanding, so the disconnect waits for it;</li>
 *   <li>DISCONNECTED: CONNECTED, then an abrupt dat_ep_disconnect and its DISCONNECTED event.</li>
 * </ul>
 *
 * <p>Preparations that need the fabric to progress (a connected endpoint for dat_ep_dup_connect,
 * a request of another connection for dat_cr_accept / dat_cr_reject) are made before the subject
 * is driven, so that waiting for them cannot move the subject on.
 */
final class EpStates {

    /** The nine states, in the order of ep-state-machine.md section 1. */
    static final List<EndpointState> NINE = List.of(
            EndpointState.UNCONNECTED,
            EndpointState.RESERVED,
            EndpointState.PASSIVE_CONNECTION_PENDING,
            EndpointState.TENTATIVE_CONNECTION_PENDING,
            EndpointState.ACTIVE_CONNECTION_PENDING,
            EndpointState.COMPLETION_PENDING,
            EndpointState.CONNECTED,
            EndpointState.DISCONNECT_PENDING,
            EndpointState.DISCONNECTED);

    /**
     * The connect timeout of a COMPLETION_PENDING subject's peer: long enough for the held state's
     * operations, well inside the tests' waits (DatPair.WAIT).
     */
    static final Timeout PEER_CONNECT_TIMEOUT = Timeout.ofMillis(5000);

    /** Connection events after which an endpoint has no connection (dat_ep_connect(3DAT), dat_ep_disconnect(3DAT)). */
    static final Set<EventNumber> FINAL_EVENTS = EnumSet.of(
            EventNumber.CONNECTION_EVENT_DISCONNECTED,
            EventNumber.CONNECTION_EVENT_PEER_REJECTED,
            EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
            EventNumber.CONNECTION_EVENT_UNREACHABLE,
            EventNumber.CONNECTION_EVENT_TIMED_OUT,
            EventNumber.CONNECTION_EVENT_BROKEN,
            EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);

    /** The cookie of the send that keeps a DISCONNECT_PENDING subject's request queue busy. */
    static final long PENDING_SEND = 0xD15C;

    private EpStates() {}

    /** Each fabric mode with each of the {@link #NINE} states: {@code @MethodSource("io.simrdma.provider.EpStates#modesAndStates")}. */
    static Stream<Arguments> modesAndStates() {
        return ConnSupport.everyMode(NINE.stream().map(s -> Arguments.of(s)).toList());
    }

    /** An endpoint under test and what got it to its state. */
    static final class Subject {
        final DatPair pair;
        /** The subject's IA ({@code pair.b}). */
        final DatPair.Side side;
        /** The peers' IA ({@code pair.a}). */
        final DatPair.Side other;

        final EventDispatcher recvEvd;
        final EventDispatcher requestEvd;
        final EventDispatcher connectEvd;
        /** The EVD of the subject's own service points (DAT_CONNECTION_REQUEST_EVENTs). */
        final EventDispatcher crEvd;
        /** The connect EVD (on {@code a}) of the subject's peers. */
        final EventDispatcher peerConnectEvd;
        /** The connect EVD (on {@code a}) of {@link #foreignActive}. */
        final EventDispatcher foreignConnectEvd;

        Endpoint ep;
        EndpointState state;
        /** The remote endpoint of the subject's connection (on {@code a}), once there is one. */
        Endpoint peer;
        /**
         * The pending request: the subject's own (PASSIVE / TENTATIVE, on {@code b}) or the one its
         * connect produced at the peer's PSP (ACTIVE_CONNECTION_PENDING, on {@code a}).
         */
        ConnectionRequest request;

        ReservedServicePoint rsp;
        PublicServicePoint psp;
        /** The connection qualifier of the PSP on {@code a} the subject connected to. */
        long remoteQual = -1;
        /** Whether the link between the IAs is down (threaded COMPLETION_PENDING). */
        boolean linkHeld;
        /** Whether a TENTATIVE_CONNECTION_PENDING subject gets the subject's PZ and EVDs ({@link #providerEndpointAsGiven}). */
        private boolean modifyProviderEndpoint = true;

        /** An endpoint on {@code b} connected to a PSP on {@code a} that keeps listening ({@link #prepareDupSource}). */
        Endpoint dupSource;

        long dupQual = -1;
        /** A request of another connection, waiting on {@code b} ({@link #prepareForeignRequest}). */
        ConnectionRequest foreignRequest;
        /** The active endpoint (on {@code a}) of {@link #foreignRequest}. */
        Endpoint foreignActive;

        Subject(DatPair pair) {
            this.pair = pair;
            this.side = pair.b;
            this.other = pair.a;
            this.recvEvd = dtoEvd(side);
            this.requestEvd = side.ia.createEvd(64, null, EnumSet.of(EvdFlag.DTO, EvdFlag.RMR_BIND));
            this.connectEvd = connEvd(side);
            this.crEvd = crEvd(side, 16);
            this.peerConnectEvd = connEvd(other);
            this.foreignConnectEvd = connEvd(other);
        }

        /**
         * A TENTATIVE_CONNECTION_PENDING subject stays as the provider gave it (no PZ, no EVDs: the
         * consumer's first dat_ep_modify(3DAT) is still to come). Call before {@link #driveTo}.
         */
        Subject providerEndpointAsGiven() {
            modifyProviderEndpoint = false;
            return this;
        }

        boolean threaded() {
            return pair.mode == DatPair.Mode.THREADED;
        }

        /** A new endpoint of the subject's IA with the subject's EVDs. */
        Endpoint newEndpoint() {
            return side.ia.createEndpoint(side.pz, recvEvd, requestEvd, connectEvd, null);
        }

        /** A new peer endpoint on {@code a}: that side's DTO EVD and {@link #peerConnectEvd}. */
        Endpoint newPeer() {
            return ConnSupport.ep(other, peerConnectEvd);
        }

        // ------------------------------------------------------------------ preparations

        /**
         * An endpoint on {@code b}, connected actively to a consumer PSP on {@code a} that keeps
         * listening, for dat_ep_dup_connect(3DAT). Waits, so call it before driving the subject.
         */
        Subject prepareDupSource() {
            dupQual = pair.qual();
            other.ia.createPsp(dupQual, other.conn, PspFlag.CONSUMER);
            dupSource = side.ep();
            connect(dupSource, other, dupQual, null);
            ConnectionRequest cr =
                    next(other.conn, ConnectionRequestEvent.class).cr();
            cr.accept(other.ep(), null);
            expectConnection(side.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            expectConnection(other.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EndpointState.CONNECTED, dupSource.status().state());
            return this;
        }

        /**
         * A request of another connection (from {@link #foreignActive} on {@code a} to a consumer
         * PSP on {@code b}) that waits for an answer, for dat_cr_accept(3DAT) / dat_cr_reject(3DAT)
         * while the subject is in some state. Waits, so call it before driving the subject.
         */
        Subject prepareForeignRequest() {
            long q = pair.qual();
            side.ia.createPsp(q, side.conn, PspFlag.CONSUMER);
            foreignActive = ConnSupport.ep(other, foreignConnectEvd);
            connect(foreignActive, side, q, null);
            foreignRequest = next(side.conn, ConnectionRequestEvent.class).cr();
            return this;
        }

        // ------------------------------------------------------------------ driving

        /** Drives a new endpoint into {@code target} and checks that it got there. */
        Subject driveTo(EndpointState target) {
            switch (target) {
                case UNCONNECTED -> ep = newEndpoint();
                case RESERVED -> reserved();
                case PASSIVE_CONNECTION_PENDING -> passive();
                case TENTATIVE_CONNECTION_PENDING -> tentative();
                case ACTIVE_CONNECTION_PENDING -> active();
                case COMPLETION_PENDING -> completionPending();
                case CONNECTED -> connected();
                case DISCONNECT_PENDING -> disconnectPending();
                case DISCONNECTED -> disconnected();
                default -> throw new IllegalArgumentException("no man page puts an endpoint in " + target);
            }
            state = target;
            assertEquals(target, ep.status().state(), "dat_ep_get_status(3DAT) after driving the endpoint");
            return this;
        }

        private void reserved() {
            ep = newEndpoint();
            rsp = side.ia.createRsp(pair.qual(), ep, crEvd);
        }

        private void passive() {
            reserved();
            peer = newPeer();
            connect(peer, side, rsp.connQual(), null);
            request = next(crEvd, ConnectionRequestEvent.class).cr();
            assertEquals(
                    Optional.of(ep),
                    request.query().localEp(),
                    "dat_cr_query(3DAT): the RSP's request names its endpoint");
        }

        private void tentative() {
            psp = side.ia.createPsp(pair.qual(), crEvd, PspFlag.PROVIDER);
            peer = newPeer();
            connect(peer, side, psp.connQual(), null);
            request = next(crEvd, ConnectionRequestEvent.class).cr();
            ep = request.query()
                    .localEp()
                    .orElseThrow(() -> new AssertionError("a PROVIDER PSP's request names no endpoint"));
            if (modifyProviderEndpoint) {
                // dat_psp_create(3DAT): the consumer gives the provider's endpoint its PZ and EVDs before accepting.
                ep.modify(EpModify.builder()
                        .pz(side.pz)
                        .recvEvd(recvEvd)
                        .requestEvd(requestEvd)
                        .connectEvd(connectEvd)
                        .build());
            }
        }

        private void active() {
            remoteQual = pair.qual();
            psp = other.ia.createPsp(remoteQual, other.conn, PspFlag.CONSUMER);
            ep = newEndpoint();
            connect(ep, other, remoteQual, null);
            assertEquals(EndpointState.ACTIVE_CONNECTION_PENDING, ep.status().state(), "dat_ep_connect(3DAT)");
            request = next(other.conn, ConnectionRequestEvent.class).cr();
        }

        private void completionPending() {
            psp = side.ia.createPsp(pair.qual(), crEvd, PspFlag.CONSUMER);
            ep = newEndpoint();
            peer = newPeer();
            // The peer's own timeout ends it if the subject goes while the link is down: its CM, whose request a
            // slow test may have let the subject's CM acknowledge (an MRA, IBA 12.6.6), would wait 68.7 s to resend.
            connect(peer, side, psp.connQual(), PEER_CONNECT_TIMEOUT, null);
            ConnectionRequest cr = next(crEvd, ConnectionRequestEvent.class).cr();
            holdLinkIfThreaded();
            cr.accept(ep, null);
        }

        private void connected() {
            remoteQual = pair.qual();
            psp = other.ia.createPsp(remoteQual, other.conn, PspFlag.CONSUMER);
            ep = newEndpoint();
            connect(ep, other, remoteQual, null);
            ConnectionRequest cr =
                    next(other.conn, ConnectionRequestEvent.class).cr();
            peer = newPeer();
            cr.accept(peer, null);
            expectConnection(connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            expectConnection(peerConnectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }

        private void disconnectPending() {
            connected();
            // The peer has posted no receive: the send waits on RNR NAKs and stays outstanding.
            ep.postSend(side.iov(0, 8), PENDING_SEND, CompletionFlag.defaults());
            ep.disconnect(CloseFlag.GRACEFUL);
            assertTrue(requestEvd.dequeue().isEmpty(), "the pending send must not have completed");
        }

        private void disconnected() {
            connected();
            ep.disconnect(CloseFlag.ABRUPT);
            expectConnection(connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            expectConnection(peerConnectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }

        // ------------------------------------------------------------------ peers

        /**
         * Waits for connection events of {@code evd} until one after which its endpoint has no
         * connection, and returns it; a peer torn down by the subject ends this way whatever it saw
         * before (S1: what the peer sees is SILENT).
         */
        static ConnectionEvent expectFinal(EventDispatcher evd) {
            while (true) {
                ConnectionEvent e = next(evd, ConnectionEvent.class);
                if (FINAL_EVENTS.contains(e.eventNumber())) {
                    return e;
                }
                assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(), () -> "connection event " + e);
            }
        }

        // ------------------------------------------------------------------ the link (threaded COMPLETION_PENDING)

        /** On the threaded fabric, takes the link between the IAs down (see the class comment). */
        void holdLinkIfThreaded() {
            if (threaded()) {
                linkUp(false);
                linkHeld = true;
            }
        }

        /** Takes the link between the IAs down or up, on either fabric (packets sent while it is down are lost). */
        void linkUp(boolean up) {
            EventTestSupport.link(pair).setUp(up);
        }

        /** Brings a held link back up; the connection manager's retries then resend what was lost. */
        void releaseLink() {
            if (linkHeld) {
                linkUp(true);
                linkHeld = false;
            }
        }
    }
}
