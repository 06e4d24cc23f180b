package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.DatEvent;
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
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * The client side of {@code simrdma ping}: connects to an {@link EchoNode}, sends messages and
 * checks each echo, then writes into the node's region with RDMA WRITE and reads it back with
 * RDMA READ, checking every byte. A long run prints its progress every {@link #PROGRESS_NANOS}
 * (unless quiet); a stop request (Ctrl-C, SIGTERM) ends the messages, disconnects and reports
 * what was done.
 */
final class PingClient {

    /** What the client does. */
    record Plan(
            SocketAddress node,
            long qualifier,
            int count,
            int size,
            int rdmaSize,
            long seed,
            Timeout timeout,
            int rdmaRounds) {

        /** One RDMA WRITE and one READ. */
        Plan(SocketAddress node, long qualifier, int count, int size, int rdmaSize, long seed, Timeout timeout) {
            this(node, qualifier, count, size, rdmaSize, seed, timeout, 1);
        }
    }

    /**
     * What it measured; {@code stopped} if a stop request ended it early (no RDMA then).
     * {@code rttNanos} holds every round trip, or for runs over {@link #MAX_SAMPLES} a uniform
     * sample of them (reservoir sampling), so a run of any length uses bounded memory;
     * {@code minRttNanos} and {@code maxRttNanos} are exact.
     */
    record Result(
            int roundTrips,
            long[] rttNanos,
            long minRttNanos,
            long maxRttNanos,
            int rdmaBytes,
            long writeNanos,
            long readNanos,
            boolean stopped,
            int planned) {}

    /** Round-trip times kept for the percentiles. */
    static final int MAX_SAMPLES = 1 << 20;

    /** How often a long run says how far it got. */
    static final long PROGRESS_NANOS = 2_000_000_000L;

    private static final long SEND = 1;
    private static final long RECV = 2;
    private static final long WRITE = 3;
    private static final long READ = 4;

    private final InterfaceAdapter ia;
    private final PrintWriter out;
    private final boolean quiet;
    private final BooleanSupplier stop;

    PingClient(InterfaceAdapter ia, PrintWriter out) {
        this(ia, out, false, () -> false);
    }

    /** With {@code quiet}, no progress lines; {@code stop} is asked between messages. */
    PingClient(InterfaceAdapter ia, PrintWriter out, boolean quiet, BooleanSupplier stop) {
        this.ia = ia;
        this.out = out;
        this.quiet = quiet;
        this.stop = stop;
    }

    /** Runs the plan; a wrong echo, a failed transfer or a missing event throws {@link PingFailure}. */
    Result run(Plan plan) {
        ProtectionZone pz = ia.createPz();
        EventDispatcher conn = ia.createEvd(8, null, EnumSet.of(EvdFlag.CONNECTION));
        EventDispatcher dto = ia.createEvd(64, null, EnumSet.of(EvdFlag.DTO));
        ByteBuffer msgs = ByteBuffer.allocateDirect(2 * plan.size());
        ByteBuffer data = ByteBuffer.allocateDirect(2 * plan.rdmaSize());
        LocalMemoryRegion msgLmr = ia.createLmr(
                new RegionDescription.Virtual(msgs),
                pz,
                EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE));
        LocalMemoryRegion dataLmr = ia.createLmr(
                new RegionDescription.Virtual(data),
                pz,
                EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE));
        Endpoint ep = ia.createEndpoint(pz, dto, dto, conn, null);
        try {
            List<LmrTriplet> sendIov = iov(msgLmr, 0, plan.size());
            List<LmrTriplet> recvIov = iov(msgLmr, plan.size(), plan.size());
            ep.postRecv(recvIov, RECV, CompletionFlag.defaults());
            ep.connect(
                    plan.node(),
                    plan.qualifier(),
                    plan.timeout(),
                    null,
                    Qos.BEST_EFFORT,
                    EnumSet.noneOf(ConnectFlag.class));
            // dat_ep_connect(3DAT) ends with an event of its own by its timeout: wait a little longer than that
            Timeout connectWait = Timeout.ofMillis(
                    Math.min(Timeout.INFINITE_MICROS / 1000 - 1, plan.timeout().micros() / 1000 + 5000));
            ConnectionEvent est =
                    next(conn, ConnectionEvent.class, connectWait, "the connection to " + Human.address(plan.node()));
            check(
                    est.eventNumber() == EventNumber.CONNECTION_EVENT_ESTABLISHED,
                    "cannot connect to the node at " + Human.address(plan.node()) + " (qualifier " + plan.qualifier()
                            + "): " + Human.connectionEnd(est));
            EchoNode.RegionInfo region = EchoNode.RegionInfo.decode(est.privateData());
            check(
                    region.length() >= plan.rdmaSize(),
                    "the node offers " + region.length() + " bytes, not " + plan.rdmaSize());
            if (!quiet) {
                out.printf(
                        "connected to %s (qualifier %d); the node offers a %d-byte region%n",
                        Human.address(plan.node()), plan.qualifier(), region.length());
                out.flush();
            }

            SplittableRandom random = new SplittableRandom(plan.seed());
            long[] rtt = new long[Math.min(plan.count(), MAX_SAMPLES)];
            SplittableRandom reservoir = new SplittableRandom(plan.seed() ^ 0x5DEECE66DL);
            long min = Long.MAX_VALUE;
            long max = 0;
            byte[] sent = new byte[plan.size()];
            byte[] echoed = new byte[plan.size()];
            long lastProgress = System.nanoTime();
            int done = 0;
            for (int i = 0; i < plan.count(); i++) {
                if (stop.getAsBoolean()) {
                    break;
                }
                if (!quiet && System.nanoTime() - lastProgress >= PROGRESS_NANOS) {
                    lastProgress = System.nanoTime();
                    out.printf("... %d of %d round trips (%.0f%%)%n", i, plan.count(), 100.0 * i / plan.count());
                    out.flush();
                }
                random.nextBytes(sent);
                msgs.put(0, sent);
                long t0 = System.nanoTime();
                ep.postSend(sendIov, SEND, CompletionFlag.defaults());
                boolean sendDone = false;
                boolean echo = false;
                while (!sendDone || !echo) {
                    DtoCompletionEvent d =
                            next(dto, DtoCompletionEvent.class, plan.timeout(), "the echo of message " + i);
                    check(d.status() == DtoCompletionStatus.SUCCESS, "message " + i + ": " + Human.status(d.status()));
                    sendDone |= d.userCookie() == SEND;
                    if (d.userCookie() == RECV) {
                        check(
                                d.transferredLength() == plan.size(),
                                "echo " + i + " has " + d.transferredLength() + " bytes");
                        echo = true;
                    }
                }
                long took = System.nanoTime() - t0;
                min = Math.min(min, took);
                max = Math.max(max, took);
                if (i < rtt.length) {
                    rtt[i] = took;
                } else {
                    long j = reservoir.nextLong(i + 1L); // keeps each round trip with probability MAX_SAMPLES / (i + 1)
                    if (j < rtt.length) {
                        rtt[(int) j] = took;
                    }
                }
                msgs.get(plan.size(), echoed);
                check(Arrays.equals(sent, echoed), "echo " + i + " differs from the message");
                ep.postRecv(recvIov, RECV, CompletionFlag.defaults());
                done++;
            }
            if (done < plan.count()) {
                ep.disconnect(CloseFlag.GRACEFUL);
                next(conn, ConnectionEvent.class, plan.timeout(), "the disconnect");
                return new Result(
                        done, Arrays.copyOf(rtt, Math.min(done, rtt.length)), min, max, 0, 0, 0, true, plan.count());
            }

            byte[] block = new byte[plan.rdmaSize()];
            random.nextBytes(block);
            data.put(0, block);
            RmrTriplet remote = new RmrTriplet(region.rmrContext(), region.address(), plan.rdmaSize());
            long t0 = System.nanoTime();
            for (int round = 0; round < plan.rdmaRounds(); round++) {
                ep.postRdmaWrite(iov(dataLmr, 0, plan.rdmaSize()), WRITE, remote, CompletionFlag.defaults());
                expectDone(dto, WRITE, plan.timeout(), "the RDMA WRITE");
            }
            long t1 = System.nanoTime();
            for (int round = 0; round < plan.rdmaRounds(); round++) {
                ep.postRdmaRead(
                        iov(dataLmr, plan.rdmaSize(), plan.rdmaSize()), READ, remote, CompletionFlag.defaults());
                expectDone(dto, READ, plan.timeout(), "the RDMA READ");
            }
            long t2 = System.nanoTime();
            byte[] back = new byte[plan.rdmaSize()];
            data.get(plan.rdmaSize(), back);
            check(Arrays.equals(block, back), "the RDMA READ did not return what the RDMA WRITE wrote");

            ep.disconnect(CloseFlag.GRACEFUL);
            ConnectionEvent bye = next(conn, ConnectionEvent.class, plan.timeout(), "the disconnect");
            check(
                    bye.eventNumber() == EventNumber.CONNECTION_EVENT_DISCONNECTED,
                    "the disconnect ended: " + Human.connectionEnd(bye));
            return new Result(plan.count(), rtt, min, max, plan.rdmaSize(), t1 - t0, t2 - t1, false, plan.count());
        } finally {
            ep.free();
            msgLmr.free();
            dataLmr.free();
            dto.free();
            conn.free();
            pz.free();
        }
    }

    /** Prints a result: round-trip percentiles and RDMA rates. */
    static void report(Result r, int size, PrintWriter out) {
        long[] s = r.rttNanos().clone();
        Arrays.sort(s);
        if (s.length > 0) {
            out.printf(
                    "%d round trips of %d bytes, every echo verified: min %.1f us, median %.1f us, p99 %.1f us, max %.1f us%n",
                    r.roundTrips(),
                    size,
                    r.minRttNanos() / 1e3,
                    s[s.length / 2] / 1e3,
                    s[Math.min(s.length - 1, (int) (s.length * 0.99))] / 1e3,
                    r.maxRttNanos() / 1e3);
        }
        if (r.stopped()) {
            out.printf("stopped (signal) after %d of %d round trips; disconnected%n", r.roundTrips(), r.planned());
        } else {
            out.printf(
                    "RDMA WRITE of %d bytes in %.1f us, RDMA READ back in %.1f us; every byte verified%n",
                    r.rdmaBytes(), r.writeNanos() / 1e3, r.readNanos() / 1e3);
        }
        out.flush();
    }

    private static List<LmrTriplet> iov(LocalMemoryRegion lmr, long offset, int len) {
        return List.of(new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() + offset, len));
    }

    private static void expectDone(EventDispatcher dto, long cookie, Timeout timeout, String what) {
        DtoCompletionEvent d = next(dto, DtoCompletionEvent.class, timeout, what);
        check(
                d.userCookie() == cookie && d.status() == DtoCompletionStatus.SUCCESS,
                what + " ended: " + Human.status(d.status()));
    }

    private static <T extends DatEvent> T next(EventDispatcher evd, Class<T> type, Timeout timeout, String what) {
        EvdWaitResult r = evd.waitForEvent(timeout, 1);
        check(
                r.event().isPresent(),
                "no answer for " + what + " within " + Human.duration(timeout)
                        + " (is the node running? --timeout waits longer)");
        DatEvent e = r.event().get();
        check(type.isInstance(e), "while waiting for " + what + ": unexpected " + e);
        return type.cast(e);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new PingFailure(what);
        }
    }

    /** A check of the ping failed. */
    static final class PingFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PingFailure(String message) {
            super(message);
        }
    }
}
