package io.simrdma.fabric;

/**
 * Queue pair capabilities (struct ibv_qp_cap).
 *
 * <p>Thread safety: immutable.
 *
 * @param maxSendWr     outstanding send WRs
 * @param maxRecvWr     outstanding receive WRs (ignored when the QP uses an SRQ)
 * @param maxSendSge    SGEs per send WR
 * @param maxRecvSge    SGEs per receive WR
 * @param maxInlineData bytes of inline data per send WR
 */
public record QpCaps(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {

    /** Capabilities a newcomer can live with: 128 WRs each way, 4 SGEs, 64 bytes inline. */
    public static QpCaps defaults() {
        return new QpCaps(128, 128, 4, 4, 64);
    }
}
