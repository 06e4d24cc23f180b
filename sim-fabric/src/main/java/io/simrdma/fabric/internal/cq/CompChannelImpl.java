package io.simrdma.fabric.internal.cq;

import io.simrdma.fabric.CompletionChannel;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A completion event channel (ibv_create_comp_channel(3)): CQs created with it deliver one event
 * each time a notification they requested fires, at most one pending (unread) event per CQ;
 * {@link #getCqEvent} returns the CQ.
 *
 * <p>Thread safety: thread-safe; if several threads wait, each event goes to one of them.
 */
public final class CompChannelImpl implements CompletionChannel {

    private final CqContext device;
    private final ArrayDeque<CqImpl> events = new ArrayDeque<>();
    /**
     * Events queued, written under the lock: lets {@link #pollCqEvent} answer "none" without the lock,
     * as a consumer that polls the channel after every completion mostly finds it empty.
     */
    private volatile int pending;

    private final WaitSignal signal;
    public int cqCount;
    private volatile boolean destroyed;

    public CompChannelImpl(CqContext device) {
        this.device = device;
        this.signal = device.scheduler().newSignal();
    }

    @Override
    public Device device() {
        return device.device();
    }

    /** The device that owns this object, as the completion layer sees it. */
    public CqContext owner() {
        return device;
    }

    /**
     * Waits for the next CQ event (ibv_get_cq_event(3)) for at most {@code timeout}; the event must
     * later be acknowledged with {@link CqImpl#ackEvents}.
     *
     * @return the CQ that had the event, or null if none came in time
     */
    public CqImpl getCqEvent(long timeout, TimeUnit unit) {
        checkUsable();
        signal.await(this::hasEvent, unit.toNanos(timeout));
        return pollCqEvent();
    }

    /** The next CQ event without waiting, or null. */
    public CqImpl pollCqEvent() {
        if (pending == 0) {
            return null;
        }
        CqImpl cq;
        synchronized (events) {
            cq = events.poll();
            if (cq != null) {
                cq.eventQueued = false;
            }
            pending = events.size();
        }
        if (cq != null) {
            cq.eventsUnacked.incrementAndGet();
        }
        return cq;
    }

    private boolean hasEvent() {
        synchronized (events) {
            return !events.isEmpty() || destroyed;
        }
    }

    /**
     * Destroys the channel (ibv_destroy_comp_channel(3)).
     *
     * @throws VerbsException EBUSY while a CQ uses it
     */
    public void destroy() {
        device.executor().call(() -> {
            if (destroyed) {
                throw VerbsException.stale("completion channel already destroyed");
            }
            if (cqCount > 0) {
                throw VerbsException.busy(cqCount + " completion queue(s) still use this channel");
            }
            destroyed = true;
            device.channelDestroyed(this);
            signal.signalAll();
            return null;
        });
        FabricObserver o = device.observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    /** Marks the channel destroyed without the checks of {@link #destroy()} (its fabric closed). Engine thread. */
    public void forceDestroy() {
        destroyed = true;
        signal.signalAll();
    }

    public void checkUsable() {
        if (destroyed) {
            throw VerbsException.stale("completion channel was destroyed");
        }
    }

    /**
     * Queues an event of {@code cq}, unless one of it is already queued and not yet read: a channel
     * holds at most one pending event per CQ, so a CQ armed and completed again before its event
     * is read still produces one event. The event says "this CQ has completions"; the handler
     * drains the CQ after each one (ibv_get_cq_event(3)'s example), so a second unread event of
     * the same CQ would tell it nothing more.
     */
    void deliver(CqImpl cq) {
        synchronized (events) {
            if (cq.eventQueued) {
                return;
            }
            cq.eventQueued = true;
            events.add(cq);
            pending = events.size();
        }
        signal.signalAll();
    }

    void discard(CqImpl cq) {
        synchronized (events) {
            events.removeIf(e -> e == cq);
            cq.eventQueued = false;
            pending = events.size();
        }
    }
}
