package io.simrdma.provider;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Test helper (helper-8: endpoint tests; beside {@link DatPair}): puts an endpoint of a {@link DatPair} into a
 * given {@link EndpointState} by the DAT calls that lead there, so endpoint tests can exercise
 * per-state rules on real endpoints. Everything created here is released when the pair closes.
 *
 * <p>States and how they are reached (ep-state-machine.md section 1):
 * <ul>
 *   <li>UNCONNECTED: dat_ep_create;</li>
 *   <li>RESERVED: dat_rsp_create with the EP;</li>
 *   <li>PASSIVE_CONNECTION_PENDING: a request arrives on that RSP;</li>
 *   <li>TENTATIVE_CONNECTION_PENDING: the provider's EP of a request on a DAT_PSP_PROVIDER PSP;</li>
 *   <li>ACTIVE_CONNECTION_PENDING: dat_ep_connect, the request delivered to a PSP that does not
 *       answer it;</li>
 *   <li>COMPLETION_PENDING: dat_cr_accept returned, ESTABLISHED not yet processed (the deterministic
 *       fabric does not progress until the test waits; on the threaded one the link is held down);</li>
 *   <li>CONNECTED: connected through {@link DatPair#connect};</li>
 *   <li>DISCONNECT_PENDING: graceful dat_ep_disconnect while a Send waits for a receive the peer
 *       never posts (RNR retry 7 retries for ever);</li>
 *   <li>DISCONNECTED: abrupt dat_ep_disconnect, its DISCONNECTED event consumed.</li>
 * </ul>
 */
final class EndpointPlacer {

    /** The nine states the man pages use, in the order of ep-state-machine.md section 1. */
    static final List<EndpointState> STATES = List.of(EndpointState.UNCONNECTED, EndpointState.RESERVED,
            EndpointState.PASSIVE_CONNECTION_PENDING, EndpointState.TENTATIVE_CONNECTION_PENDING,
            EndpointState.ACTIVE_CONNECTION_PENDING, EndpointState.COMPLETION_PENDING, EndpointState.CONNECTED,
            EndpointState.DISCONNECT_PENDING, EndpointState.DISCONNECTED);

    private EndpointPlacer() {
    }

    /** The endpoint under test in {@code state} and the side it lives on. */
    record Placed(Endpoint ep, DatPair.Side side) {
    }

    /** An endpoint in {@code state}; on side b for the passive states, on side a otherwise. */
    static Placed place(DatPair p, EndpointState state) {
        Endpoint ep;
        DatPair.Side side;
        switch (state) {
            case UNCONNECTED -> {
                ep = p.a.ep();
                side = p.a;
            }
            case RESERVED -> {
                ep = p.b.ep();
                p.b.ia.createRsp(p.qual(), ep, p.b.conn);
                side = p.b;
            }
            case PASSIVE_CONNECTION_PENDING -> {
                ep = p.b.ep();
                int q = p.qual();
                p.b.ia.createRsp(q, ep, p.b.conn);
                connectTo(p, p.a.ep(), q);
                DatPair.next(p.b.conn, ConnectionRequestEvent.class);
                side = p.b;
            }
            case TENTATIVE_CONNECTION_PENDING -> {
                int q = p.qual();
                p.b.ia.createPsp(q, p.b.conn, PspFlag.PROVIDER);
                connectTo(p, p.a.ep(), q);
                ConnectionRequest cr = DatPair.next(p.b.conn, ConnectionRequestEvent.class).cr();
                ep = cr.query().localEp().orElseThrow();
                side = p.b;
            }
            case ACTIVE_CONNECTION_PENDING -> {
                ep = p.a.ep();
                int q = p.qual();
                p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
                connectTo(p, ep, q);
                DatPair.next(p.b.conn, ConnectionRequestEvent.class);
                side = p.a;
            }
            case COMPLETION_PENDING -> {
                int q = p.qual();
                p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
                connectTo(p, p.a.ep(), q);
                ConnectionRequest cr = DatPair.next(p.b.conn, ConnectionRequestEvent.class).cr();
                ep = p.b.ep();
                if (p.mode == DatPair.Mode.THREADED) {
                    // The threaded fabric would complete the accept at once: hold the link so no RTU arrives.
                    SimIa ia = (SimIa) p.b.ia;
                    ia.fabric.link(ia.device, ((SimIa) p.a.ia).device).setUp(false);
                }
                cr.accept(ep, null);
                side = p.b;
            }
            case CONNECTED -> {
                ep = p.a.ep();
                p.connect(ep, p.b.ep());
                side = p.a;
            }
            case DISCONNECT_PENDING -> {
                ep = p.a.ep();
                p.connect(ep, p.b.ep());
                // No receive at the peer: the Send is RNR-retried for ever and the disconnect stays pending.
                ep.postSend(p.a.iov(0, 8), 1, CompletionFlag.defaults());
                ep.disconnect(CloseFlag.GRACEFUL);
                side = p.a;
            }
            case DISCONNECTED -> {
                ep = p.a.ep();
                p.connect(ep, p.b.ep());
                ep.disconnect(CloseFlag.ABRUPT);
                DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                side = p.a;
            }
            default -> throw new IllegalArgumentException("the sim provider never uses " + state);
        }
        assertEquals(state, ep.status().state(), "endpoint not placed in " + state);
        return new Placed(ep, side);
    }

    private static void connectTo(DatPair p, Endpoint active, int qual) {
        active.connect(p.b.address(), qual, DatPair.WAIT, null, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
    }

    /**
     * Connects {@code active} (side a) to {@code passive} (side b) on qualifier {@code qual} through a
     * consumer PSP whose requests go to b's conn EVD, and waits for ESTABLISHED on the two endpoints'
     * own connect EVDs.
     */
    static void connect(DatPair p, Endpoint active, EventDispatcher activeConn, Endpoint passive,
                        EventDispatcher passiveConn, int qual) {
        PublicServicePoint psp = p.b.ia.createPsp(qual, p.b.conn, PspFlag.CONSUMER);
        try {
            connectTo(p, active, qual);
            DatPair.next(p.b.conn, ConnectionRequestEvent.class).cr().accept(passive, null);
            DatPair.expectConnection(activeConn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            DatPair.expectConnection(passiveConn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        } finally {
            psp.free();
        }
    }

    /** A 4 KiB LMR of {@code side} in {@code pz} with {@code privileges}. */
    static LocalMemoryRegion lmr(DatPair.Side side, ProtectionZone pz, Set<MemoryPrivilege> privileges) {
        return side.ia.createLmr(new RegionDescription.Virtual(ByteBuffer.allocateDirect(4096)), pz, privileges);
    }
}
