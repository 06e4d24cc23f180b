package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.internal.cq.CqImpl;

/**
 * The completions a queue pair keeps while a full CQ stalls it ({@code DeviceProfile.CqOverrun.STALL},
 * the way siw leaves a WQE unrecycled when its CQ is full): a FIFO written to the CQs in order once
 * they have room. Its capacity is every completion the QP can produce without its engine running
 * (its send and receive queues flushed, plus the receive WQE the responder holds), allocated once, the
 * first time a completion is kept (most QPs never stall and never pay for it).
 *
 * <p>Thread safety: engine thread only.
 */
final class CompletionBacklog {

    private final int capacity;
    private CqImpl[] cq;
    private long[] wrId;
    private WcStatus[] status;
    private WcOpcode[] opcode;
    private int[] byteLen;
    private int[] imm;
    private int[] flags;
    private boolean[] solicited;
    private int[] vendor;
    private int head;
    private int count;

    CompletionBacklog(int capacity) {
        this.capacity = capacity;
    }

    private void allocate() {
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
        if (cq == null) {
            allocate();
        }
        if (count == capacity) {
            throw new IllegalStateException("completion backlog of " + capacity + " overflowed");
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
        if (cq != null) {
            java.util.Arrays.fill(cq, null);
        }
        head = 0;
        count = 0;
    }
}
