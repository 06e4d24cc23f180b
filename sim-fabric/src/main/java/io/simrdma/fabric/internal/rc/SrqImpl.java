package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.PostException;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.SrqAttr;
import io.simrdma.fabric.SrqAttrMask;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.internal.mem.PdImpl;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue (ibv_create_srq(3)): receive WQEs that any QP created with it consumes,
 * in posting order, whichever QP the message arrives on.
 *
 * <p>Low watermark (ibv_modify_srq(3)): setting {@code srqLimit} arms a one-shot
 * SRQ_LIMIT_REACHED event, raised when a QP takes a WQE and fewer than the limit remain;
 * the limit then reads 0 (disarmed) until set again.
 *
 * <p>Thread safety: thread-safe; posts from any thread, consumption on the device's executor.
 */
public final class SrqImpl implements SharedReceiveQueue {

    private final RcContext device;
    private final PdImpl pd;
    private final int handle;
    private final Object context;
    final RecvQueue queue;
    private volatile int limit;
    public int qpCount;
    public final AtomicInteger asyncRetrieved = new AtomicInteger();
    private volatile boolean destroyed;

    public SrqImpl(RcContext device, PdImpl pd, int handle, int maxWr, int maxSge, Object context) {
        this.device = device;
        this.pd = pd;
        this.handle = handle;
        this.context = context;
        this.queue = new RecvQueue(maxWr, maxSge);
    }

    public PdImpl pd() {
        return pd;
    }

    /** The application object given at creation (srq_context). */
    public Object context() {
        return context;
    }

    /**
     * Posts a chain of receive WRs (ibv_post_srq_recv(3)), stopping at the first that fails.
     *
     * @throws PostException EINVAL for too many SGEs, ENOMEM when full; the WRs before the failing
     *                       one were posted
     */
    public void postRecv(RecvWr first) {
        checkUsable();
        synchronized (queue.postLock) {
            queue.post(first, device.observer(), null, this);
        }
    }

    /**
     * Modifies the SRQ (ibv_modify_srq(3)): {@code MAX_WR} resizes it, {@code LIMIT} arms the
     * low watermark. If any attribute is invalid, nothing changes.
     *
     * @throws VerbsException EINVAL for a size out of range or below the WRs posted, or a limit
     *                        above max_wr
     */
    public void modify(SrqAttr attr, Set<SrqAttrMask> mask) {
        checkUsable();
        device.executor().call(() -> {
            synchronized (queue.postLock) {
                int newMax = queue.maxWr();
                if (mask.contains(SrqAttrMask.MAX_WR)) {
                    newMax = attr.maxWr();
                    VerbsException.checkRange(
                            "SRQ max_wr", newMax, 1, device.attributes().maxSrqWr());
                    if (newMax < queue.size()) {
                        throw VerbsException.invalid(
                                "cannot resize SRQ to " + newMax + ": " + queue.size() + " WRs are posted");
                    }
                }
                if (mask.contains(SrqAttrMask.LIMIT) && (attr.srqLimit() < 0 || attr.srqLimit() > newMax)) {
                    throw VerbsException.invalid("SRQ limit " + attr.srqLimit() + " above max_wr " + newMax);
                }
                if (mask.contains(SrqAttrMask.MAX_WR) && newMax != queue.maxWr()) {
                    queue.resize(newMax);
                }
                if (mask.contains(SrqAttrMask.LIMIT)) {
                    limit = attr.srqLimit();
                }
            }
            return null;
        });
    }

    /** The SRQ's attributes (ibv_query_srq(3)); srqLimit is 0 when the watermark is not armed. */
    public SrqAttr query() {
        checkUsable();
        synchronized (queue.postLock) {
            return new SrqAttr(queue.maxWr(), queue.maxSge(), limit);
        }
    }

    /** WRs posted and not yet taken by a QP. */
    public int size() {
        return queue.size();
    }

    /**
     * Destroys the SRQ (ibv_destroy_srq(3)).
     *
     * @throws VerbsException EBUSY while a QP is associated with it or its async events are unacknowledged
     */
    public void destroy() {
        device.executor().call(() -> {
            if (destroyed) {
                throw VerbsException.stale("SRQ already destroyed");
            }
            if (qpCount > 0) {
                throw VerbsException.busy(qpCount + " queue pair(s) still use this SRQ (ibv_destroy_srq(3))");
            }
            if (asyncRetrieved.get() > 0) {
                throw VerbsException.busy(asyncRetrieved.get() + " async event(s) not acknowledged");
            }
            destroyed = true;
            device.srqDestroyed(this);
            return null;
        });
        FabricObserver o = device.observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    /** Marks the SRQ destroyed without the checks of {@link #destroy()} (its fabric closed). Engine thread. */
    public void forceDestroy() {
        destroyed = true;
    }

    public void checkUsable() {
        if (destroyed) {
            throw VerbsException.stale("SRQ was destroyed");
        }
    }

    /**
     * Takes the oldest WQE into {@code into}; raises the limit event if the queue fell below the
     * armed limit. Engine thread.
     *
     * @return false if the SRQ is empty
     */
    public boolean take(RecvWqe into) {
        if (!queue.take(into)) {
            return false;
        }
        int l = limit;
        if (l > 0 && queue.size() < l) {
            limit = 0;
            device.raiseAsync(AsyncEventType.SRQ_LIMIT_REACHED, null, null, this);
        }
        return true;
    }

    @Override
    public String toString() {
        return "SRQ[" + device.name() + "#" + handle + "]";
    }
}
