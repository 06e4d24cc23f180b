package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
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
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.function.Executable;

/**
 * Test fixture: two IAs ({@link #a}, {@link #b}) on a fabric of their own, each with a PZ, a DTO
 * EVD, a connection EVD (connection and CR streams), and a 64 KiB LMR with every privilege.
 * {@link #connect} connects two endpoints through a PSP. Closing the pair closes both IAs
 * abruptly, which frees whatever a test left.
 *
 * <p>Deterministic pairs progress when a test waits ({@link #next}); threaded pairs run on their
 * own threads, and waits have a deadline.
 */
final class DatPair implements AutoCloseable {

    /** The fabric under the pair. */
    enum Mode {
        DETERMINISTIC("mode=deterministic&seed=11"),
        THREADED("mode=threaded");

        final String options;

        Mode(String options) {
            this.options = options;
        }
    }

    static final Timeout WAIT = Timeout.ofMillis(20_000);
    private static final AtomicInteger FABRICS = new AtomicInteger();

    /** One IA and its standard objects. */
    static final class Side {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher dto;
        final EventDispatcher conn;
        final ByteBuffer buf;
        final LocalMemoryRegion lmr;

        Side(String name) {
            this(Dat.openIa(name, 64), 256, 64, 64 * 1024);
        }

        /** The standard objects on {@code ia}, opened elsewhere: EVDs of {@code dtoQlen} and {@code connQlen}, an LMR of {@code bufSize} bytes. */
        Side(InterfaceAdapter ia, int dtoQlen, int connQlen, int bufSize) {
            this.ia = ia;
            pz = ia.createPz();
            dto = ia.createEvd(dtoQlen, null, EnumSet.of(EvdFlag.DTO, EvdFlag.RMR_BIND));
            conn = ia.createEvd(connQlen, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            buf = ByteBuffer.allocateDirect(bufSize);
            lmr = ia.createLmr(new RegionDescription.Virtual(buf), pz, MemoryPrivilege.all());
        }

        /** An endpoint on this side's PZ and EVDs with {@code attrs} (null: the provider's defaults). */
        Endpoint ep(EpAttributes attrs) {
            return ia.createEndpoint(pz, dto, dto, conn, attrs);
        }

        Endpoint ep() {
            return ep(null);
        }

        /** {@code len} bytes of the LMR from {@code offset}. */
        List<LmrTriplet> iov(int offset, int len) {
            return ObjectFixtures.seg(lmr, offset, len);
        }

        /** {@code len} bytes of the LMR from {@code offset}, for a remote peer. */
        RmrTriplet remote(int offset, int len) {
            return ObjectFixtures.remote(lmr, offset, len);
        }

        SocketAddress address() {
            return ia.query().iaAttributes().iaAddress();
        }
    }

    final Mode mode;
    final String fabric;
    final Side a;
    final Side b;
    private int nextQual = 1000;

    private DatPair(Mode mode, String options) {
        this.mode = mode;
        this.fabric = "pair" + FABRICS.incrementAndGet();
        String opts = options.isEmpty() ? mode.options : mode.options + "&" + options;
        Side sa = null;
        try {
            sa = new Side("sim:" + fabric + "/a?" + opts);
            this.a = sa;
            this.b = new Side("sim:" + fabric + "/b?" + opts);
        } catch (RuntimeException e) {
            if (sa != null) {
                sa.ia.close(CloseFlag.ABRUPT);
            }
            throw e;
        }
    }

    static DatPair open(Mode mode) {
        return new DatPair(mode, "");
    }

    /** A pair whose IA names carry extra options (device limits: {@code maxQp=4&maxCqe=16}). */
    static DatPair open(Mode mode, String options) {
        return new DatPair(mode, options);
    }

    /** A connection qualifier no other service point of this pair uses. */
    int qual() {
        return nextQual++;
    }

    /**
     * Connects {@code active} (on {@link #a}) to {@code passive} (on {@link #b}) through a consumer PSP,
     * with the given private data both ways, and waits for ESTABLISHED on both sides.
     */
    void connect(Endpoint active, Endpoint passive, byte[] requestData, byte[] acceptData) {
        connect(a, active, b, passive, qual(), requestData, acceptData);
    }

    void connect(Endpoint active, Endpoint passive) {
        connect(active, passive, null, null);
    }

    /**
     * Connects {@code active} of side {@code sa} to {@code passive} of side {@code sb} through a consumer
     * PSP of qualifier {@code qual}, with the given private data both ways; waits for ESTABLISHED on both sides.
     */
    static void connect(
            Side sa, Endpoint active, Side sb, Endpoint passive, int qual, byte[] requestData, byte[] acceptData) {
        PublicServicePoint psp = sb.ia.createPsp(qual, sb.conn, PspFlag.CONSUMER);
        try {
            active.connect(sb.address(), qual, WAIT, requestData, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
            ConnectionRequestEvent req = next(sb.conn, ConnectionRequestEvent.class);
            req.cr().accept(passive, acceptData);
            expectConnection(sa.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            expectConnection(sb.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        } finally {
            psp.free();
        }
    }

    /** Waits for the next event of {@code evd}; fails after the deadline. */
    static DatEvent next(EventDispatcher evd) {
        EvdWaitResult r = evd.waitForEvent(WAIT, 1);
        if (r.event().isEmpty()) {
            fail("no event on " + evd + " within " + WAIT + ": " + r);
        }
        return r.event().get();
    }

    static <T extends DatEvent> T next(EventDispatcher evd, Class<T> type) {
        DatEvent e = next(evd);
        if (!type.isInstance(e)) {
            fail("expected a " + type.getSimpleName() + ", got " + e);
        }
        return type.cast(e);
    }

    static ConnectionEvent expectConnection(EventDispatcher evd, EventNumber number) {
        ConnectionEvent e = next(evd, ConnectionEvent.class);
        assertEquals(number, e.eventNumber(), () -> "connection event " + e);
        return e;
    }

    /** Asserts {@code call} fails with exactly {@code type} and {@code subtype}. */
    static DatException assertDat(DatReturnType type, DatReturnSubtype subtype, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), () -> "return type of " + e);
        assertEquals(subtype, e.subtype(), () -> "return subtype of " + e);
        return e;
    }

    /** Asserts {@code call} fails with exactly {@code type}, whatever the subtype. */
    static DatException assertDat(DatReturnType type, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), () -> "return type of " + e);
        return e;
    }

    static EnumSet<CompletionFlag> flags(CompletionFlag... f) {
        EnumSet<CompletionFlag> s = EnumSet.noneOf(CompletionFlag.class);
        s.addAll(List.of(f));
        return s;
    }

    @Override
    public void close() {
        try {
            a.ia.close(CloseFlag.ABRUPT);
        } finally {
            b.ia.close(CloseFlag.ABRUPT);
        }
    }
}
