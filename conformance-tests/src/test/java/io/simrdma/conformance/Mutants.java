package io.simrdma.conformance;

import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EpStatus;
import io.simrdma.dat.EvdParams;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrParams;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.RmrBindCompletionEvent;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqParams;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The mutant providers: each delegates to sim-provider through {@link MutantProvider} and breaks one rule
 * a man page states. The suite must kill every one within the CI seed budget ({@link MutantsTest}).
 *
 * <p>Thread safety: each {@link Mutant#mutation()} call makes a fresh mutation with its own counters.
 */
final class Mutants {

    /**
     * A mutant.
     *
     * @param name     short name (the kill table's first column)
     * @param breaks   the rule it breaks, with its man page
     * @param mutation makes the mutation for one suite run
     */
    record Mutant(String name, String breaks, Supplier<MutantProvider.Mutation> mutation) {}

    private Mutants() {}

    static List<Mutant> all() {
        return List.of(
                // ---------------------------------------------------------------- return codes
                new Mutant(
                        "freed-lmr-accepted",
                        "dat_lmr_free(3DAT): DAT_INVALID_HANDLE for a freed LMR",
                        () -> swallow(LocalMemoryRegion.class, "free", DatReturnType.INVALID_HANDLE)),
                new Mutant(
                        "freed-pz-accepted",
                        "dat_pz_free(3DAT): DAT_INVALID_HANDLE for a freed PZ",
                        () -> swallow(ProtectionZone.class, "free", DatReturnType.INVALID_HANDLE)),
                new Mutant(
                        "freed-evd-accepted",
                        "dat_evd_free(3DAT): DAT_INVALID_HANDLE for a freed EVD",
                        () -> swallow(EventDispatcher.class, "free", DatReturnType.INVALID_HANDLE)),
                new Mutant(
                        "freed-ep-accepted",
                        "dat_ep_free(3DAT): DAT_INVALID_HANDLE for a freed EP",
                        () -> swallow(Endpoint.class, "free", DatReturnType.INVALID_HANDLE)),
                new Mutant(
                        "freed-psp-accepted",
                        "dat_psp_free(3DAT): DAT_INVALID_HANDLE for a freed PSP",
                        () -> swallow(PublicServicePoint.class, "free", DatReturnType.INVALID_HANDLE)),
                new Mutant(
                        "freed-srq-accepted",
                        "dat_srq_free(3DAT): DAT_INVALID_HANDLE for a freed SRQ",
                        () -> swallow(SharedReceiveQueue.class, "free", DatReturnType.INVALID_HANDLE)),
                new Mutant(
                        "pz-in-use-freed",
                        "dat_pz_free(3DAT): DAT_INVALID_STATE while LMRs, RMRs or EPs use the PZ",
                        () -> swallow(ProtectionZone.class, "free", DatReturnType.INVALID_STATE)),
                new Mutant(
                        "post-send-in-wrong-state",
                        "dat_ep_post_send(3DAT): DAT_INVALID_STATE unless CONNECTED",
                        () -> swallow(Endpoint.class, "postSend", DatReturnType.INVALID_STATE)),
                new Mutant(
                        "post-rdma-in-wrong-state",
                        "dat_ep_post_rdma_write(3DAT): DAT_INVALID_STATE unless CONNECTED",
                        () -> swallowPrefix(Endpoint.class, "postRdma", DatReturnType.INVALID_STATE)),
                new Mutant(
                        "invalid-handle-subtype",
                        "dat_*(3DAT): DAT_INVALID_HANDLE carries the subtype of the handle "
                                + "(DAT_INVALID_HANDLE_EP for an EP, ...)",
                        Mutants::wrongHandleSubtype),
                new Mutant(
                        "invalid-state-as-parameter",
                        "dat_*(3DAT): DAT_INVALID_STATE is not DAT_INVALID_PARAMETER",
                        () -> retype(DatReturnType.INVALID_STATE, DatReturnType.INVALID_PARAMETER)),
                new Mutant(
                        "invalid-parameter-as-length",
                        "dat_*(3DAT): DAT_INVALID_PARAMETER is not DAT_LENGTH_ERROR",
                        () -> retype(DatReturnType.INVALID_PARAMETER, DatReturnType.LENGTH_ERROR)),
                new Mutant(
                        "oversized-private-data-truncated",
                        "dat_ep_connect(3DAT): private data over the IA's "
                                + "limit is DAT_INVALID_PARAMETER, not cut to the limit",
                        Mutants::oversizedPrivateData),
                new Mutant(
                        "evd-zero-qlen-accepted",
                        "dat_evd_create(3DAT): evd_min_qlen 0 is DAT_INVALID_PARAMETER",
                        Mutants::zeroQlen),
                // ---------------------------------------------------------------- events
                new Mutant(
                        "dto-completion-lost",
                        "dat_ep_post_send(3DAT)/dat_evd_dequeue(3DAT): every DTO completes with " + "exactly one event",
                        Mutants::loseCompletion),
                new Mutant(
                        "dto-completion-duplicated",
                        "dat_evd_dequeue(3DAT): an event is removed from the EVD once " + "dequeued",
                        Mutants::duplicateCompletion),
                new Mutant(
                        "dto-cookie-swapped",
                        "dat_ep_post_recv(3DAT): the completion carries the user_cookie " + "of its DTO",
                        () -> dto(e -> new DtoCompletionEvent(
                                e.evd(), e.ep(), e.userCookie() ^ 1, e.status(), e.transferredLength()))),
                new Mutant(
                        "dto-length-off-by-one",
                        "dat_evd_dequeue(3DAT): transfered_length is the bytes transferred",
                        () -> dto(e -> e.status() == DtoCompletionStatus.SUCCESS && e.transferredLength() > 0
                                ? new DtoCompletionEvent(
                                        e.evd(), e.ep(), e.userCookie(), e.status(), e.transferredLength() + 1)
                                : e)),
                new Mutant(
                        "flushed-as-success",
                        "dat_ep_disconnect(3DAT): outstanding DTOs complete with " + "DAT_DTO_ERR_FLUSHED",
                        () -> dto(e -> e.status() == DtoCompletionStatus.ERR_FLUSHED
                                ? new DtoCompletionEvent(
                                        e.evd(),
                                        e.ep(),
                                        e.userCookie(),
                                        DtoCompletionStatus.SUCCESS,
                                        e.transferredLength())
                                : e)),
                new Mutant(
                        "dto-on-wrong-evd",
                        "dat_ep_create(3DAT): DTO completions go to the EP's request or recv " + "EVD",
                        Mutants::dtoOnConnectEvd),
                new Mutant(
                        "rmr-bind-cookie-swapped",
                        "dat_rmr_bind(3DAT): the bind completion carries its user_cookie",
                        () -> event(
                                RmrBindCompletionEvent.class,
                                e -> new RmrBindCompletionEvent(e.evd(), e.rmr(), e.userCookie() + 1, e.status()))),
                new Mutant(
                        "peer-rejected-as-non-peer",
                        "dat_cr_reject(3DAT): the active side gets " + "DAT_CONNECTION_EVENT_PEER_REJECTED",
                        () -> event(
                                ConnectionEvent.class,
                                e -> e.eventNumber() == EventNumber.CONNECTION_EVENT_PEER_REJECTED
                                        ? new ConnectionEvent(
                                                e.evd(),
                                                EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                                                e.ep(),
                                                e.privateData(),
                                                e.reason())
                                        : e)),
                new Mutant(
                        "timed-out-as-unreachable",
                        "dat_ep_connect(3DAT): a connect whose timeout expires before establishment gets "
                                + "DAT_CONNECTION_EVENT_TIMED_OUT",
                        () -> event(
                                ConnectionEvent.class,
                                e -> e.eventNumber() == EventNumber.CONNECTION_EVENT_TIMED_OUT
                                        ? new ConnectionEvent(
                                                e.evd(),
                                                EventNumber.CONNECTION_EVENT_UNREACHABLE,
                                                e.ep(),
                                                e.privateData(),
                                                e.reason())
                                        : e)),
                new Mutant(
                        "connection-private-data-truncated",
                        "dat_cr_accept(3DAT): the active side's "
                                + "DAT_CONNECTION_EVENT_ESTABLISHED carries the accept's private data",
                        () -> event(
                                ConnectionEvent.class,
                                e -> e.privateData() != null && e.privateData().length > 0
                                        ? new ConnectionEvent(
                                                e.evd(),
                                                e.eventNumber(),
                                                e.ep(),
                                                Arrays.copyOf(e.privateData(), e.privateData().length - 1),
                                                e.reason())
                                        : e)),
                new Mutant(
                        "cr-private-data-truncated",
                        "dat_cr_query(3DAT): the request's private data as the " + "active side sent it",
                        Mutants::crPrivateDataTruncated),
                new Mutant(
                        "evd-wait-nmore-off",
                        "dat_evd_wait(3DAT): nmore is the number of events still queued",
                        Mutants::nmoreOff),
                // ---------------------------------------------------------------- states and queries
                new Mutant(
                        "disconnect-state-unchanged",
                        "dat_ep_disconnect(3DAT): the EP is DISCONNECTED once " + "disconnected, not CONNECTED",
                        Mutants::disconnectedShownConnected),
                new Mutant(
                        "reset-does-nothing",
                        "dat_ep_reset(3DAT): the EP returns to UNCONNECTED",
                        () -> skip(Endpoint.class, "reset")),
                new Mutant(
                        "recv-query-off-by-one",
                        "dat_ep_recv_query(3DAT): nbufs_allocated counts the posted receives",
                        () -> result(EpRecvInfo.class, r -> new EpRecvInfo(r.nbufsAllocated() + 1, r.bufsAllocSpan()))),
                new Mutant(
                        "lmr-query-length",
                        "dat_lmr_query(3DAT): the length the LMR was created with",
                        () -> result(LmrParams.class, r -> with(r, "length", r.length() + 1))),
                new Mutant(
                        "evd-query-qlen",
                        "dat_evd_query(3DAT): evd_qlen is at least evd_min_qlen as created",
                        () -> result(EvdParams.class, r -> with(r, "qlen", 0))),
                new Mutant(
                        "srq-lw-kept",
                        "dat_srq_set_lw(3DAT)/dat_srq_query(3DAT): the low watermark set is the " + "one queried",
                        () -> skip(SharedReceiveQueue.class, "setLowWatermark")),
                new Mutant(
                        "srq-query-outstanding",
                        "dat_srq_query(3DAT): outstanding_dto_count counts the " + "receives posted and not completed",
                        () -> result(
                                SrqParams.class, r -> with(r, "outstandingDtoCount", r.outstandingDtoCount() + 1))),
                new Mutant(
                        "ep-query-pz-lost",
                        "dat_ep_query(3DAT): the PZ the EP was created with",
                        () -> result(EpParams.class, r -> with(r, "pz", Optional.empty()))));
    }

    // ------------------------------------------------------------------------------- builders

    /** A call of {@code iface.method} failing with {@code type} returns normally instead. */
    static MutantProvider.Mutation swallow(Class<?> iface, String method, DatReturnType type) {
        return (t, m, a, p) -> {
            try {
                return p.run();
            } catch (DatException e) {
                if (iface.isInstance(t) && m.getName().equals(method) && e.type() == type) {
                    return null;
                }
                throw e;
            }
        };
    }

    static MutantProvider.Mutation swallowPrefix(Class<?> iface, String prefix, DatReturnType type) {
        return (t, m, a, p) -> {
            try {
                return p.run();
            } catch (DatException e) {
                if (iface.isInstance(t) && m.getName().startsWith(prefix) && e.type() == type) {
                    return null;
                }
                throw e;
            }
        };
    }

    /** Every failure of {@code from} is reported as {@code to} (same subtype). */
    static MutantProvider.Mutation retype(DatReturnType from, DatReturnType to) {
        return (t, m, a, p) -> {
            try {
                return p.run();
            } catch (DatException e) {
                if (e.type() == from) {
                    throw new DatException(to, e.subtype(), e.detail());
                }
                throw e;
            }
        };
    }

    static MutantProvider.Mutation wrongHandleSubtype() {
        return (t, m, a, p) -> {
            try {
                return p.run();
            } catch (DatException e) {
                if (e.type() == DatReturnType.INVALID_HANDLE && e.subtype() != DatReturnSubtype.NO_SUBTYPE) {
                    DatReturnSubtype other = e.subtype() == DatReturnSubtype.INVALID_HANDLE_EP
                            ? DatReturnSubtype.INVALID_HANDLE_LMR
                            : DatReturnSubtype.INVALID_HANDLE_EP;
                    throw new DatException(e.type(), other, e.detail());
                }
                throw e;
            }
        };
    }

    /** A call of {@code iface.method} does nothing. */
    static MutantProvider.Mutation skip(Class<?> iface, String method) {
        return (t, m, a, p) -> iface.isInstance(t) && m.getName().equals(method) ? null : p.run();
    }

    /** Results of type {@code type} are changed by {@code f}. */
    static <R> MutantProvider.Mutation result(Class<R> type, java.util.function.UnaryOperator<R> f) {
        return (t, m, a, p) -> {
            Object r = p.run();
            return type.isInstance(r) ? f.apply(type.cast(r)) : r;
        };
    }

    /** Events of type {@code type}, from dequeue or wait, are changed by {@code f}. */
    static <E> MutantProvider.Mutation event(Class<E> type, java.util.function.UnaryOperator<E> f) {
        return (t, m, a, p) -> {
            Object r = p.run();
            if (r instanceof Optional<?> o && o.isPresent() && type.isInstance(o.get())) {
                return Optional.of(f.apply(type.cast(o.get())));
            }
            if (r instanceof EvdWaitResult w
                    && w.event().isPresent()
                    && type.isInstance(w.event().get())) {
                return new EvdWaitResult(
                        w.status(),
                        Optional.of((io.simrdma.dat.DatEvent)
                                f.apply(type.cast(w.event().get()))),
                        w.nmore());
            }
            return r;
        };
    }

    static MutantProvider.Mutation dto(java.util.function.UnaryOperator<DtoCompletionEvent> f) {
        return event(DtoCompletionEvent.class, f);
    }

    /** A record with one component replaced. */
    static <R> R with(R rec, String component, Object value) {
        RecordComponent[] rc = rec.getClass().getRecordComponents();
        Object[] values = new Object[rc.length];
        Class<?>[] types = new Class<?>[rc.length];
        try {
            for (int i = 0; i < rc.length; i++) {
                values[i] = rc[i].getName().equals(component)
                        ? value
                        : rc[i].getAccessor().invoke(rec);
                types[i] = rc[i].getType();
            }
            @SuppressWarnings("unchecked")
            R out = (R) rec.getClass().getDeclaredConstructor(types).newInstance(values);
            return out;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------------------- the stateful ones

    /** The second DTO completion and every third after it vanish. */
    static MutantProvider.Mutation loseCompletion() {
        int[] n = {0};
        return (t, m, a, p) -> {
            Object r = p.run();
            if (t instanceof EventDispatcher
                    && m.getName().equals("dequeue")
                    && r instanceof Optional<?> o
                    && o.isPresent()
                    && o.get() instanceof DtoCompletionEvent
                    && n[0]++ % 3 == 1) {
                return p.run();
            }
            return r;
        };
    }

    /** Every third DTO completion dequeued is dequeued again by the next dequeue. */
    static MutantProvider.Mutation duplicateCompletion() {
        int[] n = {0};
        Object[] again = {null};
        return (t, m, a, p) -> {
            if (t instanceof EventDispatcher && m.getName().equals("dequeue")) {
                if (again[0] != null) {
                    Object r = again[0];
                    again[0] = null;
                    return r;
                }
                Object r = p.run();
                if (r instanceof Optional<?> o
                        && o.isPresent()
                        && o.get() instanceof DtoCompletionEvent
                        && n[0]++ % 3 == 2) {
                    again[0] = r;
                }
                return r;
            }
            return p.run();
        };
    }

    /** DTO completions name the EP's connect EVD instead of the EVD they were dequeued from. */
    static MutantProvider.Mutation dtoOnConnectEvd() {
        return dto(e -> {
            Optional<EventDispatcher> c = e.ep().query().connectEvd();
            return c.isPresent() && c.get() != e.evd()
                    ? new DtoCompletionEvent(c.get(), e.ep(), e.userCookie(), e.status(), e.transferredLength())
                    : e;
        });
    }

    static MutantProvider.Mutation oversizedPrivateData() {
        return (t, m, a, p) -> {
            if (t instanceof Endpoint && m.getName().equals("connect")) {
                for (int i = 0; i < a.length; i++) {
                    if (a[i] instanceof byte[] b && b.length > io.simrdma.provider.SimProvider.MAX_PRIVATE_DATA) {
                        a[i] = Arrays.copyOf(b, io.simrdma.provider.SimProvider.MAX_PRIVATE_DATA);
                    }
                }
            }
            return p.run();
        };
    }

    static MutantProvider.Mutation zeroQlen() {
        return (t, m, a, p) -> {
            if (t instanceof InterfaceAdapter
                    && m.getName().equals("createEvd")
                    && a[0] instanceof Integer q
                    && q == 0) {
                a[0] = 1;
            }
            return p.run();
        };
    }

    static MutantProvider.Mutation crPrivateDataTruncated() {
        return (t, m, a, p) -> {
            Object r = p.run();
            if (t instanceof ConnectionRequest
                    && r instanceof CrParams c
                    && c.privateData() != null
                    && c.privateData().length > 0) {
                return new CrParams(
                        c.remoteIaAddress(),
                        c.remotePortQual(),
                        Arrays.copyOf(c.privateData(), c.privateData().length - 1),
                        c.localEp());
            }
            return r;
        };
    }

    static MutantProvider.Mutation nmoreOff() {
        return (t, m, a, p) -> {
            Object r = p.run();
            if (r instanceof EvdWaitResult w && w.event().isPresent()) {
                return new EvdWaitResult(w.status(), w.event(), w.nmore() + 1);
            }
            return r;
        };
    }

    /** An EP that is DISCONNECTED reports CONNECTED through dat_ep_query and dat_ep_get_status. */
    static MutantProvider.Mutation disconnectedShownConnected() {
        return (t, m, a, p) -> {
            Object r = p.run();
            if (r instanceof EpStatus s && s.state() == EndpointState.DISCONNECTED) {
                return new EpStatus(EndpointState.CONNECTED, s.recvIdle(), s.requestIdle());
            }
            if (r instanceof EpParams q && q.state() == EndpointState.DISCONNECTED) {
                return with(q, "state", EndpointState.CONNECTED);
            }
            return r;
        };
    }
}
