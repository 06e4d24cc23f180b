package io.simrdma.fabric;

/**
 * Shared receive queue attributes (struct ibv_srq_attr).
 *
 * <p>Thread safety: immutable.
 *
 * @param maxWr    outstanding receive WRs
 * @param maxSge   SGEs per receive WR
 * @param srqLimit low watermark: when the number of posted WRs drops below it, a one-shot
 *                 SRQ_LIMIT_REACHED event is raised; 0 means disarmed
 */
public record SrqAttr(int maxWr, int maxSge, int srqLimit) {}
