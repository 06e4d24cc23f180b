package io.simrdma.dat;

/**
 * A snapshot of an Endpoint, as {@link Endpoint#status()} (dat_ep_get_status) returns it.
 *
 * <p>Thread safety: immutable.
 *
 * @param state the EP's state
 * @param recvIdle no outstanding or in-progress receive
 * @param requestIdle no outstanding or in-progress Send, RDMA Read, RDMA Write or RMR bind
 */
public record EpStatus(EndpointState state, boolean recvIdle, boolean requestIdle) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code state} is null
     */
    public EpStatus {
        Checks.notNull(state, "state");
    }
}
