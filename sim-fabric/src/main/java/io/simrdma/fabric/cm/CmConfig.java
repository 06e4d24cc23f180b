package io.simrdma.fabric.cm;

/**
 * Timing of a fabric's connection manager.
 *
 * @param cmResponseTimeout IB CM response timeout exponent: a REQ, REP or DREQ is resent after
 *                          4.096 us x 2^value without an answer (IBA 12.7.34)
 * @param maxCmRetries      resends before giving up (4 bits); an unanswered REQ ends in
 *                          UNREACHABLE after (maxCmRetries + 1) timeouts
 * @param timewaitNanos     how long a disconnected connection stays in timewait before TIMEWAIT_EXIT
 * @param ackTimeout        default local ACK timeout exponent of connected QPs (RDMA_OPTION_ID_ACK_TIMEOUT overrides)
 * @param minRnrTimer       RNR NAK timer code of connected QPs; rdma_connect(3) says librdmacm uses 0 (655 ms)
 *
 * <p>Thread safety: immutable.
 */
public record CmConfig(int cmResponseTimeout, int maxCmRetries, long timewaitNanos, int ackTimeout, int minRnrTimer) {

    public CmConfig {
        if (cmResponseTimeout < 0 || cmResponseTimeout > 31 || maxCmRetries < 0 || maxCmRetries > 15
                || ackTimeout < 0 || ackTimeout > 31 || minRnrTimer < 0 || minRnrTimer > 31 || timewaitNanos < 0) {
            throw new IllegalArgumentException("CM timing out of range: " + cmResponseTimeout + "/" + maxCmRetries
                    + "/" + ackTimeout + "/" + minRnrTimer);
        }
    }

    /**
     * Response timeout 16 (268 ms) with 15 retries: an unreachable peer is reported after 4.3 s
     * (librdmacm's kernel defaults, 20 and 15, take 68 s); timewait 10 ms; ACK timeout 14 (67 ms);
     * RNR timer 0 as librdmacm.
     */
    public static CmConfig defaults() {
        return new CmConfig(16, 15, 10_000_000L, 14, 0);
    }

    /** Nanoseconds of one CM response timeout. */
    public long responseTimeoutNanos() {
        return 4096L << cmResponseTimeout;
    }

    public CmConfig withResponseTimeout(int exponent, int retries) {
        return new CmConfig(exponent, retries, timewaitNanos, ackTimeout, minRnrTimer);
    }

    public CmConfig withTimewaitNanos(long nanos) {
        return new CmConfig(cmResponseTimeout, maxCmRetries, nanos, ackTimeout, minRnrTimer);
    }

    public CmConfig withAckTimeout(int exponent) {
        return new CmConfig(cmResponseTimeout, maxCmRetries, timewaitNanos, exponent, minRnrTimer);
    }

    public CmConfig withMinRnrTimer(int code) {
        return new CmConfig(cmResponseTimeout, maxCmRetries, timewaitNanos, ackTimeout, code);
    }
}
