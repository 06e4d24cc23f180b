package io.simrdma.fabric;

/**
 * A receive work request (struct ibv_recv_wr): the buffers an incoming SEND is scattered into.
 * Reusable; chain several with {@link #next(RecvWr)}. The queue copies it when posted.
 *
 * <p>Thread safety: not thread-safe.
 */
public final class RecvWr {

    long wrId;
    final SgeList sges = new SgeList();
    RecvWr next;

    public RecvWr clear() {
        wrId = 0;
        sges.clear();
        next = null;
        return this;
    }

    public RecvWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public RecvWr sge(long addr, int length, int lkey) {
        sges.add().set(addr, length, lkey);
        return this;
    }

    public RecvWr sge(MemoryRegion mr, long offset, int length) {
        return sge(mr.address() + offset, length, mr.lkey());
    }

    public RecvWr clearSges() {
        sges.clear();
        return this;
    }

    public int numSge() {
        return sges.count();
    }

    public Sge sgeAt(int i) {
        return sges.get(i);
    }

    /** The receive buffer's size: the sum of the SGE lengths, each taken as unsigned. */
    public long totalLength() {
        return sges.totalLength();
    }

    public RecvWr next(RecvWr next) {
        this.next = next;
        return this;
    }

    public RecvWr next() {
        return next;
    }

    @Override
    public String toString() {
        return "RecvWr[wrId=" + wrId + ", sges=" + sges + "]";
    }
}
