package io.simrdma.provider;

import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import io.simrdma.dat.SrqParams;
import io.simrdma.dat.SrqState;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SrqAttr;
import io.simrdma.fabric.SrqAttrMask;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WorkCompletion;
import java.util.EnumSet;
import java.util.List;

/**
 * A Shared Receive Queue (dat_srq_create(3DAT)): a verbs SRQ. Receives posted here are taken by
 * whichever connected endpoint of the SRQ gets a message; the completion goes to that
 * endpoint's recv EVD. The low watermark (dat_srq_set_lw(3DAT)) is the verbs SRQ limit: when the
 * buffers on the SRQ drop below it, a one-shot asynchronous event reaches the IA's async EVD.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimSrq extends SimHandle implements SharedReceiveQueue {

    /** A posted receive's cookie and length. */
    private static final class Slot {
        long cookie;
        long length;
        boolean used;
    }

    final int id;
    final SimPz pz;
    final io.simrdma.fabric.SharedReceiveQueue srq;
    private final Object lock = new Object();
    private Slot[] slots;
    /** Free slot numbers, first out first; a ring as long as {@link #slots}. Guarded by lock. */
    private int[] free = new int[0];

    private int freeHead;
    private int freeCount;
    private int maxRecvDtos;
    private final int maxRecvIov;
    private int lowWatermark;
    /**
     * dat_srq_query(3DAT), dat_srq_resize(3DAT): buffers posted and not yet reaped: on the SRQ, held by
     * an endpoint, or completed with the completion still on a recv EVD.
     */
    private int outstanding;

    private final Runnable reap = this::reaped;
    /** Endpoints using the SRQ (dat_srq_free(3DAT)); guarded by lock. */
    private int eps;

    private final RecvWr wr = new RecvWr();

    private SimSrq(SimIa ia, SimPz pz, io.simrdma.fabric.SharedReceiveQueue srq, int maxRecvDtos, int maxRecvIov) {
        super(ia, HandleType.SRQ);
        this.id = ia.newId();
        this.pz = pz;
        this.srq = srq;
        this.maxRecvDtos = maxRecvDtos;
        this.maxRecvIov = maxRecvIov;
        growSlots(maxRecvDtos);
    }

    static SimSrq create(SimIa ia, SimPz pz, SrqAttributes a) {
        range(a.maxRecvDtos(), 1, ia.attributes().maxRecvPerSrq(), "max_recv_dtos");
        range(a.maxRecvIov(), 1, ia.attributes().maxIovSegmentsPerDto(), "max_recv_iov");
        if (a.lowWatermark() > a.maxRecvDtos()) {
            throw DatException.invalidParameter("low watermark above max_recv_dtos");
        }
        io.simrdma.fabric.SharedReceiveQueue s;
        try {
            s = pz.pd.createSrq(new SrqAttr(a.maxRecvDtos(), a.maxRecvIov(), 0));
        } catch (VerbsException e) {
            throw ia.resources(e, DatReturnSubtype.RESOURCE_SRQ);
        }
        SimSrq srq = new SimSrq(ia, pz, s, a.maxRecvDtos(), a.maxRecvIov());
        pz.addUser();
        ia.router.registerSrq(srq);
        if (a.lowWatermark() > 0) {
            srq.setLowWatermark(a.lowWatermark());
        }
        return srq;
    }

    private void growSlots(int n) {
        Slot[] s = new Slot[n];
        int old = slots == null ? 0 : slots.length;
        if (slots != null) {
            System.arraycopy(slots, 0, s, 0, old);
        }
        int[] f = new int[n];
        for (int i = 0; i < freeCount; i++) {
            f[i] = free[(freeHead + i) % free.length];
        }
        free = f;
        freeHead = 0;
        slots = s;
        for (int i = old; i < n; i++) {
            s[i] = new Slot();
            freeAdd(i);
        }
    }

    private void freeAdd(int slot) {
        free[(freeHead + freeCount++) % free.length] = slot;
    }

    private void freeAddFirst(int slot) {
        freeHead = (freeHead + free.length - 1) % free.length;
        free[freeHead] = slot;
        freeCount++;
    }

    /** The next free slot, or -1. */
    private int freePoll() {
        if (freeCount == 0) {
            return -1;
        }
        int slot = free[freeHead];
        freeHead = (freeHead + 1) % free.length;
        freeCount--;
        return slot;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_SRQ;
    }

    /** An endpoint of this SRQ was created ({@code delta} 1) or freed (-1). */
    void epAdded(int delta) {
        synchronized (lock) {
            eps += delta;
        }
    }

    boolean isVerbsSrq(io.simrdma.fabric.SharedReceiveQueue s) {
        return s == srq;
    }

    /**
     * Posts a receive (dat_srq_post_recv(3DAT)). Valid in every SRQ state; no completion flags:
     * the completion goes to the recv EVD of the endpoint that takes the buffer.
     */
    @Override
    public void postRecv(List<LmrTriplet> localIov, long userCookie) {
        checkHandle();
        if (localIov == null) {
            throw DatException.invalidParameter("local_iov is null");
        }
        if (localIov.size() > maxRecvIov) {
            throw DatException.invalidParameter(localIov.size() + " segments exceed max_recv_iov " + maxRecvIov);
        }
        synchronized (lock) {
            wr.clear();
            long total = LocalIov.addSegments(ia, pz, localIov, wr);
            // dat_srq_query(3DAT): an entry whose completion is not reaped yet is not available for new postings.
            int slot = outstanding >= maxRecvDtos ? -1 : freePoll();
            if (slot < 0) {
                throw insufficient(
                        DatReturnSubtype.RESOURCE_SRQ, "the SRQ holds max_recv_dtos (" + maxRecvDtos + ") receives");
            }
            Slot s = slots[slot];
            s.cookie = userCookie;
            s.length = total;
            s.used = true;
            wr.wrId(WrId.of(WrId.SRQ, id, slot));
            try {
                srq.postRecv(wr);
            } catch (PostException e) {
                s.used = false;
                freeAddFirst(slot);
                if (e.errno() == Errno.ENOMEM) {
                    throw insufficient(DatReturnSubtype.RESOURCE_SRQ, e.getMessage());
                }
                throw DatException.invalidParameter(e.getMessage());
            }
            outstanding++;
        }
    }

    /** A receive of this SRQ completed on {@code ep}: its event goes to {@code evd}. Engine thread. */
    void complete(SimEvd evd, SimEp ep, int slot, WorkCompletion wc, boolean solicited) {
        long cookie;
        synchronized (lock) {
            if (slot < 0 || slot >= slots.length || !slots[slot].used) {
                return;
            }
            Slot s = slots[slot];
            cookie = s.cookie;
            s.used = false;
            freeAdd(slot);
        }
        ep.posting.recvCompleted(evd, cookie, wc, solicited, reap);
    }

    /** The completion of one of this SRQ's buffers left its recv EVD (or none was generated). Any thread. */
    private void reaped() {
        synchronized (lock) {
            outstanding--;
        }
    }

    /** Receives posted and not yet taken by an endpoint. */
    int available() {
        return srq.size();
    }

    /**
     * Resizes the SRQ (dat_srq_resize(3DAT)).
     *
     * @throws DatException DAT_INVALID_STATE if {@code maxRecvDtos} is below the outstanding receives
     *                      or the low watermark
     */
    @Override
    public void resize(int n) {
        checkHandle();
        // On the device executor, where receives complete: the verbs resize waits for it, so the lock
        // that completions take must not be held by another thread meanwhile.
        ia.run(() -> {
            synchronized (lock) {
                if (n < 1 || n > ia.attributes().maxRecvPerSrq()) {
                    throw DatException.invalidParameter(n + " is not in 1..max_recv_per_srq "
                            + ia.attributes().maxRecvPerSrq());
                }
                if (n < outstanding || n < lowWatermark) {
                    throw invalidState(
                            DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                            n + " is below the " + outstanding + " outstanding receives or the low watermark "
                                    + lowWatermark + " (dat_srq_resize(3DAT))");
                }
                if (n > slots.length) {
                    growSlots(n);
                }
                try {
                    srq.modify(new SrqAttr(n, maxRecvIov, 0), EnumSet.of(SrqAttrMask.MAX_WR));
                } catch (VerbsException e) {
                    throw invalidState(DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, e.getMessage());
                }
                maxRecvDtos = n;
            }
        });
    }

    /**
     * Arms the low watermark (dat_srq_set_lw(3DAT)): a one-shot async event when fewer than
     * {@code lw} receives remain on the SRQ, at once if already below.
     */
    @Override
    public void setLowWatermark(int lw) {
        checkHandle();
        // On the device executor, where endpoints take buffers: the count and the arming cannot race.
        ia.run(() -> {
            synchronized (lock) {
                range(lw, 0, maxRecvDtos, "low watermark");
                lowWatermark = lw;
            }
            // dat_srq_set_lw(3DAT): the new setting replaces an armed one; DAT_SRQ_LW_DEFAULT arms none.
            if (lw == 0 || available() < lw) {
                srq.modify(new SrqAttr(0, 0, 0), EnumSet.of(SrqAttrMask.LIMIT));
                if (lw != 0) {
                    lowWatermarkReached();
                }
            } else {
                srq.modify(new SrqAttr(0, 0, lw), EnumSet.of(SrqAttrMask.LIMIT));
            }
        });
    }

    /**
     * The verbs SRQ limit fired: the low-watermark event (S6 SILENT: DAT names no event number; the
     * event goes to the IA's async EVD as DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR with the reason
     * DAT_SRQ_LOW_WATERMARK_EVENT, which the header defines for it).
     */
    void lowWatermarkReached() {
        // The event is one-shot (the verbs limit disarms itself); the low watermark keeps its value.
        ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
    }

    @Override
    public SrqParams query() {
        checkHandle();
        synchronized (lock) {
            return new SrqParams(
                    ia, SrqState.OPERATIONAL, pz, maxRecvDtos, maxRecvIov, lowWatermark, available(), outstanding);
        }
    }

    /**
     * Frees the SRQ (dat_srq_free(3DAT)).
     *
     * @throws DatException DAT_INVALID_STATE with subtype SRQ_IN_USE while an endpoint uses it (C8
     *                      CONFLICT: the page names DAT_SRQ_IN_USE, which the header defines as this subtype)
     */
    @Override
    public void free() {
        checkHandle();
        synchronized (lock) {
            if (eps > 0) {
                throw new DatException(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                        eps + " endpoint(s) use this SRQ (dat_srq_free(3DAT))");
            }
        }
        destroy();
        ia.forget(this);
    }

    @Override
    void destroy() {
        if (freed) {
            return;
        }
        freed = true;
        ia.router.unregisterSrq(this);
        pz.removeUser();
        try {
            srq.destroy();
        } catch (VerbsException e) {
            // abrupt close: the fabric releases it
        }
    }

    @Override
    public String toString() {
        return "SRQ#" + id;
    }
}
