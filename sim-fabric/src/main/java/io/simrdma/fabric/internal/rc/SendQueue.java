package io.simrdma.fabric.internal.rc;

/**
 * The ring of send WQEs of a QP. Applications post at {@link #tail} from any thread (serialized by
 * {@link #postLock}); the engine retires at {@link #head}. WQEs between head and the requester's
 * position are in flight; between the requester's position and tail, waiting.
 *
 * <p>Thread safety: as {@link RecvQueue}.
 */
public final class SendQueue {

    final Object postLock = new Object();
    private final SendWqe[] slots;
    final int maxWr;
    private final int maxSge;
    private final int maxInline;
    volatile long tail;
    volatile long head;

    /**
     * Slots are made the first time a post reaches them and reused from then on: a QP that never
     * fills its queue never pays for the whole depth (each slot holds {@code maxSge}-long arrays and
     * an inline buffer), and the steady state still allocates nothing per post.
     */
    SendQueue(int maxWr, int maxSge, int maxInline) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        this.slots = new SendWqe[maxWr];
    }

    /** The slot of a posted WQE ({@code head <= index < tail}). */
    SendWqe at(long index) {
        return slots[(int) (index % maxWr)];
    }

    /**
     * The slot a post fills at {@code index} (the current tail), made on first use. Caller holds
     * {@link #postLock}; the volatile write of {@link #tail} that publishes the WQE publishes the slot.
     */
    SendWqe slotForPost(long index) {
        int i = (int) (index % maxWr);
        SendWqe w = slots[i];
        if (w == null) {
            w = new SendWqe(maxSge, maxInline);
            slots[i] = w;
        }
        return w;
    }

    boolean full() {
        return tail - head >= maxWr;
    }

    int size() {
        return (int) (tail - head);
    }

    /** Drops every posted WQE without completions, keeping no references (a QP reset or destroyed). Engine thread. */
    void clear() {
        synchronized (postLock) {
            for (long i = head; i < tail; i++) {
                at(i).clearRefs();
            }
            head = tail;
        }
    }
}
