package io.simrdma.tools;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.Timeout;

import java.io.PrintWriter;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The node side of {@code simrdma node} / {@code simrdma ping}: a DAT server on an IA that accepts
 * connections on a PSP, echoes every message it receives, and offers each connection a memory
 * region for RDMA WRITE and READ. The accept's private data describes the region
 * ({@link RegionInfo}).
 *
 * <p>One EVD carries every stream (connection requests, connection events, DTO completions), so
 * one thread serves every connection.
 */
final class EchoNode {

    /** Receive buffers per connection. */
    static final int SLOTS = 16;
    /** Largest message echoed. */
    static final int SLOT_SIZE = 64 * 1024;
    private static final long SEND_TAG = 1L << 32;

    /** One connection's resources. */
    private final class Conn {
        final Endpoint ep;
        final ByteBuffer slots = ByteBuffer.allocateDirect(SLOTS * SLOT_SIZE);
        final LocalMemoryRegion slotLmr;
        final ByteBuffer region;
        final LocalMemoryRegion regionLmr;
        SocketAddress peer;
        long echoed;

        Conn() {
            slotLmr = ia.createLmr(new RegionDescription.Virtual(slots), pz,
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
            return List.of(new LmrTriplet(slotLmr.lmrContext(), slotLmr.registeredAddress() + (long) i * SLOT_SIZE, len));
        }

        void postRecv(int i) {
            ep.postRecv(slot(i, SLOT_SIZE), i, CompletionFlag.defaults());
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
    private final PrintWriter out;
    private final ProtectionZone pz;
    private final EventDispatcher evd;
    private final PublicServicePoint psp;
    private final Map<Endpoint, Conn> conns = new HashMap<>();

    /** Listens on {@code qualifier} of {@code ia}. */
    EchoNode(InterfaceAdapter ia, long qualifier, int regionSize, PrintWriter out) {
        this.ia = ia;
        this.qualifier = qualifier;
        this.regionSize = regionSize;
        this.out = out;
        this.pz = ia.createPz();
        this.evd = ia.createEvd(4096, null, EnumSet.of(EvdFlag.CR, EvdFlag.CONNECTION, EvdFlag.DTO));
        this.psp = ia.createPsp(qualifier, evd, PspFlag.CONSUMER);
    }

    /** Serves until {@code connections} connections have ended (0: forever). */
    void serve(int connections) {
        out.printf("node listening: IA address %s, connection qualifier %d%n", ia.query().iaAttributes().iaAddress(),
                qualifier);
        out.flush();
        int ended = 0;
        while (connections == 0 || ended < connections) {
            EvdWaitResult r = evd.waitForEvent(Timeout.INFINITE, 1);
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
        RegionInfo info = new RegionInfo(c.regionLmr.rmrContext().orElseThrow(), c.regionLmr.registeredAddress(),
                regionSize);
        req.cr().accept(c.ep, info.encode());
    }

    /** @return true if a connection ended */
    private boolean onConnection(ConnectionEvent e) {
        Conn c = conns.get(e.ep());
        if (c == null) {
            return false;
        }
        if (e.eventNumber() == EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            out.println("connected: " + c.peer);
            out.flush();
            return false;
        }
        out.printf("%s: %s after %d echoed messages%n", c.peer, e.eventNumber(), c.echoed);
        out.flush();
        conns.remove(e.ep());
        c.free();
        return true;
    }

    private void onDto(DtoCompletionEvent d) {
        Conn c = conns.get(d.ep());
        if (c == null || d.status() != DtoCompletionStatus.SUCCESS) {
            return; // flushed at a disconnect: the connection event frees everything
        }
        long cookie = d.userCookie();
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
            return ByteBuffer.allocate(16).putInt(rmrContext).putLong(address).putInt(length).array();
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
