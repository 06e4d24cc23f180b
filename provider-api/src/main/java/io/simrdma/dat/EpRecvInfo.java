package io.simrdma.dat;

/**
 * The receive buffers an Endpoint holds, as {@link Endpoint#recvQuery()} (dat_ep_recv_query)
 * returns them. Either count may be {@link Dat#VALUE_UNKNOWN}.
 *
 * <p>Thread safety: immutable.
 *
 * @param nbufsAllocated buffers allocated to the EP whose completions are not yet generated
 * @param bufsAllocSpan the span of those buffers in message sequence numbers; never less than
 *        {@code nbufsAllocated} when both are known
 */
public record EpRecvInfo(int nbufsAllocated, int bufsAllocSpan) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if a count is neither a count nor
     *         {@link Dat#VALUE_UNKNOWN}, or the span is less than the count (dat_ep_recv_query: "must
     *         never report n buffers in a span that is less than n")
     */
    public EpRecvInfo {
        Checks.countOrUnknown(nbufsAllocated, "nbufsAllocated");
        Checks.countOrUnknown(bufsAllocSpan, "bufsAllocSpan");
        if (nbufsAllocated >= 0 && bufsAllocSpan >= 0 && bufsAllocSpan < nbufsAllocated) {
            throw DatException.invalidParameter(
                    "span " + bufsAllocSpan + " is less than the " + nbufsAllocated + " buffers in it");
        }
    }
}
