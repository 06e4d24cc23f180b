package io.simrdma.fabric;

/**
 * Send work request opcodes (enum ibv_wr_opcode) that RC queue pairs accept.
 *
 * <p>Thread safety: immutable.
 */
public enum WrOpcode {
    RDMA_WRITE(WcOpcode.RDMA_WRITE),
    RDMA_WRITE_WITH_IMM(WcOpcode.RDMA_WRITE),
    SEND(WcOpcode.SEND),
    SEND_WITH_IMM(WcOpcode.SEND),
    RDMA_READ(WcOpcode.RDMA_READ),
    ATOMIC_CMP_AND_SWP(WcOpcode.COMP_SWAP),
    ATOMIC_FETCH_AND_ADD(WcOpcode.FETCH_ADD),
    LOCAL_INV(WcOpcode.LOCAL_INV),
    BIND_MW(WcOpcode.BIND_MW),
    SEND_WITH_INV(WcOpcode.SEND);

    private final WcOpcode completionOpcode;

    WrOpcode(WcOpcode completionOpcode) {
        this.completionOpcode = completionOpcode;
    }

    /** The opcode a completion of this work request reports. */
    public WcOpcode completionOpcode() {
        return completionOpcode;
    }

    /** Executed by the local HCA without sending packets. */
    public boolean isLocal() {
        return this == LOCAL_INV || this == BIND_MW;
    }

    /** RDMA READ or an atomic: needs an initiator resource (max_rd_atomic). */
    public boolean isReadOrAtomic() {
        return this == RDMA_READ || isAtomic();
    }

    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** Carries data from the local gather list to the remote side. */
    public boolean sendsData() {
        return isSend() || isWrite();
    }

    public boolean isSend() {
        return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV;
    }

    public boolean isWrite() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM;
    }
}
