package io.simrdma.fabric;

/** Logical port states (enum ibv_port_state). */
public enum PortState {
    DOWN, INIT, ARMED, ACTIVE
}
