package io.simrdma.fabric.tcp;

import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.cm.AddrInfo;
import io.simrdma.fabric.cm.CmConfig;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.CmSteps;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RdmaCm;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Two TCP nodes in one JVM, each in a threaded fabric of its own (the same fabric name, as nodes
 * of one fabric on two hosts would be), each with its connection manager; connected through the
 * CM over loopback by {@link #connect}.
 */
final class TcpPair implements AutoCloseable {

    static final String FABRIC = "simrdma-test";
    static final long WAIT_SECONDS = RcEnd.WAIT_SECONDS;

    final Fabric fa;
    final Fabric fb;
    final TcpNode a;
    final TcpNode b;
    final RdmaCm cmA;
    final RdmaCm cmB;
    final BlockingQueue<TcpEvent> eventsA = new LinkedBlockingQueue<>();
    final BlockingQueue<TcpEvent> eventsB = new LinkedBlockingQueue<>();
    CmEventChannel chA;
    CmEventChannel chB;
    CmId listen;

    /**
     * The CM timing of the tests: IB CM defaults, with an ACK timeout of 268 ms (exponent 16), so
     * that 7 retries ride out a 2 s stall of a loaded machine.
     */
    static final CmConfig CM = CmConfig.defaults().withAckTimeout(16);

    TcpPair(boolean nativeTransport) {
        this(nativeTransport, CM, c -> c, c -> c);
    }

    TcpPair(
            boolean nativeTransport,
            CmConfig cm,
            UnaryOperator<TcpConfig.Builder> ca,
            UnaryOperator<TcpConfig.Builder> cb) {
        Fabric x = null;
        Fabric y = null;
        try {
            x = Fabric.builder().name(FABRIC).threaded().seed(11).build();
            y = Fabric.builder().name(FABRIC).threaded().seed(22).build();
            this.a = TcpNode.start(
                    x,
                    ca.apply(TcpConfig.builder("a").nativeTransport(nativeTransport))
                            .build());
            this.b = TcpNode.start(
                    y,
                    cb.apply(TcpConfig.builder("b").nativeTransport(nativeTransport))
                            .build());
        } catch (RuntimeException e) {
            if (x != null) {
                x.close();
            }
            if (y != null) {
                y.close();
            }
            throw e;
        }
        this.fa = x;
        this.fb = y;
        a.addListener(eventsA::add);
        b.addListener(eventsB::add);
        this.cmA = RdmaCm.of(fa, cm);
        this.cmB = RdmaCm.of(fb, cm);
    }

    /** B listens on {@code port} of its port space (not a TCP port: the CM's). */
    CmId listen(int port) {
        chB = cmB.createEventChannel();
        listen = cmB.createId(chB, null, PortSpace.TCP);
        listen.bind(RdmaCm.addressOf(b.device(), port));
        listen.listen(4);
        return listen;
    }

    /** An id of A with address and route resolved to {@code node}'s {@code port}, with its QP and buffer. */
    RcEnd activeEnd(String node, int port) {
        if (chA == null) {
            chA = cmA.createEventChannel();
        }
        return activeEnd(cmA, chA, node, port);
    }

    /** An id on {@code ch} with address and route resolved to {@code node}'s {@code port}, with its QP and buffer. */
    static RcEnd activeEnd(RdmaCm cm, CmEventChannel ch, String node, int port) {
        AddrInfo ai =
                cm.getAddrInfo(node, String.valueOf(port), AddrInfo.active()).get(0);
        CmId id = cm.createId(ch, null, PortSpace.TCP);
        CmSteps.resolve(id, null, ai.dstAddr(), 2000, WAIT_SECONDS);
        return new RcEnd(id);
    }

    /** Connects A to B's listener on {@code port}: returns {A's end, B's end}, both ESTABLISHED. */
    RcEnd[] connect(int port) {
        if (listen == null) {
            listen(port);
        }
        RcEnd client = activeEnd(b.address(), port);
        client.id.connect(ConnParam.withPrivateData(client.keyData()));
        CmEvent req = expect(chB, CmEventType.CONNECT_REQUEST);
        RcEnd server = new RcEnd(req.id()).peer(req.privateData());
        server.postRecv(1, 0, 16 * 1024);
        server.id.accept(ConnParam.withPrivateData(server.keyData()));
        CmEvent est = CmSteps.nextAcked(chA, CmEventType.ESTABLISHED, WAIT_SECONDS);
        client.peer(est.privateData());
        expect(chB, CmEventType.ESTABLISHED);
        return new RcEnd[] {client, server};
    }

    /** Waits for the next event of {@code ch} and checks its type; returns it acknowledged. */
    static CmEvent expect(CmEventChannel ch, CmEventType type) {
        return CmSteps.nextAcked(ch, type, WAIT_SECONDS);
    }

    /**
     * Waits until {@code condition} holds, re-checking it whenever one of the nodes reports an
     * event, for at most {@code seconds}.
     */
    static boolean await(BooleanSupplier condition, BlockingQueue<TcpEvent> events, long seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                events.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The next event of type {@code type} in {@code events} within the wait limit, or null. */
    static TcpEvent nextEvent(BlockingQueue<TcpEvent> events, TcpEvent.Type type) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            try {
                TcpEvent e = events.poll(left, TimeUnit.NANOSECONDS);
                if (e != null && e.type() == type) {
                    return e;
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    /** A loopback port nothing listens on (bound, then released). */
    static int closedPort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            fa.close();
        } finally {
            fb.close();
        }
    }
}
