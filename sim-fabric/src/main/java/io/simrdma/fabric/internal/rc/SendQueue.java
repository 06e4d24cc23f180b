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
    volatile long tail;
    volatile long head;

    SendQueue(int maxWr, int maxSge, int maxInline) {
        this.maxWr = maxWr;
        this.slots = new SendWqe[maxWr];
        for (int i = 0; i < maxWr; i++) {
            slots[i] = new SendWqe(maxSge, maxInline);
        }
    }

    SendWqe at(long index) {
        return slots[(int) (index % maxWr)];
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
