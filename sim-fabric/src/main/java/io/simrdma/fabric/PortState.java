package io.simrdma.fabric;

/**
 * Logical port states (enum ibv_port_state).
 *
 * <p>Thread safety: immutable.
 */
public enum PortState {
    DOWN,
    INIT,
    ARMED,
    ACTIVE
}
