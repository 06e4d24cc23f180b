package io.simrdma.conformance;

import io.simrdma.dat.LmrTriplet;
import java.util.ArrayList;
import java.util.List;

/**
 * A segment of a local I/O vector as an action names it: {@code len} bytes at offset {@code off} of
 * the LMR {@code lmr} (offsets count from its registered address; a negative one lies before it), or,
 * when {@code raw} is set, that number as the lmr_context (a context no LMR has, or a stale one).
 *
 * <p>Thread safety: immutable.
 */
record Tri(String lmr, long off, long len, Integer raw) {

    static Tri of(String lmr, long off, long len) {
        return new Tri(lmr, off, len, null);
    }

    /** The lmr_context the triplet carries. */
    int context(Model m) {
        if (raw != null) {
            return raw;
        }
        M.Lmr l = m.need(lmr);
        return l.lmrContext;
    }

    /** The virtual address the triplet carries. */
    long address(Model m) {
        if (raw != null || lmr == null) {
            return off;
        }
        M.Lmr l = m.need(lmr);
        return l.regAddr + off;
    }

    LmrTriplet triplet(Model m) {
        return new LmrTriplet(context(m), address(m), len);
    }

    static List<LmrTriplet> triplets(Model m, List<Tri> segs) {
        List<LmrTriplet> l = new ArrayList<>(segs.size());
        for (Tri t : segs) {
            l.add(t.triplet(m));
        }
        return l;
    }

    static long total(List<Tri> segs) {
        long n = 0;
        for (Tri t : segs) {
            n += t.len;
        }
        return n;
    }

    /** The triplet as Java source. */
    String java() {
        if (raw != null) {
            return "new LmrTriplet(" + raw + ", " + off + "L, " + len + ")";
        }
        return "new LmrTriplet(" + lmr + ".lmrContext(), " + lmr + ".registeredAddress() + " + off + ", " + len + ")";
    }

    static String java(List<Tri> segs) {
        List<String> l = new ArrayList<>();
        for (Tri t : segs) {
            l.add(t.java());
        }
        return "List.of(" + String.join(", ", l) + ")";
    }

    /** Symbols the segments refer to. */
    static List<String> refs(List<Tri> segs) {
        List<String> l = new ArrayList<>();
        for (Tri t : segs) {
            if (t.raw == null && t.lmr != null) {
                l.add(t.lmr);
            }
        }
        return l;
    }

    @Override
    public String toString() {
        return (raw != null ? "ctx" + raw : lmr) + "[" + off + "+" + len + "]";
    }
}
