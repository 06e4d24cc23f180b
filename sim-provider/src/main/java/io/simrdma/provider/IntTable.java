package io.simrdma.provider;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A table from non-negative int keys to objects, read on the data path without a lock, boxing or
 * allocation: the LMRs of an IA by lmr_context index (each post checks its segments' LMRs), and
 * endpoints and SRQs by id (each completion finds its poster). Keys index chunks of
 * {@value #CHUNK} slots; a chunk is made by the first key that falls in it and dropped with its
 * last one, so the memory follows the keys in use, not the keys ever used.
 *
 * <p>Thread safety: {@link #get} from any thread, lock-free; {@link #put} and {@link #remove}
 * synchronize among themselves. A reader sees a put or remove once it has returned.
 *
 * @param <T> what the table holds
 */
final class IntTable<T> {

    private static final int SHIFT = 9;
    private static final int CHUNK = 1 << SHIFT;
    private static final int MASK = CHUNK - 1;

    /** Replaced (never changed in place) when it grows or a chunk comes or goes. */
    private volatile AtomicReferenceArray<T>[] chunks = newChunks(1);
    /** Entries per chunk; guarded by this. */
    private int[] counts = new int[1];

    private int size;

    @SuppressWarnings("unchecked")
    private static <T> AtomicReferenceArray<T>[] newChunks(int n) {
        return (AtomicReferenceArray<T>[]) new AtomicReferenceArray<?>[n];
    }

    /** The object at {@code key}, or null. */
    T get(int key) {
        AtomicReferenceArray<T>[] c = chunks;
        int ci = key >>> SHIFT;
        if (key < 0 || ci >= c.length) {
            return null;
        }
        AtomicReferenceArray<T> chunk = c[ci];
        return chunk == null ? null : chunk.get(key & MASK);
    }

    /**
     * Puts {@code value} at {@code key}, replacing what was there.
     *
     * @throws IllegalArgumentException for a negative key
     */
    synchronized void put(int key, T value) {
        if (key < 0) {
            throw new IllegalArgumentException("negative key " + key);
        }
        int ci = key >>> SHIFT;
        AtomicReferenceArray<T>[] c = chunks;
        AtomicReferenceArray<T> chunk = ci < c.length ? c[ci] : null;
        if (chunk == null) {
            AtomicReferenceArray<T>[] grown = newChunks(Math.max(c.length, Integer.highestOneBit(ci) * 2));
            System.arraycopy(c, 0, grown, 0, c.length);
            if (counts.length < grown.length) {
                counts = java.util.Arrays.copyOf(counts, grown.length);
            }
            chunk = new AtomicReferenceArray<>(CHUNK);
            grown[ci] = chunk;
            chunk.set(key & MASK, value);
            counts[ci]++;
            size++;
            chunks = grown;
            return;
        }
        if (chunk.getAndSet(key & MASK, value) == null) {
            counts[ci]++;
            size++;
        }
    }

    /** Removes {@code value} from {@code key} if it is there; true if it was. */
    synchronized boolean remove(int key, T value) {
        int ci = key >>> SHIFT;
        AtomicReferenceArray<T>[] c = chunks;
        if (key < 0 || ci >= c.length || c[ci] == null || !c[ci].compareAndSet(key & MASK, value, null)) {
            return false;
        }
        size--;
        if (--counts[ci] == 0) {
            AtomicReferenceArray<T>[] shrunk = c.clone();
            shrunk[ci] = null;
            chunks = shrunk;
        }
        return true;
    }

    /** Entries in the table. */
    synchronized int size() {
        return size;
    }
}
