package io.simrdma.fabric;

/**
 * Queue pair states (IBA 10.3.1, enum ibv_qp_state).
 *
 * <p>Thread safety: immutable.
 */
public enum QpState {
    RESET,
    INIT,
    RTR,
    RTS,
    SQD,
    SQE,
    ERR
}
