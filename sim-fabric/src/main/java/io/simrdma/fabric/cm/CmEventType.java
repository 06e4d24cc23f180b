package io.simrdma.fabric.cm;

/**
 * Communication events (enum rdma_cm_event_type) the connection manager reports, with rdma_event_str(3) text.
 *
 * <p>Thread safety: immutable.
 */
public enum CmEventType {
    ADDR_RESOLVED,
    ADDR_ERROR,
    ROUTE_RESOLVED,
    ROUTE_ERROR,
    CONNECT_REQUEST,
    CONNECT_RESPONSE,
    CONNECT_ERROR,
    UNREACHABLE,
    REJECTED,
    ESTABLISHED,
    DISCONNECTED,
    DEVICE_REMOVAL,
    TIMEWAIT_EXIT;

    /** What rdma_event_str(3) returns, e.g. "RDMA_CM_EVENT_ESTABLISHED". */
    public String text() {
        return "RDMA_CM_EVENT_" + name();
    }
}
