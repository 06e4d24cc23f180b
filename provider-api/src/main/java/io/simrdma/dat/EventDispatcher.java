package io.simrdma.dat;

import java.util.Optional;

/**
 * An Event Dispatcher ({@code DAT_EVD_HANDLE}): a queue of {@link DatEvent}s fed by the event
 * streams of its {@link EvdFlag}s, created by {@link InterfaceAdapter#createEvd} (dat_evd_create) or
 * by dat_ia_open as the asynchronous EVD. Events of one stream are delivered in order; there is no
 * order between streams.
 *
 * <p>Thread safety: see {@link DatHandle}. A thread blocked in {@link #waitForEvent} owns the EVD:
 * another {@code waitForEvent} or {@link #dequeue()} fails with {@code DAT_INVALID_STATE}. Events
 * are delivered exactly once; which of several dequeuing threads gets which event is not defined.
 */
public interface EventDispatcher extends FreeableHandle {

    /**
     * The EVD's parameters, including its state. Corresponds to {@code dat_evd_query()} (all
     * fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    EvdParams query();

    /**
     * Destroys the EVD; queued events are lost. Corresponds to {@code dat_evd_free()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (event streams still feed it),
     *         {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();

    /**
     * Makes {@code cno} the CNO this EVD notifies ({@code null}: none). Corresponds to
     * {@code dat_evd_modify_cno()}. While the change is in progress a notification may go to the old
     * or the new CNO; disable the EVD around the call to avoid that.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void modifyCno(ConsumerNotificationObject cno);

    /**
     * Lets arriving events trigger the EVD's CNO; no-op if already enabled. Corresponds to
     * {@code dat_evd_enable()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void enable();

    /**
     * Stops arriving events from triggering the EVD's CNO; no-op if already disabled. Corresponds to
     * {@code dat_evd_disable()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void disable();

    /**
     * Waits until at least {@code threshold} events are queued or {@code timeout} passes, then
     * removes the first event. Corresponds to {@code dat_evd_wait()}. A timeout is a value, not an
     * exception: the result's status is {@link DatReturnType#TIMEOUT_EXPIRED}, no event is removed,
     * and {@link EvdWaitResult#nmore()} is the number of queued events. On success {@code nmore} is
     * the number left, at least {@code threshold - 1}.
     *
     * <p>Interruption: if the waiting thread is interrupted, the wait fails with
     * {@code DAT_INTERRUPTED_CALL} (the Java counterpart of a signal) and the thread's interrupt
     * status is set again.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (threshold below 1 or above the queue
     *         length, null timeout), {@code DAT_INVALID_STATE} (another waiter, unwaitable EVD, or
     *         made unwaitable while waiting; or threshold other than 1 while a stream feeding the EVD
     *         uses unsignalled or solicited-wait completions), {@code DAT_ABORT} (IA closed or EVD
     *         freed while waiting), {@code DAT_INTERRUPTED_CALL}, {@code DAT_INVALID_HANDLE}
     */
    EvdWaitResult waitForEvent(Timeout timeout, int threshold);

    /**
     * Removes the first event, if any; an empty EVD gives an empty {@link Optional} (the C
     * {@code DAT_QUEUE_EMPTY}). Corresponds to {@code dat_evd_dequeue()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (a thread is waiting on the EVD),
     *         {@code DAT_INVALID_HANDLE}
     */
    Optional<DatEvent> dequeue();

    /**
     * Removes the first event, if any, into {@code into}, caller-owned storage reused from call to
     * call, as the C {@code dat_evd_dequeue()} fills the {@code DAT_EVENT} its caller passes; an
     * empty EVD returns false (the C {@code DAT_QUEUE_EMPTY}) and leaves {@code into} as it was.
     * Same rules as {@link #dequeue()}. A provider may take DTO completions this way without
     * allocating per completion (sim-provider does); this default delegates to {@link #dequeue()}.
     *
     * @return true if an event was removed into {@code into}
     * @throws DatException {@code DAT_INVALID_PARAMETER} ({@code into} is null), {@code DAT_INVALID_STATE}
     *         (a thread is waiting on the EVD), {@code DAT_INVALID_HANDLE}
     */
    default boolean dequeue(EventSlot into) {
        if (into == null) {
            throw DatException.invalidParameter("the event slot is null");
        }
        Optional<DatEvent> e = dequeue();
        if (e.isEmpty()) {
            return false;
        }
        into.set(e.get());
        return true;
    }

    /**
     * Posts a {@link SoftwareEvent} carrying {@code pointer} (opaque to the provider; may be null).
     * Corresponds to {@code dat_evd_post_se()}. On a full queue the event is not queued and the EVD
     * does not overflow.
     *
     * @throws DatException {@code DAT_QUEUE_FULL}, {@code DAT_INVALID_PARAMETER} (the EVD does not
     *         take software events), {@code DAT_INVALID_HANDLE}
     */
    void postSoftwareEvent(Object pointer);

    /**
     * Changes the queue to hold at least {@code minQlen} events without losing any. Corresponds to
     * {@code dat_evd_resize()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (more events queued than {@code minQlen}),
     *         {@code DAT_INVALID_PARAMETER}, {@code DAT_INSUFFICIENT_RESOURCES},
     *         {@code DAT_INVALID_HANDLE}
     */
    void resize(int minQlen);

    /**
     * Makes the EVD unwaitable: {@link #waitForEvent} fails with {@code DAT_INVALID_STATE}, and
     * threads already waiting return with that error. Events still arrive and trigger the CNO.
     * Corresponds to {@code dat_evd_set_unwaitable()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void setUnwaitable();

    /**
     * Makes the EVD waitable again. Corresponds to {@code dat_evd_clear_unwaitable()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void clearUnwaitable();
}
