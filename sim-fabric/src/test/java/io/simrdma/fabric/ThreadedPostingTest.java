package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The threaded scheduler with a multi-threaded application (QueuePair and CompletionQueue are
 * documented thread-safe; ibv_post_send(3), ibv_post_recv(3) and ibv_poll_cq(3) may be called
 * concurrently): several threads post to one QP while others post receives to its peer and
 * several threads poll each CQ. Every WR must complete exactly once, successfully, with its
 * data intact. Waits have deadlines; nothing sleeps.
 */
class ThreadedPostingTest {

    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int MSG_SLOT = 640;

    /** Runs {@code body} on {@code n} application threads and waits for all with the test's deadline. */
    private static final class Crew {
        final List<Thread> threads = new ArrayList<>();
        final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

        void start(String name, int n, IndexedBody body) {
            for (int i = 0; i < n; i++) {
                int index = i;
                Thread t = new Thread(
                        () -> {
                            try {
                                body.run(index);
                            } catch (Throwable e) {
                                failures.add(e);
                            }
                        },
                        "app-" + name + "-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }

        void join(long deadline) throws InterruptedException {
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (t.isAlive()) {
                    failures.add(new AssertionError(t.getName() + " did not finish before the deadline"));
                }
            }
            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError(
                        failures.size() + " application thread(s) failed; first: " + failures.peek());
                failures.forEach(e::addSuppressed);
                throw e;
            }
        }
    }

    @FunctionalInterface
    private interface IndexedBody {
        void run(int index) throws Exception;
    }

    /** Polls {@code cq} until {@code total} completions have been taken by all pollers together. */
    private static void pollUntil(
            CompletionQueue cq,
            AtomicInteger taken,
            int total,
            long deadline,
            java.util.function.Consumer<WorkCompletion> onCompletion) {
        WorkCompletion[] wcs = WorkCompletion.array(16);
        while (taken.get() < total) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("only " + taken.get() + " of " + total + " completions before the deadline");
            }
            int n = cq.poll(wcs);
            if (n == 0) {
                cq.awaitCompletions(1, 5, TimeUnit.MILLISECONDS);
                continue;
            }
            taken.addAndGet(n);
            for (int i = 0; i < n; i++) {
                onCompletion.accept(wcs[i]);
            }
        }
    }

    private static long id(int thread, int seq) {
        return ((long) thread << 32) | seq;
    }

    @Test
    @DisplayName(
            "4 threads post 1000 SEND / SEND with immediate / WRITE with immediate (some INLINE) to one QP, 2 post receives, 5 poll: each completes once, data intact")
    void shouldCompleteEveryWrExactlyOnceWhenThreadsPostAndPollConcurrently() throws Exception {
        int posters = 4;
        int perPoster = 250;
        int total = posters * perPoster;
        int receivers = 2;
        try (RcPair p = DataPathSupport.pair(DataPathSupport.THREADED, new QpCaps(128, 1024, 1, 1, 64), 4096, false)) {
            p.minRnrTimer = 1;
            ByteBuffer aBig = ByteBuffer.allocateDirect(2 * total * MSG_SLOT);
            ByteBuffer bBig = ByteBuffer.allocateDirect(2 * total * MSG_SLOT);
            MemoryRegion aMr = p.a.pd.registerMemory(aBig, RcPair.ALL);
            MemoryRegion bMr = p.b.pd.registerMemory(bBig, RcPair.ALL);
            p.connect();
            long deadline = System.nanoTime() + DEADLINE_NANOS;

            // What each message is: opcode and length, chosen per message from a seed.
            WrOpcode[] opOf = new WrOpcode[total];
            int[] lenOf = new int[total];
            boolean[] inlineOf = new boolean[total];
            SplittableRandom rnd = new SplittableRandom(DataPathSupport.SEED);
            for (int m = 0; m < total; m++) {
                int k = rnd.nextInt(3);
                opOf[m] = k == 0 ? WrOpcode.SEND : k == 1 ? WrOpcode.SEND_WITH_IMM : WrOpcode.RDMA_WRITE_WITH_IMM;
                lenOf[m] = 8 + rnd.nextInt(MSG_SLOT - 8 + 1);
                inlineOf[m] = opOf[m] != WrOpcode.RDMA_WRITE_WITH_IMM && lenOf[m] <= 64 && rnd.nextBoolean();
                if (rnd.nextInt(10) == 0) {
                    lenOf[m] = 8 + rnd.nextInt(57);
                    inlineOf[m] = true;
                }
                // Message m's bytes: its index first, then a pattern from it.
                aBig.putInt(m * MSG_SLOT, m);
                aBig.putInt(m * MSG_SLOT + 4, ~m);
                fill(aBig, m * MSG_SLOT + 8, lenOf[m] - 8, m);
            }

            Map<Long, Integer> sendSeen = new ConcurrentHashMap<>();
            Map<Long, Integer> recvSeen = new ConcurrentHashMap<>();
            Map<Integer, Integer> messageSeen = new ConcurrentHashMap<>();
            Queue<String> problems = new ConcurrentLinkedQueue<>();
            Semaphore[] credits = new Semaphore[posters];
            for (int t = 0; t < posters; t++) {
                credits[t] = new Semaphore(32); // 4 x 32 = max_send_wr: posting never finds the queue full
            }
            AtomicInteger sendTaken = new AtomicInteger();
            AtomicInteger recvTaken = new AtomicInteger();

            Crew crew = new Crew();
            crew.start("recv-poster", receivers, r -> {
                RecvWr wr = new RecvWr();
                for (int k = 0; k < total / receivers; k++) {
                    int slot = r * (total / receivers) + k;
                    p.b.qp.postRecv(wr.clear().wrId(slot).sge(bMr, (long) slot * MSG_SLOT, MSG_SLOT));
                }
            });
            crew.start("poster", posters, t -> {
                SendWr wr = new SendWr();
                for (int s = 0; s < perPoster; s++) {
                    int m = t * perPoster + s;
                    if (!credits[t].tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        throw new AssertionError("poster " + t + " got no completion credit before the deadline");
                    }
                    wr.clear()
                            .wrId(id(t, s))
                            .opcode(opOf[m])
                            .immData(m)
                            .sge(aMr, (long) m * MSG_SLOT, lenOf[m])
                            .flag(SendFlag.SIGNALED);
                    if (inlineOf[m]) {
                        wr.flag(SendFlag.INLINE);
                    }
                    if (opOf[m] == WrOpcode.RDMA_WRITE_WITH_IMM) {
                        wr.remote(bMr.address() + (long) (total + m) * MSG_SLOT, bMr.rkey());
                    }
                    p.a.qp.postSend(wr);
                }
            });
            crew.start(
                    "send-poller",
                    3,
                    x -> pollUntil(p.a.cq, sendTaken, total, deadline, wc -> {
                        long wrId = wc.wrId();
                        int t = (int) (wrId >>> 32);
                        int m = t * perPoster + (int) wrId;
                        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != opOf[m].completionOpcode()) {
                            problems.add("send completion " + wc + " for message " + m);
                        }
                        sendSeen.merge(wrId, 1, Integer::sum);
                        credits[t].release();
                    }));
            crew.start(
                    "recv-poller",
                    2,
                    x -> pollUntil(p.b.cq, recvTaken, total, deadline, wc -> {
                        recvSeen.merge(wc.wrId(), 1, Integer::sum);
                        if (wc.status() != WcStatus.SUCCESS
                                || !wc.hasFlag(WcFlag.WITH_IMM) && wc.opcode() != WcOpcode.RECV) {
                            problems.add("receive completion " + wc);
                            return;
                        }
                        int m;
                        int at;
                        if (wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM) {
                            m = wc.immData();
                            at = (total + m) * MSG_SLOT;
                        } else {
                            at = (int) wc.wrId() * MSG_SLOT;
                            m = bBig.getInt(at);
                        }
                        if (m < 0 || m >= total) {
                            problems.add("receive completion " + wc + " names no message: " + m);
                            return;
                        }
                        messageSeen.merge(m, 1, Integer::sum);
                        WcOpcode expected =
                                opOf[m] == WrOpcode.RDMA_WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
                        if (wc.opcode() != expected
                                || wc.byteLen() != lenOf[m]
                                || (opOf[m] != WrOpcode.SEND) != wc.hasFlag(WcFlag.WITH_IMM)
                                || wc.hasFlag(WcFlag.WITH_IMM) && wc.immData() != m) {
                            problems.add("receive completion " + wc + " does not match message " + m + " (" + opOf[m]
                                    + ", " + lenOf[m] + " bytes)");
                        }
                        for (int i = 0; i < lenOf[m]; i++) {
                            if (aBig.get(m * MSG_SLOT + i) != bBig.get(at + i)) {
                                problems.add("message " + m + " differs at byte " + i);
                                break;
                            }
                        }
                    }));
            crew.join(deadline + TimeUnit.SECONDS.toNanos(5));

            assertTrue(problems.isEmpty(), () -> problems.size() + " problems, first: " + problems.peek());
            assertEquals(total, sendSeen.size(), "every send WR completed");
            sendSeen.forEach((k, v) -> assertEquals(1, v, () -> "send WR " + k + " completed " + v + " times"));
            assertEquals(total, recvSeen.size(), "every receive WR completed");
            recvSeen.forEach((k, v) -> assertEquals(1, v, () -> "receive WR " + k + " completed " + v + " times"));
            assertEquals(total, messageSeen.size(), "every message arrived");
            messageSeen.forEach((k, v) -> assertEquals(1, v, () -> "message " + k + " arrived " + v + " times"));
            assertEquals(0, p.a.cq.size());
            assertEquals(0, p.b.cq.size());
            assertEquals(QpState.RTS, p.a.qp.state());
            assertEquals(QpState.RTS, p.b.qp.state());
            assertEngineHealthy(p.fabric);
        }
    }

    @Test
    @DisplayName(
            "4 threads x 200 FETCH_AND_ADD on one remote word, 2 pollers: the word counts every add once and each fetch saw a distinct value")
    void shouldCountEveryAddOnceWhenThreadsIssueFetchAndAddConcurrently() throws Exception {
        int posters = 4;
        int perPoster = 200;
        int total = posters * perPoster;
        try (RcPair p = DataPathSupport.pair(DataPathSupport.THREADED, new QpCaps(64, 16, 1, 1, 0), 2048, false)) {
            p.maxRdAtomic = 16;
            p.connect();
            ByteBuffer results = ByteBuffer.allocate(total * 8);
            MemoryRegion rmr = p.a.pd.registerMemory(results, RcPair.ALL);
            long start = 1L << 40;
            p.b.buf.putLong(4096, start);
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            Semaphore credits = new Semaphore(64);
            AtomicInteger taken = new AtomicInteger();
            Map<Long, Integer> seen = new ConcurrentHashMap<>();
            Queue<String> problems = new ConcurrentLinkedQueue<>();

            Crew crew = new Crew();
            crew.start("faa", posters, t -> {
                SendWr wr = new SendWr();
                for (int s = 0; s < perPoster; s++) {
                    int m = t * perPoster + s;
                    if (!credits.tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        throw new AssertionError("no credit before the deadline");
                    }
                    p.a.qp.postSend(wr.clear()
                            .wrId(m)
                            .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                            .sge(rmr, 8L * m, 8)
                            .remote(p.b.addr(4096), p.b.mr.rkey())
                            .atomic(1, 0)
                            .flag(SendFlag.SIGNALED));
                }
            });
            crew.start(
                    "poller",
                    2,
                    x -> pollUntil(p.a.cq, taken, total, deadline, wc -> {
                        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.FETCH_ADD || wc.byteLen() != 8) {
                            problems.add(wc.toString());
                        }
                        seen.merge(wc.wrId(), 1, Integer::sum);
                        credits.release();
                    }));
            crew.join(deadline + TimeUnit.SECONDS.toNanos(5));

            assertTrue(problems.isEmpty(), () -> "bad completions: " + problems);
            assertEquals(total, seen.size());
            seen.forEach((k, v) -> assertEquals(1, v, () -> "FETCH_AND_ADD " + k + " completed " + v + " times"));
            assertEquals(start + total, p.b.buf.getLong(4096), "every add counted once");
            TreeSet<Long> fetched = new TreeSet<>();
            for (int m = 0; m < total; m++) {
                if (!fetched.add(results.getLong(8 * m))) {
                    fail("two FETCH_AND_ADDs fetched " + results.getLong(8 * m));
                }
            }
            assertEquals(start, fetched.first());
            assertEquals(start + total - 1, fetched.last());
            assertEngineHealthy(p.fabric);
        }
    }
}
