package io.simrdma.provider;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.RmrBindCompletionEvent;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.Sge;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The data transfer side of one endpoint: posting Send, Receive, RDMA Read, RDMA Write and RMR
 * bind work requests to its QP (dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT),
 * dat_ep_post_rdma_read(3DAT), dat_ep_post_rdma_write(3DAT), dat_rmr_bind(3DAT)), and turning
 * their work completions back into DAT events with the consumer's cookies.
 *
 * <p>Work requests: every posted DTO takes a slot of a ring in posting order (request and receive
 * rings sized by max_request_dtos and max_recv_dtos); the slot keeps the user cookie, and its
 * sequence number is the verbs wr_id (see {@link WrId}), so a completion finds its cookie
 * without a lookup table. Request completions arrive in order, so a completion also retires the
 * unsignalled slots before it; slots of suppressed work requests that no later completion follows
 * are reclaimed from the QP's send-queue depth. The rings and the verbs work requests are made
 * when the endpoint is created or its sizes change (dat_ep_modify(3DAT)), not per post.
 *
 * <p>Callers: {@link SimEp} (the consumer's posts, dat_ep_get_status, dat_ep_recv_query),
 * {@link SimRmr} (binds), {@link IaEventRouter#deliver} and {@link SimSrq} (completions), and
 * the endpoint's reset and dat_ep_modify.
 *
 * <p>Thread safety: thread-safe. Posts run on the caller's thread; completions, reset and
 * dat_ep_modify on the device's executor (the engine thread); each holds the ring lock while it
 * touches a ring. State checks consult {@link EpStateTable}.
 */
final class EpPosting {

    /** The only completion flag a receive is posted with (dat_ep_post_recv(3DAT)). */
    private static final Set<CompletionFlag> RECV_POST_FLAGS = EnumSet.of(CompletionFlag.UNSIGNALLED);

    private enum Kind {
        SEND,
        RDMA_READ,
        RDMA_WRITE,
        BIND
    }

    /** A request DTO or bind in flight. */
    private static final class ReqSlot {
        long cookie;
        Kind kind;
        long length;
        boolean unsignalled;
        SimRmr rmr;
        SimLmr lmr;
        LmrTriplet triplet;
        Set<MemoryPrivilege> privileges;
        int newRkey;
    }

    /** A posted receive, with its I/O vector kept for a QP re-creation by dat_ep_modify. */
    private static final class RecvSlot {
        long cookie;
        int segments;
        final int[] lmr;
        final long[] va;
        final long[] len;

        RecvSlot(int maxIov) {
            lmr = new int[maxIov];
            va = new long[maxIov];
            len = new long[maxIov];
        }
    }

    private final SimEp ep;
    private final Object lock = new Object();
    /** The request ring, made at the first request post (an endpoint that never posts holds none); guarded by lock. */
    private ReqSlot[] req;

    private int reqSize;
    private int reqHead;
    private int reqTail;
    /** The receive ring, made at the first receive; guarded by lock. */
    private RecvSlot[] recv;

    private int recvSize;
    private int recvIov;
    private int recvHead;
    private int recvTail;
    private boolean anyRecvPosted;
    private final SendWr sendWr = new SendWr();
    private final RecvWr recvWr = new RecvWr();

    EpPosting(SimEp ep, EpAttributes attributes) {
        this.ep = ep;
        sizeRings(attributes);
    }

    /**
     * Sizes empty rings for {@code a}: at creation, and when dat_ep_modify(3DAT) makes a new QP.
     * The rings and their slots are made when first used, so a connected endpoint that has not
     * posted holds none of them (tens of thousands of connections per IA).
     */
    void sizeRings(EpAttributes a) {
        synchronized (lock) {
            reqSize = Integer.highestOneBit(Math.max(1, a.maxRequestDtos()) * 2 - 1);
            // An SRQ endpoint has no receives of its own (dat_ep_create_with_srq(3DAT) ignores max_recv_iov).
            recvIov = ep.srq != null ? 1 : Math.max(1, a.maxRecvIov());
            recvSize = ep.srq != null ? 1 : Integer.highestOneBit(Math.max(1, a.maxRecvDtos()) * 2 - 1);
            req = null;
            recv = null;
            reqHead = reqTail = recvHead = recvTail = 0;
        }
    }

    /** The request slot of sequence number {@code seq}, made if new. Holds lock. */
    private ReqSlot reqSlot(int seq) {
        if (req == null) {
            req = new ReqSlot[reqSize];
        }
        int i = seq & (reqSize - 1);
        ReqSlot s = req[i];
        if (s == null) {
            s = new ReqSlot();
            req[i] = s;
        }
        return s;
    }

    /** The receive slot of sequence number {@code seq}, made if new. Holds lock. */
    private RecvSlot recvSlot(int seq) {
        if (recv == null) {
            recv = new RecvSlot[recvSize];
        }
        int i = seq & (recvSize - 1);
        RecvSlot s = recv[i];
        if (s == null) {
            s = new RecvSlot(recvIov);
            recv[i] = s;
        }
        return s;
    }

    // ------------------------------------------------------------------ posting (caller's thread)

    /** The checks every request post and bind starts with: the handle, the state, the completion flags. */
    private void checkRequest(EpOp op, Set<CompletionFlag> flags) {
        ep.checkHandle();
        EpStateTable.check(ep.state, op);
        if (flags == null) {
            throw DatException.invalidParameter("completion flags are null");
        }
        if (flags.contains(CompletionFlag.UNSIGNALLED) && !ep.config.hasFlag(EpConfiguration.REQUEST_UNSIGNALLED)) {
            // dat_ep_post_send(3DAT): UNSIGNALLED needs the endpoint's request completion flags UNSIGNALLED.
            throw DatException.invalidParameter(
                    "DAT_COMPLETION_UNSIGNALLED_FLAG needs UNSIGNALLED request completion flags on the endpoint");
        }
        if (flags.contains(CompletionFlag.EVD_THRESHOLD)) {
            throw DatException.invalidParameter(
                    "EVD_THRESHOLD is an endpoint receive completion flag, not a post flag");
        }
    }

    private int claimRequest(QueuePair q) {
        int capacity = ep.config.attrs().maxRequestDtos();
        if (reqTail - reqHead >= capacity) {
            // Unsignalled work requests retired without a completion: the QP's depth tells how many are left.
            retireUpTo(reqTail - q.sendQueueDepth());
            if (reqTail - reqHead >= capacity) {
                throw SimHandle.insufficient(
                        DatReturnSubtype.RESOURCE_MEMORY, "max_request_dtos (" + capacity + ") are outstanding");
            }
        }
        return reqTail++;
    }

    /**
     * Retires the request slots before {@code end}: unsignalled work requests that completed
     * without a completion (RC completes in order, and errors always complete). A bind among them
     * bound its RMR (dat_rmr_bind(3DAT) with DAT_COMPLETION_SUPPRESS_FLAG). Holds lock.
     */
    private void retireUpTo(int end) {
        for (; end - reqHead > 0; reqHead++) {
            ReqSlot s = reqSlot(reqHead);
            if (s.kind == Kind.BIND && s.rmr != null) {
                s.rmr.bound(s.lmr, s.triplet, s.privileges, s.newRkey, true);
            }
            s.rmr = null;
            s.lmr = null;
        }
    }

    /** Retires the work requests that left the send queue without a completion (see {@link #retireUpTo}). Device executor. */
    void retireSilent() {
        QueuePair q = ep.config.qp();
        if (q == null) {
            return;
        }
        synchronized (lock) {
            retireUpTo(reqTail - q.sendQueueDepth());
        }
    }

    private int sendFlags(Set<CompletionFlag> flags) {
        int f = 0;
        if (!flags.contains(CompletionFlag.SUPPRESS)) {
            f |= SendFlag.SIGNALED.bit();
        }
        if (flags.contains(CompletionFlag.BARRIER_FENCE)) {
            f |= SendFlag.FENCE.bit();
        }
        if (flags.contains(CompletionFlag.SOLICITED_WAIT)) {
            f |= SendFlag.SOLICITED.bit();
        }
        return f;
    }

    /**
     * Claims a request slot for {@code cookie} and posts {@code sendWr} (its SGEs and remote buffer
     * set) as {@code opcode}. Holds lock.
     */
    private void postRequest(
            QueuePair q, WrOpcode opcode, long cookie, Kind kind, long length, Set<CompletionFlag> flags) {
        int seq = claimRequest(q);
        fill(reqSlot(seq), cookie, kind, length, flags);
        sendWr.opcode(opcode).flagBits(sendFlags(flags)).wrId(WrId.of(WrId.REQUEST, ep.id, seq));
        try {
            q.postSend(sendWr);
        } catch (PostException e) {
            reqTail--;
            throw postFailed(e);
        }
    }

    /** A post the QP refused: a full queue is DAT_INSUFFICIENT_RESOURCES, anything else the endpoint's state. */
    private DatException postFailed(VerbsException e) {
        if (e.errno() == Errno.ENOMEM) {
            return SimHandle.insufficient(DatReturnSubtype.RESOURCE_MEMORY, e.getMessage());
        }
        return new DatException(DatReturnType.INVALID_STATE, EpStateTable.subtype(ep.state), e.getMessage());
    }

    /** dat_ep_post_send(3DAT). */
    void postSend(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags) {
        checkRequest(EpOp.POST_SEND, completionFlags);
        LocalIov.checkCount(localIov, ep.config.attrs().maxRequestIov());
        QueuePair q = ep.config.readyQp();
        synchronized (lock) {
            sendWr.clear();
            long total = LocalIov.addSegments(ep.ia, ep.config.pz(), localIov, sendWr);
            long max = ep.config.attrs().maxMessageSize();
            if (total > max) {
                throw DatException.invalidParameter("message of " + total + " bytes exceeds max_message_size " + max);
            }
            postRequest(q, WrOpcode.SEND, userCookie, Kind.SEND, total, completionFlags);
        }
    }

    /** dat_ep_post_rdma_read(3DAT). */
    void postRdmaRead(
            List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer, Set<CompletionFlag> completionFlags) {
        checkRequest(EpOp.POST_RDMA_READ, completionFlags);
        LocalIov.checkCount(localIov, Math.max(1, ep.config.attrs().maxRdmaReadIov()));
        if (remoteBuffer == null) {
            throw DatException.invalidParameter("remote buffer is null");
        }
        if (remoteBuffer.segmentLength() > ep.config.attrs().maxRdmaSize()) {
            throw DatException.invalidParameter(
                    "RDMA of " + remoteBuffer.segmentLength() + " bytes exceeds max_rdma_size");
        }
        QueuePair q = ep.config.readyQp();
        synchronized (lock) {
            sendWr.clear();
            long total =
                    LocalIov.addReadSegments(ep.ia, ep.config.pz(), localIov, sendWr, remoteBuffer.segmentLength());
            if (total < remoteBuffer.segmentLength()) {
                // dat_ep_post_rdma_read(3DAT): the local buffer is too small for the remote data.
                throw new DatException(
                        DatReturnType.LENGTH_ERROR,
                        "local_iov of " + total + " bytes cannot hold the " + remoteBuffer.segmentLength()
                                + " bytes read");
            }
            sendWr.remote(remoteBuffer.targetAddress(), remoteBuffer.rmrContext());
            postRequest(
                    q, WrOpcode.RDMA_READ, userCookie, Kind.RDMA_READ, remoteBuffer.segmentLength(), completionFlags);
        }
    }

    /** dat_ep_post_rdma_write(3DAT). */
    void postRdmaWrite(
            List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer, Set<CompletionFlag> completionFlags) {
        checkRequest(EpOp.POST_RDMA_WRITE, completionFlags);
        LocalIov.checkCount(localIov, Math.max(1, ep.config.attrs().maxRdmaWriteIov()));
        if (remoteBuffer == null) {
            throw DatException.invalidParameter("remote buffer is null");
        }
        QueuePair q = ep.config.readyQp();
        synchronized (lock) {
            sendWr.clear();
            long total = LocalIov.addSegments(ep.ia, ep.config.pz(), localIov, sendWr);
            if (total > remoteBuffer.segmentLength()) {
                // dat_ep_post_rdma_write(3DAT): the remote buffer is too small for the local data.
                throw new DatException(
                        DatReturnType.LENGTH_ERROR,
                        "remote buffer of " + remoteBuffer.segmentLength() + " bytes cannot take " + total + " bytes");
            }
            if (total > ep.config.attrs().maxRdmaSize()) {
                throw DatException.invalidParameter("RDMA of " + total + " bytes exceeds max_rdma_size");
            }
            sendWr.remote(remoteBuffer.targetAddress(), remoteBuffer.rmrContext());
            postRequest(q, WrOpcode.RDMA_WRITE, userCookie, Kind.RDMA_WRITE, total, completionFlags);
        }
    }

    /** Posts the bind of {@code rmr} (dat_rmr_bind(3DAT)); returns the new rmr_context. */
    int postBind(
            SimRmr rmr,
            SimLmr lmr,
            LmrTriplet triplet,
            Set<MemoryPrivilege> privileges,
            long cookie,
            Set<CompletionFlag> flags) {
        checkRequest(EpOp.RMR_BIND, flags);
        QueuePair q = ep.config.readyQp();
        EnumSet<AccessFlag> access = EnumSet.noneOf(AccessFlag.class);
        if (privileges.contains(MemoryPrivilege.REMOTE_READ)) {
            access.add(AccessFlag.REMOTE_READ);
        }
        if (privileges.contains(MemoryPrivilege.REMOTE_WRITE)) {
            access.add(AccessFlag.REMOTE_WRITE);
        }
        EnumSet<SendFlag> sf = EnumSet.noneOf(SendFlag.class);
        if (!flags.contains(CompletionFlag.SUPPRESS)) {
            sf.add(SendFlag.SIGNALED);
        }
        if (flags.contains(CompletionFlag.BARRIER_FENCE)) {
            sf.add(SendFlag.FENCE);
        }
        synchronized (lock) {
            int seq = claimRequest(q);
            ReqSlot s = reqSlot(seq);
            fill(s, cookie, Kind.BIND, triplet.segmentLength(), flags);
            s.rmr = rmr;
            s.lmr = lmr;
            s.triplet = triplet;
            s.privileges = EnumSet.copyOf(privileges.isEmpty() ? EnumSet.noneOf(MemoryPrivilege.class) : privileges);
            try {
                int key = q.bindMw(
                        rmr.mw,
                        lmr == null ? null : lmr.mr,
                        triplet.virtualAddress(),
                        triplet.segmentLength(),
                        access,
                        WrId.of(WrId.REQUEST, ep.id, seq),
                        sf);
                s.newRkey = key;
                return key;
            } catch (VerbsException e) {
                reqTail--;
                throw postFailed(e);
            }
        }
    }

    private static void fill(ReqSlot s, long cookie, Kind kind, long length, Set<CompletionFlag> flags) {
        s.cookie = cookie;
        s.kind = kind;
        s.length = length;
        s.unsignalled = flags.contains(CompletionFlag.UNSIGNALLED);
        s.rmr = null;
        s.lmr = null;
        s.triplet = null;
        s.privileges = null;
    }

    /**
     * Posts a receive (dat_ep_post_recv(3DAT)): valid in every state; in DISCONNECTED it is flushed
     * at once. An endpoint with an SRQ takes its receives from the SRQ: posting to it is refused
     * with DAT_INVALID_PARAMETER (S3 SILENT: it has no receive queue of its own to post to).
     */
    void postRecv(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags) {
        ep.checkHandle();
        EpStateTable.check(ep.state, EpOp.POST_RECV);
        if (ep.srq != null) {
            throw DatException.invalidParameter(
                    "the endpoint receives from an SRQ: post to the SRQ (dat_srq_post_recv)");
        }
        if (completionFlags == null) {
            throw DatException.invalidParameter("completion flags are null");
        }
        if (!RECV_POST_FLAGS.containsAll(completionFlags)) {
            // dat_ep_post_recv(3DAT) takes only UNSIGNALLED; dat_ep_modify(3DAT): "Recv posting does not support
            // DAT_COMPLETION_SUPPRESS_FLAG or DAT_COMPLETION_BARRIER_FENCE_FLAG".
            throw DatException.invalidParameter(
                    "a receive is posted with no completion flag but UNSIGNALLED, not " + completionFlags);
        }
        if (completionFlags.contains(CompletionFlag.UNSIGNALLED)
                && !ep.config.hasFlag(EpConfiguration.RECV_UNSIGNALLED)) {
            throw DatException.invalidParameter(
                    "DAT_COMPLETION_UNSIGNALLED_FLAG needs UNSIGNALLED recv completion flags on the endpoint");
        }
        LocalIov.checkCount(localIov, ep.config.attrs().maxRecvIov());
        QueuePair q = ep.config.readyQp();
        synchronized (lock) {
            int max = ep.config.attrs().maxRecvDtos();
            if (recvTail - recvHead >= max) {
                throw SimHandle.insufficient(
                        DatReturnSubtype.RESOURCE_MEMORY, "max_recv_dtos (" + max + ") receives are posted");
            }
            int seq = recvTail;
            RecvSlot s = recvSlot(seq);
            recvWr.clear();
            LocalIov.addSegments(ep.ia, ep.config.pz(), localIov, recvWr);
            s.segments = recvWr.numSge();
            for (int i = 0; i < s.segments; i++) {
                Sge g = recvWr.sgeAt(i);
                s.lmr[i] = g.lkey();
                s.va[i] = g.addr();
                s.len[i] = g.length();
            }
            s.cookie = userCookie;
            recvWr.wrId(WrId.of(WrId.RECV, ep.id, seq));
            try {
                q.postRecv(recvWr);
            } catch (PostException e) {
                throw postFailed(e);
            }
            recvTail++;
            anyRecvPosted = true;
        }
        ep.watermarks.recvPosted();
    }

    // ------------------------------------------------------------------ completions (engine thread)

    /**
     * A request completion of this endpoint taken off its request EVD's CQ: queues its event on
     * {@code evd} (nothing for a completion of no slot of this endpoint). {@code evd} is null when
     * the endpoint has no request EVD ({@link DiscardCq}): the work request is retired and no event made.
     */
    void completeRequest(SimEvd evd, int seq, WorkCompletion wc) {
        long cookie;
        Kind kind;
        long length;
        boolean unsignalled;
        SimRmr rmr;
        SimLmr lmr;
        LmrTriplet triplet;
        Set<MemoryPrivilege> privileges;
        int newRkey;
        synchronized (lock) {
            if (seq - reqHead < 0 || reqTail - seq <= 0) {
                return;
            }
            retireUpTo(seq);
            ReqSlot s = reqSlot(seq);
            cookie = s.cookie;
            kind = s.kind;
            length = s.length;
            unsignalled = s.unsignalled;
            rmr = s.rmr;
            lmr = s.lmr;
            triplet = s.triplet;
            privileges = s.privileges;
            newRkey = s.newRkey;
            s.rmr = null;
            s.lmr = null;
            reqHead = seq + 1;
        }
        DtoCompletionStatus st = Statuses.of(wc.status(), wc.vendorErr());
        boolean ok = st == DtoCompletionStatus.SUCCESS;
        ep.connection.checkDrained();
        boolean notify = !unsignalled || !ok;
        if (kind == Kind.BIND) {
            rmr.bound(lmr, triplet, privileges, newRkey, ok);
            if (evd == null) {
                return;
            }
            evd.deliver(
                    new RmrBindCompletionEvent(
                            evd,
                            rmr,
                            cookie,
                            ok
                                    ? st
                                    : st == DtoCompletionStatus.ERR_FLUSHED
                                            ? st
                                            : DtoCompletionStatus.RMR_OPERATION_FAILED),
                    notify,
                    null);
            return;
        }
        if (evd == null) {
            return;
        }
        evd.deliverDto(ep, cookie, st, ok ? length : 0, notify, null);
    }

    /** A receive completion of this endpoint taken off its recv EVD's CQ: queues its event on {@code evd} (null: it has none). */
    void completeRecv(SimEvd evd, int seq, WorkCompletion wc, boolean solicited) {
        long cookie;
        synchronized (lock) {
            if (seq - recvHead < 0 || recvTail - seq <= 0) {
                return;
            }
            cookie = recvSlot(seq).cookie;
            recvHead = seq + 1;
        }
        recvCompleted(evd, cookie, wc, solicited, null);
    }

    /**
     * Queues on {@code evd} the event of a receive of {@code cookie} that completed on this
     * endpoint, posted to it or (dat_srq_post_recv(3DAT)) to its SRQ, as if posted to the endpoint;
     * {@code reaped} (may be null) runs once the event has left the EVD ({@link SimEvd#deliver}).
     * With no recv EVD ({@code evd} null, see {@link DiscardCq}) no event is made and {@code reaped}
     * runs at once.
     */
    void recvCompleted(SimEvd evd, long cookie, WorkCompletion wc, boolean solicited, Runnable reaped) {
        DtoCompletionStatus st = Statuses.of(wc.status(), wc.vendorErr());
        boolean ok = st == DtoCompletionStatus.SUCCESS;
        boolean notify = recvNotifies(ok, solicited);
        if (evd == null) {
            if (reaped != null) {
                reaped.run();
            }
            return;
        }
        evd.deliverDto(ep, cookie, st, ok ? Integer.toUnsignedLong(wc.byteLen()) : 0, notify, reaped);
    }

    /**
     * Whether a receive completion notifies waiters (dat_ep_post_recv(3DAT), dat_evd_wait(3DAT)):
     * errors always; UNSIGNALLED receive completions never; SOLICITED_WAIT ones only when the
     * matching send was solicited; otherwise always. An SRQ receive that arrives on this endpoint
     * also counts against its watermarks (dat_ep_set_watermark(3DAT)).
     */
    private boolean recvNotifies(boolean success, boolean solicited) {
        if (ep.srq != null) {
            ep.watermarks.srqBufferTaken();
        }
        if (!success) {
            return true;
        }
        if (ep.config.hasFlag(EpConfiguration.RECV_UNSIGNALLED) && ep.srq == null) {
            // dat_srq_post_recv(3DAT): SRQ receives complete with signal even when the EP's flags are UNSIGNALLED.
            return false;
        }
        if (ep.config.hasFlag(EpConfiguration.RECV_SOLICITED_WAIT)) {
            return solicited;
        }
        return true;
    }

    /** Receive buffers at the endpoint: posted and not completed (dat_ep_recv_query(3DAT)'s nbufs_allocated). */
    int buffersHeld() {
        synchronized (lock) {
            return recvTail - recvHead;
        }
    }

    // ------------------------------------------------------------------ status, reset, QP re-creation

    /** dat_ep_get_status(3DAT): no receive is posted and not completed. */
    boolean recvIdle() {
        synchronized (lock) {
            return recvTail == recvHead;
        }
    }

    /**
     * dat_ep_recv_query(3DAT): receives posted to the endpoint and not yet completed; with an SRQ,
     * the buffers the endpoint holds are not tracked per endpoint (DAT_VALUE_UNKNOWN).
     */
    EpRecvInfo recvQuery() {
        if (ep.srq != null) {
            return new EpRecvInfo(Dat.VALUE_UNKNOWN, Dat.VALUE_UNKNOWN);
        }
        synchronized (lock) {
            int n = recvTail - recvHead;
            return new EpRecvInfo(n, n);
        }
    }

    /** Whether a receive was ever posted (dat_ep_modify(3DAT) changes recv_completion_flags only before). */
    boolean anyRecvPosted() {
        synchronized (lock) {
            return anyRecvPosted;
        }
    }

    /** dat_ep_reset(3DAT): the QP was reset, so its outstanding work requests are gone. Device executor. */
    void forgetOutstanding() {
        synchronized (lock) {
            reqHead = reqTail;
            recvHead = recvTail;
        }
    }

    /** The receives posted and not completed when dat_ep_modify(3DAT) replaces the QP. */
    static final class PostedReceives {
        private final RecvSlot[] slots;
        private final int head;
        private final int tail;

        private PostedReceives(RecvSlot[] slots, int head, int tail) {
            this.slots = slots;
            this.head = head;
            this.tail = tail;
        }
    }

    /** Takes the posted receives before the QP is replaced ({@link #repost} moves them to the new one). Device executor. */
    PostedReceives postedReceives() {
        synchronized (lock) {
            return new PostedReceives(recv, recvHead, recvTail);
        }
    }

    /**
     * Posts the receives of the replaced QP to the new one, in order; those whose LMR is not in the
     * new PZ complete with a protection error (dat_ep_modify(3DAT)). Device executor.
     */
    void repost(PostedReceives posted) {
        for (int seq = posted.head; seq != posted.tail; seq++) {
            RecvSlot s = posted.slots[seq & (posted.slots.length - 1)];
            List<LmrTriplet> iov = new ArrayList<>(s.segments);
            for (int i = 0; i < s.segments; i++) {
                iov.add(new LmrTriplet(s.lmr[i], s.va[i], s.len[i]));
            }
            try {
                postRecv(iov, s.cookie, EnumSet.noneOf(CompletionFlag.class));
            } catch (DatException e) {
                SimEvd recvEvd = ep.config.recvEvd();
                if (recvEvd != null) {
                    recvEvd.enqueue(
                            new DtoCompletionEvent(recvEvd, ep, s.cookie, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0),
                            true);
                }
            }
        }
    }
}
