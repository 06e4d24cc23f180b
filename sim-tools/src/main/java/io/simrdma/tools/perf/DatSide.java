package io.simrdma.tools.perf;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.EventSlot;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A test side on the DAT 1.2 layer, through the registry (dat_ia_open with a {@code sim:} or
 * {@code simtcp:} name): one IA with a PZ, a request EVD, a receive EVD and a connection EVD shared
 * by its endpoints, two LMRs per endpoint. Endpoints connect through a PSP (dat_psp_create,
 * dat_ep_connect, dat_cr_accept). Unsignalled requests are posted with
 * DAT_COMPLETION_SUPPRESS_FLAG, signalled ones with the default flags; polls are dat_evd_dequeue into a reused
 * {@link EventSlot}. With {@link PerfSettings#events()} an empty dequeue is followed by dat_evd_wait for
 * one event (perftest's -e), which sleeps until it comes.
 *
 * <p>DAT 1.2 posts one DTO per call and has no atomics and no inline data: a post list is that many
 * calls, and {@code atomic-lat} and {@code --inline} are verbs only.
 *
 * <p>Thread safety: not thread-safe; one thread drives a side.
 */
final class DatSide extends PerfSide {

    /** The connection qualifier the server's PSP listens on (perftest's default port). */
    static final long QUALIFIER = 18515;

    private static final Timeout CONNECT_TIMEOUT = Timeout.ofMillis(20_000);
    private static final Timeout EVENT_WAIT = Timeout.ofMillis(VerbsSide.EVENT_WAIT_MS);
    private static final Set<CompletionFlag> SIGNALLED = EnumSet.noneOf(CompletionFlag.class);
    private static final Set<CompletionFlag> SUPPRESSED = EnumSet.of(CompletionFlag.SUPPRESS);

    private final InterfaceAdapter ia;
    private final ProtectionZone pz;
    private final EventDispatcher reqEvd;
    private final EventDispatcher recvEvd;
    private final EventDispatcher connEvd;
    /** Reused by the request and receive polls (dat_evd_dequeue into caller storage: no allocation per completion). */
    private final EventSlot reqSlot = new EventSlot();

    private final EventSlot recvSlot = new EventSlot();
    private final Endpoint[] ep;
    private final LocalMemoryRegion[] srcLmr;
    private final LocalMemoryRegion[] dstLmr;
    private final ByteBuffer[] src;
    private final ByteBuffer[] dst;
    private final Remote[] remote;
    private final List<List<LmrTriplet>> srcIov = new ArrayList<>();
    /** Receives take whole buffers, so those left posted from one size fit the next. */
    private final List<List<LmrTriplet>> recvIov = new ArrayList<>();

    private final RmrTriplet[] rmr;
    private final boolean events;
    private PerfTest.Verb verb;

    /** Creates the side's objects on the opened {@code ia}, which the side now owns (and closes). */
    DatSide(InterfaceAdapter ia, PerfSettings s) {
        this.ia = ia;
        this.events = s.events();
        int n = s.qps();
        try {
            pz = ia.createPz();
            reqEvd = ia.createEvd(n * s.sendQueueDepth(), null, EnumSet.of(EvdFlag.DTO));
            recvEvd = ia.createEvd(n * Math.max(1, s.rxDepth()), null, EnumSet.of(EvdFlag.DTO));
            connEvd = ia.createEvd(2 * n + 8, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            long maxSize = Math.max(1 << 20, s.maxSize());
            EpAttributes attrs = EpAttributes.builder()
                    .maxMessageSize(maxSize)
                    .maxRdmaSize(maxSize)
                    .maxRequestDtos(s.sendQueueDepth())
                    .maxRecvDtos(Math.max(1, s.rxDepth()))
                    .maxRequestIov(1)
                    .maxRecvIov(1)
                    .maxRdmaReadIov(1)
                    .maxRdmaWriteIov(1)
                    .maxRdmaReadIn(VerbsSide.OUT_READS)
                    .maxRdmaReadOut(VerbsSide.OUT_READS)
                    .build();
            ep = new Endpoint[n];
            srcLmr = new LocalMemoryRegion[n];
            dstLmr = new LocalMemoryRegion[n];
            src = new ByteBuffer[n];
            dst = new ByteBuffer[n];
            remote = new Remote[n];
            rmr = new RmrTriplet[n];
            for (int q = 0; q < n; q++) {
                ep[q] = ia.createEndpoint(pz, recvEvd, reqEvd, connEvd, attrs);
                src[q] = ByteBuffer.allocateDirect(s.maxSize());
                dst[q] = ByteBuffer.allocateDirect(s.maxSize());
                srcLmr[q] = ia.createLmr(new RegionDescription.Virtual(src[q]), pz, MemoryPrivilege.all());
                dstLmr[q] = ia.createLmr(new RegionDescription.Virtual(dst[q]), pz, MemoryPrivilege.all());
                srcIov.add(List.of());
                recvIov.add(
                        List.of(new LmrTriplet(dstLmr[q].lmrContext(), dstLmr[q].registeredAddress(), s.maxSize())));
            }
        } catch (RuntimeException e) {
            ia.close(CloseFlag.ABRUPT);
            throw e;
        }
    }

    /** Two sides on IAs {@code client} and {@code server} of one fabric, connected endpoint by endpoint on one thread. */
    static DatSide[] pair(InterfaceAdapter client, InterfaceAdapter server, PerfSettings s) {
        DatSide x = new DatSide(client, s);
        DatSide y;
        try {
            y = new DatSide(server, s);
        } catch (RuntimeException e) {
            x.close();
            throw e;
        }
        try {
            y.listen();
            for (int q = 0; q < s.qps(); q++) {
                x.connect(q, y.address());
                y.accept(q);
                x.awaitEstablished(q);
            }
            x.setRemotes(y.remotes());
            y.setRemotes(x.remotes());
            return new DatSide[] {x, y};
        } catch (RuntimeException e) {
            x.close();
            y.close();
            throw e;
        }
    }

    /** The IA's address (dat_ia_query's ia_address_ptr), for the peer's dat_ep_connect. */
    SocketAddress address() {
        return ia.query().iaAttributes().iaAddress();
    }

    /** Creates the PSP the peer connects to (dat_psp_create). */
    void listen() {
        ia.createPsp(QUALIFIER, connEvd, PspFlag.CONSUMER);
    }

    /** Starts connecting endpoint {@code q} to the server at {@code server} (dat_ep_connect). */
    void connect(int q, SocketAddress server) {
        ep[q].connect(server, QUALIFIER, CONNECT_TIMEOUT, null, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
    }

    /** Waits for the next connection request and accepts it on endpoint {@code q}, then for its establishment. */
    void accept(int q) {
        next().asConnectionRequest().cr().accept(ep[q], null);
        awaitEstablished(q);
    }

    /** Waits until endpoint {@code q} is connected (DAT_CONNECTION_EVENT_ESTABLISHED). */
    void awaitEstablished(int q) {
        ConnectionEvent e = next().asConnectionEvent();
        if (e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED || e.ep() != ep[q]) {
            throw new PerfFailure("endpoint " + q + " did not connect: " + e.eventNumber());
        }
    }

    private DatEvent next() {
        EvdWaitResult r = connEvd.waitForEvent(CONNECT_TIMEOUT, 1);
        return r.event().orElseThrow(() -> new PerfFailure("no connection event within " + CONNECT_TIMEOUT));
    }

    /** Where the peer may write and read: each endpoint's destination LMR. */
    List<Remote> remotes() {
        List<Remote> l = new ArrayList<>();
        for (LocalMemoryRegion lmr : dstLmr) {
            l.add(new Remote(lmr.registeredAddress(), lmr.rmrContext().orElseThrow()));
        }
        return l;
    }

    /** Notes the peer's buffers, endpoint by endpoint. */
    void setRemotes(List<Remote> peer) {
        for (int q = 0; q < remote.length; q++) {
            remote[q] = peer.get(q);
        }
    }

    @Override
    int qps() {
        return ep.length;
    }

    @Override
    PerfSettings.Layer layer() {
        return PerfSettings.Layer.DAT;
    }

    @Override
    void prepare(PerfTest.Verb v, int size) {
        if (v == PerfTest.Verb.ATOMIC) {
            throw new PerfFailure("DAT 1.2 has no atomic operations: atomic-lat runs on the verbs layer");
        }
        this.verb = v;
        for (int q = 0; q < ep.length; q++) {
            srcIov.set(q, List.of(new LmrTriplet(srcLmr[q].lmrContext(), srcLmr[q].registeredAddress(), size)));
            if (remote[q] != null) {
                rmr[q] = new RmrTriplet(remote[q].rkey(), remote[q].addr(), size);
            }
        }
    }

    @Override
    void post(int q, long first, int n, int cqMod, long last) {
        Endpoint e = ep[q];
        List<LmrTriplet> iov = srcIov.get(q);
        for (int i = 0; i < n; i++) {
            long s = first + i;
            Set<CompletionFlag> f = signalled(s, cqMod, last) ? SIGNALLED : SUPPRESSED;
            switch (verb) {
                case WRITE -> e.postRdmaWrite(iov, tag(q, s), rmr[q], f);
                case READ -> e.postRdmaRead(iov, tag(q, s), rmr[q], f);
                case SEND -> e.postSend(iov, tag(q, s), f);
                default -> throw new IllegalStateException(verb.name());
            }
        }
    }

    @Override
    void postRecv(int q, int n) {
        for (int i = 0; i < n; i++) {
            ep[q].postRecv(recvIov.get(q), q, SIGNALLED);
        }
    }

    @Override
    int pollRequests(long[] seqs) {
        int n = 0;
        while (n < seqs.length && reqEvd.dequeue(reqSlot)) {
            seqs[n++] = check(reqSlot);
        }
        if (n == 0 && events) {
            if (sleep(reqEvd, reqSlot)) {
                seqs[n++] = check(reqSlot);
            }
        }
        return n;
    }

    @Override
    int pollRecvs(int[] qps) {
        int n = 0;
        while (n < qps.length && recvEvd.dequeue(recvSlot)) {
            qps[n++] = (int) check(recvSlot);
        }
        if (n == 0 && events) {
            if (sleep(recvEvd, recvSlot)) {
                qps[n++] = (int) check(recvSlot);
            }
        }
        return n;
    }

    /**
     * dat_evd_wait(3DAT) for one event for at most {@link VerbsSide#EVENT_WAIT_MS}, put into {@code into};
     * false after a timeout (the loop's stall check runs between waits).
     */
    private static boolean sleep(EventDispatcher evd, EventSlot into) {
        EvdWaitResult r = evd.waitForEvent(EVENT_WAIT, 1);
        if (r.status() != DatReturnType.SUCCESS) {
            return false;
        }
        into.set(r.event().orElseThrow());
        return true;
    }

    /** The cookie of the successful DTO completion in {@code e}. */
    private static long check(EventSlot e) {
        if (!e.isDtoCompletion()) {
            throw new PerfFailure("not a DTO completion: " + e);
        }
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new PerfFailure("DTO completion with an error: " + e.status() + " (cookie " + e.userCookie() + ")");
        }
        return e.userCookie();
    }

    @Override
    ByteBuffer src(int q) {
        return src[q];
    }

    @Override
    ByteBuffer dst(int q) {
        return dst[q];
    }

    @Override
    public void close() {
        ia.close(CloseFlag.ABRUPT);
    }

    /** Opens an IA by name (dat_ia_open). */
    static InterfaceAdapter open(String name) {
        return Dat.openIa(name, 64);
    }
}
