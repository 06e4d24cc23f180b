package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the events of one {@link CmId} go: to the event channel the id is on
 * (rdma_get_cm_event(3)), or, for a synchronous id (created without a channel,
 * rdma_create_id(3)), to the id's own queue, from which its blocking calls take the event they
 * wait for. It also counts the events a channel returned and the application has not
 * acknowledged (rdma_ack_cm_event(3)), and moves the queued events when the id changes channel
 * (rdma_migrate_id(3)), together with the connection requests of a listening id.
 *
 * <p>Thread safety: thread-safe. The IB CM delivers on the device executor; application threads
 * wait, retrieve, acknowledge and migrate. {@code deliverLock} is held while an event is queued
 * and while {@link #moveTo} moves the queue, so that no event lands on a channel the id is
 * leaving after its events were taken off it. Lock order: the id's monitor, then
 * {@code deliverLock}, then a channel's or the synchronous queue's lock; a channel's handler is
 * never called with any of them held.
 *
 * <p>Who calls it: {@link CmId} (blocking calls, migrate, destroy), the device's
 * {@link ConnectionMachine} and {@link AddressResolver} ({@link #report}, {@link #requestArrived}),
 * {@link CmEvent} (retrieved, acknowledged).
 */
final class EventDelivery {

    private static final Logger LOG = LoggerFactory.getLogger(EventDelivery.class);

    private final CmId id;
    private volatile CmEventChannel channel;
    private final Object deliverLock = new Object();
    private final ArrayDeque<CmEvent> syncEvents = new ArrayDeque<>();
    private final WaitSignal signal;
    private volatile CmEvent lastEvent;
    private final AtomicInteger unacked = new AtomicInteger();

    EventDelivery(CmId id, CmEventChannel channel, WaitSignal signal) {
        this.id = id;
        this.channel = channel;
        this.signal = signal;
    }

    /** The event channel, or null for a synchronous id. */
    CmEventChannel channel() {
        return channel;
    }

    boolean isSync() {
        return channel == null;
    }

    /** The id's wake-up signal: events, acknowledgements and destruction signal it. */
    WaitSignal signal() {
        return signal;
    }

    /** For a synchronous id: the event its last completed call consumed (id->event); else null. */
    CmEvent lastEvent() {
        return lastEvent;
    }

    /**
     * Reports an event of the id from the IB CM of {@code device}: stamps it with the fabric's
     * clock and delivers it. A null {@code param} stands for no connection data.
     */
    void report(Device device, CmEventType type, int status, ConnParam param) {
        report(device, type, status, param, null);
    }

    /** As {@link #report(Device, CmEventType, int, ConnParam)}, with the event's {@link CmEvent#detail()}. */
    void report(Device device, CmEventType type, int status, ConnParam param, String detail) {
        CmEvent e = new CmEvent(
                type,
                id,
                null,
                status,
                param == null ? ConnParam.defaults() : param,
                id.cm.fabric().now(),
                detail);
        LOG.debug("{}: {} {}", device.name(), e, id);
        deliver(e);
    }

    /** Reports an event of an RDMA_PS_UDP id with its UD event data; its private data is also {@link CmEvent#privateData()}'s. */
    void reportUd(Device device, CmEventType type, int status, UdParam ud) {
        CmEvent e = new CmEvent(
                type,
                id,
                null,
                status,
                ConnParam.defaults().privateData(ud.privateData()),
                id.cm.fabric().now(),
                null,
                ud);
        LOG.debug("{}: {} {} {}", device.name(), e, ud, id);
        deliver(e);
    }

    /**
     * Hands an event to the channel, or to the synchronous id's own queue. Any thread. A queued
     * event lands on the channel the id is on when it is queued, even while {@link #moveTo}
     * runs; a channel's handler is called outside the id's locks.
     */
    void deliver(CmEvent e) {
        CmEventChannel ch;
        synchronized (deliverLock) {
            ch = channel;
            if (ch == null) {
                synchronized (syncEvents) {
                    syncEvents.add(e);
                }
            } else if (!ch.hasHandler()) {
                ch.deliver(e);
                return;
            }
        }
        if (ch == null) {
            signal.signalAll();
        } else {
            ch.deliver(e);
        }
    }

    /**
     * A connection request for this listening id arrived; {@code child}, its new id, was made on
     * the channel the listener had then. The request goes where the listener is now, even if
     * {@link #moveTo} moved it meanwhile: to its current channel (the child moves along), or to
     * rdma_get_request when it became synchronous.
     */
    void requestArrived(CmId child, CmEvent e) {
        EventDelivery to = child.events;
        CmEventChannel ch;
        synchronized (deliverLock) {
            ch = channel;
            CmEventChannel made = to.channel;
            if (made != ch) {
                if (ch != null) {
                    ch.attach();
                }
                if (made != null) {
                    made.detach();
                }
                to.channel = ch;
            }
            if (ch == null) {
                deliverRequest(child, e);
                return;
            }
            if (!ch.hasHandler()) {
                to.deliver(e);
                return;
            }
        }
        to.deliver(e);
    }

    /** A synchronous listener's request id arrived: it waits for rdma_get_request. */
    private void deliverRequest(CmId child, CmEvent e) {
        child.events.lastEvent = e;
        e.consumedSynchronously();
        id.listenQueue.offer(child);
        signal.signalAll();
    }

    /**
     * Waits for the next event of this synchronous id whose type matches; earlier others are
     * kept as {@link #lastEvent()}.
     *
     * @throws VerbsException ETIMEDOUT if none came in time or the id was destroyed
     */
    CmEvent awaitSync(Predicate<CmEventType> until, long timeoutNanos) {
        while (true) {
            boolean got = signal.await(
                    () -> {
                        synchronized (syncEvents) {
                            return !syncEvents.isEmpty() || id.state == CmId.State.DESTROYED;
                        }
                    },
                    timeoutNanos);
            CmEvent e;
            synchronized (syncEvents) {
                e = syncEvents.poll();
            }
            if (e == null) {
                if (!got || id.state == CmId.State.DESTROYED) {
                    throw new VerbsException(Errno.ETIMEDOUT, "no connection manager event");
                }
                continue;
            }
            e.consumedSynchronously();
            lastEvent = e;
            if (until.test(e.type())) {
                return e;
            }
        }
    }

    // ------------------------------------------------------------------ rdma_migrate_id

    /** Waits until every event a channel returned for this id is acknowledged. */
    void awaitAcknowledged() {
        signal.await(() -> unacked.get() == 0, -1);
    }

    /**
     * Moves the id to channel {@code to}, or to synchronous operation with null, taking its
     * queued events along (rdma_migrate_id(3)). Called with the id's monitor held.
     */
    void moveTo(CmEventChannel to) {
        CmEventChannel from = channel;
        if (from == to) {
            return;
        }
        // A connection request not yet retrieved is the listener's event (listen_id, rdma_get_cm_event(3)):
        // it moves with the listener, and the request's new id with it, as do that id's later events.
        Set<CmId> requests = new LinkedHashSet<>();
        ArrayDeque<CmEvent> moving;
        synchronized (deliverLock) {
            moving = from == null
                    ? drainSync(to)
                    : from.remove(e -> {
                        if (e.id() == id || requests.contains(e.id())) {
                            return true;
                        }
                        if (e.type() == CmEventType.CONNECT_REQUEST && e.listenId() == id && e.id().channel() == from) {
                            requests.add(e.id());
                            return true;
                        }
                        return false;
                    });
            if (from == null) {
                for (CmEvent e : moving) {
                    if (e.listenId() == id) {
                        requests.add(e.id());
                    }
                }
            }
            if (to != null) {
                to.attach();
            }
            if (from != null) {
                from.detach();
            }
            channel = to;
        }
        for (CmId child : requests) {
            if (to != null) {
                to.attach();
            }
            if (from != null) {
                from.detach();
            }
            EventDelivery c = child.events;
            synchronized (c.deliverLock) {
                c.channel = to;
                // an event of the request's id queued where it was since the search
                moving.addAll(from != null ? from.remove(e -> e.id() == child) : c.drainSync(null));
            }
        }
        for (CmEvent e : moving) {
            if (e.id() == id) {
                deliver(e);
            } else if (to == null && e.type() == CmEventType.CONNECT_REQUEST) {
                deliverRequest(e.id(), e);
            } else {
                e.id().events.deliver(e);
            }
        }
    }

    /**
     * Takes the events this synchronous id has not consumed. Moving to channel {@code to}, a
     * listener's requests that rdma_get_request(3) has not returned come along as CONNECT_REQUEST
     * events, as librdmacm's synchronous ids keep them on a channel of their own; their ids go
     * too (see {@link #moveTo}).
     */
    private ArrayDeque<CmEvent> drainSync(CmEventChannel to) {
        ArrayDeque<CmEvent> out;
        synchronized (syncEvents) {
            out = new ArrayDeque<>(syncEvents);
            syncEvents.clear();
        }
        if (to != null) {
            for (CmId child : id.listenQueue.drain()) {
                CmEvent e = child.events.lastEvent;
                // consumed synchronously when it arrived: on the channel it is a new, unretrieved event
                out.add(new CmEvent(e.type(), child, id, e.status(), e.param(), e.timeNanos()));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ acknowledgement and teardown

    void retrieved() {
        unacked.incrementAndGet();
    }

    void acked() {
        unacked.decrementAndGet();
        signal.signalAll();
    }

    /** Events a channel returned for this id that are not acknowledged. */
    int unacked() {
        return unacked.get();
    }

    /** The id is destroyed: its events still queued on its channel are dropped and it leaves the channel. */
    void leaveChannel() {
        CmEventChannel ch = channel;
        if (ch != null) {
            ch.remove(e -> e.id() == id);
            ch.detach();
        }
    }
}
