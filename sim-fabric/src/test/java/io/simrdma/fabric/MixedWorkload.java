package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.fabric.internal.rc.RcQueuePair;
import io.simrdma.fabric.sched.DeterministicScheduler;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test helper for the reliability and determinism tests: a mixed RC workload over an
 * {@link RcPair}, posted in one go, with the expected outcome of every work request, and the
 * checks that compare what happened with it.
 *
 * <p>From a to b: multi-packet and single-packet SENDs, a zero-length SEND, SEND with
 * immediate, RDMA WRITE (multi-packet and 1 byte), RDMA WRITE with immediate, two RDMA READs
 * and both atomics on one 8-byte counter. From b to a: two SENDs, so that requests and
 * responses travel both ways on the link. b posts more receive WRs than it needs (two stay
 * outstanding); a posts one more than it needs.
 *
 * <p>Every send WR is signaled; send wr_ids are 1..13 (a) and 101..102 (b), receive wr_ids
 * 1001..1008 (b) and 2001..2003 (a), so completions are told apart by wr_id.
 */
final class MixedWorkload {

    /** Initial value of the atomic counter at b. */
    static final long COUNTER_START = 1000;

    /** One send WR and what it should do. */
    static final class SendSpec {
        final long wrId;
        final WrOpcode op;
        final int len;
        /** Offset of the data source (SEND, WRITE: requester buffer; READ: responder buffer). */
        final int src;
        /** Offset of the destination (WRITE: responder buffer; READ and atomics: requester buffer). */
        final int dst;

        final int imm;
        final long compareAdd;
        final long swap;
        /** Index of the receive WR this consumes at the peer, or -1. */
        int recvIndex = -1;

        SendSpec(long wrId, WrOpcode op, int len, int src, int dst, int imm, long compareAdd, long swap) {
            this.wrId = wrId;
            this.op = op;
            this.len = len;
            this.src = src;
            this.dst = dst;
            this.imm = imm;
            this.compareAdd = compareAdd;
            this.swap = swap;
        }

        @Override
        public String toString() {
            return op + "#" + wrId + "(" + len + "B)";
        }
    }

    /** One receive WR. */
    static final class RecvSpec {
        final long wrId;
        final int off;
        final int capacity;
        /** The SEND or WRITE_WITH_IMM that consumes it, or null. */
        SendSpec consumer;

        RecvSpec(long wrId, int off, int capacity) {
            this.wrId = wrId;
            this.off = off;
            this.capacity = capacity;
        }
    }

    /** The completions seen, split by QP and direction, in the order polled. */
    static final class Seen {
        final List<WorkCompletion> aSend = new ArrayList<>();
        final List<WorkCompletion> aRecv = new ArrayList<>();
        final List<WorkCompletion> bSend = new ArrayList<>();
        final List<WorkCompletion> bRecv = new ArrayList<>();
    }

    /** Counts trace events; thread-safe (the threaded scheduler calls from several threads). */
    static final class TraceCounts implements TraceListener {
        final Map<PacketEvent, AtomicLong> events = new EnumMap<>(PacketEvent.class);
        final Map<DropReason, AtomicLong> drops = new EnumMap<>(DropReason.class);
        /** Dropped READ responses and atomic acknowledges: each forces a retransmission. */
        final AtomicLong droppedDataResponses = new AtomicLong();
        /** Dropped request packets: each forces a retransmission. */
        final AtomicLong droppedRequests = new AtomicLong();

        TraceCounts() {
            for (PacketEvent e : PacketEvent.values()) {
                events.put(e, new AtomicLong());
            }
            for (DropReason r : DropReason.values()) {
                drops.put(r, new AtomicLong());
            }
        }

        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
            events.get(event).incrementAndGet();
            if (event == PacketEvent.DROPPED) {
                drops.get(reason).incrementAndGet();
                if (reason == DropReason.FAULT || reason == DropReason.BAD_ICRC) {
                    if (packet.opcode().isRequest()) {
                        droppedRequests.incrementAndGet();
                    } else if (packet.opcode().isRead() || packet.opcode().isAtomic()) {
                        droppedDataResponses.incrementAndGet();
                    }
                }
            }
        }

        long event(PacketEvent e) {
            return events.get(e).get();
        }

        long drop(DropReason r) {
            return drops.get(r).get();
        }
    }

    final RcPair p;
    final long dataSeed;
    final List<SendSpec> aSends = new ArrayList<>();
    final List<SendSpec> bSends = new ArrayList<>();
    final List<RecvSpec> aRecvs = new ArrayList<>();
    final List<RecvSpec> bRecvs = new ArrayList<>();
    final int counterOff;
    final TraceCounts trace = new TraceCounts();
    final Seen seen = new Seen();

    private int aCursor;
    private int bCursor;

    MixedWorkload(RcPair p, long dataSeed) {
        this.p = p;
        this.dataSeed = dataSeed;
        p.fabric.addTraceListener(trace);

        // b's receive buffers: 8 x 5000 bytes; a's: 3 x 4096.
        for (int i = 0; i < 8; i++) {
            bRecvs.add(new RecvSpec(1001 + i, bAlloc(5000), 5000));
        }
        aCursor = 48 * 1024;
        for (int i = 0; i < 3; i++) {
            aRecvs.add(new RecvSpec(2001 + i, aAlloc(4096), 4096));
        }
        aCursor = 0;
        counterOff = 63 * 1024;

        int recv = 0;
        recv = aSend(1, WrOpcode.SEND, 3000, 0, recv);
        aSends.add(new SendSpec(2, WrOpcode.RDMA_WRITE, 5000, aAlloc(5000), bAlloc(5000), 0, 0, 0));
        aSends.add(new SendSpec(3, WrOpcode.ATOMIC_FETCH_AND_ADD, 8, 0, 62 * 1024, 0, 5, 0));
        recv = aSend(4, WrOpcode.SEND_WITH_IMM, 2148, 0x1111, recv);
        aSends.add(new SendSpec(5, WrOpcode.RDMA_READ, 4000, bAlloc(4000), 40 * 1024, 0, 0, 0));
        SendSpec wimm = new SendSpec(6, WrOpcode.RDMA_WRITE_WITH_IMM, 1500, aAlloc(1500), bAlloc(1500), 0x2222, 0, 0);
        wimm.recvIndex = recv;
        bRecvs.get(recv++).consumer = wimm;
        aSends.add(wimm);
        // CmpSwp that adds 7 if it runs exactly once after the first FetchAdd.
        aSends.add(new SendSpec(
                7, WrOpcode.ATOMIC_CMP_AND_SWP, 8, 0, 62 * 1024 + 8, 0, COUNTER_START + 5, COUNTER_START + 12));
        recv = aSend(8, WrOpcode.SEND, 0, 0, recv);
        aSends.add(new SendSpec(9, WrOpcode.RDMA_READ, 3 * 1024 + 17, bAlloc(3 * 1024 + 17), 44 * 1024, 0, 0, 0));
        aSends.add(new SendSpec(10, WrOpcode.ATOMIC_FETCH_AND_ADD, 8, 0, 62 * 1024 + 16, 0, 11, 0));
        recv = aSend(11, WrOpcode.SEND, 1024, 0, recv);
        aSends.add(new SendSpec(12, WrOpcode.RDMA_WRITE, 1, aAlloc(1), bAlloc(1), 0, 0, 0));
        aSend(13, WrOpcode.SEND, 4097, 0, recv);

        SendSpec b1 = new SendSpec(101, WrOpcode.SEND, 700, bAlloc(700), 0, 0, 0, 0);
        SendSpec b2 = new SendSpec(102, WrOpcode.SEND_WITH_IMM, 2100, bAlloc(2100), 0, 0x3333, 0, 0);
        b1.recvIndex = 0;
        b2.recvIndex = 1;
        aRecvs.get(0).consumer = b1;
        aRecvs.get(1).consumer = b2;
        bSends.add(b1);
        bSends.add(b2);
        if (aCursor > 40 * 1024 || bCursor > counterOff) {
            throw new IllegalStateException("workload layout overflows: a " + aCursor + ", b " + bCursor);
        }
    }

    private int aSend(long wrId, WrOpcode op, int len, int imm, int recv) {
        SendSpec s = new SendSpec(wrId, op, len, aAlloc(len), 0, imm, 0, 0);
        s.recvIndex = recv;
        bRecvs.get(recv).consumer = s;
        aSends.add(s);
        return recv + 1;
    }

    private int aAlloc(int len) {
        int at = aCursor;
        aCursor += (len + 63) & ~63;
        return at;
    }

    private int bAlloc(int len) {
        int at = bCursor;
        bCursor += (len + 63) & ~63;
        return at;
    }

    /** Fills the sources with seeded data, sets the counter, posts every receive, then every send. */
    MixedWorkload post() {
        return post(0);
    }

    /**
     * Like {@link #post()}, but the receive WRs are posted only {@code recvDelayNanos} after the
     * sends (virtual time; deterministic fabrics only), so that the first SENDs meet an empty
     * receive queue and are RNR NAKed (IBA 9.7.5.2.8).
     */
    MixedWorkload post(long recvDelayNanos) {
        fillSources();
        if (recvDelayNanos > 0) {
            postSends();
            p.fabric.deterministicScheduler().advanceTime(recvDelayNanos);
            postRecvs();
        } else {
            postRecvs();
            postSends();
        }
        return this;
    }

    private void fillSources() {
        long s = dataSeed;
        for (SendSpec w : aSends) {
            if (w.op.sendsData()) {
                RcPair.fill(p.a.buf, w.src, w.len, ++s);
            } else if (w.op == WrOpcode.RDMA_READ) {
                RcPair.fill(p.b.buf, w.src, w.len, ++s);
            }
        }
        for (SendSpec w : bSends) {
            RcPair.fill(p.b.buf, w.src, w.len, ++s);
        }
        p.b.buf.putLong(counterOff, COUNTER_START);
    }

    private void postRecvs() {
        p.b.qp.postRecv(recvChain(bRecvs, p.b));
        p.a.qp.postRecv(recvChain(aRecvs, p.a));
    }

    private static RecvWr recvChain(List<RecvSpec> specs, RcPair.Side me) {
        RecvWr head = null;
        for (int i = specs.size() - 1; i >= 0; i--) {
            RecvSpec r = specs.get(i);
            head = new RecvWr().wrId(r.wrId).sge(me.mr, r.off, r.capacity).next(head);
        }
        return head;
    }

    private void postSends() {
        p.a.qp.postSend(chain(aSends, p.a, p.b));
        p.b.qp.postSend(chain(bSends, p.b, p.a));
    }

    private SendWr chain(List<SendSpec> specs, RcPair.Side me, RcPair.Side peer) {
        SendWr head = null;
        for (int i = specs.size() - 1; i >= 0; i--) {
            SendSpec w = specs.get(i);
            SendWr wr = new SendWr()
                    .wrId(w.wrId)
                    .opcode(w.op)
                    .flag(SendFlag.SIGNALED)
                    .next(head);
            switch (w.op) {
                case SEND:
                case SEND_WITH_IMM:
                    if (w.len > 0) {
                        wr.sge(me.mr, w.src, w.len);
                    }
                    wr.immData(w.imm);
                    break;
                case RDMA_WRITE:
                case RDMA_WRITE_WITH_IMM:
                    wr.sge(me.mr, w.src, w.len)
                            .remote(peer.addr(w.dst), peer.mr.rkey())
                            .immData(w.imm);
                    break;
                case RDMA_READ:
                    wr.sge(me.mr, w.dst, w.len).remote(peer.addr(w.src), peer.mr.rkey());
                    break;
                case ATOMIC_FETCH_AND_ADD:
                case ATOMIC_CMP_AND_SWP:
                    wr.sge(me.mr, w.dst, 8)
                            .remote(peer.addr(counterOff), peer.mr.rkey())
                            .atomic(w.compareAdd, w.swap);
                    break;
                default:
                    throw new IllegalArgumentException(w.op.toString());
            }
            head = wr;
        }
        return head;
    }

    // ------------------------------------------------------------------ running

    /** True once every send WR of both QPs has completed (with any status). */
    boolean sendsDone() {
        return seen.aSend.size() >= aSends.size() && seen.bSend.size() >= bSends.size();
    }

    /** True once every WR expected to succeed has completed. */
    boolean allDone() {
        return sendsDone() && seen.bRecv.size() >= consumed(bRecvs) && seen.aRecv.size() >= consumed(aRecvs);
    }

    private static int consumed(List<RecvSpec> rs) {
        int n = 0;
        for (RecvSpec r : rs) {
            if (r.consumer != null) {
                n++;
            }
        }
        return n;
    }

    /** Polls both CQs, sorting completions by wr_id range. */
    int drain() {
        WorkCompletion[] wcs = WorkCompletion.array(16);
        int total = 0;
        for (RcPair.Side s : new RcPair.Side[] {p.a, p.b}) {
            int n;
            while ((n = s.cq.poll(wcs, wcs.length)) > 0) {
                for (int i = 0; i < n; i++) {
                    file(new WorkCompletion().copyFrom(wcs[i]), s == p.a);
                }
                total += n;
            }
        }
        return total;
    }

    private void file(WorkCompletion wc, boolean onA) {
        long id = wc.wrId();
        if (onA) {
            if (id >= 1 && id <= 13) {
                seen.aSend.add(wc);
            } else if (id >= 2001 && id <= 2003) {
                seen.aRecv.add(wc);
            } else {
                fail("unexpected completion on a: " + wc);
            }
        } else {
            if (id >= 101 && id <= 102) {
                seen.bSend.add(wc);
            } else if (id >= 1001 && id <= 1008) {
                seen.bRecv.add(wc);
            } else {
                fail("unexpected completion on b: " + wc);
            }
        }
    }

    /**
     * Runs until {@code done} holds, collecting completions, for at most {@code timeoutNanos} on
     * the fabric's clock (virtual time when deterministic).
     */
    void runUntil(java.util.function.BooleanSupplier done, long timeoutNanos) {
        Fabric f = p.fabric;
        long deadline = f.now() + timeoutNanos;
        if (f.scheduler().isDeterministic()) {
            DeterministicScheduler sched = f.deterministicScheduler();
            while (true) {
                drain();
                if (done.getAsBoolean()) {
                    return;
                }
                if (f.now() > deadline) {
                    fail("not done within " + timeoutNanos + " ns of virtual time: " + describe());
                }
                if (!sched.progress()) {
                    fail("simulation idle before the workload finished: " + describe());
                }
            }
        }
        while (true) {
            drain();
            if (done.getAsBoolean()) {
                return;
            }
            long left = deadline - f.now();
            if (left <= 0) {
                fail("not done within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms: " + describe());
            }
            RcPair.Side s = seen.aSend.size() < aSends.size() ? p.a : p.b;
            s.cq.awaitCompletions(1, Math.min(left, TimeUnit.MILLISECONDS.toNanos(20)), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * After the workload: lets the fabric run on for {@code nanos} (virtual time, or a real-time
     * wait with that deadline) and returns how many more completions arrived.
     */
    int settle(long nanos) {
        Fabric f = p.fabric;
        int before = count();
        if (f.scheduler().isDeterministic()) {
            f.deterministicScheduler().advanceTime(nanos);
            drain();
        } else {
            p.a.cq.awaitCompletions(1, nanos / 2, TimeUnit.NANOSECONDS);
            p.b.cq.awaitCompletions(1, nanos / 2, TimeUnit.NANOSECONDS);
            drain();
        }
        return count() - before;
    }

    private int count() {
        return seen.aSend.size() + seen.aRecv.size() + seen.bSend.size() + seen.bRecv.size();
    }

    String describe() {
        return "a sends " + seen.aSend + ", b recvs " + seen.bRecv + ", b sends " + seen.bSend + ", a recvs "
                + seen.aRecv + "; a " + p.a.qp + " " + p.a.qp.counters() + engineState(p.a.qp) + "; b " + p.b.qp + " "
                + p.b.qp.counters() + engineState(p.b.qp) + "; link a "
                + p.link().stats(p.a.dev) + " b "
                + p.link().stats(p.b.dev) + "; devices a " + p.a.dev.counters() + " b " + p.b.dev.counters()
                + "; trace drops " + trace.drops + " at t=" + p.fabric.now();
    }

    /** The engine's own view of a QP, read on its executor: what a failure message needs to explain a stall. */
    static String engineState(QueuePair qp) {
        try {
            return ((RcQueuePair) qp).engineState();
        } catch (RuntimeException e) {
            return " {engine state unavailable: " + e + "}";
        }
    }

    // ------------------------------------------------------------------ checks

    /** The strong property: every WR exactly once, in post order, SUCCESS, data intact, atomics exact. */
    void assertEveryWrSucceededOnce() {
        String ctx = describe();
        assertSendOrder(aSends, seen.aSend, ctx);
        assertSendOrder(bSends, seen.bSend, ctx);
        for (WorkCompletion wc : seen.aSend) {
            assertEquals(WcStatus.SUCCESS, wc.status(), () -> "a: " + wc + " in " + ctx);
        }
        for (WorkCompletion wc : seen.bSend) {
            assertEquals(WcStatus.SUCCESS, wc.status(), () -> "b: " + wc + " in " + ctx);
        }
        assertRecvs(bRecvs, seen.bRecv, p.b, p.a, consumed(bRecvs), ctx);
        assertRecvs(aRecvs, seen.aRecv, p.a, p.b, consumed(aRecvs), ctx);
        for (int i = 0; i < aSends.size(); i++) {
            assertData(aSends.get(i), p.a, p.b, ctx);
        }
        for (int i = 0; i < bSends.size(); i++) {
            assertData(bSends.get(i), p.b, p.a, ctx);
        }
        assertAtomics(ctx);
        assertEquals(QpState.RTS, p.a.qp.state(), ctx);
        assertEquals(QpState.RTS, p.b.qp.state(), ctx);
    }

    /**
     * The property that holds even when retry_cnt is legitimately exhausted (IBA 9.7.6.1.3,
     * 10.3.1): per QP, send completions are SUCCESS for a prefix, then at most one RETRY_EXC_ERR,
     * then WR_FLUSH_ERR for every remaining WR, in post order, each WR exactly once; receive
     * completions likewise a SUCCESS prefix then flushes (only if that QP is in ERR); the data of
     * every successful WR is intact; atomics ran at most once each.
     */
    void assertPrefixSuccessThenErrors() {
        String ctx = describe();
        assertSendOrder(aSends, seen.aSend, ctx);
        assertSendOrder(bSends, seen.bSend, ctx);
        assertErrorShape(seen.aSend, p.a.qp, true, ctx);
        assertErrorShape(seen.bSend, p.b.qp, true, ctx);
        assertErrorShape(seen.aRecv, p.a.qp, false, ctx);
        assertErrorShape(seen.bRecv, p.b.qp, false, ctx);
        // Receives: wr_ids in post order, each at most once; all of them once the QP is in ERR.
        assertRecvPrefix(aRecvs, seen.aRecv, p.a, p.b, ctx);
        assertRecvPrefix(bRecvs, seen.bRecv, p.b, p.a, ctx);
        for (int i = 0; i < seen.aSend.size(); i++) {
            if (seen.aSend.get(i).status() == WcStatus.SUCCESS) {
                assertData(aSends.get(i), p.a, p.b, ctx);
            }
        }
        for (int i = 0; i < seen.bSend.size(); i++) {
            if (seen.bSend.get(i).status() == WcStatus.SUCCESS) {
                assertData(bSends.get(i), p.b, p.a, ctx);
            }
        }
        // The responder executes requests strictly in PSN order, so the atomics it ran are a
        // prefix of the posted ones, at least up to the last that completed successfully.
        List<SendSpec> atomics = atomics();
        int mustHaveRun = 0;
        for (int i = 0; i < seen.aSend.size(); i++) {
            if (seen.aSend.get(i).status() == WcStatus.SUCCESS
                    && aSends.get(i).op.isAtomic()) {
                mustHaveRun = atomics.indexOf(aSends.get(i)) + 1;
            }
        }
        long actual = p.b.buf.getLong(counterOff);
        List<Long> possible = new ArrayList<>();
        for (int k = mustHaveRun; k <= atomics.size(); k++) {
            possible.add(counterAfter(atomics.subList(0, k)));
        }
        assertTrue(
                possible.contains(actual),
                "counter " + actual + " is not the result of running a prefix of " + "the atomics once each (possible: "
                        + possible + ") in " + ctx);
        for (int i = 0; i < seen.aSend.size(); i++) {
            SendSpec w = aSends.get(i);
            if (w.op.isAtomic() && seen.aSend.get(i).status() == WcStatus.SUCCESS) {
                assertAtomicOriginal(w, atomics, ctx);
            }
        }
    }

    private void assertErrorShape(List<WorkCompletion> wcs, QueuePair qp, boolean send, String ctx) {
        int i = 0;
        while (i < wcs.size() && wcs.get(i).status() == WcStatus.SUCCESS) {
            i++;
        }
        if (send && i < wcs.size() && wcs.get(i).status() == WcStatus.RETRY_EXC_ERR) {
            i++;
        }
        int firstFlush = i;
        while (i < wcs.size() && wcs.get(i).status() == WcStatus.WR_FLUSH_ERR) {
            i++;
        }
        assertEquals(
                wcs.size(),
                i,
                "after the SUCCESS prefix only one RETRY_EXC_ERR and then WR_FLUSH_ERR may follow: " + wcs + " in "
                        + ctx);
        if (firstFlush < wcs.size()
                || (send && firstFlush > 0 && wcs.get(firstFlush - 1).status() != WcStatus.SUCCESS)) {
            assertEquals(QpState.ERR, qp.state(), "a QP that flushed must be in ERR: " + ctx);
        }
    }

    private void assertSendOrder(List<SendSpec> specs, List<WorkCompletion> wcs, String ctx) {
        assertEquals(specs.size(), wcs.size(), () -> "every send WR completes exactly once: " + ctx);
        for (int i = 0; i < specs.size(); i++) {
            assertEquals(specs.get(i).wrId, wcs.get(i).wrId(), "send completions in post order: " + ctx);
        }
    }

    private void assertRecvs(
            List<RecvSpec> specs,
            List<WorkCompletion> wcs,
            RcPair.Side me,
            RcPair.Side peer,
            int expected,
            String ctx) {
        assertEquals(expected, wcs.size(), () -> "receive completions exactly once: " + ctx);
        for (int i = 0; i < expected; i++) {
            RecvSpec r = specs.get(i);
            WorkCompletion wc = wcs.get(i);
            assertEquals(r.wrId, wc.wrId(), "receive completions in post order: " + ctx);
            assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + " in " + ctx);
            assertRecvCompletion(r, wc, me, peer, ctx);
        }
    }

    private void assertRecvPrefix(
            List<RecvSpec> specs, List<WorkCompletion> wcs, RcPair.Side me, RcPair.Side peer, String ctx) {
        assertTrue(wcs.size() <= specs.size(), ctx);
        for (int i = 0; i < wcs.size(); i++) {
            assertEquals(specs.get(i).wrId, wcs.get(i).wrId(), "receive completions in post order: " + ctx);
            if (wcs.get(i).status() == WcStatus.SUCCESS) {
                assertRecvCompletion(specs.get(i), wcs.get(i), me, peer, ctx);
            }
        }
        if (me.qp.state() == QpState.ERR) {
            assertEquals(specs.size(), wcs.size(), "a QP in ERR flushes every receive WR: " + ctx);
        }
    }

    private void assertRecvCompletion(RecvSpec r, WorkCompletion wc, RcPair.Side me, RcPair.Side peer, String ctx) {
        SendSpec s = r.consumer;
        assertTrue(s != null, "receive " + r.wrId + " completed but nothing should consume it: " + ctx);
        assertEquals(s.len, wc.byteLen(), () -> "byte_len of " + wc + " for " + s + " in " + ctx);
        if (s.op == WrOpcode.RDMA_WRITE_WITH_IMM) {
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode(), ctx);
        } else {
            assertEquals(WcOpcode.RECV, wc.opcode(), ctx);
        }
        boolean imm = s.op == WrOpcode.SEND_WITH_IMM || s.op == WrOpcode.RDMA_WRITE_WITH_IMM;
        assertEquals(imm, wc.hasFlag(WcFlag.WITH_IMM), () -> "IBV_WC_WITH_IMM of " + wc + " in " + ctx);
        if (imm) {
            assertEquals(s.imm, wc.immData(), ctx);
        }
        if (s.op.isSend()) {
            RcPair.assertBytes(peer.buf, s.src, me.buf, r.off, s.len);
        }
    }

    private void assertData(SendSpec w, RcPair.Side me, RcPair.Side peer, String ctx) {
        switch (w.op) {
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                RcPair.assertBytes(me.buf, w.src, peer.buf, w.dst, w.len);
                break;
            case RDMA_READ:
                RcPair.assertBytes(peer.buf, w.src, me.buf, w.dst, w.len);
                break;
            default:
                // SEND data is checked on the receive completion; atomics by assertAtomics.
                break;
        }
    }

    private List<SendSpec> atomics() {
        List<SendSpec> l = new ArrayList<>();
        for (SendSpec w : aSends) {
            if (w.op.isAtomic()) {
                l.add(w);
            }
        }
        return l;
    }

    /** The counter after running {@code ops} once each, in order, from {@link #COUNTER_START}. */
    static long counterAfter(List<SendSpec> ops) {
        long v = COUNTER_START;
        for (SendSpec w : ops) {
            if (w.op == WrOpcode.ATOMIC_FETCH_AND_ADD) {
                v += w.compareAdd;
            } else if (v == w.compareAdd) {
                v = w.swap;
            }
        }
        return v;
    }

    private void assertAtomics(String ctx) {
        List<SendSpec> atomics = atomics();
        // 1000 + 5 (FetchAdd) + 7 (CmpSwp 1005 -> 1012) + 11 (FetchAdd) = 1023, only if each ran once.
        assertEquals(
                COUNTER_START + 5 + 7 + 11,
                p.b.buf.getLong(counterOff),
                "counter = start + sum of the adds: no atomic ran twice or was lost; " + ctx);
        for (SendSpec w : atomics) {
            assertAtomicOriginal(w, atomics, ctx);
        }
    }

    private void assertAtomicOriginal(SendSpec w, List<SendSpec> atomics, String ctx) {
        long expectedOriginal = counterAfter(atomics.subList(0, atomics.indexOf(w)));
        assertEquals(
                expectedOriginal,
                p.a.buf.getLong(w.dst),
                "original value returned by " + w + " (a replay must return the saved value); " + ctx);
    }

    /** Sum of a counter over both QPs. */
    long qpCounter(Counter c) {
        return p.a.qp.counters().get(c) + p.b.qp.counters().get(c);
    }

    /** Sum of a counter over both devices. */
    long deviceCounter(Counter c) {
        return p.a.dev.counters().get(c) + p.b.dev.counters().get(c);
    }
}
