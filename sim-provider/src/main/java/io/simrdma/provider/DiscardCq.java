package io.simrdma.provider;

import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completion queue behind an endpoint's request or receive stream that has no EVD:
 * dat_ep_create(3DAT) lets the consumer pass DAT_HANDLE_NULL for request_evd_handle or
 * recv_evd_handle when it "is not interested in events for completions" of that stream, yet the
 * endpoint still posts, connects and transfers data, so its queue pair needs a CQ there (uDAPL's
 * openib providers keep an empty CQ for the same purpose). Each completion is taken off at once and
 * handed to the endpoint with no EVD ({@link IaEventRouter#deliver}), which retires its work
 * request (a ring slot, an RMR bind, an SRQ buffer) and makes no event.
 *
 * <p>Thread safety: created and destroyed on the device executor by {@link EpConfiguration};
 * completions are taken on the engine thread, one listener call per completion.
 */
final class DiscardCq {

    private static final Logger LOG = LoggerFactory.getLogger(DiscardCq.class);
    /** Entries: the CQ is drained on every completion, so one would do; a few spare. */
    private static final int DEPTH = 16;

    private final SimIa ia;
    final CompletionQueue cq;
    private final WorkCompletion[] polled = WorkCompletion.array(1);

    /**
     * Creates the CQ on the IA's device.
     *
     * @throws io.simrdma.dat.DatException DAT_INSUFFICIENT_RESOURCES (RESOURCE_TEVD) beyond the device's CQs
     */
    DiscardCq(SimIa ia) {
        this.ia = ia;
        try {
            this.cq = ia.device.createCq(DEPTH, null, this);
        } catch (VerbsException e) {
            throw ia.resources(e, DatReturnSubtype.RESOURCE_TEVD);
        }
        cq.setCompletionListener(this::onCompletion);
    }

    /**
     * A completion arrived: take it and let its endpoint retire it without an event. Engine thread, or
     * the thread flushing the endpoint's queues. Polls only what is there: on the deterministic fabric a
     * poll of an empty CQ runs an engine step, and a step run from inside a flush (dat_ep_disconnect,
     * dat_ia_close on the consumer's thread) re-entered the flush and never ended.
     */
    private void onCompletion() {
        try {
            while (cq.size() > 0 && cq.poll(polled, 1) > 0) {
                ia.router.deliver(null, polled[0], false);
            }
        } catch (VerbsException e) {
            // An overrun cannot happen while every completion is taken as it comes; nobody would see it.
            LOG.debug("{}: completions without an EVD lost: {}", ia.name.text(), e.getMessage());
        }
    }

    /** Destroys the CQ once no QP uses it. Device executor. */
    void destroy() {
        cq.setCompletionListener(null);
        try {
            cq.destroy();
        } catch (VerbsException e) {
            LOG.debug("{}: CQ of streams without an EVD not destroyed: {}", ia.name.text(), e.getMessage());
        }
    }
}
