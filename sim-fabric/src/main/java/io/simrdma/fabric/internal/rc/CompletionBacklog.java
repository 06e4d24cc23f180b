package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.internal.cq.CqImpl;

/**
 * The completions a queue pair keeps while a full CQ stalls it ({@code DeviceProfile.CqOverrun.STALL},
 * the way siw leaves a WQE unrecycled when its CQ is full): a FIFO written to the CQs in order once
 * they have room. Its capacity is every completion the QP can produce without its engine running
 * (its send and receive queues flushed, plus the receive WQE the responder holds), allocated once.
 *
 * <p>Thread safety: engine thread only.
 */
final class CompletionBacklog {

    private final CqImpl[] cq;
    private final long[] wrId;
    private final WcStatus[] status;
    private final WcOpcode[] opcode;
    private final int[] byteLen;
    private final int[] imm;
    private final int[] flags;
    private final boolean[] solicited;
    private final int[] vendor;
    private int head;
    private int count;

    CompletionBacklog(int capacity) {
        cq = new CqImpl[capacity];
        wrId = new long[capacity];
        status = new WcStatus[capacity];
        opcode = new WcOpcode[capacity];
        byteLen = new int[capacity];
        imm = new int[capacity];
        flags = new int[capacity];
        solicited = new boolean[capacity];
        vendor = new int[capacity];
    }

    boolean isEmpty() {
        return count == 0;
    }

    int size() {
        return count;
    }

    /**
     * Keeps a completion.
     *
     * @throws IllegalStateException if more completions come than the QP's queues can produce (a bug)
     */
    void add(
            CqImpl to,
            long id,
            WcStatus st,
            WcOpcode op,
            int len,
            int immData,
            int wcFlags,
            boolean sol,
            int vendorErr) {
        if (count == cq.length) {
            throw new IllegalStateException("completion backlog of " + cq.length + " overflowed");
        }
        int at = (head + count) % cq.length;
        cq[at] = to;
        wrId[at] = id;
        status[at] = st;
        opcode[at] = op;
        byteLen[at] = len;
        imm[at] = immData;
        flags[at] = wcFlags;
        solicited[at] = sol;
        vendor[at] = vendorErr;
        count++;
    }

    /**
     * Writes the oldest kept completion to its CQ.
     *
     * @return null if written (and forgotten), else the CQ that is still full
     */
    CqImpl writeOldest(int qpNum, int destQpn) {
        CqImpl to = cq[head];
        if (!to.retryPush(
                wrId[head],
                status[head],
                opcode[head],
                byteLen[head],
                imm[head],
                flags[head],
                qpNum,
                destQpn,
                solicited[head],
                vendor[head])) {
            return to;
        }
        cq[head] = null;
        head = (head + 1) % cq.length;
        count--;
        return null;
    }

    /** Forgets every kept completion (the QP was reset or destroyed). */
    void clear() {
        for (int i = 0; i < cq.length; i++) {
            cq[i] = null;
        }
        head = 0;
        count = 0;
    }
}
