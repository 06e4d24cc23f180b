package io.simrdma.provider;

import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EventNumber;

/**
 * The receive-buffer high watermarks of one endpoint (dat_ep_set_watermark(3DAT)): the buffers
 * at the endpoint (receives posted to it, or SRQ buffers it takes) against a soft watermark, which
 * raises one asynchronous event per setting, and a hard one, which breaks the connection.
 *
 * <p>Callers: {@link SimEp#setWatermark}; {@link EpPosting} when a
 * receive is posted or an SRQ buffer arrives; the connection code when the connection is
 * established.
 *
 * <p>Thread safety: the watermarks are volatile, so a post on the caller's thread can see at once
 * whether any is set; every check and change runs on the device's executor.
 */
final class EpWatermarks {

    private final SimEp ep;
    private volatile int softHw;
    private volatile int hardHw = Dat.WATERMARK_INFINITE;
    /** Device executor only. */
    private boolean softHwReported;

    EpWatermarks(SimEp ep, EpAttributes attributes) {
        this.ep = ep;
        // An SRQ EP starts with the soft high watermark of its srq_soft_hw attribute (DAT_HW_DEFAULT: none).
        this.softHw = ep.srq != null ? attributes.srqSoftHw() : Dat.WATERMARK_INFINITE;
    }

    /** dat_ep_set_watermark(3DAT): new watermarks, checked at once against the buffers at the endpoint. */
    void set(int softHighWatermark, int hardHighWatermark) {
        if ((softHighWatermark < 0 && softHighWatermark != Dat.WATERMARK_INFINITE)
                || (hardHighWatermark < 0 && hardHighWatermark != Dat.WATERMARK_INFINITE)) {
            throw DatException.invalidParameter("watermarks are counts or DAT_WATERMARK_INFINITE");
        }
        ep.ia.run(() -> {
            softHw = softHighWatermark;
            hardHw = hardHighWatermark;
            softHwReported = false;
            // "If the new high watermark values are below the current number of Receive DTOs at EP, an
            // asynchronous event will be generated immediately."
            check(ep.srq == null ? ep.posting.buffersHeld() : 0);
        });
    }

    /** A receive was posted to the endpoint. Posting thread. */
    void recvPosted() {
        if (softHw != Dat.WATERMARK_INFINITE || hardHw != Dat.WATERMARK_INFINITE) {
            // dat_ep_set_watermark(3DAT): a receive posted to the EP is a buffer at the EP (dat_ep_recv_query(3DAT)).
            ep.ia.run(() -> check(ep.posting.buffersHeld()));
        }
    }

    /** An SRQ buffer was allocated to this endpoint (one at a time in simrdma). Device executor, where completions arrive. */
    void srqBufferTaken() {
        check(1);
    }

    /** The connection was established. Device executor. */
    void connected() {
        if (hardHw != Dat.WATERMARK_INFINITE && ep.srq == null && ep.state == EndpointState.CONNECTED) {
            // dat_ep_set_watermark(3DAT): the hard watermark breaks a connection "as soon as" it is established.
            check(ep.posting.buffersHeld());
        }
    }

    /**
     * dat_ep_set_watermark(3DAT): {@code held} buffers at the endpoint against its watermarks. Above
     * the soft one, one asynchronous event per setting (S6 SILENT: the page names no event number; the
     * header's reason DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT is an EP reason, reported with the EP event
     * number DAT_ASYNC_ERROR_EP_BROKEN on the IA's async EVD); above the hard one, while connected,
     * a connection broken event. Device executor.
     */
    private void check(int held) {
        if (softHw != Dat.WATERMARK_INFINITE && held > softHw && !softHwReported) {
            softHwReported = true;
            ep.ia.postAsync(EventNumber.ASYNC_ERROR_EP_BROKEN, ep, AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
        }
        EndpointState s = ep.state;
        if (hardHw != Dat.WATERMARK_INFINITE
                && held > hardHw
                && (s == EndpointState.CONNECTED || s == EndpointState.DISCONNECT_PENDING)) {
            // dat_ep_set_watermark(3DAT): above the hard watermark the connection is broken.
            ep.connection.breakAboveHardWatermark();
        }
    }
}
