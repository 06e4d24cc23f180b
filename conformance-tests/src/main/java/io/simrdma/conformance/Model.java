package io.simrdma.conformance;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.RmrBindCompletionEvent;
import io.simrdma.dat.SoftwareEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The reference model: an executable reading of the DAT 1.2 man pages ({@code shared/spec/dat}) and
 * of the endpoint state-machine digest ({@code shared/spec/ep-state-machine.md}), written from them
 * and not from any provider. It holds the objects a sequence created ({@link M}) and answers, for
 * each call, what the pages allow it to return and what it changes ({@link Expect}); for each event
 * dequeued, whether the pages allow it; for each query, which states are possible.
 *
 * <p>Asynchronous outcomes (connection establishment, completions) are pending until an observation
 * shows them: a pending step of an EP ({@link M.Slot}) happens when a query shows its state or its
 * event is dequeued; a work request completes when its event is dequeued. The model never depends on
 * timing: what is certain to happen must be seen by a waiting call with a long timeout, what may
 * happen may be seen at any time.
 *
 * <p>The predictions per DAT function are in {@link Rules}; this class holds the state and the
 * event-matching logic.
 *
 * <p>Thread safety: not thread-safe; one run owns its model.
 */
final class Model {

    final boolean strict;
    final Map<String, M.Obj> objects = new java.util.LinkedHashMap<>();
    final Map<String, M.Mem> mems = new HashMap<>();
    final List<M.Ia> ias = new ArrayList<>();
    int workSeq;
    int forkSeq;

    Model(boolean strict) {
        this.strict = strict;
    }

    // ------------------------------------------------------------------ registry

    <T extends M.Obj> T add(T o) {
        objects.put(o.sym, o);
        if (o.ia != null) {
            o.ia.objects.add(o);
        }
        if (o instanceof M.Ia ia) {
            ias.add(ia);
        }
        return o;
    }

    /** The object named {@code sym}; null if the run never created it. */
    @SuppressWarnings("unchecked")
    <T extends M.Obj> T get(String sym) {
        return sym == null ? null : (T) objects.get(sym);
    }

    /** The object named {@code sym}, or {@link Skip} if the run never created it. */
    <T extends M.Obj> T need(String sym) {
        T o = get(sym);
        if (o == null) {
            throw Skip.INSTANCE;
        }
        return o;
    }

    <T extends M.Obj> List<T> all(Class<T> type) {
        List<T> l = new ArrayList<>();
        for (M.Obj o : objects.values()) {
            if (type.isInstance(o)) {
                l.add(type.cast(o));
            }
        }
        return l;
    }

    <T extends M.Obj> List<T> live(Class<T> type) {
        List<T> l = all(type);
        l.removeIf(o -> !o.live());
        return l;
    }

    // ------------------------------------------------------------------ EP states

    /**
     * For each state the EP may be in now, the outcomes the pages allow there; an outcome seen in a
     * state the EP reached by a pending step first makes that step happen.
     */
    Expect byState(M.Ep ep, Function<EndpointState, Expect> rules) {
        if (ep.wild) {
            Expect any = new Expect();
            for (EndpointState s : EndpointState.values()) {
                if (s.name().startsWith("UNCONFIGURED")) {
                    continue;
                }
                any.or(wrapResolve(ep, s, rules.apply(s)));
            }
            return any;
        }
        Expect e = new Expect();
        e.or(rules.apply(ep.state));
        for (EndpointState s : ep.possibleStates()) {
            if (s != ep.state) {
                e.or(wrapResolve(ep, s, rules.apply(s)));
            }
        }
        return e;
    }

    private Expect wrapResolve(M.Ep ep, EndpointState s, Expect inner) {
        if (s == ep.state && !ep.wild) {
            return inner;
        }
        Expect w = new Expect();
        for (Expect.Alt a : inner.alts) {
            w.alts.add(new Expect.Alt(a.type(), a.subtypes(), a.subChoice(), a.check(), v -> {
                resolveTo(ep, s);
                if (a.effect() != null) {
                    a.effect().accept(v);
                }
            }));
        }
        return w;
    }

    /**
     * Makes the pending steps that lead the EP to {@code s} happen (a query showed {@code s}).
     *
     * @return false if no pending step leads there
     */
    boolean resolveTo(M.Ep ep, EndpointState s) {
        tidy(ep);
        if (ep.wild) {
            ep.state = s;
            ep.pending.clear();
            return true;
        }
        if (ep.state == s) {
            return true;
        }
        List<M.Step> path = new ArrayList<>();
        if (!path(ep, 0, s, path, new HashMap<>())) {
            return false;
        }
        for (M.Step st : path) {
            tidy(ep);
            M.Slot slot = ep.pending.isEmpty() ? null : ep.pending.get(0);
            if (slot == null || !slot.alternatives.contains(st) || !st.viable()) {
                return ep.state == s;
            }
            apply(ep, slot, st, false);
        }
        return true;
    }

    /** A sequence of one viable step per slot, from slot {@code i}, with consistent fork choices, ending in {@code s}. */
    private boolean path(M.Ep ep, int i, EndpointState s, List<M.Step> out, Map<M.Fork, String> chosen) {
        if (i >= ep.pending.size() || i > 5) {
            return false;
        }
        for (M.Step st : ep.pending.get(i).alternatives) {
            if (!st.viable()) {
                continue;
            }
            String c = st.fork == null ? null : chosen.get(st.fork);
            if (c != null && st.option != null && !c.equals(st.option)) {
                continue;
            }
            out.add(st);
            boolean added = st.fork != null && st.option != null && c == null;
            if (added) {
                chosen.put(st.fork, st.option);
            }
            if (st.to == s || path(ep, i + 1, s, out, chosen)) {
                return true;
            }
            if (added) {
                chosen.remove(st.fork);
            }
            out.remove(out.size() - 1);
        }
        return false;
    }

    /**
     * A query showed the EP in state {@code seen}: it must be one the EP may be in; pending steps
     * leading there happen.
     */
    void observeState(Run run, M.Ep ep, EndpointState seen, Check c) {
        if (ep.wild) {
            ep.state = seen;
            ep.pending.clear();
            run.pass(c);
            return;
        }
        Set<EndpointState> may = ep.possibleStates();
        run.check(c, may.contains(seen), "a state in " + may, seen::toString);
        resolveTo(ep, seen);
    }

    /** A pending step happens: the EP takes its state, its event is queued (unless just dequeued). */
    void apply(M.Ep ep, M.Slot slot, M.Step st, boolean eventDequeued) {
        // an active EP seen DISCONNECTED by its state (not its event): the state does not tell which failure ended
        // the connect, and dat_ep_connect(3DAT) reports each with its own event (PEER_REJECTED, NON_PEER_REJECTED,
        // UNREACHABLE, TIMED_OUT; ep-state-machine.md 2.5, all "-> DISCONNECTED"): every one still viable stays
        // allowed for the event queued
        List<M.ConnEv> failures = new ArrayList<>();
        if (!eventDequeued
                && st.event != null
                && st.to == EndpointState.DISCONNECTED
                && st.fork != null
                && !st.fork.local
                && ep.conn != null
                && st.fork == ep.conn.fork) {
            for (M.Step o : slot.viable()) {
                if (o != st && o.fork == st.fork && o.to == st.to && o.event != null && o.event != st.event) {
                    failures.add(new M.ConnEv(o.event, o.privateData, o.check));
                }
            }
        }
        ep.pending.remove(slot);
        if (st.fork != null && st.option != null) {
            st.fork.chosen = st.option;
        }
        ep.state = st.to;
        if (st.to == EndpointState.CONNECTED) {
            for (M.Slot later : ep.pending) {
                if (later.certainOnceConnected && !later.certain) {
                    later.certain = true;
                    ep.breaking = true;
                    ep.errorBreak = true;
                }
            }
        }
        if (st.event != null && !eventDequeued) {
            M.ConnEv ev = new M.ConnEv(st.event, st.privateData, st.check);
            ep.arrived.add(ev);
            // the state was seen, not the event: where the slot's choice is only which event reports it, every
            // event it offers for that state stays allowed
            if (st.fork != null && st.fork.local) {
                List<M.ConnEv> alt = new ArrayList<>();
                for (M.Step o : slot.alternatives) {
                    // a step of no fork in the slot (a transfer error's BROKEN added to an end already pending) leads
                    // to the same state as well: the state seen does not tell it from the fork's
                    if (o != st
                            && (o.fork == st.fork || o.fork == null)
                            && o.to == st.to
                            && o.event != null
                            && o.event != st.event) {
                        alt.add(new M.ConnEv(o.event, o.privateData, o.check));
                    }
                }
                if (!alt.isEmpty()) {
                    eventAlternatives.put(ev, alt);
                }
            } else if (!failures.isEmpty()) {
                eventAlternatives.put(ev, failures);
            }
        }
        if (st.effect != null) {
            st.effect.run();
        }
        tidy(ep);
    }

    /** Drops slots none of whose alternatives can still happen. */
    void tidy(M.Ep ep) {
        ep.pending.removeIf(s -> s.viable().isEmpty());
    }

    /** Appends a pending step (or alternatives) to an EP. */
    M.Slot pend(M.Ep ep, boolean certain, M.Step... steps) {
        M.Slot s = new M.Slot(certain, steps);
        ep.pending.add(s);
        return s;
    }

    M.Fork fork(String what) {
        return new M.Fork(what + "#" + (++forkSeq));
    }

    /** A fork whose options differ only in the connection event of one slot (see {@link M.Fork#local}). */
    M.Fork localFork(String what) {
        return new M.Fork(what + "#" + (++forkSeq), true);
    }

    /**
     * The other events a connection event queued by a state seen may still turn out to be: a query saw the
     * EP DISCONNECTED, which says the connection ended but not whether the provider reported the end by
     * BROKEN or DISCONNECTED (the alternatives the pages allow for it).
     */
    final Map<M.ConnEv, List<M.ConnEv>> eventAlternatives = new java.util.IdentityHashMap<>();

    /** Moves the EP's queued connection events, with their alternatives, to the events that may come. */
    void arrivedToMaybe(M.Ep ep) {
        for (M.ConnEv ev : ep.arrived) {
            List<M.ConnEv> alt = eventAlternatives.remove(ev);
            List<M.ConnEv> group = new ArrayList<>();
            group.add(ev);
            if (alt != null) {
                group.addAll(alt);
            }
            maybeGroup(ep, group);
        }
        ep.arrived.clear();
    }

    /**
     * The events of {@code ep}'s connection events that may still be dequeued, each with the others it is an
     * alternative to: one pending slot reports its state change with at most one event, so once one of them is
     * dequeued the others cannot come (dat_ep_connect(3DAT) names one event per outcome).
     */
    final Map<M.ConnEv, List<M.ConnEv>> maybeSiblings = new java.util.IdentityHashMap<>();

    /** The events of a slot's steps may come, at most one of them (the slot's outcome may have been lost). */
    void maybeOneOf(M.Ep ep, List<M.Step> steps) {
        List<M.ConnEv> group = new ArrayList<>();
        for (M.Step st : steps) {
            if (st.event != null) {
                group.add(new M.ConnEv(st.event, st.privateData, st.check));
            }
        }
        maybeGroup(ep, group);
    }

    private void maybeGroup(M.Ep ep, List<M.ConnEv> group) {
        ep.maybe.addAll(group);
        if (group.size() > 1) {
            for (M.ConnEv ev : group) {
                maybeSiblings.put(ev, group);
            }
        }
    }

    /**
     * Takes a connection event of {@code number} that {@code ep} may get (an event of an earlier
     * connection that dat_ep_reset did not drop, or an alternative of one): true if there was one.
     */
    private boolean takeMaybe(Run run, M.Ep ep, EventNumber number) {
        for (M.ConnEv x : byPreferenceEv(new ArrayList<>(ep.maybe))) {
            if (x.number() == number) {
                ep.maybe.removeIf(e -> e == x);
                maybeTaken(ep, x);
                run.observed(x.check(), () -> number + " of " + ep.sym);
                return true;
            }
        }
        return false;
    }

    /** A maybe-event was dequeued: the others of its slot cannot come. */
    private void maybeTaken(M.Ep ep, M.ConnEv x) {
        List<M.ConnEv> group = maybeSiblings.remove(x);
        if (group != null) {
            for (M.ConnEv o : group) {
                maybeSiblings.remove(o);
                ep.maybe.removeIf(e -> e == o);
            }
        }
    }

    // ------------------------------------------------------------------ events

    /** How many events an EVD certainly holds now, and at most may hold. */
    record Count(int certain, int possible, int certainToCome) {}

    /** The events an EVD holds or may come to hold. */
    Count count(M.Evd evd) {
        int certain = evd.software.size();
        int possible = certain;
        int toCome = 0;
        for (M.Ep ep : all(M.Ep.class)) {
            // dat_ep_free: "The Consumer must be ready for all completions that are not dequeued yet either still
            // being on the Endpoint recv_evd_handle and request_evd_handle or not being there": a freed EP's orphans
            // (works a dat_ep_reset left unfinished) may still come as well; so may the events of an EP the model did
            // not follow (wild: seed 704, the ESTABLISHED and BROKEN it had queued before the free)
            if (!ep.alive
                    && !ep.wild
                    && !ep.providerCreated
                    && ep.arrived.isEmpty()
                    && ep.requests.isEmpty()
                    && ep.recvs.isEmpty()
                    && ep.orphans.isEmpty()) {
                continue;
            }
            if (ep.wild && (ep.connEvd == evd || ep.reqEvd == evd || ep.recvEvd == evd)) {
                possible += 64;
            }
            if (ep.connEvd == evd) {
                // a state seen changed: its event will come (a provider may queue it a little later)
                toCome += ep.arrived.size();
                possible += ep.arrived.size();
                for (M.Slot s : ep.pending) {
                    boolean any = false;
                    boolean allEvents = true;
                    for (M.Step st : s.viable()) {
                        if (st.event != null) {
                            any = true;
                        } else {
                            allEvents = false;
                        }
                    }
                    if (any) {
                        possible++;
                        if (s.certain && allEvents) {
                            toCome++;
                        }
                    }
                }
            }
            boolean blocked = false;
            for (M.Work w : ep.requests) {
                if (!w.done && ep.reqEvd == evd) {
                    possible++;
                    if (!blocked && w.certain && !w.maySilent()) {
                        toCome++;
                    }
                }
                // RC completes requests in order: one that may never complete holds back those behind it
                blocked |= !w.done && !w.certain;
            }
            for (M.Work w : ep.recvs) {
                if (!w.done && ep.recvEvd == evd) {
                    possible++;
                    if (w.certain) {
                        toCome++;
                    }
                }
            }
            for (M.Work w : ep.orphans) {
                if (!w.done && (ep.recvEvd == evd || ep.reqEvd == evd)) {
                    possible++;
                }
            }
        }
        for (M.Obj o : objects.values()) {
            List<M.Arrival> arrivals = arrivalsOf(o);
            if (arrivals != null) {
                for (M.Arrival a : arrivals) {
                    if (a.evd == evd && a.viable()) {
                        possible++;
                        if (a.certain) {
                            toCome++;
                        }
                    }
                }
            }
        }
        for (M.Ep ep : all(M.Ep.class)) {
            if (ep.connEvd == evd) {
                possible += ep.maybe.size();
            }
        }
        for (M.AsyncExp a : evd.async) {
            possible += a.repeatable ? 4 : 1;
            if (a.certain) {
                toCome++;
            }
        }
        int qlen = evd.qlen > 0 ? evd.qlen : evd.minQlen;
        if (possible > qlen && !evd.unreliable && evd.live()) {
            overflowRisk(evd);
        }
        return new Count(certain, possible, toCome);
    }

    /**
     * More events may come to {@code evd} than it holds: an overflow may lose some (and report
     * DAT_ASYNC_ERROR_EVD_OVERFLOW on the IA's async EVD), so the EVD's events are no longer checked for
     * completeness.
     */
    void overflowRisk(M.Evd evd) {
        evd.unreliable = true;
        M.Evd async = evd.ia.asyncEvd;
        if (async != null && async != evd) {
            M.AsyncExp x = new M.AsyncExp(
                    EventNumber.ASYNC_ERROR_EVD_OVERFLOW,
                    evd,
                    io.simrdma.dat.AsyncErrorReason.EVD_OVERFLOW_ERROR,
                    false,
                    Check.ok(
                                    "dat_evd_resize",
                                    "an EVD that overflows loses events; the overflow is reported on the IA's async EVD")
                            .choice(
                                    "the pages leave overflow to the provider: DAT_ASYNC_ERROR_EVD_OVERFLOW on the async EVD"));
            x.repeatable = true;
            async.async.add(x);
        }
    }

    final Map<M.Obj, List<M.Arrival>> arrivals = new HashMap<>();

    List<M.Arrival> arrivalsOf(M.Obj sp) {
        return arrivals.get(sp);
    }

    void arrive(M.Arrival a) {
        arrivals.computeIfAbsent(a.sp, k -> new ArrayList<>()).add(a);
    }

    /** Whether an event is certain to come to {@code evd} without further consumer action. */
    boolean eventCertain(M.Evd evd) {
        Count c = count(evd);
        return c.certain > 0 || c.certainToCome > 0;
    }

    // ------------------------------------------------------------------ matching dequeued events

    /**
     * A dequeued event, matched against what the model allows on {@code evd}; updates the model.
     * Called by the actions that dequeue; {@code run} resolves handles to symbols.
     *
     * @throws Mismatch if the pages do not allow this event here
     */
    void observe(Run run, M.Evd evd, DatEvent ev) {
        if (ev.evd() != run.live(evd.sym)) {
            run.check(
                    Check.ok("dat_evd_dequeue", "an event names the EVD it was dequeued from"),
                    false,
                    evd.sym,
                    () -> String.valueOf(run.symOf(ev.evd())));
        }
        if (ev instanceof DtoCompletionEvent d) {
            observeDto(run, evd, d);
        } else if (ev instanceof RmrBindCompletionEvent b) {
            observeBind(run, evd, b);
        } else if (ev instanceof ConnectionEvent c) {
            observeConnection(run, evd, c);
        } else if (ev instanceof ConnectionRequestEvent cr) {
            observeRequest(run, evd, cr);
        } else if (ev instanceof AsyncErrorEvent a) {
            observeAsync(run, evd, a);
        } else if (ev instanceof SoftwareEvent s) {
            observeSoftware(run, evd, s);
        }
    }

    private static final Check STREAM_ORDER = Check.ok(
                    "dat_evd_dequeue", "events of one stream are returned in the order they were posted")
            .rows("4.1#11");
    private static final Check UNEXPECTED =
            Check.ok("dat_evd_dequeue", "every event returned was posted by a stream feeding the EVD, and only once");

    private void observeSoftware(Run run, M.Evd evd, SoftwareEvent s) {
        Check c = Check.ok("dat_evd_post_se", "the software event carries the consumer's pointer, in posting order")
                .rows("4.1#11");
        M.SoftwareEv head = evd.software.peek();
        run.check(
                c,
                head != null && head.pointer().equals(s.pointer()),
                head == null ? "no software event" : "pointer " + head.pointer(),
                () -> "pointer " + s.pointer());
        evd.software.poll();
    }

    private void observeAsync(Run run, M.Evd evd, AsyncErrorEvent a) {
        String handleSym = run.symOf(a.handle());
        for (Iterator<M.AsyncExp> it = evd.async.iterator(); it.hasNext(); ) {
            M.AsyncExp x = it.next();
            if (x.handle.sym.equals(handleSym) && (x.reason == null || x.reason == a.reason())) {
                run.check(
                        x.check,
                        x.number == null || x.number == a.eventNumber(),
                        "event number " + x.number,
                        () -> "event number " + a.eventNumber());
                if (!x.repeatable) {
                    it.remove();
                }
                onAsyncSeen(x);
                return;
            }
        }
        if (evd.unreliable) {
            run.note("async event " + a + " on an EVD the model cannot follow");
            return;
        }
        run.check(
                UNEXPECTED.rule("an asynchronous event the pages call for (none was expected for " + handleSym + " "
                        + a.reason() + ")"),
                false,
                "no asynchronous event",
                a::toString);
    }

    /** Hook: an awaited asynchronous event was seen (the SRQ low watermark disarms). */
    void onAsyncSeen(M.AsyncExp x) {
        if (x.handle instanceof M.Srq srq
                && x.reason == io.simrdma.dat.AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT
                && x.arming == srq.arming) {
            srq.armed = false;
        }
    }

    private void observeConnection(Run run, M.Evd evd, ConnectionEvent c) {
        String sym = run.symOf(c.ep());
        M.Ep ep = get(sym);
        if (ep == null) {
            run.check(
                    UNEXPECTED.rule("a connection event names an EP of the consumer"),
                    false,
                    "a known EP",
                    c::toString);
            return;
        }
        Check where = Check.ok("dat_ep_create", "connection events of an EP go to its connect_evd");
        if (ep.wild) {
            run.note("connection event " + c.eventNumber() + " of " + sym + ", an EP the model does not follow");
            ep.pending.clear();
            // an event the model queued for a state it saw before it lost track of the EP (ESTABLISHED, once a post
            // showed the EP CONNECTED) is this one: dat_ep_connect(3DAT) reports the establishment once
            M.ConnEv first = ep.arrived.peek();
            if (first != null
                    && (first.number() == c.eventNumber()
                            || eventAlternatives.getOrDefault(first, List.of()).stream()
                                    .anyMatch(a -> a.number() == c.eventNumber()))) {
                ep.arrived.poll();
                eventAlternatives.remove(first);
            }
            return;
        }
        run.check(where, ep.connEvd == evd, "connect_evd " + ep.connEvd, () -> "dequeued from " + evd.sym);
        M.ConnEv head = ep.arrived.peek();
        while (head != null && evd.unreliable && !matches(head, c.eventNumber())) {
            // an EVD that may have overflowed may have lost the queued events before this one (the recorded choice
            // of overflowRisk: "an EVD that overflows loses events; the overflow is reported on the IA's async
            // EVD"): the head was lost
            ep.arrived.poll();
            eventAlternatives.remove(head);
            head = ep.arrived.peek();
        }
        if (head != null) {
            if (head.number() == c.eventNumber()) {
                ep.arrived.poll();
                eventAlternatives.remove(head);
                checkConnData(run, ep, head.number(), head.privateData(), head.check(), c);
                return;
            }
            for (M.ConnEv alt : byPreferenceEv(eventAlternatives.getOrDefault(head, List.of()))) {
                if (alt.number() == c.eventNumber()) {
                    ep.arrived.poll();
                    eventAlternatives.remove(head);
                    checkConnData(run, ep, alt.number(), alt.privateData(), alt.check(), c);
                    return;
                }
            }
        }
        tidy(ep);
        if (head == null && !ep.pending.isEmpty()) {
            // an event of an earlier connection that dat_ep_reset did not drop was queued before any event of the
            // connection now pending (events of one stream come in order): the same event number is that one
            if (takeMaybe(run, ep, c.eventNumber())) {
                return;
            }
            M.Slot slot = ep.pending.get(0);
            for (M.Step st : byPreference(slot.viable())) {
                if (st.event == c.eventNumber()) {
                    checkOrderBeforeDisconnect(run, ep, st);
                    apply(ep, slot, st, true);
                    checkConnData(run, ep, st.event, st.privateData, st.check, c);
                    return;
                }
            }
            // a step without an event may come first (graceful: DISCONNECT_PENDING, then DISCONNECTED)
            if (ep.pending.size() > 1) {
                for (M.Step a : slot.viable()) {
                    if (a.event == null) {
                        for (M.Step b : byPreference(ep.pending.get(1).viable())) {
                            if (b.event == c.eventNumber()) {
                                apply(ep, slot, a, false);
                                M.Slot next = ep.pending.get(0);
                                checkOrderBeforeDisconnect(run, ep, b);
                                apply(ep, next, b, true);
                                checkConnData(run, ep, b.event, b.privateData, b.check, c);
                                return;
                            }
                        }
                    }
                }
            }
        }
        if (takeMaybe(run, ep, c.eventNumber())) {
            return;
        }
        String allowed = head != null
                ? head.number().toString()
                : ep.pending.isEmpty()
                        ? "no connection event"
                        : ep.pending.get(0).viable().toString();
        Check c0 = head != null
                ? head.check()
                : !ep.pending.isEmpty() && !ep.pending.get(0).viable().isEmpty()
                        ? ep.pending.get(0).viable().get(0).check
                        : UNEXPECTED.rule("a connection event the EP's state calls for");
        run.check(
                c0,
                false,
                allowed + " for " + sym + " (state " + ep.state + ")",
                () -> c.eventNumber().toString());
    }

    /**
     * The steps with the outcomes the pages give (or the recorded choice) first, then the alternatives to a recorded
     * choice: where an event fits both (a transfer error's BROKEN, the alternative to a peer end's DISCONNECTED), the
     * step that reads the pages is the one that happened.
     */
    private static List<M.Step> byPreference(List<M.Step> steps) {
        List<M.Step> out = new ArrayList<>(steps.size());
        for (M.Step st : steps) {
            if (!st.check.alternative()) {
                out.add(st);
            }
        }
        for (M.Step st : steps) {
            if (st.check.alternative()) {
                out.add(st);
            }
        }
        return out;
    }

    /** As {@link #byPreference} for queued events. */
    private static List<M.ConnEv> byPreferenceEv(List<M.ConnEv> evs) {
        List<M.ConnEv> out = new ArrayList<>(evs.size());
        for (M.ConnEv ev : evs) {
            if (!ev.check().alternative()) {
                out.add(ev);
            }
        }
        for (M.ConnEv ev : evs) {
            if (ev.check().alternative()) {
                out.add(ev);
            }
        }
        return out;
    }

    /** Whether {@code n} is the queued connection event {@code ev} or one of its alternatives. */
    private boolean matches(M.ConnEv ev, EventNumber n) {
        if (ev.number() == n) {
            return true;
        }
        for (M.ConnEv alt : eventAlternatives.getOrDefault(ev, List.of())) {
            if (alt.number() == n) {
                return true;
            }
        }
        return false;
    }

    private void checkOrderBeforeDisconnect(Run run, M.Ep ep, M.Step st) {
        if (st.event == EventNumber.CONNECTION_EVENT_DISCONNECTED && ep.reqEvd == ep.connEvd) {
            for (M.Work w : ep.requests) {
                if (!w.done
                        && w.possible.contains(DtoCompletionStatus.SUCCESS)
                        && w.certain
                        && !w.maySilent()
                        && w.possible.size() == 1) {
                    run.check(
                            Check.ok(
                                            "dat_ep_disconnect",
                                            "with one EVD for connect and request events, successful "
                                                    + "completions of in-progress DTOs precede the disconnect event")
                                    .rows("2.7#6"),
                            false,
                            "the completion of " + w + " first",
                            () -> "DISCONNECTED first");
                }
            }
        }
    }

    private void checkConnData(Run run, M.Ep ep, EventNumber n, byte[] expected, Check check, ConnectionEvent c) {
        run.observed(check, () -> n + " of " + ep.sym);
        if (n == EventNumber.CONNECTION_EVENT_ESTABLISHED && expected != null) {
            Check pd = Check.ok(
                            "dat_evd_dequeue",
                            "the active side's ESTABLISHED event carries the entire private data "
                                    + "the remote consumer gave dat_cr_accept")
                    .and("dat_cr_accept", io.simrdma.dat.DatReturnType.SUCCESS);
            run.check(
                    pd,
                    Arrays.equals(expected, c.privateData()),
                    expected.length + " bytes " + Java.hex(expected),
                    () -> c.privateDataSize() + " bytes " + Java.hex(c.privateData()));
        }
    }

    /** The conns whose requests were rejected or abandoned: a request of theirs must not arrive again. */
    final List<M.Conn> finished = new ArrayList<>();

    private void observeRequest(Run run, M.Evd evd, ConnectionRequestEvent ev) {
        // the request's parameters tell which connect it belongs to (dat_cr_query, a call of the observation)
        io.simrdma.dat.CrParams q = null;
        io.simrdma.dat.DatException queryFailed = null;
        try {
            q = ev.cr().query();
        } catch (io.simrdma.dat.DatException e) {
            queryFailed = e;
        }
        M.Arrival match = null;
        Iterator<M.Arrival> matchIt = null;
        M.Arrival phantom = null;
        List<M.Arrival> phantomList = null;
        M.Arrival fallback = null;
        for (Map.Entry<M.Obj, List<M.Arrival>> e : arrivals.entrySet()) {
            for (Iterator<M.Arrival> it = e.getValue().iterator(); it.hasNext() && match == null; ) {
                M.Arrival a = it.next();
                if (a.evd != evd || !a.viable()) {
                    continue;
                }
                if (ev.servicePoint().isPresent()
                        && !a.sp.sym.equals(run.symOf(ev.servicePoint().get()))) {
                    continue;
                }
                if (ev.connQual() != qualOf(a.sp)) {
                    continue;
                }
                if (q != null
                        && (!Arrays.equals(q.privateData(), a.conn.privateData)
                                || !q.remoteIaAddress().equals(a.conn.active.ia.address))) {
                    if (fallback == null) {
                        fallback = a;
                    }
                    continue;
                }
                if (a.phantom) {
                    // a request that must not come again: a real request that fits as well (the same EP connecting
                    // again after a reset, with the same private data) is the one that arrived
                    if (phantom == null) {
                        phantom = a;
                        phantomList = e.getValue();
                    }
                    continue;
                }
                match = a;
                matchIt = it;
            }
            if (match != null) {
                break;
            }
        }
        if (match == null && phantom != null) {
            match = phantom;
            matchIt = phantomList.iterator();
            while (matchIt.next() != phantom) {
                // up to the phantom, so that remove() takes it
            }
        }
        if (match != null && !match.phantom && !match.certain && q != null) {
            // a request of an aborted connect may arrive or not ("aborts" the connection establishment,
            // dat_ep_disconnect(3DAT); requests in flight "either produce an event + CR or are rejected",
            // dat_psp_free(3DAT)): one the model cannot tell from a later request certain to arrive (the same requester
            // connecting again with the same private data) may be either; the certain one is taken (the other may
            // still come), and the connection the consumer accepts or rejects with it is not predicted
            for (Map.Entry<M.Obj, List<M.Arrival>> e : arrivals.entrySet()) {
                for (Iterator<M.Arrival> it = e.getValue().iterator(); it.hasNext(); ) {
                    M.Arrival a = it.next();
                    if (a != match
                            && a.certain
                            && !a.phantom
                            && a.viable()
                            && a.evd == evd
                            && ev.connQual() == qualOf(a.sp)
                            && (ev.servicePoint().isEmpty()
                                    || a.sp.sym.equals(
                                            run.symOf(ev.servicePoint().get())))
                            && Arrays.equals(q.privateData(), a.conn.privateData)
                            && q.remoteIaAddress().equals(a.conn.active.ia.address)) {
                        match = a;
                        matchIt = it;
                        a.conn.unsure = true;
                        a.conn.active.wild = true;
                        break;
                    }
                }
                if (match.conn.unsure) {
                    break;
                }
            }
        }
        // A request is named after the EP whose connect it answers (cr<ep number>_<n>), not by arrival order, so that
        // a shrunk sequence without another connection still names it the same.
        String sym = match != null ? run.fresh("cr" + match.conn.active.sym.replace("ep", "") + "_") : run.fresh("cr");
        run.bind(sym, ev.cr());
        run.transcript.add("ConnectionRequest " + sym + " = ((ConnectionRequestEvent) " + run.eventExpr + ").cr();");
        if (q != null) {
            run.transcript.add("CrParams " + sym + "q = " + sym + ".query();");
        }
        if (queryFailed != null) {
            io.simrdma.dat.DatException e = queryFailed;
            run.check(
                    Check.ok("dat_cr_query", "a request just delivered can be queried"),
                    false,
                    "its parameters",
                    e::toString);
        }
        if (match != null) {
            M.Arrival a = match;
            matchIt.remove();
            if (a.phantom) {
                run.check(
                        a.check,
                        false,
                        "no second request of " + a.conn.active + "'s connect (its first was " + "rejected)",
                        ev::toString);
            }
            run.observed(a.check, ev::toString);
            Rules.requestArrived(this, run, a, ev, sym);
            return;
        }
        if (q != null) {
            for (M.Conn c : finished) {
                if (Arrays.equals(q.privateData(), c.privateData)
                        && q.remoteIaAddress().equals(c.active.ia.address)
                        && c.sp != null
                        && ev.connQual() == qualOf(c.sp)) {
                    run.check(
                            Check.ok("dat_cr_reject", "a rejected request is destroyed: it does not arrive again")
                                    .rows("2.5#2"),
                            false,
                            "no second request of " + c.active + "'s connect (its first was "
                                    + (c.rejected ? "rejected" : "abandoned") + ")",
                            ev::toString);
                }
            }
        }
        if (fallback != null) {
            io.simrdma.dat.CrParams qq = q;
            M.Arrival fb = fallback;
            run.check(
                    Check.ok(
                                    "dat_cr_query",
                                    "the request carries the entire private data of dat_ep_connect and the "
                                            + "requester's address")
                            .and("dat_evd_dequeue", io.simrdma.dat.DatReturnType.SUCCESS),
                    false,
                    fb.conn.privateData.length + " bytes " + Java.hex(fb.conn.privateData) + " from "
                            + fb.conn.active.ia.address,
                    () -> qq.privateDataSize() + " bytes " + Java.hex(qq.privateData()) + " from "
                            + qq.remoteIaAddress());
        }
        if (evd.unreliable) {
            run.note("connection request " + ev + " on an EVD the model cannot follow");
            return;
        }
        run.check(
                UNEXPECTED
                        .rule("a connection request arrives only for a dat_ep_connect to a listening service "
                                + "point")
                        .and("dat_psp_create", io.simrdma.dat.DatReturnType.SUCCESS),
                false,
                "no connection request",
                ev::toString);
    }

    static long qualOf(M.Obj sp) {
        return sp instanceof M.Psp p ? p.qual : ((M.Rsp) sp).qual;
    }

    private void observeBind(Run run, M.Evd evd, RmrBindCompletionEvent b) {
        for (M.Ep ep : all(M.Ep.class)) {
            for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.orphans)) {
                for (M.Work w : q) {
                    if (w.kind == M.WorkKind.BIND && !w.done && w.cookie == b.userCookie()) {
                        matchWork(run, evd, ep, w, q, b.status(), -1, run.symOf(b.rmr()));
                        return;
                    }
                }
            }
        }
        unknownCompletion(run, evd, b.userCookie(), b.toString());
    }

    private void observeDto(Run run, M.Evd evd, DtoCompletionEvent d) {
        String sym = run.symOf(d.ep());
        M.Ep ep = get(sym);
        if (ep == null) {
            run.check(UNEXPECTED.rule("a completion names an EP of the consumer"), false, "a known EP", d::toString);
            return;
        }
        for (java.util.ArrayDeque<M.Work> q : List.of(ep.requests, ep.recvs, ep.orphans)) {
            for (M.Work w : q) {
                if (!w.done && w.kind != M.WorkKind.BIND && w.cookie == d.userCookie()) {
                    matchWork(run, evd, ep, w, q, d.status(), d.transferredLength(), null);
                    return;
                }
            }
        }
        if (ep.srq != null && Rules.srqBuffer(ep.srq, d.userCookie()) != null) {
            // an SRQ receive the EP took before dat_ep_reset is an orphan: dat_ep_reset says completions not yet
            // dequeued "may be lost", so they may also come; dat_srq_post_recv: every buffer an EP took is completed
            // to its recv_evd
            for (java.util.ArrayDeque<M.Work> q : List.of(ep.recvs, ep.orphans)) {
                for (M.Work w : q) {
                    if (w.done || w.srq == null || w.cookie != Long.MIN_VALUE) {
                        continue;
                    }
                    M.SrqBuf b = Rules.srqBuffer(ep.srq, d.userCookie());
                    ep.srq.posted.remove(b);
                    w.cookie = b.cookie();
                    w.segs = b.segs();
                    w.dest = Rules.memSegs(this, ep.srq.ia, b.segs());
                    if (ep.srq.raced.remove(b.cookie())) {
                        w.data = null;
                        w.raced = true;
                    }
                    if (b.length() < (w.peer != null ? w.peer.length : 0)) {
                        if (q == ep.orphans) {
                            // an orphan may also have been flushed
                            w.possible.remove(DtoCompletionStatus.SUCCESS);
                            w.possible.add(DtoCompletionStatus.ERR_LOCAL_LENGTH);
                        } else {
                            w.possible = EnumSet.of(DtoCompletionStatus.ERR_LOCAL_LENGTH);
                        }
                    }
                    matchWork(run, evd, ep, w, q, d.status(), d.transferredLength(), null);
                    return;
                }
            }
            if (ep.wild || evd.unreliable) {
                ep.srq.posted.remove(Rules.srqBuffer(ep.srq, d.userCookie()));
                run.note("SRQ completion " + d + " of an EP the model does not follow");
                return;
            }
        }
        unknownCompletion(run, evd, d.userCookie(), d.toString());
    }

    private void unknownCompletion(Run run, M.Evd evd, long cookie, String ev) {
        if (evd.unreliable) {
            run.note("completion " + ev + " on an EVD the model cannot follow");
            return;
        }
        for (M.Ep ep : all(M.Ep.class)) {
            if (ep.wild) {
                run.note("completion " + ev + " possibly of " + ep.sym + ", an EP the model does not follow");
                return;
            }
        }
        boolean seen = doneCookies.contains(cookie);
        run.check(
                UNEXPECTED
                        .rule(
                                seen
                                        ? "a completion is returned once (cookie " + cookie + " was already returned)"
                                        : "a completion carries the cookie of a posted DTO or bind (dat_ep_post_send: the user_cookie is "
                                                + "returned in the completion event)")
                        .and("dat_ep_post_send", io.simrdma.dat.DatReturnType.SUCCESS),
                false,
                seen ? "no second completion" : "a posted cookie",
                () -> ev);
    }

    final java.util.Set<Long> doneCookies = new java.util.HashSet<>();

    /**
     * A completion of work {@code w} was dequeued from {@code evd} with {@code status} (and
     * {@code length}, -1 for a bind): checks the EVD, the order within the stream, the status, the
     * length and the bytes moved.
     */
    private void matchWork(
            Run run,
            M.Evd evd,
            M.Ep ep,
            M.Work w,
            java.util.ArrayDeque<M.Work> q,
            DtoCompletionStatus status,
            long length,
            String rmrSym) {
        M.Evd target = w.request() ? ep.reqEvd : ep.recvEvd;
        if (q == ep.orphans && w.postedTo != null && evd == w.postedTo) {
            // work dat_ep_reset left unfinished: its completion, if not lost ("completions not yet dequeued may be
            // lost", dat_ep_reset), was queued on the EVD of its stream then; a later dat_ep_modify of the EP's
            // EVDs does not move it
            target = evd;
        }
        Check where = Check.ok(
                "dat_ep_create",
                w.request()
                        ? "completions of sends, RDMA and binds go to request_evd"
                        : "completions of receives go to recv_evd");
        if (!evd.unreliable && !ep.wild) {
            run.check(
                    where,
                    target == evd || target == null && w.certain,
                    target == null ? "no EVD" : target.sym,
                    () -> "dequeued from " + evd.sym);
        }
        boolean orphan = q == ep.orphans || w.apart;
        // Order within the stream: every earlier work must be done or able to complete silently.
        for (M.Work x : orphan ? List.<M.Work>of() : q) {
            if (x == w) {
                break;
            }
            if (!x.done && !x.apart) {
                if (x.maySilent() || ep.wild || evd.unreliable) {
                    x.done = true;
                    Rules.workCompleted(this, run, x, DtoCompletionStatus.SUCCESS, x.length, true);
                } else {
                    run.check(
                            STREAM_ORDER.rule("completions of one EP's " + (w.request() ? "requests" : "receives")
                                    + " come in posting order"),
                            false,
                            "the completion of " + x + " first",
                            () -> "cookie " + w.cookie);
                }
            }
        }
        if (rmrSym != null && w.rmr != null) {
            run.check(
                    Check.ok("dat_rmr_bind", "the bind completion names the RMR bound")
                            .rows("2.7#3"),
                    w.rmr.sym.equals(rmrSym),
                    w.rmr.sym,
                    () -> rmrSym);
        }
        if (!w.possible.contains(status) && status != DtoCompletionStatus.SUCCESS && !ep.pending.isEmpty()) {
            // the completion shows the EP left the connection: the pending step that ends it happened
            resolveTo(ep, EndpointState.DISCONNECTED);
        }
        boolean statusOk = w.possible.contains(status)
                || w.maybeBroken && status != DtoCompletionStatus.SUCCESS
                || ep.wild
                || evd.unreliable;
        run.check(w.check, statusOk, "status " + w.possible, () -> "status " + status);
        if ((w.request() ? ep.reqFailed : ep.recvFailed)
                && status == DtoCompletionStatus.SUCCESS
                && !ep.wild
                && !orphan) {
            run.check(
                    Check.ok(
                                    "dat_ep_disconnect",
                                    "once an in-progress DTO completes unsuccessfully, all follow-on "
                                            + "DTOs in the same direction complete unsuccessfully")
                            .rows("2.7#5"),
                    false,
                    "an error status",
                    () -> "SUCCESS for cookie " + w.cookie);
        }
        if (status != DtoCompletionStatus.SUCCESS && w.breakOnError && !orphan) {
            w.breakOnError = false;
            Rules.breakConnection(this, ep, Rules.peerOf(ep), "an RDMA transfer the peer refused");
        }
        if (status != DtoCompletionStatus.SUCCESS && !orphan) {
            if (w.request()) {
                ep.reqFailed = true;
            } else {
                ep.recvFailed = true;
            }
        }
        if (status == DtoCompletionStatus.SUCCESS
                && length >= 0
                && !(w.maybeBroken && w.kind == M.WorkKind.RECV && w.peer == null)) {
            long expect = Rules.expectedLength(w);
            Check lc = Check.ok(Rules.pageOf(w.kind), "a successful completion reports the bytes transferred");
            if (w.kind == M.WorkKind.RECV && w.peer == null) {
                // the model did not follow the Send this receive took (its sender's state was uncertain, or it
                // was not predicted): the message fits the receive, its length is otherwise unknown
                run.check(
                        lc.rule("a successful receive reports the bytes of a message that fits its buffer"),
                        length <= expect,
                        "at most " + expect + " bytes",
                        () -> length + " bytes");
            } else {
                run.check(lc, length == expect, expect + " bytes", () -> length + " bytes");
            }
        }
        w.done = true;
        doneCookies.add(w.cookie);
        q.remove(w);
        Rules.workCompleted(this, run, w, status, length, false);
    }
}
