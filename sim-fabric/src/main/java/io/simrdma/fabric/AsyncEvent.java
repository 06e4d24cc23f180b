package io.simrdma.fabric;

/**
 * An asynchronous event (struct ibv_async_event), read with {@link Device#getAsyncEvent} and
 * acknowledged with {@link Device#ackAsyncEvent}. Exactly one element is set, as
 * {@link AsyncEventType#element()} says.
 *
 * <p>Thread safety: immutable (the objects it names are thread-safe).
 *
 * @param type      the event
 * @param qp        the QP, for QP events
 * @param cq        the CQ, for CQ events
 * @param srq       the SRQ, for SRQ events
 * @param portNum   the port, for port events (1)
 * @param timeNanos when it was raised, on the fabric's clock
 */
public record AsyncEvent(
        AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq, int portNum, long timeNanos) {

    @Override
    public String toString() {
        String what;
        switch (type.element()) {
            case QP:
                what = "qp " + qp.qpNum();
                break;
            case CQ:
                what = "cq " + cq;
                break;
            case SRQ:
                what = "srq " + srq;
                break;
            case PORT:
                what = "port " + portNum;
                break;
            default:
                what = "device";
        }
        return "AsyncEvent[" + type + " (" + type.text() + "), " + what + ", t=" + timeNanos + "ns]";
    }
}
