package io.simrdma.fabric.cm;

/**
 * Timing of a fabric's connection manager.
 *
 * <p>Thread safety: immutable.
 *
 * @param cmResponseTimeout IB CM response timeout exponent: a REQ, REP or DREQ is resent after
 *                          4.096 us x 2^value without an answer (IBA 12.7.34)
 * @param maxCmRetries      resends before giving up (4 bits); an unanswered REQ ends in
 *                          UNREACHABLE after (maxCmRetries + 1) timeouts
 * @param timewaitNanos     how long a disconnected connection stays in timewait before TIMEWAIT_EXIT
 * @param ackTimeout        default local ACK timeout exponent of connected QPs (RDMA_OPTION_ID_ACK_TIMEOUT overrides)
 * @param minRnrTimer       RNR NAK timer code of connected QPs; rdma_connect(3) says librdmacm uses 0 (655 ms)
 * @param mraServiceTimeout service timeout exponent this CM puts in an MRA (IBA 12.6.6): a request
 *                          the application has not answered yet is acknowledged with an MRA when
 *                          the requester resends it, and the requester then waits
 *                          4.096 us x 2^value more before each further resend
 */
public record CmConfig(
        int cmResponseTimeout,
        int maxCmRetries,
        long timewaitNanos,
        int ackTimeout,
        int minRnrTimer,
        int mraServiceTimeout) {

    public CmConfig {
        if (cmResponseTimeout < 0
                || cmResponseTimeout > 31
                || maxCmRetries < 0
                || maxCmRetries > 15
                || ackTimeout < 0
                || ackTimeout > 31
                || minRnrTimer < 0
                || minRnrTimer > 31
                || timewaitNanos < 0
                || mraServiceTimeout < 0
                || mraServiceTimeout > 31) {
            throw new IllegalArgumentException("CM timing out of range: " + cmResponseTimeout + "/" + maxCmRetries + "/"
                    + ackTimeout + "/" + minRnrTimer + "/" + mraServiceTimeout);
        }
    }

    /**
     * Response timeout 16 (268 ms) with 15 retries: an unreachable peer is reported after 4.3 s
     * (librdmacm's kernel defaults, 20 and 15, take 68 s); timewait 10 ms; ACK timeout 14 (67 ms);
     * RNR timer 0 as librdmacm; MRA service timeout 24 (68.7 s), the value the kernel's IB CM puts
     * in the MRA with which rdma_cm answers a resent request its application has not accepted.
     */
    public static CmConfig defaults() {
        return new CmConfig(16, 15, 10_000_000L, 14, 0, 24);
    }

    /** Nanoseconds of one CM response timeout. */
    public long responseTimeoutNanos() {
        return 4096L << cmResponseTimeout;
    }

    /** Nanoseconds of the service timeout this CM's MRAs announce. */
    public long mraServiceTimeoutNanos() {
        return 4096L << mraServiceTimeout;
    }

    public CmConfig withResponseTimeout(int exponent, int retries) {
        return new CmConfig(exponent, retries, timewaitNanos, ackTimeout, minRnrTimer, mraServiceTimeout);
    }

    public CmConfig withTimewaitNanos(long nanos) {
        return new CmConfig(cmResponseTimeout, maxCmRetries, nanos, ackTimeout, minRnrTimer, mraServiceTimeout);
    }

    public CmConfig withAckTimeout(int exponent) {
        return new CmConfig(cmResponseTimeout, maxCmRetries, timewaitNanos, exponent, minRnrTimer, mraServiceTimeout);
    }

    public CmConfig withMinRnrTimer(int code) {
        return new CmConfig(cmResponseTimeout, maxCmRetries, timewaitNanos, ackTimeout, code, mraServiceTimeout);
    }

    public CmConfig withMraServiceTimeout(int exponent) {
        return new CmConfig(cmResponseTimeout, maxCmRetries, timewaitNanos, ackTimeout, minRnrTimer, exponent);
    }
}
