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
 *       speed (what a WRITE or READ within one JVM must at least do);</li>
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

    private static final Object TOKEN = new Object();

    private Baselines() {}

    /** Bytes per second copying {@code size} bytes from one direct buffer into another. */
    static double copy(int size) {
        ByteBuffer from = ByteBuffer.allocateDirect(size);
        ByteBuffer to = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i += 4096) {
            from.put(i, (byte) i);
            to.put(i, (byte) 0);
        }
        long reps = 1;
        long nanos;
        // Grow the repetitions until a run takes a tenth of the budget; the last run counts.
        while (true) {
            long t = System.nanoTime();
            for (long r = 0; r < reps; r++) {
                to.put(0, from, 0, size);
            }
            nanos = System.nanoTime() - t;
            if (nanos > BUDGET_NANOS / 10) {
                break;
            }
            reps *= 2;
        }
        long best = nanos;
        for (int round = 0; round < 4; round++) {
            long t = System.nanoTime();
            for (long r = 0; r < reps; r++) {
                to.put(0, from, 0, size);
            }
            best = Math.min(best, System.nanoTime() - t);
        }
        return reps * (double) size * 1e9 / Math.max(1, best);
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
