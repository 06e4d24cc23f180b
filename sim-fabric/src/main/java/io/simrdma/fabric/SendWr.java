package io.simrdma.fabric;

import java.util.Set;

/**
 * A send work request (struct ibv_send_wr): reusable, so that posting allocates nothing.
 * Chain several with {@link #next(SendWr)} to post them in one call.
 *
 * <pre>{@code
 * SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).wrId(7)
 *         .sge(mr.address(), 4096, mr.lkey())
 *         .remote(remoteAddr, remoteRkey)
 *         .flag(SendFlag.SIGNALED);
 * qp.postSend(wr);
 * }</pre>
 *
 * <p><b>Signaling.</b> As with ibv_post_send(3), a work request produces a completion entry only
 * if it has {@link SendFlag#SIGNALED} or its queue pair was created with {@code sqSigAll}
 * ({@link QpInitAttr#sqSigAll}); otherwise it completes silently when it succeeds (an error always
 * produces a completion). An unsignaled WR still occupies its send queue slot until a later
 * signaled WR's completion retires it, so a loop of unsignaled posts must signal one WR every so
 * often, or the send queue fills (ENOMEM). Flags stay set on a reused object:
 * {@link #clearFlag(SendFlag)} removes one, {@link #flagBits(int) flagBits(0)} all.
 *
 * <p>The queue pair copies what it needs when the WR is posted; the object may be reused as soon as
 * {@code postSend} returns. The memory the SGEs name belongs to the application, which must not
 * change it until the completion arrives (unless {@link SendFlag#INLINE} was set).
 *
 * <p>Thread safety: not thread-safe.
 */
public final class SendWr {

    long wrId;
    WrOpcode opcode = WrOpcode.SEND;
    int flags;
    final SgeList sges = new SgeList();
    int immData;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    MemoryWindow mw;
    int bindRkey;
    MemoryRegion bindMr;
    long bindAddr;
    long bindLength;
    int bindAccess;
    AddressHandle ah;
    int remoteQpn;
    int remoteQkey;
    SendWr next;

    /** Resets every field to its initial value (SEND, no flags, no SGEs, no next). */
    public SendWr clear() {
        wrId = 0;
        opcode = WrOpcode.SEND;
        flags = 0;
        sges.clear();
        immData = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        mw = null;
        bindRkey = 0;
        bindMr = null;
        bindAddr = 0;
        bindLength = 0;
        bindAccess = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        next = null;
        return this;
    }

    public SendWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public SendWr opcode(WrOpcode opcode) {
        this.opcode = opcode;
        return this;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    /** Sets one flag. */
    public SendWr flag(SendFlag f) {
        flags |= f.bit();
        return this;
    }

    /** Clears one flag, leaving the others as they are. */
    public SendWr clearFlag(SendFlag f) {
        flags &= ~f.bit();
        return this;
    }

    /** Replaces the flags. */
    public SendWr flags(Set<SendFlag> set) {
        flags = 0;
        for (SendFlag f : set) {
            flags |= f.bit();
        }
        return this;
    }

    /** Replaces the flags with a bit set of {@link SendFlag#bit()} values (no allocation, for hot paths). */
    public SendWr flagBits(int bits) {
        flags = bits;
        return this;
    }

    /** The flags as a bit set of {@link SendFlag#bit()} values. */
    public int flagBits() {
        return flags;
    }

    public boolean hasFlag(SendFlag f) {
        return (flags & f.bit()) != 0;
    }

    /** Appends an SGE. */
    public SendWr sge(long addr, int length, int lkey) {
        sges.add().set(addr, length, lkey);
        return this;
    }

    /** Appends an SGE covering {@code length} bytes at {@code offset} into {@code mr}. */
    public SendWr sge(MemoryRegion mr, long offset, int length) {
        return sge(mr.address() + offset, length, mr.lkey());
    }

    /** Removes all SGEs. */
    public SendWr clearSges() {
        sges.clear();
        return this;
    }

    public int numSge() {
        return sges.count();
    }

    public Sge sgeAt(int i) {
        return sges.get(i);
    }

    /** Immediate data (SEND_WITH_IMM, RDMA_WRITE_WITH_IMM), in host order; sent big-endian. */
    public SendWr immData(int imm) {
        this.immData = imm;
        return this;
    }

    public int immData() {
        return immData;
    }

    /** The R_Key to invalidate: at the remote side for SEND_WITH_INV, locally for LOCAL_INV. */
    public SendWr invalidateRkey(int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    public int invalidateRkey() {
        return invalidateRkey;
    }

    /** Remote address and R_Key of an RDMA or atomic operation. */
    public SendWr remote(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    public long remoteAddr() {
        return remoteAddr;
    }

    public int rkey() {
        return rkey;
    }

    /** Operands of an atomic: compare and swap for CMP_AND_SWP; {@code compareAdd} is the addend of FETCH_AND_ADD. */
    public SendWr atomic(long compareAdd, long swap) {
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    public long compareAdd() {
        return compareAdd;
    }

    public long swap() {
        return swap;
    }

    /**
     * A type 2 memory window bind (opcode BIND_MW): window {@code mw} gets R_Key {@code newRkey}
     * (the window's key with a new low byte, see {@link MemoryWindow#incrementRkey(int)}) and covers
     * {@code length} bytes at {@code addr} of {@code mr} with {@code access}.
     */
    public SendWr bind(MemoryWindow mw, int newRkey, MemoryRegion mr, long addr, long length, Set<AccessFlag> access) {
        this.mw = mw;
        this.bindRkey = newRkey;
        this.bindMr = mr;
        this.bindAddr = addr;
        this.bindLength = length;
        this.bindAccess = AccessFlag.mask(access);
        return this;
    }

    /** The window of a BIND_MW, or null. */
    public MemoryWindow bindWindow() {
        return mw;
    }

    /** The R_Key a BIND_MW gives its window. */
    public int bindRkey() {
        return bindRkey;
    }

    /** The region a BIND_MW binds to, or null. */
    public MemoryRegion bindRegion() {
        return bindMr;
    }

    /** The first address a BIND_MW covers. */
    public long bindAddr() {
        return bindAddr;
    }

    /** The bytes a BIND_MW covers. */
    public long bindLength() {
        return bindLength;
    }

    /** The access a BIND_MW grants, as {@link AccessFlag#bit()} bits. */
    public int bindAccessBits() {
        return bindAccess;
    }

    /**
     * The destination of a send on a UD queue pair (ibv_post_send(3), wr.ud: ah, remote_qpn,
     * remote_qkey). If the most significant bit of {@code remoteQkey} is set, the Q_Key of the
     * sending QP is used instead (IBA 10.2.5, a controlled Q_Key).
     */
    public SendWr ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /** The address handle of a UD send, or null. */
    public AddressHandle ah() {
        return ah;
    }

    /** The destination QP number of a UD send. */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** The Q_Key of a UD send (high bit set: the sending QP's own). */
    public int remoteQkey() {
        return remoteQkey;
    }

    /** The message length: the sum of the SGE lengths, each taken as unsigned. */
    public long totalLength() {
        return sges.totalLength();
    }

    public SendWr next(SendWr next) {
        this.next = next;
        return this;
    }

    public SendWr next() {
        return next;
    }

    @Override
    public String toString() {
        return "SendWr[" + opcode + ", wrId=" + wrId + ", flags=0x" + Integer.toHexString(flags) + ", sges=" + sges
                + "]";
    }
}
