package io.simrdma.fabric;

/**
 * Queue pair transport service types simrdma implements (enum ibv_qp_type, IBA 9.8).
 *
 * <ul>
 *   <li>{@link #RC}: reliable connected. Acknowledged, retried, in order; every operation.</li>
 *   <li>{@link #UC}: unreliable connected. One peer QP, no acknowledgements: a lost packet loses
 *       its message silently (the receiver drops the rest of it; the sender has already completed).
 *       SEND and RDMA WRITE, with or without immediate data, and memory window binds; no READ, no
 *       atomics, no SRQ.</li>
 *   <li>{@link #UD}: unreliable datagram. No connection: each send names an
 *       {@link AddressHandle}, a remote QP number and a Q_Key; one message is one packet of at most
 *       the port's MTU; the receiver gets a 40-byte GRH before the data. SEND only; receives may
 *       come from an SRQ.</li>
 * </ul>
 * A device's profile says which types it creates ({@link DeviceProfile#qpTypes()}).
 *
 * <p>Thread safety: immutable.
 */
public enum QpType {
    /** Reliable Connected (IBV_QPT_RC). */
    RC,
    /** Unreliable Connected (IBV_QPT_UC). */
    UC,
    /** Unreliable Datagram (IBV_QPT_UD). */
    UD
}
