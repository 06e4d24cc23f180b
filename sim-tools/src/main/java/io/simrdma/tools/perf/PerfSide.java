package io.simrdma.tools.perf;

import java.nio.ByteBuffer;

/**
 * One side of a test's connections on one API layer: its QPs (or endpoints), their buffers, and
 * the posts and polls the test loops need. The loops ({@link BwLoop}, {@link LatLoop}) see only
 * this, so the verbs and DAT layers run the same loop.
 *
 * <p>Each QP {@code q} has two buffers of the run's largest size: {@link #src(int)}, the local data
 * of WRITEs and SENDs and the landing place of READs and atomics; and {@link #dst(int)}, where the
 * peer's WRITEs, READs and atomics go and where receives land.
 *
 * <p>A request's sequence number travels as its wr_id (or DAT cookie): {@code q << 48 | seq}.
 *
 * <p>Thread safety: not thread-safe; one thread drives a side.
 */
abstract class PerfSide implements AutoCloseable {

    static final int QP_SHIFT = 48;
    static final long SEQ_MASK = (1L << QP_SHIFT) - 1;

    /** Number of QPs. */
    abstract int qps();

    /** Which API, for reports. */
    abstract PerfSettings.Layer layer();

    /** Makes the requests of {@code verb} with messages of {@code size} bytes (not per post). */
    abstract void prepare(PerfTest.Verb verb, int size);

    /**
     * Posts {@code n} requests on QP {@code q}, sequence numbers {@code first} onwards, in one call
     * where the layer can chain them; request {@code s} is signalled when {@code (s + 1) % cqMod == 0}
     * or {@code s == last}.
     */
    abstract void post(int q, long first, int n, int cqMod, long last);

    /** Posts {@code n} receives of the prepared size on QP {@code q}. */
    abstract void postRecv(int q, int n);

    /**
     * Polls completed requests into {@code seqs} ({@code q << 48 | seq} each); on a deterministic
     * fabric an empty poll runs the engine a step.
     *
     * @return how many
     * @throws PerfFailure for a completion with an error
     */
    abstract int pollRequests(long[] seqs);

    /**
     * Polls completed receives, writing the QP of each into {@code qps}.
     *
     * @return how many
     * @throws PerfFailure for a completion with an error
     */
    abstract int pollRecvs(int[] qps);

    /** The local data buffer of QP {@code q}. */
    abstract ByteBuffer src(int q);

    /** The buffer QP {@code q}'s peer writes into and reads from. */
    abstract ByteBuffer dst(int q);

    /** Releases every object of the side. */
    @Override
    public abstract void close();

    /** A request's wr_id or cookie. */
    static long tag(int q, long seq) {
        return ((long) q << QP_SHIFT) | seq;
    }

    /** Whether request {@code s} of a run to {@code last} is signalled. */
    static boolean signalled(long s, int cqMod, long last) {
        return (s + 1) % cqMod == 0 || s == last;
    }

    /** Where a side's peer lets it write: the address and key of one QP's {@link #dst(int)} buffer. */
    record Remote(long addr, int rkey) {}
}
