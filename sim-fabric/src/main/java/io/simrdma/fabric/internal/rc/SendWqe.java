package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.internal.mem.MwImpl;

/**
 * A send work queue element: a posted {@link SendWr} copied into the queue, plus the engine's
 * progress on it. Slots are allocated once per queue and reused.
 */
public final class SendWqe {

    /** Life of a WQE in the send queue. */
    enum State {
        /** Posted; no packet sent and no resource taken yet. */
        POSTED,
        /** PSNs assigned, some packets sent (or a retry rewound it). */
        STARTED,
        /** Every packet sent; waiting for acknowledgement or response. */
        SENT,
        /** A local operation executed (successfully or not); waits to be retired in order. */
        LOCAL_DONE,
        /** Failed before completion (local protection error...); waits to be retired in order. */
        FAILED
    }

    // ---- copied from the work request at post time
    long wrId;
    public WrOpcode opcode;
    int flags;
    int imm;
    public int invRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    public MwImpl mw;
    public int bindRkey;
    public MrImpl bindMr;
    public long bindAddr;
    public long bindLength;
    public int bindAccess;
    int numSge;
    final long[] sgeAddr;
    final int[] sgeLen;
    final int[] sgeLkey;
    int length;
    boolean inline;
    final byte[] inlineData;
    final java.nio.ByteBuffer inlineView;

    // ---- engine state
    State state;
    int firstPsn;
    int lastPsn;
    /** Bytes of the message sent so far (for READ: the offset a retried request starts at). */
    int sentBytes;
    /**
     * RDMA READ: the PSN its newest request was sent with, {@link #firstPsn} or the PSN a go-back-N
     * resent it from. The responder answers a READ from the request's PSN on, starting with First
     * or Only (IBA 9.7.5.1.5), so that PSN is where a First of this READ's responses can stand.
     */
    int readRequestPsn;

    final MrImpl[] sgeMr;
    final int[] sgeIndex;
    /**
     * SGEs whose L_Key has been checked and resolved into {@link #sgeMr}/{@link #sgeIndex}: all of
     * them when a SEND or WRITE starts; for an RDMA READ or atomic, those a response has reached.
     */
    int sgeResolved;
    /** Status of a LOCAL_DONE or FAILED WQE. */
    WcStatus status;
    /** Holds an initiator RDMA READ / atomic resource. */
    boolean holdsRdAtomic;

    SendWqe(int maxSge, int maxInline) {
        sgeAddr = new long[maxSge];
        sgeLen = new int[maxSge];
        sgeLkey = new int[maxSge];
        sgeMr = new MrImpl[maxSge];
        sgeIndex = new int[maxSge];
        inlineData = new byte[maxInline];
        inlineView = java.nio.ByteBuffer.wrap(inlineData);
    }

    boolean has(SendFlag f) {
        return (flags & f.bit()) != 0;
    }

    /** Forget references so that a retired slot keeps nothing alive. */
    void clearRefs() {
        mw = null;
        bindMr = null;
        for (int i = 0; i < numSge; i++) {
            sgeMr[i] = null;
        }
    }

    @Override
    public String toString() {
        return "WQE[" + opcode + ", wrId=" + wrId + ", " + state + ", psn=" + firstPsn + ".." + lastPsn + ", sent="
                + sentBytes + "/" + length + "]";
    }
}
