package io.simrdma.fabric.cm;

import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An event channel (rdma_create_event_channel(3)): the ids attached to it report their events
 * here, in order.
 *
 * <p>Thread safety: thread-safe; if several threads wait, each event goes to one of them.
 */
public final class CmEventChannel implements AutoCloseable {

    private final RdmaCm cm;
    private final ArrayDeque<CmEvent> events = new ArrayDeque<>();
    private final WaitSignal signal;
    private int ids;
    private volatile boolean destroyed;
    private final java.util.function.Consumer<CmEvent> handler;

    CmEventChannel(RdmaCm cm, java.util.function.Consumer<CmEvent> handler) {
        this.cm = cm;
        this.signal = cm.fabric().scheduler().newSignal();
        this.handler = handler;
    }

    /** True for a channel created with a handler: events go to it, not to a queue. */
    public boolean hasHandler() {
        return handler != null;
    }

    /**
     * Waits for the next event for at most {@code timeout} (rdma_get_cm_event(3)) on the fabric's
     * clock. The event must be acknowledged with {@link CmEvent#ack()}.
     *
     * @return the event, or null if none came in time
     */
    public CmEvent getEvent(long timeout, TimeUnit unit) {
        checkUsable();
        signal.await(this::hasEvent, unit.toNanos(timeout));
        return pollEvent();
    }

    /** The next event without waiting, or null. */
    public CmEvent pollEvent() {
        CmEvent e;
        synchronized (events) {
            e = events.poll();
        }
        if (e != null) {
            e.retrieved();
        }
        return e;
    }

    private boolean hasEvent() {
        synchronized (events) {
            return !events.isEmpty() || destroyed;
        }
    }

    /** Events waiting to be retrieved. */
    public int pending() {
        synchronized (events) {
            return events.size();
        }
    }

    /**
     * Destroys the channel (rdma_destroy_event_channel(3)).
     *
     * @throws VerbsException EBUSY while ids are attached to it
     */
    public void destroy() {
        synchronized (events) {
            if (destroyed) {
                throw new VerbsException(Errno.EINVAL, "event channel already destroyed");
            }
            if (ids > 0) {
                throw new VerbsException(Errno.EBUSY, ids + " rdma_cm_id(s) still use this channel");
            }
            destroyed = true;
            events.clear();
        }
        cm.channelDestroyed(this);
        signal.signalAll();
    }

    /** Same as {@link #destroy()}, for try-with-resources; does nothing if already destroyed. */
    @Override
    public void close() {
        if (!destroyed) {
            destroy();
        }
    }

    void checkUsable() {
        if (destroyed) {
            throw new VerbsException(Errno.EINVAL, "event channel was destroyed");
        }
    }

    void attach() {
        synchronized (events) {
            checkUsable();
            ids++;
        }
    }

    void detach() {
        synchronized (events) {
            ids--;
        }
    }

    void deliver(CmEvent e) {
        if (handler != null) {
            if (destroyed) {
                return;
            }
            e.retrieved();
            try {
                handler.accept(e);
            } catch (RuntimeException ex) {
                org.slf4j.LoggerFactory.getLogger(CmEventChannel.class).error("CM event handler failed on {}", e, ex);
            }
            return;
        }
        synchronized (events) {
            if (destroyed) {
                return;
            }
            events.add(e);
        }
        signal.signalAll();
    }

    /** Removes the queued (not yet retrieved) events matching {@code which}, in order. */
    ArrayDeque<CmEvent> remove(Predicate<CmEvent> which) {
        ArrayDeque<CmEvent> out = new ArrayDeque<>();
        synchronized (events) {
            Iterator<CmEvent> it = events.iterator();
            while (it.hasNext()) {
                CmEvent e = it.next();
                if (which.test(e)) {
                    it.remove();
                    out.add(e);
                }
            }
        }
        return out;
    }

    boolean isDestroyed() {
        return destroyed;
    }
}
