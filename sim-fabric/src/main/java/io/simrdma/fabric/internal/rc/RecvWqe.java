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

    RecvWqe(int maxSge) {
        sgeAddr = new long[maxSge];
        sgeLen = new int[maxSge];
        sgeLkey = new int[maxSge];
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
