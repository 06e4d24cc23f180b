package io.simrdma.conformance;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * Generates the next action of a sequence from the model's state, seeded: mostly calls that move
 * the objects along (create, connect, accept, transfer, observe), mixed with every kind of invalid
 * argument the man pages name (freed handles, handles of another IA, out-of-range sizes and flags,
 * calls in the wrong state, private data at and over the limit, LMR triplets outside their region or
 * without the privilege, stale RMR contexts). The weights favour what unlocks deeper states: a
 * pending request gets accepted, a connected pair gets transfers, an EVD that will get an event gets
 * waited on.
 *
 * <p>Thread safety: not thread-safe; one per run.
 */
final class Generator {

    private final SplittableRandom rnd;
    private final int ias;
    private final boolean concurrency;
    private int n;
    private long cookie = 1000;
    private int seed = 1;

    Generator(long seed, int ias, boolean concurrency) {
        // seed * GOLDEN_GAMMA would start every seed on the same SplittableRandom stream, shifted by one draw
        // (SplittableRandom advances its state by that very gamma): the seeds' sequences were strongly
        // correlated and a narrow move (an IA closed with a null flag or abruptly) never came up in 1,000 seeds.
        // Mixing the seed first gives each seed a stream of its own.
        this.rnd = new SplittableRandom(new SplittableRandom(seed).nextLong());
        this.ias = ias;
        this.concurrency = concurrency;
    }

    /** The IAs a sequence opens first. */
    List<Action> prefix() {
        List<Action> l = new ArrayList<>();
        for (int k = 0; k < ias; k++) {
            l.add(new IaActions.IaOpen(k));
        }
        return l;
    }

    private String sym(String kind) {
        return kind + (++n);
    }

    private boolean chance(double p) {
        return rnd.nextDouble() < p;
    }

    private <T> T pick(List<T> l) {
        return l.isEmpty() ? null : l.get(rnd.nextInt(l.size()));
    }

    private record Move(double weight, Supplier<Action> make) {}

    /** The next action, given the model after the previous ones. */
    Action next(Model m) {
        List<Move> moves = new ArrayList<>();
        List<M.Ia> ia = m.live(M.Ia.class);
        if (ia.isEmpty()) {
            return new EvdActions.Settle(1);
        }
        List<M.Pz> pzs = m.live(M.Pz.class);
        List<M.Lmr> lmrs = m.live(M.Lmr.class);
        List<M.Evd> evds = m.live(M.Evd.class);
        evds.removeIf(e -> e.providerCreated || e.ia.clock == e);
        List<M.Ep> eps = m.live(M.Ep.class);
        eps.removeIf(e -> e.undefined || !e.providerCreated ? false : false);
        List<M.Ep> usable = new ArrayList<>(eps);
        usable.removeIf(e -> e.undefined);
        List<M.Obj> dead = new ArrayList<>();
        for (M.Obj o : m.objects.values()) {
            if (!o.live() && !(o instanceof M.Ep ep && ep.undefined) && !(o instanceof M.Ia)) {
                dead.add(o);
            }
        }
        dead.sort((a, b) -> a.sym.compareTo(b.sym));

        // ---- setup
        for (M.Ia a : ia) {
            int npz = count(pzs, a);
            moves.add(new Move(npz < 2 ? 3 : 0.2, () -> new IaActions.PzCreate(a.sym, sym("pz"))));
            if (npz > 0) {
                int nl = count(lmrs, a);
                moves.add(new Move(nl < 3 ? 3 : 0.3, () -> lmrCreate(m, a)));
            }
            int ne = count(evds, a);
            moves.add(new Move(ne < 3 ? 3 : 0.3, () -> evdCreate(m, a)));
            int nep = count(eps, a);
            moves.add(new Move(nep < 3 ? 3 : 0.3, () -> epCreate(m, a)));
            moves.add(new Move(0.8, () -> pspCreate(m, a)));
            moves.add(new Move(0.25, () -> new IaActions.CnoCreate(a.sym, sym("cno"), chance(0.3))));
            moves.add(new Move(0.4, () -> srqCreate(m, a)));
        }
        moves.add(new Move(0.5, () -> rspCreate(m)));
        moves.add(new Move(0.6, () -> {
            M.Pz pz = pick(pzs);
            return pz == null ? null : new IaActions.RmrCreate(pz.sym, sym("rmr"));
        }));

        // ---- connections
        moves.add(new Move(3, () -> connect(m)));
        for (M.Cr cr : m.live(M.Cr.class)) {
            moves.add(new Move(6, () -> accept(m, cr)));
            moves.add(new Move(1, () -> new EpActions.CrReject(cr.sym)));
            moves.add(new Move(1.5, () -> new EpActions.CrQuery(cr.sym)));
            moves.add(new Move(0.4, () -> new EpActions.CrHandoff(cr.sym, qual(m))));
            if (cr.providerEp != null && !cr.providerEp.undefined) {
                moves.add(new Move(3, () -> configureProviderEp(m, cr)));
            }
        }
        for (M.Ep ep : usable) {
            if (ep.state == EndpointState.CONNECTED || ep.state == EndpointState.DISCONNECT_PENDING) {
                moves.add(new Move(
                        0.5,
                        () -> new EpActions.EpDisconnect(ep.sym, chance(0.5) ? CloseFlag.GRACEFUL : CloseFlag.ABRUPT)));
            }
            if (ep.state == EndpointState.DISCONNECTED && ep.pending.isEmpty()) {
                moves.add(new Move(1, () -> new EpActions.EpReset(ep.sym)));
            }
        }
        moves.add(new Move(0.5, () -> {
            M.Ep ep = pick(usable);
            return ep == null
                    ? null
                    : new EpActions.EpDisconnect(
                            ep.sym, chance(0.05) ? null : chance(0.5) ? CloseFlag.GRACEFUL : CloseFlag.ABRUPT);
        }));
        moves.add(new Move(0.4, () -> {
            M.Ep ep = pick(usable);
            return ep == null ? null : new EpActions.EpReset(ep.sym);
        }));
        moves.add(new Move(0.3, () -> {
            M.Ep ep = pick(usable);
            return ep == null ? null : new EpActions.EpFree(ep.sym);
        }));
        moves.add(new Move(0.3, () -> dupConnect(m, usable)));

        // ---- transfers
        List<M.Ep> connected = new ArrayList<>();
        for (M.Ep ep : usable) {
            if (ep.state == EndpointState.CONNECTED && ep.peer != null && ep.attrs != null) {
                connected.add(ep);
            }
        }
        for (M.Ep ep : connected) {
            moves.add(new Move(2.5, () -> postRecv(m, ep)));
            moves.add(new Move(3, () -> postSend(m, ep)));
            moves.add(new Move(2, () -> postRdma(m, ep, chance(0.5))));
            moves.add(new Move(0.5, () -> rmrBind(m, ep)));
        }
        moves.add(new Move(0.8, () -> {
            M.Ep ep = pick(usable);
            return ep == null || ep.attrs == null ? null : chance(0.5) ? postRecv(m, ep) : postSend(m, ep);
        }));
        moves.add(new Move(0.4, () -> {
            M.Ep ep = pick(usable);
            return ep == null || ep.attrs == null ? null : postRdma(m, ep, chance(0.5));
        }));
        for (M.Srq srq : m.live(M.Srq.class)) {
            moves.add(new Move(1.5, () -> srqPost(m, srq)));
            moves.add(new Move(
                    0.3, () -> new DtoActions.SrqSetLw(srq.sym, rnd.nextInt(Math.max(1, srq.maxRecvDtos + 2)))));
            moves.add(new Move(0.2, () -> new DtoActions.SrqResize(srq.sym, rnd.nextInt(srq.maxRecvDtos + 4))));
            moves.add(new Move(0.3, () -> new DtoActions.SrqQuery(srq.sym)));
            moves.add(new Move(0.1, () -> new DtoActions.SrqFree(srq.sym)));
        }

        // ---- observations
        for (M.Evd e : evds) {
            boolean certain = m.eventCertain(e);
            if (certain) {
                moves.add(new Move(4, () -> new EvdActions.EvdWait(e.sym, 1, true, false)));
                moves.add(new Move(1.5, () -> new EvdActions.EvdDequeue(e.sym)));
            } else {
                moves.add(new Move(0.3, () -> new EvdActions.EvdDequeue(e.sym)));
                moves.add(new Move(0.15, () -> new EvdActions.EvdWait(e.sym, 1, false, false)));
            }
        }
        for (M.Ia a : ia) {
            if (a.asyncEvd != null && a.asyncEvd.live() && m.eventCertain(a.asyncEvd)) {
                moves.add(new Move(3, () -> new EvdActions.EvdWait(a.asyncEvd.sym, 1, true, false)));
            }
        }
        moves.add(new Move(1.5, () -> new EvdActions.Settle(chance(0.8) ? 1 + rnd.nextInt(20) : 500)));
        moves.add(new Move(1.5, () -> {
            M.Ep ep = pick(usable);
            return ep == null ? null : chance(0.5) ? new EpActions.EpQuery(ep.sym) : new EpActions.EpGetStatus(ep.sym);
        }));
        moves.add(new Move(1, () -> query(m)));
        moves.add(new Move(0.3, () -> {
            M.Obj o = pick(new ArrayList<>(m.objects.values()));
            if (o == null || o instanceof M.Ep ep && ep.undefined) {
                return null;
            }
            return chance(0.5) ? new IaActions.GetHandleType(o.sym) : new IaActions.Context(o.sym, rnd.nextInt(100));
        }));

        // ---- EVD and CNO operations
        moves.add(new Move(0.6, () -> {
            M.Evd e = pick(evds);
            return e == null ? null : new EvdActions.EvdPostSe(e.sym, ++seed);
        }));
        moves.add(new Move(0.3, () -> {
            M.Evd e = pick(evds);
            return e == null
                    ? null
                    : new EvdActions.EvdResize(e.sym, chance(0.2) ? 0 : 1 + rnd.nextInt(Math.max(1, e.minQlen * 2)));
        }));
        moves.add(new Move(0.4, () -> {
            M.Evd e = pick(evds);
            EvdActions.Switch[] sw = EvdActions.Switch.values();
            return e == null ? null : new EvdActions.EvdSwitch(e.sym, sw[rnd.nextInt(sw.length)]);
        }));
        moves.add(new Move(0.2, () -> {
            M.Evd e = pick(evds);
            List<M.Cno> cnos = m.all(M.Cno.class);
            return e == null
                    ? null
                    : new EvdActions.EvdModifyCno(e.sym, chance(0.3) || cnos.isEmpty() ? null : pick(cnos).sym);
        }));
        moves.add(new Move(0.3, () -> {
            M.Evd e = pick(evds);
            if (e == null) {
                return null;
            }
            int t = chance(0.5) ? 1 : chance(0.5) ? 0 : 2 + rnd.nextInt(Math.max(1, e.qlen + 2));
            return new EvdActions.EvdWait(e.sym, t, false, chance(0.1));
        }));
        moves.add(new Move(0.1, () -> {
            M.Evd e = pick(evds);
            return e == null ? null : new EvdActions.EvdWaitInterrupted(e.sym);
        }));
        for (M.Cno c : m.live(M.Cno.class)) {
            moves.add(new Move(
                    0.3,
                    () -> chance(0.5)
                            ? new IaActions.CnoWait(c.sym, chance(0.1))
                            : chance(0.5)
                                    ? new IaActions.CnoQuery(c.sym)
                                    : new IaActions.CnoModifyAgent(c.sym, chance(0.5))));
        }

        // ---- misc EP operations
        moves.add(new Move(0.6, () -> modify(m, usable)));
        moves.add(new Move(0.2, () -> {
            M.Ep ep = pick(usable);
            int soft = chance(0.5) ? -1 : rnd.nextInt(8);
            return ep == null ? null : new EpActions.EpSetWatermark(ep.sym, chance(0.05) ? -7 : soft, -1);
        }));
        moves.add(new Move(0.3, () -> {
            M.Ep ep = pick(usable);
            return ep == null ? null : new EpActions.EpRecvQuery(ep.sym);
        }));
        moves.add(new Move(0.2, () -> lmrSync(m)));

        // ---- frees (often of objects still in use: DAT_INVALID_STATE)
        moves.add(new Move(0.5, () -> free(m)));

        // ---- destroyed handles: every call must fail with DAT_INVALID_HANDLE
        if (!dead.isEmpty()) {
            moves.add(new Move(1.2, () -> onDead(m, pick(dead))));
        }

        // ---- IA level
        moves.add(new Move(0.05, () -> new IaActions.IaOpenBad(null)));
        moves.add(new Move(0.05, () -> {
            M.Evd e = pick(m.all(M.Evd.class));
            return e == null ? null : new IaActions.IaOpenBad(e.sym);
        }));
        moves.add(new Move(0.3, () -> new IaActions.IaQuery(pick(ia).sym)));
        moves.add(new Move(0.08, () -> new IaActions.IaClose(pick(ia).sym, chance(0.1) ? null : CloseFlag.GRACEFUL)));
        moves.add(new Move(ia.size() > 2 ? 0.02 : 0.005, () -> new IaActions.IaClose(pick(ia).sym, CloseFlag.ABRUPT)));

        double total = 0;
        for (Move mv : moves) {
            total += mv.weight;
        }
        for (int tries = 0; tries < 20; tries++) {
            double x = rnd.nextDouble() * total;
            for (Move mv : moves) {
                x -= mv.weight;
                if (x <= 0) {
                    Action a = mv.make.get();
                    if (a != null) {
                        return a;
                    }
                    break;
                }
            }
        }
        return new EvdActions.Settle(1);
    }

    private static int count(List<? extends M.Obj> l, M.Ia ia) {
        int c = 0;
        for (M.Obj o : l) {
            if (o.ia == ia) {
                c++;
            }
        }
        return c;
    }

    private static <T extends M.Obj> List<T> on(List<T> l, M.Ia ia) {
        List<T> r = new ArrayList<>();
        for (T o : l) {
            if (o.ia == ia) {
                r.add(o);
            }
        }
        return r;
    }

    private long qual(Model m) {
        return 100 + rnd.nextInt(12);
    }

    // ------------------------------------------------------------------ setup moves

    private Action lmrCreate(Model m, M.Ia a) {
        List<M.Pz> pzs = on(m.live(M.Pz.class), a);
        M.Pz pz = chance(0.97) ? pick(pzs) : pick(m.all(M.Pz.class));
        if (pz == null) {
            return null;
        }
        int size = chance(0.5) ? 1024 : 64 << rnd.nextInt(7);
        Set<MemoryPrivilege> privs;
        double p = rnd.nextDouble();
        if (p < 0.75) {
            privs = MemoryPrivilege.all();
        } else if (p < 0.85) {
            privs = EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE);
        } else if (p < 0.92) {
            privs = EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.REMOTE_READ);
        } else if (p < 0.96) {
            privs = EnumSet.of(MemoryPrivilege.LOCAL_WRITE);
        } else if (p < 0.98) {
            privs = EnumSet.noneOf(MemoryPrivilege.class);
        } else {
            privs = EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.RO_DISABLE);
        }
        boolean readOnly = chance(0.03);
        List<M.Lmr> existing = on(m.live(M.Lmr.class), a);
        String from = chance(0.08) && !existing.isEmpty() ? pick(existing).sym : null;
        return new IaActions.LmrCreate(
                a.sym, sym("lmr"), pz.sym, chance(0.01) ? 0 : size, chance(0.5), readOnly, privs, from);
    }

    private Action evdCreate(Model m, M.Ia a) {
        Set<EvdFlag> flags;
        double p = rnd.nextDouble();
        if (p < 0.35) {
            flags = EnumSet.of(EvdFlag.DTO, EvdFlag.RMR_BIND);
        } else if (p < 0.65) {
            flags = EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR);
        } else if (p < 0.85) {
            flags = EnumSet.of(EvdFlag.DTO, EvdFlag.RMR_BIND, EvdFlag.CONNECTION, EvdFlag.CR, EvdFlag.SOFTWARE);
        } else if (p < 0.93) {
            flags = EnumSet.of(EvdFlag.SOFTWARE);
        } else if (p < 0.97) {
            flags = EnumSet.noneOf(EvdFlag.class);
        } else {
            flags = EnumSet.of(EvdFlag.ASYNC);
        }
        List<M.Cno> cnos = on(m.live(M.Cno.class), a);
        String cno = chance(0.2) && !cnos.isEmpty() ? pick(cnos).sym : null;
        int qlen = chance(0.03) ? 0 : chance(0.02) ? a.attrs.maxEvdQlen() + 1 : 32 + rnd.nextInt(64);
        return new EvdActions.EvdCreate(a.sym, sym("evd"), qlen, cno, flags);
    }

    private M.Evd evdWith(Model m, M.Ia a, EvdFlag f) {
        List<M.Evd> l = new ArrayList<>();
        for (M.Evd e : m.live(M.Evd.class)) {
            if (e.ia == a && e.flags.contains(f) && !e.providerCreated && e != a.clock) {
                l.add(e);
            }
        }
        return pick(l);
    }

    private EpAttributes attrs(M.Ia a) {
        if (chance(0.5)) {
            return null;
        }
        EpAttributes.Builder b = EpAttributes.builder()
                .maxMessageSize(65536)
                .maxRdmaSize(65536)
                .maxRecvDtos(8 + rnd.nextInt(24))
                .maxRequestDtos(8 + rnd.nextInt(24))
                .maxRecvIov(4)
                .maxRequestIov(4)
                .maxRdmaReadIn(4)
                .maxRdmaReadOut(4)
                .maxRdmaReadIov(4)
                .maxRdmaWriteIov(4);
        if (chance(0.1)) {
            b.requestCompletionFlags(EnumSet.of(CompletionFlag.UNSIGNALLED));
        }
        if (chance(0.04)) {
            b.maxRecvDtos(a.attrs.maxDtoPerEp() + 1);
        }
        if (chance(0.03)) {
            b.maxMessageSize(a.attrs.maxMessageSize() + 1);
        }
        return b.build();
    }

    private Action epCreate(Model m, M.Ia a) {
        List<M.Pz> pzs = on(m.live(M.Pz.class), a);
        if (pzs.isEmpty()) {
            return null;
        }
        M.Pz pz = chance(0.97) ? pick(pzs) : pick(m.all(M.Pz.class));
        M.Evd dto = evdWith(m, a, EvdFlag.DTO);
        M.Evd conn = evdWith(m, a, EvdFlag.CONNECTION);
        if (chance(0.03)) {
            dto = pick(m.all(M.Evd.class));
        }
        List<M.Srq> srqs = on(m.live(M.Srq.class), a);
        if (!srqs.isEmpty() && dto != null && chance(0.3)) {
            M.Srq srq = pick(srqs);
            EpAttributes at = EpAttributes.builder()
                    .maxMessageSize(65536)
                    .maxRdmaSize(65536)
                    .maxRecvDtos(16)
                    .maxRequestDtos(16)
                    .maxRecvIov(1)
                    .maxRequestIov(4)
                    .maxRdmaReadIn(4)
                    .maxRdmaReadOut(4)
                    .maxRdmaReadIov(4)
                    .maxRdmaWriteIov(4)
                    .build();
            return new EpActions.EpCreate(
                    a.sym,
                    sym("ep"),
                    chance(0.9) ? srq.pz.sym : pz.sym,
                    symOf(dto),
                    symOf(dto),
                    symOf(conn),
                    chance(0.03) ? null : at,
                    srq.sym);
        }
        return new EpActions.EpCreate(
                a.sym,
                sym("ep"),
                chance(0.01) ? null : pz.sym,
                chance(0.03) ? null : symOf(dto),
                chance(0.03) ? null : symOf(dto),
                symOf(conn),
                attrs(a),
                null);
    }

    private static String symOf(M.Obj o) {
        return o == null ? null : o.sym;
    }

    private Action pspCreate(Model m, M.Ia a) {
        M.Evd evd = chance(0.95) ? evdWith(m, a, EvdFlag.CR) : pick(m.all(M.Evd.class));
        if (evd == null) {
            return null;
        }
        PspFlag f = chance(0.8) ? PspFlag.CONSUMER : chance(0.95) ? PspFlag.PROVIDER : null;
        if (chance(0.15)) {
            return new EpActions.PspCreate(a.sym, sym("psp"), 0, evd.sym, f, true);
        }
        long q = chance(0.02) ? 70000 : qual(m);
        return new EpActions.PspCreate(a.sym, sym("psp"), q, evd.sym, f, false);
    }

    private Action rspCreate(Model m) {
        List<M.Ep> eps = new ArrayList<>();
        for (M.Ep ep : m.live(M.Ep.class)) {
            if (!ep.undefined && (ep.state == EndpointState.UNCONNECTED || chance(0.1))) {
                eps.add(ep);
            }
        }
        M.Ep ep = pick(eps);
        if (ep == null) {
            return null;
        }
        M.Evd evd = evdWith(m, ep.ia, EvdFlag.CR);
        if (evd == null) {
            return null;
        }
        return new EpActions.RspCreate(ep.ia.sym, sym("rsp"), qual(m), ep.sym, evd.sym);
    }

    private Action srqCreate(Model m, M.Ia a) {
        List<M.Pz> pzs = on(m.live(M.Pz.class), a);
        if (pzs.isEmpty()) {
            return null;
        }
        int max = chance(0.05) ? 0 : 4 + rnd.nextInt(28);
        int lw = chance(0.7) ? 0 : rnd.nextInt(max + 2);
        return new DtoActions.SrqCreate(a.sym, sym("srq"), pick(pzs).sym, max, chance(0.03) ? 0 : 2, lw);
    }

    // ------------------------------------------------------------------ connection moves

    /** Service points of IAs other than {@code a} that listen. */
    private List<M.Obj> listeners(Model m, M.Ia a) {
        List<M.Obj> l = new ArrayList<>();
        for (M.Obj o : m.objects.values()) {
            if (o.live() && o.ia != a && (o instanceof M.Psp || o instanceof M.Rsp r && !r.fired)) {
                l.add(o);
            }
        }
        l.sort((x, y) -> x.sym.compareTo(y.sym));
        return l;
    }

    private Action connect(Model m) {
        List<M.Ep> eps = new ArrayList<>();
        for (M.Ep ep : m.live(M.Ep.class)) {
            if (!ep.undefined
                    && !ep.providerCreated
                    && ep.state == EndpointState.UNCONNECTED
                    && ep.rsp == null
                    && ep.pending.isEmpty()) {
                eps.add(ep);
            }
        }
        M.Ep ep = chance(0.93) ? pick(eps) : pick(m.live(M.Ep.class));
        if (ep == null || ep.undefined) {
            return null;
        }
        List<M.Obj> ls = listeners(m, ep.ia);
        int pd = chance(0.6)
                ? rnd.nextInt(24)
                : chance(0.5) ? ep.ia.maxPrivateData() : chance(0.5) ? ep.ia.maxPrivateData() + 1 : -1;
        if (!ls.isEmpty() && chance(0.85)) {
            M.Obj sp = pick(ls);
            return new EpActions.EpConnect(
                    ep.sym, sp.ia.sym, Model.qualOf(sp), pd, ++seed, chance(0.02), Qos.BEST_EFFORT, chance(0.02));
        }
        M.Ia t = pick(m.ias);
        if (chance(0.1)) {
            return new EpActions.EpConnect(ep.sym, null, qual(m), pd, ++seed, false, Qos.BEST_EFFORT, false);
        }
        return new EpActions.EpConnect(
                ep.sym, t.sym, qual(m), pd, ++seed, false, chance(0.05) ? Qos.HIGH_THROUGHPUT : Qos.BEST_EFFORT, false);
    }

    private Action accept(Model m, M.Cr cr) {
        int pd = chance(0.7) ? rnd.nextInt(20) : chance(0.5) ? cr.ia.maxPrivateData() : cr.ia.maxPrivateData() + 1;
        if (cr.providerEp != null || cr.sp instanceof M.Rsp) {
            String ep = chance(0.9) ? null : cr.providerEp != null ? cr.providerEp.sym : ((M.Rsp) cr.sp).ep.sym;
            if (cr.providerEp != null && ep != null && cr.providerEp.undefined) {
                ep = null;
            }
            return new EpActions.CrAccept(cr.sym, ep, pd, ++seed);
        }
        List<M.Ep> eps = new ArrayList<>();
        for (M.Ep ep : m.live(M.Ep.class)) {
            if (ep.ia == cr.ia
                    && !ep.undefined
                    && ep.state == EndpointState.UNCONNECTED
                    && ep.pending.isEmpty()
                    && ep.rsp == null
                    && !ep.providerCreated) {
                eps.add(ep);
            }
        }
        M.Ep ep = chance(0.92) ? pick(eps) : pick(m.live(M.Ep.class));
        if (ep == null || ep.undefined) {
            return chance(0.1) ? new EpActions.CrAccept(cr.sym, null, pd, ++seed) : null;
        }
        return new EpActions.CrAccept(cr.sym, ep.sym, pd, ++seed);
    }

    /** A provider EP needs a PZ and EVDs before it is accepted (dat_psp_create). */
    private Action configureProviderEp(Model m, M.Cr cr) {
        M.Ep ep = cr.providerEp;
        if (ep.attrs == null) {
            return new EpActions.CrQuery(cr.sym);
        }
        if (ep.pz == null) {
            M.Pz pz = pick(on(m.live(M.Pz.class), cr.ia));
            return pz == null ? null : new EpActions.EpModifyAction(ep.sym, EpActions.ModKind.PZ, pz.sym, 0);
        }
        if (ep.connEvd == null) {
            M.Evd e = evdWith(m, cr.ia, EvdFlag.CONNECTION);
            return e == null ? null : new EpActions.EpModifyAction(ep.sym, EpActions.ModKind.CONNECT_EVD, e.sym, 0);
        }
        if (ep.recvEvd == null || ep.reqEvd == null) {
            M.Evd e = evdWith(m, cr.ia, EvdFlag.DTO);
            return e == null
                    ? null
                    : new EpActions.EpModifyAction(
                            ep.sym,
                            ep.recvEvd == null ? EpActions.ModKind.RECV_EVD : EpActions.ModKind.REQUEST_EVD,
                            e.sym,
                            0);
        }
        return accept(m, cr);
    }

    private Action dupConnect(Model m, List<M.Ep> eps) {
        M.Ep dup = null;
        for (M.Ep e : eps) {
            if (e.state == EndpointState.CONNECTED && e.conn != null && e.conn.active == e) {
                dup = e;
            }
        }
        M.Ep ep = pick(eps);
        if (ep == null) {
            return null;
        }
        if (dup == null) {
            dup = pick(eps);
        }
        return new EpActions.EpDupConnect(ep.sym, dup.sym, rnd.nextInt(8), ++seed, Qos.BEST_EFFORT);
    }

    // ------------------------------------------------------------------ transfer moves

    /** A segment of one of the EP's IA's LMRs: mostly valid and in its PZ, sometimes not. */
    private Tri segment(Model m, M.Ep ep, long len, boolean mostlyValid) {
        List<M.Lmr> own = new ArrayList<>();
        for (M.Lmr l : m.live(M.Lmr.class)) {
            if (l.ia == ep.ia && (ep.pz == null || l.pz == ep.pz) && l.len > 0) {
                own.add(l);
            }
        }
        double p = rnd.nextDouble();
        if (!mostlyValid || p > 0.94) {
            double q = rnd.nextDouble();
            if (q < 0.3) {
                M.Lmr any = pick(m.all(M.Lmr.class));
                if (any != null) {
                    return Tri.of(any.sym, 0, Math.min(len, Math.max(1, any.len)));
                }
            } else if (q < 0.5) {
                return new Tri(null, 0, len, 0x7777 + rnd.nextInt(100));
            } else if (q < 0.8 && !own.isEmpty()) {
                M.Lmr l = pick(own);
                return Tri.of(l.sym, l.len - len / 2, len + 1);
            } else if (!own.isEmpty()) {
                M.Lmr l = pick(own);
                return Tri.of(l.sym, -8, Math.min(len, l.len));
            }
        }
        M.Lmr l = pick(own);
        if (l == null) {
            return null;
        }
        long n = Math.min(len, l.len);
        long off = n >= l.len ? 0 : rnd.nextInt((int) (l.len - n) + 1);
        return Tri.of(l.sym, off, n);
    }

    private Set<CompletionFlag> flags(M.Ep ep) {
        if (chance(0.9)) {
            return EnumSet.noneOf(CompletionFlag.class);
        }
        double p = rnd.nextDouble();
        if (p < 0.5) {
            return EnumSet.of(CompletionFlag.SUPPRESS);
        } else if (p < 0.8) {
            return EnumSet.of(CompletionFlag.UNSIGNALLED);
        }
        return EnumSet.of(CompletionFlag.BARRIER_FENCE);
    }

    private Action postRecv(Model m, M.Ep ep) {
        if (ep.srq != null) {
            return chance(0.05)
                    ? new DtoActions.PostRecv(ep.sym, List.of(), ++cookie, EnumSet.noneOf(CompletionFlag.class))
                    : srqPost(m, ep.srq);
        }
        int nseg = chance(0.8) ? 1 : 1 + rnd.nextInt(Math.max(1, ep.attrs.maxRecvIov() + 1));
        List<Tri> segs = new ArrayList<>();
        for (int i = 0; i < nseg; i++) {
            Tri t = segment(m, ep, chance(0.1) ? 0 : 16 + rnd.nextInt(512), true);
            if (t == null) {
                return null;
            }
            segs.add(t);
        }
        Set<CompletionFlag> f =
                chance(0.95) ? EnumSet.noneOf(CompletionFlag.class) : EnumSet.of(CompletionFlag.UNSIGNALLED);
        return new DtoActions.PostRecv(ep.sym, segs, ++cookie, f);
    }

    /** The size of the next receive the peer has ready, or -1. */
    private long peerRecvSpace(M.Ep ep) {
        M.Ep y = ep.peer;
        if (y == null) {
            return -1;
        }
        if (y.srq != null) {
            long min = Long.MAX_VALUE;
            for (M.SrqBuf b : y.srq.posted) {
                min = Math.min(min, b.length());
            }
            return y.srq.posted.size() - y.srq.incoming > 0 ? min : -1;
        }
        for (M.Work r : y.recvs) {
            if (!r.done && r.peer == null && r.possible.contains(DtoCompletionStatus.SUCCESS)) {
                return Tri.total(r.segs);
            }
        }
        return -1;
    }

    private Action postSend(Model m, M.Ep ep) {
        long space = peerRecvSpace(ep);
        long len;
        if (space < 0) {
            if (chance(0.85)) {
                return ep.peer != null && ep.peer.srq == null && ep.peer.attrs != null ? postRecv(m, ep.peer) : null;
            }
            len = rnd.nextInt(64);
        } else if (chance(0.04)) {
            len = space + 1 + rnd.nextInt(16);
        } else {
            len = space == 0 ? 0 : rnd.nextLong(space + 1);
        }
        List<Tri> segs = new ArrayList<>();
        if (len > 0 || chance(0.5)) {
            int nseg = len > 8 && chance(0.2) ? 2 : 1;
            long rest = len;
            for (int i = 0; i < nseg; i++) {
                long part = i == nseg - 1 ? rest : rest / 2;
                Tri t = segment(m, ep, part, true);
                if (t == null) {
                    return null;
                }
                segs.add(t);
                rest -= t.len();
            }
        }
        return new DtoActions.PostSend(ep.sym, segs, ++cookie, flags(ep), ++seed);
    }

    /** A remote buffer at the EP's peer: an LMR with remote privileges, a bound RMR, or a bad context. */
    private M.Remote remote(Model m, M.Ep ep, long len, boolean read) {
        M.Ep y = ep.peer;
        if (y == null) {
            return new M.Remote(null, 0x5555, 0, len);
        }
        double p = rnd.nextDouble();
        List<M.Rmr> bound = new ArrayList<>();
        for (M.Rmr r : m.live(M.Rmr.class)) {
            if (r.ia == y.ia && r.binding != null && r.pendingBind == null) {
                bound.add(r);
            }
        }
        if (p < 0.2 && !bound.isEmpty()) {
            M.Rmr r = pick(bound);
            long off = r.binding.len() > len ? rnd.nextInt((int) (r.binding.len() - len) + 1) : 0;
            return new M.Remote(r.sym, null, off, Math.min(len, r.binding.len()));
        }
        if (p < 0.25) {
            List<Integer> stale = new ArrayList<>();
            for (M.Rmr r : m.all(M.Rmr.class)) {
                if (r.ia == y.ia) {
                    stale.addAll(r.stale);
                }
            }
            for (M.Lmr l : m.all(M.Lmr.class)) {
                if (l.ia == y.ia && !l.alive && l.rmrContext != null) {
                    stale.add(l.rmrContext);
                }
            }
            if (!stale.isEmpty()) {
                stale.sort(null);
                return new M.Remote(null, pick(stale), 0, len);
            }
        }
        List<M.Lmr> remote = new ArrayList<>();
        for (M.Lmr l : m.live(M.Lmr.class)) {
            if (l.ia == y.ia
                    && l.rmrContext != null
                    && (chance(0.05) || l.pz == y.pz)
                    && l.has(read ? MemoryPrivilege.REMOTE_READ : MemoryPrivilege.REMOTE_WRITE) | chance(0.1)) {
                remote.add(l);
            }
        }
        M.Lmr l = pick(remote);
        if (l == null) {
            return new M.Remote(null, 0x6666, 0, len);
        }
        long n = Math.min(len, l.len);
        long off = chance(0.03) ? l.len - n / 2 : n >= l.len ? 0 : rnd.nextInt((int) (l.len - n) + 1);
        return new M.Remote(l.sym, null, off, n);
    }

    private Action postRdma(Model m, M.Ep ep, boolean read) {
        long len = chance(0.05) ? 0 : 1 + rnd.nextInt(600);
        M.Remote rem = remote(m, ep, len, read);
        long local = rem.len();
        if (chance(0.04)) {
            local = read ? Math.max(0, rem.len() - 1) : rem.len() + 1;
        }
        Tri t = segment(m, ep, local, true);
        if (t == null) {
            return null;
        }
        return new DtoActions.PostRdma(ep.sym, List.of(t), ++cookie, rem, flags(ep), read, ++seed);
    }

    private Action rmrBind(Model m, M.Ep ep) {
        List<M.Rmr> rmrs = new ArrayList<>();
        for (M.Rmr r : m.live(M.Rmr.class)) {
            if (r.ia == ep.ia && r.pendingBind == null) {
                rmrs.add(r);
            }
        }
        M.Rmr r = pick(rmrs);
        if (r == null) {
            return null;
        }
        if (r.binding != null && chance(0.2)) {
            return new DtoActions.RmrBind(
                    r.sym,
                    new Tri(null, 0, 0, null),
                    EnumSet.noneOf(MemoryPrivilege.class),
                    ep.sym,
                    ++cookie,
                    EnumSet.noneOf(CompletionFlag.class));
        }
        Tri t = segment(m, ep, 64 + rnd.nextInt(256), true);
        if (t == null) {
            return null;
        }
        Set<MemoryPrivilege> privs = chance(0.5)
                ? EnumSet.of(MemoryPrivilege.REMOTE_READ, MemoryPrivilege.REMOTE_WRITE)
                : chance(0.5) ? EnumSet.of(MemoryPrivilege.REMOTE_WRITE) : EnumSet.of(MemoryPrivilege.REMOTE_READ);
        return new DtoActions.RmrBind(r.sym, t, privs, ep.sym, ++cookie, EnumSet.noneOf(CompletionFlag.class));
    }

    private Action srqPost(Model m, M.Srq srq) {
        List<M.Lmr> own = new ArrayList<>();
        for (M.Lmr l : m.live(M.Lmr.class)) {
            if (l.ia == srq.ia && l.pz == srq.pz && l.len >= 512) {
                own.add(l);
            }
        }
        M.Lmr l = chance(0.95) ? pick(own) : pick(m.all(M.Lmr.class));
        if (l == null) {
            return null;
        }
        long len = Math.min(l.len, 512);
        long off = l.len > len ? rnd.nextInt((int) (l.len - len) + 1) : 0;
        return new DtoActions.SrqPostRecv(srq.sym, List.of(Tri.of(l.sym, off, len)), ++cookie);
    }

    // ------------------------------------------------------------------ misc moves

    private Action query(Model m) {
        List<M.Obj> all = new ArrayList<>(m.objects.values());
        all.sort((a, b) -> a.sym.compareTo(b.sym));
        M.Obj o = pick(all);
        if (o instanceof M.Pz) {
            return new IaActions.PzQuery(o.sym);
        } else if (o instanceof M.Lmr) {
            return new IaActions.LmrQuery(o.sym);
        } else if (o instanceof M.Rmr) {
            return new IaActions.RmrQuery(o.sym);
        } else if (o instanceof M.Evd) {
            return new EvdActions.EvdQuery(o.sym);
        } else if (o instanceof M.Psp || o instanceof M.Rsp) {
            return new EpActions.SpQuery(o.sym);
        } else if (o instanceof M.Srq) {
            return new DtoActions.SrqQuery(o.sym);
        } else if (o instanceof M.Cno) {
            return new IaActions.CnoQuery(o.sym);
        } else if (o instanceof M.Ia) {
            return new IaActions.IaQuery(o.sym);
        } else if (o instanceof M.Cr) {
            return new EpActions.CrQuery(o.sym);
        } else if (o instanceof M.Ep ep && !ep.undefined) {
            return new EpActions.EpQuery(o.sym);
        }
        return null;
    }

    private Action modify(Model m, List<M.Ep> eps) {
        M.Ep ep = pick(eps);
        if (ep == null) {
            return null;
        }
        EpActions.ModKind[] kinds = EpActions.ModKind.values();
        EpActions.ModKind k = kinds[rnd.nextInt(kinds.length)];
        return switch (k) {
            case PZ -> {
                M.Pz pz = chance(0.9) ? pick(on(m.live(M.Pz.class), ep.ia)) : pick(m.all(M.Pz.class));
                yield pz == null ? null : new EpActions.EpModifyAction(ep.sym, k, pz.sym, 0);
            }
            case RECV_EVD, REQUEST_EVD -> {
                M.Evd e = evdWith(m, ep.ia, EvdFlag.DTO);
                yield new EpActions.EpModifyAction(ep.sym, k, e == null ? null : e.sym, 0);
            }
            case CONNECT_EVD -> {
                M.Evd e = evdWith(m, ep.ia, EvdFlag.CONNECTION);
                yield new EpActions.EpModifyAction(ep.sym, k, e == null ? null : e.sym, 0);
            }
            case MAX_RECV_DTOS, MAX_REQUEST_DTOS ->
                new EpActions.EpModifyAction(
                        ep.sym, k, null, chance(0.1) ? ep.ia.attrs.maxDtoPerEp() + 1 : 8 + rnd.nextInt(32));
            case MAX_MESSAGE_SIZE ->
                new EpActions.EpModifyAction(
                        ep.sym, k, null, chance(0.1) ? ep.ia.attrs.maxMessageSize() + 1 : 4096 + rnd.nextInt(65536));
            default -> new EpActions.EpModifyAction(ep.sym, k, null, chance(0.7) ? 0 : 1);
        };
    }

    private Action lmrSync(Model m) {
        M.Lmr l = pick(m.all(M.Lmr.class));
        if (l == null) {
            return null;
        }
        M.Ia ia = chance(0.9) ? l.ia : pick(m.ias);
        long len = Math.max(1, l.len / 2);
        Tri t = chance(0.85) ? Tri.of(l.sym, 0, len) : Tri.of(l.sym, l.len, len);
        return new IaActions.LmrSync(ia.sym, List.of(t), chance(0.5));
    }

    private Action free(Model m) {
        List<M.Obj> all = new ArrayList<>();
        for (M.Obj o : m.objects.values()) {
            if (o.live()
                    && !(o instanceof M.Ia)
                    && !(o instanceof M.Cr)
                    && !(o instanceof M.Evd e && (e.providerCreated || e.ia.clock == e))
                    && !(o instanceof M.Ep ep && ep.undefined)) {
                all.add(o);
            }
        }
        all.sort((a, b) -> a.sym.compareTo(b.sym));
        M.Obj o = pick(all);
        return freeOf(o);
    }

    private static Action freeOf(M.Obj o) {
        if (o instanceof M.Pz) {
            return new IaActions.PzFree(o.sym);
        } else if (o instanceof M.Lmr) {
            return new IaActions.LmrFree(o.sym);
        } else if (o instanceof M.Rmr) {
            return new IaActions.RmrFree(o.sym);
        } else if (o instanceof M.Evd) {
            return new EvdActions.EvdFree(o.sym);
        } else if (o instanceof M.Cno) {
            return new IaActions.CnoFree(o.sym);
        } else if (o instanceof M.Psp || o instanceof M.Rsp) {
            return new EpActions.SpFree(o.sym);
        } else if (o instanceof M.Srq) {
            return new DtoActions.SrqFree(o.sym);
        } else if (o instanceof M.Ep) {
            return new EpActions.EpFree(o.sym);
        }
        return null;
    }

    /** A call on a destroyed object: each must fail with DAT_INVALID_HANDLE. */
    private Action onDead(Model m, M.Obj o) {
        if (o == null) {
            return null;
        }
        double p = rnd.nextDouble();
        if (p < 0.15) {
            return new IaActions.GetHandleType(o.sym);
        }
        // RMRs and service points have few other calls on a dead handle: free them again more often
        boolean fewCalls = o instanceof M.Rmr || o instanceof M.Psp || o instanceof M.Rsp;
        if ((p < 0.3 || fewCalls && p < 0.6) && !(o instanceof M.Cr)) {
            return freeOf(o);
        }
        if (o instanceof M.Pz pz) {
            return p < 0.6 ? new IaActions.PzQuery(pz.sym) : new IaActions.RmrCreate(pz.sym, sym("rmr"));
        } else if (o instanceof M.Lmr) {
            return new IaActions.LmrQuery(o.sym);
        } else if (o instanceof M.Rmr r) {
            M.Ep ep = pick(m.live(M.Ep.class));
            return p < 0.6 || ep == null || ep.undefined
                    ? new IaActions.RmrQuery(r.sym)
                    : new DtoActions.RmrBind(
                            r.sym,
                            new Tri(null, 0, 0, null),
                            EnumSet.noneOf(MemoryPrivilege.class),
                            ep.sym,
                            ++cookie,
                            EnumSet.noneOf(CompletionFlag.class));
        } else if (o instanceof M.Evd e) {
            EvdActions.Switch[] sw = EvdActions.Switch.values();
            return switch (rnd.nextInt(7)) {
                case 0 -> new EvdActions.EvdQuery(e.sym);
                case 1 -> new EvdActions.EvdDequeue(e.sym);
                case 2 -> new EvdActions.EvdWait(e.sym, 1, false, false);
                case 3 -> new EvdActions.EvdPostSe(e.sym, ++seed);
                case 4 -> new EvdActions.EvdResize(e.sym, 8);
                case 5 -> new EvdActions.EvdModifyCno(e.sym, null);
                default -> new EvdActions.EvdSwitch(e.sym, sw[rnd.nextInt(sw.length)]);
            };
        } else if (o instanceof M.Cno c) {
            return switch (rnd.nextInt(3)) {
                case 0 -> new IaActions.CnoQuery(c.sym);
                case 1 -> new IaActions.CnoWait(c.sym, false);
                default -> new IaActions.CnoModifyAgent(c.sym, false);
            };
        } else if (o instanceof M.Psp || o instanceof M.Rsp) {
            return new EpActions.SpQuery(o.sym);
        } else if (o instanceof M.Srq s) {
            return switch (rnd.nextInt(4)) {
                case 0 -> new DtoActions.SrqQuery(s.sym);
                case 1 -> new DtoActions.SrqSetLw(s.sym, 1);
                case 2 -> new DtoActions.SrqResize(s.sym, 8);
                default -> new DtoActions.SrqPostRecv(s.sym, List.of(), ++cookie);
            };
        } else if (o instanceof M.Cr cr) {
            return switch (rnd.nextInt(4)) {
                case 0 -> new EpActions.CrQuery(cr.sym);
                case 1 -> new EpActions.CrAccept(cr.sym, null, 0, 0);
                case 2 -> new EpActions.CrReject(cr.sym);
                default -> new EpActions.CrHandoff(cr.sym, 100);
            };
        } else if (o instanceof M.Ep ep) {
            return switch (rnd.nextInt(9)) {
                case 0 -> new EpActions.EpQuery(ep.sym);
                case 1 -> new EpActions.EpGetStatus(ep.sym);
                case 2 -> new EpActions.EpDisconnect(ep.sym, CloseFlag.ABRUPT);
                case 3 -> new EpActions.EpReset(ep.sym);
                case 4 -> new DtoActions.PostSend(ep.sym, List.of(), ++cookie, EnumSet.noneOf(CompletionFlag.class), 0);
                case 5 -> new DtoActions.PostRecv(ep.sym, List.of(), ++cookie, EnumSet.noneOf(CompletionFlag.class));
                case 6 -> new EpActions.EpRecvQuery(ep.sym);
                case 7 -> new EpActions.EpSetWatermark(ep.sym, -1, -1);
                default -> new EpActions.EpConnect(ep.sym, ep.ia.sym, 100, 0, 0, false, Qos.BEST_EFFORT, false);
            };
        }
        return null;
    }
}
