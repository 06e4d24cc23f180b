package io.simrdma.fabric;

/**
 * A work completion (struct ibv_wc), filled by {@link CompletionQueue#poll}. Reusable: allocate an
 * array once ({@link #array(int)}) and poll into it. When {@link #status()} is not SUCCESS only
 * wrId, status, qpNum and vendorErr are meaningful (ibv_poll_cq(3)).
 *
 * <p>Thread safety: not thread-safe.
 */
public final class WorkCompletion {

    /**
     * {@link #vendorErr()} of a receive flushed (WR_FLUSH_ERR) after part of its message had
     * already been placed in its buffers.
     */
    public static final int VENDOR_ERR_PARTIAL_MESSAGE = 1;

    long wrId;
    WcStatus status = WcStatus.SUCCESS;
    WcOpcode opcode = WcOpcode.SEND;
    int vendorErr;
    int byteLen;
    int immOrInvRkey;
    int qpNum;
    int srcQp;
    int wcFlags;

    /** An array of {@code n} completions to poll into. */
    public static WorkCompletion[] array(int n) {
        WorkCompletion[] a = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            a[i] = new WorkCompletion();
        }
        return a;
    }

    public long wrId() {
        return wrId;
    }

    public WcStatus status() {
        return status;
    }

    public WcOpcode opcode() {
        return opcode;
    }

    /** A simrdma-specific refinement of an error status (0 when none). */
    public int vendorErr() {
        return vendorErr;
    }

    /** Bytes transferred (unsigned). */
    public int byteLen() {
        return byteLen;
    }

    /** Immediate data; valid when {@link #hasFlag(WcFlag) WITH_IMM} is set. */
    public int immData() {
        return immOrInvRkey;
    }

    /** The local R_Key a SEND_WITH_INV invalidated; valid when {@link WcFlag#WITH_INV} is set. */
    public int invalidatedRkey() {
        return immOrInvRkey;
    }

    /** Local QP number. */
    public int qpNum() {
        return qpNum;
    }

    /** Remote QP number (for RC and UC, the connected QP; for UD, the sender's, from the DETH). */
    public int srcQp() {
        return srcQp;
    }

    /**
     * Source LID (ibv_wc slid): 0, as on every RoCE port, which has no LIDs; a UD receiver learns
     * the sender's address from the GRH in its buffer ({@link WcFlag#GRH}).
     */
    public int slid() {
        return 0;
    }

    /**
     * P_Key index of a UD receive (ibv_wc pkey_index): 0, the one entry of a simrdma port's P_Key
     * table (every packet carries the default P_Key 0xFFFF).
     */
    public int pkeyIndex() {
        return 0;
    }

    public int wcFlags() {
        return wcFlags;
    }

    public boolean hasFlag(WcFlag f) {
        return (wcFlags & f.bit()) != 0;
    }

    /** Copies another completion. */
    /**
     * Sets every field: how a completion queue writes a completion into the application's object
     * (a poll fills the caller's array, as ibv_poll_cq(3) fills struct ibv_wc).
     */
    public WorkCompletion set(
            long wrId,
            WcStatus status,
            WcOpcode opcode,
            int byteLen,
            int immOrInvRkey,
            int qpNum,
            int srcQp,
            int wcFlags,
            int vendorErr) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLen = byteLen;
        this.immOrInvRkey = immOrInvRkey;
        this.qpNum = qpNum;
        this.srcQp = srcQp;
        this.wcFlags = wcFlags;
        this.vendorErr = vendorErr;
        return this;
    }

    public WorkCompletion copyFrom(WorkCompletion o) {
        wrId = o.wrId;
        status = o.status;
        opcode = o.opcode;
        vendorErr = o.vendorErr;
        byteLen = o.byteLen;
        immOrInvRkey = o.immOrInvRkey;
        qpNum = o.qpNum;
        srcQp = o.srcQp;
        wcFlags = o.wcFlags;
        return this;
    }

    @Override
    public String toString() {
        StringBuilder sb =
                new StringBuilder("WC[wrId=").append(wrId).append(", ").append(status);
        if (status == WcStatus.SUCCESS) {
            sb.append(", ").append(opcode).append(", len=").append(Integer.toUnsignedString(byteLen));
            if (hasFlag(WcFlag.WITH_IMM)) {
                sb.append(", imm=0x").append(Integer.toHexString(immOrInvRkey));
            }
            if (hasFlag(WcFlag.WITH_INV)) {
                sb.append(", inv=0x").append(Integer.toHexString(immOrInvRkey));
            }
        }
        return sb.append(", qp=").append(qpNum).append(']').toString();
    }
}
