package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The device's table of memory keys: L_Keys and R_Keys are {@code index << 8 | tag}; the index
 * selects an entry (an MR or an MW), the tag must match the entry's current key (IBA 10.6.3.1;
 * ibv_inc_rkey(3) changes only the tag).
 *
 * <p>Reads are lock-free and allocation-free from any thread (the engine checks keys on every
 * access; a post of inline data reads the memory of its SGEs on the posting thread); writes
 * happen only on the device's executor. Indexes are reused after release, smallest first.
 */
public final class KeyTable {

    private static final int CHUNK_BITS = 12;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MAX_INDEX = (1 << 24) - 1;

    private final AtomicReferenceArray<AtomicReferenceArray<Object>> chunks =
            new AtomicReferenceArray<>((MAX_INDEX >>> CHUNK_BITS) + 1);
    private final java.util.BitSet used = new java.util.BitSet();
    private int tagSeed;

    public KeyTable(int tagSeed) {
        this.tagSeed = tagSeed & 0xFF;
    }

    /**
     * Reserves an index and returns a fresh key for it; {@link #install} then publishes its owner.
     * Engine thread only.
     */
    public int reserve() {
        int index = used.nextClearBit(1);
        if (index > MAX_INDEX) {
            throw new VerbsException(Errno.ENOMEM, "memory key space exhausted");
        }
        used.set(index);
        tagSeed = (tagSeed * 37 + 11) & 0xFF;
        return (index << 8) | tagSeed;
    }

    /** Publishes {@code owner} at the index of {@code key}. Engine thread only. */
    public void install(int key, Object owner) {
        int index = key >>> 8;
        AtomicReferenceArray<Object> chunk = chunks.get(index >>> CHUNK_BITS);
        if (chunk == null) {
            chunk = new AtomicReferenceArray<>(CHUNK);
            chunks.set(index >>> CHUNK_BITS, chunk);
        }
        chunk.set(index & (CHUNK - 1), owner);
    }

    /** Frees the index of {@code key}. Engine thread only. */
    public void release(int key) {
        int index = key >>> 8;
        AtomicReferenceArray<Object> chunk = chunks.get(index >>> CHUNK_BITS);
        if (chunk != null) {
            chunk.set(index & (CHUNK - 1), null);
        }
        used.clear(index);
    }

    /** Every installed owner (MRs and MWs), lowest index first; for teardown. Engine thread only. */
    public java.util.List<Object> owners() {
        java.util.List<Object> l = new java.util.ArrayList<>();
        for (int i = used.nextSetBit(1); i >= 0 && i <= MAX_INDEX; i = used.nextSetBit(i + 1)) {
            Object o = lookup(i << 8);
            if (o != null) {
                l.add(o);
            }
        }
        return l;
    }

    /** The object registered at the index of {@code key} (the caller checks the tag), or null. */
    public Object lookup(int key) {
        int index = key >>> 8;
        AtomicReferenceArray<Object> chunk = chunks.get(index >>> CHUNK_BITS);
        return chunk == null ? null : chunk.get(index & (CHUNK - 1));
    }
}
