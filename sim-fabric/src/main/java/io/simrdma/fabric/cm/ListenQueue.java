package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The connection requests of one listening {@link CmId}: how many may wait for an answer (the
 * backlog of rdma_listen(3)), how many are waiting now, and, for a synchronous listener, the ids
 * of the requests that rdma_get_request(3) has not returned yet.
 *
 * <p>A request counts as waiting from the REQ that created its id until the application accepts
 * or rejects it, the requester withdraws it, or the id is destroyed; the IB CM drops a REQ that
 * finds the backlog full, so its sender retries.
 *
 * <p>Thread safety: the waiting count and the backlog are read and changed on the device
 * executor by the IB CM (the backlog is set once, by rdma_listen, before any request can arrive);
 * the queue of unreturned requests is guarded by its own lock, which is a leaf lock, because the
 * application's thread takes requests from it while the device executor adds and withdraws them.
 *
 * <p>Who calls it: {@link CmId} (listen, get_request, destroy), {@link EventDelivery} (a
 * synchronous listener's request arrives, or moves to a channel with rdma_migrate_id) and the
 * device's {@link ConnectionMachine} (admission of a REQ, its answer or withdrawal).
 */
final class ListenQueue {

    private final CmId listener;
    /** The listener's own wake-up signal: also signalled by its events and its destruction. */
    private final WaitSignal signal;

    private int backlog;
    private int waiting;
    private final ArrayDeque<CmId> unreturned = new ArrayDeque<>();

    ListenQueue(CmId listener, WaitSignal signal) {
        this.listener = listener;
        this.signal = signal;
    }

    /** Starts listening with {@code backlog} requests at most; 0 or less means 1024 (rdma_listen(3)). */
    void open(int backlog) {
        this.backlog = backlog <= 0 ? 1024 : backlog;
    }

    /** The backlog given to rdma_listen, or 0 if the id never listened. */
    int backlog() {
        return backlog;
    }

    /** True when a new REQ would exceed the backlog. Device executor. */
    boolean isFull() {
        return waiting >= backlog;
    }

    /** A REQ created a request id for this listener. Device executor. */
    void admitted() {
        waiting++;
    }

    /** A request was accepted, rejected, withdrawn or abandoned. Device executor. */
    void answered() {
        waiting--;
    }

    /** A synchronous listener's request id arrived and waits for rdma_get_request. */
    void offer(CmId request) {
        synchronized (unreturned) {
            unreturned.add(request);
        }
    }

    /** The requester withdrew {@code request} before rdma_get_request returned it. */
    void withdraw(CmId request) {
        synchronized (unreturned) {
            unreturned.remove(request);
        }
    }

    /** True while rdma_get_request has not returned {@code request}. */
    boolean holds(CmId request) {
        synchronized (unreturned) {
            return unreturned.contains(request);
        }
    }

    /**
     * Waits at most {@code timeoutNanos} (negative: without limit) for a request and takes it;
     * null if none came, or if the listener was destroyed or lost its device meanwhile.
     */
    CmId take(long timeoutNanos) {
        signal.await(
                () -> {
                    synchronized (unreturned) {
                        return !unreturned.isEmpty()
                                || listener.state == CmId.State.DESTROYED
                                || listener.state == CmId.State.DEVICE_REMOVAL;
                    }
                },
                timeoutNanos);
        synchronized (unreturned) {
            return unreturned.poll();
        }
    }

    /** Takes every unreturned request, oldest first (rdma_migrate_id to a channel). */
    List<CmId> drain() {
        synchronized (unreturned) {
            List<CmId> out = new ArrayList<>(unreturned);
            unreturned.clear();
            return out;
        }
    }

    /** The devices the unreturned requests arrived on, in arrival order. */
    Set<Device> devices() {
        Set<Device> devices = new LinkedHashSet<>();
        synchronized (unreturned) {
            for (CmId request : unreturned) {
                devices.add(request.device);
            }
        }
        return devices;
    }
}
