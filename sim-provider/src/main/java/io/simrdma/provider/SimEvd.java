package io.simrdma.provider;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdParams;
import io.simrdma.dat.EvdState;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.EventSlot;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.SoftwareEvent;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.CompletionChannel;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.sched.WaitSignal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An Event Dispatcher: one bounded queue of DAT events, fed by the event streams attached to it.
 * An EVD with the DTO or RMR-bind stream owns a completion queue of its size; each completion is
 * taken off the CQ on the engine thread as it arrives, translated into its DAT event and queued,
 * so that all streams share one order and one length.
 *
 * <p>Notification (dat_evd_wait(3DAT), dat_ep_post_recv(3DAT)): an event either notifies or not.
 * Request completions posted with DAT_COMPLETION_UNSIGNALLED_FLAG, and receive completions of an
 * endpoint whose receives are UNSIGNALLED, or SOLICITED_WAIT when the matching send was not
 * solicited, are queued without notifying: they wake no waiter and trigger no CNO, until a
 * notifying event arrives. Errors always notify.
 *
 * <p>Overflow: an event arriving at a full EVD is lost and the IA's async EVD gets
 * DAT_ASYNC_ERROR_EVD_OVERFLOW.
 *
 * <p>Thread safety: thread-safe; the queue is guarded by one lock.
 */
final class SimEvd extends SimHandle implements EventDispatcher {

    private final Object lock = new Object();
    private final EnumSet<EvdFlag> flags;
    /**
     * The queue: a ring of qlen slots, oldest at {@code head}; per slot the event, whether it
     * notifies, and what runs when it leaves ({@link #deliver}). A DTO completion is kept as its
     * fields ({@link #deliverDto}; its {@code events} entry is null) and becomes a
     * {@link DtoCompletionEvent} only if it is dequeued as one: taken with
     * {@link #dequeue(EventSlot)} it costs no allocation at all. Guarded by lock.
     */
    private DatEvent[] events;

    private Endpoint[] dtoEp;
    private long[] dtoCookie;
    private DtoCompletionStatus[] dtoStatus;
    private long[] dtoLength;

    private boolean[] notifies;
    private Runnable[] reapers;
    private int head;
    /**
     * Events queued. Written under lock; volatile so that a poll of an empty EVD (the busy-polling
     * consumer's usual case) reads it without taking the lock ({@link #dequeue(EventSlot)}).
     */
    private volatile int count;
    /** The threshold of the current dat_evd_wait; read by {@link #waitCondition}. Guarded by lock. */
    private int waitThreshold;
    /** The condition of dat_evd_wait ({@link #waitOver}), made once: a wait allocates no lambda. */
    private final java.util.function.BooleanSupplier waitCondition = this::waitOver;

    private final WaitSignal signal;
    /** The endpoint completion streams feeding this EVD and their flag rules. */
    final EvdStreams streams;

    private int qlen;
    private int notifying;
    private SimCno cno;
    private boolean enabled = true;
    private boolean waitable = true;
    /** A thread is in dat_evd_wait. Written under lock; volatile for the lock-free empty poll. */
    private volatile boolean waiting;
    /** Endpoints, service points and IAs that send events here. */
    private int users;

    /** The CQ of the DTO and RMR-bind streams, or null. */
    final CompletionQueue cq;

    private final CompletionChannel solicited;
    private final WorkCompletion[] polled = WorkCompletion.array(1);

    SimEvd(SimIa ia, int qlen, SimCno cno, Set<EvdFlag> flags) {
        super(ia, HandleType.EVD);
        this.qlen = qlen;
        this.events = new DatEvent[qlen];
        this.notifies = new boolean[qlen];
        this.reapers = new Runnable[qlen];
        this.dtoEp = new Endpoint[qlen];
        this.dtoCookie = new long[qlen];
        this.dtoStatus = new DtoCompletionStatus[qlen];
        this.dtoLength = new long[qlen];
        this.flags = flags.isEmpty() ? EnumSet.noneOf(EvdFlag.class) : EnumSet.copyOf(flags);
        this.streams = new EvdStreams(this.flags);
        this.signal = ia.fabric.scheduler().newSignal();
        this.cno = cno;
        if (this.flags.contains(EvdFlag.DTO) || this.flags.contains(EvdFlag.RMR_BIND)) {
            CompletionChannel channel = null;
            try {
                channel = ia.device.createCompletionChannel();
                this.cq = ia.device.createCq(Math.max(qlen, 1), channel, this);
            } catch (VerbsException e) {
                // A refused EVD leaves nothing behind: the channel made for its CQ goes too (no CQ uses it).
                if (channel != null) {
                    channel.destroy();
                }
                throw ia.resources(e, DatReturnSubtype.RESOURCE_TEVD);
            }
            this.solicited = channel;
            cq.requestNotify(true);
            cq.setCompletionListener(this::onCompletion);
        } else {
            this.cq = null;
            this.solicited = null;
        }
        if (cno != null) {
            cno.attach();
        }
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        if (flags.contains(EvdFlag.CONNECTION)) {
            return DatReturnSubtype.INVALID_HANDLE_EVD_CONN;
        }
        if (flags.contains(EvdFlag.CR)) {
            return DatReturnSubtype.INVALID_HANDLE_EVD_CR;
        }
        if (flags.contains(EvdFlag.ASYNC)) {
            return DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC;
        }
        return DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST;
    }

    Set<EvdFlag> flags() {
        return flags;
    }

    /** Checks this is a usable EVD for a stream of {@code kind}; DAT_INVALID_HANDLE with {@code subtype} otherwise. */
    void checkStream(EvdFlag kind, DatReturnSubtype subtype) {
        if (freed || !flags.contains(kind)) {
            throw new DatException(
                    DatReturnType.INVALID_HANDLE,
                    subtype,
                    "EVD " + (freed ? "was freed" : "was not created with the " + kind + " stream flag"));
        }
    }

    // ------------------------------------------------------------------ streams

    void addUser() {
        synchronized (lock) {
            users++;
        }
    }

    void removeUser() {
        synchronized (lock) {
            users--;
        }
    }

    // ------------------------------------------------------------------ arrivals

    /** A completion arrived on the CQ: take it, translate it, queue its event. Engine thread. */
    private void onCompletion() {
        int n;
        try {
            n = cq.poll(polled, 1);
        } catch (VerbsException e) {
            // The CQ overran (cannot happen while it is drained on every push); report like an EVD overflow.
            overflow();
            return;
        }
        if (n == 0) {
            return;
        }
        boolean solicitedEvent = solicited.pollCqEvent() != null;
        if (solicitedEvent) {
            cq.ackEvents(1);
            cq.requestNotify(true);
        }
        ia.router.deliver(this, polled[0], solicitedEvent);
    }

    /**
     * Queues the event of a completion taken off this EVD's CQ ({@link IaEventRouter#deliver});
     * {@code reaped} (may be null) runs once the event has left the EVD: dequeued, waited for, lost
     * to an overflow (which is reported), or discarded with the EVD. Engine thread.
     */
    void deliver(DatEvent e, boolean notify, Runnable reaped) {
        enqueue(e, null, 0, null, 0, notify, reaped, true);
    }

    /**
     * As {@link #deliver} for a DTO completion, kept as its fields (no event object is made unless
     * a consumer dequeues it as one). Engine thread.
     */
    void deliverDto(
            Endpoint ep, long cookie, DtoCompletionStatus status, long length, boolean notify, Runnable reaped) {
        enqueue(null, ep, cookie, status, length, notify, reaped, true);
    }

    /** Queues an event of any stream. Any thread. @return false if the EVD overflowed (the event is lost) */
    boolean enqueue(DatEvent e, boolean notify) {
        return enqueue(e, null, 0, null, 0, notify, null, true);
    }

    /** Queues a notifying event only if the EVD has room; a full EVD is left alone (no overflow is reported). */
    boolean offer(DatEvent e) {
        return enqueue(e, null, 0, null, 0, true, null, false);
    }

    /**
     * As {@link #enqueue(DatEvent, boolean)}; {@code reaped} runs when the event leaves the EVD or is
     * lost; an event lost to a full EVD is reported as an overflow if {@code reportOverflow}. A null
     * {@code e} queues a DTO completion of {@code ep}, {@code cookie}, {@code status}, {@code length}.
     */
    private boolean enqueue(
            DatEvent e,
            Endpoint ep,
            long cookie,
            DtoCompletionStatus status,
            long length,
            boolean notify,
            Runnable reaped,
            boolean reportOverflow) {
        SimCno trigger = null;
        boolean queued = false;
        boolean wasFreed;
        synchronized (lock) {
            wasFreed = freed;
            if (!wasFreed && count < qlen) {
                int at = head + count;
                if (at >= events.length) {
                    at -= events.length;
                }
                events[at] = e;
                if (e == null) {
                    dtoEp[at] = ep;
                    dtoCookie[at] = cookie;
                    dtoStatus[at] = status;
                    dtoLength[at] = length;
                }
                notifies[at] = notify;
                reapers[at] = reaped;
                count++;
                queued = true;
                if (notify) {
                    notifying++;
                    // dat_evd_wait(3DAT): a direct waiter preempts the CNO; a disabled EVD does not notify it.
                    if (enabled && !waiting && cno != null) {
                        trigger = cno;
                    }
                }
            }
        }
        if (!queued) {
            if (reaped != null) {
                reaped.run();
            }
            if (!wasFreed && reportOverflow) {
                overflow();
            }
            return false;
        }
        signal.signalAll();
        if (trigger != null) {
            trigger.trigger(this);
        }
        return true;
    }

    private void overflow() {
        SimEvd async = ia.asyncEvd;
        if (async != null && async != this) {
            async.enqueue(
                    new AsyncErrorEvent(
                            async, EventNumber.ASYNC_ERROR_EVD_OVERFLOW, this, AsyncErrorReason.EVD_OVERFLOW_ERROR),
                    true);
        }
    }

    // ------------------------------------------------------------------ consumer side

    @Override
    public Optional<DatEvent> dequeue() {
        checkHandle();
        if (emptyAfterEngineWork()) {
            return Optional.empty();
        }
        DatEvent e;
        Runnable reaper;
        synchronized (lock) {
            checkNoWaiter();
            reaper = count > 0 ? reapers[head] : null;
            e = take();
        }
        if (reaper != null) {
            reaper.run();
        }
        return e == null ? Optional.empty() : Optional.of(e);
    }

    /** dat_evd_dequeue(3DAT) into caller-owned storage: a DTO completion costs no allocation. */
    @Override
    public boolean dequeue(EventSlot into) {
        checkHandle();
        if (into == null) {
            throw DatException.invalidParameter("the event slot is null (dat_evd_dequeue(3DAT))");
        }
        if (emptyAfterEngineWork()) {
            return false;
        }
        boolean taken;
        Runnable reaper;
        synchronized (lock) {
            checkNoWaiter();
            reaper = count > 0 ? reapers[head] : null;
            taken = takeInto(into);
        }
        if (reaper != null) {
            reaper.run();
        }
        return taken;
    }

    private void checkNoWaiter() {
        if (waiting) {
            throw invalidState(
                    DatReturnSubtype.INVALID_STATE_EVD_WAITER, "a thread waits on this EVD (dat_evd_dequeue(3DAT))");
        }
    }

    /** Runs queued engine work on the calling thread; true if any ran (an event may have come). */
    private boolean runEngineWork() {
        return ia.fabric.scheduler().progress() || ia.device.executor().help();
    }

    /**
     * Whether a dequeue finds nothing, checked without the lock (the busy-polling consumer's usual
     * case): if the EVD is empty, engine work runs on this thread (deterministic: a step; threaded:
     * the device's queued work when its thread is not on it, EngineExecutor.help), as a CQ poll
     * does, and the EVD is looked at again only if some ran.
     */
    private boolean emptyAfterEngineWork() {
        if (count != 0) {
            return false;
        }
        checkNoWaiter();
        return !runEngineWork() || count == 0;
    }

    /** Takes the oldest event off the queue, or null; the caller runs its reaper (read first). Holds lock. */
    private DatEvent take() {
        if (count == 0) {
            return null;
        }
        int at = head;
        DatEvent e = events[at];
        if (e == null) {
            e = new DtoCompletionEvent(this, dtoEp[at], dtoCookie[at], dtoStatus[at], dtoLength[at]);
        }
        retireHead();
        return e;
    }

    /** As {@link #take()}, into {@code into}; false if empty. Holds lock. */
    private boolean takeInto(EventSlot into) {
        if (count == 0) {
            return false;
        }
        int at = head;
        DatEvent e = events[at];
        if (e == null) {
            into.setDtoCompletion(this, dtoEp[at], dtoCookie[at], dtoStatus[at], dtoLength[at]);
        } else {
            into.set(e);
        }
        retireHead();
        return true;
    }

    /** Drops the oldest event, keeping no reference to it. Holds lock; count > 0. */
    private void retireHead() {
        int at = head;
        if (notifies[at]) {
            notifying--;
        }
        events[at] = null;
        reapers[at] = null;
        dtoEp[at] = null;
        dtoStatus[at] = null;
        head = at + 1 == events.length ? 0 : at + 1;
        count--;
    }

    @Override
    public EvdWaitResult waitForEvent(Timeout timeout, int threshold) {
        checkHandle();
        if (timeout == null) {
            throw DatException.invalidParameter("timeout is null");
        }
        synchronized (lock) {
            if (threshold < 1 || threshold > qlen) {
                throw new DatException(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.INVALID_ARG3,
                        "threshold " + threshold + " not in 1.." + qlen + " (dat_evd_wait(3DAT))");
            }
            if (!waitable) {
                throw invalidState(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "EVD is unwaitable");
            }
            if (waiting) {
                throw invalidState(DatReturnSubtype.INVALID_STATE_EVD_WAITER, "another thread waits on this EVD");
            }
            if (threshold != 1 && streams.consumerControlled()) {
                throw invalidState(
                        DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                        "an UNSIGNALLED or SOLICITED_WAIT stream feeds this EVD: threshold must be 1 (dat_evd_wait(3DAT))");
            }
            waiting = true;
            waitThreshold = threshold;
        }
        try {
            long nanos = timeout.isInfinite() ? -1 : timeout.toNanos();
            signal.await(waitCondition, nanos);
            if (Thread.interrupted()) {
                // provider-api: the call fails with DAT_INTERRUPTED_CALL and the thread's interrupt status is set again
                Thread.currentThread().interrupt();
                throw new DatException(DatReturnType.INTERRUPTED_CALL, "dat_evd_wait interrupted");
            }
            DatEvent e;
            Runnable reaper;
            int nmore;
            synchronized (lock) {
                if (freed || ia.closed) {
                    throw new DatException(DatReturnType.ABORT, "the EVD was freed or its IA closed while waiting");
                }
                if (!waitable) {
                    throw invalidState(
                            DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "EVD made unwaitable while waiting");
                }
                if (!ready(threshold)) {
                    return EvdWaitResult.timedOut(count);
                }
                reaper = reapers[head];
                e = take();
                nmore = count;
            }
            if (reaper != null) {
                reaper.run();
            }
            return EvdWaitResult.success(e, nmore);
        } finally {
            synchronized (lock) {
                waiting = false;
            }
        }
    }

    /** Whether the current dat_evd_wait may return: an event ready, or the EVD gone or made unwaitable. */
    private boolean waitOver() {
        synchronized (lock) {
            return freed || ia.closed || !waitable || ready(waitThreshold);
        }
    }

    private boolean ready(int threshold) {
        return notifying > 0 && count >= threshold;
    }

    /** Events queued (for tests and dat_evd_resize). */
    int size() {
        synchronized (lock) {
            return count;
        }
    }

    @Override
    public void postSoftwareEvent(Object pointer) {
        checkHandle();
        if (!flags.contains(EvdFlag.SOFTWARE)) {
            throw DatException.invalidParameter(
                    "EVD was not created with the software event stream (DAT_EVD_SOFTWARE_FLAG)");
        }
        synchronized (lock) {
            if (count >= qlen) {
                throw new DatException(DatReturnType.QUEUE_FULL, "EVD is full (dat_evd_post_se(3DAT))");
            }
        }
        enqueue(new SoftwareEvent(this, pointer), true);
    }

    @Override
    public void resize(int minQlen) {
        checkHandle();
        range(minQlen, 1, ia.attributes().maxEvdQlen(), "EVD length");
        synchronized (lock) {
            if (minQlen < count) {
                throw invalidState(
                        DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                        minQlen + " is below the " + count + " events queued (dat_evd_resize(3DAT))");
            }
            if (cq != null) {
                cq.resize(minQlen);
            }
            DatEvent[] e = new DatEvent[minQlen];
            boolean[] n = new boolean[minQlen];
            Runnable[] r = new Runnable[minQlen];
            Endpoint[] dEp = new Endpoint[minQlen];
            long[] dCookie = new long[minQlen];
            DtoCompletionStatus[] dStatus = new DtoCompletionStatus[minQlen];
            long[] dLength = new long[minQlen];
            for (int i = 0; i < count; i++) {
                int at = (head + i) % events.length;
                e[i] = events[at];
                n[i] = notifies[at];
                r[i] = reapers[at];
                dEp[i] = dtoEp[at];
                dCookie[i] = dtoCookie[at];
                dStatus[i] = dtoStatus[at];
                dLength[i] = dtoLength[at];
            }
            events = e;
            notifies = n;
            reapers = r;
            dtoEp = dEp;
            dtoCookie = dCookie;
            dtoStatus = dStatus;
            dtoLength = dLength;
            head = 0;
            qlen = minQlen;
        }
    }

    @Override
    public void setUnwaitable() {
        checkHandle();
        synchronized (lock) {
            waitable = false;
        }
        signal.signalAll();
    }

    @Override
    public void clearUnwaitable() {
        checkHandle();
        synchronized (lock) {
            waitable = true;
        }
    }

    @Override
    public void enable() {
        checkHandle();
        synchronized (lock) {
            enabled = true;
        }
    }

    @Override
    public void disable() {
        checkHandle();
        synchronized (lock) {
            enabled = false;
        }
    }

    @Override
    public void modifyCno(ConsumerNotificationObject newCno) {
        checkHandle();
        SimCno c = SimHandle.checkOptional(newCno, SimCno.class, ia, DatReturnSubtype.INVALID_HANDLE_CNO);
        SimCno old;
        synchronized (lock) {
            old = cno;
            cno = c;
        }
        if (c != null) {
            c.attach();
        }
        if (old != null) {
            old.detach(false);
        }
    }

    @Override
    public EvdParams query() {
        checkHandle();
        synchronized (lock) {
            EvdState config = streams.isEmpty()
                    ? null
                    : streams.consumerControlled()
                            ? (streams.hasSolicitedWait() ? EvdState.CONFIG_SOLICITED : EvdState.CONFIG_NOTIFY)
                            : EvdState.CONFIG_THRESHOLD;
            return new EvdParams(
                    ia, qlen, EvdParams.stateOf(enabled, waitable, config), Optional.ofNullable(cno), flags);
        }
    }

    /**
     * Frees the EVD (dat_evd_free(3DAT)).
     *
     * @throws DatException DAT_INVALID_STATE (EVD in use) while an endpoint, a service point or the IA
     *                      sends events here
     */
    @Override
    public void free() {
        checkHandle();
        synchronized (lock) {
            if (users > 0) {
                throw invalidState(
                        DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                        users + " endpoint(s) or service point(s) still send events here (dat_evd_free(3DAT))");
            }
        }
        destroy();
        ia.forget(this);
    }

    /** Releases the EVD without checks (abrupt IA close). */
    @Override
    void destroy() {
        SimCno c;
        List<Runnable> discarded = new ArrayList<>();
        synchronized (lock) {
            if (freed) {
                return;
            }
            freed = true;
            while (count > 0) {
                if (reapers[head] != null) {
                    discarded.add(reapers[head]);
                }
                retireHead();
            }
            notifying = 0;
            c = cno;
            cno = null;
        }
        for (Runnable r : discarded) {
            r.run();
        }
        signal.signalAll();
        if (cq != null) {
            cq.setCompletionListener(null);
            int unacked = 0;
            while (solicited.pollCqEvent() != null) {
                unacked++;
            }
            if (unacked > 0) {
                cq.ackEvents(unacked);
            }
            cq.destroy();
            solicited.destroy();
        }
        if (c != null) {
            c.detach(true);
        }
    }

    @Override
    public String toString() {
        return "EVD" + flags + "[qlen=" + qlen + "]";
    }
}
