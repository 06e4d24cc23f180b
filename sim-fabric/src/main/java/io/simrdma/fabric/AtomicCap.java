package io.simrdma.fabric;

/**
 * How atomic operations behave on a device (enum ibv_atomic_cap, ibv_query_device(3) atomic_cap).
 *
 * <p>Thread safety: immutable.
 */
public enum AtomicCap {
    /** No atomic operations: posting one fails. */
    NONE,
    /** Atomic with respect to the operations of this HCA. */
    HCA,
    /** Atomic with respect to every agent in the system, CPUs included. */
    GLOB
}
