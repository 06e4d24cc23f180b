package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.WcFlag;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.internal.mem.PdImpl;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The responder role of an RC queue pair (after rxe_resp.c): checks each request packet and
 * executes it, then answers.
 *
 * <p>Steps per packet: GET_REQUEST, CHECK_PSN (duplicate: DUPLICATE; ahead: OUT_OF_SEQUENCE),
 * CHECK_OP_SEQUENCE, CHECK_OP_VALID, CHECK_RESOURCE (no receive WQE: RNR), CHECK_LENGTH,
 * CHECK_RKEY, EXECUTE, then READ_REPLY, ATOMIC_REPLY or COMPLETE, ACKNOWLEDGE, CLEANUP. Errors
 * are IBA class C for RC (9.9.3.1): the responder NAKs, completes the receive WQE it holds with
 * an error or raises an affiliated async event, and moves the QP to ERR.
 *
 * <p>ACKs are coalesced: a packet asking for an ACK marks one pending, and the pending ACK (for
 * the newest PSN) goes out when the inbox is empty or before any other response.
 *
 * <p>Duplicates (IBA 9.7.5.1.5) are re-acknowledged, not executed again; a duplicate RDMA READ
 * is answered again from memory; a duplicate atomic is answered from the saved original value,
 * never executed twice.
 *
 * <p>Thread safety: runs only on the device's executor.
 */
public final class Responder {

    private static final Logger LOG = LoggerFactory.getLogger(Responder.class);

    enum Step {
        GET_REQUEST,
        CHECK_PSN,
        CHECK_OP_SEQUENCE,
        CHECK_OP_VALID,
        CHECK_RESOURCE,
        CHECK_LENGTH,
        CHECK_RKEY,
        EXECUTE,
        READ_REPLY,
        ATOMIC_REPLY,
        COMPLETE,
        ACKNOWLEDGE,
        DUPLICATE,
        OUT_OF_SEQUENCE,
        ERR_RNR,
        ERR_INVALID_REQUEST,
        ERR_REMOTE_ACCESS,
        ERR_REMOTE_OPERATIONAL,
        ERR_LENGTH,
        ERR_INVALIDATE,
        CLEANUP,
        DONE
    }

    /** A responder resource: what an RDMA READ or atomic needs to answer it again (IBA 9.7.5.1.5). */
    static final class Resource {
        boolean valid;
        boolean atomic;
        int firstPsn;
        int lastPsn;
        long va;
        int length;
        MrImpl mr;
        int index;
        long original;
    }

    private final RcQueuePair qp;
    /** The PD receive buffers are checked against: the SRQ's when the QP has one, else the QP's. */
    private final PdImpl recvPd;

    private final ArrayDeque<Packet> inbox = new ArrayDeque<>();
    private final MemoryAccess access = new MemoryAccess();

    /** Expected PSN. */
    int psn;
    /** Message sequence number: messages completed (IBA 9.7.5.2.2). */
    int msn;

    private boolean nakSent;
    private boolean inSend;
    private boolean inWrite;
    private boolean commEstRaised;

    // ---- the receive WQE a SEND or RDMA WRITE with immediate is consuming
    private final RecvWqe held;
    private boolean holding;
    private int recvOffset;
    private final MrImpl[] recvMr;
    private final int[] recvIndex;
    private int recvResolved;

    // ---- the RDMA WRITE in progress
    private MrImpl writeMr;
    private int writeIndex;
    private int writeRemaining;
    private int writeLength;

    private boolean ackPending;
    private int ackPsn;

    private Resource[] resources = new Resource[0];
    private int resourceHead;
    private Resource current;

    /** What the error step reports on the held receive WQE. */
    private WcStatus recvErrorStatus;

    Responder(RcQueuePair qp, int maxRecvSge) {
        this.qp = qp;
        this.recvPd = qp.srq() != null ? qp.srq().pd() : qp.pd();
        this.held = new RecvWqe(maxRecvSge);
        this.recvMr = new MrImpl[maxRecvSge];
        this.recvIndex = new int[maxRecvSge];
    }

    void start(int rqPsn) {
        psn = rqPsn;
        msn = 0;
        nakSent = false;
        inSend = false;
        inWrite = false;
        ackPending = false;
        commEstRaised = false;
        for (Resource r : resources) {
            r.valid = false;
        }
    }

    void reset() {
        releaseInbox();
        releaseHeld();
        start(0);
    }

    void resizeResources(int n) {
        Resource[] r = new Resource[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Resource();
        }
        resources = r;
        resourceHead = 0;
    }

    void releaseInbox() {
        Packet p;
        while ((p = inbox.poll()) != null) {
            p.release();
        }
    }

    void releaseHeld() {
        holding = false;
        for (int i = 0; i < recvMr.length; i++) {
            recvMr[i] = null;
        }
        writeMr = null;
    }

    public void enqueue(Packet p) {
        inbox.add(p);
        qp.responderTask.kick();
    }

    /** Completes the held receive WQE and every queued one with WR_FLUSH_ERR, in order. State ERR. */
    void flushReceives() {
        if (holding) {
            // A SEND cut off mid-message: part of it is already in the buffers.
            qp.completeRecv(
                    held.wrId,
                    WcStatus.WR_FLUSH_ERR,
                    WcOpcode.RECV,
                    0,
                    0,
                    0,
                    false,
                    recvOffset > 0 ? WorkCompletion.VENDOR_ERR_PARTIAL_MESSAGE : 0);
            releaseHeld();
        }
        RecvQueue rq = qp.rq;
        if (rq != null) {
            RecvWqe w;
            while ((w = rq.peek()) != null) {
                qp.completeRecv(w.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, false);
                rq.advance();
            }
        }
    }

    void run() {
        if (qp.stalled()) {
            // A full CQ stalls the QP (DeviceProfile.CqOverrun.STALL): requests wait in the inbox.
            return;
        }
        Packet p = null;
        Step step = Step.GET_REQUEST;
        while (step != Step.DONE) {
            if (LOG.isTraceEnabled()) {
                LOG.trace("qp {} responder {} psn={} pkt={}", qp.qpNum(), step, psn, p);
            }
            switch (step) {
                case GET_REQUEST:
                    if (p == null) {
                        // (else p is a burst moved to its next packet: that packet comes next)
                        p = inbox.poll();
                    }
                    step = getRequest(p);
                    if (step == Step.GET_REQUEST) {
                        p = null; // dropped
                    }
                    break;
                case CHECK_PSN:
                    step = checkPsn(p);
                    break;
                case CHECK_OP_SEQUENCE:
                    step = checkOpSequence(p);
                    break;
                case CHECK_OP_VALID:
                    step = checkOpValid(p);
                    break;
                case CHECK_RESOURCE:
                    step = checkResource(p);
                    break;
                case CHECK_LENGTH:
                    step = checkLength(p);
                    break;
                case CHECK_RKEY:
                    step = checkRkey(p);
                    break;
                case EXECUTE:
                    step = execute(p);
                    break;
                case READ_REPLY:
                    step = readReply(p);
                    break;
                case ATOMIC_REPLY:
                    step = atomicReply();
                    break;
                case COMPLETE:
                    step = complete(p);
                    break;
                case ACKNOWLEDGE:
                    step = acknowledge(p);
                    break;
                case DUPLICATE:
                    step = duplicate(p);
                    break;
                case OUT_OF_SEQUENCE:
                    step = outOfSequence(p);
                    break;
                case ERR_RNR:
                    step = rnr(p);
                    break;
                case ERR_INVALID_REQUEST:
                    step = classC(p, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
                    break;
                case ERR_REMOTE_ACCESS:
                    // A receive WQE is held only by an RDMA WRITE with immediate: its bad R_Key is a
                    // local access error for the receiver (ibv_poll_cq(3) IBV_WC_LOC_ACCESS_ERR: a
                    // protection error on a local buffer during an RDMA WRITE with immediate).
                    step = classC(
                            p, Aeth.NakCode.REMOTE_ACCESS_ERROR, WcStatus.LOC_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
                    break;
                case ERR_INVALIDATE:
                    step = invalidateFailed(p);
                    break;
                case ERR_REMOTE_OPERATIONAL:
                    step = classC(p, Aeth.NakCode.REMOTE_OPERATIONAL_ERROR, recvErrorStatus, AsyncEventType.QP_FATAL);
                    break;
                case ERR_LENGTH:
                    step = classC(p, Aeth.NakCode.INVALID_REQUEST, WcStatus.LOC_LEN_ERR, AsyncEventType.QP_REQ_ERR);
                    break;
                case CLEANUP:
                    if (!p.isBurst()) {
                        p.release();
                        p = null;
                        step = qp.state() == QpState.ERR ? Step.DONE : Step.GET_REQUEST;
                    } else if (qp.state() == QpState.ERR) {
                        // The burst's later packets come after the error, as they would one by one
                        // (each arrives later): refused as any request reaching a QP in ERR.
                        p.nextInBurst();
                        while (p.isBurst()) {
                            refuse(p.splitFirst());
                        }
                        refuse(p);
                        p = null;
                        step = Step.DONE;
                    } else {
                        // The burst's next packet is the next request, as if it had been queued alone.
                        p.nextInBurst();
                        executeMiddles(p);
                        step = Step.GET_REQUEST;
                    }
                    break;
                default:
                    throw new IllegalStateException("responder step " + step);
            }
        }
        if (qp.state() == QpState.ERR) {
            releaseInbox();
        } else {
            flushAck();
        }
    }

    private Step getRequest(Packet p) {
        if (p == null) {
            return Step.DONE;
        }
        if (!qp.canReceive()) {
            while (p.isBurst()) {
                refuse(p.splitFirst());
            }
            refuse(p);
            return Step.GET_REQUEST;
        }
        if (qp.state() == QpState.RTR && !commEstRaised) {
            // IBA 11.6.3: the first packet received in RTR establishes communication.
            commEstRaised = true;
            qp.owner().raiseAsync(AsyncEventType.COMM_EST, qp, null, null);
        }
        return Step.CHECK_PSN;
    }

    /** A request the QP's state does not let it take: answered (if the profile says so) and dropped. */
    private void refuse(Packet p) {
        if (qp.state() == QpState.ERR
                && qp.owner().profile().remoteQpInError() != DeviceProfile.RemoteQpInError.SILENT) {
            answerInError(p);
        }
        // IBA 10.3.1: a QP in RESET, INIT (no remote QP to answer to) or ERR drops requests.
        qp.owner().drop(p, DropReason.QP_STATE, Counter.DROPPED_PACKETS);
    }

    /**
     * Segmentation offload: executes at once the run of Middle packets of an RDMA WRITE or SEND
     * burst that starts at {@code p}'s current packet, as far as each of them would pass every
     * step one by one (in sequence, the MTU the QP expects, within the RDMA WRITE's DMA length or
     * the receive WQE's capacity, into SGEs that pass their checks): one copy for the run, the
     * PSN advanced past it, no ACK (Middle packets of a burst never ask for one). The packet a
     * step would refuse, and the burst's last packet, then go through the steps themselves, so an
     * error in the middle of a message is met on the same packet, with the same bytes written
     * before it, as without offload. Engine thread.
     */
    private void executeMiddles(Packet p) {
        Opcode op = p.opcode();
        int mtu = p.burstMtu();
        if (!op.isMiddle()
                || !p.isBurst()
                || p.psn() != psn
                || mtu != qp.attr.mtu
                || !qp.canReceive()
                || (qp.state() == QpState.RTR && !commEstRaised)
                || qp.owner().observer() != null
                || LOG.isTraceEnabled()) {
            return;
        }
        int k = p.burstPackets() - 1; // the last packet takes the steps
        int bytes;
        if (op.isWrite()) {
            if (!inWrite || writeMr == null || (qp.attr.accessFlags & AccessFlag.REMOTE_WRITE.bit()) == 0) {
                return;
            }
            k = Math.min(k, writeRemaining / mtu);
            if (k <= 0) {
                return;
            }
            bytes = k * mtu;
            p.copyPayload(0, writeMr.buf, writeIndex, bytes);
            writeIndex += bytes;
            writeRemaining -= bytes;
        } else if (op.isSend()) {
            if (!inSend || !holding) {
                return;
            }
            k = (int) Math.min(k, (held.capacity - (long) recvOffset) / mtu);
            long checked = resolveReceiveSges(recvOffset + (long) k * mtu);
            k = (int) Math.min(k, (checked - recvOffset) / mtu);
            if (k <= 0) {
                return;
            }
            bytes = k * mtu;
            if (!scatterToReceive(p, bytes)) {
                throw new IllegalStateException("receive SGEs checked, yet the scatter failed");
            }
        } else {
            return;
        }
        nakSent = false;
        psn = Psn.add(psn, k);
        p.skipInBurst(k);
    }

    private Step checkPsn(Packet p) {
        int d = Psn.compare(p.psn(), psn);
        if (d < 0) {
            return Step.DUPLICATE;
        }
        if (d > 0) {
            return Step.OUT_OF_SEQUENCE;
        }
        nakSent = false;
        return Step.CHECK_OP_SEQUENCE;
    }

    private Step checkOpSequence(Packet p) {
        Opcode op = p.opcode();
        if (inSend) {
            // IBA 9.7.5.1.4: inside a SEND only SEND Middle or Last may follow.
            if (!op.isSend() || op.isFirst()) {
                return Step.ERR_INVALID_REQUEST;
            }
        } else if (inWrite) {
            if (!op.isWrite() || op.isFirst()) {
                return Step.ERR_INVALID_REQUEST;
            }
        } else if (!op.isFirst()) {
            return Step.ERR_INVALID_REQUEST;
        }
        return Step.CHECK_OP_VALID;
    }

    private Step checkOpValid(Packet p) {
        Opcode op = p.opcode();
        if (op.isUd()) {
            return Step.ERR_INVALID_REQUEST;
        }
        // An operation the device does not support is an invalid request (IBA 9.7.5.2.1).
        DeviceProfile profile = qp.owner().profile();
        if ((op.isAtomic() && !profile.atomics())
                || (op.hasImmediate() && !profile.immediateData())
                || (op.hasInvalidate() && !profile.sendWithInvalidate())) {
            return Step.ERR_INVALID_REQUEST;
        }
        // The QP's access flags enable remote operations (ibv_modify_qp(3) qp_access_flags).
        int acc = qp.attr.accessFlags;
        if ((op.isWrite() && (acc & AccessFlag.REMOTE_WRITE.bit()) == 0)
                || (op.isRead() && (acc & AccessFlag.REMOTE_READ.bit()) == 0)
                || (op.isAtomic() && (acc & AccessFlag.REMOTE_ATOMIC.bit()) == 0)) {
            return Step.ERR_INVALID_REQUEST;
        }
        int len = p.payloadLength();
        int mtu = qp.attr.mtu;
        if (op.hasPayload()) {
            // Packets before the last of a message carry exactly one MTU (IBA 9.7.4.1.3).
            if (op.isLast() ? len > mtu : len != mtu) {
                return Step.ERR_INVALID_REQUEST;
            }
        } else if (len != 0) {
            return Step.ERR_INVALID_REQUEST;
        }
        return Step.CHECK_RESOURCE;
    }

    private Step checkResource(Packet p) {
        Opcode op = p.opcode();
        if (op.requiresReceiveWqe()) {
            if (!takeReceiveWqe()) {
                return Step.ERR_RNR;
            }
        }
        if (op.isReadOrAtomicRequest() && resources.length == 0) {
            // No responder resources (max_dest_rd_atomic = 0).
            return Step.ERR_INVALID_REQUEST;
        }
        return Step.CHECK_LENGTH;
    }

    private boolean takeReceiveWqe() {
        SrqImpl srq = qp.srq();
        if (srq != null ? !srq.take(held) : !qp.rq.take(held)) {
            return false;
        }
        holding = true;
        recvOffset = 0;
        recvResolved = 0;
        FabricObserver o = qp.owner().observer();
        if (o != null) {
            o.recvStarted(qp);
        }
        return true;
    }

    private Step checkLength(Packet p) {
        Opcode op = p.opcode();
        int len = p.payloadLength();
        if (op.isSend()) {
            if (recvOffset + (long) len > held.capacity) {
                return Step.ERR_LENGTH;
            }
        } else if (op.isWrite()) {
            if (op.isFirst()) {
                long dma = Integer.toUnsignedLong(p.rethLength());
                if (dma > Integer.MAX_VALUE) {
                    return Step.ERR_INVALID_REQUEST;
                }
                writeRemaining = (int) dma;
                writeLength = (int) dma;
            }
            // The payloads must add up to the DMA length of the RETH (IBA 9.7.4.1.3).
            if (len > writeRemaining || (op.isLast() && len != writeRemaining)) {
                return Step.ERR_INVALID_REQUEST;
            }
        } else if (op.isRead()) {
            if (Integer.toUnsignedLong(p.rethLength()) > Integer.MAX_VALUE) {
                return Step.ERR_INVALID_REQUEST;
            }
        }
        return Step.CHECK_RKEY;
    }

    private Step checkRkey(Packet p) {
        Opcode op = p.opcode();
        if (op.isWrite() && op.isFirst()) {
            if (writeLength == 0) {
                // A zero-length RDMA WRITE touches no memory; its R_Key is not checked (IBA 9.4.3).
                writeMr = null;
                return Step.EXECUTE;
            }
            if (!access.remote(
                    qp.owner().memory().keys(),
                    qp,
                    p.rethRkey(),
                    p.rethVa(),
                    writeLength,
                    AccessFlag.REMOTE_WRITE.bit())) {
                return Step.ERR_REMOTE_ACCESS;
            }
            writeMr = access.mr;
            writeIndex = access.index;
        } else if (op == Opcode.RC_RDMA_READ_REQUEST) {
            int len = p.rethLength();
            if (len != 0
                    && !access.remote(
                            qp.owner().memory().keys(),
                            qp,
                            p.rethRkey(),
                            p.rethVa(),
                            len,
                            AccessFlag.REMOTE_READ.bit())) {
                return Step.ERR_REMOTE_ACCESS;
            }
        } else if (op.isAtomic()) {
            if ((p.atomicVa() & 7) != 0) {
                // Atomics need a naturally aligned 8-byte target (IBA 9.4.5).
                return Step.ERR_INVALID_REQUEST;
            }
            if (!access.remote(
                    qp.owner().memory().keys(), qp, p.atomicRkey(), p.atomicVa(), 8, AccessFlag.REMOTE_ATOMIC.bit())) {
                return Step.ERR_REMOTE_ACCESS;
            }
        }
        return Step.EXECUTE;
    }

    private Step execute(Packet p) {
        Opcode op = p.opcode();
        if (op.isSend()) {
            if (!scatterToReceive(p)) {
                recvErrorStatus = WcStatus.LOC_PROT_ERR;
                return Step.ERR_REMOTE_OPERATIONAL;
            }
            if (op.hasInvalidate() && !qp.owner().memory().invalidate(qp, p.iethRkey())) {
                // The R_Key cannot be invalidated (garbage, a region, a type 1 window, a type 2
                // window bound to another QP): IBA 10.6.7.2.6.
                return Step.ERR_INVALIDATE;
            }
            inSend = !op.isLast();
            psn = Psn.add(psn, 1);
            if (op.isLast()) {
                msn = Psn.add(msn, 1);
            }
            return op.isLast() ? Step.COMPLETE : Step.ACKNOWLEDGE;
        }
        if (op.isWrite()) {
            int len = p.payloadLength();
            if (len > 0) {
                p.copyPayload(0, writeMr.buf, writeIndex, len);
                wrote(writeMr, writeIndex, len);
                writeIndex += len;
                writeRemaining -= len;
            }
            inWrite = !op.isLast();
            psn = Psn.add(psn, 1);
            if (op.isLast()) {
                msn = Psn.add(msn, 1);
                writeMr = null;
            }
            return op.completesReceive() ? Step.COMPLETE : Step.ACKNOWLEDGE;
        }
        if (op == Opcode.RC_RDMA_READ_REQUEST) {
            int len = p.rethLength();
            int packets = qp.packets(len);
            Resource r = nextResource();
            r.atomic = false;
            r.firstPsn = p.psn();
            r.lastPsn = Psn.add(p.psn(), packets - 1);
            r.va = p.rethVa();
            r.length = len;
            r.mr = len == 0 ? null : access.mr;
            r.index = len == 0 ? 0 : access.index;
            r.valid = true;
            current = r;
            psn = Psn.add(psn, packets);
            msn = Psn.add(msn, 1);
            return Step.READ_REPLY;
        }
        // atomic
        Resource r = nextResource();
        MrImpl mr = access.mr;
        int at = access.index;
        long old = mr.buf.getLong(at);
        if (op == Opcode.RC_CMP_SWAP) {
            if (old == p.atomicCompare()) {
                mr.buf.putLong(at, p.atomicSwapOrAdd());
            }
        } else {
            mr.buf.putLong(at, old + p.atomicSwapOrAdd());
        }
        wrote(mr, at, 8);
        r.atomic = true;
        r.firstPsn = p.psn();
        r.lastPsn = p.psn();
        r.original = old;
        r.mr = null;
        r.valid = true;
        current = r;
        psn = Psn.add(psn, 1);
        msn = Psn.add(msn, 1);
        return Step.ATOMIC_REPLY;
    }

    /** Scatters a SEND payload into the held receive WQE, checking each SGE when first used. */
    private boolean scatterToReceive(Packet p) {
        return scatterToReceive(p, p.payloadLength());
    }

    /**
     * Scatters {@code len} bytes of payload from {@code p}'s current packet on (more than one
     * packet's for a burst's run of Middle packets) into the held receive WQE.
     */
    private boolean scatterToReceive(Packet p, int len) {
        int skip = recvOffset;
        int i = 0;
        while (i < held.numSge && skip >= held.sgeLen[i]) {
            skip -= held.sgeLen[i];
            i++;
        }
        int done = 0;
        while (done < len) {
            int n = Math.min(len - done, held.sgeLen[i] - skip);
            if (n > 0) {
                while (recvResolved <= i) {
                    if (!resolveReceiveSge(recvResolved)) {
                        return false;
                    }
                }
                p.copyPayload(done, recvMr[i].buf, recvIndex[i] + skip, n);
                wrote(recvMr[i], recvIndex[i] + skip, n);
                done += n;
            }
            skip = 0;
            i++;
        }
        recvOffset += len;
        return true;
    }

    /**
     * Checks SGE {@code k} of the held receive WQE (the next one not checked) for local write
     * access and resolves it to its region.
     *
     * @return false if it fails its check
     */
    private boolean resolveReceiveSge(int k) {
        if (held.sgeLen[k] != 0) {
            // IBA 10.2.9 / ibv_create_srq(3): a receive WQE taken from an SRQ is checked against
            // the SRQ's PD, not the QP's (RDMA WRITE targets stay checked against the QP's).
            if (!access.local(
                    qp.owner().memory().keys(),
                    recvPd,
                    held.sgeLkey[k],
                    held.sgeAddr[k],
                    Integer.toUnsignedLong(held.sgeLen[k]),
                    true)) {
                return false;
            }
            recvMr[k] = access.mr;
            recvIndex[k] = access.index;
        } else {
            recvMr[k] = null;
        }
        recvResolved = k + 1;
        return true;
    }

    /**
     * Checks, in order, the SGEs of the held receive WQE that message bytes before {@code end}
     * reach and that are not checked yet.
     *
     * @return {@code end}, or the message offset where the first SGE that fails its check starts
     */
    private long resolveReceiveSges(long end) {
        long start = 0;
        for (int k = 0; k < held.numSge && start < end; k++) {
            if (k >= recvResolved && !resolveReceiveSge(k)) {
                return start;
            }
            start += Integer.toUnsignedLong(held.sgeLen[k]);
        }
        return end;
    }

    private Resource nextResource() {
        Resource r = resources[resourceHead];
        resourceHead = resourceHead + 1 == resources.length ? 0 : resourceHead + 1;
        return r;
    }

    private Step readReply(Packet p) {
        Resource r = current;
        current = null;
        flushAck();
        sendReadResponses(r, r.firstPsn, r.va, r.length);
        return Step.CLEANUP;
    }

    /** Sends the responses of a READ from {@code va} on, PSNs from {@code startPsn}. */
    private void sendReadResponses(Resource r, int startPsn, long va, int len) {
        int mtu = qp.attr.mtu;
        int packets = qp.packets(len);
        int base = r.mr == null ? 0 : r.index + (int) (va - r.va);
        if (packets > 1 && qp.owner().carriesBursts(qp)) {
            // Segmentation offload: the responses travel as one burst, First to Last.
            int aeth = Aeth.ack(Aeth.CREDITS_INVALID);
            Packet resp = Packet.allocate(Opcode.RC_RDMA_READ_RESPONSE_FIRST);
            resp.psn(startPsn).aeth(aeth, msn);
            resp.addSegment(r.mr.buf, base, len);
            resp.burst(packets, mtu, Opcode.RC_RDMA_READ_RESPONSE_LAST, aeth << 24 | (msn & 0xFFFFFF), false, false);
            qp.transmit(resp);
            return;
        }
        for (int i = 0; i < packets; i++) {
            int n = Math.min(mtu, len - i * mtu);
            Opcode op = packets == 1
                    ? Opcode.RC_RDMA_READ_RESPONSE_ONLY
                    : i == 0
                            ? Opcode.RC_RDMA_READ_RESPONSE_FIRST
                            : i == packets - 1
                                    ? Opcode.RC_RDMA_READ_RESPONSE_LAST
                                    : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
            Packet resp = Packet.allocate(op);
            resp.psn(Psn.add(startPsn, i));
            if (op.has(io.simrdma.fabric.wire.HeaderType.AETH)) {
                resp.aeth(Aeth.ack(Aeth.CREDITS_INVALID), msn);
            }
            if (n > 0) {
                resp.addSegment(r.mr.buf, base + i * mtu, n);
            }
            resp.updatePadCount();
            qp.transmit(resp);
        }
    }

    private Step atomicReply() {
        Resource r = current;
        current = null;
        flushAck();
        sendAtomicAck(r);
        return Step.CLEANUP;
    }

    private void sendAtomicAck(Resource r) {
        Packet resp = Packet.allocate(Opcode.RC_ATOMIC_ACKNOWLEDGE);
        resp.psn(r.firstPsn).aeth(Aeth.ack(Aeth.CREDITS_INVALID), msn).atomicAckOriginal(r.original);
        qp.transmit(resp);
    }

    private Step complete(Packet p) {
        Opcode op = p.opcode();
        int flags = 0;
        int immOrInv = 0;
        if (op.hasImmediate()) {
            flags |= WcFlag.WITH_IMM.bit();
            immOrInv = p.immediate();
        } else if (op.hasInvalidate()) {
            flags |= WcFlag.WITH_INV.bit();
            immOrInv = p.iethRkey();
        }
        // ibv_poll_cq(3): RECV_RDMA_WITH_IMM reports the RDMA WRITE's length.
        WcOpcode wcOp = op.isWrite() ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
        int byteLen = op.isWrite() ? writeLength : recvOffset;
        qp.completeRecv(held.wrId, WcStatus.SUCCESS, wcOp, byteLen, immOrInv, flags, p.solicited());
        releaseHeld();
        return Step.ACKNOWLEDGE;
    }

    private Step acknowledge(Packet p) {
        if (p.ackReq()) {
            ackPending = true;
            ackPsn = p.psn();
        }
        return Step.CLEANUP;
    }

    private Step duplicate(Packet p) {
        qp.counters.increment(Counter.DUPLICATE_REQUESTS);
        Opcode op = p.opcode();
        if (op.isSend() || op.isWrite()) {
            // Acknowledge what has been received; never execute again.
            ackPending = true;
            ackPsn = Psn.add(psn, -1);
            return Step.CLEANUP;
        }
        if (op == Opcode.RC_RDMA_READ_REQUEST) {
            Resource r = findResource(p.psn(), false);
            long va = p.rethVa();
            long len = Integer.toUnsignedLong(p.rethLength());
            if (r == null
                    || Long.compareUnsigned(va, r.va) < 0
                    || len > r.length
                    || Long.compareUnsigned(va - r.va, r.length - len) > 0) {
                // Unknown or not a subset of the original: drop it (IBA class D error).
                return Step.CLEANUP;
            }
            flushAck();
            sendReadResponses(r, p.psn(), va, (int) len);
            return Step.CLEANUP;
        }
        if (op.isAtomic()) {
            Resource r = findResource(p.psn(), true);
            if (r != null) {
                flushAck();
                sendAtomicAck(r);
            }
            return Step.CLEANUP;
        }
        return Step.CLEANUP;
    }

    private Resource findResource(int pktPsn, boolean atomic) {
        for (Resource r : resources) {
            if (!r.valid || r.atomic != atomic) {
                continue;
            }
            if (atomic
                    ? r.firstPsn == pktPsn
                    : Psn.compare(pktPsn, r.firstPsn) >= 0 && Psn.compare(pktPsn, r.lastPsn) <= 0) {
                return r;
            }
        }
        return null;
    }

    private Step outOfSequence(Packet p) {
        qp.counters.increment(Counter.OUT_OF_SEQUENCE);
        if (!nakSent) {
            // One sequence error NAK per gap (IBA 9.7.5.2.2); later packets are dropped silently.
            nakSent = true;
            flushAck();
            sendAeth(Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR), psn);
            qp.counters.increment(Counter.NAK_SEQ_ERR_SENT);
        }
        return Step.CLEANUP;
    }

    private Step rnr(Packet p) {
        flushAck();
        // IBA 9.7.5.2.8: no receive WQE; NAK with the QP's minimum RNR timer. Packets already in
        // flight behind this one are dropped without a sequence NAK.
        nakSent = true;
        sendAeth(Aeth.rnrNak(qp.attr.minRnrTimer), p.psn());
        qp.counters.increment(Counter.RNR_NAK_SENT);
        return Step.CLEANUP;
    }

    /**
     * An RC class C error: NAK the requester, report the error on the held receive WQE or as an
     * affiliated async event, and move the QP to ERR.
     */
    private Step classC(Packet p, Aeth.NakCode code, WcStatus recvStatus, AsyncEventType event) {
        flushAck();
        sendAeth(Aeth.nak(code), p.psn());
        switch (code) {
            case REMOTE_ACCESS_ERROR:
                qp.counters.increment(Counter.NAK_REM_ACCESS_SENT);
                break;
            case REMOTE_OPERATIONAL_ERROR:
                qp.counters.increment(Counter.NAK_REM_OP_SENT);
                break;
            default:
                qp.counters.increment(Counter.NAK_INV_REQ_SENT);
                break;
        }
        LOG.debug("qp {}: {} for {}", qp.qpNum(), code, p);
        if (holding) {
            qp.completeRecv(held.wrId, recvStatus, WcOpcode.RECV, 0, 0, 0, false);
            releaseHeld();
        } else {
            qp.owner().raiseAsync(event, qp, null, null);
        }
        qp.enterError(RcQueuePair.ErrorCause.RESPONDER_ERROR);
        return Step.CLEANUP;
    }

    /**
     * A SEND with invalidate whose R_Key cannot be invalidated (IBA 10.6.7.2.6): the message has
     * arrived, its receive WQE completes in error (the profile's status) and the QP moves to ERR.
     * Whether the requester hears of it is the device's (DeviceProfile SEND_INVALIDATE_ERROR): a
     * remote access NAK, or (the class J error rxe_resp.c implements) no NAK at all: the SEND is
     * acknowledged like any other and completes successfully; what the requester sends after
     * finds the QP in ERR.
     */
    private Step invalidateFailed(Packet p) {
        LOG.debug(
                "qp {}: R_Key 0x{} of a SEND with invalidate cannot be invalidated",
                qp.qpNum(),
                Integer.toHexString(p.iethRkey()));
        DeviceProfile profile = qp.owner().profile();
        if (profile.sendInvalidateError() == DeviceProfile.InvalidateError.NAK_REMOTE_ACCESS) {
            return classC(
                    p,
                    Aeth.NakCode.REMOTE_ACCESS_ERROR,
                    profile.sendInvalidateRecvStatus(),
                    AsyncEventType.QP_ACCESS_ERR);
        }
        inSend = false;
        psn = Psn.add(psn, 1);
        msn = Psn.add(msn, 1);
        qp.completeRecv(held.wrId, profile.sendInvalidateRecvStatus(), WcOpcode.RECV, 0, 0, 0, false);
        releaseHeld();
        ackPending = true;
        ackPsn = p.psn();
        flushAck();
        qp.enterError(RcQueuePair.ErrorCause.RESPONDER_ERROR);
        return Step.CLEANUP;
    }

    /**
     * A request reached this QP in ERR and the device answers instead of staying silent
     * (DeviceProfile REMOTE_QP_IN_ERROR): a NAK for the packet's PSN, so the requester fails at
     * once instead of after its retries.
     */
    private void answerInError(Packet p) {
        if (qp.owner().profile().remoteQpInError() == DeviceProfile.RemoteQpInError.NAK_INVALID_REQUEST) {
            qp.counters.increment(Counter.NAK_INV_REQ_SENT);
            sendAeth(Aeth.nak(Aeth.NakCode.INVALID_REQUEST), p.psn());
        } else {
            qp.counters.increment(Counter.NAK_REM_OP_SENT);
            sendAeth(Aeth.nak(Aeth.NakCode.REMOTE_OPERATIONAL_ERROR), p.psn());
        }
    }

    /** Sends the coalesced ACK if one is pending. Engine thread. */
    void flushAck() {
        if (ackPending) {
            ackPending = false;
            sendAeth(Aeth.ack(Aeth.CREDITS_INVALID), ackPsn);
            qp.counters.increment(Counter.ACKS_SENT);
        }
    }

    private void sendAeth(int syndrome, int pktPsn) {
        Packet a = Packet.allocate(Opcode.RC_ACKNOWLEDGE);
        a.psn(pktPsn).aeth(syndrome, msn);
        qp.transmit(a);
    }

    /** Tells the fabric's observer, if any, that the device wrote into {@code mr} (FabricObserver.deviceWrote). */
    private void wrote(MrImpl mr, int index, int len) {
        FabricObserver o = qp.owner().observer();
        if (o != null) {
            o.deviceWrote(mr, index, len);
        }
    }
}
