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
    /** A UD datagram or UC message found no receive WQE (UC and UD have no RNR). */
    NO_RECEIVE,
    /** A UD datagram's Q_Key differs from the receiving QP's (IBA 10.2.5). */
    BAD_QKEY,
    /** A UC packet of a message the receiver abandoned: one before it was lost, or it broke a check. */
    MESSAGE_ABANDONED,
    /** The receiving device or fabric was closed. */
    CLOSED
}
