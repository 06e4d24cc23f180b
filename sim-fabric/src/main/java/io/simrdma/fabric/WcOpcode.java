package io.simrdma.fabric;

/**
 * Completion opcodes (enum ibv_wc_opcode).
 *
 * <p>Thread safety: immutable.
 */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    RECV(128),
    RECV_RDMA_WITH_IMM(129);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** The ibv_wc_opcode value. */
    public int value() {
        return value;
    }

    /** A completion of the receive queue. */
    public boolean isReceive() {
        return value >= 128;
    }
}
