package io.simrdma.fabric.internal.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.capture.PacketCapture;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Segmentation offload on the in-process link ({@link Link#segmentationOffload(boolean)}): a run
 * of packets of one message travels as one unit, and nothing an application, a counter or the
 * other end can see differs from sending the packets one by one (IBA 9.7.5: the PSN of each
 * packet, the ACK of the last one asking for it, go-back-N from the NAKed PSN). Each scenario runs
 * twice on a deterministic fabric with the same seed, offload on and off, and the outcomes must
 * be equal: the bytes of both buffers, every completion, every counter of both QPs and devices,
 * the link's packet counts, the requester's, completer's and responder's PSNs and MSN, and the
 * final virtual time (a burst arrives when its last packet would have).
 */
class SegmentationOffloadTest {

    static final int BUF = 1 << 20;
    static final EnumSet<AccessFlag> ALL = EnumSet.of(
            AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    private static final int BAD_LKEY = 0x7EAD_BEEF;

    /** Two connected RC QPs on a deterministic fabric, with 1 MiB buffers. */
    static final class Ends implements AutoCloseable {
        final Fabric fabric;
        final Device da;
        final Device db;
        final CompletionQueue ca;
        final CompletionQueue cb;
        final QueuePair qa;
        final QueuePair qb;
        final ByteBuffer ba = ByteBuffer.allocate(BUF);
        final ByteBuffer bb = ByteBuffer.allocate(BUF);
        final MemoryRegion ma;
        final MemoryRegion mb;
        final Mtu mtu;

        Ends(long seed, Mtu mtu, int window, int rnrRetry, boolean offload) {
            this.mtu = mtu;
            fabric = Fabric.deterministic(seed);
            da = fabric.createDevice(DeviceConfig.named("a").maxUnackedPsns(window));
            db = fabric.createDevice(DeviceConfig.named("b").maxUnackedPsns(window));
            ProtectionDomain pa = da.allocPd();
            ProtectionDomain pb = db.allocPd();
            ca = da.createCq(1024);
            cb = db.createCq(1024);
            qa = pa.createQp(QpInitAttr.rc(ca, ca));
            qb = pb.createQp(QpInitAttr.rc(cb, cb));
            SplittableRandom r = new SplittableRandom(seed);
            for (int i = 0; i < BUF; i++) {
                ba.put(i, (byte) r.nextInt(256));
                bb.put(i, (byte) r.nextInt(256));
            }
            ma = pa.registerMemory(ba, ALL);
            mb = pb.registerMemory(bb, ALL);
            connect(qa, 0x123, qb, 0xFFFFF0 /* wraps past 2^24 during the run */, rnrRetry);
            link().segmentationOffload(offload);
        }

        private void connect(QueuePair x, int psnX, QueuePair y, int psnY, int rnrRetry) {
            EnumSet<AccessFlag> acc = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);
            for (QueuePair q : List.of(x, y)) {
                q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(acc));
            }
            rtr(x, y, psnY);
            rtr(y, x, psnX);
            rts(x, psnX, rnrRetry);
            rts(y, psnY, rnrRetry);
        }

        private void rtr(QueuePair q, QueuePair peer, int peerPsn) {
            q.modify(new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(peer.device().gid()))
                    .pathMtu(mtu)
                    .destQpn(peer.qpNum())
                    .rqPsn(peerPsn)
                    .maxDestRdAtomic(4)
                    .minRnrTimer(1));
        }

        private static void rts(QueuePair q, int psn, int rnrRetry) {
            q.modify(new QpAttr()
                    .state(QpState.RTS)
                    .sqPsn(psn)
                    .timeout(14)
                    .retryCnt(7)
                    .rnrRetry(rnrRetry)
                    .maxRdAtomic(4));
        }

        Link link() {
            return fabric.link(da, db);
        }

        int mtuBytes() {
            return mtu.bytes();
        }

        void run() {
            fabric.deterministicScheduler().runUntilIdle();
        }

        @Override
        public void close() {
            fabric.close();
        }
    }

    /** Everything a run leaves that offload must not change. */
    record Outcome(
            List<String> completionsA,
            List<String> completionsB,
            ByteBuffer bytesA,
            ByteBuffer bytesB,
            Map<Counter, Long> qpA,
            Map<Counter, Long> qpB,
            Map<Counter, Long> devA,
            Map<Counter, Long> devB,
            String linkAb,
            String linkBa,
            String psns,
            long finalTime) {}

    /** An outcome, and the scheduler steps the run took (fewer when packets travel in bursts). */
    record Result(Outcome outcome, long steps) {}

    private static List<String> drain(CompletionQueue cq) {
        List<String> out = new ArrayList<>();
        WorkCompletion[] wc = WorkCompletion.array(16);
        int n;
        while ((n = cq.poll(wc, wc.length)) > 0) {
            for (int i = 0; i < n; i++) {
                WorkCompletion w = wc[i];
                out.add(w.wrId() + " " + w.status() + " " + w.opcode() + " len=" + w.byteLen() + " imm=" + w.immData()
                        + " flags=" + w.wcFlags() + " vendor=" + w.vendorErr());
            }
        }
        return out;
    }

    private static String psns(QueuePair q) {
        RcQueuePair rc = (RcQueuePair) q;
        return rc.owner()
                .executor()
                .call(() -> "req=" + rc.requester.psn + "/" + rc.requester.highestPsn + " comp=" + rc.completer.psn
                        + " resp=" + rc.responder.psn + " msn=" + rc.responder.msn);
    }

    private static Result run(long seed, Mtu mtu, int window, int rnrRetry, boolean offload, Consumer<Ends> scenario) {
        try (Ends e = new Ends(seed, mtu, window, rnrRetry, offload)) {
            long steps0 = e.fabric.deterministicScheduler().steps();
            scenario.accept(e);
            e.run();
            long steps = e.fabric.deterministicScheduler().steps() - steps0;
            ByteBuffer a =
                    ByteBuffer.allocate(BUF).put(e.ba.duplicate().clear()).flip();
            ByteBuffer b =
                    ByteBuffer.allocate(BUF).put(e.bb.duplicate().clear()).flip();
            Outcome o = new Outcome(
                    drain(e.ca),
                    drain(e.cb),
                    a,
                    b,
                    e.qa.counters().snapshot(),
                    e.qb.counters().snapshot(),
                    e.da.counters().snapshot(),
                    e.db.counters().snapshot(),
                    e.link().stats(e.da).toString(),
                    e.link().stats(e.db).toString(),
                    psns(e.qa) + " | " + psns(e.qb),
                    e.fabric.deterministicScheduler().nanoTime());
            return new Result(o, steps);
        }
    }

    /**
     * What must be equal. A burst arrives when its last packet would have, so what the receiver
     * does on an earlier packet of it happens later than one by one: a NAK for an error on it,
     * and, for RDMA READ responses, the opening of a PSN window smaller than the READ. Then only
     * the timing differs (and what depends on it, such as how many RNR retries run before a
     * receive posted at a fixed time).
     */
    enum Compare {
        EVERYTHING,
        ALL_BUT_TIME,
        RESULTS
    }

    private static Result assertSameWithAndWithoutOffload(
            String what, long seed, Mtu mtu, int window, int rnrRetry, Consumer<Ends> scenario) {
        return assertSameWithAndWithoutOffload(what, seed, mtu, window, rnrRetry, Compare.EVERYTHING, scenario);
    }

    /** Runs {@code scenario} with offload on and off; asserts equal outcomes; returns the offloaded run. */
    private static Result assertSameWithAndWithoutOffload(
            String what, long seed, Mtu mtu, int window, int rnrRetry, Compare compare, Consumer<Ends> scenario) {
        Result on = run(seed, mtu, window, rnrRetry, true, scenario);
        Result off = run(seed, mtu, window, rnrRetry, false, scenario);
        Outcome x = on.outcome();
        Outcome y = off.outcome();
        assertEquals(
                y.completionsA(),
                x.completionsA(),
                what + ": requester completions (expected per-packet, seen offloaded)");
        assertEquals(y.completionsB(), x.completionsB(), what + ": responder completions");
        assertEquals(-1, y.bytesA().mismatch(x.bytesA()), what + ": first differing byte of a's buffer");
        assertEquals(-1, y.bytesB().mismatch(x.bytesB()), what + ": first differing byte of b's buffer");
        if (compare == Compare.RESULTS) {
            return on;
        }
        assertEquals(y.qpA(), x.qpA(), what + ": a's QP counters");
        assertEquals(y.qpB(), x.qpB(), what + ": b's QP counters");
        assertEquals(y.devA(), x.devA(), what + ": a's device counters");
        assertEquals(y.devB(), x.devB(), what + ": b's device counters");
        assertEquals(y.linkAb(), x.linkAb(), what + ": link a->b");
        assertEquals(y.linkBa(), x.linkBa(), what + ": link b->a");
        assertEquals(y.psns(), x.psns(), what + ": PSNs and MSN");
        if (compare == Compare.EVERYTHING) {
            assertEquals(y.finalTime(), x.finalTime(), what + ": final virtual time");
        }
        return on;
    }

    private static final WrOpcode[] OPS = {
        WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.SEND, WrOpcode.SEND_WITH_IMM
    };
    private static final Mtu[] MTUS = {Mtu.MTU_256, Mtu.MTU_512, Mtu.MTU_1024, Mtu.MTU_2048, Mtu.MTU_4096};

    /** A message size: empty, within one MTU, a multiple of the MTU, one byte either side of one, or anything. */
    private static int size(SplittableRandom r, int mtu, int max) {
        switch (r.nextInt(6)) {
            case 0:
                return r.nextInt(2) == 0 ? 0 : 1 + r.nextInt(mtu);
            case 1:
                return Math.min(max, mtu * (1 + r.nextInt(max / mtu)));
            case 2:
                return Math.min(max, mtu * (1 + r.nextInt(max / mtu)) + 1);
            case 3:
                return Math.min(max, mtu * (2 + r.nextInt(max / mtu)) - 1);
            default:
                return r.nextInt(max + 1);
        }
    }

    /** Splits {@code len} bytes at {@code off} of {@code mr} into 1 to 3 SGEs. */
    private static void sges(SplittableRandom r, MemoryRegion mr, int off, int len, SendWr wr) {
        int n = len < 3 ? 1 : 1 + r.nextInt(3);
        int done = 0;
        for (int i = 0; i < n; i++) {
            int l = i == n - 1 ? len - done : r.nextInt(len - done + 1);
            wr.sge(mr, off + done, l);
            done += l;
        }
    }

    private static void sges(SplittableRandom r, MemoryRegion mr, int off, int len, RecvWr wr) {
        int n = len < 3 ? 1 : 1 + r.nextInt(3);
        int done = 0;
        for (int i = 0; i < n; i++) {
            int l = i == n - 1 ? len - done : r.nextInt(len - done + 1);
            wr.sge(mr, off + done, l);
            done += l;
        }
    }

    /** Eight messages of seeded opcodes and sizes, in disjoint ranges of both buffers, all posted at once. */
    private static Consumer<Ends> mixedMessages(long seed) {
        return e -> {
            SplittableRandom r = new SplittableRandom(seed * 31 + 7);
            int mtu = e.mtuBytes();
            int at = 0;
            for (int i = 0; i < 8; i++) {
                WrOpcode op = OPS[r.nextInt(OPS.length)];
                int len = size(r, mtu, 120 * 1024);
                SendWr wr = new SendWr().wrId(i).opcode(op).flag(SendFlag.SIGNALED);
                if (op == WrOpcode.RDMA_WRITE_WITH_IMM || op == WrOpcode.SEND_WITH_IMM) {
                    wr.immData(0x1000 + i);
                }
                if (op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM) {
                    if (r.nextInt(3) == 0) {
                        wr.flag(SendFlag.SOLICITED);
                    }
                    RecvWr rwr = new RecvWr().wrId(100 + i);
                    sges(r, e.mb, at, len + r.nextInt(64), rwr);
                    e.qb.postRecv(rwr);
                } else if (op == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    e.qb.postRecv(new RecvWr().wrId(100 + i));
                }
                sges(r, e.ma, at, len, wr);
                if (op != WrOpcode.SEND && op != WrOpcode.SEND_WITH_IMM) {
                    wr.remote(e.mb.address() + at, e.mb.rkey());
                }
                e.qa.postSend(wr);
                at += len + 64;
            }
        };
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    @DisplayName(
            "IBA 9.7.5: with offload, WRITE/READ/SEND of seeded sizes leave the same bytes, completions, PSNs, counters and time as packets sent one by one")
    void shouldMatchPerPacketRunWhenMessagesOfSeededSizesAreOffloaded(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Mtu mtu = MTUS[r.nextInt(MTUS.length)];
        int[] windows = {128, 128, 16, 5};
        int window = windows[r.nextInt(windows.length)];
        // A window smaller than a READ opens when its response burst arrives, not response by
        // response: later messages may start later, and only the timing differs.
        assertSameWithAndWithoutOffload(
                "seed " + seed + " mtu " + mtu + " window " + window,
                seed,
                mtu,
                window,
                7,
                window < 128 ? Compare.ALL_BUT_TIME : Compare.EVERYTHING,
                mixedMessages(seed));
    }

    @Test
    @DisplayName("a message of many packets takes fewer scheduler steps with offload (the packets travel as bursts)")
    void shouldTakeFewerStepsWhenOffloadIsOn() {
        Consumer<Ends> write = e -> e.qa.postSend(new SendWr()
                .wrId(1)
                .opcode(WrOpcode.RDMA_WRITE)
                .flag(SendFlag.SIGNALED)
                .sge(e.ma, 0, 512 * 1024)
                .remote(e.mb.address(), e.mb.rkey()));
        Result on = assertSameWithAndWithoutOffload("512 KiB write", 3, Mtu.MTU_1024, 128, 7, write);
        Result off = run(3, Mtu.MTU_1024, 128, 7, false, write);
        assertTrue(
                on.steps() * 4 < off.steps(),
                "expected offload to take under a quarter of the " + off.steps() + " steps, took " + on.steps());
    }

    // ------------------------------------------------------------------ errors in the middle of a message

    @Test
    @DisplayName(
            "IBA 9.7.4.1.3 / ibv_poll_cq(3) LOC_LEN_ERR: a SEND longer than the receive WQE fails on the same packet with the same bytes placed")
    void shouldFailOnTheSamePacketWhenSendOverrunsTheReceiveBuffer() {
        Result on =
                assertSameWithAndWithoutOffload("send overrun", 5, Mtu.MTU_1024, 128, 7, Compare.ALL_BUT_TIME, e -> {
                    e.qb.postRecv(new RecvWr().wrId(9).sge(e.mb, 0, 5 * 1024 + 512));
                    e.qa.postSend(new SendWr()
                            .wrId(1)
                            .opcode(WrOpcode.SEND)
                            .flag(SendFlag.SIGNALED)
                            .sge(e.ma, 0, 12 * 1024));
                });
        assertTrue(
                on.outcome().completionsB().get(0).contains("LOC_LEN_ERR"),
                on.outcome().completionsB().toString());
        assertTrue(
                on.outcome().completionsA().get(0).contains("REM_INV_REQ_ERR"),
                on.outcome().completionsA().toString());
    }

    @Test
    @DisplayName(
            "IBA 10.6.3.1: a SEND reaching a receive SGE with a bad L_Key mid-message is NAKed on the same packet, the bytes before it placed")
    void shouldFailOnTheSamePacketWhenSendReachesABadReceiveSge() {
        Result on = assertSameWithAndWithoutOffload(
                "send into bad SGE", 6, Mtu.MTU_512, 128, 7, Compare.ALL_BUT_TIME, e -> {
                    e.qb.postRecv(
                            new RecvWr().wrId(9).sge(e.mb, 0, 5 * 512 / 2).sge(e.mb.address() + 4096, 4096, BAD_LKEY));
                    e.qa.postSend(new SendWr()
                            .wrId(1)
                            .opcode(WrOpcode.SEND)
                            .flag(SendFlag.SIGNALED)
                            .sge(e.ma, 0, 6 * 512));
                });
        assertTrue(
                on.outcome().completionsB().get(0).contains("LOC_PROT_ERR"),
                on.outcome().completionsB().toString());
        assertTrue(
                on.outcome().completionsA().get(0).contains("REM_OP_ERR"),
                on.outcome().completionsA().toString());
    }

    @Test
    @DisplayName(
            "IBA 10.6.3.1: an RDMA READ whose local SGE fails its check mid-message completes LOC_PROT_ERR with the same bytes placed")
    void shouldFailTheSameWayWhenReadResponsesReachABadLocalSge() {
        Result on = assertSameWithAndWithoutOffload(
                "read into bad SGE",
                7,
                Mtu.MTU_1024,
                128,
                7,
                Compare.ALL_BUT_TIME,
                e -> e.qa.postSend(new SendWr()
                        .wrId(1)
                        .opcode(WrOpcode.RDMA_READ)
                        .flag(SendFlag.SIGNALED)
                        .sge(e.ma, 100, 7 * 1024 / 2)
                        .sge(e.ma.address() + 8192, 8192, BAD_LKEY)
                        .remote(e.mb.address(), e.mb.rkey())));
        assertTrue(
                on.outcome().completionsA().get(0).contains("LOC_PROT_ERR"),
                on.outcome().completionsA().toString());
    }

    @Test
    @DisplayName(
            "IBA 9.7.5.2.4 / 10.3.1: an RDMA WRITE past the end of the remote region is NAKed at its first PSN; the rest of the burst reaches a QP in ERR and is dropped packet by packet")
    void shouldNakTheFirstPacketAndDropTheRestWhenWriteExceedsTheRemoteRegion() {
        Result on = assertSameWithAndWithoutOffload(
                "write past region",
                8,
                Mtu.MTU_1024,
                128,
                7,
                Compare.ALL_BUT_TIME,
                e -> e.qa.postSend(new SendWr()
                        .wrId(1)
                        .opcode(WrOpcode.RDMA_WRITE)
                        .flag(SendFlag.SIGNALED)
                        .sge(e.ma, 0, 40 * 1024)
                        .remote(e.mb.address() + BUF - 8 * 1024, e.mb.rkey())));
        assertTrue(
                on.outcome().completionsA().get(0).contains("REM_ACCESS_ERR"),
                on.outcome().completionsA().toString());
        assertEquals(
                39L,
                on.outcome().devB().get(Counter.DROPPED_PACKETS),
                "the 39 packets after the NAKed one reach a QP in ERR and are dropped one by one");
    }

    @Test
    @DisplayName("IBA 9.7.5.2.8: a SEND with no receive WQE is RNR NAKed at its first PSN and retried, as one by one")
    void shouldRnrNakAndRetryTheSameWayWhenNoReceiveIsPosted() {
        Result on = assertSameWithAndWithoutOffload("rnr then receive", 9, Mtu.MTU_1024, 128, 7, Compare.RESULTS, e -> {
            e.qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .flag(SendFlag.SIGNALED)
                    .sge(e.ma, 0, 30 * 1024));
            e.fabric.deterministicScheduler().advanceTime(50_000);
            e.qb.postRecv(new RecvWr().wrId(9).sge(e.mb, 0, 64 * 1024));
        });
        assertTrue(
                on.outcome().completionsA().get(0).contains("SUCCESS"),
                on.outcome().completionsA().toString());
        Result exhausted = assertSameWithAndWithoutOffload(
                "rnr exhausted",
                10,
                Mtu.MTU_1024,
                128,
                1,
                Compare.ALL_BUT_TIME,
                e -> e.qa.postSend(new SendWr()
                        .wrId(1)
                        .opcode(WrOpcode.SEND)
                        .flag(SendFlag.SIGNALED)
                        .sge(e.ma, 0, 30 * 1024)));
        assertTrue(
                exhausted.outcome().completionsA().get(0).contains("RNR_RETRY_EXC_ERR"),
                exhausted.outcome().completionsA().toString());
        assertEquals(2L, exhausted.outcome().qpB().get(Counter.RNR_NAK_SENT), "RNR NAKs: the first try and one retry");
    }

    // ------------------------------------------------------------------ per-packet fidelity when observed

    /** Counts the packets a listener sees sent and delivered, and checks request PSNs follow one another. */
    static final class Watcher implements TraceListener {
        long sent;
        long delivered;
        int lastRequestPsn = -1;
        int psnGaps;

        @Override
        public synchronized void onPacket(
                PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            assertEquals(1, p.burstPackets(), "a listener never sees a burst");
            if (event == PacketEvent.SENT) {
                sent++;
                if (p.opcode().isRequest()) {
                    if (lastRequestPsn >= 0 && p.psn() != Psn.add(lastRequestPsn, 1)) {
                        psnGaps++;
                    }
                    lastRequestPsn = p.psn();
                }
            } else if (event == PacketEvent.DELIVERED) {
                delivered++;
            }
        }
    }

    private static final Consumer<Ends> BIG_WRITE = e -> e.qa.postSend(new SendWr()
            .wrId(1)
            .opcode(WrOpcode.RDMA_WRITE)
            .flag(SendFlag.SIGNALED)
            .sge(e.ma, 0, 600 * 1024)
            .remote(e.mb.address(), e.mb.rkey()));

    private static long packets(Map<Counter, Long> c) {
        return c.get(Counter.PACKETS_SENT);
    }

    @Test
    @DisplayName("a trace listener sees every packet one by one: offload steps aside while one is attached")
    void shouldSendPacketByPacketWhenATraceListenerIsAttached() {
        Watcher w = new Watcher();
        Result off = run(11, Mtu.MTU_1024, 128, 7, false, BIG_WRITE);
        Result on = run(11, Mtu.MTU_1024, 128, 7, true, e -> {
            e.fabric.addTraceListener(w);
            BIG_WRITE.accept(e);
        });
        assertEquals(
                off.steps(), on.steps(), "scheduler steps with a listener (per-packet run had " + off.steps() + ")");
        assertEquals(packets(on.outcome().qpA()) + packets(on.outcome().qpB()), w.sent, "SENT events vs packets sent");
        assertEquals(w.sent, w.delivered, "DELIVERED events");
        assertEquals(0, w.psnGaps, "request PSNs out of order in the trace");
        assertEquals(off.outcome(), on.outcome());
    }

    @Test
    @DisplayName(
            "a fault rule needs each packet: offload steps aside while the link has one, even one that never fires")
    void shouldSendPacketByPacketWhenTheLinkHasAFaultRule() {
        Consumer<Ends> withRule = e -> {
            e.link().addFault(FaultRule.drop(PacketMatcher.psn(0x7FFFFF)));
            BIG_WRITE.accept(e);
        };
        Result off = run(12, Mtu.MTU_1024, 128, 7, false, withRule);
        Result on = run(12, Mtu.MTU_1024, 128, 7, true, withRule);
        assertEquals(off.steps(), on.steps(), "scheduler steps with a fault rule");
        assertEquals(off.outcome(), on.outcome());
    }

    @Test
    @DisplayName("a packet capture writes one frame per packet while offload is on")
    void shouldCaptureEveryPacketWhenOffloadIsOn() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long[] frames = new long[1];
        Result on = run(13, Mtu.MTU_1024, 128, 7, true, e -> {
            PacketCapture c = PacketCapture.on(e.fabric).start(out);
            BIG_WRITE.accept(e);
            e.run();
            c.stop();
            frames[0] = c.frames();
            c.close();
        });
        long packets = packets(on.outcome().qpA()) + packets(on.outcome().qpB());
        assertEquals(packets, frames[0], "frames captured vs packets sent");
    }

    @ParameterizedTest(name = "after {0} ns")
    @ValueSource(longs = {1_000, 7_000, 20_000, 45_000})
    @DisplayName(
            "a trace listener attached mid-transfer sees the packets still to come one by one; the outcome is as without offload")
    void shouldStayExactWhenATraceListenerIsAttachedMidTransfer(long after) {
        Consumer<Ends> scenario = e -> {
            BIG_WRITE.accept(e);
            e.fabric.deterministicScheduler().advanceTime(after);
            Watcher w = new Watcher();
            e.fabric.addTraceListener(w);
            e.run();
            assertEquals(0, w.psnGaps, "request PSNs out of order after the listener came");
            assertTrue(w.delivered > 0, "the listener saw packets delivered");
        };
        Result on = assertSameWithAndWithoutOffload("listener after " + after, 14, Mtu.MTU_1024, 128, 7, scenario);
        assertEquals(1, on.outcome().completionsA().size());
    }

    @ParameterizedTest(name = "after {0} ns")
    @ValueSource(longs = {1_000, 7_000, 20_000})
    @DisplayName(
            "IBA 9.7.5.1.2: a drop rule added mid-transfer loses the same packet and go-back-N resends the same PSNs as without offload")
    void shouldStayExactWhenAFaultRuleIsAddedMidTransfer(long after) {
        Result on = assertSameWithAndWithoutOffload("drop rule after " + after, 15, Mtu.MTU_1024, 128, 7, e -> {
            BIG_WRITE.accept(e);
            e.fabric.deterministicScheduler().advanceTime(after);
            e.link().addFault(FaultRule.drop(PacketMatcher.nth(3, PacketMatcher.requests())));
        });
        assertTrue(on.outcome().qpA().get(Counter.RETRANSMITTED_PACKETS) > 0, "the lost packet was resent");
        assertTrue(
                on.outcome().completionsA().get(0).contains("SUCCESS"),
                on.outcome().completionsA().toString());
    }

    @Test
    @DisplayName("ibv_query_qp(3)-visible state aside, the wire opcodes a burst stands for are First, Middle..., Last")
    void shouldWalkABurstAsItsPackets() {
        Packet p = Packet.allocate(Opcode.RC_RDMA_WRITE_FIRST);
        ByteBuffer src = ByteBuffer.allocate(10 * 256 + 17);
        p.psn(Psn.MASK).reth(0x1000, 0x55, src.capacity()).addSegment(src, 0, src.capacity());
        p.burst(11, 256, Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0xCAFE, false, true);
        List<String> seen = new ArrayList<>();
        while (p.isBurst()) {
            Packet q = p.splitFirst();
            seen.add(q.opcode() + " " + q.psn() + " " + q.payloadLength() + " " + q.ackReq());
            q.release();
        }
        seen.add(p.opcode() + " " + p.psn() + " " + p.payloadLength() + " " + p.ackReq() + " imm=" + p.immediate()
                + " pad=" + p.padCount());
        p.release();
        assertEquals(11, seen.size());
        assertEquals("RC_RDMA_WRITE_FIRST " + Psn.MASK + " 256 false", seen.get(0));
        assertEquals("RC_RDMA_WRITE_MIDDLE 0 256 false", seen.get(1), "the PSN wraps");
        assertEquals("RC_RDMA_WRITE_MIDDLE 8 256 false", seen.get(9));
        assertEquals("RC_RDMA_WRITE_LAST_WITH_IMMEDIATE 9 17 true imm=51966 pad=3", seen.get(10));
    }
}
