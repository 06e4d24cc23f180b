package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.MemoryPrivilege;

import java.util.List;

/**
 * The checks of a local I/O vector ({@code local_iov}, a list of {@link LmrTriplet}) that every
 * post makes (dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT), dat_ep_post_rdma_read(3DAT),
 * dat_ep_post_rdma_write(3DAT), dat_srq_post_recv(3DAT)): each segment names a live LMR of the IA,
 * in the poster's PZ, with the local privilege the transfer needs, and lies inside it. The
 * segments that pass go to a {@link SegmentSink}, which builds the verbs scatter/gather list.
 *
 * <p>Callers: {@link EpPosting} and {@link SimSrq}, on the posting thread. Stateless and
 * thread-safe; it allocates nothing (the sink is the caller's).
 */
final class LocalIov {

    /** A sink for checked I/O vector segments: the verbs SGE {@code (addr, len, lkey)}. */
    interface SegmentSink {
        void add(long addr, int len, int lkey);
    }

    private LocalIov() {
    }

    /**
     * Checks the number of segments (null is an invalid parameter).
     *
     * @throws DatException DAT_INVALID_PARAMETER if {@code iov} is null or has more than {@code max} segments
     */
    static void checkCount(List<LmrTriplet> iov, int max) {
        if (iov == null) {
            throw DatException.invalidParameter("local_iov is null");
        }
        if (iov.size() > max) {
            throw DatException.invalidParameter(iov.size() + " segments exceed the endpoint's limit of " + max);
        }
    }

    /**
     * Checks an I/O vector against the LMRs of {@code ia} and hands each non-empty segment to
     * {@code sink}: an unknown LMR or one without the local privilege is a privileges violation,
     * an LMR of another PZ a protection violation, a segment outside its LMR an invalid parameter.
     * {@code write} is true when the transfer writes local memory (a receive, an RDMA Read).
     *
     * @return the total length
     */
    static long addSegments(SimIa ia, SimPz pz, List<LmrTriplet> iov, boolean write, SegmentSink sink) {
        long total = 0;
        for (LmrTriplet t : iov) {
            if (t == null) {
                throw DatException.invalidParameter("null segment in local_iov");
            }
            if (t.segmentLength() == 0) {
                continue;
            }
            SimLmr l = ia.lmr(t.lmrContext());
            if (l == null) {
                throw new DatException(DatReturnType.PRIVILEGES_VIOLATION,
                        write ? DatReturnSubtype.PRIVILEGES_WRITE : DatReturnSubtype.PRIVILEGES_READ,
                        "lmr_context 0x" + Integer.toHexString(t.lmrContext()) + " names no LMR of this IA");
            }
            if (l.pz != pz) {
                throw new DatException(DatReturnType.PROTECTION_VIOLATION,
                        write ? DatReturnSubtype.PROTECTION_WRITE : DatReturnSubtype.PROTECTION_READ,
                        "the LMR's PZ is not the endpoint's");
            }
            // C9 CONFLICT: a receive writes local memory, so it needs local write, as RDMA Read does.
            if (write ? !l.has(MemoryPrivilege.LOCAL_WRITE) : !l.has(MemoryPrivilege.LOCAL_READ)) {
                throw new DatException(DatReturnType.PRIVILEGES_VIOLATION,
                        write ? DatReturnSubtype.PRIVILEGES_WRITE : DatReturnSubtype.PRIVILEGES_READ,
                        "the LMR lacks local " + (write ? "write" : "read") + " privilege");
            }
            if (!l.covers(t.virtualAddress(), t.segmentLength()) || t.segmentLength() > Integer.MAX_VALUE) {
                throw DatException.invalidParameter("segment " + t + " lies outside its LMR");
            }
            sink.add(t.virtualAddress(), (int) t.segmentLength(), t.lmrContext());
            total += t.segmentLength();
        }
        return total;
    }
}
