package io.simrdma.fabric;

import java.util.concurrent.TimeUnit;

/**
 * A completion event channel (ibv_create_comp_channel(3)): CQs created with it deliver one event
 * each time a notification they requested fires; {@link #getCqEvent} returns the CQ. A channel
 * holds at most one unread event per CQ: a CQ armed and completed again before its event is read
 * does not queue a second one.
 *
 * <p>Thread safety: thread-safe; if several threads wait, each event goes to one of them.
 */
public interface CompletionChannel {

    Device device();

    /**
     * Waits for the next CQ event (ibv_get_cq_event(3)) for at most {@code timeout}; the event must
     * later be acknowledged with {@link CompletionQueue#ackEvents}.
     *
     * @return the CQ that had the event, or null if none came in time
     */
    CompletionQueue getCqEvent(long timeout, TimeUnit unit);

    /** The next CQ event without waiting, or null. */
    CompletionQueue pollCqEvent();

    /**
     * Destroys the channel (ibv_destroy_comp_channel(3)).
     *
     * @throws VerbsException EBUSY while a CQ uses it; ENOENT if already destroyed (as is every
     *                        later call on it)
     */
    void destroy();
}
