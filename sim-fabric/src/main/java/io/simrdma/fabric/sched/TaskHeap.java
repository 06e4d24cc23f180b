package io.simrdma.fabric.sched;

/**
 * A binary min-heap of tasks ordered by (due time, submission order), kept in an array that
 * grows by doubling and never shrinks, so that a steady state allocates nothing. Each task
 * records its own index, so that moving a queued task earlier is a sift, not a search.
 *
 * <p>Thread safety: none; the owning scheduler guards it.
 */
final class TaskHeap {

    private Task[] heap;
    private int size;

    TaskHeap(int initialCapacity) {
        heap = new Task[Math.max(1, initialCapacity)];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The earliest task, or null. */
    Task peek() {
        return size == 0 ? null : heap[0];
    }

    /** Adds {@code t}, whose {@code due} and {@code seq} are set. */
    void offer(Task t) {
        if (size == heap.length) {
            Task[] bigger = new Task[heap.length * 2];
            System.arraycopy(heap, 0, bigger, 0, size);
            heap = bigger;
        }
        t.heapIndex = size;
        heap[size++] = t;
        siftUp(t.heapIndex);
    }

    /** Moves a queued task to the earlier {@code due}. */
    void moveEarlier(Task t, long due) {
        if (due < t.due) {
            t.due = due;
            siftUp(t.heapIndex);
        }
    }

    /** Removes and returns the earliest task; the heap must not be empty. */
    Task poll() {
        Task top = heap[0];
        Task last = heap[--size];
        heap[size] = null;
        top.heapIndex = -1;
        if (size > 0) {
            heap[0] = last;
            last.heapIndex = 0;
            siftDown(0);
        }
        return top;
    }

    /** Empties the heap, marking every task as no longer queued. */
    void clear() {
        for (int i = 0; i < size; i++) {
            heap[i].heapIndex = -1;
            heap[i] = null;
        }
        size = 0;
    }

    private static boolean before(Task a, Task b) {
        return a.due < b.due || (a.due == b.due && a.seq < b.seq);
    }

    private void siftUp(int i) {
        Task t = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Task p = heap[parent];
            if (!before(t, p)) {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = t;
        t.heapIndex = i;
    }

    private void siftDown(int i) {
        Task t = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && before(heap[right], heap[child])) {
                child = right;
            }
            if (!before(heap[child], t)) {
                break;
            }
            Task c = heap[child];
            heap[i] = c;
            c.heapIndex = i;
            i = child;
        }
        heap[i] = t;
        t.heapIndex = i;
    }
}
