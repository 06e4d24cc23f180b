package io.simrdma.fabric;

/**
 * Memory window types (ibv_alloc_mw(3)).
 *
 * <p>Thread safety: immutable.
 */
public enum MwType {
    /** Bound by ibv_bind_mw, to the PD; invalidated by a zero-length bind or deallocation. */
    TYPE_1,
    /** Bound by a posted BIND_MW work request, to a QP; invalidated by LOCAL_INV or SEND_WITH_INV. */
    TYPE_2
}
