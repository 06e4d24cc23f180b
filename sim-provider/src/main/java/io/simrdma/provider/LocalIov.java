package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendWr;
import java.util.List;
import java.util.RandomAccess;

/**
 * The checks of a local I/O vector ({@code local_iov}, a list of {@link LmrTriplet}) that every
 * post makes (dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT), dat_ep_post_rdma_read(3DAT),
 * dat_ep_post_rdma_write(3DAT), dat_srq_post_recv(3DAT)): each segment names a live LMR of the IA,
 * in the poster's PZ, with the local privilege the transfer needs, and lies inside it. The
 * segments that pass become the scatter/gather list of the caller's verbs work request.
 *
 * <p>Callers: {@link EpPosting} and {@link SimSrq}, on the posting thread. Stateless and
 * thread-safe; it allocates nothing (a list that is not {@link RandomAccess} is walked with its
 * iterator).
 */
final class LocalIov {

    private LocalIov() {}

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
     * Checks an I/O vector the transfer reads (a Send, an RDMA Write) against the LMRs of {@code ia}
     * and appends each non-empty segment to {@code wr} as an SGE.
     *
     * @return the total length
     * @throws DatException as {@link #check}
     */
    static long addSegments(SimIa ia, SimPz pz, List<LmrTriplet> iov, SendWr wr) {
        long total = 0;
        if (iov instanceof RandomAccess) {
            for (int i = 0, n = iov.size(); i < n; i++) {
                total += add(ia, pz, iov.get(i), false, wr, Long.MAX_VALUE);
            }
        } else {
            for (LmrTriplet t : iov) {
                total += add(ia, pz, t, false, wr, Long.MAX_VALUE);
            }
        }
        return total;
    }

    /**
     * Checks the I/O vector of an RDMA Read, which writes local memory, and appends SGEs for the
     * first {@code limit} bytes (the remote buffer's length) to {@code wr}.
     *
     * @return the total length of the vector (all of it, not only the part used)
     * @throws DatException as {@link #check}
     */
    static long addReadSegments(SimIa ia, SimPz pz, List<LmrTriplet> iov, SendWr wr, long limit) {
        long total = 0;
        if (iov instanceof RandomAccess) {
            for (int i = 0, n = iov.size(); i < n; i++) {
                total += add(ia, pz, iov.get(i), true, wr, limit - total);
            }
        } else {
            for (LmrTriplet t : iov) {
                total += add(ia, pz, t, true, wr, limit - total);
            }
        }
        return total;
    }

    private static long add(SimIa ia, SimPz pz, LmrTriplet t, boolean write, SendWr wr, long room) {
        if (!check(ia, pz, t, write)) {
            return 0;
        }
        int n = (int) Math.min(t.segmentLength(), Math.max(0, room));
        if (n > 0) {
            wr.sge(t.virtualAddress(), n, t.lmrContext());
        }
        return t.segmentLength();
    }

    /**
     * Checks the I/O vector of a receive, which writes local memory, and appends each non-empty
     * segment to {@code wr}.
     *
     * @return the total length
     * @throws DatException as {@link #check}
     */
    static long addSegments(SimIa ia, SimPz pz, List<LmrTriplet> iov, RecvWr wr) {
        long total = 0;
        if (iov instanceof RandomAccess) {
            for (int i = 0, n = iov.size(); i < n; i++) {
                total += add(ia, pz, iov.get(i), wr);
            }
        } else {
            for (LmrTriplet t : iov) {
                total += add(ia, pz, t, wr);
            }
        }
        return total;
    }

    private static long add(SimIa ia, SimPz pz, LmrTriplet t, RecvWr wr) {
        if (!check(ia, pz, t, true)) {
            return 0;
        }
        wr.sge(t.virtualAddress(), (int) t.segmentLength(), t.lmrContext());
        return t.segmentLength();
    }

    /**
     * Checks one segment: an unknown LMR or one without the local privilege is a privileges
     * violation, an LMR of another PZ a protection violation, a segment outside its LMR an invalid
     * parameter. {@code write} is true when the transfer writes local memory (a receive, an RDMA Read).
     *
     * @return false for an empty segment (nothing to check or add)
     */
    private static boolean check(SimIa ia, SimPz pz, LmrTriplet t, boolean write) {
        if (t == null) {
            throw DatException.invalidParameter("null segment in local_iov");
        }
        if (t.segmentLength() == 0) {
            return false;
        }
        SimLmr l = ia.lmr(t.lmrContext());
        if (l == null) {
            throw new DatException(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    write ? DatReturnSubtype.PRIVILEGES_WRITE : DatReturnSubtype.PRIVILEGES_READ,
                    "lmr_context 0x" + Integer.toHexString(t.lmrContext()) + " names no LMR of this IA");
        }
        if (l.pz != pz) {
            throw new DatException(
                    DatReturnType.PROTECTION_VIOLATION,
                    write ? DatReturnSubtype.PROTECTION_WRITE : DatReturnSubtype.PROTECTION_READ,
                    "the LMR's PZ is not the endpoint's");
        }
        // C9 CONFLICT: a receive writes local memory, so it needs local write, as RDMA Read does.
        if (write ? !l.has(MemoryPrivilege.LOCAL_WRITE) : !l.has(MemoryPrivilege.LOCAL_READ)) {
            throw new DatException(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    write ? DatReturnSubtype.PRIVILEGES_WRITE : DatReturnSubtype.PRIVILEGES_READ,
                    "the LMR lacks local " + (write ? "write" : "read") + " privilege");
        }
        if (!l.covers(t.virtualAddress(), t.segmentLength()) || t.segmentLength() > Integer.MAX_VALUE) {
            throw DatException.invalidParameter("segment " + t + " lies outside its LMR");
        }
        return true;
    }
}
