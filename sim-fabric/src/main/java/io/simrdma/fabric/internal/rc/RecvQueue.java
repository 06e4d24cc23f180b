package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.Sge;
import io.simrdma.fabric.SharedReceiveQueue;

/**
 * A ring of receive WQEs: a QP's receive queue or an SRQ. Applications post from any thread
 * (serialized by {@link #postLock}); the device's executor consumes.
 *
 * <p>Thread safety: producer side under {@code postLock}; consumer side on the engine thread;
 * indexes are volatile so each side sees the other's progress.
 */
public final class RecvQueue {

    final Object postLock = new Object();
    private RecvWqe[] slots;
    private int maxWr;
    private final int maxSge;
    private volatile long producer;
    private volatile long consumer;

    RecvQueue(int maxWr, int maxSge) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        // slots are made the first time a post reaches them and reused from then on (as SendQueue)
        this.slots = new RecvWqe[maxWr];
    }

    /** The slot a post fills at {@code index}, made on first use. Caller holds {@link #postLock}. */
    private RecvWqe slotForPost(long index) {
        int i = (int) (index % slots.length);
        RecvWqe w = slots[i];
        if (w == null) {
            w = new RecvWqe(maxSge);
            slots[i] = w;
        }
        return w;
    }

    int maxWr() {
        return maxWr;
    }

    int maxSge() {
        return maxSge;
    }

    /** WQEs posted and not yet consumed. */
    int size() {
        return (int) (producer - consumer);
    }

    /**
     * Posts a chain of receive WRs (ibv_post_recv(3)): stops at the first that cannot be posted.
     * Caller holds {@link #postLock}. Each WR is reported to {@code observer} (when not null) as
     * posted to {@code qp}, or to {@code srq} when {@code qp} is null, before the engine can see it.
     *
     * @return the number posted
     * @throws PostException for the first WR with too many SGEs (EINVAL) or that finds the queue full (ENOMEM)
     */
    int post(RecvWr first, FabricObserver observer, QueuePair qp, SharedReceiveQueue srq) {
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
            if (p - consumer >= maxWr) {
                throw new PostException(Errno.ENOMEM, "receive queue full (" + maxWr + " WRs outstanding)", wr, n);
            }
            RecvWqe w = slotForPost(p);
            w.wrId = wr.wrId();
            w.numSge = numSge;
            for (int i = 0; i < numSge; i++) {
                Sge s = wr.sgeAt(i);
                w.sgeAddr[i] = s.addr();
                w.sgeLen[i] = s.length();
                w.sgeLkey[i] = s.lkey();
            }
            w.capacity = cap;
            if (observer != null) {
                observer.recvPosted(qp, srq, wr);
            }
            producer = p + 1;
        }
        return n;
    }

    /** The oldest WQE, or null if empty. Engine thread. */
    RecvWqe peek() {
        long c = consumer;
        if (c == producer) {
            return null;
        }
        return slots[(int) (c % slots.length)];
    }

    /** Retires the oldest WQE. Engine thread. */
    void advance() {
        consumer = consumer + 1;
    }

    /** Copies the oldest WQE into {@code into} and retires it; false if empty. Engine thread. */
    boolean take(RecvWqe into) {
        RecvWqe w = peek();
        if (w == null) {
            return false;
        }
        into.copyFrom(w);
        advance();
        return true;
    }

    /** Drops every posted WQE without completions (a QP moved to RESET). Engine thread, under postLock. */
    void clear() {
        consumer = producer;
    }

    /**
     * Changes the capacity, keeping the posted WQEs in order. Engine thread, under postLock; the
     * caller ({@link SrqImpl#modify}) has checked that {@code newMax} holds them.
     */
    void resize(int newMax) {
        int size = size();
        RecvWqe[] fresh = new RecvWqe[newMax];
        long c = consumer;
        for (int i = 0; i < size; i++) {
            fresh[i] = slots[(int) ((c + i) % slots.length)];
        }
        slots = fresh;
        maxWr = newMax;
        consumer = 0;
        producer = size;
    }
}
