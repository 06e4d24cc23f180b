package io.simrdma.fabric.wire;

/**
 * The InfiniBand transport headers a simrdma packet can carry, in the order they follow each
 * other on the wire (IBA 9.2, "Transport headers"; the RoCEv2 annex keeps them unchanged after
 * the UDP header). {@link Opcode} says which ones each opcode carries; offsets are computed from
 * this order and these lengths, never typed by hand.
 *
 * <p>Thread safety: immutable.
 */
public enum HeaderType {
    /** Base Transport Header, 12 bytes: opcode, SE, M, PadCnt, TVer, P_Key, DestQP, AckReq, PSN. */
    BTH(12),
    /** Reliable Datagram Extended Transport Header, 4 bytes (RD only; never used by simrdma). */
    RDETH(4),
    /** Datagram Extended Transport Header, 8 bytes: Q_Key, SrcQP (UD, used for CM MADs on QP1). */
    DETH(8),
    /** RDMA Extended Transport Header, 16 bytes: VA, R_Key, DMA length. */
    RETH(16),
    /** Atomic Extended Transport Header, 28 bytes: VA, R_Key, swap (or add) data, compare data. */
    ATOMIC_ETH(28),
    /** ACK Extended Transport Header, 4 bytes: syndrome, MSN. */
    AETH(4),
    /** Atomic Acknowledge Extended Transport Header, 8 bytes: original remote data. */
    ATOMIC_ACK_ETH(8),
    /** Immediate data, 4 bytes. */
    IMM_DT(4),
    /** Invalidate Extended Transport Header, 4 bytes: the R_Key to invalidate. */
    IETH(4);

    private final int length;

    HeaderType(int length) {
        this.length = length;
    }

    /** Length of this header in bytes. */
    public int length() {
        return length;
    }

    /** This header's bit in an opcode's header mask. */
    int bit() {
        return 1 << ordinal();
    }
}
