package io.simrdma.fabric.cm;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.sched.DeterministicScheduler;
import io.simrdma.fabric.tcp.TcpConfig;
import io.simrdma.fabric.tcp.TcpEvent;
import io.simrdma.fabric.tcp.TcpLink;
import io.simrdma.fabric.tcp.TcpNode;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        DETERMINISTIC, THREADED, TCP;

        boolean deterministic() {
            return this == DETERMINISTIC;
        }
    }

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
                    x = backend == Backend.DETERMINISTIC ? Fabric.deterministic(seed)
                            : Fabric.builder().threaded().seed(seed).build();
                    y = x;
                    x.createDevice("a");
                    x.createDevice(bDevice.apply(DeviceConfig.named("b")));
                    break;
                case TCP:
                    x = Fabric.builder().name(FABRIC).threaded().seed(seed).build();
                    y = Fabric.builder().name(FABRIC).threaded().seed(seed + 1).build();
                    na = TcpNode.start(x, TcpConfig.builder("a").build());
                    nb = TcpNode.start(y, TcpConfig.builder("b").device(bDevice.apply(DeviceConfig.named("b"))).build());
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
    End active(int port) {
        AddrInfo ai = cmA.getAddrInfo(nodeB, String.valueOf(port), AddrInfo.active()).get(0);
        CmId id = cmA.createId(chA, null, PortSpace.TCP);
        // bound to a: an unbound id would reach b in the same fabric through b itself (loopback)
        id.resolveAddr(RdmaCm.addressOf(a, 0), ai.dstAddr(), 2000);
        expect(chA, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(2000);
        expect(chA, CmEventType.ROUTE_RESOLVED);
        return new End(id);
    }

    /** A connected pair: a's end and b's end. */
    record Pair(End client, End server) {
    }

    /**
     * Connects a new active id to b's listener on {@code port} (listening first if needed): a
     * connects with {@code connect}, b accepts with {@code accept}; returns after both
     * ESTABLISHED events.
     */
    Pair connect(int port, ConnParam connect, ConnParam accept) {
        if (listen == null) {
            listen(port);
        }
        End client = active(port);
        client.id.connect(connect);
        CmEvent req = expect(chB, CmEventType.CONNECT_REQUEST);
        End server = new End(req.id());
        server.id.accept(accept);
        expect(chA, CmEventType.ESTABLISHED);
        expect(chB, CmEventType.ESTABLISHED);
        return new Pair(client, server);
    }

    Pair connect(int port) {
        return connect(port, ConnParam.defaults(), null);
    }

    // ------------------------------------------------------------------ events

    /** Waits for the next event of {@code ch} (deadline {@link #WAIT_SECONDS}), checks its type, acknowledges it. */
    static CmEvent expect(CmEventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(e, "no " + type.text() + " within " + WAIT_SECONDS + " s");
        assertEquals(type, e.type(), () -> "expected " + type.text() + ", got " + e);
        e.ack();
        return e;
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

    // ------------------------------------------------------------------ one side of a connection

    /** A CM id with its QP (one CQ the CM made for both queues) and a registered 16 KiB buffer (receives land in the first half, sends leave from the second). */
    static final class End {
        static final EnumSet<AccessFlag> ALL = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

        final CmId id;
        final QueuePair qp;
        final CompletionQueue cq;
        final ByteBuffer buf = ByteBuffer.allocateDirect(16384);
        final MemoryRegion mr;
        private final WorkCompletion[] wc = WorkCompletion.array(1);

        End(CmId id) {
            this.id = id;
            this.qp = id.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
            this.cq = id.sendCq();
            this.mr = qp.pd().registerMemory(buf, ALL);
        }

        void postRecv(long wrId) {
            qp.postRecv(new RecvWr().wrId(wrId).sge(mr, 0, 8192));
        }

        void postSend(long wrId, byte[] data) {
            buf.put(8192, data);
            qp.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sge(mr, 8192, data.length).flag(SendFlag.SIGNALED));
        }

        /** The next completion within {@link #WAIT_SECONDS}, copied; null if none came. */
        WorkCompletion next() {
            if (cq.poll(wc) == 1) {
                return new WorkCompletion().copyFrom(wc[0]);
            }
            cq.awaitCompletions(1, WAIT_SECONDS, TimeUnit.SECONDS);
            return cq.poll(wc) == 1 ? new WorkCompletion().copyFrom(wc[0]) : null;
        }
    }
}
