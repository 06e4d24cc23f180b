package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The node side of {@code simrdma node} / {@code simrdma ping}: a DAT server on an IA that accepts
 * connections on a PSP, echoes every message it receives, and offers each connection a memory
 * region for RDMA WRITE and READ. The accept's private data describes the region
 * ({@link RegionInfo}).
 *
 * <p>One EVD carries every stream (connection requests, connection events, DTO completions), so
 * one thread serves every connection.
 *
 * <p><b>Vanished clients.</b> A client whose JVM or host dies sends no disconnect, and an RC
 * responder with nothing to send never notices, as on real hardware. Like a real RDMA server, the
 * node sends each connection a zero-byte RDMA WRITE every keepalive interval (it touches no memory
 * and needs no R_Key, IBA 9.4.3): a client that is gone does not acknowledge it, the RC retries run
 * out (retry_cnt 7 with the TCP node's 537 ms ACK timeout: 4.3 s), the endpoint breaks
 * (DAT_CONNECTION_EVENT_BROKEN) and the node frees its endpoint and regions. So what a vanished
 * client held is freed within the keepalive interval plus 4.3 s, plus the time to notice
 * ({@link #WAIT_SLICE_MILLIS}).
 */
final class EchoNode {

    /** Receive buffers per connection. */
    static final int SLOTS = 16;
    /** Largest message echoed. */
    static final int SLOT_SIZE = 64 * 1024;

    private static final long SEND_TAG = 1L << 32;
    private static final long KEEPALIVE_TAG = 2L << 32;
    /** Longest wait for an event before the node looks at its keepalives and at a stop request. */
    static final long WAIT_SLICE_MILLIS = 250;
    /** Time the RC retries of a keepalive take to give up on a vanished client: 4.096 us x 2^17 x (7 + 1). */
    static final long RETRY_GIVE_UP_MILLIS = 4295;

    /** One connection's resources. */
    private final class Conn {
        final Endpoint ep;
        final ByteBuffer slots = ByteBuffer.allocateDirect(SLOTS * SLOT_SIZE);
        final LocalMemoryRegion slotLmr;
        final ByteBuffer region;
        final LocalMemoryRegion regionLmr;
        SocketAddress peer;
        long echoed;
        boolean connected;
        boolean keepaliveOutstanding;
        long lastKeepaliveNanos;

        Conn() {
            slotLmr = ia.createLmr(
                    new RegionDescription.Virtual(slots),
                    pz,
                    EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE));
            region = ByteBuffer.allocateDirect(regionSize);
            regionLmr = ia.createLmr(new RegionDescription.Virtual(region), pz, MemoryPrivilege.all());
            // The provider's default attributes: 64 DTOs each way, messages and RDMA up to 1 MiB.
            ep = ia.createEndpoint(pz, evd, evd, evd, null);
            for (int i = 0; i < SLOTS; i++) {
                postRecv(i);
            }
        }

        List<LmrTriplet> slot(int i, int len) {
            return List.of(
                    new LmrTriplet(slotLmr.lmrContext(), slotLmr.registeredAddress() + (long) i * SLOT_SIZE, len));
        }

        void postRecv(int i) {
            ep.postRecv(slot(i, SLOT_SIZE), i, CompletionFlag.defaults());
        }

        /** A zero-byte RDMA WRITE: no memory touched, no R_Key checked; only its acknowledgement matters. */
        void keepalive(long now) {
            keepaliveOutstanding = true;
            lastKeepaliveNanos = now;
            ep.postRdmaWrite(List.of(), KEEPALIVE_TAG, new RmrTriplet(0, 0, 0), CompletionFlag.defaults());
        }

        void free() {
            ep.free();
            slotLmr.free();
            regionLmr.free();
        }
    }

    private final InterfaceAdapter ia;
    private final long qualifier;
    private final int regionSize;
    private final long keepaliveNanos;
    private final boolean quiet;
    private final PrintWriter out;
    private final ProtectionZone pz;
    private final EventDispatcher evd;
    private final PublicServicePoint psp;
    private final Map<Endpoint, Conn> conns = new HashMap<>();

    /**
     * Listens on {@code qualifier} of {@code ia}; sends each connection a keepalive every
     * {@code keepaliveMillis}; with {@code quiet}, prints no line per connection.
     */
    EchoNode(
            InterfaceAdapter ia, long qualifier, int regionSize, long keepaliveMillis, boolean quiet, PrintWriter out) {
        this.ia = ia;
        this.qualifier = qualifier;
        this.regionSize = regionSize;
        this.keepaliveNanos = TimeUnit.MILLISECONDS.toNanos(keepaliveMillis);
        this.quiet = quiet;
        this.out = out;
        this.pz = ia.createPz();
        this.evd = ia.createEvd(4096, null, EnumSet.of(EvdFlag.CR, EvdFlag.CONNECTION, EvdFlag.DTO));
        this.psp = ia.createPsp(qualifier, evd, PspFlag.CONSUMER);
    }

    /**
     * Serves until {@code connections} connections have ended (0: forever) or {@code stop} says so.
     *
     * @return true if it stopped because {@code stop} said so
     */
    boolean serve(int connections, BooleanSupplier stop) {
        out.printf(
                "node listening: IA address %s, connection qualifier %d%n",
                Human.address(ia.query().iaAttributes().iaAddress()), qualifier);
        out.flush();
        int ended = 0;
        Timeout slice = Timeout.ofMillis(
                Math.min(WAIT_SLICE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(keepaliveNanos))));
        while (connections == 0 || ended < connections) {
            if (stop.getAsBoolean()) {
                return true;
            }
            keepalives(System.nanoTime());
            EvdWaitResult r = evd.waitForEvent(slice, 1); // a timeout is a result without event
            if (r.event().isEmpty()) {
                continue;
            }
            DatEvent e = r.event().get();
            if (e instanceof ConnectionRequestEvent req) {
                accept(req);
            } else if (e instanceof ConnectionEvent c) {
                ended += onConnection(c) ? 1 : 0;
            } else if (e instanceof DtoCompletionEvent d) {
                onDto(d);
            }
        }
        return false;
    }

    /** Posts a keepalive on every connection whose last one was answered at least an interval ago. */
    private void keepalives(long now) {
        for (Conn c : conns.values()) {
            if (c.connected && !c.keepaliveOutstanding && now - c.lastKeepaliveNanos >= keepaliveNanos) {
                try {
                    c.keepalive(now);
                } catch (DatException e) {
                    c.keepaliveOutstanding = false; // the endpoint is breaking: its connection event frees it
                }
            }
        }
    }

    /** Disconnects every connection (a clean stop); returns how many there were. */
    int disconnectAll() {
        int n = 0;
        for (Conn c : conns.values()) {
            try {
                c.ep.disconnect(CloseFlag.GRACEFUL);
                n++;
            } catch (DatException e) {
                // not connected (any more): freed below
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!conns.isEmpty() && System.nanoTime() < deadline) {
            EvdWaitResult r = evd.waitForEvent(Timeout.ofMillis(WAIT_SLICE_MILLIS), 1);
            if (r.event().isPresent() && r.event().get() instanceof ConnectionEvent ce) {
                onConnection(ce);
            }
        }
        return n;
    }

    private void accept(ConnectionRequestEvent req) {
        Conn c;
        try {
            c = new Conn();
        } catch (DatException e) {
            out.println("request refused: " + e.getMessage());
            req.cr().reject();
            return;
        }
        c.peer = req.cr().query().remoteIaAddress();
        conns.put(c.ep, c);
        RegionInfo info =
                new RegionInfo(c.regionLmr.rmrContext().orElseThrow(), c.regionLmr.registeredAddress(), regionSize);
        req.cr().accept(c.ep, info.encode());
    }

    /** @return true if a connection ended */
    private boolean onConnection(ConnectionEvent e) {
        Conn c = conns.get(e.ep());
        if (c == null) {
            return false;
        }
        if (e.eventNumber() == EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            c.connected = true;
            c.lastKeepaliveNanos = System.nanoTime();
            if (!quiet) {
                out.println("connected: " + Human.address(c.peer));
                out.flush();
            }
            return false;
        }
        conns.remove(e.ep());
        c.free();
        if (!quiet) {
            out.printf(
                    "%s: %s after %d echoed messages; freed its endpoint and %d-byte region%n",
                    Human.address(c.peer), Human.connectionEnd(e), c.echoed, regionSize);
            out.flush();
        }
        return true;
    }

    private void onDto(DtoCompletionEvent d) {
        Conn c = conns.get(d.ep());
        if (c == null || d.status() != DtoCompletionStatus.SUCCESS) {
            return; // flushed at a disconnect: the connection event frees everything
        }
        long cookie = d.userCookie();
        if ((cookie & KEEPALIVE_TAG) != 0) {
            c.keepaliveOutstanding = false;
            return;
        }
        int slot = (int) cookie;
        if ((cookie & SEND_TAG) != 0) {
            c.postRecv(slot);
        } else {
            c.echoed++;
            c.ep.postSend(c.slot(slot, (int) d.transferredLength()), SEND_TAG | slot, CompletionFlag.defaults());
        }
    }

    /** Frees what the node holds (the IA's close frees the rest). */
    void close() {
        for (Conn c : conns.values()) {
            c.free();
        }
        conns.clear();
        psp.free();
        evd.free();
        pz.free();
    }

    /** The region a node offers a connection: its RMR context, address and length (16 bytes of private data). */
    record RegionInfo(int rmrContext, long address, int length) {
        byte[] encode() {
            return ByteBuffer.allocate(16)
                    .putInt(rmrContext)
                    .putLong(address)
                    .putInt(length)
                    .array();
        }

        static RegionInfo decode(byte[] data) {
            if (data == null || data.length < 16) {
                throw new IllegalArgumentException("the node's accept carried no region description");
            }
            ByteBuffer b = ByteBuffer.wrap(data);
            return new RegionInfo(b.getInt(), b.getLong(), b.getInt());
        }
    }
}
