package io.simrdma.tools.perf;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import io.simrdma.dat.Timeout;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code simrdma perf connect-scale}: connects DAT endpoint pairs in one JVM on a deterministic
 * fabric, one after the other (dat_ep_create, dat_ep_connect, dat_cr_accept with an endpoint
 * created for it, both ESTABLISHED events), all endpoints of an IA sharing one DTO EVD and one
 * connection EVD, with the provider's default endpoint attributes and no memory registered. It
 * reports the time per pair for each thousand pairs, so that a cost growing with the endpoints
 * already connected shows, and the heap per pair (used heap after a full GC, before and after). It
 * stops at the first refusal and names it: that is the limit.
 *
 * <p>Thread safety: one run at a time.
 */
final class ConnectScale {

    private static final long QUALIFIER = 4791;
    private static final int STEP = 1000;
    private static final Timeout WAIT = Timeout.ofMillis(60_000);
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final int pairs;
    private final int ias;
    private final PrintWriter out;
    private final boolean json;

    ConnectScale(int pairs, int ias, PrintWriter out, boolean json) {
        this.pairs = pairs;
        this.ias = ias;
        this.out = out;
        this.json = json;
    }

    /** One client IA with its shared objects. */
    private record Client(InterfaceAdapter ia, ProtectionZone pz, EventDispatcher dto, EventDispatcher conn) {}

    void run() {
        String fabric = "scale-" + RUNS.incrementAndGet();
        int perClient = (pairs + ias - 1) / ias;
        String limits = "maxQp=" + (pairs + 64) + "&maxCq=64";
        InterfaceAdapter server = DatSide.open("sim:" + fabric + "/server?seed=1&" + limits);
        List<Client> clients = new ArrayList<>();
        List<long[]> steps = new ArrayList<>();
        int connected = 0;
        String stop = null;
        long heapBefore;
        long heapAfter;
        long start;
        long total;
        try {
            ProtectionZone spz = server.createPz();
            EventDispatcher sdto = server.createEvd(64, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher sconn = server.createEvd(64, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            server.createPsp(QUALIFIER, sconn, PspFlag.CONSUMER);
            SocketAddress addr = server.query().iaAttributes().iaAddress();
            for (int i = 0; i < ias; i++) {
                InterfaceAdapter ia =
                        DatSide.open("sim:" + fabric + "/client" + i + "?maxQp=" + (perClient + 64) + "&maxCq=64");
                clients.add(new Client(
                        ia,
                        ia.createPz(),
                        ia.createEvd(64, null, EnumSet.of(EvdFlag.DTO)),
                        ia.createEvd(64, null, EnumSet.of(EvdFlag.CONNECTION))));
            }
            heapBefore = usedHeap();
            if (!json) {
                out.println(" connect-scale: DAT endpoint pairs on a deterministic fabric, " + ias + " client IA(s)");
                out.println(" #pairs   ms/pair(last " + STEP + ")  seconds");
                out.flush();
            }
            start = System.nanoTime();
            long stepStart = start;
            for (int p = 0; p < pairs; p++) {
                Client c = clients.get(p % ias);
                try {
                    Endpoint cep = c.ia().createEndpoint(c.pz(), c.dto(), c.dto(), c.conn(), null);
                    cep.connect(addr, QUALIFIER, WAIT, null, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
                    Endpoint sep = server.createEndpoint(spz, sdto, sdto, sconn, null);
                    sconn.waitForEvent(WAIT, 1)
                            .event()
                            .orElseThrow(() -> new PerfFailure("no connection request"))
                            .asConnectionRequest()
                            .cr()
                            .accept(sep, null);
                    established(c.conn(), cep);
                    established(sconn, sep);
                } catch (DatException | PerfFailure e) {
                    stop = "pair " + (p + 1) + " refused: " + e.getMessage();
                    break;
                }
                connected++;
                if (connected % STEP == 0) {
                    long now = System.nanoTime();
                    steps.add(new long[] {connected, now - stepStart});
                    if (!json) {
                        out.printf(
                                Locale.ROOT,
                                " %-8d %-16.3f %-10.1f%n",
                                connected,
                                (now - stepStart) / 1e6 / STEP,
                                (now - start) / 1e9);
                        out.flush();
                    }
                    stepStart = now;
                }
            }
            total = System.nanoTime() - start;
            heapAfter = usedHeap();
        } finally {
            for (Client c : clients) {
                c.ia().close(CloseFlag.ABRUPT);
            }
            server.close(CloseFlag.ABRUPT);
        }
        double perPair = connected == 0 ? 0 : (heapAfter - heapBefore) / (double) connected;
        if (json) {
            StringBuilder b = new StringBuilder("{\n  \"test\": \"connect-scale\",\n  \"pairs\": ")
                    .append(pairs)
                    .append(",\n  \"clientIas\": ")
                    .append(ias)
                    .append(",\n  \"connected\": ")
                    .append(connected)
                    .append(",\n  \"seconds\": ")
                    .append(String.format(Locale.ROOT, "%.3f", total / 1e9))
                    .append(",\n  \"heapBytesPerPair\": ")
                    .append(String.format(Locale.ROOT, "%.0f", perPair))
                    .append(",\n  \"stoppedBy\": ")
                    .append(stop == null ? "null" : Report.str(stop))
                    .append(",\n  \"msPerPairBySteps\": [");
            for (int i = 0; i < steps.size(); i++) {
                b.append(i == 0 ? "" : ", ")
                        .append(String.format(
                                Locale.ROOT,
                                "{\"pairs\": %d, \"msPerPair\": %.4f}",
                                steps.get(i)[0],
                                steps.get(i)[1] / 1e6 / STEP));
            }
            out.println(b.append("]\n}"));
        } else {
            out.printf(
                    Locale.ROOT,
                    " connected %d of %d pairs (%d endpoints) over %d client IA(s) and 1 server IA in %.1f s%n",
                    connected,
                    pairs,
                    2 * connected,
                    ias,
                    total / 1e9);
            out.printf(
                    Locale.ROOT,
                    " heap per pair: %.1f KiB (used heap after a full GC, before and after; no memory registered)%n",
                    perPair / 1024);
            if (stop != null) {
                out.println(" stopped: " + stop);
            }
        }
        out.flush();
    }

    private static void established(EventDispatcher evd, Endpoint ep) {
        ConnectionEvent e = evd.waitForEvent(WAIT, 1)
                .event()
                .orElseThrow(() -> new PerfFailure("no connection event"))
                .asConnectionEvent();
        if (e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED || e.ep() != ep) {
            throw new PerfFailure("expected ESTABLISHED, got " + e.eventNumber());
        }
    }

    /** Used heap after a full collection (System.gc twice, as the JVM may defer finalization). */
    static long usedHeap() {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        System.gc();
        System.gc();
        return m.getHeapMemoryUsage().getUsed();
    }
}
