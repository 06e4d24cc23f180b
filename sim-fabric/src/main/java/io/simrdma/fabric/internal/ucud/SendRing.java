package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.WrOpcode;

/**
 * The send queue of a UC or UD QP: a ring of preallocated WQEs. Posting threads produce under
 * {@link #postLock}; the device executor consumes. Indexes are volatile so each side sees the
 * other's progress.
 *
 * <p>Thread safety: as described; the WQE at the head belongs to the executor.
 */
final class SendRing {

    /** A posted send work request, copied. */
    static final class Wqe {
        long wrId;
        WrOpcode opcode;
        int flags;
        int numSge;
        final long[] addr;
        final int[] len;
        final int[] lkey;
        long length;
        int imm;
        long remoteAddr;
        int rkey;
        AhImpl ah;
        /** BIND_MW (type 2) or ibv_bind_mw (type 1): the window, region, new R_Key, range, rights. */
        io.simrdma.fabric.internal.mem.MwImpl mw;

        io.simrdma.fabric.internal.mem.MrImpl bindMr;
        int bindRkey;
        long bindAddr;
        long bindLength;
        int bindAccess;
        /** LOCAL_INV: the R_Key to invalidate. */
        int invRkey;

        int remoteQpn;
        int remoteQkey;
        /** Inline bytes copied at post time (IBV_SEND_INLINE), or unused. */
        final byte[] inline;

        boolean isInline;

        Wqe(int maxSge, int maxInline) {
            addr = new long[maxSge];
            len = new int[maxSge];
            lkey = new int[maxSge];
            inline = new byte[maxInline];
        }
    }

    final Object postLock = new Object();
    private final Wqe[] slots;
    private volatile long producer;
    private volatile long consumer;

    SendRing(int maxWr, int maxSge, int maxInline) {
        slots = new Wqe[Math.max(1, maxWr)];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Wqe(Math.max(1, maxSge), maxInline);
        }
    }

    int capacity() {
        return slots.length;
    }

    int size() {
        return (int) (producer - consumer);
    }

    /** The next free slot, or null if full; filled, then published by {@link #publish}. Under postLock. */
    Wqe claim(int maxWr) {
        long p = producer;
        if (p - consumer >= maxWr) {
            return null;
        }
        return slots[(int) (p % slots.length)];
    }

    void publish() {
        producer = producer + 1;
    }

    /** The oldest WQE, or null. Engine thread. */
    Wqe peek() {
        long c = consumer;
        return c == producer ? null : slots[(int) (c % slots.length)];
    }

    /** Retires the oldest WQE. Engine thread. */
    void advance() {
        Wqe w = slots[(int) (consumer % slots.length)];
        w.ah = null;
        w.mw = null;
        w.bindMr = null;
        consumer = consumer + 1;
    }

    /** Drops everything (a move to RESET). Engine thread. */
    void clear() {
        while (peek() != null) {
            advance();
        }
    }
}
