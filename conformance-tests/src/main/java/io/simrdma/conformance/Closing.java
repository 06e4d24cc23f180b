package io.simrdma.conformance;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.Qos;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Function;

/**
 * The closing phase of every generated sequence, after its random actions and the drain: calls whose
 * clauses a random walk reaches too rarely to trace them, each chosen from the model's state so that the
 * model decides the outcome. It fills a small software EVD until {@code dat_evd_post_se} refuses an event
 * (DAT_QUEUE_FULL, row 4.1#10) and shrinks it below its queued events ({@code dat_evd_resize}
 * DAT_INVALID_STATE, row 4.1#9); waits on a CNO no EVD feeds (DAT_QUEUE_EMPTY) and with the thread
 * interrupted (DAT_INTERRUPTED_CALL); calls dat_psp_create_any without psp_flags (DAT_INVALID_PARAMETER); waits for two events on an EVD an unsignalled stream feeds (row 4.1#4; it makes such an EP if the sequence has
 * none); opens an IA of a name over DAT_NAME_MAX_LENGTH and dup-connects with
 * private data over the limit (DAT_INVALID_PARAMETER); asks dat_ep_dup_connect for a qos the IA does not support
 * (DAT_MODEL_NOT_SUPPORTED); pre-posts receives on an Unconnected EP one beyond max_recv_dtos (DAT_INSUFFICIENT_RESOURCES); fills a connected
 * EP's request queue and posts a send, an RDMA Write and an RDMA Read beyond max_request_dtos
 * (DAT_INSUFFICIENT_RESOURCES); posts an SRQ buffer past its LMR's end ({@code dat_srq_post_recv}
 * DAT_INVALID_PARAMETER); binds an RMR through an EP that is not connected ({@code dat_rmr_bind}
 * DAT_INVALID_STATE) and frees an LMR an RMR is bound to ({@code dat_lmr_free} DAT_INVALID_STATE); on the
 * deterministic fabric without faults, connects an EP of an SRQ and lets a message reach it while it is
 * DISCONNECT_PENDING (row 2.8#5: it still takes the SRQ's buffer), then drains, and connects an EP with a finite
 * timeout to a PSP whose consumer holds the request unanswered until the timeout has passed (row 2.5#5:
 * DAT_CONNECTION_EVENT_TIMED_OUT; the late accept of the request ends in ACCEPT_COMPLETION_ERROR); then closes
 * the last IA with an invalid flag and abruptly, and calls {@code dat_ia_query}, {@code dat_ia_close},
 * {@code dat_pz_create}, {@code dat_cno_create}, {@code dat_srq_create}, {@code dat_rsp_create},
 * {@code dat_lmr_sync_rdma_*}, {@code dat_ep_modify}, {@code dat_ep_post_rdma_*} and {@code dat_evd_enable} /
 * {@code dat_evd_set_unwaitable} on its destroyed handles (DAT_INVALID_HANDLE). It draws no random numbers,
 * so the random part of a seed's sequence is the same with or without it.
 *
 * <p>Thread safety: not thread-safe; one per sequence.
 */
final class Closing {

    private final List<Function<Model, Action>> steps = new ArrayList<>();
    private int next;
    private final String probe;
    private final String cno;
    private long cookie = 900_000;
    private boolean full;
    private M.Ep overflowEp;
    private int posted;

    /**
     * The closing phase; its objects are named {@code close*} (no generated symbol starts so).
     *
     * @param ordered whether the fabric is deterministic and without faults: only there does a message posted right
     *                after the peer's graceful disconnect certainly arrive before that disconnect ends (elsewhere it is
     *                a race the pages leave open), which the DISCONNECT_PENDING scenario (row 2.8#5) needs
     */
    Closing(boolean ordered) {
        String tag = "";
        probe = "closeEvd";
        cno = "closeCno";
        // a software EVD of two entries: filled, then one more, then shrunk below its events
        steps.add(m -> {
            M.Ia a = firstLive(m);
            return a == null ? null : new EvdActions.EvdCreate(a.sym, probe, 2, null, EnumSet.of(EvdFlag.SOFTWARE));
        });
        for (int k = 0; k < 8; k++) {
            steps.add(this::postUntilFull);
        }
        steps.add(m -> evd(m) == null ? null : new EvdActions.EvdResize(probe, 1));
        // a CNO no EVD feeds: a wait times out; an interrupted wait fails
        steps.add(m -> {
            M.Ia a = firstLive(m);
            return a == null ? null : new IaActions.CnoCreate(a.sym, cno, false);
        });
        steps.add(m -> live(m, cno) ? new IaActions.CnoWait(cno, false) : null);
        steps.add(m -> live(m, cno) ? new IaActions.CnoWaitInterrupted(cno) : null);
        // without an EP whose requests are unsignalled, one is made for the wait: an EVD of four entries, an EP
        // with UNSIGNALLED request completions on it (the wait's row 4.1#4 needs only the EP's attributes)
        steps.add(m -> {
            M.Ia a = firstLive(m);
            return a == null || waitTwoOnUnsignalled(m) != null
                    ? null
                    : new EvdActions.EvdCreate(a.sym, "closeUnsigEvd", 4, null, EnumSet.of(EvdFlag.DTO));
        });
        steps.add(m -> {
            M.Obj evd = m.get("closeUnsigEvd");
            if (!(evd instanceof M.Evd e) || !e.live()) {
                return null;
            }
            io.simrdma.dat.EpAttributes attrs = io.simrdma.dat.EpAttributes.builder()
                    .maxMessageSize(65536)
                    .maxRdmaSize(65536)
                    .maxRecvDtos(8)
                    .maxRequestDtos(8)
                    .maxRecvIov(4)
                    .maxRequestIov(4)
                    .maxRdmaReadIn(4)
                    .maxRdmaReadOut(4)
                    .maxRdmaReadIov(4)
                    .maxRdmaWriteIov(4)
                    .requestCompletionFlags(EnumSet.of(CompletionFlag.UNSIGNALLED))
                    .build();
            M.Pz pz = null;
            for (M.Pz z : m.live(M.Pz.class)) {
                if (z.ia == e.ia) {
                    pz = z;
                    break;
                }
            }
            return pz == null
                    ? null
                    : new EpActions.EpCreate(e.ia.sym, "closeUnsigEp", pz.sym, null, e.sym, null, attrs, null);
        });
        steps.add(Closing::waitTwoOnUnsignalled);
        steps.add(m -> {
            M.Ia a = firstLive(m);
            M.Evd evd = a == null ? null : crEvd(m, a);
            return evd == null ? null : new EpActions.PspCreate(a.sym, "closePsp", 0, evd.sym, null, true);
        });
        steps.add(m -> new IaActions.IaOpenLongName());
        steps.add(Closing::dupConnectOverLimit);
        steps.add(Closing::dupConnectQos);
        for (int k = 0; k < 18; k++) {
            steps.add(this::recvOverflow);
        }
        // a connected EP's request queue filled by zero-length sends (which wait for the thread to wait), then one
        // more send, RDMA Write and RDMA Read: each may be refused for resource limitations
        for (int k = 0; k < 20; k++) {
            steps.add(this::requestOverflow);
        }
        steps.add(this::srqPostOutside);
        steps.add(this::bindUnconnected);
        steps.add(Closing::freeBoundLmr);
        if (ordered) {
            disconnectPendingSrq();
            connectTimesOut();
        }
        // the last IA: an invalid flag, then closed abruptly, then calls on its destroyed handles
        steps.add(m -> {
            M.Ia a = lastLive(m);
            return a == null ? null : new IaActions.IaClose(a.sym, null);
        });
        steps.add(m -> {
            M.Ia a = lastLive(m);
            return a == null || m.live(M.Ia.class).size() < 2 ? null : new IaActions.IaClose(a.sym, CloseFlag.ABRUPT);
        });
        steps.add(m -> deadIa(m) == null ? null : new IaActions.IaQuery(deadIa(m).sym));
        steps.add(m -> deadIa(m) == null ? null : new IaActions.IaClose(deadIa(m).sym, CloseFlag.GRACEFUL));
        steps.add(m -> deadIa(m) == null ? null : new IaActions.PzCreate(deadIa(m).sym, "closePz" + tag));
        steps.add(m -> deadIa(m) == null ? null : new IaActions.CnoCreate(deadIa(m).sym, "closeCnoX" + tag, false));
        steps.add(m -> {
            M.Ia d = deadIa(m);
            M.Pz pz = d == null ? null : first(m.all(M.Pz.class), d);
            M.Ia a = firstLive(m);
            return pz == null || a == null ? null : new DtoActions.SrqCreate(a.sym, "closeSrq" + tag, pz.sym, 8, 1, 0);
        });
        steps.add(m -> {
            M.Ia d = deadIa(m);
            M.Ep ep = d == null ? null : first(m.all(M.Ep.class), d);
            M.Ia a = firstLive(m);
            M.Evd evd = a == null ? null : crEvd(m, a);
            return ep == null || evd == null
                    ? null
                    : new EpActions.RspCreate(a.sym, "closeRsp" + tag, 150, ep.sym, evd.sym);
        });
        steps.add(m -> {
            M.Ia d = deadIa(m);
            M.Lmr l = d == null ? null : first(m.all(M.Lmr.class), d);
            return l == null ? null : new IaActions.LmrSync(d.sym, List.of(Tri.of(l.sym, 0, 1)), true);
        });
        steps.add(m -> {
            M.Ia d = deadIa(m);
            M.Lmr l = d == null ? null : first(m.all(M.Lmr.class), d);
            return l == null ? null : new IaActions.LmrSync(d.sym, List.of(Tri.of(l.sym, 0, 1)), false);
        });
        steps.add(m -> {
            M.Ep ep = deadEp(m);
            return ep == null ? null : new EpActions.EpModifyAction(ep.sym, EpActions.ModKind.MAX_RECV_DTOS, null, 4);
        });
        steps.add(m -> postRdmaDead(m, true));
        steps.add(m -> postRdmaDead(m, false));
        // every call of every kind of handle the closed IA held (the *_free pages on destroyed handles among them)
        deadCalls(M.Evd.class, e -> new EvdActions.EvdSwitch(e.sym, EvdActions.Switch.ENABLE));
        deadCalls(M.Evd.class, e -> new EvdActions.EvdSwitch(e.sym, EvdActions.Switch.DISABLE));
        deadCalls(M.Evd.class, e -> new EvdActions.EvdSwitch(e.sym, EvdActions.Switch.CLEAR_UNWAITABLE));
        deadCalls(M.Evd.class, e -> new EvdActions.EvdPostSe(e.sym, 1));
        deadCalls(M.Evd.class, e -> new EvdActions.EvdWait(e.sym, 1, false, false));
        deadCalls(M.Evd.class, e -> new EvdActions.EvdResize(e.sym, 8));
        deadCalls(M.Evd.class, e -> new EvdActions.EvdFree(e.sym));
        deadCalls(M.Cno.class, c -> new IaActions.CnoQuery(c.sym));
        deadCalls(M.Cno.class, c -> new IaActions.CnoWait(c.sym, false));
        deadCalls(M.Cno.class, c -> new IaActions.CnoModifyAgent(c.sym, false));
        deadCalls(M.Cno.class, c -> new IaActions.CnoFree(c.sym));
        deadCalls(M.Rmr.class, r -> new IaActions.RmrQuery(r.sym));
        deadCalls(M.Rmr.class, r -> new IaActions.RmrFree(r.sym));
        deadCalls(M.Rsp.class, r -> new EpActions.SpQuery(r.sym));
        deadCalls(M.Rsp.class, r -> new EpActions.SpFree(r.sym));
        deadCalls(M.Psp.class, p -> new EpActions.SpFree(p.sym));
        deadCalls(M.Srq.class, q -> new DtoActions.SrqResize(q.sym, 8));
        deadCalls(M.Srq.class, q -> new DtoActions.SrqSetLw(q.sym, 1));
        deadCalls(M.Srq.class, q -> new DtoActions.SrqFree(q.sym));
        deadCalls(M.Lmr.class, l -> new IaActions.LmrFree(l.sym));
        deadCalls(M.Pz.class, z -> new IaActions.PzFree(z.sym));
        deadCalls(M.Ep.class, ep -> new EpActions.EpQuery(ep.sym));
        deadCalls(M.Ep.class, ep -> new EpActions.EpRecvQuery(ep.sym));
        deadCalls(M.Ep.class, ep -> new EpActions.EpReset(ep.sym));
        deadCalls(M.Ep.class, ep -> new EpActions.EpFree(ep.sym));
        deadCalls(M.Obj.class, o -> new IaActions.Context(o.sym, 1));
        steps.add(m -> {
            M.Evd e = deadEvd(m);
            return e == null ? null : new EvdActions.EvdSwitch(e.sym, EvdActions.Switch.ENABLE);
        });
        steps.add(m -> {
            M.Evd e = deadEvd(m);
            return e == null ? null : new EvdActions.EvdSwitch(e.sym, EvdActions.Switch.SET_UNWAITABLE);
        });
    }

    private static final String DP_EVD = "closeDpEvd";
    private static final String DP_PZ = "closeDpPz";
    private static final String DP_SRQ = "closeDpSrq";
    private static final String DP_Y = "closeDpY";
    private static final String DP_X = "closeDpX";
    private static final String DP_PSP = "closeDpPsp";
    private M.Ia dpIa;
    private long dpQual;

    /**
     * Row 2.8#5 (dat_srq_post_recv(3DAT): an EP of an SRQ in DISCONNECT_PENDING may still take buffers from its SRQ):
     * on the first live IA, an EP with an SRQ (y) is connected to a plain EP (x) through a PSP; x posts a receive and
     * the SRQ a buffer (both zero-length); y posts a Send and disconnects gracefully, so it stays DISCONNECT_PENDING
     * while its Send is outstanding (the deterministic fabric moves only while the thread waits); then x sends: the
     * message reaches y in DISCONNECT_PENDING and takes the SRQ's buffer. The drain that follows dequeues the
     * receive's completion, whose check cites the row. Each step skips when the one before did not leave the model
     * where it needs it. Only on an ordered fabric (see {@link #Closing(boolean)}): with real threads or lost and
     * delayed packets, y's Send may be acknowledged and its disconnect done before the message comes.
     */
    private void disconnectPendingSrq() {
        steps.add(m -> {
            dpIa = firstLive(m);
            if (dpIa == null) {
                return null;
            }
            dpQual = 4200;
            while (Rules.listener(m, dpIa, dpQual) != null) {
                dpQual++;
            }
            return new EvdActions.EvdCreate(
                    dpIa.sym, DP_EVD, 16, null, EnumSet.of(EvdFlag.DTO, EvdFlag.CR, EvdFlag.CONNECTION));
        });
        steps.add(m -> live(m, DP_EVD) ? new IaActions.PzCreate(dpIa.sym, DP_PZ) : null);
        steps.add(m -> live(m, DP_PZ) ? new DtoActions.SrqCreate(dpIa.sym, DP_SRQ, DP_PZ, 4, 1, 0) : null);
        // dat_ep_create_with_srq(3DAT): ep_attributes must not be NULL
        io.simrdma.dat.EpAttributes srqAttrs = io.simrdma.dat.EpAttributes.builder()
                .maxMessageSize(65536)
                .maxRdmaSize(65536)
                .maxRecvDtos(4)
                .maxRequestDtos(4)
                .maxRecvIov(1)
                .maxRequestIov(1)
                .maxRdmaReadIn(1)
                .maxRdmaReadOut(1)
                .maxRdmaReadIov(1)
                .maxRdmaWriteIov(1)
                .build();
        steps.add(m -> live(m, DP_SRQ)
                ? new EpActions.EpCreate(dpIa.sym, DP_Y, DP_PZ, DP_EVD, DP_EVD, DP_EVD, srqAttrs, DP_SRQ)
                : null);
        steps.add(m -> live(m, DP_Y)
                ? new EpActions.EpCreate(dpIa.sym, DP_X, DP_PZ, DP_EVD, DP_EVD, DP_EVD, null, null)
                : null);
        steps.add(m -> live(m, DP_X)
                ? new EpActions.PspCreate(dpIa.sym, DP_PSP, dpQual, DP_EVD, io.simrdma.dat.PspFlag.CONSUMER, false)
                : null);
        steps.add(m -> live(m, DP_PSP)
                ? new EpActions.EpConnect(DP_X, dpIa.sym, dpQual, 0, 0, false, Qos.BEST_EFFORT, false)
                : null);
        steps.add(m -> live(m, DP_PSP) ? new EvdActions.Settle(20) : null);
        // the request, accepted by y; then both ESTABLISHED events
        steps.add(Closing::dpWait);
        steps.add(m -> {
            for (M.Cr cr : m.live(M.Cr.class)) {
                if (cr.conn.active != null && cr.conn.active.sym.equals(DP_X)) {
                    return new EpActions.CrAccept(cr.sym, DP_Y, 0, 0);
                }
            }
            return null;
        });
        steps.add(Closing::dpWait);
        steps.add(Closing::dpWait);
        steps.add(m -> dpConnected(m) ? new DtoActions.PostRecv(DP_X, List.of(), ++cookie, noFlags()) : null);
        steps.add(m -> dpConnected(m) ? new DtoActions.SrqPostRecv(DP_SRQ, List.of(), ++cookie) : null);
        steps.add(m -> dpConnected(m) ? new DtoActions.PostSend(DP_Y, List.of(), ++cookie, noFlags(), 0) : null);
        steps.add(m -> dpConnected(m) ? new EpActions.EpDisconnect(DP_Y, CloseFlag.GRACEFUL) : null);
        steps.add(m -> m.get(DP_Y) instanceof M.Ep y && y.live() && y.state == EndpointState.DISCONNECT_PENDING
                ? new DtoActions.PostSend(DP_X, List.of(), ++cookie, noFlags(), 0)
                : null);
        steps.add(m -> live(m, DP_EVD) && m.get(DP_X) instanceof M.Ep x && !x.requests.isEmpty()
                ? new EvdActions.Drain()
                : null);
    }

    /** A long wait on the scenario's EVD for an event the model is certain of. */
    private static Action dpWait(Model m) {
        return waitOn(m, DP_EVD);
    }

    /** A wait on the EVD {@code sym}: long for an event the model is certain of, short for one that may come. */
    private static Action waitOn(Model m, String sym) {
        if (!(m.get(sym) instanceof M.Evd e) || !e.live()) {
            return null;
        }
        Model.Count c = m.count(e);
        return c.certain() > 0 || c.certainToCome() > 0
                ? new EvdActions.EvdWait(sym, 1, true, false)
                : c.possible() > 0 ? new EvdActions.EvdWait(sym, 1, false, false) : null;
    }

    private static final String TO_EVD = "closeToEvd";
    private static final String TO_PZ = "closeToPz";
    private static final String TO_X = "closeToX";
    private static final String TO_Y = "closeToY";
    private static final String TO_PSP = "closeToPsp";
    /**
     * The connect's timeout: well past the ~268 ms after which a connection manager that got no answer resends the
     * request (and the listener's side acknowledges the resent one), so that the remote host has answered before the
     * timeout on any reading of S9, and far below the MRA service timeout (~69 s) after which the transport itself
     * would give up.
     */
    static final long TO_MILLIS = 1000;

    private M.Ia toIa;
    private long toQual;

    /**
     * Row 2.5#5 (dat_ep_connect(3DAT): "When the timeout expired prior to completion of the Connection establishment,
     * the local Endpoint is automatically transitioned into a DAT_EP_STATE_DISCONNECTED state and the local Consumer
     * through a DAT_CONNECTION_EVENT_TIMED_OUT event on the connect_evd_handle"): on the first live IA, an EP (x)
     * connects with a timeout of {@link #TO_MILLIS} ms to a PSP (DAT_PSP_CONSUMER) of the same IA; the request
     * arrives (DAT_CONNECTION_REQUEST_EVENT dequeued, the CR is the consumer's) and nobody accepts or rejects it; the
     * fabric runs for the timeout ({@link EpActions.ConnectTimeoutPasses}), after which the model is certain of x's
     * end: DAT_CONNECTION_EVENT_TIMED_OUT on x's connect_evd (UNREACHABLE only as the S9 alternative, refused in a
     * strict run), then dat_ep_get_status shows x DISCONNECTED. The CR is still the consumer's (no page lets the
     * provider destroy it; dat_cr_query succeeds on it): an EP (y) pre-posts a receive and accepts it, which returns DAT_SUCCESS and ends in
     * DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR on y's connect_evd (dat_cr_accept(3DAT): "It can be caused by the
     * active side timeout expiration"), y DISCONNECTED and its receive flushed. Only on an ordered fabric (see
     * {@link #Closing(boolean)}): elsewhere a settle is capped real time, and a lost packet may keep the remote host's
     * answer from the requester (S9, where UNREACHABLE is as good a reading).
     */
    private void connectTimesOut() {
        steps.add(m -> {
            toIa = firstLive(m);
            if (toIa == null) {
                return null;
            }
            toQual = 4300;
            while (Rules.listener(m, toIa, toQual) != null) {
                toQual++;
            }
            return new EvdActions.EvdCreate(
                    toIa.sym, TO_EVD, 16, null, EnumSet.of(EvdFlag.DTO, EvdFlag.CR, EvdFlag.CONNECTION));
        });
        steps.add(m -> live(m, TO_EVD) ? new IaActions.PzCreate(toIa.sym, TO_PZ) : null);
        steps.add(m -> live(m, TO_PZ)
                ? new EpActions.EpCreate(toIa.sym, TO_X, TO_PZ, TO_EVD, TO_EVD, TO_EVD, null, null)
                : null);
        steps.add(m -> live(m, TO_X)
                ? new EpActions.EpCreate(toIa.sym, TO_Y, TO_PZ, TO_EVD, TO_EVD, TO_EVD, null, null)
                : null);
        steps.add(m -> live(m, TO_Y)
                ? new EpActions.PspCreate(toIa.sym, TO_PSP, toQual, TO_EVD, io.simrdma.dat.PspFlag.CONSUMER, false)
                : null);
        steps.add(m -> live(m, TO_PSP)
                ? new EpActions.EpConnect(TO_X, toIa.sym, toQual, 0, 0, false, Qos.BEST_EFFORT, false, TO_MILLIS)
                : null);
        // the request event: the CR is the consumer's
        steps.add(m -> live(m, TO_PSP) ? waitOn(m, TO_EVD) : null);
        steps.add(m -> toRequest(m) != null ? new EpActions.ConnectTimeoutPasses(TO_X, TO_MILLIS) : null);
        // x's TIMED_OUT, then its state
        steps.add(m -> toRequest(m) != null ? waitOn(m, TO_EVD) : null);
        steps.add(m -> live(m, TO_X) ? new EpActions.EpGetStatus(TO_X) : null);
        // the request is still the consumer's (dat_cr_query succeeds on it); y accepts it after a receive, and the
        // accept cannot complete
        steps.add(m -> {
            M.Cr cr = toRequest(m);
            return cr != null ? new EpActions.CrQuery(cr.sym) : null;
        });
        steps.add(m -> toRequest(m) != null && live(m, TO_Y)
                ? new DtoActions.PostRecv(TO_Y, List.of(), ++cookie, noFlags())
                : null);
        steps.add(m -> {
            M.Cr cr = toRequest(m);
            return cr != null && live(m, TO_Y) ? new EpActions.CrAccept(cr.sym, TO_Y, 0, 0) : null;
        });
        steps.add(m -> waitOn(m, TO_EVD));
        steps.add(m -> waitOn(m, TO_EVD));
        steps.add(m -> live(m, TO_Y) ? new EpActions.EpGetStatus(TO_Y) : null);
        steps.add(m -> live(m, TO_EVD) ? new EvdActions.Drain() : null);
    }

    /** The live CR of x's request, or null. */
    private static M.Cr toRequest(Model m) {
        for (M.Cr cr : m.live(M.Cr.class)) {
            if (cr.conn.active != null && cr.conn.active.sym.equals(TO_X)) {
                return cr;
            }
        }
        return null;
    }

    private static boolean dpConnected(Model m) {
        return m.get(DP_X) instanceof M.Ep x
                && m.get(DP_Y) instanceof M.Ep y
                && x.live()
                && y.live()
                && x.possibleStates().equals(EnumSet.of(EndpointState.CONNECTED))
                && y.possibleStates().equals(EnumSet.of(EndpointState.CONNECTED));
    }

    private static EnumSet<CompletionFlag> noFlags() {
        return EnumSet.noneOf(CompletionFlag.class);
    }

    /** A step calling {@code call} on the first destroyed object of kind {@code kind} the closed IA held. */
    private <T extends M.Obj> void deadCalls(Class<T> kind, Function<T, Action> call) {
        steps.add(m -> {
            M.Ia d = deadIa(m);
            if (d == null) {
                return null;
            }
            for (T o : m.all(kind)) {
                if (o.ia == d && !o.live() && !(o instanceof M.Ep ep && ep.undefined) && !(o instanceof M.Cr)) {
                    return call.apply(o);
                }
            }
            return null;
        });
    }

    /** The next action of the phase, or null when it is over. */
    Action next(Model m) {
        while (next < steps.size()) {
            Action a = steps.get(next++).apply(m);
            if (a != null) {
                return a;
            }
        }
        return null;
    }

    private M.Evd evd(Model m) {
        return m.get(probe) instanceof M.Evd e && e.live() ? e : null;
    }

    private Action postUntilFull(Model m) {
        M.Evd e = evd(m);
        if (e == null || e.unreliable) {
            return null;
        }
        int qlen = e.qlen > 0 ? e.qlen : e.minQlen;
        if (full) {
            return null;
        }
        // posts until the model holds the queue certainly full, then one more
        full = m.count(e).certain() >= qlen;
        return new EvdActions.EvdPostSe(probe, (int) ++cookie);
    }

    private Action bindUnconnected(Model m) {
        for (M.Rmr r : m.live(M.Rmr.class)) {
            if (r.pendingBind != null) {
                continue;
            }
            M.Lmr lmr = null;
            for (M.Lmr l : m.live(M.Lmr.class)) {
                if (l.pz == r.pz && l.len >= 8) {
                    lmr = l;
                    break;
                }
            }
            for (M.Ep ep : m.live(M.Ep.class)) {
                if (lmr != null
                        && ep.ia == r.ia
                        && !ep.undefined
                        && ep.pz == r.pz
                        && ep.state != EndpointState.CONNECTED
                        && ep.state != EndpointState.DISCONNECTED
                        && ep.state != EndpointState.DISCONNECT_PENDING) {
                    return new DtoActions.RmrBind(
                            r.sym,
                            Tri.of(lmr.sym, 0, 8),
                            EnumSet.of(MemoryPrivilege.REMOTE_READ),
                            ep.sym,
                            ++cookie,
                            EnumSet.noneOf(CompletionFlag.class));
                }
            }
        }
        return null;
    }

    /** dat_ep_dup_connect with private data one byte over the IA's limit, from an EP that could connect. */
    private static Action dupConnectOverLimit(Model m) {
        M.Ep ep = null;
        M.Ep dup = null;
        for (M.Ep d : m.live(M.Ep.class)) {
            if (!d.undefined && !d.wild && d.possibleStates().equals(EnumSet.of(EndpointState.CONNECTED))) {
                for (M.Ep e : m.live(M.Ep.class)) {
                    if (e.ia == d.ia && !e.undefined && e.state == EndpointState.UNCONNECTED) {
                        ep = e;
                        dup = d;
                    }
                }
            }
        }
        return ep == null
                ? null
                : new EpActions.EpDupConnect(ep.sym, dup.sym, ep.ia.maxPrivateData() + 1, 7, Qos.BEST_EFFORT);
    }

    /** dat_ep_dup_connect asking for a qos outside the IA's qos_supported. */
    private static Action dupConnectQos(Model m) {
        for (M.Ep d : m.live(M.Ep.class)) {
            for (M.Ep e : m.live(M.Ep.class)) {
                if (!d.undefined && e.ia == d.ia && !e.undefined && e.state == EndpointState.UNCONNECTED) {
                    for (Qos q : Qos.values()) {
                        if (!e.ia.providerAttrs.qosSupported().contains(q)) {
                            return new EpActions.EpDupConnect(e.sym, d.sym, 0, 8, q);
                        }
                    }
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * Pre-posts receives on an Unconnected EP one beyond its max_recv_dtos: the last is DAT_INSUFFICIENT_RESOURCES
     * (no traffic: an Unconnected EP receives nothing).
     */
    private Action recvOverflow(Model m) {
        if (overflowEp == null) {
            for (M.Ep e : m.live(M.Ep.class)) {
                if (!e.undefined
                        && e.state == EndpointState.UNCONNECTED
                        && e.attrs != null
                        && e.pz != null
                        && e.recvEvd != null
                        && e.srq == null
                        && e.attrs.maxRecvDtos() <= 16
                        && e.recvs.isEmpty()) {
                    overflowEp = e;
                    break;
                }
            }
            if (overflowEp == null) {
                return null;
            }
        }
        M.Ep e = overflowEp;
        if (!e.live() || e.state != EndpointState.UNCONNECTED || posted > e.attrs.maxRecvDtos()) {
            return null;
        }
        posted++;
        return new DtoActions.PostRecv(e.sym, List.of(), ++cookie, EnumSet.noneOf(CompletionFlag.class));
    }

    private M.Ep requestEp;
    private int requested;

    /**
     * One post on a CONNECTED EP whose request queue holds at most 16 and nothing now: zero-length sends until the
     * queue is full, then one send, one RDMA Write and one RDMA Read beyond max_request_dtos
     * (dat_ep_post_send, dat_ep_post_rdma_write, dat_ep_post_rdma_read: DAT_INSUFFICIENT_RESOURCES). Nothing
     * completes in between: the deterministic fabric moves only while the sequence's thread waits.
     */
    private Action requestOverflow(Model m) {
        if (requestEp == null) {
            for (M.Ep e : m.live(M.Ep.class)) {
                if (!e.undefined
                        && e.state == EndpointState.CONNECTED
                        && e.attrs != null
                        && e.pz != null
                        && e.reqEvd != null
                        && e.attrs.maxRequestDtos() <= 16
                        && e.requests.isEmpty()) {
                    requestEp = e;
                    break;
                }
            }
            if (requestEp == null) {
                return null;
            }
        }
        M.Ep e = requestEp;
        int max = e.attrs.maxRequestDtos();
        if (!e.live() || e.state != EndpointState.CONNECTED || requested > max + 2) {
            return null;
        }
        int k = requested++;
        EnumSet<CompletionFlag> none = EnumSet.noneOf(CompletionFlag.class);
        if (k <= max) {
            return new DtoActions.PostSend(e.sym, List.of(), ++cookie, none, 0);
        }
        return new DtoActions.PostRdma(e.sym, List.of(), ++cookie, new M.Remote(null, 0, 0, 0), none, k == max + 2, 1);
    }

    /**
     * dat_srq_post_recv of a segment that runs past the end of an LMR of the SRQ's PZ (DAT_INVALID_PARAMETER: "one
     * of the IOV segments pointed to a memory outside its LMR").
     */
    private Action srqPostOutside(Model m) {
        for (M.Srq q : m.live(M.Srq.class)) {
            for (M.Lmr l : m.live(M.Lmr.class)) {
                if (l.ia == q.ia && l.pz == q.pz && l.has(MemoryPrivilege.LOCAL_WRITE) && l.len >= 8) {
                    return new DtoActions.SrqPostRecv(q.sym, List.of(Tri.of(l.sym, l.len - 4, 8)), ++cookie);
                }
            }
        }
        return null;
    }

    /** dat_evd_wait with threshold 2 on a request EVD an unsignalled stream feeds (row 4.1#4). */
    private static Action waitTwoOnUnsignalled(Model m) {
        for (M.Ep ep : m.live(M.Ep.class)) {
            if (!ep.undefined
                    && ep.attrs != null
                    && ep.attrs.requestCompletionFlags().contains(CompletionFlag.UNSIGNALLED)
                    && ep.reqEvd != null
                    && ep.reqEvd.live()
                    && ep.reqEvd.waitable
                    && (ep.reqEvd.qlen > 0 ? ep.reqEvd.qlen : ep.reqEvd.minQlen) >= 2) {
                return new EvdActions.EvdWait(ep.reqEvd.sym, 2, false, false);
            }
        }
        return null;
    }

    private static Action freeBoundLmr(Model m) {
        for (M.Rmr r : m.live(M.Rmr.class)) {
            if (r.pendingBind == null && r.binding != null && r.binding.lmr().live()) {
                return new IaActions.LmrFree(r.binding.lmr().sym);
            }
        }
        return null;
    }

    private Action postRdmaDead(Model m, boolean read) {
        M.Ep ep = deadEp(m);
        return ep == null
                ? null
                : new DtoActions.PostRdma(
                        ep.sym,
                        List.of(),
                        ++cookie,
                        new M.Remote(null, 0, 0, 8),
                        EnumSet.noneOf(CompletionFlag.class),
                        read,
                        1);
    }

    private static boolean live(Model m, String sym) {
        return m.get(sym) != null && m.get(sym).live();
    }

    private static M.Ia firstLive(Model m) {
        List<M.Ia> l = m.live(M.Ia.class);
        return l.isEmpty() ? null : l.get(0);
    }

    private static M.Ia lastLive(Model m) {
        List<M.Ia> l = m.live(M.Ia.class);
        return l.isEmpty() ? null : l.get(l.size() - 1);
    }

    private static M.Ia deadIa(Model m) {
        for (M.Ia a : m.ias) {
            if (!a.live()) {
                return a;
            }
        }
        return null;
    }

    private static <T extends M.Obj> T first(List<T> l, M.Ia ia) {
        for (T o : l) {
            if (o.ia == ia && !o.live()) {
                return o;
            }
        }
        return null;
    }

    private static M.Ep deadEp(Model m) {
        M.Ia d = deadIa(m);
        for (M.Ep ep : m.all(M.Ep.class)) {
            if (!ep.live() && !ep.undefined && (d == null || ep.ia == d)) {
                return ep;
            }
        }
        return null;
    }

    private static M.Evd deadEvd(Model m) {
        M.Ia d = deadIa(m);
        for (M.Evd e : m.all(M.Evd.class)) {
            if (!e.live() && (d == null || e.ia == d)) {
                return e;
            }
        }
        return null;
    }

    private static M.Evd crEvd(Model m, M.Ia a) {
        for (M.Evd e : m.live(M.Evd.class)) {
            if (e.ia == a && e.flags.contains(EvdFlag.CR) && !e.providerCreated) {
                return e;
            }
        }
        return null;
    }
}
