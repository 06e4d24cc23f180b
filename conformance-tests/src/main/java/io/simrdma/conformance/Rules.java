package io.simrdma.conformance;

import static io.simrdma.dat.DatReturnType.CONN_QUAL_IN_USE;
import static io.simrdma.dat.DatReturnType.CONN_QUAL_UNAVAILABLE;
import static io.simrdma.dat.DatReturnType.INSUFFICIENT_RESOURCES;
import static io.simrdma.dat.DatReturnType.INVALID_ADDRESS;
import static io.simrdma.dat.DatReturnType.INVALID_HANDLE;
import static io.simrdma.dat.DatReturnType.INVALID_PARAMETER;
import static io.simrdma.dat.DatReturnType.INVALID_STATE;
import static io.simrdma.dat.DatReturnType.LENGTH_ERROR;
import static io.simrdma.dat.DatReturnType.MODEL_NOT_SUPPORTED;
import static io.simrdma.dat.DatReturnType.PRIVILEGES_VIOLATION;
import static io.simrdma.dat.DatReturnType.PROTECTION_VIOLATION;
import static io.simrdma.dat.DatReturnType.QUEUE_FULL;
import static io.simrdma.dat.EndpointState.ACTIVE_CONNECTION_PENDING;
import static io.simrdma.dat.EndpointState.COMPLETION_PENDING;
import static io.simrdma.dat.EndpointState.CONNECTED;
import static io.simrdma.dat.EndpointState.DISCONNECTED;
import static io.simrdma.dat.EndpointState.DISCONNECT_PENDING;
import static io.simrdma.dat.EndpointState.PASSIVE_CONNECTION_PENDING;
import static io.simrdma.dat.EndpointState.RESERVED;
import static io.simrdma.dat.EndpointState.TENTATIVE_CONNECTION_PENDING;
import static io.simrdma.dat.EndpointState.UNCONNECTED;

import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.MemoryType;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The reference model's predictions, one method per DAT function, each citing the man page clause
 * or state-machine row its rule comes from. A method returns the outcomes the pages allow for the
 * call with the given arguments in the model's current state ({@link Expect}), each with the model
 * change it brings.
 *
 * <p>Where the pages are SILENT or in CONFLICT, the recorded choices of
 * {@code shared/spec/ep-state-machine.md} section 7 are followed and the check names the id; other
 * outcomes the pages allow there are accepted as alternatives ({@link Check#alternative}) unless the
 * suite runs strict.
 *
 * <p>Thread safety: stateless; the model it changes is not thread-safe.
 */
final class Rules {

    private Rules() {}

    /** Every completion status but success: the pages name no particular error status there. */
    static final Set<DtoCompletionStatus> ANY_ERROR = EnumSet.complementOf(EnumSet.of(DtoCompletionStatus.SUCCESS));

    // ------------------------------------------------------------------ handles

    /** The INVALID_HANDLE subtypes naming a handle of {@code type} (provider-api DatHandle). */
    static DatReturnSubtype[] handleSubtypes(HandleType type) {
        return switch (type) {
            case IA -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_IA};
            case EP -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_EP};
            case LMR -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_LMR};
            case RMR -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_RMR};
            case PZ -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_PZ};
            case PSP -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_PSP};
            case RSP -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_RSP};
            case CR -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_CR};
            case CNO -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_CNO};
            case SRQ -> new DatReturnSubtype[] {DatReturnSubtype.INVALID_HANDLE_SRQ};
            case EVD ->
                new DatReturnSubtype[] {
                    DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                    DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC
                };
        };
    }

    /**
     * Adds the INVALID_HANDLE outcome if {@code o} is destroyed (freed, or its IA closed) or, when
     * {@code ia} is given, belongs to another IA.
     *
     * @return whether the handle is bad
     */
    static boolean badHandle(Expect e, M.Obj o, M.Ia ia, String page, String what) {
        if (o == null) {
            return false;
        }
        if (!o.live()) {
            e.orErr(
                    INVALID_HANDLE,
                    Check.ret(
                            page,
                            INVALID_HANDLE,
                            what + " of a destroyed object is invalid (subtype "
                                    + "naming the handle: provider-api DatHandle)"),
                    handleSubtypes(o.type));
            return true;
        }
        if (ia != null && o.ia != ia) {
            e.orErrChoice(
                    INVALID_HANDLE,
                    Check.ret(page, INVALID_HANDLE, what + " of another IA is invalid")
                            .choice("a handle of another IA is reported like a destroyed one"),
                    handleSubtypes(o.type));
            return true;
        }
        return false;
    }

    /** The outcome of a call on a destroyed handle: INVALID_HANDLE with the subtype naming it, and nothing else. */
    static Expect onlyBadHandle(M.Obj o, String page) {
        Expect e = new Expect();
        return badHandle(e, o, null, page, o.type.name().toLowerCase() + "_handle") ? e : null;
    }

    /** An error when {@code any} alternative is present, else the success. */
    static Expect orOk(Expect errors, Check ok, java.util.function.Consumer<Object> effect) {
        return errors.alts.isEmpty() ? Expect.ok(ok, effect) : errors;
    }

    static int count(Model m, M.Ia ia, Class<? extends M.Obj> type) {
        int n = 0;
        for (M.Obj o : ia.objects) {
            if (type.isInstance(o) && o.alive) {
                n++;
            }
        }
        return n;
    }

    /** INSUFFICIENT_RESOURCES when creating one more would pass the IA attribute {@code max}. */
    static boolean limit(Expect e, Model m, M.Ia ia, Class<? extends M.Obj> type, int max, String page, String attr) {
        if (count(m, ia, type) >= max) {
            e.orErr(
                    INSUFFICIENT_RESOURCES,
                    Check.ret(
                            page,
                            INSUFFICIENT_RESOURCES,
                            "creating more than the IA attribute " + attr + " (" + max
                                    + ") fails for resource limitations"));
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ consumer context, handle type

    static Expect getHandleType(M.Obj o) {
        Expect bad = onlyBadHandle(o, "dat_get_handle_type");
        return bad != null ? bad : Expect.ok(Check.ok("dat_get_handle_type", "returns the type of the handle"));
    }

    static Expect setContext(M.Obj o, Object v) {
        Expect bad = onlyBadHandle(o, "dat_set_consumer_context");
        return bad != null
                ? bad
                : Expect.ok(
                        Check.ok("dat_set_consumer_context", "associates the context with the handle"),
                        x -> o.context = v);
    }

    static Expect getContext(M.Obj o) {
        Expect bad = onlyBadHandle(o, "dat_get_consumer_context");
        return bad != null
                ? bad
                : Expect.ok(Check.ok("dat_get_consumer_context", "returns the context last set (none: null)"));
    }

    // ------------------------------------------------------------------ IA

    static Expect iaQuery(M.Ia ia) {
        Expect bad = onlyBadHandle(ia, "dat_ia_query");
        return bad != null ? bad : Expect.ok(Check.ok("dat_ia_query", "returns the IA's async EVD and attributes"));
    }

    static Expect iaClose(Model m, M.Ia ia, CloseFlag flag) {
        String p = "dat_ia_close";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        if (flag == null) {
            e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "ia_flags is invalid (null)"));
            return e;
        }
        List<M.Obj> left = ia.consumerObjects();
        if (flag == CloseFlag.GRACEFUL && !left.isEmpty()) {
            return Expect.err(
                    INVALID_STATE,
                    Check.ret(
                            p,
                            INVALID_STATE,
                            "a graceful close of an IA with consumer-created " + "objects (" + left.size() + ", first "
                                    + left.get(0) + ") fails"));
        }
        Check ok = Check.ok(
                p,
                flag == CloseFlag.GRACEFUL
                        ? "a graceful close of an IA whose objects are freed succeeds"
                        : "an abrupt close destroys every object of the IA");
        return Expect.ok(ok, v -> closeIa(m, ia));
    }

    /** dat_ia_close: every object of the IA is destroyed; peers of its connections see them end. */
    static void closeIa(Model m, M.Ia ia) {
        for (M.Obj o : ia.objects) {
            if (o instanceof M.Ep ep && ep.alive) {
                endEp(m, ep, "dat_ia_close");
            }
        }
        for (M.Obj o : ia.objects) {
            if (o instanceof M.Psp || o instanceof M.Rsp) {
                if (o.alive) {
                    spGone(m, o);
                }
            }
            o.alive = false;
        }
        ia.alive = false;
    }

    // ------------------------------------------------------------------ PZ

    static Expect pzCreate(Model m, M.Ia ia) {
        String p = "dat_pz_create";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        limit(e, m, ia, M.Pz.class, ia.attrs.maxPzs(), p, "max_pzs");
        return e.alts.isEmpty() ? Expect.ok(Check.ok(p, "creates a Protection Zone")) : e;
    }

    static Expect pzQuery(M.Pz pz) {
        Expect bad = onlyBadHandle(pz, "dat_pz_query");
        return bad != null ? bad : Expect.ok(Check.ok("dat_pz_query", "returns the PZ's IA"));
    }

    static Expect pzFree(Model m, M.Pz pz) {
        String p = "dat_pz_free";
        Expect bad = onlyBadHandle(pz, p);
        if (bad != null) {
            return bad;
        }
        for (M.Obj o : pz.ia.objects) {
            if (!o.alive) {
                continue;
            }
            M.Pz uses = o instanceof M.Ep ep
                    ? ep.pz
                    : o instanceof M.Lmr l ? l.pz : o instanceof M.Rmr r ? r.pz : o instanceof M.Srq s ? s.pz : null;
            if (uses == pz) {
                Check c = Check.ret(
                        p, INVALID_STATE, "a PZ in use by an Endpoint, LMR or RMR cannot be freed (" + o + ")");
                if (o instanceof M.Srq) {
                    c = c.rule("a PZ in use by an SRQ cannot be freed (" + o + ")")
                            .choice(
                                    "an SRQ holds its PZ as an EP does (dat_srq_create creates it in the PZ; dat_pz_free names "
                                            + "EP, LMR and RMR)");
                }
                return new Expect().orErr(INVALID_STATE, c, DatReturnSubtype.INVALID_STATE_PZ_IN_USE);
            }
        }
        return Expect.ok(Check.ok(p, "destroys the PZ"), v -> pz.alive = false);
    }

    // ------------------------------------------------------------------ LMR

    /**
     * dat_lmr_create of {@code len} bytes of {@code mem} (or of the memory of {@code source}).
     */
    static Expect lmrCreate(
            Model m,
            M.Ia ia,
            M.Pz pz,
            M.Lmr source,
            int len,
            boolean readOnly,
            Set<MemoryPrivilege> privs,
            MemoryType type) {
        String p = "dat_lmr_create";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        badHandle(e, pz, ia, p, "pz_handle");
        if (pz == null) {
            // "pz_handle: Handle for an instance of the Protection Zone" / "DAT_INVALID_HANDLE Invalid DAT
            // handle": no PZ at all is not a PZ's handle (a shrunk sequence may drop the argument)
            e.orErr(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "pz_handle of no PZ is invalid"),
                    DatReturnSubtype.INVALID_HANDLE_PZ);
        }
        if (source != null) {
            badHandle(e, source, ia, p, "region LMR");
        }
        if (!ia.providerAttrs.lmrMemTypesSupported().contains(type)) {
            e.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(
                            p,
                            MODEL_NOT_SUPPORTED,
                            "a memory type the provider does not " + "support (lmr_mem_types_supported)"));
        }
        // readOnly also for DAT_MEM_TYPE_LMR over an LMR of a read-only buffer: "Consumers can create an LMR over
        // the existing LMR memory with different Protection Zones and privileges" (USAGE) -- over the same memory,
        // so a write privilege on memory that cannot be written is still "DAT_INVALID_PARAMETER Invalid parameter"
        if (readOnly && (privs.contains(MemoryPrivilege.LOCAL_WRITE) || privs.contains(MemoryPrivilege.REMOTE_WRITE))) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                            p,
                            INVALID_PARAMETER,
                            "a read-only buffer cannot be registered with a " + "write privilege"));
        }
        if (len == 0) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "a region of length 0")
                            .choice("an empty region is an invalid parameter"));
            e.orOk(
                    Check.ok(p, "a region of length 0 registers")
                            .alternative("an empty region is an invalid parameter"),
                    null);
        }
        if (privs.contains(MemoryPrivilege.RO_DISABLE)) {
            e.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(p, MODEL_NOT_SUPPORTED, "the illumos relaxed-ordering privilege")
                            .choice(
                                    "DAT_MEM_PRIV_RO_DISABLE_FLAG is not a DAT 1.2 privilege: a provider may refuse it"));
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "the illumos relaxed-ordering privilege")
                            .choice(
                                    "DAT_MEM_PRIV_RO_DISABLE_FLAG is not a DAT 1.2 privilege: a provider may refuse it"));
            if (e.alts.size() == 2) {
                e.orOk(
                        Check.ok(p, "registers with the relaxed-ordering privilege")
                                .choice(
                                        "DAT_MEM_PRIV_RO_DISABLE_FLAG is not a DAT 1.2 privilege: a provider may take it"),
                        null);
            }
        }
        limit(e, m, ia, M.Lmr.class, ia.attrs.maxLmrs(), p, "max_lmrs");
        if (e.alts.isEmpty()) {
            e.orOk(Check.ok(p, "registers the memory in the PZ with the privileges"), null);
        }
        return e;
    }

    static Expect lmrQuery(M.Lmr l) {
        Expect bad = onlyBadHandle(l, "dat_lmr_query");
        return bad != null ? bad : Expect.ok(Check.ok("dat_lmr_query", "returns the LMR's parameters as created"));
    }

    static Expect lmrFree(Model m, M.Lmr l) {
        String p = "dat_lmr_free";
        Expect bad = onlyBadHandle(l, p);
        if (bad != null) {
            return bad;
        }
        boolean certainlyBound = false;
        boolean maybeBound = false;
        for (M.Rmr r : m.live(M.Rmr.class)) {
            if (r.binding != null && r.binding.lmr() == l) {
                if (r.pendingBind == null) {
                    certainlyBound = true;
                } else {
                    maybeBound = true;
                }
            }
            if (r.pendingBind != null && r.pendingBind.binding != null && r.pendingBind.binding.lmr() == l) {
                maybeBound = true;
            }
        }
        Check inUse = Check.ret(p, INVALID_STATE, "an LMR with an RMR bound to it cannot be freed");
        Expect e = new Expect();
        if (certainlyBound || maybeBound) {
            e.orErr(INVALID_STATE, inUse, DatReturnSubtype.INVALID_STATE_LMR_IN_USE);
        }
        if (!certainlyBound) {
            e.orOk(Check.ok(p, "destroys the LMR; its contexts stop working"), v -> {
                l.alive = false;
                lmrGone(m, l);
            });
        }
        return e;
    }

    /**
     * An LMR was freed: work still using it, locally or remotely, may fail (dat_lmr_free: DTOs using it
     * fail with a protection violation; remote RDMA with its rmr_context fails and breaks the
     * connection).
     */
    static void lmrGone(Model m, M.Lmr l) {
        for (M.Ep ep : m.all(M.Ep.class)) {
            for (M.Work w : ep.requests) {
                if (!w.done && (uses(w.segs, l) || w.remoteLmr == l)) {
                    w.possible.addAll(ANY_ERROR);
                    w.data = null;
                    if (w.peer != null) {
                        w.peer.possible.addAll(ANY_ERROR);
                    }
                    breakConnection(m, ep, peerOf(ep), "an LMR freed under a DTO", false);
                }
            }
            for (M.Work w : ep.recvs) {
                if (!w.done && uses(w.segs, l)) {
                    w.possible.addAll(ANY_ERROR);
                    w.data = null;
                    if (w.peer != null) {
                        w.peer.possible.addAll(ANY_ERROR);
                    }
                    // an EP on no connection (UNCONNECTED, RESERVED, a request pending: seed 2651) has none to
                    // break: dat_lmr_free(3DAT) breaks "the connection on which it was used", and the receive is
                    // used only when a message of a later connection lands in it (link)
                    if (ep.conn != null) {
                        breakConnection(m, ep, peerOf(ep), "an LMR freed under a receive", false);
                    }
                }
                if (!w.done && w.srq != null && srqBufferFreed(m, w.srq)) {
                    srqReceiveMayFail(m, w);
                }
            }
        }
    }

    static boolean uses(List<Tri> segs, M.Lmr l) {
        if (segs == null) {
            return false;
        }
        for (Tri t : segs) {
            if (t.len() > 0
                    && (l.sym.equals(t.lmr()) && t.raw() == null || t.raw() != null && t.raw() == l.lmrContext)) {
                return true;
            }
        }
        return false;
    }

    /** dat_lmr_sync_rdma_read / _write over segments. */
    static Expect lmrSync(Model m, M.Ia ia, List<Tri> segs, boolean read) {
        String p = read ? "dat_lmr_sync_rdma_read" : "dat_lmr_sync_rdma_write";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        for (Tri t : segs) {
            if (t.len() == 0) {
                continue;
            }
            M.Lmr l = lmrByContext(m, ia, t.context(m));
            if (l == null) {
                e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "a segment of an unknown LMR"));
            } else if (!inRange(l, t)) {
                e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "a segment outside its LMR"));
            }
        }
        return e.alts.isEmpty() ? Expect.ok(Check.ok(p, "makes the segments' memory coherent")) : e;
    }

    /** The live LMR of {@code ia} whose lmr_context is {@code ctx}: what a provider resolves a triplet to. */
    static M.Lmr lmrByContext(Model m, M.Ia ia, int ctx) {
        for (M.Obj o : ia.objects) {
            if (o instanceof M.Lmr l && l.alive && l.lmrContext == ctx) {
                return l;
            }
        }
        return null;
    }

    static boolean inRange(M.Lmr l, Tri t) {
        return t.off() >= 0 && t.off() + t.len() <= Math.min(l.regSize, l.len);
    }

    // ------------------------------------------------------------------ EVD

    static Expect evdCreate(Model m, M.Ia ia, int qlen, M.Cno cno, Set<EvdFlag> flags) {
        String p = "dat_evd_create";
        // dat_evd_create has no man page (S8); its return codes are those of provider-api's javadoc.
        String page = "dat_evd_free";
        Expect e = new Expect();
        if (badHandle(e, ia, null, "dat_ia_query", "ia_handle")) {
            return e;
        }
        if (cno != null) {
            badHandle(e, cno, ia, "dat_evd_modify_cno", "cno_handle");
        }
        if (qlen < 1 || qlen > ia.attrs.maxEvdQlen()) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                                    "dat_evd_resize",
                                    INVALID_PARAMETER,
                                    "an EVD queue length outside " + "1..max_evd_qlen (" + ia.attrs.maxEvdQlen()
                                            + ") is invalid")
                            .choice("S8: dat_evd_create has no page; its queue length rule is dat_evd_resize's"));
        }
        if (flags.isEmpty() && e.alts.isEmpty()) {
            String s8 = "S8: dat_evd_create has no page; an EVD no stream feeds is allowed";
            e.orOk(Check.ok("dat_evd_query", "an EVD with no event stream").choice(s8), null);
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret("dat_evd_resize", INVALID_PARAMETER, "an EVD with no event stream")
                            .alternative(s8));
            return e;
        }
        if (flags.contains(EvdFlag.ASYNC) && e.alts.isEmpty()) {
            Check c = Check.ok(page, "an EVD with the asynchronous stream")
                    .choice("S8: whether a consumer may create an asynchronous EVD is the provider's");
            e.orOk(c, null);
            e.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret("dat_ep_create", MODEL_NOT_SUPPORTED, "an asynchronous EVD the " + "consumer creates")
                            .choice("S8: whether a consumer may create an asynchronous EVD is the provider's"));
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret("dat_evd_resize", INVALID_PARAMETER, "an asynchronous EVD the consumer " + "creates")
                            .choice("S8: whether a consumer may create an asynchronous EVD is the provider's"));
            return e;
        }
        if (count(m, ia, M.Evd.class) >= ia.attrs.maxEvds()) {
            e.orErr(
                    INSUFFICIENT_RESOURCES,
                    Check.ret("dat_evd_resize", INSUFFICIENT_RESOURCES, "more EVDs than max_evds"));
        }
        return e.alts.isEmpty()
                ? Expect.ok(Check.ok(
                                "dat_evd_query",
                                "dat_evd_create makes an EVD of at least "
                                        + "evd_min_qlen entries with the given streams")
                        .choice("S8: dat_evd_create has no page"))
                : e;
    }

    static Expect evdQuery(M.Evd evd) {
        Expect bad = onlyBadHandle(evd, "dat_evd_query");
        return bad != null
                ? bad
                : Expect.ok(Check.ok("dat_evd_query", "returns the EVD's queue length, state, CNO " + "and flags"));
    }

    /** What feeds an EVD: live EPs, service points and the IA's asynchronous stream. */
    static M.Obj feeder(Model m, M.Evd evd) {
        if (evd.ia.asyncEvd == evd) {
            return evd.ia;
        }
        for (M.Obj o : m.objects.values()) {
            if (!o.live()) {
                continue;
            }
            if (o instanceof M.Ep ep && (ep.recvEvd == evd || ep.reqEvd == evd || ep.connEvd == evd)) {
                return o;
            }
            if (o instanceof M.Psp sp && sp.evd == evd || o instanceof M.Rsp rp && rp.evd == evd) {
                return o;
            }
        }
        return null;
    }

    static Expect evdFree(Model m, M.Evd evd) {
        String p = "dat_evd_free";
        Expect bad = onlyBadHandle(evd, p);
        if (bad != null) {
            return bad;
        }
        M.Obj f = feeder(m, evd);
        if (f != null) {
            return new Expect()
                    .orErrChoice(
                            INVALID_STATE,
                            Check.ret(p, INVALID_STATE, "an EVD an event stream feeds (" + f + ") cannot be freed")
                                    .rows("4.1#8"),
                            DatReturnSubtype.INVALID_STATE_EVD_IN_USE);
        }
        return Expect.ok(Check.ok(p, "destroys the EVD; its queued events are lost"), v -> evd.alive = false);
    }

    static Expect evdModifyCno(M.Evd evd, M.Cno cno) {
        String p = "dat_evd_modify_cno";
        Expect e = new Expect();
        if (badHandle(e, evd, null, p, "evd_handle")) {
            return e;
        }
        if (cno != null) {
            badHandle(e, cno, evd.ia, p, "cno_handle");
        }
        return e.alts.isEmpty()
                ? Expect.ok(Check.ok(p, "the EVD notifies the new CNO"), v -> {
                    if (evd.cno != null) {
                        evd.oldCnos.add(evd.cno);
                    }
                    evd.cno = cno;
                    if (cno != null) {
                        cno.fed = true;
                    }
                })
                : e;
    }

    static Expect evdSimple(M.Evd evd, String page, String rule, Runnable effect) {
        Expect bad = onlyBadHandle(evd, page);
        return bad != null ? bad : Expect.ok(Check.ok(page, rule), v -> effect.run());
    }

    static Expect evdResize(Model m, M.Evd evd, int n) {
        String p = "dat_evd_resize";
        Expect e = new Expect();
        if (badHandle(e, evd, null, p, "evd_handle")) {
            return e;
        }
        if (n < 1 || n > evd.ia.attrs.maxEvdQlen()) {
            e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "evd_min_qlen outside 1..max_evd_qlen"));
            return e;
        }
        Model.Count c = m.count(evd);
        Check below = Check.ret(p, INVALID_STATE, "a queue length below the events queued")
                .rows("4.1#9");
        if (n < c.certain()) {
            return e.orErr(INVALID_STATE, below);
        }
        if (n < c.possible()) {
            e.orErr(INVALID_STATE, below);
        }
        e.orOk(Check.ok(p, "the queue holds at least evd_min_qlen events; no event is lost"), v -> {
            evd.minQlen = n;
            evd.qlen = -1;
            if (n < m.count(evd).possible()) {
                evd.unreliable = true;
            }
        });
        return e;
    }

    static Expect evdPostSe(Model m, M.Evd evd, Object pointer) {
        String p = "dat_evd_post_se";
        Expect e = new Expect();
        if (badHandle(e, evd, null, p, "evd_handle")) {
            return e;
        }
        if (!evd.flags.contains(EvdFlag.SOFTWARE)) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                            p,
                            INVALID_PARAMETER,
                            "an EVD without the software event stream does "
                                    + "not take software events (provider-api: the EVD does not take software events)"));
            return e;
        }
        Model.Count c = m.count(evd);
        int qlen = evd.qlen > 0 ? evd.qlen : evd.minQlen;
        Check full = Check.ret(p, QUEUE_FULL, "a full queue refuses the event; it is not queued")
                .rows("4.1#10");
        if (evd.unreliable) {
            e.orErr(QUEUE_FULL, full);
        } else if (c.certain() >= qlen) {
            return e.orErr(QUEUE_FULL, full);
        } else if (c.possible() >= qlen || evd.qlen < 0) {
            e.orErr(QUEUE_FULL, full);
        }
        e.orOk(Check.ok(p, "queues a software event with the consumer's pointer"), v -> {
            evd.software.add(new M.SoftwareEv(pointer));
            // with this event the EVD may now hold more than its queue: a connection request still to come to it
            // may find it full (dat_psp_create: the EVD's queue is the backlog)
            m.count(evd);
        });
        return e;
    }

    /** Whether a DTO stream feeding {@code evd} uses consumer-controlled notification (dat_evd_wait). */
    static boolean consumerControlled(Model m, M.Evd evd) {
        for (M.Ep ep : m.live(M.Ep.class)) {
            if (ep.attrs == null) {
                continue;
            }
            if (ep.recvEvd == evd
                    && (ep.attrs.recvCompletionFlags().contains(CompletionFlag.UNSIGNALLED)
                            || ep.attrs.recvCompletionFlags().contains(CompletionFlag.SOLICITED_WAIT))) {
                return true;
            }
            if (ep.reqEvd == evd && ep.attrs.requestCompletionFlags().contains(CompletionFlag.UNSIGNALLED)) {
                return true;
            }
        }
        return false;
    }

    static Expect evdWait(Model m, M.Evd evd, int threshold, boolean nullTimeout) {
        String p = "dat_evd_wait";
        Expect e = new Expect();
        if (badHandle(e, evd, null, p, "evd_handle")) {
            return e;
        }
        int qlen = evd.qlen > 0 ? evd.qlen : evd.minQlen;
        if (nullTimeout) {
            e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "the timeout parameter is invalid (null)"));
        }
        if (threshold < 1 || threshold > qlen) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "a threshold below 1 or above the EVD's queue " + "length")
                            .rows("4.1#3"));
        }
        if (!evd.waitable) {
            e.orErrChoice(
                    INVALID_STATE,
                    Check.ret(p, INVALID_STATE, "a wait on an unwaitable EVD").rows("4.1#2"),
                    DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE);
        }
        if (threshold > 1 && threshold <= qlen && consumerControlled(m, evd)) {
            e.orErrChoice(
                    INVALID_STATE,
                    Check.ret(
                                    p,
                                    INVALID_STATE,
                                    "a threshold other than 1 on an EVD fed by an "
                                            + "unsignalled or solicited-wait stream")
                            .rows("4.1#4"),
                    DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY);
        }
        if (evd.qlen < 0 && threshold > evd.minQlen) {
            e.orOk(Check.ok(p, "a threshold within the resized queue length"), null);
        }
        return e.alts.isEmpty()
                ? Expect.ok(Check.ok(p, "returns an event, or times out with fewer than threshold"))
                : e;
    }

    static Expect evdDequeue(M.Evd evd) {
        Expect bad = onlyBadHandle(evd, "dat_evd_dequeue");
        return bad != null
                ? bad
                : Expect.ok(Check.ok("dat_evd_dequeue", "removes the first event, or returns " + "DAT_QUEUE_EMPTY"));
    }

    // ------------------------------------------------------------------ CNO

    static Expect cnoCreate(Model m, M.Ia ia) {
        String p = "dat_cno_create";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        return Expect.ok(Check.ok(p, "creates a CNO"));
    }

    static Expect cnoFree(Model m, M.Cno cno) {
        String p = "dat_cno_free";
        Expect bad = onlyBadHandle(cno, p);
        if (bad != null) {
            return bad;
        }
        for (M.Evd evd : m.live(M.Evd.class)) {
            if (evd.cno == cno) {
                return new Expect()
                        .orErrChoice(
                                INVALID_STATE,
                                Check.ret(p, INVALID_STATE, "a CNO an EVD refers to (" + evd + ") cannot be freed"),
                                DatReturnSubtype.INVALID_STATE_CNO_IN_USE);
            }
        }
        return Expect.ok(Check.ok(p, "destroys the CNO"), v -> cno.alive = false);
    }

    static Expect cnoQuery(M.Cno cno) {
        Expect bad = onlyBadHandle(cno, "dat_cno_query");
        return bad != null ? bad : Expect.ok(Check.ok("dat_cno_query", "returns the CNO's IA and agent"));
    }

    static Expect cnoModifyAgent(M.Cno cno, Object agent) {
        Expect bad = onlyBadHandle(cno, "dat_cno_modify_agent");
        return bad != null
                ? bad
                : Expect.ok(Check.ok("dat_cno_modify_agent", "replaces the wait proxy agent"), v -> {
                    cno.agent = agent;
                    // the new agent can be invoked only by a trigger from now on (the EVDs feeding the CNO now)
                    cno.fed = false;
                });
    }

    static Expect cnoWait(M.Cno cno, boolean nullTimeout) {
        String p = "dat_cno_wait";
        Expect e = new Expect();
        if (badHandle(e, cno, null, p, "cno_handle")) {
            return e;
        }
        if (nullTimeout) {
            return e.orErr(
                    INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "the timeout parameter is invalid (null)"));
        }
        return Expect.ok(Check.ok(p, "returns a notification or times out"));
    }

    // ------------------------------------------------------------------ EP

    /** The DAT_INVALID_STATE subtype naming an EP state (dat_error.h); which one is the provider's choice. */
    static DatReturnSubtype stateSubtype(EndpointState s) {
        return switch (s) {
            case UNCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED;
            case RESERVED -> DatReturnSubtype.INVALID_STATE_EP_RESERVED;
            case PASSIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING;
            case TENTATIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING;
            case ACTIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING;
            case COMPLETION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING;
            case CONNECTED -> DatReturnSubtype.INVALID_STATE_EP_CONNECTED;
            case DISCONNECT_PENDING -> DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            case DISCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED;
            default -> DatReturnSubtype.INVALID_STATE_EP_NOTREADY;
        };
    }

    /** DAT_INVALID_STATE for an EP in state {@code s}, citing {@code rows}. */
    static Expect wrongState(String page, EndpointState s, String rule, String... rows) {
        return new Expect()
                .orErrChoice(
                        INVALID_STATE,
                        Check.ret(page, INVALID_STATE, rule + " (EP in " + s + ")")
                                .rows(rows),
                        stateSubtype(s));
    }

    static final String STATE_SUB = "the DAT_INVALID_STATE subtype names the EP's state (dat_error.h)";

    static final String NOT_READY =
            "an EP without a PZ or a DTO EVD has no transport queue yet: not ready (dat_ep_create: "
                    + "the EP may not be usable for posts or connections until what it needs is set)";

    /** An EP missing its PZ or a DTO EVD may be refused as not ready, or work. */
    static Expect notReady(String page, M.Ep ep) {
        Expect e = new Expect();
        if (ep.pz == null) {
            e.orErrChoice(
                    INVALID_STATE,
                    Check.ret(page, INVALID_STATE, "an EP without a PZ").choice(NOT_READY),
                    DatReturnSubtype.INVALID_STATE_EP_NOTREADY);
        } else if (ep.recvEvd == null || ep.reqEvd == null) {
            e.orErrChoice(
                    INVALID_STATE,
                    Check.ret(page, INVALID_STATE, "an EP without a DTO EVD").alternative(NOT_READY_EVD),
                    DatReturnSubtype.INVALID_STATE_EP_NOTREADY);
        }
        return e;
    }

    static final String NOT_READY_EVD = "an EP with a NULL recv or request EVD (dat_ep_create: the consumer is not "
            + "interested in those completions) may work without events or be refused as not ready";

    /**
     * Works just posted on a stream without an EVD complete without an event at a time the model cannot see:
     * the memory they write is no longer known, and a failure that would break the connection may have.
     */
    static void noEvdStreams(Model m, M.Ep ep) {
        for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.recvs)) {
            if ((q == ep.requests ? ep.reqEvd : ep.recvEvd) != null) {
                continue;
            }
            for (M.Work w : q) {
                if (w.noEvd) {
                    continue;
                }
                w.noEvd = true;
                if (w.dest != null) {
                    for (M.Seg s : w.dest) {
                        s.mem().taint();
                    }
                }
                if (w.breakOnError
                        || w.kind == M.WorkKind.RDMA_READ
                        || w.kind == M.WorkKind.RDMA_WRITE
                        || w.kind == M.WorkKind.BIND) {
                    ep.wild |= w.breakOnError || w.possible.size() > 1;
                    if (ep.peer != null) {
                        ep.peer.wild |= ep.wild;
                    }
                }
            }
        }
    }

    static Expect epCreate(
            Model m, M.Ia ia, M.Pz pz, M.Evd recv, M.Evd req, M.Evd conn, EpAttributes a, M.Srq srq, boolean withSrq) {
        String p = withSrq ? "dat_ep_create_with_srq" : "dat_ep_create";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        badHandle(e, pz, ia, p, "pz_handle");
        badHandle(e, recv, ia, p, "recv_evd_handle");
        badHandle(e, req, ia, p, "request_evd_handle");
        badHandle(e, conn, ia, p, "connect_evd_handle");
        if (withSrq) {
            badHandle(e, srq, ia, p, "srq_handle");
            if (a == null) {
                e.orErr(
                        INVALID_PARAMETER,
                        Check.ret(p, INVALID_PARAMETER, "ep_attributes must not be NULL for an EP " + "with an SRQ"));
            }
            if (srq != null
                    && srq.live()
                    && pz != null
                    && pz.live()
                    && srq.pz != pz
                    && !ia.providerAttrs.srqEpPzDifferenceSupported()) {
                e.orErr(
                        INVALID_PARAMETER,
                        Check.ret(
                                        p,
                                        INVALID_PARAMETER,
                                        "a PZ other than the SRQ's while " + "srq_ep_pz_difference_supported is false")
                                .rows("5#4"));
            }
        }
        if (pz == null) {
            e.orErr(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "a NULL pz_handle")
                            .choice("an EP the consumer creates needs a PZ (only provider EPs start without one)"));
            e.orOk(
                    Check.ok(p, "an EP with a NULL PZ")
                            .alternative("an EP the consumer creates needs a PZ (only provider EPs start without one)"),
                    null);
        }
        streamFlag(e, p, recv, EvdFlag.DTO, "recv_evd_handle");
        streamFlag(e, p, req, EvdFlag.DTO, "request_evd_handle");
        streamFlag(e, p, conn, EvdFlag.CONNECTION, "connect_evd_handle");
        if (a != null) {
            attrErrors(e, p, ia, a, withSrq);
        }
        mixedNotification(e, p, m, recv, req, a);
        thresholdOnly(e, p, recv, req, conn, a);
        limit(e, m, ia, M.Ep.class, ia.attrs.maxEps(), p, "max_eps");
        if (e.alts.isEmpty()) {
            e.orOk(
                    Check.ok(p, "the Endpoint is created in the Unconnected state")
                            .rows("2.1#8"),
                    null);
        }
        return e;
    }

    static final String FED_BY_OTHERS = "dat_ep_create: 'fed by' other event streams is the EVD's own connection "
            + "stream, or any EVD created for connection, CR, async or software events";

    /**
     * dat_ep_create: "If request_evd_handle (recv_evd_handle) is used for an EVD that is fed by any event stream
     * other than DTO or RMR completion event streams, only DAT_COMPLETION_THRESHOLD is valid for Request/Recv
     * Completion Flags": an UNSIGNALLED (or SOLICITED_WAIT receive) stream may not use it. The EP's own connection
     * stream surely feeds its connect_evd; an EVD merely created for other streams may be read either way.
     */
    static void thresholdOnly(Expect e, String p, M.Evd recv, M.Evd req, M.Evd conn, EpAttributes a) {
        if (a == null) {
            return;
        }
        boolean recvC = a.recvCompletionFlags().contains(CompletionFlag.UNSIGNALLED)
                || a.recvCompletionFlags().contains(CompletionFlag.SOLICITED_WAIT);
        boolean reqC = a.requestCompletionFlags().contains(CompletionFlag.UNSIGNALLED);
        boolean sure = false;
        boolean maybe = false;
        for (M.Evd evd : new M.Evd[] {recv, req}) {
            if (evd == null || !evd.live() || !(evd == recv ? recvC : reqC)) {
                continue;
            }
            if (evd == conn) {
                sure = true;
            } else if (evd.flags.contains(EvdFlag.CONNECTION)
                    || evd.flags.contains(EvdFlag.CR)
                    || evd.flags.contains(EvdFlag.ASYNC)
                    || evd.flags.contains(EvdFlag.SOFTWARE)) {
                maybe = true;
            }
        }
        if (!sure && !maybe) {
            return;
        }
        boolean wasEmpty = e.alts.isEmpty();
        Check c = Check.ret(
                p,
                INVALID_PARAMETER,
                "a DTO stream that is not threshold-controlled on an EVD fed by other event streams");
        e.orErr(INVALID_PARAMETER, sure ? c : c.choice(FED_BY_OTHERS));
        if (!sure && wasEmpty) {
            e.orOk(
                    Check.ok(p, "the Endpoint is created in the Unconnected state; its EVD is not yet fed by others")
                            .alternative(FED_BY_OTHERS),
                    null);
        }
    }

    static final String MIXED = "the DTO streams of one EVD agree on consumer-controlled notification (provider-api "
            + "dat_ep_create: completion flags that do not match another stream of the same EVD; dat_evd_wait's threshold "
            + "rule needs it)";

    /** A new EP whose DTO streams would feed an EVD with both unsignalled and signalled streams. */
    static void mixedNotification(Expect e, String p, Model m, M.Evd recv, M.Evd req, EpAttributes a) {
        mixedNotification(e, p, m, recv, req, a, null);
    }

    static void mixedNotification(Expect e, String p, Model m, M.Evd recv, M.Evd req, EpAttributes a, M.Ep exclude) {
        boolean recvU = a != null && a.recvCompletionFlags().contains(CompletionFlag.UNSIGNALLED);
        boolean reqU = a != null && a.requestCompletionFlags().contains(CompletionFlag.UNSIGNALLED);
        for (M.Evd evd : new M.Evd[] {recv, req}) {
            if (evd == null || !evd.live()) {
                continue;
            }
            Set<Boolean> kinds = new java.util.HashSet<>();
            if (evd == recv) {
                kinds.add(recvU);
            }
            if (evd == req) {
                kinds.add(reqU);
            }
            for (M.Ep o : m.live(M.Ep.class)) {
                if (o.attrs == null || o == exclude) {
                    continue;
                }
                if (o.recvEvd == evd) {
                    kinds.add(o.attrs.recvCompletionFlags().contains(CompletionFlag.UNSIGNALLED));
                }
                if (o.reqEvd == evd) {
                    kinds.add(o.attrs.requestCompletionFlags().contains(CompletionFlag.UNSIGNALLED));
                }
            }
            if (kinds.size() > 1) {
                e.orErr(
                        INVALID_PARAMETER,
                        Check.ret(
                                        p,
                                        INVALID_PARAMETER,
                                        "an EVD would be fed by unsignalled and " + "signalled DTO streams")
                                .choice(MIXED));
                if (e.alts.size() == 1) {
                    e.orOk(
                            Check.ok(p, "an EVD fed by unsignalled and signalled DTO streams")
                                    .alternative(MIXED),
                            null);
                }
                return;
            }
        }
    }

    private static void streamFlag(Expect e, String p, M.Evd evd, EvdFlag needed, String what) {
        if (evd != null && evd.live() && !evd.flags.contains(needed)) {
            String choice = "an EVD without the stream a role needs is an invalid handle or parameter";
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, what + " of an EVD without the " + needed + " stream")
                            .choice(choice));
            e.orErr(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, what + " of an EVD without the " + needed + " stream")
                            .choice(choice));
        }
    }

    /** The EP attributes a provider with the IA attributes must refuse. */
    static void attrErrors(Expect e, String p, M.Ia ia, EpAttributes a, boolean withSrq) {
        var ia2 = ia.attrs;
        List<String> bad = new ArrayList<>();
        if (a.maxRecvDtos() > ia2.maxDtoPerEp()) {
            bad.add("max_recv_dtos " + a.maxRecvDtos() + " > max_dto_per_ep");
        }
        if (a.maxRequestDtos() > ia2.maxDtoPerEp()) {
            bad.add("max_request_dtos " + a.maxRequestDtos() + " > max_dto_per_ep");
        }
        if (!withSrq && a.maxRecvIov() > ia2.maxIovSegmentsPerDto()) {
            bad.add("max_recv_iov > max_iov_segments_per_dto");
        }
        if (a.maxRequestIov() > ia2.maxIovSegmentsPerDto()) {
            bad.add("max_request_iov > max_iov_segments_per_dto");
        }
        if (a.maxMessageSize() > ia2.maxMessageSize()) {
            bad.add("max_message_size > the IA's");
        }
        if (a.maxRdmaSize() > ia2.maxRdmaSize()) {
            bad.add("max_rdma_size > the IA's");
        }
        if (a.maxRdmaReadIn() > ia2.maxRdmaReadPerEpIn() || a.maxRdmaReadOut() > ia2.maxRdmaReadPerEpOut()) {
            bad.add("RDMA Read limits beyond the IA's");
        }
        if (a.maxRdmaReadIov() > ia2.maxIovSegmentsPerRdmaRead()) {
            bad.add("max_rdma_read_iov beyond the IA's");
        }
        if (!ia.providerAttrs.qosSupported().contains(a.qos())) {
            e.orErr(MODEL_NOT_SUPPORTED, Check.ret(p, MODEL_NOT_SUPPORTED, "a qos the provider does not support"));
            e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "a qos the provider does not support"));
        }
        if (!bad.isEmpty()) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "an EP attribute the IA cannot give: " + bad.get(0)));
            e.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(p, MODEL_NOT_SUPPORTED, "an EP attribute the IA cannot give: " + bad.get(0)));
        }
    }

    static Expect epQuery(Model m, M.Ep ep) {
        Expect bad = onlyBadHandle(ep, "dat_ep_query");
        if (bad != null) {
            return bad;
        }
        return Expect.ok(Check.ok("dat_ep_query", "returns the EP's parameters"));
    }

    static String queryRow(EndpointState s) {
        return switch (s) {
            case UNCONNECTED -> "2.1#9";
            case COMPLETION_PENDING -> "2.6#2";
            default -> "4#10";
        };
    }

    static Expect epStatus(Model m, M.Ep ep) {
        Expect bad = onlyBadHandle(ep, "dat_ep_get_status");
        if (bad != null) {
            return bad;
        }
        return Expect.ok(Check.ok("dat_ep_get_status", "returns the EP's state and whether it is idle"));
    }

    static Expect epFree(Model m, M.Ep ep) {
        String p = "dat_ep_free";
        Expect bad = onlyBadHandle(ep, p);
        if (bad != null) {
            return bad;
        }
        return m.byState(ep, s -> switch (s) {
            case RESERVED ->
                wrongState(p, s, "an EP bound to an RSP cannot be freed: free the RSP first", "2.2#4", "4#5");
            case PASSIVE_CONNECTION_PENDING ->
                wrongState(p, s, "an EP with a pending request cannot be freed: reject it", "2.3#4", "4#5");
            case TENTATIVE_CONNECTION_PENDING ->
                wrongState(
                        p,
                        s,
                        "a provider EP of a pending request cannot be freed: " + "reject the request",
                        "2.4#5",
                        "4#5");
            default -> {
                Check c = Check.ok(p, "destroys the EP in " + s)
                        .rows(
                                switch (s) {
                                    case UNCONNECTED -> "2.1#8";
                                    case ACTIVE_CONNECTION_PENDING -> "2.5#7";
                                    case CONNECTED -> "2.7#13";
                                    case DISCONNECTED -> "2.9#7";
                                    default -> "4#5";
                                });
                if (s == COMPLETION_PENDING) {
                    c = c.choice("C5: dat_ep_free refuses only RESERVED and the two request-pending states");
                }
                yield Expect.ok(c, v -> endEp(m, ep, p));
            }
        });
    }

    /** The EP is destroyed (dat_ep_free, dat_ia_close): its connection ends, its events may stay or go. */
    static void endEp(Model m, M.Ep ep, String page) {
        EndpointState s = ep.state;
        ep.alive = false;
        for (M.Work w : ep.requests) {
            w.certain = false;
            w.possible.addAll(ANY_ERROR);
        }
        for (M.Work w : ep.recvs) {
            w.certain = false;
            w.possible.addAll(ANY_ERROR);
        }
        m.arrivedToMaybe(ep);
        for (M.Slot sl : ep.pending) {
            m.maybeOneOf(ep, sl.alternatives);
        }
        ep.pending.clear();
        M.Ep peer = ep.peer;
        M.Conn conn = ep.conn;
        M.Ep other = peer != null ? peer : conn == null ? null : conn.active == ep ? conn.passive : conn.active;
        M.Slot otherBreak =
                other != null && other.alive && !onAnotherConnection(other, conn) ? pendingEnd(other) : null;
        if (otherBreak != null) {
            // the other side's EP breaking by a transfer error not seen yet: this EP's end may reach it first (S1)
            endRacesBreak(
                    otherBreak,
                    Check.ok(
                                    "dat_ep_disconnect",
                                    "the end of the other side's EP (" + page + ") reaching an EP before the transfer "
                                            + "error breaking the connection is seen is reported as for any peer end: "
                                            + "DAT_CONNECTION_EVENT_DISCONNECTED")
                            .rows("2.7#11")
                            .choice("S1: the natural reading, DISCONNECTED"));
        }
        // a peer that was reset since (and may have connected again) has left this connection: it learns nothing
        if (peer != null && peer.alive && !onAnotherConnection(peer, conn) && peerConnectedOrSoon(peer)) {
            peerEnds(m, peer, "the peer's EP was destroyed");
        } else if (conn != null && conn.active == ep) {
            // the active side abandons its request: a passive EP that accepted it cannot be predicted (S1)
            if (conn.fork.chosen == null) {
                conn.fork.chosen = "aborted";
            }
            conn.aborted = true;
            abandonArrivals(m, conn);
            if (conn.passive != null && conn.passive.alive && !ended(conn.passive, conn)) {
                conn.passive.wild = true;
            }
        } else if (conn != null && conn.passive == ep && conn.active.alive && !ended(conn.active, conn)) {
            // the passive side abandons an accepted request: what the requester sees is silent (S1); an active EP whose
            // end of this connection was already reported (DISCONNECTED, nothing pending) or that was reset since
            // sees nothing of it
            conn.active.wild = true;
        }
        dropWaiting(ep);
        ep.state = s;
    }

    /**
     * True if {@code y} was reset since it was on {@code conn} and has made or accepted another connection
     * (dat_ep_reset(3DAT) took it back to UNCONNECTED): the end of {@code conn} is nothing to it.
     */
    static boolean onAnotherConnection(M.Ep y, M.Conn conn) {
        return y.conn != null && conn != null && y.conn != conn;
    }

    /** True if {@code y}'s part in {@code conn} is over: DISCONNECTED with nothing pending, or reset since. */
    static boolean ended(M.Ep y, M.Conn conn) {
        return y.conn != conn || y.state == DISCONNECTED && y.pending.isEmpty();
    }

    static boolean peerConnectedOrSoon(M.Ep y) {
        return y.possibleStates().contains(CONNECTED) || y.possibleStates().contains(DISCONNECT_PENDING);
    }

    /** A request the active side abandoned may still arrive, or not. */
    static void abandonArrivals(Model m, M.Conn conn) {
        for (List<M.Arrival> l : m.arrivals.values()) {
            for (int i = 0; i < l.size(); i++) {
                M.Arrival a = l.get(i);
                if (a.conn == conn && a.certain) {
                    l.set(i, new M.Arrival(a.conn, a.sp, a.evd, false, a.check));
                }
            }
        }
    }

    /** Sends waiting for a receive at {@code ep}'s peer stop waiting (the connection is gone). */
    static void dropWaiting(M.Ep ep) {
        if (ep.peer != null) {
            ep.peer.waitingSends.removeIf(w -> w.ep == ep);
        }
        ep.waitingSends.clear();
    }

    /**
     * The other side ended the connection (disconnect, free, close): the peer's EP goes to
     * DISCONNECTED with a connection event, its outstanding work flushed. Which event is SILENT (S1);
     * the recorded reading is DAT_CONNECTION_EVENT_DISCONNECTED, BROKEN is accepted as the alternative.
     */
    static void peerEnds(Model m, M.Ep y, String why) {
        peerEnds(m, y, why, true);
    }

    /**
     * As {@link #peerEnds(Model, M.Ep, String)}; {@code certain} is false where the other side's end itself may
     * never come (a graceful disconnect waiting for request DTOs that need something else first).
     */
    static M.Slot peerEnds(Model m, M.Ep y, String why, boolean certain) {
        Check dis = Check.ok(
                        "dat_ep_disconnect",
                        "the peer of a disconnected EP gets DAT_CONNECTION_EVENT_DISCONNECTED "
                                + "on connect_evd and goes to DISCONNECTED (" + why + ")")
                .rows("2.7#11")
                .choice("S1: the natural reading, DISCONNECTED");
        Check brk = dis.rule("the peer of a disconnected EP gets DAT_CONNECTION_EVENT_BROKEN (" + why + ")")
                .alternative("S1: the natural reading is DISCONNECTED");
        M.Fork f = m.localFork("peer-end " + y.sym);
        Runnable flush = () -> {
            flushAll(y);
            dropWaiting(y);
        };
        if (y.state == DISCONNECTED && y.pending.isEmpty()) {
            return null;
        }
        // an EP the model does not follow (wild) may have left the connection already: its connection events were
        // dequeued unchecked (seed 2336: the BROKEN of a remote access error, "results in an error and broken
        // connection on which it was used", dat_lmr_free(3DAT)), and an EP in DISCONNECTED gets no second end
        // (ep-state-machine.md 2.9: dat_ep_disconnect there is a no-op): its end may come, or may have come
        boolean sure = certain && !y.wild;
        // a graceful disconnect of y itself already pending: its end comes either way
        for (M.Slot s : y.pending) {
            for (M.Step st : s.viable()) {
                if (st.to == DISCONNECTED) {
                    s.certain |= sure;
                    if (st.event != null) {
                        // a transfer error's break of y not seen yet: the other side's end may reach y first
                        endRacesBreak(
                                s,
                                dis.rule("the other side's end reaching an EP before the transfer error breaking "
                                        + "the connection is seen is reported as for any peer end: "
                                        + "DAT_CONNECTION_EVENT_DISCONNECTED (" + why + ")"));
                    }
                    return s;
                }
            }
        }
        M.Slot end = m.pend(
                y,
                sure,
                new M.Step(DISCONNECTED, EventNumber.CONNECTION_EVENT_DISCONNECTED, null, f, "dis", dis, flush),
                new M.Step(DISCONNECTED, EventNumber.CONNECTION_EVENT_BROKEN, null, f, "brk", brk, flush));
        y.peerEnding = true;
        // an end that may never come (a graceful disconnect of the other side waiting for a Send that needs a receive
        // y never posts: seeds 3487, 4406) completes nothing for certain: y's works stay as certain as they were
        List<M.Work> open = new ArrayList<>();
        for (java.util.ArrayDeque<M.Work> q : List.of(y.requests, y.recvs)) {
            for (M.Work w : q) {
                if (!sure && !w.done && !w.certain) {
                    open.add(w);
                }
            }
        }
        inProgress(y);
        for (M.Work w : open) {
            w.certain = false;
        }
        return end;
    }

    /** Work in progress when the connection ends may complete either way (dat_ep_disconnect). */
    static void inProgress(M.Ep ep) {
        for (M.Work w : ep.requests) {
            if (!w.done) {
                w.possible.addAll(ANY_ERROR);
                w.certain = true;
            }
        }
        for (M.Work w : ep.recvs) {
            if (!w.done) {
                if (w.peer == null && !w.maybeBroken) {
                    w.possible = EnumSet.of(DtoCompletionStatus.ERR_FLUSHED);
                } else {
                    w.possible.addAll(ANY_ERROR);
                }
                // an SRQ buffer the model expects a message to take: dat_srq_post_recv(3DAT) flushes only "the
                // buffers that it dequeued from SRQ"; a message still on its way when the connection ended takes
                // none, and the buffer stays on the SRQ (unless the send's success showed the message arrived)
                w.certain = !srqMessageMayNotArrive(w);
                if (w.srq != null && w.check != null && !w.check.clauses().contains("5#9")) {
                    // a buffer the EP took from its SRQ completes to the EP's recv_evd, flushed without a message
                    w.check = w.check.rows("5#9");
                }
            }
        }
    }

    /**
     * A receive the model holds for a message to an SRQ EP that may still not have arrived when the connection
     * ended: it takes a buffer only if the message arrived (a Send seen to succeed shows it did). A Send that
     * completed unsuccessfully shows nothing: "all outstanding DTOs ... are completed unsuccessfully, and
     * in-progress DTOs ... can be completed successfully or unsuccessfully" (dat_ep_disconnect(3DAT)), so a flushed
     * Send may never have left, and dat_srq_post_recv(3DAT) completes to the EP only "the buffers that it dequeued
     * from SRQ".
     */
    static boolean srqMessageMayNotArrive(M.Work w) {
        return w.srq != null && w.cookie == Long.MIN_VALUE && (w.peer == null || !w.peer.done || w.peer.failed);
    }

    /** The EP left the connection: its receives without a message are flushed, the rest may go either way. */
    static void flushAll(M.Ep ep) {
        inProgress(ep);
    }

    static Expect epReset(Model m, M.Ep ep) {
        String p = "dat_ep_reset";
        Expect bad = onlyBadHandle(ep, p);
        if (bad != null) {
            return bad;
        }
        return m.byState(ep, s -> switch (s) {
            case UNCONNECTED ->
                Expect.ok(
                        Check.ok(p, "a reset of an unconnected EP is a no-op; pre-posted receives " + "stay")
                                .rows("2.1#7", "4#4"),
                        v -> {
                            if (ep.wild) {
                                // an EP the model does not follow may have been DISCONNECTED: whatever it held
                                // of its connection is gone either way
                                reset(m, ep);
                            } else if (!ep.pending.isEmpty()
                                    && ep.possibleStates().contains(DISCONNECTED)) {
                                // an accepted EP the model still holds in its state before the accept, its
                                // connection under way and maybe already ended: "The dat_ep_reset() function is
                                // valid for both Disconnected and Unconnected states" (dat_ep_reset(3DAT)), and
                                // after a successful dat_cr_accept the EP has left UNCONNECTED (S4: it waits in
                                // COMPLETION_PENDING, where a reset is DAT_INVALID_STATE), so DAT_SUCCESS says the
                                // connection ended (ACCEPT_COMPLETION_ERROR, or ESTABLISHED and then its end) and
                                // the EP is UNCONNECTED again. Which way it ended is not resolved here: each pending
                                // slot's event stays one that may still come ("might cause the loss of any
                                // completions", dat_ep_reset), ESTABLISHED included
                                reset(m, ep);
                            } else if (acceptInFlight(ep)) {
                                resetOrNoOp(ep);
                            }
                        });
            case DISCONNECTED ->
                Expect.ok(
                        Check.ok(
                                        p,
                                        "a disconnected EP goes back to Unconnected; completions not yet "
                                                + "dequeued may be lost")
                                .rows("2.9#1", "4#4"),
                        v -> reset(m, ep));
            default -> wrongState(p, s, "dat_ep_reset is valid only in DISCONNECTED and UNCONNECTED", "4#4");
        });
    }

    /** True if {@code ep} accepted a connection whose steps (COMPLETION_PENDING, its outcome, its end) still pend. */
    static boolean acceptInFlight(M.Ep ep) {
        return ep.conn != null && ep.conn.passive == ep && !ep.pending.isEmpty();
    }

    /**
     * A successful dat_ep_reset of an EP the model still holds in UNCONNECTED after a successful dat_cr_accept,
     * its accepted connection in flight. dat_ep_reset(3DAT): "The dat_ep_reset() function is valid for both
     * Disconnected and Unconnected states. For Unconnected state, the operation is no-op because the Endpoint is
     * already in an Unconnected state." Which state the EP is in between the accept and ESTABLISHED is S4
     * (ep-state-machine.md: SILENT, "The state name of an EP between dat_cr_accept returning and ESTABLISHED"),
     * and dat_cr_accept(3DAT) may end the accept in Disconnected ("If Connection is not established, Endpoint
     * transitions into Disconnected state"), as the peer's end may. So the pages allow both: a no-op on an EP
     * still UNCONNECTED whose connection goes on (its events come, its receives flush at its end), or a reset of
     * an EP already DISCONNECTED ("transitions the local Endpoint from a Disconnected to an Unconnected state":
     * nothing of that connection comes any more, completions not dequeued "might" be lost, a receive posted
     * afterwards waits for the next connection). The model holds both: the connection's steps may or may not
     * come, its work and every receive posted later may or may not complete, and unsuccessfully if they do.
     */
    static void resetOrNoOp(M.Ep ep) {
        for (M.Slot s : ep.pending) {
            s.certain = false;
        }
        for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.recvs)) {
            for (M.Work w : q) {
                if (!w.done) {
                    w.certain = false;
                    w.possible.addAll(ANY_ERROR);
                }
            }
        }
        ep.peerEnding = false;
        ep.mayBreak = true;
        ep.resetOrNoOp = true;
    }

    static void reset(Model m, M.Ep ep) {
        ep.state = UNCONNECTED;
        // A connection event the provider may have posted before the reset (the DISCONNECTED of an aborted
        // establishment, SILENT in dat_ep_disconnect) stays on the connect EVD: it may still be dequeued.
        // An EP without a connect EVD had nowhere to post its connection's events (dat_ep_create(3DAT):
        // "DAT_HANDLE_NULL specifies that the Consumer is not interested in connection events for now"; the EVD
        // cannot change between connect and reset, dat_ep_modify): none of them can be dequeued later from an
        // EVD dat_ep_modify gives it after the reset.
        boolean couldPost = ep.connEvd != null;
        for (M.Slot slot : ep.pending) {
            if (couldPost) {
                m.maybeOneOf(ep, slot.viable());
            }
        }
        ep.pending.clear();
        if (!couldPost) {
            ep.arrived.clear();
        }
        for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.recvs)) {
            for (M.Work w : q) {
                if (!w.done) {
                    w.certain = false;
                    w.possible.addAll(ANY_ERROR);
                    ep.orphans.add(w);
                }
            }
            q.clear();
        }
        m.arrivedToMaybe(ep);
        // dat_ep_reset(3DAT) takes the EP back to UNCONNECTED: its connection is over for both ends, so a Send of the
        // former peer that waited here for a receive takes none posted after the reset (as matchSend refuses one
        // posted after it); whether the former peer's Send fails or keeps waiting is its end's business
        for (M.Work s : ep.waitingSends) {
            s.possible.addAll(ANY_ERROR);
            s.data = null;
        }
        ep.waitingSends.clear();
        ep.peer = null;
        ep.conn = null;
        ep.reqFailed = false;
        ep.recvFailed = false;
        ep.breaking = false;
        ep.errorBreak = false;
        ep.peerEnding = false;
        ep.mayBreak = false;
        ep.resetOrNoOp = false;
    }

    static Expect epDisconnect(Model m, M.Ep ep, CloseFlag flag) {
        String p = "dat_ep_disconnect";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        if (flag == null) {
            return e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "the disconnect_flags parameter is " + "invalid (null)"));
        }
        boolean graceful = flag == CloseFlag.GRACEFUL;
        Set<EndpointState> may = ep.possibleStates();
        boolean ambiguous = (may.contains(ACTIVE_CONNECTION_PENDING) || may.contains(COMPLETION_PENDING))
                && (may.contains(CONNECTED) || may.contains(DISCONNECT_PENDING))
                && !ep.wild
                && ep.conn != null
                && ep.conn.accepted;
        if (ambiguous) {
            // whether the disconnect aborted the establishment or ended the connection shows only later:
            // the model stops predicting this connection (its states and events are still checked for sanity)
            Expect e2 = new Expect();
            e2.orOk(
                    Check.ok(p, "a disconnect while the connection may or may not be established")
                            .rows("2.5#6", "2.7#5"),
                    v -> wildConnection(m, ep));
            if (ep.resetOrNoOp && ep.state == UNCONNECTED) {
                // dat_ep_reset succeeded on this EP while its accepted connection was in flight (resetOrNoOp): if it
                // was a reset, the EP is UNCONNECTED, and dat_ep_disconnect(3DAT) says disconnecting "an Endpoint in
                // DAT_EP_STATE_UNCONNECTED is disallowed" (DAT_INVALID_STATE); the refusal shows the reset happened
                e2.alts.add(new Expect.Alt(
                        INVALID_STATE,
                        EnumSet.of(stateSubtype(UNCONNECTED)),
                        true,
                        Check.ret(
                                        p,
                                        INVALID_STATE,
                                        "disconnecting an EP dat_ep_reset took back to Unconnected is " + "disallowed")
                                .rows("2.1#10", "4#3")
                                .choice("C3: UNCONNECTED is refused with DAT_INVALID_STATE"),
                        v -> reset(m, ep)));
            }
            return e2;
        }
        return m.byState(ep, s -> switch (s) {
            case UNCONNECTED ->
                new Expect()
                        .orErrChoice(
                                INVALID_STATE,
                                Check.ret(p, INVALID_STATE, "disconnecting an " + "Unconnected EP is disallowed")
                                        .rows("2.1#10", "4#3")
                                        .choice("C3: UNCONNECTED is refused with " + "DAT_INVALID_STATE"),
                                stateSubtype(s));
            case RESERVED -> wrongState(p, s, "disconnecting a Reserved EP is disallowed", "2.2#5", "4#3");
            case PASSIVE_CONNECTION_PENDING ->
                wrongState(p, s, "disconnecting a Passive Connection Pending EP is " + "disallowed", "2.3#5", "4#3");
            case TENTATIVE_CONNECTION_PENDING ->
                wrongState(p, s, "disconnecting a Tentative Connection Pending EP is " + "disallowed", "2.4#6", "4#3");
            case ACTIVE_CONNECTION_PENDING ->
                Expect.ok(
                        Check.ok(
                                        p,
                                        "a disconnect during establishment aborts it: the EP "
                                                + "goes to DISCONNECTED, pre-posted receives are flushed")
                                .rows("2.5#6", "4#3"),
                        v -> abort(m, ep));
            case COMPLETION_PENDING ->
                Expect.ok(
                        Check.ok(
                                        p,
                                        "a disconnect during establishment aborts it: the EP goes to "
                                                + "DISCONNECTED, pre-posted receives are flushed")
                                .rows("2.6#1", "4#3"),
                        v -> abort(m, ep));
            case CONNECTED ->
                graceful
                        ? Expect.ok(
                                Check.ok(
                                                p,
                                                "a graceful disconnect lets request DTOs complete in DISCONNECT_PENDING, then "
                                                        + "DISCONNECTED with DAT_CONNECTION_EVENT_DISCONNECTED")
                                        .rows("2.7#6", "4#3"),
                                v -> graceful(m, ep))
                        : Expect.ok(
                                Check.ok(
                                                p,
                                                "an abrupt disconnect flushes outstanding DTOs and ends in DISCONNECTED with "
                                                        + "DAT_CONNECTION_EVENT_DISCONNECTED")
                                        .rows("2.7#5", "4#3"),
                                v -> abrupt(m, ep));
            case DISCONNECT_PENDING ->
                graceful
                        ? Expect.ok(Check.ok(p, "a graceful disconnect in DISCONNECT_PENDING has no effect")
                                .rows("2.8#2", "4#3"))
                        : Expect.ok(
                                Check.ok(
                                                p,
                                                "an abrupt disconnect in DISCONNECT_PENDING goes to DISCONNECTED without "
                                                        + "waiting for request DTOs")
                                        .rows("2.8#1", "4#3"),
                                v -> abrupt(m, ep));
            case DISCONNECTED ->
                Expect.ok(Check.ok(p, "disconnecting a Disconnected EP is a no-op")
                        .rows("2.9#4", "4#3")
                        .choice("C3: a disconnect of a DISCONNECTED EP is a no-op"));
            default -> wrongState(p, s, "not a state dat_ep_disconnect allows", "4#3");
        });
    }

    /** The model cannot tell how a connection goes on: both of its EPs are no longer predicted. */
    static void wildConnection(Model m, M.Ep ep) {
        if (ep.conn != null) {
            abandonArrivals(m, ep.conn);
        }
        for (M.Ep x : new M.Ep[] {
            ep, ep.peer, ep.conn == null ? null : ep.conn.active, ep.conn == null ? null : ep.conn.passive
        }) {
            if (x == null) {
                continue;
            }
            x.wild = true;
            for (M.Work w : x.requests) {
                w.possible.addAll(ANY_ERROR);
                w.certain = false;
            }
            for (M.Work w : x.recvs) {
                w.possible.addAll(ANY_ERROR);
                w.certain = false;
            }
        }
    }

    private static final Check DISC_EVENT = Check.ok(
            "dat_ep_disconnect",
            "a completed disconnect is reported by "
                    + "DAT_CONNECTION_EVENT_DISCONNECTED on connect_evd and the EP is DISCONNECTED");

    /** dat_ep_disconnect of an EP still establishing its connection. */
    static void abort(Model m, M.Ep ep) {
        M.Conn conn = ep.conn;
        boolean active = conn != null && conn.active == ep;
        M.Ep other = conn == null ? null : active ? conn.passive : conn.active;
        ep.pending.clear();
        ep.state = DISCONNECTED;
        for (M.Work w : ep.recvs) {
            if (!w.done) {
                w.possible = EnumSet.of(DtoCompletionStatus.ERR_FLUSHED);
                w.certain = !srqMessageMayNotArrive(w);
                w.check = Check.ok("dat_ep_disconnect", "aborting establishment flushes pre-posted receives")
                        .rows(active ? "2.5#6" : "2.6#1");
            }
        }
        String s1 = "S1: whether an abort posts a connection event, and which, is silent: DISCONNECTED, or the outcome "
                + "the request had reached";
        M.Fork f = m.localFork("abort " + ep.sym);
        M.Slot slot = m.pend(ep, false);
        for (EventNumber n : new EventNumber[] {
            EventNumber.CONNECTION_EVENT_DISCONNECTED,
            EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
            EventNumber.CONNECTION_EVENT_PEER_REJECTED,
            EventNumber.CONNECTION_EVENT_UNREACHABLE,
            EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR
        }) {
            slot.alternatives.add(new M.Step(
                    DISCONNECTED,
                    n,
                    null,
                    f,
                    n.name(),
                    DISC_EVENT
                            .rule("an aborted " + "establishment may end with " + n)
                            .choice(s1),
                    null));
        }
        if (conn != null) {
            if (conn.fork.chosen == null) {
                conn.fork.chosen = "aborted";
            }
            abandonArrivals(m, conn);
            conn.aborted = true;
        }
        if (other != null && other.alive) {
            other.wild = true;
        }
    }

    /**
     * The index of the pending slot in which an EP not yet connected becomes CONNECTED (its
     * establishment completes), or -1 if it is connected already or no pending step connects it.
     */
    static int establishedAt(M.Ep ep) {
        if (ep.state == CONNECTED || ep.state == DISCONNECT_PENDING) {
            return -1;
        }
        for (int i = 0; i < ep.pending.size(); i++) {
            for (M.Step st : ep.pending.get(i).viable()) {
                if (st.to == CONNECTED) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** The pending slot after index {@code i} that ends the EP in DISCONNECTED with a connection event, or null. */
    static M.Slot pendingEndAfter(M.Ep ep, int i) {
        for (int k = i + 1; k < ep.pending.size(); k++) {
            for (M.Step st : ep.pending.get(k).viable()) {
                if (st.to == DISCONNECTED && st.event != null) {
                    return ep.pending.get(k);
                }
            }
        }
        return null;
    }

    /** The pending slot that ends the EP in DISCONNECTED with a connection event, or null. */
    static M.Slot pendingEnd(M.Ep ep) {
        for (M.Slot s : ep.pending) {
            for (M.Step st : s.viable()) {
                if (st.to == DISCONNECTED && st.event != null) {
                    return s;
                }
            }
        }
        return null;
    }

    /**
     * An end of the connection (the EP's own disconnect, the peer's end) starts while a transfer error's break of it
     * is pending and not yet seen: which of the two ends the connection first is timing no page orders (the error
     * comes back from the remote side, dat_lmr_free(3DAT): "results in an error and broken connection"; the
     * disconnect goes its own way), so DAT_CONNECTION_EVENT_DISCONNECTED, the event of that end ({@code dis}), is
     * as much the expected report as the break's BROKEN, not an alternative to a recorded choice.
     */
    static void endRacesBreak(M.Slot end, Check dis) {
        M.Step template = null;
        for (M.Step st : end.viable()) {
            if (st.to == DISCONNECTED && st.event == EventNumber.CONNECTION_EVENT_DISCONNECTED) {
                if (!st.check.alternative()) {
                    return;
                }
                template = st;
            }
        }
        if (template == null) {
            return;
        }
        end.alternatives.add(new M.Step(
                template.to,
                template.event,
                template.privateData,
                template.fork,
                template.option,
                dis.rows("2.7#8"),
                template.effect));
    }

    /**
     * {@code ep}'s disconnect ({@code how}) reaches its peer, whose break by the transfer error may not have been
     * seen either (the disconnect may even flush the failing RDMA before it reaches the peer): which event the peer
     * gets for the other side's end is S1, DISCONNECTED its natural reading.
     */
    static void peerEndRacesBreak(M.Ep ep, String how) {
        M.Ep peer = ep.peer;
        M.Slot peerEnd = peer != null && peer.alive && !onAnotherConnection(peer, ep.conn) ? pendingEnd(peer) : null;
        if (peerEnd != null) {
            endRacesBreak(
                    peerEnd,
                    Check.ok(
                                    "dat_ep_disconnect",
                                    "the other side's " + how + " reaching an EP before the transfer error breaking "
                                            + "the connection is seen is reported as for any peer end: "
                                            + "DAT_CONNECTION_EVENT_DISCONNECTED")
                            .rows("2.7#11")
                            .choice("S1: the natural reading, DISCONNECTED"));
        }
    }

    static void abrupt(Model m, M.Ep ep) {
        M.Ep peer = ep.peer;
        boolean wasBreaking = ep.breaking;
        M.Slot end = pendingEnd(ep);
        if (end != null) {
            endRacesBreak(
                    end,
                    DISC_EVENT
                            .rule("an abrupt dat_ep_disconnect before the transfer error breaking the connection is "
                                    + "seen ends it: DAT_CONNECTION_EVENT_DISCONNECTED")
                            .rows("2.7#5"));
            peerEndRacesBreak(ep, "abrupt dat_ep_disconnect");
            // already ending (a graceful disconnect, a break): the abrupt one only stops waiting for requests
            ep.pending.removeIf(s -> s != end && s.viable().stream().allMatch(st -> st.event == null));
            end.certain = true;
            inProgress(ep);
            dropWaiting(ep);
            // the consumer's abrupt disconnect is now what ends the connection, not only a transfer error or the
            // peer's end the EP has not seen yet: "For abrupt disconnect, all outstanding DTOs and RMR Binds are
            // completed unsuccessfully" (dat_ep_disconnect(3DAT)), and the EP is DISCONNECTED "upon successful
            // asynchronous completion" of it; so a DTO posted after the call is outstanding when the disconnect
            // completes (or posted in DISCONNECTED, flushed): it completes unsuccessfully either way, never as
            // posted on a live connection. (An end the peer started already makes later work "may or may not
            // complete", peerEnding; ep.breaking is not set for it, or a transfer error's EP_BROKEN would be missed.)
            if (ep.breaking) {
                ep.errorBreak = false;
            }
            return;
        }
        ep.pending.clear();
        inProgress(ep);
        dropWaiting(ep);
        for (M.Work w : ep.requests) {
            if (!w.done && w.check == null) {
                w.check =
                        Check.ok("dat_ep_disconnect", "an abrupt disconnect completes outstanding DTOs unsuccessfully");
            }
        }
        ep.breaking = true;
        ep.errorBreak = false;
        M.Slot slot = m.pend(
                ep,
                true,
                new M.Step(
                        DISCONNECTED,
                        EventNumber.CONNECTION_EVENT_DISCONNECTED,
                        null,
                        null,
                        null,
                        DISC_EVENT.rows("2.7#5"),
                        null));
        if (wasBreaking) {
            slot.alternatives.add(new M.Step(
                    DISCONNECTED,
                    EventNumber.CONNECTION_EVENT_BROKEN,
                    null,
                    null,
                    null,
                    DISC_EVENT
                            .rule("a disconnect of a connection a transfer error was breaking may report BROKEN")
                            .rows("2.7#5", "2.7#8"),
                    null));
        }
        if (peer != null && peer.alive && !onAnotherConnection(peer, ep.conn)) {
            peerEnds(m, peer, "dat_ep_disconnect of the other side");
        }
    }

    static void graceful(Model m, M.Ep ep) {
        M.Ep peer = ep.peer;
        if (pendingEnd(ep) != null) {
            // the end already under way (the peer disconnected, a transfer error broke the connection) has not
            // happened yet, or this is the DISCONNECTED no-op: "During that time, the local Endpoint is in a
            // DAT_EP_DISCONNECT_PENDING state" (dat_ep_disconnect), until that end comes
            if (ep.state == CONNECTED) {
                ep.state = DISCONNECT_PENDING;
            }
            {
                // "all outstanding and in-progress request DTOs and RMR Binds must try to be completed successfully
                // first, before disconnect proceeds" (dat_ep_disconnect(3DAT)): with none outstanding it proceeds at
                // once; with the failing one outstanding it proceeds when that one has completed, the moment the
                // error breaks the connection: either end may be the one reported
                endRacesBreak(
                        pendingEnd(ep),
                        DISC_EVENT
                                .rule("a graceful dat_ep_disconnect that proceeds before the transfer error breaking "
                                        + "the connection is seen ends it: DAT_CONNECTION_EVENT_DISCONNECTED")
                                .rows("2.7#6"));
                peerEndRacesBreak(ep, "graceful dat_ep_disconnect");
            }
            return;
        }
        boolean allCertain = true;
        for (M.Work w : ep.requests) {
            if (!w.done && !w.certain) {
                allCertain = false;
            }
        }
        // "During that time, the local Endpoint is in a DAT_EP_DISCONNECT_PENDING state" (dat_ep_disconnect)
        ep.state = DISCONNECT_PENDING;
        M.Slot own = m.pend(
                ep,
                allCertain,
                new M.Step(
                        DISCONNECTED,
                        EventNumber.CONNECTION_EVENT_DISCONNECTED,
                        null,
                        null,
                        null,
                        DISC_EVENT.rows("2.7#6"),
                        () -> {
                            inProgress(ep);
                            dropWaiting(ep);
                        }));
        for (M.Work w : ep.recvs) {
            if (!w.done) {
                w.possible.addAll(ANY_ERROR);
                // "Upon disconnect, all outstanding and in-progress DTOs ... must be completed" (dat_ep_disconnect
                // (3DAT)): a receive no message fills is flushed when the disconnect proceeds, which a request DTO
                // that may never complete (a Send waiting for a receive the peer never posts) holds back
                w.certain = !srqMessageMayNotArrive(w) && (allCertain || w.peer != null && w.certain);
            }
        }
        if (peer != null && peer.alive && !onAnotherConnection(peer, ep.conn)) {
            // "For graceful disconnect, all outstanding and in-progress request DTOs and RMR Binds must try to be
            // completed successfully first, before disconnect proceeds. During that time, the local Endpoint is in a
            // DAT_EP_DISCONNECT_PENDING state" (dat_ep_disconnect(3DAT)): the peer learns of the disconnect when it
            // proceeds, so a Send that waits for a receive the peer never posts (RNR retry; dat_ep_set_watermark(3DAT)
            // only "does not prevent" a broken connection when no Recv buffer is available) may hold both ends where
            // they are; the peer's end is as certain as this side's
            M.Slot peerEnd = peerEnds(m, peer, "graceful dat_ep_disconnect of the other side", allCertain);
            if (!allCertain && peerEnd != null) {
                ep.endsAfterRequests.add(peerEnd);
            }
        }
        if (!allCertain) {
            ep.endsAfterRequests.add(own);
        }
    }

    /**
     * A request that might never complete (a Send waiting for a receive) now will: once none is left, the graceful
     * disconnect waiting for them proceeds ("all outstanding and in-progress request DTOs ... must try to be
     * completed successfully first, before disconnect proceeds", dat_ep_disconnect(3DAT)), so its end, the peer's
     * end and the flush of its receives are certain again.
     */
    static void requestsMayProceed(M.Ep ep) {
        if (ep.endsAfterRequests.isEmpty() || requestsBlocked(ep)) {
            return;
        }
        for (M.Slot s : ep.endsAfterRequests) {
            s.certain = true;
        }
        ep.endsAfterRequests.clear();
        for (M.Work w : ep.recvs) {
            if (!w.done) {
                w.certain = !srqMessageMayNotArrive(w);
            }
        }
    }

    // ------------------------------------------------------------------ connection establishment

    /** The live service point of {@code ia} listening on {@code qual}, or null. */
    static M.Obj listener(Model m, M.Ia ia, long qual) {
        if (ia == null || !ia.alive) {
            return null;
        }
        for (M.Obj o : ia.objects) {
            if (o.alive
                    && (o instanceof M.Psp p && p.qual == qual
                            || o instanceof M.Rsp r && r.qual == qual && !taken(m, r))) {
                return o;
            }
        }
        return null;
    }

    /**
     * Whether the RSP generated its one request (dat_rsp_create(3DAT): "generates, at most, one Connection
     * Request"), or a request still may. A request not yet delivered that can no longer arrive (its connect
     * ended otherwise: the CM rejected it before the RSP listened, or it was abandoned and is gone) did not take
     * it: the RSP still listens.
     */
    static boolean taken(Model m, M.Rsp r) {
        if (!r.fired) {
            return false;
        }
        M.Conn c = r.firedBy;
        return c == null || c.cr != null || anyInFlight(m, r);
    }

    /** A request certain to reach {@code rsp} may be overtaken: it may arrive, or end NON_PEER_REJECTED. */
    static void mayLoseRace(Model m, M.Rsp rsp, M.Arrival a) {
        List<M.Arrival> l = m.arrivalsOf(rsp);
        l.set(l.indexOf(a), new M.Arrival(a.conn, a.sp, a.evd, false, a.check));
        M.Ep x = a.conn.active;
        if (!x.alive || x.conn != a.conn || x.pending.isEmpty()) {
            return;
        }
        M.Slot s = x.pending.get(0);
        for (M.Step st : s.alternatives) {
            if ("nonpeer".equals(st.option)) {
                return;
            }
        }
        s.alternatives.add(new M.Step(
                DISCONNECTED,
                EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                null,
                a.conn.fork,
                "nonpeer",
                NO_LISTENER,
                () -> flushUnconnected(x)));
    }

    /** Whether a request certain to arrive is on its way to {@code sp}. */
    static boolean certainInFlight(Model m, M.Obj sp) {
        List<M.Arrival> l = m.arrivalsOf(sp);
        if (l != null) {
            for (M.Arrival a : l) {
                if (a.certain && !a.phantom && a.viable()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether any request may still arrive at {@code sp}. */
    static boolean anyInFlight(Model m, M.Obj sp) {
        List<M.Arrival> l = m.arrivalsOf(sp);
        if (l != null) {
            for (M.Arrival a : l) {
                if (!a.phantom && a.viable()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The arrival of {@code c}'s request at {@code sp} that may still come, or null. */
    static M.Arrival inFlight(Model m, M.Obj sp, M.Conn c) {
        List<M.Arrival> l = m.arrivalsOf(sp);
        if (l != null) {
            for (M.Arrival a : l) {
                if (a.conn == c && !a.phantom && a.viable()) {
                    return a;
                }
            }
        }
        return null;
    }

    /** Whether a live service point of {@code ia} holds {@code qual} (an RSP holds it even after its request). */
    static boolean qualInUse(M.Ia ia, long qual) {
        for (M.Obj o : ia.objects) {
            if (o.alive && (o instanceof M.Psp p && p.qual == qual || o instanceof M.Rsp r && r.qual == qual)) {
                return true;
            }
        }
        return false;
    }

    static final Check NO_LISTENER = Check.ok(
                    "dat_ep_connect",
                    "a request no Service Point listens for ends with "
                            + "DAT_CONNECTION_EVENT_NON_PEER_REJECTED and the EP in DISCONNECTED")
            .rows("2.5#3");
    static final String GAVE_UP = "S9: an unanswered request may end UNREACHABLE or TIMED_OUT once the provider stops "
            + "waiting for the remote consumer (the pages: UNREACHABLE when the remote does not respond)";

    /**
     * dat_ep_connect to the IA {@code target} (or, if {@code bogus}, to an address no IA has) on
     * {@code qual}.
     */
    static Expect epConnect(
            Model m,
            M.Ep ep,
            M.Ia target,
            boolean bogus,
            long qual,
            long timeoutMicros,
            byte[] pdata,
            Qos qos,
            boolean multipath) {
        String p = "dat_ep_connect";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        Expect params = new Expect();
        if (pdata != null && pdata.length > ep.ia.maxPrivateData()) {
            params.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                                    p,
                                    INVALID_PARAMETER,
                                    "private data longer than " + "max_private_data_size (" + ep.ia.maxPrivateData()
                                            + ")")
                            .and("dat_evd_dequeue", DatReturnType.SUCCESS));
        }
        if (!ep.ia.providerAttrs.qosSupported().contains(qos)) {
            params.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(
                                    p,
                                    MODEL_NOT_SUPPORTED,
                                    "a qos the local provider does not " + "support fails synchronously")
                            .rows("2.1#1"));
        }
        if (multipath && !ep.ia.providerAttrs.supportsMultipath()) {
            String choice = "a multipath request where supports_multipath is false is refused or ignored";
            params.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(p, MODEL_NOT_SUPPORTED, "multipath the provider does not " + "support")
                            .choice(choice));
            params.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "multipath the provider does not support")
                            .choice(choice));
        }
        if (timeoutMicros == 0) {
            params.orErr(
                    INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "a timeout of 0 (values must be positive)"));
        }
        params.or(notReady(p, ep));
        Expect addr = new Expect();
        if (bogus) {
            addr.orErr(
                    INVALID_ADDRESS,
                    Check.ret(
                                    p,
                                    INVALID_ADDRESS,
                                    "an address the provider can tell is invalid may " + "fail synchronously")
                            .rows("2.1#1"));
        }
        return m.byState(ep, s -> {
            if (s != UNCONNECTED) {
                String row = switch (s) {
                    case RESERVED -> "2.2#6";
                    case DISCONNECTED -> "2.9#5";
                    default -> "4#1";
                };
                return new Expect()
                        .or(params)
                        .or(addr)
                        .or(wrongState(p, s, "dat_ep_connect is valid only in " + "UNCONNECTED", row, "4#1"));
            }
            boolean onlyNotReady = !params.alts.isEmpty()
                    && params.alts.stream()
                            .allMatch(a ->
                                    a.check().choice() == NOT_READY || a.check().choice() == NOT_READY_EVD);
            if (!params.alts.isEmpty() && !onlyNotReady) {
                return new Expect().or(params).or(addr);
            }
            Expect ok = new Expect().or(addr).or(params);
            ok.orOk(Check.ok(p, "the EP goes to ACTIVE_CONNECTION_PENDING").rows("2.1#1", "4#1"), v -> {
                connectStarted(m, ep, target, bogus, qual, pdata);
                ep.conn.timeoutMicros = timeoutMicros;
            });
            return ok;
        });
    }

    /** A successful dat_ep_connect: the request goes to the listener, or fails asynchronously. */
    static void connectStarted(Model m, M.Ep ep, M.Ia target, boolean bogus, long qual, byte[] pdata) {
        ep.state = ACTIVE_CONNECTION_PENDING;
        ep.pending.clear();
        // a new connection: how an earlier one ended (a break, the peer's end) no longer applies to its works
        // (dat_ep_reset clears these too; an EP the model lost track of may reach here without one)
        ep.breaking = false;
        ep.peerEnding = false;
        ep.mayBreak = false;
        ep.resetOrNoOp = false;
        M.Conn conn = new M.Conn(ep, target, qual, pdata == null ? new byte[0] : pdata, m.fork("conn " + ep.sym));
        ep.conn = conn;
        ep.peer = null;
        Runnable down = () -> flushUnconnected(ep);
        M.Obj sp = bogus ? null : listener(m, target, qual);
        if (bogus || target == null || !target.alive) {
            Check unr = Check.ok(
                            "dat_ep_connect",
                            "a request to an IA that cannot be reached ends with " + "DAT_CONNECTION_EVENT_UNREACHABLE")
                    .rows("2.5#4");
            // the two outcomes differ only in the event (same state, same flush): a local fork, so an EP seen
            // DISCONNECTED (a query, or a flushed receive dequeued first) still accepts either event
            M.Fork f = m.localFork("unreachable " + ep.sym);
            m.pend(
                    ep,
                    true,
                    new M.Step(DISCONNECTED, EventNumber.CONNECTION_EVENT_UNREACHABLE, null, f, "unr", unr, down),
                    new M.Step(
                            DISCONNECTED,
                            EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                            null,
                            f,
                            "nonpeer",
                            NO_LISTENER
                                    .rule("a request to an address no IA has ends NON_PEER_REJECTED or "
                                            + "UNREACHABLE")
                                    .choice(
                                            "which of the two events the provider gives for an address it cannot reach"),
                            down));
            return;
        }
        if (sp == null) {
            m.pend(
                    ep,
                    true,
                    new M.Step(
                            DISCONNECTED,
                            EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                            null,
                            conn.fork,
                            "nonpeer",
                            NO_LISTENER,
                            down));
            for (M.Obj o : target.objects) {
                if (o instanceof M.Rsp r
                        && r.alive
                        && r.qual == qual
                        && r.fired
                        && r.firedBy != null
                        && r.firedBy.cr == null
                        && (r.firedBy.aborted || inFlight(m, r, r.firedBy) != null || !certainInFlight(m, r))) {
                    // the RSP's request came from a connect abandoned before it arrived, was sent before the RSP
                    // listened and may have been rejected then, or is still on its way: the RSP may still be
                    // listening, and this request may be the one it generates (dat_rsp_create: "at most, one
                    // Connection Request"); requests from different requesters race (a local one may overtake one
                    // from another IA), and the one that loses finds nobody listening
                    M.Arrival first = inFlight(m, r, r.firedBy);
                    if (first != null && first.certain) {
                        mayLoseRace(m, r, first);
                    }
                    r.fired = false;
                    lateListener(m, r, r.evd);
                }
            }
            return;
        }
        conn.sp = sp;
        M.Evd evd = sp instanceof M.Psp psp ? psp.evd : ((M.Rsp) sp).evd;
        Check arrives = Check.ok(
                        sp instanceof M.Psp ? "dat_psp_create" : "dat_rsp_create",
                        "a request for the "
                                + "service point's qualifier arrives as DAT_CONNECTION_REQUEST_EVENT on its EVD")
                .rows(sp instanceof M.Rsp ? "2.2#1" : "2.1#1");
        M.Arrival arrival = new M.Arrival(conn, sp, evd, true, arrives);
        m.arrive(arrival);
        // counting the EVD with this request notes whether it may be full when the request comes
        m.count(evd);
        if (sp instanceof M.Rsp rsp) {
            rsp.fired = true;
            rsp.firedBy = conn;
            m.pend(
                    rsp.ep,
                    true,
                    new M.Step(
                            PASSIVE_CONNECTION_PENDING,
                            null,
                            null,
                            null,
                            null,
                            Check.ok(
                                            "dat_rsp_create",
                                            "a request on the RSP moves its EP from RESERVED to PASSIVE_CONNECTION_PENDING")
                                    .rows("2.2#1"),
                            null));
        }
        Check est = Check.ok(
                        "dat_ep_connect",
                        "an accepted request is reported by DAT_CONNECTION_EVENT_ESTABLISHED on "
                                + "connect_evd and the EP goes to CONNECTED")
                .rows("2.5#1");
        Check rej = Check.ok(
                        "dat_ep_connect",
                        "a rejected request is reported by DAT_CONNECTION_EVENT_PEER_REJECTED "
                                + "and the EP goes to DISCONNECTED")
                .rows("2.5#2");
        Check unr = Check.ok("dat_ep_connect", "an unanswered request ends DAT_CONNECTION_EVENT_UNREACHABLE")
                .rows("2.5#4")
                .choice(GAVE_UP);
        M.Step estStep = new M.Step(
                CONNECTED,
                EventNumber.CONNECTION_EVENT_ESTABLISHED,
                null,
                conn.fork,
                "est",
                est,
                () -> established(m, conn));
        estStep.awaitsAccept = conn;
        M.Step rejStep =
                new M.Step(DISCONNECTED, EventNumber.CONNECTION_EVENT_PEER_REJECTED, null, conn.fork, "rej", rej, down);
        M.Step unrStep = new M.Step(
                DISCONNECTED, EventNumber.CONNECTION_EVENT_UNREACHABLE, null, conn.fork, "gaveup", unr, down);
        if (sp instanceof M.Psp) {
            // dat_psp_create: "There is no explicit backlog for a Public Service Point. Instead, Consumers can control
            // the size of backlog through the queue size of the associated Event Dispatcher"; ep-state-machine.md
            // 2.5: "backlog full ... -> DISCONNECTED, DAT_CONNECTION_EVENT_NON_PEER_REJECTED on connect_evd". A
            // request that may find the PSP's EVD full may be refused so (then it never arrives there)
            M.Step full = new M.Step(
                    DISCONNECTED,
                    EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                    null,
                    conn.fork,
                    "full",
                    Check.ok(
                                    "dat_ep_connect",
                                    "a request that finds the Service Point's EVD (its backlog) full ends with "
                                            + "DAT_CONNECTION_EVENT_NON_PEER_REJECTED and the EP in DISCONNECTED")
                            .rows("2.5#3"),
                    down);
            full.refusedIfFull = arrival;
            m.pend(ep, false, estStep, rejStep, unrStep, gaveUpTimedOut(conn, down), full);
            return;
        }
        m.pend(ep, false, estStep, rejStep, unrStep, gaveUpTimedOut(conn, down));
    }

    /** An unanswered request may also end TIMED_OUT when the provider stops waiting (S9). */
    static M.Step gaveUpTimedOut(M.Conn conn, Runnable down) {
        return new M.Step(
                DISCONNECTED,
                EventNumber.CONNECTION_EVENT_TIMED_OUT,
                null,
                conn.fork,
                "gaveup",
                Check.ok("dat_ep_connect", "an unanswered request ends DAT_CONNECTION_EVENT_TIMED_OUT")
                        .rows("2.5#5")
                        .choice(GAVE_UP),
                down);
    }

    static final String TIMED_OUT_CHOICE = "S9: a connect whose finite timeout expires while the remote consumer holds "
            + "its request unanswered ends TIMED_OUT (the remote host was reached: its consumer got the request; "
            + "dat_ep_connect gives UNREACHABLE for a remote host that cannot be reached or does not respond)";

    /**
     * The consumer's dat_ep_connect timeout has passed for {@code x} (the fabric ran at least that long since the
     * connect), and the remote consumer holds its request (the CONNECTION_REQUEST_EVENT was dequeued) without having
     * accepted or rejected it. dat_ep_connect(3DAT): "When the timeout expired prior to completion of the Connection
     * establishment, the local Endpoint is automatically transitioned into a DAT_EP_STATE_DISCONNECTED state and the
     * local Consumer [notified] through a DAT_CONNECTION_EVENT_TIMED_OUT event on the connect_evd_handle" (row
     * 2.5#5): the end is now certain and no other end is left (no accept can establish it in time, no reject came, and
     * the request arrived, so it was not refused). The page's other sentence, UNREACHABLE "when the Provider cannot
     * reach the remote host or the remote host does not respond within the Consumer requested Timeout", speaks of the
     * remote host, which was reached here; where the two meet is S9 (SILENT), so UNREACHABLE stays an alternative
     * another provider may give, left out when the suite runs {@code strict} (connection events match pending steps
     * without the strict check {@link Run#check} makes of an alternative, so a strict run allows the recorded choice
     * only). The request stays the remote consumer's: no page lets the provider destroy a CR (only
     * dat_cr_accept, dat_cr_reject and dat_cr_handoff do), and a later accept of it ends in
     * DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR (dat_cr_accept(3DAT): "caused by the active side timeout
     * expiration"; {@link #accepted}).
     *
     * @return false (and no change) if {@code x} is not such a connect
     */
    static boolean connectTimeoutPassed(M.Ep x, long elapsedMicros, boolean strict) {
        M.Conn conn = x.conn;
        if (!x.live()
                || x.wild
                || conn == null
                || conn.timeoutMicros == io.simrdma.dat.Timeout.INFINITE_MICROS
                || elapsedMicros < conn.timeoutMicros
                || conn.cr == null
                || conn.accepted
                || conn.rejected
                || conn.aborted
                || conn.unsure
                || x.pending.size() != 1) {
            return false;
        }
        M.Slot s = x.pending.get(0);
        boolean gaveUp = false;
        for (M.Step st : s.viable()) {
            gaveUp |= "gaveup".equals(st.option) && st.event == EventNumber.CONNECTION_EVENT_TIMED_OUT;
        }
        if (!gaveUp) {
            return false;
        }
        Runnable down = () -> flushUnconnected(x);
        Check timedOut = Check.ok(
                        "dat_ep_connect",
                        "a connect whose timeout expired before establishment (the remote consumer holds the request "
                                + "unanswered) ends with DAT_CONNECTION_EVENT_TIMED_OUT on connect_evd and the EP in "
                                + "DISCONNECTED")
                .rows("2.5#5");
        Check unreachable = Check.ok(
                        "dat_ep_connect",
                        "a connect whose timeout expired while the remote consumer holds the request ends "
                                + "DAT_CONNECTION_EVENT_UNREACHABLE")
                .rows("2.5#4")
                .alternative(TIMED_OUT_CHOICE);
        s.alternatives.clear();
        s.alternatives.add(new M.Step(
                DISCONNECTED, EventNumber.CONNECTION_EVENT_TIMED_OUT, null, conn.fork, "gaveup", timedOut, down));
        if (!strict) {
            s.alternatives.add(new M.Step(
                    DISCONNECTED,
                    EventNumber.CONNECTION_EVENT_UNREACHABLE,
                    null,
                    conn.fork,
                    "gaveup",
                    unreachable,
                    down));
        }
        s.certain = true;
        // both ends left are the give-up option: a later accept of the request cannot establish the connection
        conn.fork.chosen = "gaveup";
        conn.timedOut = true;
        return true;
    }

    /** The EP ends without a connection: its receives are flushed. */
    static void flushUnconnected(M.Ep ep) {
        for (M.Work w : ep.recvs) {
            if (!w.done) {
                w.possible = EnumSet.of(DtoCompletionStatus.ERR_FLUSHED);
                w.certain = true;
            }
        }
        ep.peer = null;
    }

    /** Both sides of {@code conn} are connected: receives may now take messages. */
    static void established(Model m, M.Conn conn) {
        // the step may happen late (a query of the passive EP resolves it after the active EP was reset and
        // connected again): only an EP still on this connection takes the other end as its peer, or an RDMA
        // DTO of the new connection would be judged against the old peer's memory
        if (conn.active.conn == conn) {
            conn.active.peer = conn.passive;
        }
        if (conn.passive != null && conn.passive.conn == conn) {
            conn.passive.peer = conn.active;
        }
    }

    /** A DAT_CONNECTION_REQUEST_EVENT was dequeued: the CR exists; an RSP's EP is PASSIVE_CONNECTION_PENDING. */
    static void requestArrived(Model m, Run run, M.Arrival a, ConnectionRequestEvent ev, String sym) {
        M.Conn conn = a.conn;
        M.Ia ia = a.sp.ia;
        M.Cr cr = m.add(new M.Cr(sym, ia, conn, a.sp));
        conn.cr = cr;
        run.check(
                Check.ok("dat_psp_create", "the request event names the IA address it arrived on"),
                ia.address == null || ia.address.equals(ev.localIaAddress()),
                String.valueOf(ia.address),
                () -> String.valueOf(ev.localIaAddress()));
        // requests still on their way to this service point from the same connection are gone
        for (M.Step st : conn.active.pending.isEmpty() ? List.<M.Step>of() : conn.active.pending.get(0).alternatives) {
            if ("nonpeer".equals(st.option)) {
                conn.active.pending.get(0).alternatives.remove(st);
                break;
            }
        }
        if (a.sp instanceof M.Rsp rsp) {
            m.resolveTo(rsp.ep, PASSIVE_CONNECTION_PENDING);
            conn.passive = rsp.ep;
            rsp.firedBy = conn;
            otherRequestsRefused(m, rsp, conn);
        } else if (((M.Psp) a.sp).flag == PspFlag.PROVIDER) {
            M.Ep pep = m.add(new M.Ep(cr.sym + "ep", ia, null, null, null, null, null));
            pep.providerCreated = true;
            pep.state = TENTATIVE_CONNECTION_PENDING;
            pep.conn = conn;
            cr.providerEp = pep;
            conn.passive = pep;
        }
    }

    /**
     * The RSP generated its one request (dat_rsp_create(3DAT): "generates, at most, one Connection Request"): the
     * other requests the model held possibly on their way to it cannot arrive there; their connects end without a
     * listener (NON_PEER_REJECTED, dat_ep_connect(3DAT): "remote Consumer is not listening on the requested
     * Connection Qualifier") or when the provider gives up (S9).
     */
    static void otherRequestsRefused(Model m, M.Rsp rsp, M.Conn taker) {
        List<M.Arrival> l = m.arrivalsOf(rsp);
        if (l == null) {
            return;
        }
        for (java.util.Iterator<M.Arrival> it = l.iterator(); it.hasNext(); ) {
            M.Arrival a = it.next();
            if (a.conn == taker || a.phantom) {
                continue;
            }
            it.remove();
            M.Ep x = a.conn.active;
            if (x.alive && x.conn == a.conn && !x.pending.isEmpty() && !a.conn.aborted) {
                M.Slot s = x.pending.get(0);
                boolean nonpeer = false;
                boolean est = false;
                for (M.Step st : s.alternatives) {
                    nonpeer |= "nonpeer".equals(st.option);
                    est |= "est".equals(st.option);
                }
                if (!nonpeer && !est) {
                    continue;
                }
                s.alternatives.removeIf(st -> "est".equals(st.option) || "rej".equals(st.option));
                if (!nonpeer) {
                    s.alternatives.add(
                            0,
                            new M.Step(
                                    DISCONNECTED,
                                    EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                                    null,
                                    a.conn.fork,
                                    "nonpeer",
                                    NO_LISTENER,
                                    () -> flushUnconnected(x)));
                }
                s.certain = true;
            }
        }
    }

    static Expect pspCreate(Model m, M.Ia ia, long qual, M.Evd evd, PspFlag flag, boolean any) {
        String p = any ? "dat_psp_create_any" : "dat_psp_create";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        if (evd == null) {
            e.orErrChoice(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "a NULL evd_handle"),
                    DatReturnSubtype.INVALID_HANDLE_EVD_CR);
        } else if (!badHandle(e, evd, ia, p, "evd_handle") && !evd.flags.contains(EvdFlag.CR)) {
            String choice = "an EVD without the connection request stream is an invalid handle or parameter";
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "an EVD without the CR stream")
                            .choice(choice));
            e.orErr(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "an EVD without the CR stream").choice(choice));
        }
        if (flag == null) {
            e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "the psp_flags parameter is invalid (null)"));
        } else if (flag == PspFlag.PROVIDER && ia.providerAttrs.epCreator() == io.simrdma.dat.PspEpCreator.NEVER) {
            e.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(
                            p,
                            MODEL_NOT_SUPPORTED,
                            "provider-created EPs the provider does not " + "support (ep_creator)"));
        }
        if (!any && qualInUse(ia, qual)) {
            e.orErr(
                    CONN_QUAL_IN_USE,
                    Check.ret(
                            p, CONN_QUAL_IN_USE, "a qualifier a service point of the IA already " + "holds is in use"));
        }
        if (!any && (qual < 0 || qual > 0xFFFF)) {
            String choice = "which connection qualifiers a transport takes is the provider's";
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "a qualifier outside the transport's port space")
                            .choice(choice));
            if (e.alts.size() == 1) {
                e.orOk(Check.ok(p, "a qualifier outside 16 bits").choice(choice), null);
            }
            return e;
        }
        if (any && e.alts.isEmpty()) {
            boolean anyExists = false;
            for (M.Obj o : ia.objects) {
                anyExists |= o.alive && o instanceof M.Psp ps && ps.any;
            }
            if (anyExists) {
                e.orErr(
                        CONN_QUAL_UNAVAILABLE,
                        Check.ret(
                                p, CONN_QUAL_UNAVAILABLE, "no unused qualifier is left in the " + "provider's range"));
            }
        }
        if (e.alts.isEmpty() || any && e.alts.size() == 1 && e.alts.get(0).type() == CONN_QUAL_UNAVAILABLE) {
            e.orOk(
                    Check.ok(
                            p,
                            any
                                    ? "listens on an unused qualifier the provider picks"
                                    : "listens on the qualifier; " + "requests arrive on the EVD"),
                    null);
        }
        return e;
    }

    /**
     * A service point now listens on {@code qual}: a request an EP sent there before it existed and then abandoned
     * (dat_ep_free or dat_ep_disconnect while ACTIVE_CONNECTION_PENDING) may still be on its way and arrive.
     * dat_ep_free(3DAT): "The destruction of the Endpoint during connection setup aborts connection establishment"
     * -- the connection is not established, but a request already sent is not recalled; what the remote side
     * sees of an abort is SILENT (S1, ep-state-machine.md). An RSP it reaches turns its EP PASSIVE_CONNECTION_PENDING
     * (an accept of it cannot complete; the model stops following that EP).
     */
    static void abandonedLate(Model m, M.Obj sp, M.Evd evd, long qual) {
        for (M.Ep ep : m.all(M.Ep.class)) {
            M.Conn c = ep.conn;
            if (c == null
                    || c.active != ep
                    || !c.aborted
                    || c.sp != null
                    || c.cr != null
                    || c.targetIa != sp.ia
                    || c.qual != qual) {
                continue;
            }
            c.sp = sp;
            m.arrive(new M.Arrival(
                    c,
                    sp,
                    evd,
                    false,
                    Check.ok(
                                    "dat_ep_free",
                                    "a request sent before the service point existed by a connect abandoned since "
                                            + "may still arrive once it listens")
                            .choice("S1: what the remote side sees of an aborted establishment")));
            if (sp instanceof M.Rsp rsp && !rsp.fired) {
                requestOnItsWay(m, rsp, c);
            }
        }
    }

    /** {@code c}'s request may be the one request of {@code rsp}: its EP may turn PASSIVE_CONNECTION_PENDING. */
    static void requestOnItsWay(Model m, M.Rsp rsp, M.Conn c) {
        rsp.fired = true;
        rsp.firedBy = c;
        m.pend(
                rsp.ep,
                false,
                new M.Step(
                        PASSIVE_CONNECTION_PENDING,
                        null,
                        null,
                        null,
                        null,
                        Check.ok("dat_rsp_create", "a request on the RSP moves its EP to PASSIVE_CONNECTION_PENDING")
                                .rows("2.2#1"),
                        null));
    }

    /**
     * A service point now listens on {@code qual}: a request sent there before it existed may still be on
     * its way, and arrive, or have been rejected as nobody listened.
     */
    static void lateListener(Model m, M.Obj sp, M.Evd evd) {
        long qual = Model.qualOf(sp);
        abandonedLate(m, sp, evd, qual);
        for (M.Ep ep : m.live(M.Ep.class)) {
            M.Conn c = ep.conn;
            if (c == null
                    || c.active != ep
                    || c.sp != null
                    || c.targetIa != sp.ia
                    || c.qual != qual
                    || c.fork.chosen != null
                    || ep.pending.isEmpty()) {
                continue;
            }
            c.sp = sp;
            m.arrive(new M.Arrival(
                    c,
                    sp,
                    evd,
                    false,
                    Check.ok(
                            "dat_psp_create",
                            "a request sent before the service " + "point existed may arrive once it listens")));
            M.Slot slot = ep.pending.get(0);
            slot.certain = false;
            Check est = Check.ok(
                            "dat_ep_connect",
                            "an accepted request is reported by DAT_CONNECTION_EVENT_ESTABLISHED "
                                    + "on connect_evd and the EP goes to CONNECTED")
                    .rows("2.5#1");
            Check rej = Check.ok(
                            "dat_ep_connect",
                            "a rejected request is reported by DAT_CONNECTION_EVENT_PEER_REJECTED "
                                    + "and the EP goes to DISCONNECTED")
                    .rows("2.5#2");
            Check unr = Check.ok("dat_ep_connect", "an unanswered request ends DAT_CONNECTION_EVENT_UNREACHABLE")
                    .rows("2.5#4")
                    .choice(GAVE_UP);
            Runnable down = () -> flushUnconnected(ep);
            M.Step estStep = new M.Step(
                    CONNECTED,
                    EventNumber.CONNECTION_EVENT_ESTABLISHED,
                    null,
                    c.fork,
                    "est",
                    est,
                    () -> established(m, c));
            estStep.awaitsAccept = c;
            slot.alternatives.add(estStep);
            slot.alternatives.add(new M.Step(
                    DISCONNECTED, EventNumber.CONNECTION_EVENT_PEER_REJECTED, null, c.fork, "rej", rej, down));
            slot.alternatives.add(new M.Step(
                    DISCONNECTED, EventNumber.CONNECTION_EVENT_UNREACHABLE, null, c.fork, "gaveup", unr, down));
            slot.alternatives.add(gaveUpTimedOut(c, down));
            if (sp instanceof M.Rsp rsp) {
                requestOnItsWay(m, rsp, c);
            }
        }
    }

    static Expect spQuery(M.Obj sp) {
        String p = sp instanceof M.Psp ? "dat_psp_query" : "dat_rsp_query";
        Expect bad = onlyBadHandle(sp, p);
        return bad != null ? bad : Expect.ok(Check.ok(p, "returns the service point's parameters"));
    }

    static Expect pspFree(Model m, M.Psp psp) {
        Expect bad = onlyBadHandle(psp, "dat_psp_free");
        return bad != null
                ? bad
                : Expect.ok(
                        Check.ok(
                                "dat_psp_free",
                                "destroys the PSP; later requests are rejected as " + "if nobody listened"),
                        v -> spGone(m, psp));
    }

    /** A service point is gone: requests in flight either arrive or are rejected, consistently (dat_psp_free). */
    static void spGone(Model m, M.Obj sp) {
        sp.alive = false;
        List<M.Arrival> l = m.arrivals.get(sp);
        if (l == null) {
            return;
        }
        for (int i = 0; i < l.size(); i++) {
            M.Arrival a = l.get(i);
            l.set(i, new M.Arrival(a.conn, a.sp, a.evd, false, a.check));
            M.Ep act = a.conn.active;
            if (!act.pending.isEmpty()) {
                act.pending
                        .get(0)
                        .alternatives
                        .add(new M.Step(
                                DISCONNECTED,
                                EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                                null,
                                a.conn.fork,
                                "nonpeer",
                                NO_LISTENER
                                        .rule("a request in flight when its service point is freed is rejected as if "
                                                + "nobody listened, or arrives")
                                        .and("dat_psp_free", DatReturnType.SUCCESS),
                                () -> flushUnconnected(act)));
            }
        }
    }

    static Expect rspCreate(Model m, M.Ia ia, long qual, M.Ep ep, M.Evd evd) {
        String p = "dat_rsp_create";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        if (ep == null) {
            e.orErrChoice(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "a NULL ep_handle (provider-api: the EP must " + "be given)"),
                    DatReturnSubtype.INVALID_HANDLE_EP);
        } else {
            badHandle(e, ep, ia, p, "ep_handle");
        }
        if (evd == null) {
            e.orErrChoice(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "a NULL evd_handle"),
                    DatReturnSubtype.INVALID_HANDLE_EVD_CR);
        } else if (!badHandle(e, evd, ia, p, "evd_handle") && !evd.flags.contains(EvdFlag.CR)) {
            String choice = "an EVD without the connection request stream is an invalid handle or parameter";
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "an EVD without the CR stream")
                            .choice(choice));
            e.orErr(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "an EVD without the CR stream").choice(choice));
        }
        if (qualInUse(ia, qual)) {
            e.orErr(CONN_QUAL_IN_USE, Check.ret(p, CONN_QUAL_IN_USE, "the qualifier is in use"));
        }
        if (qual < 0 || qual > 0xFFFF) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "a qualifier outside the transport's port space")
                            .choice("which connection qualifiers a transport takes is the provider's"));
        }
        if (ep == null || !ep.live() || ep.ia != ia) {
            return e;
        }
        Expect params = e;
        return m.byState(ep, s -> {
            Expect r = new Expect().or(params);
            if (s != UNCONNECTED) {
                r.or(wrongState(p, s, "the EP must be Idle (UNCONNECTED)", "4#12"));
            } else if (params.alts.isEmpty()) {
                r.orOk(
                        Check.ok(p, "the EP goes to RESERVED for the RSP").rows("2.1#3", "4#12"),
                        v -> ep.state = RESERVED);
            }
            return r;
        });
    }

    static Expect rspFree(Model m, M.Rsp rsp) {
        String p = "dat_rsp_free";
        Expect bad = onlyBadHandle(rsp, p);
        if (bad != null) {
            return bad;
        }
        if (rsp.fired) {
            String c2 = "C2: after its request the RSP still exists until freed (dat_rsp_free discusses freeing an RSP "
                    + "that generated its request); the dat.h comment destroys it";
            Expect e = Expect.ok(
                    Check.ok(p, "frees an RSP after its request; the request is unaffected")
                            .choice(c2),
                    v -> {
                        spGone(m, rsp);
                        requestMayNotHaveArrived(m, rsp);
                    });
            e.orErrChoice(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "an RSP destroyed by its request")
                            .alternative(c2),
                    DatReturnSubtype.INVALID_HANDLE_RSP);
            return e;
        }
        return Expect.ok(
                Check.ok(p, "destroys the RSP; its EP goes back to the consumer (UNCONNECTED)")
                        .rows("2.2#2"),
                v -> {
                    spGone(m, rsp);
                    if (rsp.ep.alive && rsp.ep.state == RESERVED) {
                        rsp.ep.state = UNCONNECTED;
                    }
                });
    }

    /**
     * dat_rsp_free of an RSP whose request was sent but not yet seen to arrive: if it arrived, the EP is
     * PASSIVE_CONNECTION_PENDING; if it was still in flight, the RSP no longer listens for it (dat_rsp_free: in-flight
     * requests are rejected as if nobody listened) and the EP went back to the consumer, UNCONNECTED (dat_ep_free:
     * destroying the RSP moves the EP to Unconnected). RESERVED is no longer possible.
     */
    static void requestMayNotHaveArrived(Model m, M.Rsp rsp) {
        M.Ep ep = rsp.ep;
        if (!ep.alive || ep.wild || ep.state != RESERVED) {
            return;
        }
        for (M.Slot slot : ep.pending) {
            for (M.Step st : slot.viable()) {
                if (st.to == PASSIVE_CONNECTION_PENDING) {
                    ep.state = UNCONNECTED;
                    slot.certain = false;
                    return;
                }
            }
        }
    }

    static Expect crQuery(M.Cr cr) {
        Expect bad = onlyBadHandle(cr, "dat_cr_query");
        return bad != null
                ? bad
                : Expect.ok(Check.ok(
                        "dat_cr_query",
                        "returns the remote address, the requester's " + "private data and the local EP"));
    }

    static Expect crAccept(Model m, M.Cr cr, M.Ep ep, byte[] pdata) {
        String p = "dat_cr_accept";
        Expect e = new Expect();
        if (badHandle(e, cr, null, p, "cr_handle")) {
            return e;
        }
        M.Ep target =
                ep != null ? ep : cr.providerEp != null ? cr.providerEp : cr.sp instanceof M.Rsp rsp ? rsp.ep : null;
        if (ep != null) {
            badHandle(e, ep, cr.ia, p, "ep_handle");
        }
        if (pdata != null && pdata.length > cr.ia.maxPrivateData()) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "private data longer than max_private_data_size")
                            .and("dat_evd_dequeue", DatReturnType.SUCCESS));
        }
        if (target == null) {
            String c = "a NULL ep_handle for a request that names no EP";
            e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, c).choice("S2: an invalid parameter or handle"));
            e.orErr(INVALID_HANDLE, Check.ret(p, INVALID_HANDLE, c).choice("S2: an invalid parameter or handle"));
            return e;
        }
        if (cr.sp instanceof M.Rsp rsp && ep != null && ep != rsp.ep) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                            p,
                            INVALID_PARAMETER,
                            "a request of an RSP is accepted only by its "
                                    + "EP (the EP does not satisfy the request)"));
            e.orErr(
                    INVALID_STATE,
                    Check.ret(p, INVALID_PARAMETER, "a request of an RSP is accepted only by its EP")
                            .alternative("S2: which return an EP that does not satisfy the request gets"));
        }
        if (!target.live() || target.ia != cr.ia) {
            return e;
        }
        if (target.pz == null || target.recvEvd == null || target.reqEvd == null) {
            e.or(notReady(p, target));
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "an EP without a PZ or DTO EVD does not satisfy " + "the request")
                            .alternative(target.pz == null ? NOT_READY : NOT_READY_EVD));
        }
        Expect params = e;
        return m.byState(target, s -> {
            Expect r = new Expect().or(params);
            boolean stateOk =
                    s == UNCONNECTED && ep != null && cr.sp instanceof M.Psp && ((M.Psp) cr.sp).flag == PspFlag.CONSUMER
                            || s == PASSIVE_CONNECTION_PENDING && cr.sp instanceof M.Rsp
                            || s == TENTATIVE_CONNECTION_PENDING && target == cr.providerEp;
            if (!stateOk && (s == PASSIVE_CONNECTION_PENDING || s == TENTATIVE_CONNECTION_PENDING)) {
                // an EP another request names (its RSP's, or the provider's EP of another request). dat_cr_accept:
                // "If the provided local Endpoint does not satisfy the requested Connection Request, the operation
                // fails", and its RETURN VALUES name "DAT_INVALID_PARAMETER ... a combination of parameters was
                // invalid" (no DAT_INVALID_STATE). S2 (ep-state-machine.md: SILENT, the return code of dat_cr_accept
                // when the EP is in a wrong state or does not satisfy the request): provider choice, the listed
                // DAT_INVALID_PARAMETER; DAT_INVALID_STATE for the EP's state is the alternative
                String s2 = "S2: an EP that belongs to another connection request does not satisfy this one: "
                        + "DAT_INVALID_PARAMETER (dat_cr_accept lists no DAT_INVALID_STATE)";
                r.orErr(
                        INVALID_PARAMETER,
                        Check.ret(p, INVALID_PARAMETER, "an EP in " + s + " belongs to another request")
                                .rows("4#13")
                                .choice(s2));
                r.orErr(
                        INVALID_STATE,
                        Check.ret(p, INVALID_PARAMETER, "an EP in " + s + " belongs to another request")
                                .rows("4#13")
                                .alternative(s2));
                return r;
            }
            if (!stateOk) {
                String s2 = "S2: the return code of an accept by an EP in a wrong state is silent";
                r.orErrChoice(
                        INVALID_STATE,
                        Check.ret(p, INVALID_PARAMETER, "an EP in " + s + " cannot accept this " + "request")
                                .rows("4#13")
                                .choice(s2),
                        stateSubtype(s));
                r.orErr(
                        INVALID_PARAMETER,
                        Check.ret(p, INVALID_PARAMETER, "an EP in " + s + " cannot accept this " + "request")
                                .rows("4#13")
                                .alternative(s2));
                return r;
            }
            if (!blocksSuccess(params)) {
                String row = switch (s) {
                    case UNCONNECTED -> "2.1#4";
                    case PASSIVE_CONNECTION_PENDING -> "2.3#1";
                    default -> "2.4#3";
                };
                r.orOk(
                        Check.ok(p, "accepts: the CR is destroyed, the connection completes asynchronously")
                                .rows(row),
                        v -> accepted(m, cr, target, pdata == null ? new byte[0] : pdata));
            }
            return r;
        });
    }

    static final String S4 = "S4: between a successful accept and ESTABLISHED the EP is COMPLETION_PENDING";

    /** A successful dat_cr_accept. */
    static void accepted(Model m, M.Cr cr, M.Ep y, byte[] pdata) {
        cr.alive = false;
        M.Conn conn = cr.conn;
        M.Ep x = conn.active;
        conn.accepted = true;
        conn.passive = y;
        y.conn = conn;
        y.pending.clear();
        if (conn.aborted || !x.alive || conn.unsure) {
            y.wild = true;
            y.state = COMPLETION_PENDING;
            return;
        }
        Runnable down = () -> flushUnconnected(y);
        Check cp = Check.ok(
                        "dat_cr_accept",
                        "after a successful accept the EP waits for establishment in " + "COMPLETION_PENDING")
                .choice(S4);
        Check est = Check.ok(
                        "dat_cr_accept",
                        "a completed accept is reported by DAT_CONNECTION_EVENT_ESTABLISHED on the "
                                + "EP's connect_evd and the EP is connected")
                .rows("2.1#4");
        Check ace = Check.ok(
                        "dat_cr_accept",
                        "an accept the provider cannot complete (the active side gave up) is "
                                + "reported by DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR; the EP goes to DISCONNECTED, its receives "
                                + "flushed")
                .choice(GAVE_UP);
        if (conn.timedOut) {
            // dat_cr_accept(3DAT): the accept cannot complete, "It can be caused by the active side timeout
            // expiration": the requester's timeout expired (row 2.5#5), so this end is the page's, not a choice
            ace = Check.ok(
                            "dat_cr_accept",
                            "an accept of a request whose requester's timeout expired is reported by "
                                    + "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR; the EP goes to DISCONNECTED, its "
                                    + "receives flushed")
                    .rows(y.state == UNCONNECTED ? "2.1#4" : y.state == PASSIVE_CONNECTION_PENDING ? "2.3#1" : "2.4#3");
        }
        y.state = y.state == UNCONNECTED
                        || y.state == PASSIVE_CONNECTION_PENDING
                        || y.state == TENTATIVE_CONNECTION_PENDING
                ? y.state
                : y.state;
        m.pend(y, true, new M.Step(COMPLETION_PENDING, null, null, null, null, cp, null));
        m.pend(
                y,
                true,
                new M.Step(
                        CONNECTED,
                        EventNumber.CONNECTION_EVENT_ESTABLISHED,
                        null,
                        conn.fork,
                        "est",
                        est,
                        () -> established(m, conn)),
                new M.Step(
                        DISCONNECTED,
                        EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
                        null,
                        conn.fork,
                        "gaveup",
                        ace,
                        down));
        if (!x.pending.isEmpty()) {
            M.Slot s = x.pending.get(0);
            s.certain = true;
            for (M.Step st : s.alternatives) {
                if ("est".equals(st.option)) {
                    st.privateData = pdata;
                }
            }
            s.alternatives.removeIf(st -> "rej".equals(st.option) || "nonpeer".equals(st.option));
        }
    }

    static Expect crReject(Model m, M.Cr cr) {
        String p = "dat_cr_reject";
        Expect bad = onlyBadHandle(cr, p);
        if (bad != null) {
            return bad;
        }
        Check c = Check.ok(p, "rejects: the CR is destroyed, the requester gets DAT_CONNECTION_EVENT_PEER_REJECTED");
        if (cr.sp instanceof M.Rsp) {
            c = c.rows("2.3#2");
        } else if (cr.providerEp != null) {
            c = c.rows("2.4#4");
        }
        return Expect.ok(c, v -> {
            cr.alive = false;
            M.Conn conn = cr.conn;
            conn.rejected = true;
            m.finished.add(conn);
            if (cr.sp.alive) {
                // a request the consumer rejected must not arrive again; the model counts it as possible so that
                // a provider doing it is caught by the one check below, not by a miscount
                M.Evd evd = cr.sp instanceof M.Psp psp ? psp.evd : ((M.Rsp) cr.sp).evd;
                M.Arrival ph = new M.Arrival(
                        conn,
                        cr.sp,
                        evd,
                        false,
                        Check.ok("dat_cr_reject", "a rejected request is " + "destroyed: it does not arrive again")
                                .rows("2.5#2"));
                ph.phantom = true;
                m.arrive(ph);
            }
            M.Ep x = conn.active;
            // the requester learns of the rejection while it still waits on this connect: once dat_ep_disconnect
            // aborted it and dat_ep_reset let the EP connect again, the pending outcome is another connect's
            if (x.conn == conn && !x.pending.isEmpty()) {
                M.Slot s = x.pending.get(0);
                s.certain = true;
                s.alternatives.removeIf(st -> "est".equals(st.option) || "nonpeer".equals(st.option));
            }
            if (cr.sp instanceof M.Rsp rsp && rsp.ep.alive) {
                m.resolveTo(rsp.ep, PASSIVE_CONNECTION_PENDING);
                rsp.ep.state = UNCONNECTED;
                rsp.ep.pending.clear();
                rsp.ep.conn = null;
            }
            if (cr.providerEp != null) {
                cr.providerEp.undefined = true;
                cr.providerEp.alive = false;
            }
        });
    }

    static Expect crHandoff(Model m, M.Cr cr, long qual) {
        String p = "dat_cr_handoff";
        Expect e = new Expect();
        if (badHandle(e, cr, null, p, "cr_handle")) {
            return e;
        }
        M.Obj sp = listener(m, cr.ia, qual);
        if (sp == null || sp == cr.sp) {
            String why = sp == null
                    ? "no service point of the IA listens on the handoff qualifier"
                    : "the handoff qualifier is the request's own service point";
            String same =
                    "a handoff to the service point the request is on: refused, or the request arrives there again";
            Check bad = Check.ret(p, INVALID_PARAMETER, why);
            e.orErr(INVALID_PARAMETER, sp == null ? bad : bad.choice(same));
            if (sp != null) {
                e.orOk(Check.ok(p, why + ": the request arrives there again").choice(same), v -> handedOff(m, cr, sp));
            }
            M.Rsp racing = sp == null ? rspAwaitingRequest(m, cr.ia, qual) : null;
            if (racing != null) {
                // dat_cr_handoff(3DAT) hands the request "to another Service Point specified by the Connection
                // Qualifier handoff": an RSP whose one request is still on its way (sent, not delivered) is such a
                // Service Point until that request reaches it. Which comes first is timing: the handoff may take
                // the RSP, and the request on its way then finds nobody listening.
                e.orOk(
                        Check.ok(
                                p,
                                "a handoff to an RSP whose request is still on its way: the handed-off request "
                                        + "takes it"),
                        v -> {
                            otherRequestsRefused(m, racing, cr.conn);
                            racing.ep.pending.removeIf(sl -> sl.alternatives.stream()
                                    .allMatch(st -> st.to == PASSIVE_CONNECTION_PENDING && st.event == null));
                            handedOff(m, cr, racing);
                        });
            }
            return e;
        }
        return Expect.ok(
                Check.ok(p, "hands the request to the service point on the qualifier and destroys the CR"),
                v -> handedOff(m, cr, sp));
    }

    /**
     * A live RSP of {@code ia} on {@code qual} the model holds fired by a request not yet delivered, or null.
     */
    static M.Rsp rspAwaitingRequest(Model m, M.Ia ia, long qual) {
        for (M.Obj o : ia.objects) {
            if (o.alive
                    && o instanceof M.Rsp r
                    && r.qual == qual
                    && r.fired
                    && r.firedBy != null
                    && r.firedBy.cr == null
                    && inFlight(m, r, r.firedBy) != null) {
                return r;
            }
        }
        return null;
    }

    static void handedOff(Model m, M.Cr cr, M.Obj sp) {
        cr.alive = false;
        M.Conn conn = cr.conn;
        conn.sp = sp;
        M.Evd evd = sp instanceof M.Psp psp ? psp.evd : ((M.Rsp) sp).evd;
        if (cr.providerEp != null) {
            cr.providerEp.undefined = true;
            cr.providerEp.alive = false;
        }
        if (cr.sp instanceof M.Rsp old && old.ep.alive) {
            old.ep.wild = true;
        }
        m.arrive(new M.Arrival(
                conn,
                sp,
                evd,
                true,
                Check.ok("dat_cr_handoff", "the handed-off request arrives on the " + "target service point's EVD")));
        if (sp instanceof M.Rsp rsp) {
            rsp.fired = true;
            rsp.firedBy = conn;
            m.pend(
                    rsp.ep,
                    true,
                    new M.Step(
                            PASSIVE_CONNECTION_PENDING,
                            null,
                            null,
                            null,
                            null,
                            Check.ok(
                                            "dat_rsp_create",
                                            "a request on the RSP moves its EP to PASSIVE_CONNECTION_PENDING")
                                    .rows("2.2#1"),
                            null));
        }
    }

    // ------------------------------------------------------------------ DTOs

    /** The page of a work request's kind. */
    static String pageOf(M.WorkKind k) {
        return switch (k) {
            case SEND -> "dat_ep_post_send";
            case RECV -> "dat_ep_post_recv";
            case RDMA_READ -> "dat_ep_post_rdma_read";
            case RDMA_WRITE -> "dat_ep_post_rdma_write";
            case BIND -> "dat_rmr_bind";
        };
    }

    /** The transferred length a successful completion reports. */
    static long expectedLength(M.Work w) {
        if (w.kind == M.WorkKind.RECV) {
            return w.peer != null ? w.peer.length : w.length;
        }
        return w.length;
    }

    static final String C9 =
            "C9: a receive writes local memory, so it needs local write (dat_ep_post_recv says " + "local read)";

    /**
     * The errors of a local I/O vector: an unknown LMR or one without {@code need}
     * (PRIVILEGES_VIOLATION), another PZ (PROTECTION_VIOLATION), a segment outside its LMR or too many
     * segments (INVALID_PARAMETER).
     */
    static void segErrors(
            Expect e,
            String p,
            M.Ia ia,
            M.Pz pz,
            List<Tri> segs,
            MemoryPrivilege need,
            int maxIov,
            Model m,
            String ruleRow) {
        if (segs.size() > maxIov) {
            String c = "more segments than the EP's max_*_iov attribute";
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, c)
                            .choice("an over-long I/O vector is an invalid " + "parameter or a resource limit"));
            e.orErr(
                    INSUFFICIENT_RESOURCES,
                    Check.ret(p, INSUFFICIENT_RESOURCES, c)
                            .choice("an over-long I/O vector is " + "an invalid parameter or a resource limit"));
        }
        for (Tri t : segs) {
            if (t.len() == 0) {
                continue;
            }
            M.Lmr l = lmrByContext(m, ia, t.context(m));
            if (l == null) {
                e.orErr(
                        PRIVILEGES_VIOLATION,
                        Check.ret(p, PRIVILEGES_VIOLATION, "an LMR used in local_iov is invalid")
                                .rows("4#17"));
                continue;
            }
            if (pz != null && l.pz != pz) {
                e.orErr(
                        PROTECTION_VIOLATION,
                        Check.ret(
                                        p,
                                        PROTECTION_VIOLATION,
                                        "Protection Zone mismatch between an " + "LMR of local_iov and the "
                                                + (ruleRow.equals("srq") ? "SRQ" : "Endpoint"))
                                .rows(ruleRow.equals("srq") ? "5#2" : "4#16"));
            }
            if (!inRange(l, t)) {
                e.orErr(
                        INVALID_PARAMETER,
                        Check.ret(p, INVALID_PARAMETER, "an IOV segment points to memory outside its " + "LMR")
                                .rows("4#15"));
            }
            if (!l.has(need)) {
                if (need == MemoryPrivilege.LOCAL_WRITE && p.equals("dat_ep_post_recv")) {
                    e.orErr(
                            PRIVILEGES_VIOLATION,
                            Check.ret(p, PRIVILEGES_VIOLATION, "a receive buffer's LMR lacks local " + "write")
                                    .rows("4#17")
                                    .choice(C9));
                } else {
                    e.orErr(
                            PRIVILEGES_VIOLATION,
                            Check.ret(p, PRIVILEGES_VIOLATION, "an LMR of local_iov lacks the " + need + " privilege")
                                    .rows("4#17"));
                }
            } else if (need == MemoryPrivilege.LOCAL_WRITE
                    && p.equals("dat_ep_post_recv")
                    && !l.has(MemoryPrivilege.LOCAL_READ)) {
                e.orErr(
                        PRIVILEGES_VIOLATION,
                        Check.ret(
                                        p,
                                        PRIVILEGES_VIOLATION,
                                        "a receive buffer's LMR lacks local read " + "(the page's words)")
                                .alternative(C9));
            }
        }
    }

    /** The memory segments a local I/O vector names (only valid, non-empty segments). */
    static List<M.Seg> memSegs(Model m, M.Ia ia, List<Tri> segs) {
        List<M.Seg> l = new ArrayList<>();
        for (Tri t : segs) {
            if (t.len() == 0) {
                continue;
            }
            M.Lmr lmr = lmrByContext(m, ia, t.context(m));
            if (lmr != null && inRange(lmr, t)) {
                l.add(new M.Seg(lmr.mem, (int) (lmr.memOff + t.off()), (int) t.len()));
            }
        }
        return l;
    }

    /** The shadow bytes of segments, concatenated; null if any is unknown. */
    static byte[] gather(List<M.Seg> segs, long length) {
        byte[] out = new byte[(int) length];
        int at = 0;
        for (M.Seg s : segs) {
            int n = (int) Math.min(s.len(), length - at);
            if (n <= 0) {
                break;
            }
            byte[] b = s.mem().read(s.off(), n);
            if (b == null) {
                return null;
            }
            System.arraycopy(b, 0, out, at, n);
            at += n;
        }
        return out;
    }

    static boolean overlaps(List<M.Seg> a, List<M.Seg> b) {
        if (a == null || b == null) {
            return false;
        }
        for (M.Seg x : a) {
            for (M.Seg y : b) {
                if (x.mem() == y.mem() && x.off() < y.off() + y.len() && y.off() < x.off() + x.len()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether segments of one I/O vector overlap each other (the bytes that land there are the last segment's). */
    static boolean selfOverlap(List<M.Seg> segs) {
        if (segs == null) {
            return false;
        }
        for (int i = 0; i < segs.size(); i++) {
            for (int j = i + 1; j < segs.size(); j++) {
                if (overlaps(List.of(segs.get(i)), List.of(segs.get(j)))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A new work's memory races an unfinished one's: neither's bytes can be verified. */
    static void races(Model m, M.Work w) {
        if (selfOverlap(w.dest)) {
            w.data = null;
        }
        // a buffer posted to an SRQ is some receive's destination once a message takes it
        for (M.Srq srq : m.all(M.Srq.class)) {
            for (M.SrqBuf b : srq.posted) {
                List<M.Seg> bs = memSegs(m, srq.ia, b.segs());
                if (overlaps(bs, w.dest) || overlaps(bs, w.source)) {
                    srq.raced.add(b.cookie());
                    w.data = null;
                    w.raced = true;
                }
            }
        }
        for (M.Ep ep : m.all(M.Ep.class)) {
            for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.recvs)) {
                for (M.Work o : q) {
                    if (o == w || o.done) {
                        continue;
                    }
                    if (overlaps(w.dest, o.dest) || overlaps(w.dest, o.source) || overlaps(w.source, o.dest)) {
                        w.data = null;
                        o.data = null;
                        w.raced = true;
                        o.raced = true;
                        if (o.peer != null) {
                            o.peer.data = null;
                            o.peer.raced = true;
                        }
                    }
                }
            }
        }
        for (M.Srq q : m.live(M.Srq.class)) {
            srqRaces(m, q);
        }
    }

    /**
     * The buffers posted to {@code srq} are written by whichever message takes them (dat_srq_post_recv): an
     * unfinished work whose memory overlaps one of them races the SRQ's receives, and neither's bytes can be
     * verified.
     */
    static void srqRaces(Model m, M.Srq srq) {
        List<M.Seg> bufs = new ArrayList<>();
        List<List<M.Seg>> each = new ArrayList<>();
        for (M.SrqBuf b : srq.posted) {
            List<M.Seg> bs = memSegs(m, srq.ia, b.segs());
            // two buffers of the SRQ over the same memory: the message that takes the one may write into the other
            // after its own message landed there ("which buffer a message takes shows only in its completion"), so
            // neither's bytes can be verified
            for (int i = 0; i < each.size(); i++) {
                if (overlaps(bs, each.get(i))) {
                    srq.raced.add(b.cookie());
                    srq.raced.add(srq.posted.get(i).cookie());
                }
            }
            each.add(bs);
            bufs.addAll(bs);
        }
        if (bufs.isEmpty()) {
            return;
        }
        List<M.Work> takers = new ArrayList<>();
        boolean hit = false;
        for (M.Ep ep : m.all(M.Ep.class)) {
            for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.recvs)) {
                for (M.Work o : q) {
                    if (o.done) {
                        continue;
                    }
                    if (o.srq == srq) {
                        takers.add(o);
                    } else if (overlaps(bufs, o.dest) || overlaps(bufs, o.source)) {
                        hit = true;
                        unverifiable(o);
                    }
                }
            }
        }
        if (hit) {
            for (M.Work r : takers) {
                unverifiable(r);
            }
        }
    }

    private static void unverifiable(M.Work o) {
        o.data = null;
        o.raced = true;
        if (o.peer != null) {
            o.peer.data = null;
            o.peer.raced = true;
        }
    }

    /** The consumer writes its memory: unfinished works reading or writing it can no longer be verified. */
    static void consumerWrites(Model m, M.Mem mem, int off, int len, byte[] data) {
        List<M.Seg> seg = List.of(new M.Seg(mem, off, len));
        for (M.Ep ep : m.all(M.Ep.class)) {
            for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.recvs)) {
                for (M.Work o : q) {
                    if (!o.done && (overlaps(seg, o.dest) || overlaps(seg, o.source))) {
                        o.data = null;
                        o.raced = true;
                        if (o.peer != null) {
                            o.peer.data = null;
                            o.peer.raced = true;
                        }
                    }
                }
            }
        }
        mem.write(off, data, 0, len);
    }

    static Expect unsignalled(String p, M.Ep ep, Set<CompletionFlag> flags, boolean recv) {
        Expect e = new Expect();
        Set<CompletionFlag> epFlags = recv ? ep.attrs.recvCompletionFlags() : ep.attrs.requestCompletionFlags();
        if (flags.contains(CompletionFlag.UNSIGNALLED) && !epFlags.contains(CompletionFlag.UNSIGNALLED)) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                                    p,
                                    INVALID_PARAMETER,
                                    "DAT_COMPLETION_UNSIGNALLED_FLAG is valid only if " + "the EP's "
                                            + (recv ? "Recv" : "Request") + " Completion Flags have it")
                            .rows("4#14"));
        }
        return e;
    }

    /** The wrong-state outcome of a post of a request (send, RDMA, bind) in state {@code s}. */
    static Expect postState(String p, EndpointState s) {
        String row = switch (s) {
            case UNCONNECTED -> "2.1#11";
            case ACTIVE_CONNECTION_PENDING -> "2.5#10";
            case DISCONNECT_PENDING -> "2.8#3";
            default -> null;
        };
        String gen = p.equals("dat_rmr_bind") ? "4#8" : "4#7";
        Expect e = row == null
                ? wrongState(p, s, "valid only in CONNECTED and DISCONNECTED", gen)
                : wrongState(p, s, "valid only in CONNECTED and DISCONNECTED", row, gen);
        if (s == COMPLETION_PENDING) {
            Expect.Alt a = e.alts.get(0);
            e.alts.set(
                    0,
                    new Expect.Alt(
                            a.type(),
                            a.subtypes(),
                            a.subChoice(),
                            a.check().choice("C5: posts are valid only in CONNECTED and DISCONNECTED"),
                            null));
        }
        return e;
    }

    static Check postOk(String p, EndpointState s) {
        String gen = p.equals("dat_rmr_bind") ? "4#8" : "4#7";
        if (s == DISCONNECTED) {
            return Check.ok(p, "in DISCONNECTED the post succeeds and is flushed at once")
                    .rows("2.9#2", gen);
        }
        return Check.ok(p, "in CONNECTED the request is posted; its completion comes on request_evd")
                .rows(p.equals("dat_ep_post_send") ? "2.7#1" : p.equals("dat_rmr_bind") ? "2.7#3" : "2.7#2", gen);
    }

    /** A new work request in {@code s}: flushed in DISCONNECTED, posted in CONNECTED. */
    static M.Work newWork(
            Model m, M.WorkKind kind, M.Ep ep, long cookie, Set<CompletionFlag> flags, List<Tri> segs, long length) {
        M.Work w = new M.Work(kind, ep, cookie, flags, List.copyOf(segs), length, ++m.workSeq);
        w.postedTo = kind == M.WorkKind.RECV ? ep.recvEvd : ep.reqEvd;
        w.possible = EnumSet.of(DtoCompletionStatus.SUCCESS);
        w.check = Check.ok(pageOf(kind), "the completion carries the cookie and a status the pages allow");
        return w;
    }

    static void flushed(M.Work w, String p) {
        w.possible = EnumSet.of(DtoCompletionStatus.ERR_FLUSHED);
        w.certain = true;
        w.check = Check.ok(p, "a post in DISCONNECTED is flushed at once to its EVD")
                .rows(w.kind == M.WorkKind.RECV ? "2.9#3" : "2.9#2");
        w.data = null;
    }

    static Expect postSend(Model m, M.Ep ep, List<Tri> segs, long cookie, Set<CompletionFlag> flags) {
        String p = "dat_ep_post_send";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        Expect params = unsignalled(p, ep, flags, false).or(notReady(p, ep));
        segErrors(params, p, ep.ia, ep.pz, segs, MemoryPrivilege.LOCAL_READ, ep.attrs.maxRequestIov(), m, "ep");
        long len = Tri.total(segs);
        if (len > ep.attrs.maxMessageSize()) {
            params.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "a message longer than max_message_size")
                            .choice("an over-long message is an invalid parameter or a length error"));
            params.orErr(
                    LENGTH_ERROR,
                    Check.ret(p, INVALID_PARAMETER, "a message longer than max_message_size")
                            .choice("an over-long message is an invalid parameter or a length error"));
        }
        outstanding(params, p, ep, ep.requests, ep.attrs.maxRequestDtos());
        return posting(m, ep, p, params, (s, v) -> {
            M.Work w = newWork(m, M.WorkKind.SEND, ep, cookie, flags, segs, len);
            w.source = memSegs(m, ep.ia, segs);
            w.data = gather(w.source, len);
            ep.requests.add(w);
            if (s == DISCONNECTED || ep.breaking && !ep.errorBreak) {
                breakingOrFlushed(w, p, ep);
                return;
            }
            postedWhileBreaking(w, ep);
            w.check = Check.ok(p, "the Send completes on request_evd with its cookie")
                    .rows("2.7#1");
            races(m, w);
            if (!((w.maybeBroken || ep.mayBreak) && mayArriveBeforeBreak(w, ep.peer))) {
                matchSend(m, w, ep.peer);
            }
            peerEnding(ep, w);
        });
    }

    /**
     * A Send posted while a transfer error breaks (or may break) the connection, before its EP saw the error, is
     * in progress when the connection breaks: "in-progress DTOs may succeed or fail" (ep-state-machine.md 2.7,
     * dat_ep_disconnect). If it reaches the peer first it takes the peer's next receive, which the break would
     * otherwise flush: that receive completes with the message (DAT_DTO_SUCCESS, or DAT_DTO_ERR_LOCAL_LENGTH for a
     * buffer too small: dat_ep_post_recv) or is flushed. Which bytes it then holds the model does not follow.
     */
    static boolean mayArriveBeforeBreak(M.Work send, M.Ep y) {
        if (y == null || y.srq != null || y.peer != send.ep || !y.alive) {
            return false;
        }
        for (M.Work r : y.recvs) {
            if (r.done || r.peer != null || r.kind != M.WorkKind.RECV) {
                continue;
            }
            // receives are taken in order: the message goes to the first one without a message, if any
            if (!r.possible.equals(EnumSet.of(DtoCompletionStatus.ERR_FLUSHED))) {
                return false;
            }
            send.peer = r;
            r.peer = send;
            r.maybeBroken = true;
            r.data = null;
            r.possible.add(
                    Tri.total(r.segs) >= send.length
                            ? DtoCompletionStatus.SUCCESS
                            : DtoCompletionStatus.ERR_LOCAL_LENGTH);
            send.possible.addAll(ANY_ERROR);
            return true;
        }
        return false;
    }

    /** A work posted while the other side ends the connection may complete or be flushed (this side may not know yet). */
    static void peerEnding(M.Ep ep, M.Work w) {
        if (ep.mayBreak) {
            w.possible.addAll(ANY_ERROR);
            if (w.peer != null) {
                w.peer.possible.addAll(ANY_ERROR);
            }
        }
        if (!ep.peerEnding) {
            return;
        }
        w.possible.addAll(ANY_ERROR);
        // the end flushes it, if the end is certain to come (a graceful end of the other side may wait forever)
        M.Slot end = pendingEnd(ep);
        w.certain |= end == null || end.certain;
        if (w.peer != null) {
            w.peer.possible.addAll(ANY_ERROR);
            // the Send completes either way, but a receive it took from the peer's SRQ exists only if the message
            // arrived: dat_srq_post_recv(3DAT), "When an Endpoint is transitioned into Disconnected state, all the
            // buffers that it dequeued from SRQ are queued on the Endpoint recv_evd", and "Only the Endpoint that
            // is in Connected or Disconnect Pending states can dequeue buffers from SRQ"; a Send posted while the
            // other side ends may be flushed without leaving (dat_ep_disconnect(3DAT): in-progress DTOs "can be
            // completed successfully or unsuccessfully"), and then no buffer is dequeued, nothing completes
            w.peer.certain = !srqMessageMayNotArrive(w.peer);
        }
    }

    /** The shared shape of a request post: handle and parameter errors, then the EP state rule. */
    /** Whether an error outcome rules out success (an alternative to a recorded choice does not). */
    static boolean blocksSuccess(Expect params) {
        for (Expect.Alt a : params.alts) {
            if (a.type() != DatReturnType.SUCCESS && !a.check().alternative()) {
                return true;
            }
        }
        return false;
    }

    static Expect posting(
            Model m, M.Ep ep, String p, Expect params, java.util.function.BiConsumer<EndpointState, Object> onOk0) {
        java.util.function.BiConsumer<EndpointState, Object> onOk = (s, v) -> {
            onOk0.accept(s, v);
            noEvdStreams(m, ep);
        };
        return m.byState(ep, s -> {
            Expect r = new Expect().or(params);
            if (s != CONNECTED && s != DISCONNECTED) {
                return r.or(postState(p, s));
            }
            if (!blocksSuccess(params)) {
                r.alts.removeIf(a -> a.type() == DatReturnType.SUCCESS);
                r.orOk(postOk(p, s), v -> onOk.accept(s, v));
            } else if (params.allowsSuccess()) {
                for (int i = 0; i < r.alts.size(); i++) {
                    Expect.Alt a = r.alts.get(i);
                    if (a.type() == DatReturnType.SUCCESS) {
                        r.alts.set(
                                i,
                                new Expect.Alt(
                                        a.type(), a.subtypes(), a.subChoice(), a.check(), v -> onOk.accept(s, v)));
                    }
                }
            }
            return r;
        });
    }

    /** More outstanding requests than max_*_dtos may fail for resource limitations (or the provider has room). */
    static void outstanding(Expect e, String p, M.Ep ep, java.util.ArrayDeque<M.Work> q, int max) {
        int n = 0;
        int silent = 0;
        for (M.Work w : q) {
            if (w.noEvd) {
                silent++;
            } else if (!w.done) {
                n++;
            }
        }
        if (n < max && n + silent >= max) {
            e.orErr(
                    INSUFFICIENT_RESOURCES,
                    Check.ret(
                                    p,
                                    INSUFFICIENT_RESOURCES,
                                    "more outstanding DTOs than the EP's "
                                            + "max_*_dtos (works on a stream without an EVD retire at a time the consumer cannot see)")
                            .alternative("a work without an EVD may still hold its slot"));
        }
        if (n >= max) {
            e.orErr(
                    INSUFFICIENT_RESOURCES,
                    Check.ret(
                            p,
                            INSUFFICIENT_RESOURCES,
                            "more outstanding DTOs than the EP's "
                                    + "max_*_dtos (completed ones not yet dequeued may still count)"));
            if (e.alts.size() == 1) {
                e.orOk(
                        Check.ok(p, "a post beyond max_*_dtos while some counted ones may have completed")
                                .choice("whether a completion not yet dequeued still holds its slot is the provider's"),
                        null);
            }
        }
    }

    /** dat_ep_modify: posted receives whose LMR is not in the EP's new PZ fail. */
    static void pzChanged(Model m, M.Ep ep) {
        for (M.Work w : ep.recvs) {
            if (w.done || w.srq != null || !w.possible.contains(DtoCompletionStatus.SUCCESS)) {
                continue;
            }
            boolean other = false;
            for (Tri t : w.segs) {
                M.Lmr l = lmrByContext(m, ep.ia, t.context(m));
                other |= l != null && l.pz != ep.pz;
            }
            if (other) {
                w.possible = EnumSet.of(DtoCompletionStatus.ERR_LOCAL_PROTECTION);
                w.certain = true;
                w.apart = true;
                w.data = null;
                w.check = Check.ok(
                                "dat_ep_modify",
                                "any Receive DTOs currently posted to the Endpoint that do not match "
                                        + "the new Protection Zone fail")
                        .rows("2.10#2");
            }
        }
    }

    /**
     * Work posted while a transfer error breaks the connection, before the EP saw the error: the EP is still
     * connected, so the work is outstanding when the connection breaks, and like the work outstanding then it
     * completes successfully or unsuccessfully (dat_ep_disconnect: in-progress DTOs may succeed or fail).
     */
    static void postedWhileBreaking(M.Work w, M.Ep ep) {
        if (ep.breaking && ep.errorBreak) {
            w.maybeBroken = true;
            if (w.kind == M.WorkKind.RECV && w.peer == null) {
                // a Send the break may have cut from the model's view can still fill it
                w.data = null;
            }
        }
    }

    static void breakingOrFlushed(M.Work w, String p, M.Ep ep) {
        if (ep.breaking && ep.state != DISCONNECTED) {
            // posted while the connection ends: outstanding when it ends, so completed unsuccessfully
            w.possible = EnumSet.copyOf(ANY_ERROR);
            w.certain = true;
            w.data = null;
            w.check = Check.ok(p, "a DTO posted while the connection ends is completed unsuccessfully")
                    .rows("2.7#5");
            return;
        }
        flushed(w, p);
    }

    /** A Send from a connected EP reaches its peer: it takes the peer's next receive, or waits for one. */
    static void matchSend(Model m, M.Work send, M.Ep y) {
        // y.conn == null: dat_ep_reset(3DAT) took y from DISCONNECTED back to UNCONNECTED; its connection is over for
        // both ends, so a Send its former peer posts afterwards does not reach y's new receives; nor does it once y
        // connected again (y.conn is then another connection)
        if (y == null || y.peer != send.ep && y.peer != null || !y.alive || y.conn == null || y.conn != send.ep.conn) {
            send.possible.addAll(ANY_ERROR);
            send.certain = false;
            send.data = null;
            return;
        }
        if (y.srq != null) {
            srqIncoming(m, send, y);
            return;
        }
        for (M.Work r : y.recvs) {
            if (!r.done
                    && r.peer == null
                    && r.possible.contains(DtoCompletionStatus.SUCCESS)
                    && r.kind == M.WorkKind.RECV) {
                link(m, send, r);
                return;
            }
        }
        y.waitingSends.add(send);
        send.certain = false;
    }

    /** A send meets a receive: the receive gets the message, or is too small and the connection breaks. */
    static void link(Model m, M.Work send, M.Work r) {
        send.peer = r;
        r.peer = send;
        long cap = r.srq != null ? r.length : Tri.total(r.segs);
        if (r.srq == null && usesFreedLmr(m, r.segs)) {
            // dat_lmr_free(3DAT): "Any DTO operation that uses the destroyed LMR after the dat_lmr_free() is
            // completed shall fail and report a protection violation"; the message lands after the free, so the
            // receive fails, and may break the connection as any receive a message cannot land in
            r.possible = EnumSet.copyOf(ANY_ERROR);
            r.certain = true;
            r.data = null;
            r.check = Check.ok("dat_lmr_free", "a receive of a freed LMR that a message uses fails");
            if (send.length == 0) {
                // a message of no bytes writes none of the LMR's memory: whether it "uses the destroyed LMR" is the
                // provider's (seed 4312: sim-provider completes it successfully)
                r.possible.add(DtoCompletionStatus.SUCCESS);
                r.check = r.check.choice("a zero-length message into a receive of a freed LMR may succeed or fail");
            }
            send.possible.addAll(ANY_ERROR);
            send.data = null;
            send.certain = true;
            breakConnection(m, send.ep, r.ep, "an LMR freed under a receive", false);
            return;
        }
        if (cap >= send.length) {
            send.certain = true;
            r.certain = true;
            r.data = send.data;
            r.check = Check.ok("dat_ep_post_recv", "the receive completes with the Send's data and length")
                    .rows("2.7#4");
            requestsMayProceed(send.ep);
            return;
        }
        r.possible = EnumSet.of(DtoCompletionStatus.ERR_LOCAL_LENGTH);
        r.certain = true;
        r.data = null;
        r.check = Check.ok(
                        "dat_ep_post_recv",
                        "a message larger than the receive completes it with " + "DAT_DTO_LENGTH_ERROR")
                .rows("4#19");
        send.possible = EnumSet.copyOf(ANY_ERROR);
        send.certain = true;
        send.check = Check.ok("dat_ep_post_send", "a Send into a receive too small for it fails")
                .rows("4#19");
        breakConnection(m, send.ep, r.ep, "a receive too small for the message", !requestsBlocked(send.ep));
    }

    /** An error on the wire ends the connection of both EPs (DAT_CONNECTION_EVENT_BROKEN). */
    static void breakConnection(Model m, M.Ep x, M.Ep y, String why) {
        breakConnection(m, x, y, why, true);
    }

    /** Whether a request of {@code ep} that may never complete (a Send waiting for a receive) is outstanding. */
    static boolean requestsBlocked(M.Ep ep) {
        for (M.Work w : ep.requests) {
            if (!w.done && !w.certain) {
                return true;
            }
        }
        return false;
    }

    static void breakConnection(Model m, M.Ep x, M.Ep y, String why, boolean certain) {
        String choice = "a transfer error breaks the connection: DAT_CONNECTION_EVENT_BROKEN on both sides";
        for (M.Ep ep : new M.Ep[] {x, y}) {
            if (ep == null || !ep.alive || ep.breaking) {
                continue;
            }
            if (ep.ia.asyncEvd != null && !ep.breaking) {
                // the transport error may put the EP's queue pair into error whatever the EP's connection state
                // (a responder that sees an invalid R_Key, IBA class C): DAT_ASYNC_ERROR_EP_BROKEN may follow
                ep.ia.asyncEvd.async.add(new M.AsyncExp(
                        EventNumber.ASYNC_ERROR_EP_BROKEN,
                        ep,
                        null,
                        false,
                        Check.ok(
                                        "dat_evd_dequeue",
                                        "an EP whose connection a transfer error broke may also be reported by "
                                                + "DAT_ASYNC_ERROR_EP_BROKEN on its IA's async EVD")
                                .rows("2.7#10")
                                .choice(
                                        "which events report a broken connection is silent: the connection event, and the dat.h "
                                                + "asynchronous EP event")));
            }
            // the peer may still be establishing the connection the error breaks (the passive side has not seen
            // its ESTABLISHED yet): the break comes after the establishment, if the establishment completes
            int established = ep == y && ep != x && peerOf(y) == x && y.conn != null ? establishedAt(y) : -1;
            if (ep == y && ep != x && established < 0 && (peerOf(y) != x || y.state == UNCONNECTED || y.conn == null)) {
                continue;
            }
            M.Slot end = established < 0 ? pendingEnd(ep) : pendingEndAfter(ep, established);
            // an EP the model does not follow (wild) may have left the connection already (its connection events were
            // dequeued unchecked; a post in DISCONNECTED succeeds and is flushed): the break may find nothing to end
            boolean sure = certain && established < 0 && !ep.wild;
            if (!sure) {
                ep.mayBreak = true;
            }
            if (end != null || ep.state == DISCONNECTED && ep.pending.isEmpty()) {
                // already ending: the break only adds BROKEN as a way it may be reported
                if (end != null) {
                    // ... and it may come before the requests the graceful end waits for have completed: "in-progress
                    // ones may succeed or fail" (ep-state-machine.md 2.7, the end of a connection)
                    for (M.Work w : ep.requests) {
                        if (!w.done && w.possible.contains(DtoCompletionStatus.SUCCESS)) {
                            w.possible.addAll(ANY_ERROR);
                            if (w.peer != null && !w.peer.done) {
                                // a Send whose message may not have reached the peer's receive before the break
                                w.peer.possible.addAll(ANY_ERROR);
                            }
                        }
                    }
                    end.alternatives.add(new M.Step(
                            DISCONNECTED,
                            EventNumber.CONNECTION_EVENT_BROKEN,
                            null,
                            null,
                            null,
                            DISC_EVENT
                                    .rule("a connection ending while a transfer error breaks it may report BROKEN")
                                    .rows("2.7#8"),
                            () -> {
                                inProgress(ep);
                                dropWaiting(ep);
                            }));
                    // an end that was waiting (a graceful disconnect whose Send waits for a receive) comes now: the
                    // break does not wait, and the request DTOs still outstanding may fail, as in-progress DTOs of
                    // any end ("in-progress DTOs ... can be completed successfully or unsuccessfully",
                    // dat_ep_disconnect(3DAT))
                    end.certain |= sure;
                    for (M.Work w : ep.requests) {
                        if (!w.done && w.possible.contains(DtoCompletionStatus.SUCCESS) && w.peer == null) {
                            w.possible.addAll(ANY_ERROR);
                            w.certain |= sure;
                        }
                    }
                }
                continue;
            }
            ep.breaking = sure;
            ep.errorBreak = sure;
            Check brk = Check.ok(
                            "dat_ep_set_watermark",
                            "a connection broken by " + why + " is reported by "
                                    + "DAT_CONNECTION_EVENT_BROKEN and the EP goes to DISCONNECTED")
                    .rows("2.7#8")
                    .choice(choice);
            Check dis = brk.rule("a connection broken by " + why + " reported by DAT_CONNECTION_EVENT_DISCONNECTED")
                    .alternative(choice);
            M.Fork f = m.localFork("break " + ep.sym);
            Runnable flush = () -> {
                inProgress(ep);
                dropWaiting(ep);
            };
            M.Slot broken = m.pend(
                    ep,
                    sure,
                    new M.Step(DISCONNECTED, EventNumber.CONNECTION_EVENT_BROKEN, null, f, "brk", brk, flush),
                    new M.Step(DISCONNECTED, EventNumber.CONNECTION_EVENT_DISCONNECTED, null, f, "dis", dis, flush));
            broken.certainOnceConnected = certain && established >= 0;
            for (M.Work w : ep.requests) {
                if (!w.done && w.possible.contains(DtoCompletionStatus.SUCCESS) && w.peer == null) {
                    w.possible.addAll(ANY_ERROR);
                    w.certain |= sure;
                }
            }
            for (M.Work w : ep.recvs) {
                if (!w.done && w.peer == null) {
                    w.possible.add(DtoCompletionStatus.ERR_FLUSHED);
                    if (sure) {
                        w.possible = EnumSet.of(DtoCompletionStatus.ERR_FLUSHED);
                        w.certain = true;
                    }
                }
            }
            if (sure) {
                ep.waitingSends.clear();
            }
        }
    }

    static Expect postRecv(Model m, M.Ep ep, List<Tri> segs, long cookie, Set<CompletionFlag> flags) {
        String p = "dat_ep_post_recv";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        if (ep.srq != null) {
            String s3 = "S3: posting a receive to an EP of an SRQ is refused; the return code is silent";
            e.orErr(
                    INVALID_STATE,
                    Check.ret(p, INVALID_PARAMETER, "receives of an EP with an SRQ go to the SRQ")
                            .rows("5#6")
                            .choice(s3));
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "receives of an EP with an SRQ go to the SRQ")
                            .rows("5#6")
                            .choice(s3));
            e.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(p, INVALID_PARAMETER, "receives of an EP with an SRQ go to the SRQ")
                            .rows("5#6")
                            .choice(s3));
            return e;
        }
        Expect params = unsignalled(p, ep, flags, true);
        segErrors(params, p, ep.ia, ep.pz, segs, MemoryPrivilege.LOCAL_WRITE, ep.attrs.maxRecvIov(), m, "ep");
        Expect nr = notReady(p, ep);
        outstanding(params, p, ep, ep.recvs, ep.attrs.maxRecvDtos());
        return m.byState(ep, s -> {
            Expect r = new Expect().or(params);
            String row = switch (s) {
                case UNCONNECTED -> "2.1#6";
                case RESERVED -> "2.2#7";
                case PASSIVE_CONNECTION_PENDING -> "2.3#6";
                case ACTIVE_CONNECTION_PENDING -> "2.5#9";
                case CONNECTED -> "2.7#4";
                case DISCONNECT_PENDING -> "2.8#4";
                case DISCONNECTED -> "2.9#3";
                default -> "4#9";
            };
            Check ok = Check.ok(
                            p,
                            s == DISCONNECTED
                                    ? "a receive posted in DISCONNECTED is flushed at once"
                                    : "a receive may be posted in every state")
                    .rows(row, "4#9");
            java.util.function.Consumer<Object> eff0 = v -> {
                ep.recvPosted = true;
                M.Work w = newWork(m, M.WorkKind.RECV, ep, cookie, flags, segs, Tri.total(segs));
                w.dest = memSegs(m, ep.ia, segs);
                ep.recvs.add(w);
                if (s == DISCONNECTED || ep.breaking && !ep.errorBreak) {
                    breakingOrFlushed(w, p, ep);
                    return;
                }
                postedWhileBreaking(w, ep);
                races(m, w);
                M.Work waiting = ep.waitingSends.poll();
                if (waiting != null) {
                    link(m, waiting, w);
                }
                if (ep.peerEnding) {
                    w.possible.addAll(ANY_ERROR);
                    w.certain = true;
                }
                if (ep.mayBreak) {
                    w.possible.addAll(ANY_ERROR);
                }
                if (s == DISCONNECT_PENDING) {
                    // dat_ep_disconnect: "Upon disconnect, all outstanding and in-progress DTOs and RMR Binds must
                    // be completed", while "The Endpoint is automatically transitioned into a
                    // DAT_EP_STATE_DISCONNECTED state upon successful asynchronous completion" of the disconnect: a
                    // receive posted during a graceful disconnect is outstanding when it proceeds and may be flushed
                    // before the EP is DISCONNECTED, as the receives graceful() found posted (its flush shows the
                    // disconnect under way, not its completion)
                    M.Slot end = pendingEnd(ep);
                    w.possible.addAll(ANY_ERROR);
                    w.certain |= end != null && end.certain;
                }
            };
            java.util.function.Consumer<Object> eff = v -> {
                eff0.accept(v);
                noEvdStreams(m, ep);
            };
            r.or(nr);
            if (!blocksSuccess(params)) {
                r.alts.removeIf(a -> a.type() == DatReturnType.SUCCESS);
                r.orOk(ok, eff);
            } else {
                for (int i = 0; i < r.alts.size(); i++) {
                    Expect.Alt a = r.alts.get(i);
                    if (a.type() == DatReturnType.SUCCESS) {
                        r.alts.set(i, new Expect.Alt(a.type(), a.subtypes(), a.subChoice(), a.check(), eff));
                    }
                }
            }
            return r;
        });
    }

    /** The EP at the other end of {@code ep}'s connection, established or being established, or null. */
    static M.Ep peerOf(M.Ep ep) {
        if (ep.peer != null) {
            return ep.peer;
        }
        M.Conn c = ep.conn;
        if (c == null) {
            return null;
        }
        return c.active == ep ? c.passive : c.active;
    }

    /** The remote region an RMR triplet names at {@code target}'s IA, as the target resolves it. */
    record RemoteRegion(
            M.Lmr lmr, long off, Set<MemoryPrivilege> privs, M.Pz pz, boolean maybe, String why, M.Rmr rmr) {
        RemoteRegion(M.Lmr lmr, long off, Set<MemoryPrivilege> privs, M.Pz pz, boolean maybe, String why) {
            this(lmr, off, privs, pz, maybe, why, null);
        }
    }

    /**
     * Resolves an rmr_context at the peer: an LMR with that rmr_context, or an RMR bound with it.
     * {@code maybe}: a bind in flight makes it uncertain.
     */
    static RemoteRegion resolveRemote(Model m, M.Ia ia, int ctx, long off, long len) {
        if (ia == null) {
            return new RemoteRegion(null, 0, Set.of(), null, false, "no peer");
        }
        for (M.Obj o : ia.objects) {
            if (o instanceof M.Lmr l && l.alive && l.rmrContext != null && l.rmrContext == ctx) {
                if (off < 0 || off + len > Math.min(l.regSize, l.len)) {
                    return new RemoteRegion(null, 0, Set.of(), null, false, "outside the LMR");
                }
                return new RemoteRegion(l, off, l.privs, l.pz, false, null);
            }
        }
        for (M.Obj o : ia.objects) {
            if (o instanceof M.Rmr r && r.alive) {
                boolean pending = r.pendingBind != null;
                M.Binding b = r.binding;
                if (pending && r.pendingBind.binding != null && r.pendingBind.binding.context() == ctx) {
                    b = r.pendingBind.binding;
                    return region(b, off, len, r, true);
                }
                if (b != null && b.context() == ctx) {
                    return region(b, off, len, r, pending);
                }
            }
        }
        return new RemoteRegion(null, 0, Set.of(), null, false, "no LMR or bound RMR has the rmr_context");
    }

    private static RemoteRegion region(M.Binding b, long off, long len, M.Rmr r, boolean maybe) {
        if (!b.lmr().alive || off < 0 || off + len > b.len()) {
            return new RemoteRegion(null, 0, Set.of(), null, maybe, "outside the RMR's window");
        }
        return new RemoteRegion(b.lmr(), b.off() + off, b.privs(), r.pz, maybe, null, r);
    }

    /** An RDMA Read or Write. */
    static Expect postRdma(
            Model m,
            M.Ep ep,
            List<Tri> segs,
            long cookie,
            int remoteCtx,
            long remoteOff,
            long remoteLen,
            Set<CompletionFlag> flags,
            boolean read) {
        String p = read ? "dat_ep_post_rdma_read" : "dat_ep_post_rdma_write";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        Expect params = unsignalled(p, ep, flags, false).or(notReady(p, ep));
        segErrors(
                params,
                p,
                ep.ia,
                ep.pz,
                segs,
                read ? MemoryPrivilege.LOCAL_WRITE : MemoryPrivilege.LOCAL_READ,
                read
                        ? Math.max(ep.attrs.maxRdmaReadIov(), ep.attrs.maxRequestIov())
                        : Math.max(ep.attrs.maxRdmaWriteIov(), ep.attrs.maxRequestIov()),
                m,
                "ep");
        long len = Tri.total(segs);
        if (read ? len < remoteLen : len > remoteLen) {
            params.orErr(
                    LENGTH_ERROR,
                    Check.ret(
                                    p,
                                    LENGTH_ERROR,
                                    read
                                            ? "the local buffer is too small for the data of " + "the remote buffer"
                                            : "the remote buffer is too small for the data of the local buffer")
                            .rows("4#18"));
        }
        if (len > ep.attrs.maxRdmaSize()) {
            String c = "an RDMA transfer longer than max_rdma_size is an invalid parameter or a length error";
            params.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "longer than max_rdma_size").choice(c));
            params.orErr(
                    LENGTH_ERROR,
                    Check.ret(p, LENGTH_ERROR, "longer than max_rdma_size").choice(c));
        }
        outstanding(params, p, ep, ep.requests, ep.attrs.maxRequestDtos());
        // the remote side's rules: checked when the request reaches the peer (or, where the provider can tell,
        // at once: the pages list PROTECTION and PRIVILEGES violations of the rmr_context)
        M.Ep peer = peerOf(ep);
        long xfer = read ? remoteLen : len;
        RemoteRegion rr = resolveRemote(m, peer == null ? null : peer.ia, remoteCtx, remoteOff, xfer);
        MemoryPrivilege need = read ? MemoryPrivilege.REMOTE_READ : MemoryPrivilege.REMOTE_WRITE;
        String remoteBad = xfer == 0
                ? null
                : rr.lmr == null
                        ? rr.why
                        : !rr.privs.contains(need)
                                ? "the rmr_context lacks " + need
                                : peer != null && rr.pz != peer.pz
                                        ? "the rmr_context's PZ is not the remote EP's"
                                        : null;
        boolean zeroUnchecked =
                xfer == 0 && (rr.lmr == null || !rr.privs.contains(need) || peer != null && rr.pz != peer.pz);
        Expect remoteSync = new Expect();
        if (remoteBad != null && ep.possibleStates().contains(CONNECTED)) {
            String choice = "a remote buffer the local provider can tell is bad may fail synchronously";
            if (remoteBad.contains("PZ")) {
                remoteSync.orErr(
                        PROTECTION_VIOLATION,
                        Check.ret(p, PROTECTION_VIOLATION, remoteBad)
                                .rows("4#16")
                                .choice(choice));
            } else {
                remoteSync.orErr(
                        PRIVILEGES_VIOLATION,
                        Check.ret(p, PRIVILEGES_VIOLATION, remoteBad)
                                .rows("4#17")
                                .choice(choice));
            }
        }
        String remote = remoteBad;
        return posting(m, ep, p, params, (s, v) -> {
                    M.Work w = newWork(
                            m, read ? M.WorkKind.RDMA_READ : M.WorkKind.RDMA_WRITE, ep, cookie, flags, segs, xfer);
                    List<M.Seg> local = memSegs(m, ep.ia, segs);
                    ep.requests.add(w);
                    if (s == DISCONNECTED || ep.breaking && !ep.errorBreak) {
                        breakingOrFlushed(w, p, ep);
                        return;
                    }
                    postedWhileBreaking(w, ep);
                    if (zeroUnchecked) {
                        // a zero-length RDMA transfer touches no memory: whether its rmr_context is checked is the
                        // provider's
                        w.possible = EnumSet.of(DtoCompletionStatus.SUCCESS);
                        w.possible.addAll(ANY_ERROR);
                        w.certain = true;
                        w.breakOnError = true;
                        w.check = Check.ok(p, "a zero-length RDMA transfer with an rmr_context the peer does not know")
                                .choice(
                                        "a transfer of no bytes accesses no remote memory: it may succeed, or fail and break the "
                                                + "connection");
                        return;
                    }
                    if (remote != null || rr.maybe) {
                        w.possible = EnumSet.copyOf(ANY_ERROR);
                        if (rr.maybe) {
                            w.possible.add(DtoCompletionStatus.SUCCESS);
                            w.data = null;
                        }
                        w.certain = true;
                        w.breaks = true;
                        w.check = Check.ok(
                                        p,
                                        "an RDMA request the remote side refuses ("
                                                + (remote != null ? remote : "a bind in flight")
                                                + ") fails with an error status and breaks the connection")
                                .rows("2.7#10", "4#21");
                        if (remote != null) {
                            boolean blocked = requestsBlocked(ep);
                            List<M.Work> open = openReceives(ep, peer);
                            breakConnection(m, ep, peer, "a remote access error", !blocked);
                            for (M.Work r : open) {
                                // the error shows only when the peer's answer comes back: a message the peer
                                // sends meanwhile may still land in a receive already posted
                                r.possible.add(DtoCompletionStatus.SUCCESS);
                                r.possible.addAll(ANY_ERROR);
                            }
                        } else {
                            ep.wild = true;
                            if (peer != null) {
                                peer.wild = true;
                            }
                        }
                        return;
                    }
                    List<M.Seg> remoteSegs = List.of(new M.Seg(rr.lmr.mem, (int) (rr.lmr.memOff + rr.off), (int) xfer));
                    w.remoteLmr = rr.lmr;
                    w.viaRmr = rr.rmr;
                    w.certain = true;
                    w.check = Check.ok(
                                    p,
                                    read
                                            ? "the RDMA Read completes and its local_iov holds the remote buffer's bytes"
                                            : "the RDMA Write completes and the remote buffer holds the local bytes")
                            .rows("2.7#2");
                    if (read) {
                        w.source = remoteSegs;
                        w.dest = local;
                        w.data = gather(remoteSegs, xfer);
                    } else {
                        w.source = local;
                        w.dest = remoteSegs;
                        w.data = gather(local, xfer);
                    }
                    races(m, w);
                    peerEnding(ep, w);
                })
                .or(remoteSync);
    }

    /** The receives of {@code x} and {@code y} no message has been matched to yet that may still succeed. */
    static List<M.Work> openReceives(M.Ep x, M.Ep y) {
        List<M.Work> l = new ArrayList<>();
        for (M.Ep ep : new M.Ep[] {x, y}) {
            if (ep == null) {
                continue;
            }
            for (M.Work r : ep.recvs) {
                if (!r.done && r.peer == null && r.possible.contains(DtoCompletionStatus.SUCCESS)) {
                    l.add(r);
                }
            }
        }
        return l;
    }

    /** dat_rmr_bind of {@code rmr} to {@code tri} with {@code privs} on {@code ep} ({@code tri} empty: unbind). */
    static Expect rmrBind(
            Model m, M.Rmr rmr, Tri tri, Set<MemoryPrivilege> privs, M.Ep ep, long cookie, Set<CompletionFlag> flags) {
        String p = "dat_rmr_bind";
        Expect e = new Expect();
        boolean b1 = badHandle(e, rmr, null, p, "rmr_handle");
        boolean b2 = ep == null ? false : badHandle(e, ep, rmr.ia, p, "ep_handle");
        if (ep == null) {
            e.orErrChoice(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "a NULL ep_handle"),
                    DatReturnSubtype.INVALID_HANDLE_EP);
            return e;
        }
        if (b1 || b2) {
            return e;
        }
        Expect params = unsignalled(p, ep, flags, false).or(notReady(p, ep));
        M.Lmr l = null;
        if (tri.len() > 0) {
            l = lmrByContext(m, rmr.ia, tri.context(m));
            String bad = "the LMR of the triplet is invalid";
            if (l == null) {
                params.orErr(
                        INVALID_PARAMETER,
                        Check.ret(p, INVALID_PARAMETER, bad)
                                .choice("an invalid LMR in the bind is an invalid parameter, handle or privilege"));
                params.orErr(
                        INVALID_HANDLE,
                        Check.ret(p, INVALID_HANDLE, bad)
                                .choice("an invalid LMR in the bind is an invalid parameter, handle or privilege"));
                params.orErr(
                        PRIVILEGES_VIOLATION,
                        Check.ret(p, PRIVILEGES_VIOLATION, bad)
                                .choice("an invalid LMR in the bind is an invalid parameter, handle or privilege"));
            } else {
                if (!inRange(l, tri)) {
                    params.orErr(
                            INVALID_PARAMETER,
                            Check.ret(
                                    p, INVALID_PARAMETER, "the target_address or " + "segment_length exceeds the LMR"));
                }
                if (l.pz != rmr.pz || ep.pz != rmr.pz) {
                    params.orErr(
                            PROTECTION_VIOLATION,
                            Check.ret(
                                    p, PROTECTION_VIOLATION, "the RMR, its LMR and the EP " + "are not all in one PZ"));
                }
                String priv = "RMR remote read needs the LMR's local read; remote write needs local write";
                if (privs.contains(MemoryPrivilege.REMOTE_READ) && !l.has(MemoryPrivilege.LOCAL_READ)
                        || privs.contains(MemoryPrivilege.REMOTE_WRITE) && !l.has(MemoryPrivilege.LOCAL_WRITE)) {
                    params.orErr(
                            PRIVILEGES_VIOLATION,
                            Check.ret(p, PRIVILEGES_VIOLATION, priv)
                                    .rows("4#20")
                                    .choice("on transports that require it (InfiniBand does)"));
                    params.orOk(Check.ok(p, priv).rows("4#20").alternative("on transports that require it"), null);
                }
            }
        }
        // a bind is posted to the EP's request queue like a request DTO ("The completion of the posted RMR Bind is
        // reported ... through a DTO Completion event", on request_evd_handle): with max_request_dtos outstanding it
        // may fail "DAT_INSUFFICIENT_RESOURCES The operation failed due to resource limitations" (dat_rmr_bind)
        // an unbind (empty triplet) on an EP of another PZ than the RMR's accesses no memory and no page rules on
        // it: the provider may refuse it ("DAT_PROTECTION_VIOLATION Protection violation for local or remote memory
        // access"), unbind, or fail the bind after the call returns, which breaks the connection (seed 4798)
        boolean unbindAcrossPz = tri.len() == 0 && ep.pz != rmr.pz;
        String acrossPz = "an unbind on an EP of another PZ than the RMR's may be refused, succeed, or fail "
                + "asynchronously and break the connection";
        if (unbindAcrossPz) {
            params.orErr(
                    PROTECTION_VIOLATION,
                    Check.ret(p, PROTECTION_VIOLATION, "an unbind on an EP of another PZ than the RMR's")
                            .alternative(acrossPz));
            params.orOk(
                    Check.ok(p, "an unbind on an EP of another PZ than the RMR's")
                            .choice(acrossPz),
                    null);
        }
        outstanding(params, p, ep, ep.requests, ep.attrs.maxRequestDtos());
        M.Lmr lmr = l;
        return posting(m, ep, p, params, (s, v) -> {
            M.Work w = newWork(m, M.WorkKind.BIND, ep, cookie, flags, List.of(), 0);
            w.rmr = rmr;
            int ctx = v instanceof Integer i ? i : 0;
            w.binding = tri.len() == 0 || lmr == null
                    ? null
                    : new M.Binding(
                            lmr,
                            tri.off(),
                            tri.len(),
                            EnumSet.copyOf(privs.isEmpty() ? EnumSet.noneOf(MemoryPrivilege.class) : privs),
                            ctx);
            ep.requests.add(w);
            if (rmr.pendingBind != null) {
                ep.wild = ep.wild || rmr.pendingBind.ep != ep;
            }
            rmr.pendingBind = w;
            if (s == DISCONNECTED || ep.breaking && !ep.errorBreak) {
                breakingOrFlushed(w, p, ep);
                return;
            }
            // An RDMA DTO already posted through this RMR's binding and not yet completed races with the bind: the
            // provider may execute the bind first, after which "the previous value of rmr_context" no longer works
            // (dat_rmr_bind), and the DTO fails and breaks its connection. As for a DTO posted while a bind is in
            // flight, the model stops following those connections.
            for (M.Ep x : m.all(M.Ep.class)) {
                for (M.Work d : x.requests) {
                    if (!d.done && d.viaRmr == rmr) {
                        d.possible.addAll(ANY_ERROR);
                        d.data = null;
                        x.wild = true;
                        M.Ep y = peerOf(x);
                        if (y != null) {
                            y.wild = true;
                        }
                    }
                }
            }
            postedWhileBreaking(w, ep);
            w.certain = true;
            w.check = Check.ok(p, "the bind completes with DAT_RMR_BIND_COMPLETION_EVENT on request_evd")
                    .rows("2.7#3");
            if (unbindAcrossPz) {
                // "If the RMR Bind fails after dat_rmr_bind() returns, connection of ep_handle is broken"
                // (dat_rmr_bind(3DAT)): sim-provider fails it as an InfiniBand memory-window bind across PDs fails
                w.possible.addAll(ANY_ERROR);
                w.breakOnError = true;
                w.check = w.check
                        .rule("an unbind on an EP of another PZ completes, or fails and breaks the connection")
                        .choice(acrossPz);
                breakConnection(m, ep, peerOf(ep), "an unbind across PZs", false);
            }
            peerEnding(ep, w);
        });
    }

    // ------------------------------------------------------------------ RMR

    static Expect rmrCreate(Model m, M.Pz pz) {
        String p = "dat_rmr_create";
        Expect e = new Expect();
        if (badHandle(e, pz, null, p, "pz_handle")) {
            return e;
        }
        limit(e, m, pz.ia, M.Rmr.class, pz.ia.attrs.maxRmrs(), p, "max_rmrs");
        return e.alts.isEmpty() ? Expect.ok(Check.ok(p, "creates an unbound RMR in the PZ")) : e;
    }

    static Expect rmrQuery(M.Rmr r) {
        Expect bad = onlyBadHandle(r, "dat_rmr_query");
        return bad != null ? bad : Expect.ok(Check.ok("dat_rmr_query", "returns the RMR's PZ and binding"));
    }

    static Expect rmrFree(Model m, M.Rmr r) {
        Expect bad = onlyBadHandle(r, "dat_rmr_free");
        return bad != null
                ? bad
                : Expect.ok(Check.ok("dat_rmr_free", "destroys the RMR; its context stops working"), v -> {
                    r.alive = false;
                    if (r.binding != null) {
                        r.stale.add(r.binding.context());
                    }
                    M.Work w = r.pendingBind;
                    if (w != null && !w.done && w.possible.contains(DtoCompletionStatus.SUCCESS)) {
                        // a bind still in flight when its RMR is freed: the pages are silent (dat_rmr_free covers a
                        // bound or unbound RMR); it may complete, or fail, and "If the RMR Bind fails after
                        // dat_rmr_bind() returns, connection of ep_handle is broken" (dat_rmr_bind(3DAT); seeds
                        // 4092, 4798: sim-provider fails it with DAT_RMR_OPERATION_FAILED)
                        w.possible.addAll(ANY_ERROR);
                        w.check = (w.check != null ? w.check : Check.ok("dat_rmr_bind", "the bind completes"))
                                .rule("a bind whose RMR was freed while it was in flight completes, or fails "
                                        + "and breaks the connection")
                                .choice("the pages are silent on dat_rmr_free of an RMR with a bind in flight");
                        w.breakOnError = true;
                        breakConnection(m, w.ep, peerOf(w.ep), "a bind whose RMR was freed", false);
                    }
                });
    }

    // ------------------------------------------------------------------ SRQ

    static Expect srqCreate(Model m, M.Ia ia, M.Pz pz, int max, int iov, int lw) {
        String p = "dat_srq_create";
        Expect e = new Expect();
        if (badHandle(e, ia, null, p, "ia_handle")) {
            return e;
        }
        badHandle(e, pz, ia, p, "pz_handle");
        if (!ia.providerAttrs.srqSupported()) {
            e.orErr(MODEL_NOT_SUPPORTED, Check.ret(p, MODEL_NOT_SUPPORTED, "the provider does not support SRQs"));
            return e;
        }
        if (max < 1 || max > ia.attrs.maxRecvPerSrq()) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "max_recv_dtos outside 1..max_recv_per_srq")
                            .choice("an SRQ of no entries is an invalid attribute"));
        }
        if (iov < 1 || iov > ia.attrs.maxIovSegmentsPerDto()) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "max_recv_iov outside 1..max_iov_segments_per_dto")
                            .choice("an SRQ buffer of no segments is an invalid attribute"));
        }
        if (lw > max) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "a low watermark above max_recv_dtos")
                            .choice("dat_srq_set_lw's rule applies at creation"));
        }
        limit(e, m, ia, M.Srq.class, ia.attrs.maxSrqs(), p, "max_srqs");
        return e.alts.isEmpty()
                ? Expect.ok(Check.ok(p, "creates an SRQ of at least max_recv_dtos entries, attached to " + "no EP")
                        .rows("5#1"))
                : e;
    }

    static Expect srqQuery(M.Srq s) {
        Expect bad = onlyBadHandle(s, "dat_srq_query");
        return bad != null
                ? bad
                : Expect.ok(Check.ok("dat_srq_query", "returns the SRQ's attributes and counts")
                        .rows("5#14"));
    }

    static Expect srqFree(Model m, M.Srq s) {
        String p = "dat_srq_free";
        Expect bad = onlyBadHandle(s, p);
        if (bad != null) {
            return bad;
        }
        for (M.Ep ep : m.live(M.Ep.class)) {
            if (ep.srq == s) {
                return new Expect()
                        .orErr(
                                INVALID_STATE,
                                new Check(
                                        List.of("dat_srq_free:DAT_SRQ_IN_USE", "5#15"),
                                        "an SRQ an EP uses cannot be freed (DAT_SRQ_IN_USE: DAT_INVALID_STATE_SRQ_IN_USE in the API)",
                                        "C8: DAT_SRQ_IN_USE is DAT_INVALID_STATE with subtype DAT_INVALID_STATE_SRQ_IN_USE",
                                        false),
                                DatReturnSubtype.INVALID_STATE_SRQ_IN_USE);
            }
        }
        return Expect.ok(Check.ok(p, "destroys the SRQ"), v -> s.alive = false);
    }

    static Expect srqPostRecv(Model m, M.Srq srq, List<Tri> segs, long cookie) {
        String p = "dat_srq_post_recv";
        Expect e = new Expect();
        if (badHandle(e, srq, null, p, "srq_handle")) {
            return e;
        }
        segErrors(e, p, srq.ia, srq.pz, segs, MemoryPrivilege.LOCAL_WRITE, Math.max(srq.maxRecvIov, 1), m, "srq");
        boolean full = srq.posted.size() >= srq.maxRecvDtos;
        boolean blocked = blocksSuccess(e);
        if (full) {
            e.orErr(
                    INSUFFICIENT_RESOURCES,
                    Check.ret(
                            p,
                            INSUFFICIENT_RESOURCES,
                            "more receives than the SRQ's "
                                    + "max_recv_dtos (the provider may have room beyond the requested size)"));
        }
        if (blocked) {
            return e;
        }
        e.alts.removeIf(a -> a.type() == DatReturnType.SUCCESS);
        return e.orOk(
                Check.ok(p, "posts a buffer any connected EP of the SRQ may take")
                        .rows("5#7"),
                v -> {
                    M.SrqBuf b = new M.SrqBuf(cookie, List.copyOf(segs), Tri.total(segs));
                    srq.posted.add(b);
                    srqRaces(m, srq);
                    srqWaiters(m, srq);
                    watermark(m, srq);
                });
    }

    /** The buffer posted to {@code srq} with {@code cookie} and not yet completed, or null. */
    static M.SrqBuf srqBuffer(M.Srq srq, long cookie) {
        for (M.SrqBuf b : srq.posted) {
            if (b.cookie() == cookie) {
                return b;
            }
        }
        return null;
    }

    /** A message for an EP of an SRQ: it takes a buffer (which one shows in the completion), or waits. */
    static void srqIncoming(Model m, M.Work send, M.Ep y) {
        M.Srq srq = y.srq;
        int available = srq.posted.size() - srq.incoming;
        if (available <= 0) {
            y.waitingSends.add(send);
            send.certain = false;
            return;
        }
        srq.incoming++;
        M.Work r = new M.Work(M.WorkKind.RECV, y, Long.MIN_VALUE, Set.of(), List.of(), 0, ++m.workSeq);
        r.srq = srq;
        r.possible = EnumSet.of(DtoCompletionStatus.SUCCESS);
        long smallest = Long.MAX_VALUE;
        for (M.SrqBuf b : srq.posted) {
            smallest = Math.min(smallest, b.length());
        }
        // the EP takes the buffer in CONNECTED or DISCONNECT_PENDING (row 5#8; in DISCONNECT_PENDING row 2.8#5)
        r.check = Check.ok(
                        "dat_srq_post_recv",
                        "a message for an EP of the SRQ completes one of the SRQ's buffers on "
                                + "the EP's recv_evd, in the order of the peer's sends")
                .rows("5#7", "5#11", "5#8");
        if (y.state == DISCONNECT_PENDING) {
            r.check = r.check.rows("2.8#5");
        }
        y.recvs.add(r);
        send.peer = r;
        r.peer = send;
        send.certain = true;
        r.certain = true;
        r.data = send.data;
        srqRaces(m, srq);
        requestsMayProceed(send.ep);
        if (smallest < send.length) {
            r.possible.add(DtoCompletionStatus.ERR_LOCAL_LENGTH);
            send.possible.addAll(ANY_ERROR);
            y.wild = true;
            send.ep.wild = true;
        } else if (y.wild || send.ep.wild || y.breaking || y.mayBreak || send.ep.breaking || send.ep.mayBreak) {
            // a connection the model lost track of, or one an earlier error may have broken: the message may never
            // arrive, and a buffer it does not take stays on the SRQ (dat_srq_post_recv(3DAT) flushes only the
            // buffers an EP dequeued)
            r.possible.addAll(ANY_ERROR);
            r.certain = false;
        }
        if (srqBufferFreed(m, srq)) {
            srqReceiveMayFail(m, r);
        }
        watermark(m, srq);
    }

    /**
     * Whether a buffer on {@code srq} uses an LMR freed since it was posted: the message that takes it
     * fails ("Any DTO operation that uses the destroyed LMR after the dat_lmr_free() is completed shall fail
     * and report a protection violation", dat_lmr_free), and which buffer a message takes shows only in its
     * completion (dat_srq_post_recv).
     */
    static boolean srqBufferFreed(Model m, M.Srq srq) {
        for (M.SrqBuf b : srq.posted) {
            for (Tri t : b.segs()) {
                if (t.len() > 0 && t.raw() == null && t.lmr() != null) {
                    M.Lmr l = m.get(t.lmr());
                    if (l != null && !l.alive) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether a segment of {@code segs} names (by symbol) an LMR freed since. */
    static boolean usesFreedLmr(Model m, List<Tri> segs) {
        if (segs == null) {
            return false;
        }
        for (Tri t : segs) {
            if (t.len() > 0 && t.raw() == null && t.lmr() != null) {
                M.Lmr l = m.get(t.lmr());
                if (l != null && !l.alive) {
                    return true;
                }
            }
        }
        return false;
    }

    /** An SRQ receive that may take a buffer of a freed LMR: it and its Send may fail, and the connection break. */
    static void srqReceiveMayFail(Model m, M.Work r) {
        if (r.done) {
            return;
        }
        r.possible.addAll(ANY_ERROR);
        r.data = null;
        if (r.peer != null) {
            r.peer.possible.addAll(ANY_ERROR);
            r.peer.data = null;
        }
        breakConnection(m, r.ep, peerOf(r.ep), "an LMR freed under a receive", false);
    }

    /** Sends waiting at EPs of the SRQ take newly posted buffers. */
    static void srqWaiters(Model m, M.Srq srq) {
        List<M.Ep> waiting = new ArrayList<>();
        for (M.Ep ep : m.live(M.Ep.class)) {
            if (ep.srq == srq && !ep.waitingSends.isEmpty()) {
                waiting.add(ep);
            }
        }
        if (waiting.size() > 1) {
            for (M.Ep ep : waiting) {
                ep.wild = true;
            }
        }
        for (M.Ep ep : waiting) {
            while (!ep.waitingSends.isEmpty() && srq.posted.size() - srq.incoming > 0) {
                srqIncoming(m, ep.waitingSends.poll(), ep);
            }
        }
    }

    /** The SRQ low watermark: one asynchronous event per arming when fewer buffers than lw are on the SRQ. */
    static void watermark(Model m, M.Srq srq) {
        if (!srq.armed || srq.lw <= 0 || !srq.alive) {
            return;
        }
        int min = srq.posted.size() - srq.incoming;
        int max = srq.posted.size();
        if (min >= srq.lw) {
            return;
        }
        M.Evd async = srq.ia.asyncEvd;
        if (async == null) {
            return;
        }
        for (M.AsyncExp a : async.async) {
            if (a.handle == srq && a.reason == AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT && a.arming == srq.arming) {
                a.certain |= max < srq.lw;
                return;
            }
        }
        Check c = Check.ok(
                        "dat_srq_set_lw",
                        "one asynchronous event when the buffers on the SRQ drop below the low "
                                + "watermark, once per setting (an SRQ created with a low watermark starts below it: dat_srq_create)")
                .rows("5#12")
                .choice("S6: the event goes to the IA's async EVD with "
                        + "reason DAT_SRQ_LOW_WATERMARK_EVENT; the page's USAGE sentence ('if the new low watermark value is "
                        + "below the current number of free Receive DTOs, an event is generated immediately') reverses its "
                        + "DESCRIPTION, which the model follows");
        M.AsyncExp x = new M.AsyncExp(null, srq, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT, max < srq.lw, c);
        x.arming = srq.arming;
        async.async.add(x);
    }

    static Expect srqSetLw(Model m, M.Srq srq, int lw) {
        String p = "dat_srq_set_lw";
        Expect e = new Expect();
        if (badHandle(e, srq, null, p, "srq_handle")) {
            return e;
        }
        if (srq.ia.providerAttrs.srqWatermarksSupported() == 0) {
            return e.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(p, MODEL_NOT_SUPPORTED, "the provider does not support the SRQ " + "low watermark"));
        }
        if (lw > srq.maxRecvDtos) {
            return e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "low_watermark exceeds max_recv_dtos")
                            .rows("5#12"));
        }
        if (lw < 0) {
            return e.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "a negative low watermark"));
        }
        return Expect.ok(Check.ok(p, "sets and arms the low watermark").rows("5#12"), v -> {
            srq.lw = lw;
            srq.armed = true;
            srq.arming++;
            watermark(m, srq);
        });
    }

    static Expect srqResize(Model m, M.Srq srq, int n) {
        String p = "dat_srq_resize";
        Expect e = new Expect();
        if (badHandle(e, srq, null, p, "srq_handle")) {
            return e;
        }
        if (n < 1 || n > srq.ia.attrs.maxRecvPerSrq()) {
            return e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "srq_max_recv_dto outside " + "1..max_recv_per_srq")
                            .choice("an SRQ of no entries is an invalid size"));
        }
        if (n < srq.posted.size()) {
            return e.orErr(
                    INVALID_STATE,
                    Check.ret(p, INVALID_STATE, "the number of entries on the SRQ exceeds the " + "requested size")
                            .rows("5#13"));
        }
        if (n < srq.lw) {
            return e.orErr(
                    INVALID_STATE,
                    Check.ret(p, INVALID_STATE, "the requested size is below the low watermark")
                            .rows("5#13"));
        }
        return Expect.ok(
                Check.ok(p, "the SRQ holds at least the requested number of buffers")
                        .rows("5#13"),
                v -> srq.maxRecvDtos = Math.max(n, srq.posted.size()));
    }

    // ------------------------------------------------------------------ EP modify, watermarks, recv query

    /** The dat_ep_modify fields, grouped as the state table of the page groups them (section 2.10). */
    enum ModField {
        PZ,
        EVD,
        ATTRIBUTE,
        RECV_FLAGS,
        SPECIFIC
    }

    static Expect epModify(
            Model m,
            M.Ep ep,
            ModField f,
            boolean badValue,
            M.Obj handleArg,
            Runnable apply,
            M.Evd newRecv,
            M.Evd newReq,
            EpAttributes newAttrs) {
        String p = "dat_ep_modify";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        if (newAttrs != null) {
            mixedNotification(e, p, m, newRecv, newReq, newAttrs, ep);
        }
        // the EVDs and completion flags dat_ep_modify sets are those dat_ep_create takes, under the same rules
        // (dat_ep_create: the role's stream; "If request_evd_handle (recv_evd_handle) is used for an EVD that is fed by
        // any event stream other than DTO or RMR completion event streams, only DAT_COMPLETION_THRESHOLD is valid for
        // Request/Recv Completion Flags"); dat_ep_modify: "DAT_INVALID_PARAMETER ... one of the requested Endpoint
        // parameters or attributes was invalid"
        M.Evd newConn = ep.connEvd;
        if (f == ModField.EVD && handleArg instanceof M.Evd evd) {
            if (newRecv != ep.recvEvd) {
                streamFlag(e, p, newRecv, EvdFlag.DTO, "recv_evd_handle");
            } else if (newReq != ep.reqEvd) {
                streamFlag(e, p, newReq, EvdFlag.DTO, "request_evd_handle");
            } else if (evd != newRecv && evd != newReq) {
                newConn = evd;
                streamFlag(e, p, evd, EvdFlag.CONNECTION, "connect_evd_handle");
            }
        }
        boolean flagsChanged = ep.attrs != null
                && newAttrs != null
                && (!newAttrs.recvCompletionFlags().equals(ep.attrs.recvCompletionFlags())
                        || !newAttrs.requestCompletionFlags().equals(ep.attrs.requestCompletionFlags()));
        if (flagsChanged || f == ModField.EVD) {
            thresholdOnly(e, p, newRecv, newReq, newConn, newAttrs);
        }
        if (handleArg != null) {
            badHandle(e, handleArg, ep.ia, p, "the new " + handleArg.type + " handle");
        }
        if (badValue) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "a requested attribute was invalid or not " + "supported")
                            .rows("2.10#3"));
        }
        if (f == ModField.PZ
                && ep.srq != null
                && handleArg != null
                && handleArg != ep.srq.pz
                && !ep.ia.providerAttrs.srqEpPzDifferenceSupported()) {
            e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                                    p,
                                    INVALID_PARAMETER,
                                    "an EP of an SRQ cannot take a PZ other than the "
                                            + "SRQ's while srq_ep_pz_difference_supported is false")
                            .rows("5#4"));
        }
        Expect params = e;
        return m.byState(ep, s -> {
            Expect r = new Expect().or(params);
            boolean quiescent = s == UNCONNECTED || s == TENTATIVE_CONNECTION_PENDING;
            boolean preConn = quiescent || s == RESERVED || s == PASSIVE_CONNECTION_PENDING;
            String stateRow = switch (s) {
                case UNCONNECTED -> "2.1#5";
                case RESERVED -> "2.2#3";
                case PASSIVE_CONNECTION_PENDING -> "2.3#3";
                case TENTATIVE_CONNECTION_PENDING -> "2.4#2";
                case ACTIVE_CONNECTION_PENDING -> "2.5#8";
                case CONNECTED -> "2.7#12";
                case DISCONNECTED -> "2.9#6";
                default -> "4#6";
            };
            String fieldRow = switch (f) {
                case PZ -> "2.10#2";
                case EVD, ATTRIBUTE -> "2.10#3";
                case RECV_FLAGS -> "2.10#4";
                case SPECIFIC -> "2.10#5";
            };
            boolean allowed = switch (f) {
                case PZ -> quiescent;
                case EVD, ATTRIBUTE -> preConn;
                case SPECIFIC -> true;
                case RECV_FLAGS -> preConn && !ep.recvPosted;
            };
            if (!allowed) {
                Check c = Check.ret(p, INVALID_STATE, "the field cannot be modified in " + s)
                        .rows(stateRow, fieldRow, "4#6");
                if (f == ModField.PZ && (s == RESERVED || s == PASSIVE_CONNECTION_PENDING)) {
                    c = c.choice("C10: the PZ row names only the quiescent, UNCONNECTED and TENTATIVE states");
                }
                if (f == ModField.RECV_FLAGS && preConn) {
                    c = c.rule("recv_completion_flags can change only before any receive is posted");
                }
                r.orErrChoice(INVALID_STATE, c, stateSubtype(s));
                if (f == ModField.PZ && (s == RESERVED || s == PASSIVE_CONNECTION_PENDING) && params.alts.isEmpty()) {
                    r.orOk(
                            Check.ok(p, "the PZ changes in " + s)
                                    .rows(stateRow, fieldRow)
                                    .alternative(
                                            "C10: the PZ row names only the quiescent, UNCONNECTED and TENTATIVE states"),
                            v -> apply.run());
                }
                return r;
            }
            if (f == ModField.SPECIFIC && s != UNCONNECTED) {
                String choice = "transport- and provider-specific attributes: only UNCONNECTED is guaranteed; in other "
                        + "states they are transport/provider defined (table 2.10)";
                if (params.alts.isEmpty()) {
                    r.orOk(
                            Check.ok(p, "the specific attributes are modified in " + s)
                                    .rows(stateRow, fieldRow)
                                    .choice(choice),
                            v -> apply.run());
                }
                r.orErrChoice(
                        INVALID_STATE,
                        Check.ret(p, INVALID_STATE, "the specific attributes cannot be modified in " + s)
                                .rows(stateRow, fieldRow)
                                .choice(choice),
                        stateSubtype(s));
                return r;
            }
            if (params.alts.isEmpty()) {
                r.orOk(Check.ok(p, "the field is modified in " + s).rows(stateRow, fieldRow, "4#6"), v -> apply.run());
            }
            return r;
        });
    }

    static Expect epSetWatermark(M.Ep ep, int soft, int hard) {
        String p = "dat_ep_set_watermark";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        if (soft < -1 || hard < -1) {
            return e.orErr(
                    INVALID_PARAMETER,
                    Check.ret(
                            p,
                            INVALID_PARAMETER,
                            "a watermark that is neither a count nor " + "DAT_WATERMARK_INFINITE"));
        }
        e.orOk(Check.ok(p, "sets the watermarks; valid in every state").rows("4#10", "5#17"), v -> {
            ep.softWatermark = soft;
            ep.hardWatermark = hard;
            M.Evd async = ep.ia.asyncEvd;
            if (soft >= 0 && async != null) {
                M.AsyncExp x = new M.AsyncExp(
                        null,
                        ep,
                        AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT,
                        false,
                        Check.ok(
                                        p,
                                        "exceeding the soft high watermark raises one asynchronous event on the IA's async EVD")
                                .rows("2.7#9", "5#17")
                                .choice(
                                        "S6: the event number is silent; the reason is "
                                                + "DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT; when the receive buffers at an EP count is the provider's"));
                async.async.add(x);
            }
        });
        e.orErr(
                MODEL_NOT_SUPPORTED,
                Check.ret(p, MODEL_NOT_SUPPORTED, "the provider does not support EP " + "watermarks")
                        .choice("support for EP watermarks is the provider's"));
        return e;
    }

    static Expect epRecvQuery(M.Ep ep) {
        String p = "dat_ep_recv_query";
        Expect e = new Expect();
        if (badHandle(e, ep, null, p, "ep_handle")) {
            return e;
        }
        if (ep.ia.providerAttrs.epRecvInfoSupported() == 0) {
            return e.orErr(
                    MODEL_NOT_SUPPORTED, Check.ret(p, MODEL_NOT_SUPPORTED, "the provider supports neither count"));
        }
        return e.orOk(
                Check.ok(p, "returns the receive buffers held and their span")
                        .rows("4#11", "5#16")
                        .choice("S7: dat_ep_recv_query is valid in every state"),
                null);
    }

    static Expect epDupConnect(Model m, M.Ep ep, M.Ep dup, long timeoutMicros, byte[] pdata, Qos qos) {
        String p = "dat_ep_dup_connect";
        Expect e = new Expect();
        boolean b1 = badHandle(e, ep, null, p, "ep_handle");
        boolean b2 = dup == null ? false : badHandle(e, dup, ep.ia, p, "dup_ep_handle");
        if (dup == null) {
            e.orErrChoice(
                    INVALID_HANDLE,
                    Check.ret(p, INVALID_HANDLE, "a NULL dup_ep_handle"),
                    DatReturnSubtype.INVALID_HANDLE_EP);
            return e;
        }
        if (b1 || b2) {
            return e;
        }
        Expect params = new Expect();
        if (pdata != null && pdata.length > ep.ia.maxPrivateData()) {
            params.orErr(
                    INVALID_PARAMETER,
                    Check.ret(p, INVALID_PARAMETER, "private data longer than " + "max_private_data_size")
                            .and("dat_evd_dequeue", DatReturnType.SUCCESS));
        }
        if (!ep.ia.providerAttrs.qosSupported().contains(qos)) {
            params.orErr(
                    MODEL_NOT_SUPPORTED,
                    Check.ret(p, MODEL_NOT_SUPPORTED, "a qos the local provider does not " + "support"));
        }
        if (timeoutMicros == 0) {
            params.orErr(INVALID_PARAMETER, Check.ret(p, INVALID_PARAMETER, "a timeout of 0"));
        }
        Expect nr = notReady(p, ep);
        Set<EndpointState> dupStates = dup.wild ? EnumSet.allOf(EndpointState.class) : dup.possibleStates();
        boolean dupMaybeConnected = dupStates.contains(CONNECTED);
        boolean dupSurelyConnected = dupStates.equals(EnumSet.of(CONNECTED));
        return m.byState(ep, s -> {
            Expect r = new Expect().or(params);
            if (!dupSurelyConnected) {
                r.orErr(
                        INVALID_STATE,
                        Check.ret(p, INVALID_STATE, "dup_ep_handle must be a connected EP")
                                .rows("2.1#2"));
            }
            if (s != UNCONNECTED) {
                return r.or(new Expect()
                        .orErrChoice(
                                INVALID_STATE,
                                Check.ret(p, INVALID_STATE, "the EP is not " + "UNCONNECTED (EP in " + s + ")")
                                        .rows("4#2")
                                        .choice("S7: valid only in UNCONNECTED, by analogy " + "with dat_ep_connect"),
                                stateSubtype(s)));
            }
            r.or(nr);
            if (params.alts.isEmpty() && dupMaybeConnected) {
                r.orOk(
                        Check.ok(
                                        p,
                                        "connects to the remote end of dup_ep_handle: the EP goes to "
                                                + "ACTIVE_CONNECTION_PENDING")
                                .rows("2.1#2", "4#2"),
                        v -> {
                            m.resolveTo(dup, CONNECTED);
                            M.Conn dc = dup.conn;
                            boolean dupActive = dc != null && dc.active == dup;
                            if (dupActive) {
                                connectStarted(m, ep, dc.targetIa, false, dc.qual, pdata);
                            } else {
                                connectStarted(m, ep, dup.peer == null ? null : dup.peer.ia, false, -1, pdata);
                                ep.wild = true;
                            }
                        });
            }
            return r;
        });
    }

    // ------------------------------------------------------------------ completions

    /**
     * A work request completed (its event was dequeued, or it completed silently): the bytes it moved
     * are checked, the model's memory updated, a bind's binding takes effect.
     */
    static void workCompleted(Model m, Run run, M.Work w, DtoCompletionStatus status, long length, boolean silent) {
        boolean ok = status == DtoCompletionStatus.SUCCESS;
        w.failed = !ok;
        if (w.srq != null) {
            w.srq.incoming = Math.max(0, w.srq.incoming - 1);
        }
        if (w.kind == M.WorkKind.BIND) {
            M.Rmr r = w.rmr;
            if (r.pendingBind == w) {
                r.pendingBind = null;
            }
            if (ok) {
                if (r.binding != null) {
                    r.stale.add(r.binding.context());
                }
                r.binding = w.binding;
            } else if (w.binding != null) {
                r.stale.add(w.binding.context());
            }
            return;
        }
        if (w.kind == M.WorkKind.SEND) {
            if (w.peer != null) {
                w.peer.data = w.peer.data == null ? null : w.peer.data;
            }
            return;
        }
        List<M.Seg> dest = w.dest;
        if (dest == null) {
            return;
        }
        if (selfOverlap(dest)) {
            forget(dest, Long.MAX_VALUE);
            return;
        }
        long n = ok ? expectedLength(w) : Tri.total(w.segs);
        if (!ok || w.data == null || silent || w.raced) {
            forget(dest, w.kind == M.WorkKind.RECV && !ok || w.raced ? Long.MAX_VALUE : n);
            return;
        }
        String p = pageOf(w.kind);
        Check c = Check.ok(
                p,
                switch (w.kind) {
                    case RECV -> "the receive's local_iov holds the Send's bytes, segments filled in order";
                    case RDMA_READ ->
                        "the RDMA Read's local_iov holds the remote buffer's bytes, segments filled in order";
                    default -> "the remote buffer holds the RDMA Write's bytes";
                });
        byte[] actual = run.readMemory(dest, (int) n);
        boolean same = java.util.Arrays.equals(actual, java.util.Arrays.copyOf(w.data, (int) n));
        run.check(
                c,
                same,
                (int) n + " bytes " + Java.hex(w.data),
                () -> "bytes " + Java.hex(actual) + " (first difference at byte " + firstDiff(actual, w.data) + ")");
        int at = 0;
        for (M.Seg s : dest) {
            int k = (int) Math.min(s.len(), n - at);
            if (k <= 0) {
                break;
            }
            s.mem().write(s.off(), w.data, at, k);
            at += k;
        }
    }

    static int firstDiff(byte[] a, byte[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            if (a[i] != b[i]) {
                return i;
            }
        }
        return Math.min(a.length, b.length);
    }

    static void forget(List<M.Seg> dest, long n) {
        long at = 0;
        for (M.Seg s : dest) {
            int k = (int) Math.min(s.len(), n - at);
            if (k <= 0) {
                break;
            }
            s.mem().forget(s.off(), k);
            at += k;
        }
    }
}
