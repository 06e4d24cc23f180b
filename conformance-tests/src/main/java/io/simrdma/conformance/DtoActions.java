package io.simrdma.conformance;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import io.simrdma.dat.SrqParams;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Actions that move data or post buffers: sends, receives, RDMA Reads and Writes, RMR binds, and the
 * Shared Receive Queue.
 */
final class DtoActions {

    private DtoActions() {}

    static String flagsJava(Set<CompletionFlag> f) {
        return Java.flags(CompletionFlag.class, f);
    }

    /** The consumer writes pattern {@code seed} into the memory of the valid segments (the data a post sends). */
    static void fillSegments(Run r, List<Tri> segs, int seed) {
        int k = 0;
        for (Tri t : segs) {
            k++;
            if (t.raw() != null || t.len() == 0) {
                continue;
            }
            M.Lmr l = r.model.get(t.lmr());
            if (l == null || t.off() < 0 || t.off() + t.len() > l.len) {
                continue;
            }
            r.fill(l.mem, (int) (l.memOff + t.off()), (int) t.len(), seed * 16 + k);
        }
    }

    static void need(Run r, List<Tri> segs) {
        for (String s : Tri.refs(segs)) {
            r.model.need(s);
        }
    }

    /**
     * Shorter segments, fewer segments, no flags: the simpler posts of a shrink. One segment becomes none first (a 0
     * size message, which dat_ep_post_send(3DAT) and dat_ep_post_recv(3DAT) allow: num_segments "can be 0"), so the
     * LMR it named may go.
     */
    static List<List<Tri>> simplerSegs(List<Tri> segs) {
        List<List<Tri>> l = new ArrayList<>();
        if (segs.size() == 1) {
            l.add(List.of());
        }
        if (segs.size() > 1) {
            l.add(segs.subList(0, segs.size() - 1));
            l.add(List.of(segs.get(0)));
        }
        List<Tri> half = new ArrayList<>();
        boolean changed = false;
        for (Tri t : segs) {
            if (t.len() > 1 && t.raw() == null) {
                half.add(new Tri(t.lmr(), t.off(), t.len() / 2, null));
                changed = true;
            } else {
                half.add(t);
            }
        }
        if (changed) {
            l.add(half);
        }
        List<Tri> start = atStart(segs);
        if (start != null) {
            l.add(start);
        }
        return l;
    }

    /** {@code segs} each at offset 0 of its LMR (so that a shorter LMR can stand for it), or null if they are. */
    static List<Tri> atStart(List<Tri> segs) {
        List<Tri> out = new ArrayList<>(segs.size());
        boolean changed = false;
        for (Tri t : segs) {
            if (t.off() > 0 && t.raw() == null) {
                out.add(new Tri(t.lmr(), 0, t.len(), null));
                changed = true;
            } else {
                out.add(t);
            }
        }
        return changed ? out : null;
    }

    record PostSend(String ep, List<Tri> segs, long cookie, Set<CompletionFlag> flags, int seed) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            need(r, segs);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            fillSegments(r, segs, seed);
            List<LmrTriplet> trips = Tri.triplets(r.model, segs);
            r.call(
                    Rules.postSend(r.model, m, segs, cookie, flags),
                    null,
                    ep + ".postSend(" + Tri.java(segs) + ", " + cookie + "L, " + flagsJava(flags) + ")",
                    () -> {
                        h.postSend(trips, cookie, flags);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_ep_post_send";
        }

        @Override
        public List<Action> simpler() {
            List<Action> l = new ArrayList<>();
            for (List<Tri> s : simplerSegs(segs)) {
                l.add(new PostSend(ep, s, cookie, flags, seed));
            }
            if (!flags.isEmpty()) {
                l.add(new PostSend(ep, segs, cookie, EnumSet.noneOf(CompletionFlag.class), seed));
            }
            return l;
        }
    }

    record PostRecv(String ep, List<Tri> segs, long cookie, Set<CompletionFlag> flags) implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            need(r, segs);
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            List<LmrTriplet> trips = Tri.triplets(r.model, segs);
            r.call(
                    Rules.postRecv(r.model, m, segs, cookie, flags),
                    null,
                    ep + ".postRecv(" + Tri.java(segs) + ", " + cookie + "L, " + flagsJava(flags) + ")",
                    () -> {
                        h.postRecv(trips, cookie, flags);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_ep_post_recv";
        }

        @Override
        public List<Action> simpler() {
            List<Action> l = new ArrayList<>();
            for (List<Tri> s : simplerSegs(segs)) {
                l.add(new PostRecv(ep, s, cookie, flags));
            }
            if (!flags.isEmpty()) {
                l.add(new PostRecv(ep, segs, cookie, EnumSet.noneOf(CompletionFlag.class)));
            }
            return l;
        }
    }

    /** The rmr_context and address of a remote buffer, as the action names it. */
    static int remoteContext(Run r, M.Remote rem) {
        if (rem.raw() != null) {
            return rem.raw();
        }
        M.Obj o = r.model.need(rem.sym());
        if (o instanceof M.Lmr l) {
            return l.rmrContext == null ? l.lmrContext : l.rmrContext;
        }
        M.Rmr rmr = (M.Rmr) o;
        M.Binding b =
                rmr.pendingBind != null && rmr.pendingBind.binding != null ? rmr.pendingBind.binding : rmr.binding;
        return b == null ? 0 : b.context();
    }

    static long remoteAddress(Run r, M.Remote rem) {
        if (rem.raw() != null) {
            return rem.off();
        }
        M.Obj o = r.model.need(rem.sym());
        if (o instanceof M.Lmr l) {
            return l.regAddr + rem.off();
        }
        M.Rmr rmr = (M.Rmr) o;
        M.Binding b =
                rmr.pendingBind != null && rmr.pendingBind.binding != null ? rmr.pendingBind.binding : rmr.binding;
        return b == null ? rem.off() : b.lmr().regAddr + b.off() + rem.off();
    }

    /** An RDMA Read ({@code read}) or Write of the local segments from/to the remote buffer {@code remote}. */
    record PostRdma(
            String ep, List<Tri> segs, long cookie, M.Remote remote, Set<CompletionFlag> flags, boolean read, int seed)
            implements Action {
        @Override
        public void run(Run r) {
            M.Ep m = r.model.need(ep);
            need(r, segs);
            if (remote.sym() != null) {
                r.model.need(remote.sym());
            }
            if (m.undefined) {
                throw Skip.INSTANCE;
            }
            Endpoint h = r.live(ep);
            if (!read) {
                fillSegments(r, segs, seed);
            }
            int ctx = remoteContext(r, remote);
            long addr = remoteAddress(r, remote);
            RmrTriplet rt = new RmrTriplet(ctx, addr, remote.len());
            List<LmrTriplet> trips = Tri.triplets(r.model, segs);
            String rj = "new RmrTriplet(" + ctx + ", " + addr + "L, " + remote.len() + ")";
            r.call(
                    Rules.postRdma(r.model, m, segs, cookie, ctx, remote.off(), remote.len(), flags, read),
                    null,
                    ep
                            + (read ? ".postRdmaRead(" : ".postRdmaWrite(") + Tri.java(segs) + ", " + cookie + "L, "
                            + rj + ", "
                            + flagsJava(flags) + ")",
                    () -> {
                        if (read) {
                            h.postRdmaRead(trips, cookie, rt, flags);
                        } else {
                            h.postRdmaWrite(trips, cookie, rt, flags);
                        }
                        return null;
                    });
        }

        @Override
        public String page() {
            return read ? "dat_ep_post_rdma_read" : "dat_ep_post_rdma_write";
        }

        @Override
        public List<Action> simpler() {
            List<Action> l = new ArrayList<>();
            if (!segs.isEmpty() || remote.sym() != null) {
                // a zero-length RDMA (num_segments 0, a remote buffer of length 0) names no LMR, so the LMRs it
                // named may go
                l.add(new PostRdma(ep, List.of(), cookie, new M.Remote(null, 0, 0, 0), flags, read, seed));
            }
            if (segs.size() == 1 && segs.get(0).len() > 1 && segs.get(0).raw() == null && remote.len() > 1) {
                Tri t = segs.get(0);
                l.add(new PostRdma(
                        ep,
                        List.of(new Tri(t.lmr(), t.off(), t.len() / 2, null)),
                        cookie,
                        new M.Remote(remote.sym(), remote.raw(), remote.off(), remote.len() / 2),
                        flags,
                        read,
                        seed));
            }
            List<Tri> start = atStart(segs);
            if (start != null || (remote.off() > 0 && remote.raw() == null)) {
                l.add(new PostRdma(
                        ep,
                        start == null ? segs : start,
                        cookie,
                        remote.raw() == null ? new M.Remote(remote.sym(), null, 0, remote.len()) : remote,
                        flags,
                        read,
                        seed));
            }
            return l;
        }
    }

    record RmrBind(String rmr, Tri tri, Set<MemoryPrivilege> privs, String ep, long cookie, Set<CompletionFlag> flags)
            implements Action {
        @Override
        public void run(Run r) {
            M.Rmr m = r.model.need(rmr);
            M.Ep me = ep == null ? null : r.model.need(ep);
            if (tri.lmr() != null && tri.raw() == null) {
                r.model.need(tri.lmr());
            }
            if (me != null && me.undefined) {
                throw Skip.INSTANCE;
            }
            RemoteMemoryRegion h = r.live(rmr);
            Endpoint he = ep == null ? null : r.live(ep);
            LmrTriplet t = tri.len() == 0 ? LmrTriplet.EMPTY : tri.triplet(r.model);
            Object v = r.call(
                    Rules.rmrBind(r.model, m, tri, privs, me, cookie, flags),
                    "int rctx" + r.index,
                    rmr
                            + ".bind(" + (tri.len() == 0 ? "LmrTriplet.EMPTY" : tri.java()) + ", "
                            + IaActions.privsJava(privs) + ", "
                            + ep + ", " + cookie + "L, " + flagsJava(flags) + ")",
                    () -> h.bind(t, privs, he, cookie, flags));
            if (v instanceof Integer ctx && m.pendingBind != null && m.pendingBind.binding != null) {
                r.transcript.add("// rmr_context of " + rmr + " is now " + ctx);
            }
        }

        @Override
        public String page() {
            return "dat_rmr_bind";
        }
    }

    // ------------------------------------------------------------------ SRQ

    record SrqCreate(String ia, String sym, String pz, int max, int iov, int lw) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            M.Pz mpz = pz == null ? null : r.model.need(pz);
            InterfaceAdapter h = r.live(ia);
            ProtectionZone hpz = pz == null ? null : r.live(pz);
            Object v = r.call(
                    Rules.srqCreate(r.model, m, mpz, max, iov, lw),
                    "SharedReceiveQueue " + sym,
                    ia + ".createSrq(" + pz + ", new SrqAttributes(" + max + ", " + iov + ", " + lw + "))",
                    () -> h.createSrq(hpz, new SrqAttributes(max, iov, lw)));
            if (v instanceof SharedReceiveQueue srq) {
                M.Srq s = r.model.add(new M.Srq(sym, m, mpz));
                r.bind(sym, srq);
                SrqParams q = srq.query();
                r.transcript.add("// " + sym + ".query(): " + q);
                r.check(
                        Check.ok(
                                        "dat_srq_create",
                                        "the SRQ holds at least max_recv_dtos buffers of at least max_recv_iov "
                                                + "segments; it starts empty")
                                .rows("5#1"),
                        q.maxRecvDtos() >= max
                                && q.maxRecvIov() >= iov
                                && (q.availableDtoCount() == 0
                                        || q.availableDtoCount() == io.simrdma.dat.Dat.VALUE_UNKNOWN),
                        ">= " + max + "/" + iov + ", empty",
                        q::toString);
                s.maxRecvDtos = q.maxRecvDtos();
                s.maxRecvIov = q.maxRecvIov();
                s.lw = q.lowWatermark();
                s.armed = lw > 0;
                Rules.watermark(r.model, s);
            }
        }

        @Override
        public String page() {
            return "dat_srq_create";
        }
    }

    record SrqPostRecv(String srq, List<Tri> segs, long cookie) implements Action {
        @Override
        public void run(Run r) {
            M.Srq m = r.model.need(srq);
            need(r, segs);
            SharedReceiveQueue h = r.live(srq);
            List<LmrTriplet> trips = Tri.triplets(r.model, segs);
            r.call(
                    Rules.srqPostRecv(r.model, m, segs, cookie),
                    null,
                    srq + ".postRecv(" + Tri.java(segs) + ", " + cookie + "L)",
                    () -> {
                        h.postRecv(trips, cookie);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_srq_post_recv";
        }
    }

    record SrqResize(String srq, int n) implements Action {
        @Override
        public void run(Run r) {
            M.Srq m = r.model.need(srq);
            SharedReceiveQueue h = r.live(srq);
            r.call(Rules.srqResize(r.model, m, n), null, srq + ".resize(" + n + ")", () -> {
                h.resize(n);
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_srq_resize";
        }
    }

    record SrqSetLw(String srq, int lw) implements Action {
        @Override
        public void run(Run r) {
            M.Srq m = r.model.need(srq);
            SharedReceiveQueue h = r.live(srq);
            r.call(Rules.srqSetLw(r.model, m, lw), null, srq + ".setLowWatermark(" + lw + ")", () -> {
                h.setLowWatermark(lw);
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_srq_set_lw";
        }
    }

    record SrqQuery(String srq) implements Action {
        @Override
        public void run(Run r) {
            M.Srq m = r.model.need(srq);
            SharedReceiveQueue h = r.live(srq);
            Object v = r.call(Rules.srqQuery(m), null, srq + ".query()", h::query);
            if (v instanceof SrqParams q) {
                Check c = Check.ok(
                                "dat_srq_query",
                                "available_dto_count counts the buffers on the SRQ, "
                                        + "outstanding_dto_count the entries not free for new posts (or DAT_VALUE_UNKNOWN)")
                        .rows("5#14");
                int posted = m.posted.size();
                int availMin = posted - m.incoming;
                int unknown = io.simrdma.dat.Dat.VALUE_UNKNOWN;
                boolean availOk = q.availableDtoCount() == unknown
                        || q.availableDtoCount() >= availMin && q.availableDtoCount() <= posted;
                boolean outOk = q.outstandingDtoCount() == unknown || q.outstandingDtoCount() == posted;
                r.check(
                        c,
                        availOk && outOk && q.pz() == r.live(m.pz.sym) && q.lowWatermark() == m.lw,
                        "available " + availMin + ".." + posted + ", outstanding " + posted + ", low watermark " + m.lw,
                        q::toString);
                if (m.maxRecvDtos < 0) {
                    m.maxRecvDtos = q.maxRecvDtos();
                }
                r.check(
                        Check.ok("dat_srq_query", "max_recv_dtos is at least what was asked"),
                        q.maxRecvDtos() >= m.maxRecvDtos,
                        ">= " + m.maxRecvDtos,
                        () -> Integer.toString(q.maxRecvDtos()));
            }
        }

        @Override
        public String page() {
            return "dat_srq_query";
        }
    }

    record SrqFree(String srq) implements Action {
        @Override
        public void run(Run r) {
            M.Srq m = r.model.need(srq);
            SharedReceiveQueue h = r.live(srq);
            r.call(Rules.srqFree(r.model, m), null, srq + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_srq_free";
        }
    }
}
