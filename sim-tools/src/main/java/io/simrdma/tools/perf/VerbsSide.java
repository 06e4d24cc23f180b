package io.simrdma.tools.perf;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionChannel;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test side on the verbs layer (ibv_* in Java): one PD, a send CQ and a receive CQ shared by its
 * RC QPs, two registered buffers per QP. Posts reuse prebuilt work requests, chained for a post
 * list (ibv_post_send(3) with a list, as perftest's -l), and polls reuse one completion array, so
 * the measuring loop allocates nothing. With {@link PerfSettings#events()} each CQ reports to a
 * completion channel of its own and an empty poll sleeps on it (perftest's -e: ibv_req_notify_cq(3),
 * ibv_get_cq_event(3)).
 *
 * <p>Thread safety: not thread-safe; one thread drives a side.
 */
final class VerbsSide extends PerfSide {

    private static final EnumSet<AccessFlag> ACCESS = EnumSet.of(
            AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    /** RDMA READs and atomics outstanding per QP, each way: perftest's default for recent HCAs. */
    static final int OUT_READS = 16;
    /** Longest sleep on a completion channel before the loop looks again (its stall check runs between). */
    static final long EVENT_WAIT_MS = 100;

    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    /** The CQs' completion channels with {@link PerfSettings#events()}, else null. */
    private final CompletionChannel sendChannel;

    private final CompletionChannel recvChannel;
    private final QueuePair[] qp;
    private final MemoryRegion[] srcMr;
    private final MemoryRegion[] dstMr;
    private final ByteBuffer[] src;
    private final ByteBuffer[] dst;
    private final Remote[] remote;
    private final SendWr[][] chain;
    private final RecvWr[] recvWr;
    private final WorkCompletion[] wc = WorkCompletion.array(64);
    private final int inline;
    private int baseFlags;

    /** Creates the side's objects on {@code device}, its QPs in RESET; {@link #connect} connects them. */
    VerbsSide(Device device, PerfSettings s) {
        this.inline = s.inline();
        int n = s.qps();
        pd = device.allocPd();
        if (s.events()) {
            sendChannel = device.createCompletionChannel();
            recvChannel = device.createCompletionChannel();
            sendCq = device.createCq(n * s.sendQueueDepth(), sendChannel, null);
            recvCq = device.createCq(n * Math.max(1, s.rxDepth()), recvChannel, null);
        } else {
            sendChannel = null;
            recvChannel = null;
            sendCq = device.createCq(n * s.sendQueueDepth());
            recvCq = device.createCq(n * Math.max(1, s.rxDepth()));
        }
        qp = new QueuePair[n];
        srcMr = new MemoryRegion[n];
        dstMr = new MemoryRegion[n];
        src = new ByteBuffer[n];
        dst = new ByteBuffer[n];
        remote = new Remote[n];
        chain = new SendWr[n][s.postList()];
        recvWr = new RecvWr[n];
        QpCaps caps = new QpCaps(s.sendQueueDepth(), Math.max(1, s.rxDepth()), 1, 1, s.inline());
        for (int q = 0; q < n; q++) {
            qp[q] = pd.createQp(QpInitAttr.rc(sendCq, recvCq).caps(caps));
            src[q] = ByteBuffer.allocateDirect(s.maxSize());
            dst[q] = ByteBuffer.allocateDirect(s.maxSize());
            srcMr[q] = pd.registerMemory(src[q], ACCESS);
            dstMr[q] = pd.registerMemory(dst[q], ACCESS);
            for (int i = 0; i < s.postList(); i++) {
                chain[q][i] = new SendWr();
            }
            // Receives take whole buffers, so those left posted from one size fit the next.
            recvWr[q] = new RecvWr().wrId(q).sge(dstMr[q], 0, s.maxSize());
        }
    }

    /**
     * Two sides on devices {@code a} and {@code b} of one fabric, connected QP by QP; {@code realTime}
     * (a threaded fabric) takes the longer ACK timeout of {@link #options}.
     */
    static VerbsSide[] pair(Device a, Device b, PerfSettings s, boolean realTime) {
        VerbsSide x = new VerbsSide(a, s);
        VerbsSide y;
        try {
            y = new VerbsSide(b, s);
        } catch (RuntimeException e) {
            x.close();
            throw e;
        }
        try {
            List<RcConnect.Endpoint> ex = x.endpoints();
            List<RcConnect.Endpoint> ey = y.endpoints();
            x.connect(ex, ey, y.remotes(), options(realTime));
            y.connect(ey, ex, x.remotes(), options(realTime));
            return new VerbsSide[] {x, y};
        } catch (RuntimeException e) {
            x.close();
            y.close();
            throw e;
        }
    }

    /**
     * RcConnect's attributes with the path MTU of the port (4096, as perftest takes the port's active
     * MTU), 16 READs/atomics outstanding; in real time (threaded, TCP) the ACK timeout of a TCP node
     * (exponent 17: 537 ms, 4.3 s with the retries), since on a loaded machine the busy-polling
     * measuring threads can keep a device thread off the CPU for longer than the in-process 67 ms x 8
     * (a run then failed with retries exhausted).
     */
    static RcConnect.Options options(boolean realTime) {
        RcConnect.Options o =
                RcConnect.Options.defaults().withPathMtu(Mtu.MTU_4096).withRdAtomic(OUT_READS);
        return realTime ? o.withTimeout(17) : o;
    }

    /** What the peer needs to connect to each QP (GID, QPN, first PSN). */
    List<RcConnect.Endpoint> endpoints() {
        List<RcConnect.Endpoint> l = new ArrayList<>();
        for (QueuePair p : qp) {
            l.add(RcConnect.Endpoint.of(p, (p.qpNum() * 0x9E3779B1) & 0xFFFFFF));
        }
        return l;
    }

    /** Where the peer may write and read: each QP's destination buffer. */
    List<Remote> remotes() {
        List<Remote> l = new ArrayList<>();
        for (MemoryRegion mr : dstMr) {
            l.add(new Remote(mr.address(), mr.rkey()));
        }
        return l;
    }

    /** Connects QP {@code q} to the peer's {@code q}-th QP (RESET to RTS) and notes its buffer. */
    void connect(
            List<RcConnect.Endpoint> mine,
            List<RcConnect.Endpoint> peer,
            List<Remote> peerBuffers,
            RcConnect.Options o) {
        for (int q = 0; q < qp.length; q++) {
            RcConnect.connect(qp[q], mine.get(q).psn(), peer.get(q), o);
            remote[q] = peerBuffers.get(q);
        }
    }

    @Override
    int qps() {
        return qp.length;
    }

    @Override
    PerfSettings.Layer layer() {
        return PerfSettings.Layer.VERBS;
    }

    @Override
    void prepare(PerfTest.Verb verb, int size) {
        baseFlags = size <= inline && (verb == PerfTest.Verb.WRITE || verb == PerfTest.Verb.SEND)
                ? SendFlag.INLINE.bit()
                : 0;
        for (int q = 0; q < qp.length; q++) {
            for (SendWr w : chain[q]) {
                w.clear();
                switch (verb) {
                    case WRITE ->
                        w.opcode(WrOpcode.RDMA_WRITE).sge(srcMr[q], 0, size).remote(remote[q].addr(), remote[q].rkey());
                    case READ ->
                        w.opcode(WrOpcode.RDMA_READ).sge(srcMr[q], 0, size).remote(remote[q].addr(), remote[q].rkey());
                    case SEND -> w.opcode(WrOpcode.SEND).sge(srcMr[q], 0, size);
                    case ATOMIC ->
                        w.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                                .sge(srcMr[q], 0, 8)
                                .remote(remote[q].addr(), remote[q].rkey())
                                .atomic(1, 0);
                    default -> throw new IllegalArgumentException(verb.name());
                }
            }
        }
    }

    @Override
    void post(int q, long first, int n, int cqMod, long last) {
        SendWr[] c = chain[q];
        for (int i = 0; i < n; i++) {
            long s = first + i;
            int f = signalled(s, cqMod, last) ? baseFlags | SendFlag.SIGNALED.bit() : baseFlags;
            c[i].wrId(tag(q, s)).flagBits(f).next(i + 1 < n ? c[i + 1] : null);
        }
        qp[q].postSend(c[0]);
    }

    @Override
    void postRecv(int q, int n) {
        for (int i = 0; i < n; i++) {
            qp[q].postRecv(recvWr[q]);
        }
    }

    @Override
    int pollRequests(long[] seqs) {
        int max = Math.min(seqs.length, wc.length);
        int n = sendCq.poll(wc, max);
        if (n == 0 && sendChannel != null) {
            n = sleepAndPoll(sendCq, sendChannel, max);
        }
        for (int i = 0; i < n; i++) {
            check(wc[i]);
            seqs[i] = wc[i].wrId();
        }
        return n;
    }

    @Override
    int pollRecvs(int[] qps) {
        int max = Math.min(qps.length, wc.length);
        int n = recvCq.poll(wc, max);
        if (n == 0 && recvChannel != null) {
            n = sleepAndPoll(recvCq, recvChannel, max);
        }
        for (int i = 0; i < n; i++) {
            check(wc[i]);
            qps[i] = (int) wc[i].wrId();
        }
        return n;
    }

    /**
     * An empty CQ with events: arm it, poll once more (a completion may have arrived before the arm
     * and raised no event), then sleep on its channel for at most {@link #EVENT_WAIT_MS} and poll
     * what woke it. Returns 0 after a wait without an event, so the loop sees a stall as it would
     * polling.
     */
    private int sleepAndPoll(CompletionQueue cq, CompletionChannel channel, int max) {
        cq.requestNotify(false);
        int n = cq.poll(wc, max);
        if (n > 0) {
            return n;
        }
        CompletionQueue woke = channel.getCqEvent(EVENT_WAIT_MS, TimeUnit.MILLISECONDS);
        if (woke == null) {
            return 0;
        }
        woke.ackEvents(1);
        return cq.poll(wc, max);
    }

    private static void check(WorkCompletion c) {
        if (c.status() != WcStatus.SUCCESS) {
            throw new PerfFailure("work completion with an error: " + c);
        }
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
        for (int q = 0; q < qp.length; q++) {
            quietly(qp[q] == null ? null : qp[q]::destroy);
            quietly(srcMr[q] == null ? null : srcMr[q]::deregister);
            quietly(dstMr[q] == null ? null : dstMr[q]::deregister);
        }
        quietly(sendCq::destroy);
        quietly(recvCq::destroy);
        quietly(sendChannel == null ? null : sendChannel::destroy);
        quietly(recvChannel == null ? null : recvChannel::destroy);
        quietly(pd::dealloc);
    }

    /** Teardown goes on past an object already gone with its fabric. */
    private static void quietly(Runnable r) {
        if (r == null) {
            return;
        }
        try {
            r.run();
        } catch (VerbsException | IllegalStateException e) {
            // the fabric closing with the run has taken it already
        }
    }
}
