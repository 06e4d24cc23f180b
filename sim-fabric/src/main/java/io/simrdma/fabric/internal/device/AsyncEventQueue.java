package io.simrdma.fabric.internal.device;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.internal.cq.CqImpl;
import io.simrdma.fabric.internal.link.Tracer;
import io.simrdma.fabric.internal.rc.RcQueuePair;
import io.simrdma.fabric.internal.rc.SrqImpl;
import io.simrdma.fabric.internal.ucud.UnreliableQueuePair;
import io.simrdma.fabric.sched.Scheduler;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's asynchronous events (ibv_get_async_event(3)): raised by the engine on any thread,
 * queued in order, offered to the device's listeners first (the connection manager, the DAT
 * provider), and counted per object while retrieved and not yet acknowledged, because an object
 * with unacknowledged events cannot be destroyed.
 *
 * <p>Thread safety: thread-safe.
 */
final class AsyncEventQueue {

    private static final Logger LOG = LoggerFactory.getLogger(AsyncEventQueue.class);

    private final Device device;
    private final Scheduler scheduler;
    private final Tracer tracer;
    private final ArrayDeque<AsyncEvent> events = new ArrayDeque<>();
    private final WaitSignal signal;
    private final List<Consumer<AsyncEvent>> listeners = new CopyOnWriteArrayList<>();

    AsyncEventQueue(Device device, Scheduler scheduler, Tracer tracer) {
        this.device = device;
        this.scheduler = scheduler;
        this.tracer = tracer;
        this.signal = scheduler.newSignal();
    }

    void addListener(Consumer<AsyncEvent> l) {
        listeners.add(l);
    }

    void removeListener(Consumer<AsyncEvent> l) {
        listeners.remove(l);
    }

    /** Queues an event and wakes waiters. Any thread. */
    void raise(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq) {
        AsyncEvent e = new AsyncEvent(
                type, qp, cq, srq, type.element() == AsyncEventType.Element.PORT ? 1 : 0, scheduler.nanoTime());
        synchronized (events) {
            events.add(e);
        }
        LOG.debug("{}: async event {}", device.name(), e);
        for (Consumer<AsyncEvent> l : listeners) {
            try {
                l.accept(e);
            } catch (RuntimeException ex) {
                LOG.error("{}: async event listener failed", device.name(), ex);
            }
        }
        tracer.async(device, e);
        signal.signalAll();
    }

    /** Waits for the next event for at most {@code timeout}; null if none came. */
    AsyncEvent await(long timeout, TimeUnit unit) {
        boolean got = signal.await(this::nonEmpty, unit.toNanos(timeout));
        return got ? poll() : null;
    }

    /** The next event, or null; counts it as retrieved against its object. */
    AsyncEvent poll() {
        AsyncEvent e;
        synchronized (events) {
            e = events.poll();
        }
        if (e != null) {
            retrieved(e, 1);
        }
        return e;
    }

    /** Acknowledges an event returned by {@link #poll} (ibv_ack_async_event(3)). */
    void ack(AsyncEvent e) {
        retrieved(e, -1);
    }

    private static void retrieved(AsyncEvent e, int delta) {
        switch (e.type().element()) {
            case QP:
                if (e.qp() instanceof RcQueuePair rc) {
                    rc.asyncRetrieved.addAndGet(delta);
                } else if (e.qp() instanceof UnreliableQueuePair u) {
                    u.asyncRetrieved.addAndGet(delta);
                }
                break;
            case CQ:
                ((CqImpl) e.cq()).asyncRetrieved.addAndGet(delta);
                break;
            case SRQ:
                ((SrqImpl) e.srq()).asyncRetrieved.addAndGet(delta);
                break;
            default:
                break;
        }
    }

    private boolean nonEmpty() {
        synchronized (events) {
            return !events.isEmpty();
        }
    }

    /** Removes queued (not yet retrieved) events of an object being destroyed, as the kernel does. */
    void discard(Object element) {
        synchronized (events) {
            Iterator<AsyncEvent> it = events.iterator();
            while (it.hasNext()) {
                AsyncEvent e = it.next();
                if (e.qp() == element || e.cq() == element || e.srq() == element) {
                    it.remove();
                }
            }
        }
    }
}
