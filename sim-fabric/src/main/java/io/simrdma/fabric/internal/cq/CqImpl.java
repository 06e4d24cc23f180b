package io.simrdma.fabric.internal.cq;

import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue (ibv_create_cq(3)): holds work completions until the application polls
 * them. Entries are stored in preallocated arrays; polling copies them into the caller's
 * reusable {@link WorkCompletion} objects, so neither side allocates.
 *
 * <p>Overrun (ibv_poll_cq(3)): a completion arriving at a full CQ raises CQ_ERR; what else
 * happens is the device profile's ({@link DeviceProfile.CqOverrun}): under ERROR (IBA) the
 * completion is lost, the CQ enters error (every later poll throws) and the queue pair that
 * produced it moves to ERR.
 *
 * <p>A poll that finds the CQ empty runs engine work on the polling thread: one step under the
 * deterministic scheduler; under the threaded scheduler the device's queued work, when its
 * thread is not running it ({@link io.simrdma.fabric.sched.EngineExecutor#help()}). So a
 * busy-poll loop makes progress without waiting for a device thread to be woken.
 *
 * <p>Thread safety: thread-safe; any number of threads may poll.
 */
public final class CqImpl implements CompletionQueue {

    private static final int ARM_NONE = 0;
    private static final int ARM_SOLICITED = 1;
    private static final int ARM_NEXT = 2;

    private final CqContext device;
    private final int handle;
    private final CompChannelImpl channel;
    private final Object context;
    private final int compVector;
    private final Object lock = new Object();
    private final WaitSignal signal;

    private int capacity;
    private long[] wrId;
    private WcStatus[] status;
    private WcOpcode[] opcode;
    private int[] byteLen;
    private int[] imm;
    private int[] qpNum;
    private int[] srcQp;
    private int[] flags;
    private int[] vendor;
    private int head;
    private int count;
    /**
     * {@code count}, or -1 once the CQ is in error or destroyed; written under the lock, read
     * without it so that a poll of an empty CQ takes no monitor (a busy-polling thread would
     * otherwise contend for it with the engine thread adding completions).
     */
    private volatile int pollable;

    private int armed;
    private boolean overrun;
    /** QPs waiting for room (DeviceProfile.CqOverrun.STALL); guarded by lock. */
    private final java.util.List<Runnable> roomWaiters = new java.util.ArrayList<>(0);

    private volatile boolean destroyed;

    private volatile Runnable completionListener;

    /** QPs using this CQ; engine thread. */
    public int boundQps;
    /** An event of this CQ is queued on its channel and not yet read; guarded by the channel's queue. */
    boolean eventQueued;
    /** Events returned by the channel and not yet acknowledged with {@link #ackEvents}. */
    final AtomicInteger eventsUnacked = new AtomicInteger();
    /** Async events retrieved and not yet acknowledged. */
    public final AtomicInteger asyncRetrieved = new AtomicInteger();

    public CqImpl(CqContext device, int handle, int capacity, CompChannelImpl channel, Object context, int compVector) {
        this.device = device;
        this.handle = handle;
        this.channel = channel;
        this.context = context;
        this.compVector = compVector;
        this.signal = device.scheduler().newSignal();
        allocate(capacity);
    }

    private void allocate(int n) {
        capacity = n;
        wrId = new long[n];
        status = new WcStatus[n];
        opcode = new WcOpcode[n];
        byteLen = new int[n];
        imm = new int[n];
        qpNum = new int[n];
        srcQp = new int[n];
        flags = new int[n];
        vendor = new int[n];
    }

    @Override
    public Device device() {
        return device.device();
    }

    /** The device that owns this object, as the completion layer sees it. */
    public CqContext owner() {
        return device;
    }

    /** The completion channel notifications go to, or null. */
    public CompChannelImpl channel() {
        return channel;
    }

    /** The application object given at creation (cq_context). */
    public Object context() {
        return context;
    }

    /** The completion vector the CQ was created on (ibv_create_cq(3) comp_vector). */
    public int compVector() {
        return compVector;
    }

    /** Number of entries the CQ holds. */
    public int capacity() {
        synchronized (lock) {
            return capacity;
        }
    }

    /** Completions waiting to be polled. */
    public int size() {
        synchronized (lock) {
            return count;
        }
    }

    /** True after an overrun: the CQ can no longer be used. */
    public boolean isInError() {
        synchronized (lock) {
            return overrun;
        }
    }

    /** Polls up to {@code wcs.length} completions (ibv_poll_cq(3)). */
    public int poll(WorkCompletion[] wcs) {
        return poll(wcs, wcs.length);
    }

    /**
     * Polls up to {@code max} completions into {@code wcs[0..]}, oldest first, and removes them.
     *
     * @return the number of completions polled, 0 if none
     * @throws VerbsException EIO after an overrun; ENOENT if destroyed
     */
    public int poll(WorkCompletion[] wcs, int max) {
        int n = take(wcs, max);
        // An empty CQ: run engine work here (deterministic: one step; threaded: the device's
        // queued work if its thread is not on it), so that a busy-polling loop makes progress
        // without waiting for a device thread to wake up.
        if (n == 0 && (device.scheduler().progress() || device.executor().help())) {
            n = take(wcs, max);
        }
        return n;
    }

    private int take(WorkCompletion[] wcs, int max) {
        if (pollable == 0) {
            return 0;
        }
        int n;
        synchronized (lock) {
            if (destroyed) {
                throw VerbsException.stale("completion queue was destroyed");
            }
            if (overrun) {
                throw new VerbsException(Errno.EIO, "completion queue overrun; it cannot be used (ibv_poll_cq(3))");
            }
            n = Math.min(Math.min(max, wcs.length), count);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                int at = head;
                wc.set(
                        wrId[at],
                        status[at],
                        opcode[at],
                        byteLen[at],
                        imm[at],
                        qpNum[at],
                        srcQp[at],
                        flags[at],
                        vendor[at]);
                head = at + 1 == capacity ? 0 : at + 1;
            }
            count -= n;
            pollable = count;
            if (n == 0 || roomWaiters.isEmpty()) {
                return n;
            }
        }
        wakeRoomWaiters();
        return n;
    }

    /**
     * Waits until the CQ holds at least {@code n} completions or {@code timeout} passes (on the
     * fabric's clock). A convenience over the completion channel for applications and tests.
     *
     * @return true if at least {@code n} completions are waiting
     */
    public boolean awaitCompletions(int n, long timeout, TimeUnit unit) {
        return signal.await(
                        () -> {
                            synchronized (lock) {
                                return count >= n || overrun || destroyed;
                            }
                        },
                        unit.toNanos(timeout))
                && !isInError();
    }

    /**
     * Requests a notification on the completion channel for the next completion, or with
     * {@code solicitedOnly} for the next solicited receive completion or error
     * (ibv_req_notify_cq(3)). One request produces at most one event.
     *
     * @throws VerbsException EINVAL without a channel
     */
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) {
            throw VerbsException.invalid("CQ has no completion channel");
        }
        synchronized (lock) {
            if (destroyed) {
                throw VerbsException.stale("completion queue was destroyed");
            }
            // ibv_req_notify_cq(3): a request for "next" overrides "solicited".
            if (!solicitedOnly || armed == ARM_NONE) {
                armed = solicitedOnly ? ARM_SOLICITED : ARM_NEXT;
            }
        }
    }

    /** Acknowledges {@code n} events returned by {@link CompChannelImpl#getCqEvent} (ibv_ack_cq_events(3)). */
    public void ackEvents(int n) {
        if (n < 0 || n > eventsUnacked.get()) {
            throw VerbsException.invalid("acknowledging " + n + " events, " + eventsUnacked.get() + " unacknowledged");
        }
        eventsUnacked.addAndGet(-n);
    }

    /**
     * Resizes the CQ to {@code cqe} entries, keeping its completions (ibv_resize_cq(3)).
     *
     * @throws VerbsException EINVAL if {@code cqe} is out of range or smaller than the completions it holds
     */
    public void resize(int cqe) {
        checkUsable();
        VerbsException.checkRange("cqe", cqe, 1, device.attributes().maxCqe());
        device.executor().call(() -> {
            synchronized (lock) {
                if (cqe < count) {
                    throw VerbsException.invalid("cannot resize to " + cqe + ": " + count + " completions are waiting");
                }
                long[] w = wrId;
                WcStatus[] s = status;
                WcOpcode[] o = opcode;
                int[] b = byteLen;
                int[] im = imm;
                int[] q = qpNum;
                int[] sq = srcQp;
                int[] f = flags;
                int[] v = vendor;
                int oldCap = capacity;
                allocate(cqe);
                for (int i = 0; i < count; i++) {
                    int from = (head + i) % oldCap;
                    wrId[i] = w[from];
                    status[i] = s[from];
                    opcode[i] = o[from];
                    byteLen[i] = b[from];
                    imm[i] = im[from];
                    qpNum[i] = q[from];
                    srcQp[i] = sq[from];
                    flags[i] = f[from];
                    vendor[i] = v[from];
                }
                head = 0;
            }
            return null;
        });
        wakeRoomWaiters();
    }

    /**
     * Destroys the CQ (ibv_destroy_cq(3)).
     *
     * @throws VerbsException EBUSY while a QP uses it, or while channel events or async events
     *                        returned for it are unacknowledged
     */
    public void destroy() {
        device.executor().call(() -> {
            if (destroyed) {
                throw VerbsException.stale("completion queue already destroyed");
            }
            if (boundQps > 0) {
                throw VerbsException.busy(boundQps + " queue pair(s) still use this CQ");
            }
            if (eventsUnacked.get() > 0) {
                throw VerbsException.busy(
                        eventsUnacked.get() + " completion event(s) not acknowledged (ibv_ack_cq_events(3))");
            }
            if (asyncRetrieved.get() > 0) {
                throw VerbsException.busy(asyncRetrieved.get() + " async event(s) not acknowledged");
            }
            markDestroyed();
            return null;
        });
        FabricObserver o = device.observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    public void forceDestroy() {
        if (!destroyed) {
            markDestroyed();
        }
    }

    private void markDestroyed() {
        synchronized (lock) {
            destroyed = true;
            pollable = -1;
        }
        if (channel != null) {
            channel.discard(this);
        }
        device.cqDestroyed(this);
        signal.signalAll();
    }

    public void checkUsable() {
        if (destroyed) {
            throw VerbsException.stale("completion queue was destroyed");
        }
    }

    /**
     * Adds a completion. Engine thread. A full CQ raises CQ_ERR and, as the device's profile says
     * ({@link DeviceProfile.CqOverrun}), enters error (ERROR) or stays usable (LOSE_COMPLETION,
     * STALL): the caller decides what its QP does.
     *
     * @return false if the CQ was full (the completion is not added) or is already in error
     */
    public boolean push(
            long id,
            WcStatus st,
            WcOpcode op,
            int len,
            int immData,
            int wcFlags,
            int qp,
            int src,
            boolean solicited,
            int vendorErr) {
        return add(id, st, op, len, immData, wcFlags, qp, src, solicited, vendorErr, true);
    }

    /**
     * Adds a completion a stalled QP has kept waiting; a CQ still full raises nothing more.
     * Engine thread.
     *
     * @return false if the CQ is still full
     */
    public boolean retryPush(
            long id,
            WcStatus st,
            WcOpcode op,
            int len,
            int immData,
            int wcFlags,
            int qp,
            int src,
            boolean solicited,
            int vendorErr) {
        return add(id, st, op, len, immData, wcFlags, qp, src, solicited, vendorErr, false);
    }

    private boolean add(
            long id,
            WcStatus st,
            WcOpcode op,
            int len,
            int immData,
            int wcFlags,
            int qp,
            int src,
            boolean solicited,
            int vendorErr,
            boolean raise) {
        boolean notify = false;
        boolean full = false;
        synchronized (lock) {
            if (destroyed || overrun) {
                return false;
            }
            if (count == capacity) {
                full = true;
                // IBA 11.4.2.1: the CQ enters error, unless the device keeps it usable (rxe, siw).
                if (device.profile().cqOverrun() == DeviceProfile.CqOverrun.ERROR) {
                    overrun = true;
                    pollable = -1;
                }
            } else {
                int at = head + count;
                if (at >= capacity) {
                    at -= capacity;
                }
                wrId[at] = id;
                status[at] = st;
                opcode[at] = op;
                byteLen[at] = len;
                imm[at] = immData;
                qpNum[at] = qp;
                srcQp[at] = src;
                flags[at] = wcFlags;
                vendor[at] = vendorErr;
                count++;
                pollable = count;
                // ibv_req_notify_cq(3): solicited-only fires for solicited receives and for errors.
                if (armed == ARM_NEXT || (armed == ARM_SOLICITED && (solicited || st != WcStatus.SUCCESS))) {
                    armed = ARM_NONE;
                    notify = true;
                }
            }
        }
        if (full) {
            if (!raise) {
                return false;
            }
            device.raiseAsync(AsyncEventType.CQ_ERR, null, this, null);
        } else {
            device.traceCompletion(this, qp, id, st, op, len);
            if (notify) {
                channel.deliver(this);
            }
        }
        signal.signalAll();
        Runnable l = completionListener;
        if (l != null) {
            l.run();
        }
        return !full;
    }

    /**
     * Runs {@code waiter} once the CQ has room for a completion: at once (on this thread) if it has
     * room now, else on the thread of the poll or resize that frees room. How a QP stalled by a
     * full CQ ({@link DeviceProfile.CqOverrun#STALL}) learns it may go on. The waiter must not block.
     */
    public void awaitRoom(Runnable waiter) {
        synchronized (lock) {
            if (count == capacity && !destroyed) {
                roomWaiters.add(waiter);
                return;
            }
        }
        waiter.run();
    }

    /** Forgets a waiter given to {@link #awaitRoom} (its QP was reset or destroyed). */
    public void cancelAwaitRoom(Runnable waiter) {
        synchronized (lock) {
            roomWaiters.remove(waiter);
        }
    }

    /** Runs and forgets the room waiters if the CQ has room. Not under the lock. */
    private void wakeRoomWaiters() {
        Runnable[] ws;
        synchronized (lock) {
            if (roomWaiters.isEmpty() || count == capacity) {
                return;
            }
            ws = roomWaiters.toArray(new Runnable[0]);
            roomWaiters.clear();
        }
        for (Runnable w : ws) {
            w.run();
        }
    }

    /**
     * Runs {@code listener} on the engine thread after each completion is added (and after an
     * overrun): how a layer above verbs (the DAT provider's event dispatchers) wakes its own
     * waiters without a completion channel round trip. The listener must not block. Null removes it.
     */
    public void setCompletionListener(Runnable listener) {
        this.completionListener = listener;
    }

    @Override
    public String toString() {
        return "CQ[" + device.name() + "#" + handle + "]";
    }
}
