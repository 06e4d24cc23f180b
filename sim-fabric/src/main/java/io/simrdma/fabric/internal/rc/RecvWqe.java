package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.RecvWr;

/** A receive work queue element: a posted {@link RecvWr} copied into a receive queue or SRQ. */
public final class RecvWqe {

    long wrId;
    int numSge;
    final long[] sgeAddr;
    final int[] sgeLen;
    final int[] sgeLkey;
    long capacity;

    public RecvWqe(int maxSge) {
        sgeAddr = new long[maxSge];
        sgeLen = new int[maxSge];
        sgeLkey = new int[maxSge];
    }

    /** The work request id. */
    public long wrId() {
        return wrId;
    }

    /** SGEs in use. */
    public int numSge() {
        return numSge;
    }

    /** Address of SGE {@code i}. */
    public long sgeAddr(int i) {
        return sgeAddr[i];
    }

    /** Length of SGE {@code i}. */
    public int sgeLen(int i) {
        return sgeLen[i];
    }

    /** L_Key of SGE {@code i}. */
    public int sgeLkey(int i) {
        return sgeLkey[i];
    }

    /** The sum of the SGE lengths. */
    public long capacity() {
        return capacity;
    }

    /** Copies {@code o}'s fields into this slot. */
    void copyFrom(RecvWqe o) {
        wrId = o.wrId;
        numSge = o.numSge;
        System.arraycopy(o.sgeAddr, 0, sgeAddr, 0, o.numSge);
        System.arraycopy(o.sgeLen, 0, sgeLen, 0, o.numSge);
        System.arraycopy(o.sgeLkey, 0, sgeLkey, 0, o.numSge);
        capacity = o.capacity;
    }
}
