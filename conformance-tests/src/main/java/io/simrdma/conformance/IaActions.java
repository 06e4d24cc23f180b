package io.simrdma.conformance;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CnoParams;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.IaQueryResult;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrParams;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.MemoryType;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PzParams;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.RmrParams;
import io.simrdma.dat.WaitProxyAgent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Actions on IAs, PZs, LMRs, RMRs, CNOs and on any handle (type, consumer context).
 */
final class IaActions {

    private IaActions() {}

    /** dat_ia_open of IA number {@code k}, its async EVD, and a software EVD the engine waits on to let time pass. */
    record IaOpen(int k) implements Action {
        @Override
        public void run(Run r) {
            String sym = "ia" + k;
            if (r.has(sym)) {
                throw Skip.INSTANCE;
            }
            String name = r.settings.iaName(k, r.seed, r.runId);
            String open = r.settings.defaultRegistry()
                    ? "Dat.openIa(" + Java.str(name) + ", 64)"
                    : "registry.openIa(" + Java.str(name) + ", 64)";
            Expect e = Expect.ok(Check.ok("dat_ia_open", "opens the IA named; the provider creates the async EVD"));
            Object v = r.call(
                    e,
                    "InterfaceAdapter " + sym,
                    open,
                    () -> r.settings.registry().openIa(name, 64));
            InterfaceAdapter ia = (InterfaceAdapter) v;
            M.Ia m = r.model.add(new M.Ia(sym, k, name));
            r.bind(sym, ia);
            IaQueryResult q = ia.query();
            r.transcript.add("EventDispatcher async" + k + " = " + sym + ".query().asyncEvd().orElseThrow();");
            m.attrs = q.iaAttributes();
            m.providerAttrs = q.providerAttributes();
            m.address = q.iaAttributes().iaAddress();
            r.bind("addr" + k, m.address);
            r.transcript.add("SocketAddress addr" + k + " = " + sym + ".query().iaAttributes().iaAddress();");
            r.check(
                    Check.ok(
                            "dat_ia_open",
                            "an IA opened with DAT_HANDLE_NULL for async_evd_handle gets an async EVD "
                                    + "from the provider"),
                    q.asyncEvd().isPresent(),
                    "an async EVD",
                    () -> "none");
            M.Evd async = r.model.add(new M.Evd("async" + k, m, EnumSet.of(EvdFlag.ASYNC), 64, true));
            async.qlen = q.asyncEvd().get().query().qlen();
            m.asyncEvd = async;
            r.bind(async.sym, q.asyncEvd().get());
            String clock = "clock" + k;
            Expect ce = Expect.ok(Check.ok("dat_evd_query", "creates an EVD of the software stream"));
            Object c = r.call(
                    ce,
                    "EventDispatcher " + clock,
                    sym + ".createEvd(1, EnumSet.of(EvdFlag.SOFTWARE))",
                    () -> ia.createEvd(1, EnumSet.of(EvdFlag.SOFTWARE)));
            M.Evd ck = r.model.add(new M.Evd(clock, m, EnumSet.of(EvdFlag.SOFTWARE), 1, false));
            ck.qlen = 1;
            m.clock = ck;
            r.bind(clock, c);
        }

        @Override
        public String page() {
            return "dat_ia_open";
        }
    }

    /** dat_ia_open that must fail: an unknown name, or a consumer async EVD that is not a valid handle. */
    record IaOpenBad(String badEvd) implements Action {
        @Override
        public void run(Run r) {
            if (badEvd == null) {
                String name = "nosuchprovider:conform";
                Expect e = Expect.err(
                        DatReturnType.PROVIDER_NOT_FOUND,
                        Check.ret(
                                "dat_ia_open",
                                DatReturnType.PROVIDER_NOT_FOUND,
                                "a name no registered provider serves"));
                r.call(
                        e,
                        null,
                        (r.settings.defaultRegistry() ? "Dat" : "registry") + ".openIa(" + Java.str(name) + ", 8)",
                        () -> r.settings.registry().openIa(name, 8));
                return;
            }
            M.Evd evd = r.model.need(badEvd);
            EventDispatcher h = r.live(badEvd);
            M.Ia first = r.model.ias.get(0);
            String name = first.name;
            Expect e = new Expect();
            if (!Rules.badHandle(e, evd, null, "dat_ia_open", "async_evd_handle")
                    && !evd.flags.contains(EvdFlag.ASYNC)) {
                String c = "an async_evd_handle of an EVD without the asynchronous stream";
                e.orErr(
                        DatReturnType.INVALID_HANDLE,
                        Check.ret("dat_ia_open", DatReturnType.INVALID_HANDLE, c)
                                .choice(
                                        "an EVD that cannot take asynchronous events is an invalid handle or parameter"));
                e.orErr(
                        DatReturnType.INVALID_PARAMETER,
                        Check.ret("dat_ia_open", DatReturnType.INVALID_PARAMETER, c)
                                .choice(
                                        "an EVD that cannot take asynchronous events is an invalid handle or parameter"));
            }
            if (e.alts.isEmpty()) {
                throw Skip.INSTANCE;
            }
            Object v = r.call(
                    e,
                    null,
                    "Dat.openIa(" + Java.str(name) + ", " + badEvd + ")",
                    () -> r.settings
                            .registry()
                            .openIa(io.simrdma.dat.IaOpenParams.of(name, io.simrdma.dat.AsyncEvdRequest.use(h))));
            if (v instanceof InterfaceAdapter ia) {
                ia.close(CloseFlag.ABRUPT);
            }
        }

        @Override
        public String page() {
            return "dat_ia_open";
        }
    }

    /** dat_ia_open of a name longer than DAT_NAME_MAX_LENGTH: DAT_INVALID_PARAMETER. */
    record IaOpenLongName() implements Action {
        @Override
        public void run(Run r) {
            String name = "x".repeat(io.simrdma.dat.Dat.NAME_MAX_LENGTH + 1);
            Expect e = Expect.err(
                    DatReturnType.INVALID_PARAMETER,
                    Check.ret(
                            "dat_ia_open",
                            DatReturnType.INVALID_PARAMETER,
                            "an ia_name longer than DAT_NAME_MAX_LENGTH is an invalid parameter"));
            Object v = r.call(
                    e,
                    null,
                    (r.settings.defaultRegistry() ? "Dat" : "registry") + ".openIa(\"x\".repeat("
                            + (io.simrdma.dat.Dat.NAME_MAX_LENGTH + 1) + "), 8)",
                    () -> r.settings.registry().openIa(name, 8));
            if (v instanceof InterfaceAdapter ia) {
                ia.close(CloseFlag.ABRUPT);
            }
        }

        @Override
        public String page() {
            return "dat_ia_open";
        }
    }

    record IaQuery(String ia) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            InterfaceAdapter h = r.live(ia);
            Object v = r.call(Rules.iaQuery(m), "IaQueryResult q", ia + ".query()", h::query);
            if (v instanceof IaQueryResult q) {
                Check c = Check.ok(
                        "dat_ia_query", "returns the IA's async EVD and its attributes, the same on every query");
                r.check(
                        c,
                        q.asyncEvd().isPresent() && q.asyncEvd().get() == r.live(m.asyncEvd.sym),
                        m.asyncEvd.sym,
                        () -> String.valueOf(q.asyncEvd().map(r::symOf)));
                r.check(
                        c,
                        q.iaAttributes().equals(m.attrs)
                                && q.providerAttributes().equals(m.providerAttrs),
                        "the attributes of dat_ia_open's first query",
                        () -> "other attributes");
            }
        }

        @Override
        public String page() {
            return "dat_ia_query";
        }
    }

    record IaClose(String ia, CloseFlag flag) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            InterfaceAdapter h = r.live(ia);
            r.call(
                    Rules.iaClose(r.model, m, flag),
                    null,
                    ia + ".close(" + (flag == null ? "null" : "CloseFlag." + flag.name()) + ")",
                    () -> {
                        h.close(flag);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_ia_close";
        }
    }

    // ------------------------------------------------------------------ PZ

    record PzCreate(String ia, String sym) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            InterfaceAdapter h = r.live(ia);
            Object v = r.call(Rules.pzCreate(r.model, m), "ProtectionZone " + sym, ia + ".createPz()", h::createPz);
            if (v != Run.FAILED) {
                r.model.add(new M.Pz(sym, m));
                r.bind(sym, v);
            }
        }

        @Override
        public String page() {
            return "dat_pz_create";
        }
    }

    record PzQuery(String pz) implements Action {
        @Override
        public void run(Run r) {
            M.Pz m = r.model.need(pz);
            ProtectionZone h = r.live(pz);
            Object v = r.call(Rules.pzQuery(m), null, pz + ".query()", h::query);
            if (v instanceof PzParams q) {
                r.check(
                        Check.ok("dat_pz_query", "returns the PZ's IA"),
                        q.ia() == r.live(m.ia.sym),
                        m.ia.sym,
                        () -> String.valueOf(r.symOf(q.ia())));
            }
        }

        @Override
        public String page() {
            return "dat_pz_query";
        }
    }

    record PzFree(String pz) implements Action {
        @Override
        public void run(Run r) {
            M.Pz m = r.model.need(pz);
            ProtectionZone h = r.live(pz);
            r.call(Rules.pzFree(r.model, m), null, pz + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_pz_free";
        }
    }

    // ------------------------------------------------------------------ LMR

    static String privsJava(Set<MemoryPrivilege> p) {
        return Java.flags(MemoryPrivilege.class, p);
    }

    /**
     * dat_lmr_create of a new buffer of {@code size} bytes (direct or heap, read-only or writable), or,
     * when {@code from} is given, of the memory of that LMR ({@code DAT_MEM_TYPE_LMR}).
     */
    record LmrCreate(
            String ia,
            String sym,
            String pz,
            int size,
            boolean direct,
            boolean readOnly,
            Set<MemoryPrivilege> privs,
            String from)
            implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            M.Pz mpz = pz == null ? null : r.model.need(pz);
            M.Lmr src = from == null ? null : r.model.need(from);
            InterfaceAdapter h = r.live(ia);
            ProtectionZone hpz = pz == null ? null : r.live(pz);
            String memSym = from == null ? "buf" + sym.substring(3) : src.mem.sym;
            RegionDescription region;
            String regionJava;
            M.Mem mem;
            if (from == null) {
                ByteBuffer b = direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
                mem = new M.Mem(memSym, size, direct);
                r.model.mems.put(memSym, mem);
                r.bind(memSym, b);
                r.transcript.add("ByteBuffer " + memSym + " = ByteBuffer." + (direct ? "allocateDirect" : "allocate")
                        + "(" + size + ");");
                ByteBuffer reg = readOnly ? b.asReadOnlyBuffer() : b;
                region = new RegionDescription.Virtual(reg, 0, size);
                regionJava = "new RegionDescription.Virtual(" + memSym + (readOnly ? ".asReadOnlyBuffer()" : "")
                        + ", 0, " + size + ")";
            } else {
                mem = src.mem;
                region = new RegionDescription.Lmr(r.live(from));
                regionJava = "new RegionDescription.Lmr(" + from + ")";
            }
            int len = from == null ? size : src.len;
            int memOff = from == null ? 0 : src.memOff;
            // an LMR over an LMR registers the same memory: read-only when that LMR's buffer is
            boolean memReadOnly = from == null ? readOnly : src.readOnly;
            Expect e = Rules.lmrCreate(
                    r.model, m, mpz, src, len, memReadOnly, privs, from == null ? MemoryType.VIRTUAL : MemoryType.LMR);
            Object v = r.call(
                    e,
                    "LocalMemoryRegion " + sym,
                    ia + ".createLmr(" + regionJava + ", " + pz + ", " + privsJava(privs) + ")",
                    () -> h.createLmr(region, hpz, privs));
            if (v instanceof LocalMemoryRegion l) {
                M.Lmr ml = r.model.add(new M.Lmr(
                        sym,
                        m,
                        mpz,
                        mem,
                        memOff,
                        len,
                        EnumSet.copyOf(privs.isEmpty() ? EnumSet.noneOf(MemoryPrivilege.class) : privs),
                        src));
                r.bind(sym, l);
                ml.readOnly = memReadOnly;
                ml.lmrContext = l.lmrContext();
                ml.regAddr = l.registeredAddress();
                ml.regSize = l.registeredSize();
                boolean remote =
                        privs.contains(MemoryPrivilege.REMOTE_READ) || privs.contains(MemoryPrivilege.REMOTE_WRITE);
                r.check(
                        Check.ok("dat_lmr_create", "rmr_context is generated only with a remote privilege"),
                        l.rmrContext().isPresent() == remote,
                        remote ? "an rmr_context" : "no rmr_context",
                        () -> l.rmrContext().isPresent() ? "an rmr_context" : "none");
                ml.rmrContext = l.rmrContext().isPresent() ? l.rmrContext().getAsInt() : null;
                r.check(
                        Check.ok("dat_lmr_create", "registered_size covers the region"),
                        l.registeredSize() >= len,
                        ">= " + len,
                        () -> Long.toString(l.registeredSize()));
            }
        }

        @Override
        public String page() {
            return "dat_lmr_create";
        }
    }

    record LmrQuery(String lmr) implements Action {
        @Override
        public void run(Run r) {
            M.Lmr m = r.model.need(lmr);
            LocalMemoryRegion h = r.live(lmr);
            Object v = r.call(Rules.lmrQuery(m), null, lmr + ".query()", h::query);
            if (v instanceof LmrParams q) {
                Check c = Check.ok("dat_lmr_query", "returns the LMR's PZ, privileges, contexts and registration");
                boolean ok = q.pz() == r.live(m.pz.sym)
                        && q.privileges().equals(m.privs)
                        && q.lmrContext() == m.lmrContext
                        && Objects.equals(
                                q.rmrContext().isPresent() ? q.rmrContext().getAsInt() : null, m.rmrContext)
                        && q.registeredAddress() == m.regAddr
                        && q.registeredSize() == m.regSize
                        && q.length() == m.len
                        && q.ia() == r.live(m.ia.sym);
                r.check(
                        c,
                        ok,
                        "pz " + m.pz + ", privileges " + m.privs + ", lmr_context " + m.lmrContext + ", length "
                                + m.len,
                        q::toString);
            }
        }

        @Override
        public String page() {
            return "dat_lmr_query";
        }
    }

    record LmrFree(String lmr) implements Action {
        @Override
        public void run(Run r) {
            M.Lmr m = r.model.need(lmr);
            LocalMemoryRegion h = r.live(lmr);
            r.call(Rules.lmrFree(r.model, m), null, lmr + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_lmr_free";
        }
    }

    record LmrSync(String ia, List<Tri> segs, boolean read) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            for (String s : Tri.refs(segs)) {
                r.model.need(s);
            }
            InterfaceAdapter h = r.live(ia);
            var trips = Tri.triplets(r.model, segs);
            r.call(
                    Rules.lmrSync(r.model, m, segs, read),
                    null,
                    ia + ".syncRdma" + (read ? "Read" : "Write") + "(" + Tri.java(segs) + ")",
                    () -> {
                        if (read) {
                            h.syncRdmaRead(trips);
                        } else {
                            h.syncRdmaWrite(trips);
                        }
                        return null;
                    });
        }

        @Override
        public String page() {
            return read ? "dat_lmr_sync_rdma_read" : "dat_lmr_sync_rdma_write";
        }
    }

    // ------------------------------------------------------------------ RMR

    record RmrCreate(String pz, String sym) implements Action {
        @Override
        public void run(Run r) {
            M.Pz m = r.model.need(pz);
            ProtectionZone h = r.live(pz);
            Object v =
                    r.call(Rules.rmrCreate(r.model, m), "RemoteMemoryRegion " + sym, pz + ".createRmr()", h::createRmr);
            if (v != Run.FAILED) {
                r.model.add(new M.Rmr(sym, m.ia, m));
                r.bind(sym, v);
            }
        }

        @Override
        public String page() {
            return "dat_rmr_create";
        }
    }

    record RmrQuery(String rmr) implements Action {
        @Override
        public void run(Run r) {
            M.Rmr m = r.model.need(rmr);
            RemoteMemoryRegion h = r.live(rmr);
            Object v = r.call(Rules.rmrQuery(m), null, rmr + ".query()", h::query);
            if (v instanceof RmrParams q) {
                Check c = Check.ok("dat_rmr_query", "returns the RMR's PZ and its binding (none while unbound)");
                r.check(c, q.pz() == r.live(m.pz.sym), m.pz.sym, () -> String.valueOf(r.symOf(q.pz())));
                if (m.pendingBind == null) {
                    boolean bound = m.binding != null;
                    r.check(
                            c,
                            q.binding().isPresent() == bound
                                    && (!bound
                                            || q.binding().get().rmrContext() == m.binding.context()
                                                    && q.binding()
                                                                    .get()
                                                                    .lmrTriplet()
                                                                    .segmentLength()
                                                            == m.binding.len()),
                            bound ? "bound with context " + m.binding.context() : "unbound",
                            () -> q.binding().toString());
                }
            }
        }

        @Override
        public String page() {
            return "dat_rmr_query";
        }
    }

    record RmrFree(String rmr) implements Action {
        @Override
        public void run(Run r) {
            M.Rmr m = r.model.need(rmr);
            RemoteMemoryRegion h = r.live(rmr);
            r.call(Rules.rmrFree(r.model, m), null, rmr + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_rmr_free";
        }
    }

    // ------------------------------------------------------------------ CNO

    /** An OS wait proxy agent: the suite never triggers it; the provider only keeps it. */
    static final WaitProxyAgent AGENT = evd -> {};

    record CnoCreate(String ia, String sym, boolean agent) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            InterfaceAdapter h = r.live(ia);
            Object v = r.call(
                    Rules.cnoCreate(r.model, m),
                    "ConsumerNotificationObject " + sym,
                    ia + ".createCno(" + (agent ? "evd -> { }" : "null") + ")",
                    () -> h.createCno(agent ? AGENT : null));
            if (v != Run.FAILED) {
                M.Cno c = r.model.add(new M.Cno(sym, m));
                c.agent = agent ? AGENT : null;
                r.bind(sym, v);
            }
        }

        @Override
        public String page() {
            return "dat_cno_create";
        }
    }

    record CnoQuery(String cno) implements Action {
        @Override
        public void run(Run r) {
            M.Cno m = r.model.need(cno);
            ConsumerNotificationObject h = r.live(cno);
            Object v = r.call(Rules.cnoQuery(m), null, cno + ".query()", h::query);
            if (v instanceof CnoParams q) {
                // dat_cno_create: the agent is invoked when the CNO is triggered; after that it is no longer associated
                // an EVD that fed it earlier (dat_evd_modify_cno moved it elsewhere since) may have triggered it then
                boolean mayHaveTriggered = m.fed;
                for (M.Evd e : r.model.all(M.Evd.class)) {
                    mayHaveTriggered |= e.cno == m;
                }
                boolean agentOk =
                        q.agent().isPresent() ? q.agent().get() == m.agent : m.agent == null || mayHaveTriggered;
                r.check(
                        Check.ok(
                                "dat_cno_query",
                                "returns the CNO's IA and proxy agent (gone once it was invoked: " + "dat_cno_create)"),
                        q.ia() == r.live(m.ia.sym) && agentOk,
                        m.ia.sym + ", agent " + (m.agent != null),
                        q::toString);
                if (q.agent().isEmpty()) {
                    m.agent = null;
                }
            }
        }

        @Override
        public String page() {
            return "dat_cno_query";
        }
    }

    record CnoFree(String cno) implements Action {
        @Override
        public void run(Run r) {
            M.Cno m = r.model.need(cno);
            ConsumerNotificationObject h = r.live(cno);
            r.call(Rules.cnoFree(r.model, m), null, cno + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_cno_free";
        }
    }

    record CnoModifyAgent(String cno, boolean agent) implements Action {
        @Override
        public void run(Run r) {
            M.Cno m = r.model.need(cno);
            ConsumerNotificationObject h = r.live(cno);
            r.call(
                    Rules.cnoModifyAgent(m, agent ? AGENT : null),
                    null,
                    cno + ".modifyAgent(" + (agent ? "evd -> { }" : "null") + ")",
                    () -> {
                        h.modifyAgent(agent ? AGENT : null);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_cno_modify_agent";
        }
    }

    /** dat_cno_wait with a short timeout (or a null one, an invalid parameter). */
    record CnoWait(String cno, boolean nullTimeout) implements Action {
        @Override
        public void run(Run r) {
            M.Cno m = r.model.need(cno);
            ConsumerNotificationObject h = r.live(cno);
            io.simrdma.dat.Timeout t =
                    nullTimeout ? null : io.simrdma.dat.Timeout.ofMillis(r.settings.shortWaitMillis());
            Object v = r.call(
                    Rules.cnoWait(m, nullTimeout),
                    null,
                    cno + ".waitForNotification("
                            + (nullTimeout ? "null" : "Timeout.ofMillis(" + r.settings.shortWaitMillis() + ")") + ")",
                    () -> h.waitForNotification(t));
            if (v instanceof io.simrdma.dat.CnoWaitResult w && w.isTimedOut()) {
                r.check(
                        Check.ret(
                                "dat_cno_wait",
                                DatReturnType.QUEUE_EMPTY,
                                "a wait that times out without a notification returns DAT_QUEUE_EMPTY and a null "
                                        + "evd_handle"),
                        w.evd().isEmpty(),
                        "no EVD",
                        () -> String.valueOf(w.evd()));
            }
            if (v instanceof io.simrdma.dat.CnoWaitResult w && w.evd().isPresent()) {
                String evd = r.symOf(w.evd().get());
                M.Evd e = r.model.get(evd);
                r.check(
                        Check.ok(
                                "dat_cno_wait",
                                "the EVD a notification names is one that feeds the CNO, or fed it before "
                                        + "dat_evd_modify_cno (the consumer must be prepared to collect a notification "
                                        + "on the EVD's old CNO)"),
                        e != null && (e.cno == m || e.oldCnos.contains(m)),
                        "an EVD of " + cno,
                        () -> String.valueOf(evd));
            }
        }

        @Override
        public String page() {
            return "dat_cno_wait";
        }
    }

    /**
     * dat_cno_wait by a thread whose interrupt status is set: DAT_INTERRUPTED_CALL with the status set
     * again (provider-api), or a notification already pending.
     */
    record CnoWaitInterrupted(String cno) implements Action {
        @Override
        public void run(Run r) {
            M.Cno m = r.model.need(cno);
            ConsumerNotificationObject h = r.live(cno);
            Expect base = Rules.cnoWait(m, false);
            if (base.onlyErrors()) {
                throw Skip.INSTANCE;
            }
            Check ic = Check.ret(
                    "dat_cno_wait",
                    DatReturnType.INTERRUPTED_CALL,
                    "a wait of an interrupted thread returns DAT_INTERRUPTED_CALL and sets the interrupt status "
                            + "again (provider-api)");
            Expect e = new Expect()
                    .orErr(DatReturnType.INTERRUPTED_CALL, ic)
                    .orOk(
                            Check.ok(
                                    "dat_cno_wait",
                                    "a wait of an interrupted thread may return a pending notification"),
                            null);
            r.transcript.add("Thread.currentThread().interrupt();");
            Thread.currentThread().interrupt();
            Object v;
            boolean still;
            try {
                v = r.call(
                        e,
                        null,
                        cno + ".waitForNotification(Timeout.ofMillis(1))",
                        () -> h.waitForNotification(io.simrdma.dat.Timeout.ofMillis(1)));
            } finally {
                still = Thread.interrupted();
            }
            r.transcript.add("assertTrue(Thread.interrupted());");
            if (v == Run.FAILED) {
                r.check(ic, still, "the interrupt status set", () -> "cleared");
            }
        }

        @Override
        public String page() {
            return "dat_cno_wait";
        }
    }

    // ------------------------------------------------------------------ any handle

    record GetHandleType(String obj) implements Action {
        @Override
        public void run(Run r) {
            M.Obj m = r.model.need(obj);
            if (m instanceof M.Ep ep && ep.undefined) {
                throw Skip.INSTANCE;
            }
            DatHandle h = r.live(obj);
            Object v = r.call(Rules.getHandleType(m), null, obj + ".handleType()", h::handleType);
            if (v instanceof HandleType t) {
                r.check(
                        Check.ok("dat_get_handle_type", "returns the handle's type"),
                        t == m.type,
                        m.type.name(),
                        t::name);
            }
        }

        @Override
        public String page() {
            return "dat_get_handle_type";
        }
    }

    /** dat_set_consumer_context then dat_get_consumer_context: the value comes back. */
    record Context(String obj, int value) implements Action {
        @Override
        public void run(Run r) {
            M.Obj m = r.model.need(obj);
            if (m instanceof M.Ep ep && ep.undefined) {
                throw Skip.INSTANCE;
            }
            DatHandle h = r.live(obj);
            String ctx = "ctx-" + value;
            r.call(Rules.setContext(m, ctx), null, obj + ".setConsumerContext(" + Java.str(ctx) + ")", () -> {
                h.setConsumerContext(ctx);
                return null;
            });
            Object v = r.call(Rules.getContext(m), null, obj + ".consumerContext()", h::consumerContext);
            if (v != Run.FAILED) {
                r.check(
                        Check.ok("dat_get_consumer_context", "returns the context last set"),
                        Objects.equals(v, m.context),
                        String.valueOf(m.context),
                        () -> String.valueOf(v));
            }
        }

        @Override
        public String page() {
            return "dat_set_consumer_context";
        }
    }

    static List<String> syms(Object... o) {
        List<String> l = new ArrayList<>();
        for (Object x : o) {
            if (x != null) {
                l.add(x.toString());
            }
        }
        return l;
    }
}
