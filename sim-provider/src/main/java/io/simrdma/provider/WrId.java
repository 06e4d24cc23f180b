package io.simrdma.provider;

/**
 * The verbs wr_id the provider gives each work request it posts (the consumer's cookie stays in
 * the poster's slot, {@link EpPosting} and {@link SimSrq}): which kind of slot the cookie is in,
 * the id of the endpoint or SRQ that posted it ({@link SimIa#newId}), and the slot's sequence
 * number. A completion carries it back, and {@link IaEventRouter#deliver} finds the poster with it.
 *
 * <pre>
 *  63  62 61                        32 31                                  0
 * +------+----------------------------+-------------------------------------+
 * | tag  |  owner: EP or SRQ id       |  slot: ring sequence or SRQ slot    |
 * +------+----------------------------+-------------------------------------+
 *  tag: 1 request (send queue), 2 receive of an EP, 3 receive of an SRQ
 * </pre>
 *
 * <p>Stateless and thread-safe.
 */
final class WrId {

    /** A request (send, RDMA, bind) of an endpoint. */
    static final long REQUEST = 1L << 62;
    /** A receive posted to an endpoint. */
    static final long RECV = 2L << 62;
    /** A receive posted to an SRQ. */
    static final long SRQ = 3L << 62;

    private static final long TAG_MASK = 3L << 62;

    private WrId() {}

    /** The wr_id of slot {@code slot} of {@code owner}, of kind {@code tag}. */
    static long of(long tag, int owner, int slot) {
        return tag | ((long) owner << 32) | (slot & 0xFFFFFFFFL);
    }

    /** {@link #REQUEST}, {@link #RECV} or {@link #SRQ}. */
    static long tag(long wrId) {
        return wrId & TAG_MASK;
    }

    /** The id of the endpoint or SRQ that posted it. */
    static int owner(long wrId) {
        return (int) ((wrId >>> 32) & 0x3FFF_FFFF);
    }

    /** The slot. */
    static int slot(long wrId) {
        return (int) wrId;
    }
}
