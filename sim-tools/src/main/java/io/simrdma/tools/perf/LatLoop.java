package io.simrdma.tools.perf;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * The latency loops, as perftest's run_iter_lat: one operation at a time on QP 0, every request
 * signalled. A sample is the time between the starts of two consecutive iterations (perftest's
 * tposted deltas); the report divides ping-pong samples by two ({@link PerfTest#rttFactor()}).
 * <ul>
 *   <li>write-lat: write {@code size} bytes whose last byte is the round's value, then poll the own
 *       buffer's last byte until the server's write of the same value lands;</li>
 *   <li>send-lat: send, then busy-poll the receive CQ for the answer and repost the receive;</li>
 *   <li>read-lat, atomic-lat: post, then busy-poll the send CQ.</li>
 * </ul>
 * Every iteration also waits for its own request's completion, so the send queue never fills.
 */
final class LatLoop {

    /** A run that makes no progress for this long has failed (a server gone, a lost completion). */
    static final long STALL_NANOS = 60_000_000_000L;

    private LatLoop() {}

    /** The value of round {@code r}'s last byte: never 0 (fresh memory) and never the previous round's. */
    static byte roundValue(long r) {
        return (byte) (r % 255 + 1);
    }

    /**
     * Runs {@code iterations} rounds on {@code client}; {@code server}, if not null, is stepped in
     * between (a deterministic fabric's one thread).
     *
     * @return the samples, in nanoseconds, not yet divided by the RTT factor
     */
    static Histogram run(
            PerfSide client, ServerRole server, PerfTest test, int size, int iterations, Progress progress) {
        long[] seqs = new long[64];
        int[] qps = new int[64];
        ByteBuffer src = client.src(0);
        ByteBuffer dst = client.dst(0);
        Histogram h = new Histogram(3);
        boolean ping = test == PerfTest.WRITE_LAT;
        boolean pong = test == PerfTest.SEND_LAT;
        if (ping) {
            dst.put(size - 1, (byte) 0); // a value left by the last run must not pass for this run's answer
        }
        long previous = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            byte v = roundValue(i);
            if (ping) {
                src.put(size - 1, v);
            }
            long t = System.nanoTime();
            if (i > 0) {
                h.recordValue(t - previous);
            }
            previous = t;
            client.post(0, i, 1, 1, i);
            boolean completed = false;
            boolean answered = !ping && !pong;
            int spins = 0;
            long since = t;
            while (!completed || !answered) {
                if ((++spins & 0xFFF) == 0 && System.nanoTime() - since > STALL_NANOS) {
                    throw new PerfFailure("iteration " + i + " made no progress for " + STALL_NANOS / 1_000_000_000L
                            + " s (completed: " + completed + ", answered: " + answered
                            + "); is the server side alive?");
                }
                if (!completed && client.pollRequests(seqs) > 0) {
                    completed = true;
                }
                if (pong && !answered && client.pollRecvs(qps) > 0) {
                    client.postRecv(0, 1);
                    answered = true;
                }
                if (ping && !answered) {
                    VarHandle.acquireFence();
                    answered = dst.get(size - 1) == v;
                }
                if (server != null) {
                    server.step();
                }
            }
            progress.tick(i, iterations);
        }
        h.recordValue(System.nanoTime() - previous);
        return h;
    }
}
