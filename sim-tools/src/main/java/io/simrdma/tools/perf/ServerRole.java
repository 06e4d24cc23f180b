package io.simrdma.tools.perf;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * What the server side of a test does while the client measures, one non-blocking step at a time:
 * nothing for RDMA WRITE and READ bandwidth and for READ and atomic latency (the server's CPU
 * takes no part, as in perftest); for send-bw, repost each receive that completed; for send-lat,
 * answer each message with one of the same size; for write-lat, watch the last byte of its
 * buffer for the client's write and write the same value back.
 *
 * <p>On a deterministic fabric the client's loop calls {@link #step()} between its own polls (one
 * thread runs everything); otherwise {@link #runUntilStopped()} runs on a thread of its own, or in
 * the server's JVM.
 *
 * <p>Thread safety: one thread steps it; {@link #stop()} may be called from any thread.
 */
final class ServerRole {

    private final PerfSide side;
    private final PerfTest test;
    private final int size;
    private final int[] qps = new int[64];
    private final long[] seqs = new long[64];
    private volatile boolean stopped;
    /** Why {@link #runUntilStopped()} ended early, or null. */
    private volatile RuntimeException failure;
    /** write-lat: the round being waited for. */
    private long round;
    /** Requests posted and not yet seen complete (each is signalled in the latency tests). */
    private long outstanding;

    private boolean answerPending;

    ServerRole(PerfSide side, PerfTest test, int size) {
        this.side = side;
        this.test = test;
        this.size = size;
        if (test == PerfTest.WRITE_LAT) {
            // A value left by the last run must not pass for this run's first write.
            side.dst(0).put(size - 1, (byte) 0);
        }
    }

    /** Whether the server does anything at all in this test (a passive server's thread just waits). */
    boolean active() {
        return test == PerfTest.SEND_BW || test == PerfTest.SEND_LAT || test == PerfTest.WRITE_LAT;
    }

    /** One step; true if it did some work. */
    boolean step() {
        switch (test) {
            case SEND_BW:
                return repostReceives();
            case SEND_LAT:
                return answerSend();
            case WRITE_LAT:
                return answerWrite();
            default:
                return false;
        }
    }

    private boolean repostReceives() {
        int n = side.pollRecvs(qps);
        for (int i = 0; i < n; i++) {
            side.postRecv(qps[i], 1);
        }
        return n > 0;
    }

    private boolean answerSend() {
        reap();
        int n = side.pollRecvs(qps);
        if (n > 0) {
            side.postRecv(0, n);
            answerPending = true;
        }
        if (answerPending && outstanding == 0) {
            side.post(0, round, 1, 1, round);
            round++;
            outstanding++;
            answerPending = false;
            return true;
        }
        return n > 0;
    }

    private boolean answerWrite() {
        reap();
        if (outstanding > 0) {
            return false;
        }
        byte expected = LatLoop.roundValue(round);
        ByteBuffer in = side.dst(0);
        VarHandle.acquireFence();
        if (in.get(size - 1) != expected) {
            return false;
        }
        side.src(0).put(size - 1, expected);
        side.post(0, round, 1, 1, round);
        round++;
        outstanding++;
        return true;
    }

    private void reap() {
        if (outstanding > 0) {
            outstanding -= side.pollRequests(seqs);
        }
    }

    /** Steps until {@link #stop()}; a passive server only waits. */
    void runUntilStopped() {
        if (!active()) {
            synchronized (this) {
                while (!stopped) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
            return;
        }
        try {
            while (!stopped) {
                if (!step()) {
                    Thread.onSpinWait();
                }
            }
            drain();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    /** Why the server's part failed (a completion with an error...), or null. */
    RuntimeException failure() {
        return failure;
    }

    /**
     * Waits (a few seconds at most) for the completions of the answers still outstanding, so that
     * the next run starts with an empty send queue and CQ.
     */
    void drain() {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (outstanding > 0 && System.nanoTime() - deadline < 0) {
            reap();
        }
        if (outstanding > 0) {
            throw new PerfFailure(outstanding + " answers of the server never completed");
        }
    }

    /** Makes {@link #runUntilStopped()} return. */
    void stop() {
        stopped = true;
        synchronized (this) {
            notifyAll();
        }
    }
}
