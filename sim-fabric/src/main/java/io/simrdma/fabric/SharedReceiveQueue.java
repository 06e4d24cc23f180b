package io.simrdma.fabric;

import java.util.Set;

/**
 * A shared receive queue (ibv_create_srq(3)): receive WQEs that any QP created with it consumes,
 * in posting order, whichever QP the message arrives on.
 *
 * <p>Low watermark (ibv_modify_srq(3)): setting {@code srqLimit} arms a one-shot
 * SRQ_LIMIT_REACHED event, raised when a QP takes a WQE and fewer than the limit remain;
 * the limit then reads 0 (disarmed) until set again.
 *
 * <p>Thread safety: thread-safe; posts from any thread, consumption on the device's executor.
 */
public interface SharedReceiveQueue {

    ProtectionDomain pd();

    /** The application object given at creation (srq_context). */
    Object context();

    /**
     * Posts a chain of receive WRs (ibv_post_srq_recv(3)), stopping at the first that fails.
     *
     * @throws PostException EINVAL for too many SGEs, ENOMEM when full; the WRs before the failing
     *                       one were posted
     */
    void postRecv(RecvWr first);

    /**
     * Modifies the SRQ (ibv_modify_srq(3)): {@code MAX_WR} resizes it, {@code LIMIT} arms the
     * low watermark. If any attribute is invalid, nothing changes.
     *
     * @throws VerbsException EINVAL for a size out of range or below the WRs posted, or a limit
     *                        above max_wr
     */
    void modify(SrqAttr attr, Set<SrqAttrMask> mask);

    /** The SRQ's attributes (ibv_query_srq(3)); srqLimit is 0 when the watermark is not armed. */
    SrqAttr query();

    /** WRs posted and not yet taken by a QP. */
    int size();

    /**
     * Destroys the SRQ (ibv_destroy_srq(3)).
     *
     * @throws VerbsException EBUSY while a QP is associated with it or its async events are
     *                        unacknowledged; ENOENT if already destroyed (as is every later call on it)
     */
    void destroy();
}
