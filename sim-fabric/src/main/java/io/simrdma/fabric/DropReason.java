package io.simrdma.fabric;

/**
 * Why a packet was dropped.
 *
 * <p>Thread safety: immutable.
 */
public enum DropReason {
    /** A fault rule dropped it. */
    FAULT,
    /** The link between the two devices was down. */
    LINK_DOWN,
    /** The sending or receiving port was not active. */
    PORT_DOWN,
    /** No device owns the destination GID. */
    NO_ROUTE,
    /** The destination QP number does not exist on the receiving device. */
    UNKNOWN_QP,
    /** The destination QP's state does not accept packets (RESET, INIT, ERR). */
    QP_STATE,
    /** The ICRC did not match: the packet was corrupted on the way. */
    BAD_ICRC,
    /** The packet's header or length is inconsistent. */
    MALFORMED,
    /** The receiving device or fabric was closed. */
    CLOSED
}
