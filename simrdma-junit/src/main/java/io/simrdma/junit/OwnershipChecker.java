package io.simrdma.junit;

import io.simrdma.fabric.CompletionChannel;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.MemoryWindow;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.Sge;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Watches a test's fabric (a {@link FabricObserver}) for the mistakes an RDMA application gets
 * away with on a fast simulator and not on a NIC, which reads and writes registered memory at an
 * unknown time between the post and the completion (ibv_post_send(3): "the buffers ... must not be
 * modified until the work request completes"; ibv_post_recv(3) likewise for receive buffers):
 * <ul>
 *   <li>the application writes into memory posted as the source of a SEND or RDMA WRITE before the
 *       WR completed: a copy of the posted bytes is taken at the post and compared when the device
 *       retires the WR; any difference is a violation, whether the device read before or after the
 *       write (a NIC may read at either moment);</li>
 *   <li>the application writes into a posted receive buffer, or the destination of an RDMA READ or
 *       atomic, before its completion: a copy taken at the post is compared when the device starts
 *       writing into it (for a receive, when a message starts to land), then follows what the device
 *       writes ({@link FabricObserver#deviceWrote}) and is compared again at the completion;</li>
 *   <li>the application deregisters memory, or destroys a PD's memory, while a WR that uses it is in
 *       flight.</li>
 * </ul>
 * Reads by the application cannot be seen from Java (a ByteBuffer read leaves no trace). A write the
 * application makes to bytes the device then overwrites is lost to the checker, unless it lies in a
 * receive buffer (compared before the message lands) or outside the first packet of an RDMA READ. Posted ranges longer than {@link #MAX_COPY} are checked by CRC when the device
 * only reads them, and not at all when it writes them.
 *
 * <p>It also keeps, for {@link LeakChecks}, every live verbs object with where it was created, the
 * WRs posted and not yet retired, and the CQs destroyed with completions nobody polled.
 *
 * <p>Thread safety: every method synchronizes on the checker; calls come from application and
 * engine threads.
 */
public final class OwnershipChecker implements FabricObserver {

    /** Ranges longer than this are compared by CRC only (the report then shows no bytes). */
    static final int MAX_COPY = 1 << 20;

    /** A posted WR: its QP (or SRQ), id, opcode and the bytes it lent the device. */
    static final class Posted {
        final Object queue;
        final long wrId;
        final String opcode;
        /** Still to be checked: cleared once a violation of this WR is reported, so it is reported once. */
        boolean checkContent;
        /** The device writes these SGEs (receive, RDMA READ, atomic) rather than reads them. */
        boolean deviceWrites;

        final MemoryRegion[] mrs;
        final int[] offsets;
        final int[] lengths;
        final byte[][] copies;
        final long[] crcs;
        /** The device has started writing into the SGEs; the copies before that were compared. */
        boolean landed;
        /** The copies hold bytes the device wrote (not only what was there at the post). */
        boolean written;

        Posted(Object queue, long wrId, String opcode, boolean checkContent, int n) {
            this.queue = queue;
            this.wrId = wrId;
            this.opcode = opcode;
            this.checkContent = checkContent;
            this.mrs = new MemoryRegion[n];
            this.offsets = new int[n];
            this.lengths = new int[n];
            this.copies = new byte[n][];
            this.crcs = new long[n];
        }
    }

    private final boolean checkContent;
    private final Map<Object, Throwable> live = new LinkedHashMap<>();
    private final Map<Integer, MemoryRegion> mrByLkey = new LinkedHashMap<>();
    private final Map<Object, ArrayDeque<Posted>> sendQueues = new IdentityHashMap<>();
    private final Map<Object, ArrayDeque<Posted>> recvQueues = new IdentityHashMap<>();
    private final Map<QueuePair, Posted> landing = new IdentityHashMap<>();
    private final List<String> violations = new ArrayList<>();
    private final List<String> unreaped = new ArrayList<>();

    /** @param checkContent whether to check buffer ownership (leaks and WRs are tracked either way) */
    public OwnershipChecker(boolean checkContent) {
        this.checkContent = checkContent;
    }

    // ------------------------------------------------------------------ objects

    @Override
    public synchronized void created(Object object) {
        live.put(object, new Throwable("created here"));
        if (object instanceof MemoryRegion mr) {
            mrByLkey.put(mr.lkey(), mr);
        }
    }

    @Override
    public synchronized void destroyed(Object object) {
        live.remove(object);
        if (object instanceof MemoryRegion mr) {
            mrByLkey.remove(mr.lkey());
            inFlightUse(mr, "deregistered (ibv_dereg_mr)");
        } else if (object instanceof QueuePair qp) {
            sendQueues.remove(qp);
            recvQueues.remove(qp);
            landing.remove(qp);
        } else if (object instanceof SharedReceiveQueue srq) {
            recvQueues.remove(srq);
        } else if (object instanceof CompletionQueue cq && cq.size() > 0) {
            unreaped.add(
                    describe(cq) + " was destroyed with " + cq.size() + " completion(s) nobody polled (ibv_poll_cq)");
        }
    }

    /** A violation if a WR still in flight uses {@code mr}. */
    private void inFlightUse(MemoryRegion mr, String what) {
        if (!checkContent) {
            return;
        }
        for (Map<Object, ArrayDeque<Posted>> queues : List.of(sendQueues, recvQueues)) {
            for (ArrayDeque<Posted> q : queues.values()) {
                for (Posted p : q) {
                    for (int i = 0; i < p.mrs.length; i++) {
                        if (p.mrs[i] == mr) {
                            violations.add(describe(mr) + " was " + what + " while " + describeWr(p)
                                    + " had bytes [" + p.offsets[i] + ", " + (p.offsets[i] + p.lengths[i])
                                    + ") of it in flight: the device may still read or write them");
                            return;
                        }
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ posts

    @Override
    public synchronized void sendPosted(QueuePair qp, SendWr wr) {
        WrOpcode op = wr.opcode();
        boolean source = op == WrOpcode.SEND
                || op == WrOpcode.SEND_WITH_IMM
                || op == WrOpcode.SEND_WITH_INV
                || op == WrOpcode.RDMA_WRITE
                || op == WrOpcode.RDMA_WRITE_WITH_IMM;
        boolean target =
                op == WrOpcode.RDMA_READ || op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD;
        // An inline WR's bytes are copied at the post (IBV_SEND_INLINE): the buffer is the application's again.
        boolean content = checkContent && (target || (source && !wr.hasFlag(SendFlag.INLINE)));
        Posted p = capture(qp, wr.wrId(), op.name(), content, target, wr.numSge(), i -> wr.sgeAt(i));
        sendQueues.computeIfAbsent(qp, k -> new ArrayDeque<>()).add(p);
    }

    @Override
    public synchronized void recvPosted(QueuePair qp, SharedReceiveQueue srq, RecvWr wr) {
        Object queue = qp != null ? qp : srq;
        Posted p = capture(queue, wr.wrId(), "RECV", checkContent, true, wr.numSge(), i -> wr.sgeAt(i));
        recvQueues.computeIfAbsent(queue, k -> new ArrayDeque<>()).add(p);
    }

    private interface SgeAt {
        Sge at(int i);
    }

    /** @param deviceWrites the device writes the SGEs (receive, READ, atomic): compared byte by byte or not at all */
    private Posted capture(
            Object queue, long wrId, String opcode, boolean content, boolean deviceWrites, int n, SgeAt sges) {
        Posted p = new Posted(queue, wrId, opcode, content, n);
        p.deviceWrites = deviceWrites;
        for (int i = 0; i < n; i++) {
            Sge s = sges.at(i);
            MemoryRegion mr = mrByLkey.get(s.lkey());
            p.mrs[i] = mr;
            if (mr == null) {
                continue;
            }
            p.offsets[i] = (int) (s.addr() - mr.address());
            p.lengths[i] = s.length();
            if (content && p.offsets[i] >= 0 && p.offsets[i] + (long) s.length() <= mr.length()) {
                ByteBuffer b = range(mr, p.offsets[i], s.length());
                if (s.length() <= MAX_COPY) {
                    p.copies[i] = new byte[s.length()];
                    b.get(p.copies[i]);
                } else if (!deviceWrites) {
                    p.crcs[i] = crc(b);
                }
            }
        }
        return p;
    }

    // ------------------------------------------------------------------ the device's side

    @Override
    public synchronized void recvStarted(QueuePair qp) {
        ArrayDeque<Posted> q = recvQueues.get(queueOf(qp));
        Posted p = q == null ? null : q.poll();
        if (p == null) {
            return;
        }
        landing.put(qp, p);
        p.landed = true;
        compare(
                p,
                0,
                "written by the application after ibv_post_recv and before its completion",
                "posted receive buffer");
    }

    /** A QP's receives come from its SRQ when it has one (ibv_create_qp(3)'s srq), else from its own queue. */
    private static Object queueOf(QueuePair qp) {
        SharedReceiveQueue srq = qp.srq();
        return srq != null ? srq : qp;
    }

    @Override
    public synchronized void recvCompleted(QueuePair qp, long wrId, WcStatus status, WcOpcode opcode, int byteLength) {
        Posted p = landing.remove(qp);
        if (p == null || p.wrId != wrId) {
            ArrayDeque<Posted> q = recvQueues.get(qp);
            p = q == null ? null : q.poll();
        }
        if (p == null) {
            return;
        }
        // The bytes the device wrote are in the copy (deviceWrote): any other difference is the application's.
        compare(
                p,
                0,
                "written by the application after ibv_post_recv and before the receive completed",
                "receive buffer");
    }

    @Override
    public synchronized void sendRetired(QueuePair qp, long wrId, WcStatus status, boolean completion) {
        ArrayDeque<Posted> q = sendQueues.get(qp);
        Posted p = q == null ? null : q.poll();
        if (p == null) {
            return;
        }
        if (p.opcode.startsWith("RDMA_READ") || p.opcode.startsWith("ATOMIC")) {
            compare(
                    p,
                    0,
                    "written by the application after ibv_post_send and before the " + p.opcode
                            + " completed: the NIC writes them until then",
                    "destination buffer");
        } else {
            compare(
                    p,
                    0,
                    "written by the application after ibv_post_send and before the WR completed: a NIC reads "
                            + "them at any moment until then, so it may send the new bytes, the old ones or a mix",
                    "source buffer");
        }
    }

    /** Keeps the copies of posted buffers the device writes equal to what it wrote. */
    @Override
    public synchronized void deviceWrote(MemoryRegion mr, int offset, int length) {
        if (!checkContent) {
            return;
        }
        for (Map<Object, ArrayDeque<Posted>> queues : List.of(sendQueues, recvQueues)) {
            for (ArrayDeque<Posted> q : queues.values()) {
                for (Posted p : q) {
                    follow(p, mr, offset, length);
                }
            }
        }
        for (Posted p : landing.values()) {
            follow(p, mr, offset, length);
        }
    }

    private void follow(Posted p, MemoryRegion mr, int offset, int length) {
        for (int i = 0; i < p.mrs.length; i++) {
            if (p.mrs[i] != mr || p.copies[i] == null) {
                continue;
            }
            int from = Math.max(offset, p.offsets[i]);
            int to = Math.min(offset + length, p.offsets[i] + p.lengths[i]);
            if (from < to) {
                ByteBuffer now = mr.buffer();
                now.get(from, p.copies[i], from - p.offsets[i], to - from);
                if (!p.landed && p.deviceWrites && !p.opcode.equals("RECV")) {
                    // the first bytes the device wrote for this WR: what the application wrote elsewhere shows now
                    p.landed = true;
                    compare(
                            p,
                            0,
                            "written by the application after ibv_post_send and before the " + p.opcode
                                    + " completed: the NIC writes them until then",
                            "destination buffer");
                }
                p.written = true;
            }
        }
    }

    @Override
    public synchronized void queuesDiscarded(QueuePair qp) {
        sendQueues.remove(qp);
        recvQueues.remove(qp);
        landing.remove(qp);
    }

    /** Compares the posted bytes past {@code skip} bytes of the scatter/gather list with the copies. */
    private void compare(Posted p, int skip, String what, String buffer) {
        if (!p.checkContent) {
            return;
        }
        int before = 0;
        for (int i = 0; i < p.mrs.length; i++) {
            MemoryRegion mr = p.mrs[i];
            int len = p.lengths[i];
            int from = Math.max(0, Math.min(len, skip - before));
            before += len;
            if (mr == null || from >= len || (p.copies[i] == null && p.crcs[i] == 0)) {
                continue;
            }
            ByteBuffer now = range(mr, p.offsets[i], len);
            if (p.copies[i] == null) {
                if (crc(now) != p.crcs[i]) {
                    violations.add(
                            header(p, buffer, mr, i) + ": bytes " + what + " (CRC differs; range too long to show)");
                    p.checkContent = false;
                    return;
                }
                continue;
            }
            int first = -1;
            int last = -1;
            for (int k = from; k < len; k++) {
                if (now.get(k) != p.copies[i][k]) {
                    if (first < 0) {
                        first = k;
                    }
                    last = k;
                }
            }
            if (first >= 0) {
                violations.add(header(p, buffer, mr, i) + ": bytes [" + (p.offsets[i] + first) + ", "
                        + (p.offsets[i] + last + 1) + ") of the region " + what
                        + (p.written ? "\n      the device wrote: " : "\n      posted: ")
                        + hex(p.copies[i], first, last + 1)
                        + (p.written ? "\n      now:              " : "\n      now:    ")
                        + hexOf(now, first, last + 1));
                p.checkContent = false;
                return;
            }
        }
    }

    private String header(Posted p, String buffer, MemoryRegion mr, int sge) {
        return describeWr(p) + ", " + buffer + " sge " + sge + " = " + describe(mr) + " bytes [" + p.offsets[sge] + ", "
                + (p.offsets[sge] + p.lengths[sge]) + ")";
    }

    // ------------------------------------------------------------------ reports

    /** The ownership violations seen so far, each a paragraph; empty if none. */
    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /**
     * Returns the violations seen so far and forgets them, so that a test that provokes one on
     * purpose can check it and still pass the end-of-test check.
     */
    public synchronized List<String> takeViolations() {
        List<String> out = List.copyOf(violations);
        violations.clear();
        return out;
    }

    /** CQs destroyed with completions nobody polled. */
    synchronized List<String> unreaped() {
        return List.copyOf(unreaped);
    }

    /** Verbs objects created and not destroyed, with where each was created. */
    synchronized Map<Object, Throwable> liveObjects() {
        return new LinkedHashMap<>(live);
    }

    /** WRs posted and not retired (on QPs and SRQs that still exist). */
    synchronized List<String> outstanding() {
        List<String> out = new ArrayList<>();
        for (Map<Object, ArrayDeque<Posted>> queues : List.of(sendQueues, recvQueues)) {
            for (ArrayDeque<Posted> q : queues.values()) {
                for (Posted p : q) {
                    out.add(describeWr(p));
                }
            }
        }
        for (Posted p : landing.values()) {
            out.add(describeWr(p) + " (a message was landing in it)");
        }
        return out;
    }

    static String describeWr(Posted p) {
        return "WR " + p.wrId + " (" + p.opcode + ") on " + describe(p.queue);
    }

    /** A short name for a verbs object: its kind, number and device. */
    static String describe(Object o) {
        if (o instanceof QueuePair qp) {
            return "QP 0x" + Integer.toHexString(qp.qpNum()) + " of device "
                    + qp.device().name();
        } else if (o instanceof MemoryRegion mr) {
            return "MR lkey 0x" + Integer.toHexString(mr.lkey()) + " (" + mr.length() + " bytes) of device "
                    + mr.pd().device().name();
        } else if (o instanceof CompletionQueue cq) {
            return "CQ (" + cq.capacity() + " entries) of device " + cq.device().name();
        } else if (o instanceof ProtectionDomain pd) {
            return "PD of device " + pd.device().name();
        } else if (o instanceof SharedReceiveQueue srq) {
            return "SRQ of device " + srq.pd().device().name();
        } else if (o instanceof MemoryWindow mw) {
            return "MW rkey 0x" + Integer.toHexString(mw.rkey()) + " of device "
                    + mw.pd().device().name();
        } else if (o instanceof CompletionChannel ch) {
            return "completion channel of device " + ch.device().name();
        }
        return String.valueOf(o);
    }

    private static ByteBuffer range(MemoryRegion mr, int offset, int len) {
        ByteBuffer b = mr.buffer();
        b.limit(offset + len).position(offset);
        return b.slice();
    }

    private static long crc(ByteBuffer b) {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(b.duplicate());
        return c.getValue() | 1L << 40;
    }

    /** Up to 32 bytes in hex, with "..." when there are more. */
    static String hex(byte[] a, int from, int to) {
        StringBuilder s = new StringBuilder();
        for (int k = from; k < to && k < from + 32; k++) {
            s.append(String.format("%02x ", a[k] & 0xFF));
        }
        if (to - from > 32) {
            s.append("... (").append(to - from).append(" bytes)");
        }
        return s.toString().trim();
    }

    private static String hexOf(ByteBuffer b, int from, int to) {
        byte[] a = new byte[to];
        for (int k = from; k < to; k++) {
            a[k] = b.get(k);
        }
        return hex(a, from, to);
    }
}
