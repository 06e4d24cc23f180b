package io.simrdma.fabric;

import java.util.concurrent.TimeUnit;

/**
 * A completion queue (ibv_create_cq(3)): holds work completions until the application polls
 * them. Entries are stored in preallocated arrays; polling copies them into the caller's
 * reusable {@link WorkCompletion} objects, so neither side allocates.
 *
 * <p>Overrun (ibv_poll_cq(3)): a completion arriving at a full CQ raises CQ_ERR; the rest is the
 * device profile's ({@link DeviceProfile.CqOverrun}): under ERROR (IBA, the default) the
 * completion is lost, the CQ enters error (every later poll throws) and the queue pair that
 * produced it moves to ERR; under LOSE_COMPLETION the completion is lost and the CQ stays usable;
 * under STALL the completion waits in its queue pair, which stops until room is polled free.
 *
 * <p>Under the deterministic scheduler a poll that finds the CQ empty runs one engine step, so
 * a busy-poll loop makes progress.
 *
 * <p>Thread safety: thread-safe; any number of threads may poll.
 */
public interface CompletionQueue {

    Device device();

    /** The completion channel notifications go to, or null. */
    CompletionChannel channel();

    /** The application object given at creation (cq_context). */
    Object context();

    /** Number of entries the CQ holds. */
    int capacity();

    /** The completion vector the CQ was created on (ibv_create_cq(3) comp_vector). */
    int compVector();

    /** Completions waiting to be polled. */
    int size();

    /** True after an overrun: the CQ can no longer be used. */
    boolean isInError();

    /** Polls up to {@code wcs.length} completions (ibv_poll_cq(3)). */
    int poll(WorkCompletion[] wcs);

    /**
     * Polls up to {@code max} completions into {@code wcs[0..]}, oldest first, and removes them.
     *
     * @return the number of completions polled, 0 if none
     * @throws VerbsException EIO after an overrun; ENOENT if destroyed
     */
    int poll(WorkCompletion[] wcs, int max);

    /**
     * Waits until the CQ holds at least {@code n} completions or {@code timeout} passes (on the
     * fabric's clock). A convenience over the completion channel for applications and tests.
     *
     * @return true if at least {@code n} completions are waiting
     */
    boolean awaitCompletions(int n, long timeout, TimeUnit unit);

    /**
     * Requests a notification on the completion channel for the next completion, or with
     * {@code solicitedOnly} for the next solicited receive completion or error
     * (ibv_req_notify_cq(3)). One request produces at most one event.
     *
     * @throws VerbsException EINVAL without a channel
     */
    void requestNotify(boolean solicitedOnly);

    /** Acknowledges {@code n} events returned by {@link CompletionChannel#getCqEvent} (ibv_ack_cq_events(3)). */
    void ackEvents(int n);

    /**
     * Resizes the CQ to {@code cqe} entries, keeping its completions (ibv_resize_cq(3)).
     *
     * @throws VerbsException EINVAL if {@code cqe} is out of range or smaller than the completions it holds
     */
    void resize(int cqe);

    /**
     * Destroys the CQ (ibv_destroy_cq(3)).
     *
     * @throws VerbsException ENOENT if already destroyed (as is every later call on it); EBUSY
     *                        while a QP uses it, or while channel events or async events
     *                        returned for it are unacknowledged
     */
    void destroy();

    /**
     * Runs {@code listener} on the engine thread after each completion is added (and after an
     * overrun): how a layer above verbs (the DAT provider's event dispatchers) wakes its own
     * waiters without a completion channel round trip. The listener must not block. Null removes it.
     */
    void setCompletionListener(Runnable listener);
}
