package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.Errno;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.Sge;

/**
 * The receive queue of a UC or UD QP: a ring of preallocated WQEs (ibv_post_recv(3)). Posting
 * threads produce under {@link #postLock}; the device executor consumes.
 *
 * <p>Thread safety: as described.
 */
final class RecvRing {

    /** A posted receive work request, copied (or a WQE taken from an SRQ, as this package reads it). */
    static final class Wqe {
        long wrId;
        int numSge;
        final long[] addr;
        final int[] len;
        final int[] lkey;
        long capacity;

        Wqe(int maxSge) {
            addr = new long[maxSge];
            len = new int[maxSge];
            lkey = new int[maxSge];
        }
    }

    final Object postLock = new Object();
    private final Wqe[] slots;
    private final int maxSge;
    private volatile long producer;
    private volatile long consumer;

    RecvRing(int maxWr, int maxSge) {
        this.maxSge = maxSge;
        slots = new Wqe[Math.max(1, maxWr)];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Wqe(Math.max(1, maxSge));
        }
    }

    /**
     * Posts a chain, stopping at the first WR that cannot be posted. Caller holds postLock.
     *
     * @throws PostException EINVAL for too many SGEs or a WR over 2^31 bytes, ENOMEM when full
     */
    void post(RecvWr first) {
        int n = 0;
        for (RecvWr wr = first; wr != null; wr = wr.next(), n++) {
            int numSge = wr.numSge();
            if (numSge > maxSge) {
                throw new PostException(
                        Errno.EINVAL, "receive WR has " + numSge + " SGEs, max_recv_sge is " + maxSge, wr, n);
            }
            long cap = wr.totalLength();
            if (cap > Integer.MAX_VALUE) {
                throw new PostException(Errno.EINVAL, "receive WR longer than max_msg_sz", wr, n);
            }
            long p = producer;
            if (p - consumer >= slots.length) {
                throw new PostException(
                        Errno.ENOMEM, "receive queue full (" + slots.length + " WRs outstanding)", wr, n);
            }
            Wqe w = slots[(int) (p % slots.length)];
            w.wrId = wr.wrId();
            w.numSge = numSge;
            for (int i = 0; i < numSge; i++) {
                Sge s = wr.sgeAt(i);
                w.addr[i] = s.addr();
                w.len[i] = s.length();
                w.lkey[i] = s.lkey();
            }
            w.capacity = cap;
            producer = p + 1;
        }
    }

    /** The oldest WQE, or null. Engine thread. */
    Wqe peek() {
        long c = consumer;
        return c == producer ? null : slots[(int) (c % slots.length)];
    }

    /** Retires the oldest WQE. Engine thread. */
    void advance() {
        consumer = consumer + 1;
    }

    /** Drops every posted WQE (a move to RESET). Engine thread, under postLock. */
    void clear() {
        consumer = producer;
    }
}
