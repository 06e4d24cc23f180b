package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.MemoryWindow;
import io.simrdma.fabric.MwType;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.Sge;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.internal.mem.MwImpl;
import java.util.Objects;
import java.util.Set;

/**
 * The send side of posting (ibv_post_send(3), ibv_bind_mw(3)): checks each work request against
 * the QP's state and capabilities, and copies it into the next send queue slot (inline data is
 * copied from the application's memory now, as the verbs promise). Runs on the posting thread,
 * under the send queue's post lock; the requester takes the WQEs from there on the engine thread.
 *
 * <p>Thread safety: thread-safe through the send queue's post lock.
 */
final class SendPoster {

    private final RcQueuePair qp;

    SendPoster(RcQueuePair qp) {
        this.qp = qp;
    }

    /** Posts a chain of send WRs (ibv_post_send(3)); see {@link RcQueuePair#postSend}. */
    void postSend(SendWr first) {
        Objects.requireNonNull(first, "wr");
        FabricObserver observer = qp.owner().observer();
        int queued = 0;
        try {
            synchronized (qp.sq.postLock) {
                int posted = 0;
                for (SendWr wr = first; wr != null; wr = wr.next()) {
                    if (checkPostableSend(wr, posted)) {
                        fillSendWqe(qp.sq.slotForPost(qp.sq.tail), wr, posted);
                        if (observer != null) {
                            observer.sendPosted(qp, wr);
                        }
                        qp.sq.tail = qp.sq.tail + 1;
                        queued++;
                    }
                    posted++;
                }
            }
        } finally {
            if (queued > 0) {
                qp.kickAfterPost();
            }
        }
    }

    /**
     * Checks that {@code wr} can be posted now.
     *
     * @return true to queue it; false when the device profile drops a send posted before RTS
     *         ({@link DeviceProfile.PostBeforeRts#DROP}): accepted, never executed, no completion
     * @throws PostException when it cannot be posted
     */
    private boolean checkPostableSend(SendWr wr, int index) {
        if (qp.isDestroyed()) {
            throw new PostException(Errno.ENOENT, "queue pair was destroyed", wr, index);
        }
        DeviceProfile profile = qp.owner().profile();
        QpState s = qp.state();
        boolean drop = false;
        // ibv_post_send(3) / IBA 10.3.1: sends may be posted in RTS, SQD, SQE and ERR (flushed); in
        // RESET, INIT and RTR what happens is the device's (DeviceProfile POST_SEND_BEFORE_RTS).
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            switch (profile.postSendBeforeRts()) {
                case REFUSE_EINVAL:
                    throw new PostException(Errno.EINVAL, "cannot post a send in state " + s, wr, index);
                case REFUSE_ENOTCONN:
                    throw new PostException(Errno.ENOTCONN, "cannot post a send in state " + s, wr, index);
                case DROP:
                    drop = true;
                    break;
                default:
                    break; // HOLD_UNTIL_RTS: queued; the requester starts it in RTS
            }
        }
        WrOpcode op = wr.opcode();
        if (op == null) {
            throw new PostException(Errno.EINVAL, "work request has no opcode", wr, index);
        }
        if (!profile.supports(op)) {
            throw new PostException(
                    profile.unsupportedOperation(),
                    op + " is not supported by device " + qp.owner().name() + " (profile " + profile.name() + ")",
                    wr,
                    index);
        }
        int numSge = wr.numSge();
        int maxSge = op == WrOpcode.RDMA_READ
                ? Math.min(qp.caps().maxSendSge(), qp.owner().attributes().maxSgeRd())
                : qp.caps().maxSendSge();
        if (numSge > maxSge) {
            throw new PostException(
                    Errno.EINVAL, op + " has " + numSge + " SGEs, at most " + maxSge + " allowed", wr, index);
        }
        long total = wr.totalLength();
        if (total > Integer.MAX_VALUE) {
            throw new PostException(Errno.EINVAL, "message of " + total + " bytes exceeds max_msg_sz", wr, index);
        }
        if ((wr.flagBits() & SendFlag.INLINE.bit()) != 0) {
            if (!op.sendsData()) {
                throw new PostException(
                        Errno.EINVAL, "INLINE is valid only for SEND and RDMA WRITE, not " + op, wr, index);
            }
            if (total > qp.caps().maxInlineData()) {
                throw new PostException(
                        Errno.EINVAL,
                        "inline data of " + total + " bytes exceeds max_inline_data "
                                + qp.caps().maxInlineData(),
                        wr,
                        index);
            }
        }
        if (op.isAtomic()
                && profile.atomicArguments() == DeviceProfile.AtomicArguments.AT_POST
                && (total < 8 || (wr.remoteAddr() & 7) != 0)) {
            // The device checks an atomic's arguments at post (rdma-core's rxe: validate_send_wr).
            throw new PostException(
                    Errno.EINVAL,
                    "atomic of " + total + " bytes at remote address 0x" + Long.toHexString(wr.remoteAddr())
                            + ": needs 8 bytes at an 8-byte aligned address",
                    wr,
                    index);
        }
        if (op == WrOpcode.BIND_MW) {
            if (wr.bindWindow() == null || wr.bindRegion() == null) {
                throw new PostException(Errno.EINVAL, "BIND_MW needs a window and a region", wr, index);
            }
            if (wr.bindWindow().type() != MwType.TYPE_2) {
                throw new PostException(
                        Errno.EINVAL, "type 1 windows are bound with bindMw (ibv_bind_mw(3)), not BIND_MW", wr, index);
            }
        }
        if (qp.sq.full()) {
            throw new PostException(Errno.ENOMEM, "send queue full (" + qp.sq.maxWr + " WRs outstanding)", wr, index);
        }
        return !drop;
    }

    private void fillSendWqe(SendWqe w, SendWr wr, int index) {
        w.wrId = wr.wrId();
        w.opcode = wr.opcode();
        w.flags = wr.flagBits();
        w.imm = wr.immData();
        w.invRkey = wr.invalidateRkey();
        w.remoteAddr = wr.remoteAddr();
        w.rkey = wr.rkey();
        w.compareAdd = wr.compareAdd();
        w.swap = wr.swap();
        w.mw = (MwImpl) wr.bindWindow();
        w.bindRkey = wr.bindRkey();
        w.bindMr = (MrImpl) wr.bindRegion();
        w.bindAddr = wr.bindAddr();
        w.bindLength = wr.bindLength();
        w.bindAccess = wr.bindAccessBits();
        int numSge = wr.numSge();
        int length = 0;
        w.inline = (wr.flagBits() & SendFlag.INLINE.bit()) != 0;
        if (w.inline) {
            for (int i = 0; i < numSge; i++) {
                Sge s = wr.sgeAt(i);
                copyInline(w, s, length, wr, index);
                length += s.length();
            }
            w.numSge = 0;
        } else {
            for (int i = 0; i < numSge; i++) {
                Sge s = wr.sgeAt(i);
                w.sgeAddr[i] = s.addr();
                w.sgeLen[i] = s.length();
                w.sgeLkey[i] = s.lkey();
                length += s.length();
            }
            w.numSge = numSge;
        }
        w.length = length;
        w.state = SendWqe.State.POSTED;
        w.sentBytes = 0;
        w.status = WcStatus.SUCCESS;
        w.holdsRdAtomic = false;
    }

    /**
     * Copies an inline SGE's bytes into the WQE. The L_Key is not checked (ibv_post_send(3)
     * IBV_SEND_INLINE): the CPU copies the bytes from the address given. The region the L_Key
     * names is used when it holds the address (the usual case, and the only way to name a
     * ZERO_BASED region's bytes); otherwise the address alone finds its region of this device.
     *
     * @throws PostException EINVAL when no registered region of the device holds the address: a
     *                       simulated address exists only inside registered memory
     */
    private void copyInline(SendWqe w, Sge s, int at, SendWr wr, int index) {
        if (s.length() == 0) {
            return;
        }
        long len = Integer.toUnsignedLong(s.length());
        Object o = qp.owner().memory().keys().lookup(s.lkey());
        MrImpl mr = o instanceof MrImpl
                        && ((MrImpl) o).lkey() == s.lkey()
                        && ((MrImpl) o).valid
                        && MemoryAccess.inRange(((MrImpl) o).address(), ((MrImpl) o).length(), s.addr(), len)
                ? (MrImpl) o
                : null;
        if (mr == null) {
            mr = qp.owner().memory().regionAt(s.addr(), len);
        }
        if (mr == null) {
            throw new PostException(
                    Errno.EINVAL,
                    "inline SGE " + s + ": no registered region of device "
                            + qp.owner().name() + " holds its address (inline bytes are read from simulated memory)",
                    wr,
                    index);
        }
        mr.buf.get(mr.indexOf(s.addr()), w.inlineData, at, s.length());
    }

    /** Posts a type 1 window bind (ibv_bind_mw(3)); see {@link RcQueuePair#bindMw}. */
    int bindMw(
            MemoryWindow window,
            MemoryRegion region,
            long addr,
            long length,
            Set<AccessFlag> access,
            long wrId,
            Set<SendFlag> flags) {
        Objects.requireNonNull(window, "mw");
        if (!(window instanceof MwImpl) || (region != null && !(region instanceof MrImpl))) {
            throw VerbsException.invalid("window or region of another fabric");
        }
        MwImpl mw = (MwImpl) window;
        MrImpl mr = (MrImpl) region;
        if (mw.deallocated) {
            throw VerbsException.stale("memory window was deallocated");
        }
        if (mw.type() != MwType.TYPE_1) {
            throw VerbsException.invalid("ibv_bind_mw binds type 1 windows; post BIND_MW for type 2");
        }
        if (mr == null && length != 0) {
            // As the libibverbs providers check: only an unbinding (zero-length) bind may omit the region.
            throw VerbsException.invalid("a bind of " + length + " bytes needs a memory region");
        }
        int newRkey;
        synchronized (qp.sq.postLock) {
            // Checked as an empty WR of an opcode every device has (checkPostableSend refuses BIND_MW of a
            // type 1 window): the QP's state, the profile's rule before RTS, a full send queue.
            SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE);
            boolean queue = checkPostableSend(wr, 0);
            newRkey = length == 0 ? mw.rkey() : MemoryWindow.incrementRkey(mw.rkey());
            mw.rkey(newRkey);
            if (!queue) {
                return newRkey; // dropped before RTS (DeviceProfile.PostBeforeRts.DROP)
            }
            wr.opcode(WrOpcode.BIND_MW).wrId(wrId).flags(flags).bind(mw, newRkey, mr, addr, length, access);
            SendWqe w = qp.sq.slotForPost(qp.sq.tail);
            fillSendWqe(w, wr, 0);
            FabricObserver observer = qp.owner().observer();
            if (observer != null) {
                observer.sendPosted(qp, wr);
            }
            qp.sq.tail = qp.sq.tail + 1;
        }
        qp.kickAfterPost();
        return newRkey;
    }
}
