package io.simrdma.conformance;

import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdParams;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.Timeout;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Actions on Event Dispatchers: create, query, free, CNO, enable/disable, waitable, resize, software
 * events, and the observations (dequeue, wait) that check the events the model allows; letting time
 * pass; the final drain.
 */
final class EvdActions {

    private EvdActions() {}

    record EvdCreate(String ia, String sym, int qlen, String cno, Set<EvdFlag> flags) implements Action {
        @Override
        public void run(Run r) {
            M.Ia m = r.model.need(ia);
            M.Cno mc = cno == null ? null : r.model.need(cno);
            InterfaceAdapter h = r.live(ia);
            ConsumerNotificationObject hc = cno == null ? null : r.live(cno);
            Object v = r.call(
                    Rules.evdCreate(r.model, m, qlen, mc, flags),
                    "EventDispatcher " + sym,
                    ia + ".createEvd(" + qlen + ", " + cno + ", " + Java.flags(EvdFlag.class, flags) + ")",
                    () -> h.createEvd(qlen, hc, flags));
            if (v instanceof EventDispatcher evd) {
                M.Evd e = r.model.add(new M.Evd(sym, m, flags, qlen, false));
                e.cno = mc;
                if (mc != null) {
                    mc.fed = true;
                }
                r.bind(sym, evd);
                EvdParams q = evd.query();
                r.transcript.add("// " + sym + ".query().qlen() == " + q.qlen());
                r.check(
                        Check.ok("dat_evd_query", "dat_evd_create makes a queue of at least evd_min_qlen entries"),
                        q.qlen() >= qlen,
                        ">= " + qlen,
                        () -> Integer.toString(q.qlen()));
                e.qlen = q.qlen();
            }
        }

        @Override
        public String page() {
            return "dat_evd_query";
        }
    }

    record EvdQuery(String evd) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            Object v = r.call(Rules.evdQuery(m), null, evd + ".query()", h::query);
            if (v instanceof EvdParams q) {
                Check c = Check.ok(
                        "dat_evd_query",
                        "returns the queue length, the enabled and waitable states, the CNO " + "and the streams");
                boolean ok = q.qlen() >= m.minQlen
                        && (m.qlen < 0 || q.qlen() == m.qlen || m.qlen < m.minQlen)
                        && q.flags().equals(m.flags)
                        && q.isEnabled() == m.enabled
                        && q.isWaitable() == m.waitable
                        && q.cno().map(r::symOf).orElse(null) == (m.cno == null ? null : m.cno.sym)
                        && q.ia() == r.live(m.ia.sym);
                r.check(
                        c,
                        ok,
                        "qlen >= " + m.minQlen + ", flags " + m.flags + ", enabled " + m.enabled + ", waitable "
                                + m.waitable + ", cno " + m.cno,
                        q::toString);
                m.qlen = q.qlen();
            }
        }

        @Override
        public String page() {
            return "dat_evd_query";
        }
    }

    record EvdFree(String evd) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            r.call(Rules.evdFree(r.model, m), null, evd + ".free()", () -> {
                h.free();
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_evd_free";
        }
    }

    record EvdModifyCno(String evd, String cno) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            M.Cno mc = cno == null ? null : r.model.need(cno);
            EventDispatcher h = r.live(evd);
            ConsumerNotificationObject hc = cno == null ? null : r.live(cno);
            r.call(Rules.evdModifyCno(m, mc), null, evd + ".modifyCno(" + cno + ")", () -> {
                h.modifyCno(hc);
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_evd_modify_cno";
        }
    }

    /** The four state switches of an EVD. */
    enum Switch {
        ENABLE("dat_evd_enable", "enable"),
        DISABLE("dat_evd_disable", "disable"),
        SET_UNWAITABLE("dat_evd_set_unwaitable", "setUnwaitable"),
        CLEAR_UNWAITABLE("dat_evd_clear_unwaitable", "clearUnwaitable");

        final String page;
        final String method;

        Switch(String page, String method) {
            this.page = page;
            this.method = method;
        }
    }

    record EvdSwitch(String evd, Switch op) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            Expect e = Rules.evdSimple(
                    m,
                    op.page,
                    switch (op) {
                        case ENABLE -> "the EVD is enabled (a no-op if it was)";
                        case DISABLE -> "the EVD is disabled (a no-op if it was)";
                        case SET_UNWAITABLE -> "the EVD is unwaitable";
                        case CLEAR_UNWAITABLE -> "the EVD is waitable again";
                    },
                    () -> {
                        switch (op) {
                            case ENABLE -> m.enabled = true;
                            case DISABLE -> m.enabled = false;
                            case SET_UNWAITABLE -> m.waitable = false;
                            case CLEAR_UNWAITABLE -> m.waitable = true;
                        }
                    });
            r.call(e, null, evd + "." + op.method + "()", () -> {
                switch (op) {
                    case ENABLE -> h.enable();
                    case DISABLE -> h.disable();
                    case SET_UNWAITABLE -> h.setUnwaitable();
                    case CLEAR_UNWAITABLE -> h.clearUnwaitable();
                }
                return null;
            });
        }

        @Override
        public String page() {
            return op.page;
        }
    }

    record EvdResize(String evd, int qlen) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            r.call(Rules.evdResize(r.model, m, qlen), null, evd + ".resize(" + qlen + ")", () -> {
                h.resize(qlen);
                return null;
            });
        }

        @Override
        public String page() {
            return "dat_evd_resize";
        }
    }

    record EvdPostSe(String evd, int n) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            String pointer = "se-" + n;
            r.call(
                    Rules.evdPostSe(r.model, m, pointer),
                    null,
                    evd + ".postSoftwareEvent(" + Java.str(pointer) + ")",
                    () -> {
                        h.postSoftwareEvent(pointer);
                        return null;
                    });
        }

        @Override
        public String page() {
            return "dat_evd_post_se";
        }
    }

    /** dat_evd_dequeue: an event must be one the model allows; an empty queue only if none has certainly arrived. */
    record EvdDequeue(String evd) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            Model.Count before = r.model.count(m);
            String var = r.var("ev");
            Object v = r.call(Rules.evdDequeue(m), "Optional<DatEvent> " + var, evd + ".dequeue()", h::dequeue);
            if (v instanceof Optional<?> o) {
                if (o.isPresent()) {
                    r.eventExpr = var + ".orElseThrow()";
                    r.model.observe(r, m, (DatEvent) o.get());
                } else if (!m.unreliable) {
                    r.check(
                            Check.ret(
                                            "dat_evd_dequeue",
                                            DatReturnType.QUEUE_EMPTY,
                                            "DAT_QUEUE_EMPTY only when no event " + "is queued")
                                    .rows("4.1#7"),
                            before.certain() == 0,
                            before.certain() + " queued event(s)",
                            () -> "an empty queue");
                } else {
                    r.pass(Check.ret(
                                    "dat_evd_dequeue",
                                    DatReturnType.QUEUE_EMPTY,
                                    "DAT_QUEUE_EMPTY only when no event is " + "queued")
                            .rows("4.1#7"));
                }
            }
        }

        @Override
        public String page() {
            return "dat_evd_dequeue";
        }
    }

    /**
     * dat_evd_wait with {@code threshold}: a long timeout when the model is certain of enough events
     * (the wait must return one), a short one otherwise (an event or a timeout).
     */
    record EvdWait(String evd, int threshold, boolean longWait, boolean nullTimeout) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            long ms = longWait ? r.settings.longWaitMillis() : r.settings.shortWaitMillis();
            Timeout t = nullTimeout ? null : Timeout.ofMillis(ms);
            Model.Count before = r.model.count(m);
            String var = r.var("w");
            r.eventExpr = var + ".event().orElseThrow()";
            Object v = r.call(
                    Rules.evdWait(r.model, m, threshold, nullTimeout),
                    "EvdWaitResult " + var,
                    evd + ".waitForEvent(" + (nullTimeout ? "null" : "Timeout.ofMillis(" + ms + ")") + ", " + threshold
                            + ")",
                    () -> h.waitForEvent(t, threshold));
            if (v instanceof EvdWaitResult w) {
                waited(r, m, w, threshold, longWait, before);
            }
        }

        @Override
        public String page() {
            return "dat_evd_wait";
        }
    }

    /** Checks the result of a wait: the event, nmore, and whether a timeout was allowed. */
    static void waited(Run r, M.Evd m, EvdWaitResult w, int threshold, boolean longWait, Model.Count before) {
        String p = "dat_evd_wait";
        if (w.event().isPresent()) {
            r.model.observe(r, m, w.event().get());
            r.check(
                    Check.ok(p, "on success nmore is at least threshold - 1"),
                    w.nmore() >= threshold - 1,
                    ">= " + (threshold - 1),
                    () -> Integer.toString(w.nmore()));
            if (!m.unreliable) {
                Model.Count after = r.model.count(m);
                r.check(
                        Check.ok(p, "nmore counts the events left on the queue"),
                        w.nmore() <= after.possible(),
                        "<= " + after.possible(),
                        () -> Integer.toString(w.nmore()));
            }
            return;
        }
        Check to = Check.ret(
                        p,
                        DatReturnType.TIMEOUT_EXPIRED,
                        "a timeout with fewer than threshold events queued; nmore " + "is the number queued")
                .rows("4.1#5");
        if (m.unreliable) {
            r.pass(to);
            return;
        }
        int certain = before.certain() + (longWait ? before.certainToCome() : 0);
        r.check(
                to,
                certain < threshold,
                "an event (" + certain + " certain: " + describe(r, m) + ")",
                () -> "DAT_TIMEOUT_EXPIRED, nmore " + w.nmore());
        r.check(
                to,
                w.nmore() < threshold && w.nmore() >= before.certain(),
                "nmore in " + before.certain() + ".." + (threshold - 1),
                () -> Integer.toString(w.nmore()));
    }

    static String describe(Run r, M.Evd m) {
        StringBuilder sb = new StringBuilder();
        if (!m.software.isEmpty()) {
            sb.append(m.software.size()).append(" software event(s) ");
        }
        for (M.Ep ep : r.model.all(M.Ep.class)) {
            if (ep.connEvd == m && (!ep.arrived.isEmpty() || !ep.pending.isEmpty())) {
                sb.append(ep.sym)
                        .append(" connection ")
                        .append(
                                ep.arrived.isEmpty()
                                        ? ""
                                        : "arrived " + ep.arrived.peek().number() + " ");
                for (M.Slot sl : ep.pending) {
                    sb.append(sl.certain ? "certain " : "maybe ")
                            .append(sl.viable())
                            .append(' ');
                }
            }
            for (M.Work w : ep.requests) {
                if (!w.done && ep.reqEvd == m && w.certain) {
                    sb.append(w).append(' ');
                }
            }
            for (M.Work w : ep.recvs) {
                if (!w.done && ep.recvEvd == m && w.certain) {
                    sb.append(w).append(' ');
                }
            }
        }
        for (var l : r.model.arrivals.values()) {
            for (M.Arrival a : l) {
                if (a.evd == m && a.certain) {
                    sb.append("request to ").append(a.sp).append(' ');
                }
            }
        }
        for (M.AsyncExp a : m.async) {
            if (a.certain) {
                sb.append(a.reason).append(" of ").append(a.handle).append(' ');
            }
        }
        return sb.toString().trim();
    }

    /** dat_evd_wait by a thread whose interrupt status is set: DAT_INTERRUPTED_CALL, the status set again. */
    record EvdWaitInterrupted(String evd) implements Action {
        @Override
        public void run(Run r) {
            M.Evd m = r.model.need(evd);
            EventDispatcher h = r.live(evd);
            Expect base = Rules.evdWait(r.model, m, 1, false);
            if (base.onlyErrors()) {
                r.call(
                        base,
                        null,
                        evd + ".waitForEvent(Timeout.ofMillis(1), 1)",
                        () -> h.waitForEvent(Timeout.ofMillis(1), 1));
                return;
            }
            Check ic = Check.ret(
                    "dat_evd_wait",
                    DatReturnType.INTERRUPTED_CALL,
                    "a wait of an interrupted thread returns "
                            + "DAT_INTERRUPTED_CALL and sets the interrupt status again (provider-api)");
            Expect e = new Expect().orErr(DatReturnType.INTERRUPTED_CALL, ic);
            Model.Count before = r.model.count(m);
            if (before.possible() > 0) {
                e.orOk(
                        Check.ok("dat_evd_wait", "a wait of an interrupted thread may return an event already queued"),
                        null);
            }
            r.transcript.add("Thread.currentThread().interrupt();");
            Thread.currentThread().interrupt();
            Object v;
            boolean still;
            String var = r.var("w");
            r.eventExpr = var + ".event().orElseThrow()";
            try {
                v = r.call(
                        e,
                        "EvdWaitResult " + var,
                        evd + ".waitForEvent(Timeout.ofMillis(1), 1)",
                        () -> h.waitForEvent(Timeout.ofMillis(1), 1));
            } finally {
                still = Thread.interrupted();
            }
            r.transcript.add("assertTrue(Thread.interrupted());");
            if (v == Run.FAILED) {
                r.check(ic, still, "the interrupt status set", () -> "cleared");
            } else if (v instanceof EvdWaitResult w) {
                waited(r, m, w, 1, false, before);
            }
        }

        @Override
        public String page() {
            return "dat_evd_wait";
        }
    }

    /** Lets time pass: a wait on the IA's software EVD (the clock), which no event ever reaches. */
    record Settle(long ms) implements Action {
        @Override
        public void run(Run r) {
            M.Evd clock = null;
            for (M.Ia ia : r.model.ias) {
                if (ia.live() && ia.clock != null && ia.clock.live() && ia.clock.waitable) {
                    clock = ia.clock;
                    break;
                }
            }
            if (clock == null) {
                throw Skip.INSTANCE;
            }
            long t = r.settings.settleMillis(ms);
            EventDispatcher h = r.live(clock.sym);
            Expect e = Expect.ok(Check.ok("dat_evd_wait", "an EVD no event reaches times out")
                    .rows("4.1#5"));
            Object v = r.call(
                    e,
                    null,
                    clock.sym + ".waitForEvent(Timeout.ofMillis(" + t + "), 1)",
                    () -> h.waitForEvent(Timeout.ofMillis(t), 1));
            if (v instanceof EvdWaitResult w) {
                r.check(
                        Check.ret(
                                        "dat_evd_wait",
                                        DatReturnType.TIMEOUT_EXPIRED,
                                        "a wait on an EVD no event reaches " + "times out")
                                .rows("4.1#5"),
                        w.isTimedOut() && w.nmore() == 0,
                        "DAT_TIMEOUT_EXPIRED, nmore 0",
                        w::toString);
            }
        }

        @Override
        public String page() {
            return "dat_evd_wait";
        }

        /** A wait of 1 ms first: what a longer one lets happen often needs no more (a reply, a rejection). */
        @Override
        public List<Action> simpler() {
            return ms > 1 ? List.of(new Settle(1)) : List.of();
        }
    }

    /**
     * The end of a sequence: every event the model is certain of must come (a long wait on each EVD
     * that has one), then every EVD is emptied and each event it still holds must be one the model
     * allows.
     */
    record Drain() implements Action {
        @Override
        public void run(Run r) {
            for (int round = 0; round < 64; round++) {
                M.Evd target = null;
                for (M.Evd m : r.model.all(M.Evd.class)) {
                    if (m.live() && !m.unreliable && r.model.eventCertain(m)) {
                        target = m;
                        break;
                    }
                }
                if (target == null) {
                    break;
                }
                if (target.waitable) {
                    new EvdWait(target.sym, 1, true, false).run(r);
                } else {
                    new Settle(100).run(r);
                    new EvdDequeue(target.sym).run(r);
                }
            }
            new Settle(10).run(r);
            for (M.Evd m : r.model.all(M.Evd.class)) {
                for (int i = 0; i < 256 && m.live(); i++) {
                    int before = r.transcript.size();
                    EventDispatcher h = r.live(m.sym);
                    Optional<DatEvent> ev;
                    try {
                        ev = h.dequeue();
                    } catch (io.simrdma.dat.DatException e) {
                        break;
                    }
                    String var = r.var("ev");
                    r.transcript.add("Optional<DatEvent> " + var + " = " + m.sym + ".dequeue();");
                    r.eventExpr = var + ".orElseThrow()";
                    if (ev.isEmpty()) {
                        while (r.transcript.size() > before) {
                            r.transcript.remove(r.transcript.size() - 1);
                        }
                        break;
                    }
                    r.model.observe(r, m, ev.get());
                }
            }
        }

        @Override
        public String page() {
            return "dat_evd_dequeue";
        }
    }
}
