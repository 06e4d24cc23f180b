package io.simrdma.tools.perf;

/**
 * The bandwidth loop of write-bw, read-bw and send-bw, as perftest's run_iter_bw: each QP keeps up
 * to tx-depth requests outstanding, posting a post list at a time, one request in cq-mod
 * signalled; a signalled completion retires every request of its QP up to it (RC completes in
 * order). The clock runs from the first post to the last completion.
 *
 * <p>Peak: the run is cut into {@value #SLICES} slices of equal message counts, and the best
 * slice's rate is the peak (perftest takes its best per-iteration interval; slices keep one
 * preempted thread from counting as a burst).
 */
final class BwLoop {

    static final int SLICES = 16;

    /**
     * One measured run.
     *
     * @param messages     messages moved (iterations x QPs)
     * @param nanos        first post to last completion
     * @param peakNanosPerSlice the fastest slice's duration, for {@code messages / SLICES} messages
     */
    record Result(long messages, long nanos, long peakNanosPerSlice) {

        double messagesPerSecond() {
            return messages * 1e9 / nanos;
        }

        double peakMessagesPerSecond() {
            return peakNanosPerSlice <= 0 ? messagesPerSecond() : (double) messages / SLICES * 1e9 / peakNanosPerSlice;
        }
    }

    private BwLoop() {}

    /**
     * Runs {@code iterations} requests per QP of the prepared verb and size on {@code client};
     * {@code server}, if not null, is stepped between polls (a deterministic fabric's one thread).
     */
    static Result run(PerfSide client, ServerRole server, PerfSettings s, int iterations, Progress progress) {
        int n = client.qps();
        long[] posted = new long[n];
        long[] done = new long[n];
        long[] seqs = new long[64];
        long last = iterations - 1L;
        long total = (long) iterations * n;
        int depth = s.sendQueueDepth();
        long sliceSize = Math.max(1, total / SLICES);
        long nextSlice = sliceSize;
        long totalDone = 0;
        long start = System.nanoTime();
        long sliceStart = start;
        long peak = Long.MAX_VALUE;
        long lastProgress = start;
        int spins = 0;
        while (totalDone < total) {
            for (int q = 0; q < n; q++) {
                while (posted[q] < iterations) {
                    int k = (int)
                            Math.min(Math.min(s.postList(), iterations - posted[q]), depth - (posted[q] - done[q]));
                    if (k <= 0) {
                        break;
                    }
                    client.post(q, posted[q], k, s.cqMod(), last);
                    posted[q] += k;
                }
            }
            int c = client.pollRequests(seqs);
            if (c > 0) {
                lastProgress = 0;
            } else if ((++spins & 0xFFF) == 0) {
                long now = System.nanoTime();
                if (lastProgress == 0) {
                    lastProgress = now;
                } else if (now - lastProgress > LatLoop.STALL_NANOS) {
                    throw new PerfFailure("no completion for " + LatLoop.STALL_NANOS / 1_000_000_000L + " s after "
                            + totalDone + " of " + total + " requests; is the server side alive?");
                }
            }
            for (int i = 0; i < c; i++) {
                int q = (int) (seqs[i] >>> PerfSide.QP_SHIFT);
                long d = (seqs[i] & PerfSide.SEQ_MASK) + 1;
                totalDone += d - done[q];
                done[q] = d;
            }
            if (c > 0 && totalDone >= nextSlice) {
                long now = System.nanoTime();
                long slices = Math.max(1, (totalDone - (nextSlice - sliceSize)) / sliceSize);
                peak = Math.min(peak, (now - sliceStart) / slices);
                sliceStart = now;
                nextSlice = (totalDone / sliceSize + 1) * sliceSize;
            }
            if (server != null) {
                server.step();
            }
            progress.tick(totalDone, total);
        }
        long nanos = System.nanoTime() - start;
        return new Result(total, Math.max(1, nanos), peak == Long.MAX_VALUE ? 0 : peak);
    }
}
