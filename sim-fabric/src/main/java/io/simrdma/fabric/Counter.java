package io.simrdma.fabric;

/**
 * What devices and queue pairs count (readable at run time with {@link Counters#get}).
 * Every failure kind has a counter, so a test or an operator sees what went wrong without logs.
 *
 * <p>Thread safety: immutable.
 */
public enum Counter {
    PACKETS_SENT("packets transmitted, retransmissions included"),
    BYTES_SENT("payload bytes transmitted"),
    PACKETS_RECEIVED("packets received"),
    BYTES_RECEIVED("payload bytes received"),
    RETRANSMITTED_PACKETS("packets sent again after a timeout or a NAK"),
    RETRY_TIMEOUTS("local ACK timeouts"),
    RNR_RETRIES("retries after an RNR NAK"),
    NAK_SEQ_ERR_SENT("PSN sequence error NAKs sent"),
    NAK_SEQ_ERR_RECEIVED("PSN sequence error NAKs received"),
    RNR_NAK_SENT("RNR NAKs sent"),
    RNR_NAK_RECEIVED("RNR NAKs received"),
    NAK_INV_REQ_SENT("invalid request NAKs sent"),
    NAK_INV_REQ_RECEIVED("invalid request NAKs received"),
    NAK_REM_ACCESS_SENT("remote access error NAKs sent"),
    NAK_REM_ACCESS_RECEIVED("remote access error NAKs received"),
    NAK_REM_OP_SENT("remote operational error NAKs sent"),
    NAK_REM_OP_RECEIVED("remote operational error NAKs received"),
    ACKS_SENT("acknowledge packets sent"),
    ACKS_RECEIVED("acknowledge packets received"),
    DUPLICATE_REQUESTS("duplicate requests received (answered, not executed)"),
    DUPLICATE_RESPONSES("duplicate or stale responses received (ignored)"),
    OUT_OF_SEQUENCE("requests received ahead of the expected PSN (dropped)"),
    DROPPED_PACKETS("packets dropped: port down, QP not ready, unknown QP"),
    INVALID_PACKETS("packets rejected as malformed (bad ICRC, bad header, bad response)"),
    COMPLETIONS("work completions generated"),
    COMPLETION_ERRORS("work completions with an error status, flushes included");

    private final String description;

    Counter(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
