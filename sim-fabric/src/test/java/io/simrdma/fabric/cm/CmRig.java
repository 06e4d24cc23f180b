package io.simrdma.fabric.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.sched.DeterministicScheduler;
import io.simrdma.fabric.tcp.RcEnd;
import io.simrdma.fabric.tcp.TcpConfig;
import io.simrdma.fabric.tcp.TcpEvent;
import io.simrdma.fabric.tcp.TcpLink;
import io.simrdma.fabric.tcp.TcpNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Test fixture for the IB CM protocol: device "a" (active) and device "b" (passive) with their
 * connection managers, one event channel per side, and a {@link CmTrace} on every fabric
 * involved. Three backends run the same scenarios:
 * <ul>
 *   <li>{@link Backend#DETERMINISTIC}: one in-process fabric, virtual time (the fault tests use it
 *       for exact times);</li>
 *   <li>{@link Backend#THREADED}: one in-process threaded fabric;</li>
 *   <li>{@link Backend#TCP}: two threaded fabrics of the same name, each with one {@link TcpNode}
 *       on loopback, in this JVM (as two hosts would run them).</li>
 * </ul>
 * Waits have deadlines: virtual ones under the deterministic scheduler, real ones otherwise.
 */
final class CmRig implements AutoCloseable {

    enum Backend {
        DETERMINISTIC,
        THREADED,
        TCP;

        boolean deterministic() {
            return this == DETERMINISTIC;
        }
    }

    /** The QP transitions of a connection set up once, and of one that was then disconnected (trace strings). */
    static final List<String> TO_RTS = List.of("RESET->INIT", "INIT->RTR", "RTR->RTS");

    static final List<String> TO_ERR = List.of("RESET->INIT", "INIT->RTR", "RTR->RTS", "RTS->ERR");

    /** Seconds (virtual or real) any single wait may take. */
    static final long WAIT_SECONDS = 20;

    static final String FABRIC = "simrdma-cm-test";

    final Backend backend;
    final Fabric fa;
    final Fabric fb;
    final Device a;
    final Device b;
    final RdmaCm cmA;
    final RdmaCm cmB;
    final TcpNode tcpA;
    final TcpNode tcpB;
    final CmConfig config;
    final CmTrace trace = new CmTrace();
    final CmEventChannel chA;
    final CmEventChannel chB;
    /** What the active side gives rdma_getaddrinfo to reach b. */
    final String nodeB;

    CmId listen;

    private CmRig(Backend backend, long seed, CmConfig config, CmConfig configB, UnaryOperator<DeviceConfig> bDevice) {
        if (backend != Backend.TCP && !config.equals(configB)) {
            throw new IllegalArgumentException("one in-process fabric has one connection manager configuration");
        }
        this.backend = backend;
        this.config = config;
        Fabric x = null;
        Fabric y = null;
        TcpNode na = null;
        TcpNode nb = null;
        try {
            switch (backend) {
                case DETERMINISTIC:
                case THREADED:
                    x = backend == Backend.DETERMINISTIC
                            ? Fabric.deterministic(seed)
                            : Fabric.builder().threaded().seed(seed).build();
                    y = x;
                    x.createDevice("a");
                    x.createDevice(bDevice.apply(DeviceConfig.named("b")));
                    break;
                case TCP:
                    x = Fabric.builder().name(FABRIC).threaded().seed(seed).build();
                    y = Fabric.builder().name(FABRIC).threaded().seed(seed + 1).build();
                    na = TcpNode.start(x, TcpConfig.builder("a").build());
                    nb = TcpNode.start(
                            y,
                            TcpConfig.builder("b")
                                    .device(bDevice.apply(DeviceConfig.named("b")))
                                    .build());
                    break;
                default:
                    throw new IllegalArgumentException(backend.toString());
            }
        } catch (RuntimeException e) {
            if (x != null) {
                x.close();
            }
            if (y != null && y != x) {
                y.close();
            }
            throw e;
        }
        this.fa = x;
        this.fb = y;
        this.tcpA = na;
        this.tcpB = nb;
        this.a = na != null ? na.device() : x.device("a");
        this.b = nb != null ? nb.device() : y.device("b");
        this.nodeB = nb != null ? nb.address() : "b";
        fa.addTraceListener(trace);
        if (fb != fa) {
            fb.addTraceListener(trace);
        }
        this.cmA = RdmaCm.of(fa, config);
        this.cmB = fb == fa ? cmA : RdmaCm.of(fb, configB);
        this.chA = cmA.createEventChannel();
        this.chB = cmB.createEventChannel();
        if (backend == Backend.TCP) {
            try {
                openTcpConnection();
            } catch (RuntimeException | AssertionError e) {
                close();
                throw e;
            }
        }
    }

    /**
     * Opens the TCP connection between the nodes before the test starts (the first connection of a
     * JVM can take a second), so that CM timeouts measure the CM, not socket setup: a sends b a MAD
     * that is no CM message (b's CM drops it) and waits for the connection's handshake.
     */
    private void openTcpConnection() {
        CountDownLatch connected = new CountDownLatch(1);
        TcpNode.Listener l = e -> {
            if (e.type() == TcpEvent.Type.CONNECTED) {
                connected.countDown();
            }
        };
        tcpA.addListener(l);
        try {
            a.sendMad(b.gid(), Device.GSI_QPN, new byte[Device.MAD_SIZE]);
            assertTrue(connected.await(WAIT_SECONDS, TimeUnit.SECONDS), "the TCP nodes did not connect");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            tcpA.removeListener(l);
        }
    }

    static CmRig create(Backend backend, long seed, CmConfig config) {
        return new CmRig(backend, seed, config, config, c -> c);
    }

    static CmRig create(Backend backend, long seed, CmConfig config, UnaryOperator<DeviceConfig> bDevice) {
        return new CmRig(backend, seed, config, config, bDevice);
    }

    /** Two TCP nodes whose connection managers run with different timing ({@code configB} on b). */
    static CmRig tcp(long seed, CmConfig configA, CmConfig configB, UnaryOperator<DeviceConfig> bDevice) {
        return new CmRig(Backend.TCP, seed, configA, configB, bDevice);
    }

    /** The in-process link between a and b (deterministic and threaded backends). */
    Link link() {
        return fa.link(a, b);
    }

    /** b's TCP link to a (TCP backend). */
    TcpLink tcpLinkOfB() {
        return tcpB.link(a.gid());
    }

    DeterministicScheduler sched() {
        return fa.deterministicScheduler();
    }

    /** Current time of a's fabric (virtual under the deterministic scheduler). */
    long now() {
        return fa.now();
    }

    /** b listens on {@code port} of RDMA_PS_TCP (rdma_listen(3)). */
    CmId listen(int port) {
        listen = cmB.createId(chB, null, PortSpace.TCP);
        listen.bind(RdmaCm.addressOf(b, port));
        listen.listen(4);
        return listen;
    }

    /** An id of a on chA with address and route to b's {@code port} resolved, with its QP and a buffer. */
    RcEnd active(int port) {
        AddrInfo ai =
                cmA.getAddrInfo(nodeB, String.valueOf(port), AddrInfo.active()).get(0);
        CmId id = cmA.createId(chA, null, PortSpace.TCP);
        // bound to a: an unbound id would reach b in the same fabric through b itself (loopback)
        CmSteps.resolve(id, RdmaCm.addressOf(a, 0), ai.dstAddr(), 2000, WAIT_SECONDS);
        return new RcEnd(id);
    }

    /**
     * b listens on {@code port} (unless it listens already) and a new {@link #active} id of a
     * calls rdma_connect(3) with default parameters; nothing is awaited.
     */
    RcEnd connecting(int port) {
        return connecting(port, ConnParam.defaults());
    }

    /** {@link #connecting(int)} with {@code param} for rdma_connect(3). */
    RcEnd connecting(int port, ConnParam param) {
        if (listen == null) {
            listen(port);
        }
        RcEnd client = active(port);
        client.id.connect(param);
        return client;
    }

    /** b's end of the next CONNECT_REQUEST on chB (acknowledged), with its QP and buffer, not yet accepted. */
    RcEnd request() {
        return new RcEnd(expect(chB, CmEventType.CONNECT_REQUEST).id());
    }

    /** A connected pair: a's end and b's end. */
    record Pair(RcEnd client, RcEnd server) {}

    /**
     * Connects a new active id to b's listener on {@code port} (listening first if needed): a
     * connects with {@code connect}, b accepts with {@code accept}; returns after both
     * ESTABLISHED events.
     */
    Pair connect(int port, ConnParam connect, ConnParam accept) {
        RcEnd client = connecting(port, connect);
        RcEnd server = request();
        server.id.accept(accept);
        expect(chA, CmEventType.ESTABLISHED);
        expect(chB, CmEventType.ESTABLISHED);
        return new Pair(client, server);
    }

    Pair connect(int port) {
        return connect(port, ConnParam.defaults(), null);
    }

    /**
     * Waits until {@code condition} holds (typically on {@link #trace}): under the deterministic
     * scheduler by running the fabric, otherwise by re-checking; fails after {@link #WAIT_SECONDS}.
     */
    void await(BooleanSupplier condition, String what) {
        boolean ok = fa.scheduler().newSignal().await(condition, TimeUnit.SECONDS.toNanos(WAIT_SECONDS));
        assertTrue(ok, () -> "timed out waiting for " + what + "; CM messages: " + trace.all());
    }

    // ------------------------------------------------------------------ events

    /** Waits for the next event of {@code ch} (deadline {@link #WAIT_SECONDS}), checks its type, acknowledges it. */
    static CmEvent expect(CmEventChannel ch, CmEventType type) {
        return CmSteps.nextAcked(ch, type, WAIT_SECONDS);
    }

    /** The four events of a disconnection, in the order awaited: DISCONNECTED on a, on b, then TIMEWAIT_EXIT on a, on b. */
    record Disconnection(CmEvent da, CmEvent db, CmEvent ta, CmEvent tb) {
        /** Each side left timewait exactly {@code nanos} after its DISCONNECTED (virtual time). */
        void assertTimewait(long nanos) {
            assertEquals(nanos, ta.timeNanos() - da.timeNanos(), "a's timewait");
            assertEquals(nanos, tb.timeNanos() - db.timeNanos(), "b's timewait");
        }
    }

    /** Expects DISCONNECTED on a and b, then TIMEWAIT_EXIT on a and b (each acknowledged). */
    Disconnection expectDisconnection() {
        CmEvent da = expect(chA, CmEventType.DISCONNECTED);
        CmEvent db = expect(chB, CmEventType.DISCONNECTED);
        CmEvent ta = expect(chA, CmEventType.TIMEWAIT_EXIT);
        CmEvent tb = expect(chB, CmEventType.TIMEWAIT_EXIT);
        return new Disconnection(da, db, ta, tb);
    }

    /**
     * Under the deterministic scheduler: runs the fabric until nothing is left to do (every timer,
     * timewait included, has fired), then returns and acknowledges the events still queued on
     * {@code ch}. Under the others: the events queued now.
     */
    List<CmEventType> drain(CmEventChannel ch) {
        if (backend.deterministic()) {
            sched().runUntilIdle();
        }
        List<CmEventType> out = new ArrayList<>();
        for (CmEvent e = ch.pollEvent(); e != null; e = ch.pollEvent()) {
            out.add(e.type());
            e.ack();
        }
        return out;
    }

    /** Both QPs of {@code p} went through exactly {@code expected} (see {@link #TO_RTS}, {@link #TO_ERR}). */
    void assertTransitions(List<String> expected, Pair p) {
        assertEquals(expected, trace.transitions(p.client().qp), "a's QP transitions");
        assertEquals(expected, trace.transitions(p.server().qp), "b's QP transitions");
    }

    /** {@link #drain}s both channels and checks that neither had an event left. */
    void assertQuiet() {
        assertQuiet(null, null);
    }

    /** {@link #assertQuiet()}, with what each side's failure message should say. */
    void assertQuiet(String whyA, String whyB) {
        assertEquals(List.of(), drain(chA), whyA);
        assertEquals(List.of(), drain(chB), whyB);
    }

    @Override
    public void close() {
        try {
            fa.close();
        } finally {
            if (fb != fa) {
                fb.close();
            }
        }
    }
}
