package io.simrdma.tools.perf;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What this machine does without the fabric, measured in the same JVM run as each figure so that
 * the ratio between them survives a noisy, shared machine:
 * <ul>
 *   <li>{@link #copy}: copying a direct buffer into another, the bytes a transfer moves, at memory
 *       speed (what a WRITE or READ within one JVM must at least do), the same number of messages
 *       through as many buffer pairs as the test;</li>
 *   <li>{@link #handOff}: handing items from one thread to another through an
 *       {@link ArrayBlockingQueue} of tx-depth slots (what a post to another thread's engine must at
 *       least do);</li>
 *   <li>{@link #spinRoundTrip}: two threads answering each other through volatile fields, spinning
 *       (the fastest cross-thread round trip, what a ping-pong between two threads must at least take).</li>
 * </ul>
 * Between two JVMs the baselines are a raw Netty stream and ping-pong ({@link NettyBaseline}).
 *
 * <p>Thread safety: stateless; each call starts and ends its own threads.
 */
final class Baselines {

    /** A measurement lasts about this long, after a warm-up of a quarter of it. */
    private static final long BUDGET_NANOS = 250_000_000L;

    /** The copy baseline's measured copies are repeated until they have taken at least this long. */
    private static final long MIN_RUN_NANOS = 20_000_000L;

    /** The copy baseline's buffer pairs hold at most this many bytes in all. */
    private static final long MAX_COPY_BYTES = 256L * 1024 * 1024;

    private static final Object TOKEN = new Object();

    private Baselines() {}

    /**
     * Bytes per second copying {@code messages} messages of {@code size} bytes from one direct buffer
     * into another, as the test moves them: message {@code i} through the {@code i % pairs}-th of
     * {@code pairs} buffer pairs (one per QP, as the test's), the rate being the average over the
     * whole run after a warm-up, like the test's average. Runs shorter than
     * {@value #MIN_RUN_NANOS} ns are repeated and averaged, so a small test still gets a baseline
     * the clock resolves.
     *
     * <p>Like with like: an earlier version kept the best of four short windows of copies, set
     * against the test's average over its whole run (on a shared machine the best window is the one
     * nobody preempted, the average includes every preemption); both are averages over the same
     * bytes and buffers now. The pairs are capped at {@value #MAX_COPY_BYTES} bytes in all (the
     * test's own buffers are still allocated beside them; many QPs of the largest sizes would
     * otherwise double the direct memory the run needs): beyond that both working sets are far
     * larger than the caches anyway.
     */
    static double copy(int size, long messages, int qps) {
        int pairs = (int) Math.max(1, Math.min(qps, MAX_COPY_BYTES / (2L * size)));
        ByteBuffer[] from = new ByteBuffer[pairs];
        ByteBuffer[] to = new ByteBuffer[pairs];
        for (int p = 0; p < pairs; p++) {
            from[p] = ByteBuffer.allocateDirect(size);
            to[p] = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i += 4096) {
                from[p].put(i, (byte) i);
                to[p].put(i, (byte) 0);
            }
        }
        // Warm-up: compile the loop and bring the buffers into the caches (as the test's warm-up does).
        long warm = System.nanoTime() + BUDGET_NANOS / 10;
        long reps = 1;
        while (System.nanoTime() - warm < 0) {
            copies(from, to, size, reps);
            reps = Math.min(reps * 2, Math.max(1, messages));
        }
        long runs = 0;
        long nanos = 0;
        do {
            long t = System.nanoTime();
            copies(from, to, size, messages);
            nanos += System.nanoTime() - t;
            runs++;
        } while (nanos < MIN_RUN_NANOS);
        return runs * (double) messages * size * 1e9 / Math.max(1, nanos);
    }

    /** Copies {@code n} messages of {@code size} bytes, message {@code i} through pair {@code i % pairs}. */
    private static void copies(ByteBuffer[] from, ByteBuffer[] to, int size, long n) {
        int pairs = from.length;
        int p = 0;
        for (long i = 0; i < n; i++) {
            to[p].put(0, from[p], 0, size);
            if (++p == pairs) {
                p = 0;
            }
        }
    }

    /** Items per second passed from one thread to another through an ArrayBlockingQueue of {@code capacity}. */
    static double handOff(int capacity) {
        handOffRun(capacity, 50_000);
        long items = 50_000;
        while (true) {
            long nanos = handOffRun(capacity, items);
            if (nanos > BUDGET_NANOS / 2 || items >= 50_000_000) {
                return items * 1e9 / Math.max(1, nanos);
            }
            items *= 2;
        }
    }

    private static long handOffRun(int capacity, long items) {
        ArrayBlockingQueue<Object> q = new ArrayBlockingQueue<>(Math.max(1, capacity));
        Thread producer = new Thread(
                () -> {
                    try {
                        for (long i = 0; i < items; i++) {
                            q.put(TOKEN);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "simrdma-perf-handoff");
        producer.setDaemon(true);
        long start = System.nanoTime();
        producer.start();
        try {
            for (long i = 0; i < items; i++) {
                q.take();
            }
            long nanos = System.nanoTime() - start;
            producer.join();
            return nanos;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            producer.interrupt();
            throw new PerfFailure("interrupted while measuring the hand-off baseline", e);
        }
    }

    /** Round trips between two spinning threads, in nanoseconds per sample (a warm-up first). */
    static Histogram spinRoundTrip(int samples) {
        AtomicLong ping = new AtomicLong();
        AtomicLong pong = new AtomicLong();
        long rounds = samples + Math.max(10_000, samples / 4L);
        Thread echo = new Thread(
                () -> {
                    long seen = 0;
                    while (seen < rounds) {
                        long v = ping.get();
                        if (v != seen) {
                            seen = v;
                            pong.set(v);
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                },
                "simrdma-perf-spin");
        echo.setDaemon(true);
        echo.start();
        Histogram h = new Histogram(3);
        long warm = rounds - samples;
        for (long r = 1; r <= rounds; r++) {
            long t = System.nanoTime();
            ping.set(r);
            while (pong.get() != r) {
                Thread.onSpinWait();
            }
            if (r > warm) {
                h.recordValue(System.nanoTime() - t);
            }
        }
        try {
            echo.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return h;
    }
}
