package io.simrdma.conformance;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Shrinks a failing sequence to a minimal one that fails the same way (same clause and rule). Each pass
 * drops chunks of actions, largest first, down to single actions (delta debugging); drops one object at a
 * time, latest first (its creation goes; every action that names it is then skipped and dropped, and
 * dropping an IA's opening means fewer IAs); merges two objects of a kind into one (every use of the later one
 * names the earlier one and its creation goes: fewer PZs, EVDs, LMRs, IAs); then simplifies each action's
 * arguments until none simplifies further (shorter transfers at offset 0, fewer segments down to none, no private
 * data, no flags, optional references such as an EP's SRQ or an EVD's CNO dropped, an EVD's flags made full so
 * that two EVDs can merge) and puts stand-ins in place of actions that need fewer objects (a wait that only lets
 * time pass becomes a wait on the IA's clock, of 1 ms where that holds; a reference names an earlier object of its kind, or for an EVD the
 * IA's async EVD, so the later object may go). While the sequence is longer than {@link #SHORT}, two steps that
 * take a second change to hold follow a replacement that failed alone: the replacement with one of the next
 * observations (dequeue, wait) dropped, where it moved or dropped a reference (an EP without its connect EVD: the
 * dequeue of the connection event goes too), and an action replaced by a copy of its neighbour (a third post like the
 * two around it, where the failure needs three completions of one stream and the sequence has two and a post of
 * another kind: then what only the replaced post needed, a connection, can go). Passes repeat until one changes nothing (a fixpoint) or the budget
 * of replays is spent; a pass that shortened nothing is followed by one that drops single actions and pairs only,
 * and while the sequence is longer than {@link #SHORT}, a pass that changed nothing at all by one that drops two
 * actions at a time (a post and the dequeue of its completion), after which the single passes run again. No
 * candidate is replayed twice. Each candidate is replayed from scratch with the same seed, so the result
 * replays exactly.
 *
 * <p>Thread safety: stateless.
 */
final class Shrinker {

    /** Most replays one shrink may spend. */
    static final int BUDGET = 600;

    /** A sequence this short is not worth dropping pairs from (the issue asks for about 10 actions or fewer). */
    static final int SHORT = 10;

    private Shrinker() {}

    static ConformanceSuite.Outcome shrink(RunSettings settings, long seed, ConformanceSuite.Outcome failing) {
        String sig = ConformanceSuite.signature(failing.run());
        boolean hang = sig.contains(ConformanceSuite.HANG_RULE);
        int[] budget = {hang ? 40 : BUDGET};
        State s = new State(settings, seed, sig, budget);
        s.keep(failing.sequence(), failing);
        s.tried.add(s.best.toString());
        s.dropSkipped();
        boolean progress = true;
        int maxChunk = Integer.MAX_VALUE;
        while (progress && budget[0] > 0) {
            int before = s.best.size();
            // a quarter of the sequence or more at a time first: while the sequence is long, a replay is dear and a
            // large drop often holds; then objects (which may change the scenario: a connect to no listener), then
            // chunks down to single actions
            progress = dropChunks(s, maxChunk, Math.max(1, s.best.size() / 4));
            progress |= dropObjects(s);
            progress |= dropChunks(s, maxChunk, 1);
            progress |= mergeObjects(s);
            progress |= simplify(s);
            if (!progress && s.best.size() > SHORT) {
                // nothing single holds any more: two actions that only make sense together (a post and the dequeue
                // of its completion, a send and the receive it fills) go as a pair
                progress = dropPairs(s);
            }
            // a pass that only simplified arguments or merged objects enables single drops, rarely large ones
            maxChunk = s.best.size() < before ? Integer.MAX_VALUE : 2;
        }
        s.dropSkipped();
        return s.bestOutcome;
    }

    /** The shrink in progress: the shortest failing sequence so far and its run. */
    private static final class State {
        final RunSettings settings;
        final long seed;
        final String sig;
        final int[] budget;
        List<Action> best;
        ConformanceSuite.Outcome bestOutcome;

        State(RunSettings settings, long seed, String sig, int[] budget) {
            this.settings = settings;
            this.seed = seed;
            this.sig = sig;
            this.budget = budget;
        }

        /**
         * The candidates replayed so far (their actions' text): none is replayed twice, so a pass that finds
         * nothing new costs nothing, and two variants that undo each other cannot loop.
         */
        final java.util.Set<String> tried = new java.util.HashSet<>();

        /** Replays {@code cand}; keeps it (trimmed after the failing action) if it fails the same way. */
        boolean tryCandidate(List<Action> cand) {
            if (budget[0] <= 0 || !tried.add(cand.toString())) {
                return false;
            }
            ConformanceSuite.Outcome o = attempt(settings, seed, cand, sig, budget);
            if (o == null) {
                return false;
            }
            keep(cand, o);
            return true;
        }

        /** Drops the actions the last run skipped (their objects were gone: they did nothing), if that replays alike. */
        void dropSkipped() {
            List<Action> executed = new ArrayList<>();
            for (int i = 0; i < best.size(); i++) {
                if (bestOutcome.run().ran.get(i)) {
                    executed.add(best.get(i));
                }
            }
            if (executed.size() < best.size()) {
                ConformanceSuite.Outcome o = ConformanceSuite.replay(settings, seed, executed, hangFor(sig));
                if (sig.equals(ConformanceSuite.signature(o.run()))) {
                    keep(executed, o);
                }
            }
        }

        /**
         * Keeps {@code cand}, which failed the same way in {@code o}, without the actions after the failing one (the
         * replay stopped there): the outcome returned names only the actions that ran up to the failure.
         */
        void keep(List<Action> cand, ConformanceSuite.Outcome o) {
            best = trim(cand, o);
            bestOutcome = new ConformanceSuite.Outcome(List.copyOf(best), o.run(), o.traceDigest());
        }
    }

    /**
     * Drops one object at a time, the latest first, with every action that names it (they are skipped in the
     * replay, then dropped): one replay per object, where the chunks of {@link #dropChunks} would need many
     * for actions spread over the sequence. True if any drop held.
     */
    private static boolean dropObjects(State s) {
        boolean progress = false;
        List<Map.Entry<String, Integer>> created =
                new ArrayList<>(createdSymbols(s.best).entrySet());
        for (int j = created.size() - 1; j >= 0 && s.budget[0] > 0; j--) {
            String sym = created.get(j).getKey();
            int at = s.best.indexOf(creation(s.best, sym));
            if (at < 0 || at == s.best.size() - 1) {
                continue;
            }
            List<Action> cand = new ArrayList<>(s.best);
            cand.remove(at);
            if (s.tryCandidate(cand)) {
                progress = true;
                s.dropSkipped();
            }
        }
        return progress;
    }

    /**
     * Drops two actions at a time (never the failing last one, never a creation: {@link #dropObjects} drops those
     * with their uses), the pair nearest the end first; true if a drop held (then the passes of single drops run
     * again before more pairs).
     */
    private static boolean dropPairs(State s) {
        int last = s.best.size() - 1;
        for (int j = last - 1; j > 0 && s.budget[0] > 0; j--) {
            if (createdSymbol(s.best.get(j)) != null) {
                continue;
            }
            for (int i = j - 1; i >= 0 && s.budget[0] > 0; i--) {
                if (createdSymbol(s.best.get(i)) != null) {
                    continue;
                }
                List<Action> cand = new ArrayList<>(s.best);
                cand.remove(j);
                cand.remove(i);
                if (s.tryCandidate(cand)) {
                    s.dropSkipped();
                    return true;
                }
            }
        }
        return false;
    }

    /** The action of {@code actions} that creates {@code sym}, or null. */
    private static Action creation(List<Action> actions, String sym) {
        for (Action a : actions) {
            if (sym.equals(createdSymbol(a))) {
                return a;
            }
        }
        return null;
    }

    /** Drops chunks of actions, halving the chunk size down to {@code minChunk} actions; true if any drop held. */
    private static boolean dropChunks(State s, int maxChunk, int minChunk) {
        boolean progress = false;
        for (int chunk = Math.max(1, Math.min(maxChunk, s.best.size() / 2));
                chunk >= minChunk && s.budget[0] > 0;
                chunk /= 2) {
            for (int start = s.best.size() - chunk; start >= 0 && s.budget[0] > 0; start -= chunk) {
                if (start >= s.best.size()) {
                    continue;
                }
                List<Action> cand = new ArrayList<>(s.best);
                cand.subList(start, Math.min(cand.size(), start + chunk)).clear();
                if (s.tryCandidate(cand)) {
                    progress = true;
                    s.dropSkipped();
                }
            }
        }
        return progress;
    }

    /**
     * Merges objects: for two objects of one kind (the same symbol prefix: pz, evd, lmr, ep, ...; IAs too), the
     * later one's creation is dropped and every action that names it names the earlier one instead. True if a
     * merge held.
     */
    private static boolean mergeObjects(State s) {
        boolean progress = false;
        boolean merged = true;
        while (merged && s.budget[0] > 0) {
            merged = false;
            Map<String, Integer> created = createdSymbols(s.best);
            List<String> syms = new ArrayList<>(created.keySet());
            outer:
            for (int j = syms.size() - 1; j > 0; j--) {
                String later = syms.get(j);
                for (int i = 0; i < j; i++) {
                    String earlier = syms.get(i);
                    if (!kind(earlier).equals(kind(later)) || s.budget[0] <= 0) {
                        continue;
                    }
                    List<Action> cand = new ArrayList<>(s.best.size());
                    for (int k = 0; k < s.best.size(); k++) {
                        if (k != created.get(later)) {
                            cand.add((Action) rename(s.best.get(k), later, earlier));
                        }
                    }
                    if (s.tryCandidate(cand)) {
                        progress = true;
                        merged = true;
                        s.dropSkipped();
                        break outer;
                    }
                }
            }
        }
        return progress;
    }

    /** Replaces one argument at a time by a simpler one; true if any replacement held. */
    private static boolean simplify(State s) {
        boolean progress = false;
        for (int i = 0; i < s.best.size() && s.budget[0] > 0; i++) {
            // each action down to its simplest form before the next (a shorter transfer may be halved again)
            boolean again = true;
            while (again && i < s.best.size()) {
                again = false;
                List<Action> vs = new ArrayList<>(variants(s.best.get(i)));
                for (Action a : standIns(s.best.get(i), earlierSymbols(s.best, i))) {
                    if (!vs.contains(a)) {
                        vs.add(a);
                    }
                }
                for (Action a : vs) {
                    List<Action> cand = new ArrayList<>(s.best);
                    cand.set(i, a);
                    if (s.tryCandidate(cand)) {
                        progress = true;
                        again = true;
                        break;
                    }
                }
                // two steps that need a second change to hold, taken only while the sequence is longer than SHORT
                if (!again && i < s.best.size() - 1 && s.best.size() > SHORT) {
                    again = replaceAndDropObservation(s, i, vs) || copyNeighbour(s, i);
                    progress |= again;
                }
            }
        }
        return progress;
    }

    /** How many later observations {@link #replaceAndDropObservation} tries to drop with one replacement. */
    static final int OBSERVATIONS_TRIED = 2;

    /**
     * A replacement that moves or drops a reference (an EP without its connect EVD, a wait on the clock for one on an
     * EVD) stops a stream of events to the object it named, and the next observation of that object (a dequeue, a
     * wait) then takes another event than it did: the replacement of action {@code i} is tried with each of the next
     * {@link #OBSERVATIONS_TRIED} observations of that object dropped. True if one held (one action fewer).
     */
    private static boolean replaceAndDropObservation(State s, int i, List<Action> vs) {
        Action old = s.best.get(i);
        for (Action a : vs) {
            List<String> gone = referencesMoved(old, a);
            int tried = 0;
            for (int j = i + 1;
                    !gone.isEmpty() && j < s.best.size() - 1 && tried < OBSERVATIONS_TRIED && s.budget[0] > 0;
                    j++) {
                if (!gone.contains(observed(s.best.get(j)))) {
                    continue;
                }
                tried++;
                List<Action> cand = new ArrayList<>(s.best);
                cand.set(i, a);
                cand.remove(j);
                if (s.tryCandidate(cand)) {
                    s.dropSkipped();
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Replaces action {@code i} by a copy of the action before or after it on the same object (a third post on an EP
     * like the two around it, where the failure needs three completions of one stream and the sequence has two and a
     * post of another kind): the sequence then has one distinct action fewer, and a later pass may drop what only the
     * replaced action needed (there, the connection). Taken only where action {@code i} occurs once and creates
     * nothing. True if a copy held.
     */
    private static boolean copyNeighbour(State s, int i) {
        Action old = s.best.get(i);
        Object on = target(old);
        if (on == null || createdSymbol(old) != null || java.util.Collections.frequency(s.best, old) > 1) {
            return false;
        }
        for (int j : new int[] {i - 1, i + 1}) {
            if (j < 0 || j >= s.best.size() - 1 || s.budget[0] <= 0) {
                continue;
            }
            Action copy = s.best.get(j);
            if (createdSymbol(copy) != null || copy.equals(old) || !on.equals(target(copy))) {
                continue;
            }
            List<Action> cand = new ArrayList<>(s.best);
            cand.set(i, copy);
            if (s.tryCandidate(cand)) {
                return true;
            }
        }
        return false;
    }

    /** The object a call acts on: a record action's first component, or null. */
    private static Object target(Action a) {
        RecordComponent[] cs = a.getClass().getRecordComponents();
        return cs == null || cs.length == 0 ? null : value(cs[0], a);
    }

    /** The EVD or CNO an action takes an event from or waits on (a wait on the clock names none), or null. */
    private static String observed(Action a) {
        if (a instanceof EvdActions.EvdDequeue d) {
            return d.evd();
        }
        if (a instanceof EvdActions.EvdWait w) {
            return w.evd();
        }
        return a instanceof IaActions.CnoWait c ? c.cno() : null;
    }

    /**
     * The objects {@code a} names and its replacement {@code b} no longer names in the same place (a reference dropped
     * or moved); for a wait replaced by a wait on the clock, the EVD or CNO it waited on.
     */
    private static List<String> referencesMoved(Action a, Action b) {
        List<String> out = new ArrayList<>(2);
        if (a.getClass() != b.getClass()) {
            if (b instanceof EvdActions.Settle && observed(a) != null) {
                out.add(observed(a));
            }
            return out;
        }
        if (!a.getClass().isRecord()) {
            return out;
        }
        for (RecordComponent c : a.getClass().getRecordComponents()) {
            if (value(c, a) instanceof String x && !x.equals(value(c, b))) {
                out.add(x);
            }
        }
        return out;
    }

    /**
     * The simpler variants of {@code a}: its own {@link Action#simpler()}, then, for a record, one variant per
     * argument after the first (the object the call acts on) and other than the symbol it creates: a reference
     * to another object or an optional value dropped (null: an EP without an SRQ, an EVD without a CNO, default
     * attributes), a flag set emptied, an EVD's flags made full (an EVD of every kind of event can stand for two, so
     * that merging them holds), a boolean option turned off.
     */
    static List<Action> variants(Action a) {
        List<Action> out = new ArrayList<>(a.simpler());
        if (!a.getClass().isRecord()) {
            return out;
        }
        RecordComponent[] cs = a.getClass().getRecordComponents();
        Object[] args = values(cs, a);
        Class<?>[] types = types(cs);
        for (int i = 1; i < cs.length; i++) {
            Object v = args[i];
            if (v == null || cs[i].getName().equals("sym") || cs[i].getName().equals("ia")) {
                continue;
            }
            List<Object> simpler = new ArrayList<>(2);
            if (v instanceof String || (v.getClass().isRecord() && !(v instanceof Action))) {
                simpler.add(null);
            } else if (v instanceof java.util.Set<?> set && enumOf(cs[i]) != null) {
                if (!set.isEmpty()) {
                    simpler.add(java.util.EnumSet.noneOf(enumOf(cs[i])));
                }
                if (!set.isEmpty()
                        && set.size() < enumOf(cs[i]).getEnumConstants().length
                        && (Class<?>) enumOf(cs[i]) == io.simrdma.dat.EvdFlag.class) {
                    simpler.add(java.util.EnumSet.allOf(enumOf(cs[i])));
                }
            } else if (v instanceof Boolean b && b) {
                simpler.add(Boolean.FALSE);
            }
            for (Object w : simpler) {
                Object[] copy = args.clone();
                copy[i] = w;
                Action b = construct(a, types, copy);
                if (b != null && !b.equals(a) && !out.contains(b)) {
                    out.add(b);
                }
            }
        }
        return out;
    }

    /**
     * Stand-ins for {@code a} that need fewer objects: a wait (dat_evd_wait, dat_cno_wait) that only lets time pass
     * replaced by a wait on the IA's clock (so the CNO or EVD it names may go), and each reference to an object
     * replaced by one to an object of the same kind created earlier in {@code earlier} (so that the later one may
     * go, or two streams of events meet on one EVD); for an EVD, the IA's async EVD too. References only ever move
     * to earlier objects, so two stand-ins never undo each other.
     */
    static List<Action> standIns(Action a, List<String> earlier) {
        List<Action> out = new ArrayList<>();
        if (a instanceof EvdActions.EvdWait || a instanceof IaActions.CnoWait) {
            out.add(new EvdActions.Settle(1));
        }
        if (!a.getClass().isRecord()) {
            return out;
        }
        RecordComponent[] cs = a.getClass().getRecordComponents();
        Object[] args = values(cs, a);
        Class<?>[] types = types(cs);
        for (int i = 0; i < cs.length; i++) {
            if (!(args[i] instanceof String v)
                    || cs[i].getName().equals("sym")
                    || cs[i].getName().equals("ia")) {
                continue;
            }
            int at = earlier.indexOf(v);
            for (int k = 0; k < at; k++) {
                String e = earlier.get(k);
                // the IA's async EVD can stand for an EVD only where any EVD may be named (a dequeue, a wait, a query)
                boolean async = kind(e).equals("async")
                        && kind(v).equals("evd")
                        && cs[i].getName().equals("evd");
                if (kind(e).equals(kind(v)) || async) {
                    Object[] copy = args.clone();
                    copy[i] = e;
                    Action b = construct(a, types, copy);
                    if (b != null && !b.equals(a) && !out.contains(b)) {
                        out.add(b);
                    }
                }
            }
        }
        return out;
    }

    /**
     * The symbols the actions before {@code i} create, in order; an IA's opening names the IA and its async EVD
     * (async&lt;k&gt;, which the provider creates with it).
     */
    static List<String> earlierSymbols(List<Action> actions, int i) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < i && k < actions.size(); k++) {
            String sym = createdSymbol(actions.get(k));
            if (sym != null && !out.contains(sym)) {
                out.add(sym);
                if (actions.get(k) instanceof IaActions.IaOpen open) {
                    out.add("async" + open.k());
                }
            }
        }
        return out;
    }

    /** The enum type of a {@code Set<E extends Enum>} component, or null. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<Enum> enumOf(RecordComponent c) {
        if (c.getGenericType() instanceof java.lang.reflect.ParameterizedType pt
                && pt.getActualTypeArguments()[0] instanceof Class<?> e
                && e.isEnum()) {
            return (Class<Enum>) e;
        }
        return null;
    }

    private static Action construct(Action a, Class<?>[] types, Object[] args) {
        try {
            Constructor<?> ctor = a.getClass().getDeclaredConstructor(types);
            ctor.setAccessible(true);
            return (Action) ctor.newInstance(args);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // a compact constructor that refuses the value: no such variant
            return null;
        }
    }

    /** The symbols the actions create (a {@code sym} component; IaOpen's {@code k} as ia<k>), by creating index. */
    static Map<String, Integer> createdSymbols(List<Action> actions) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < actions.size(); i++) {
            String sym = createdSymbol(actions.get(i));
            if (sym != null && !out.containsKey(sym)) {
                out.put(sym, i);
            }
        }
        return out;
    }

    private static String createdSymbol(Action a) {
        if (!a.getClass().isRecord()) {
            return null;
        }
        for (RecordComponent c : a.getClass().getRecordComponents()) {
            Object v = value(c, a);
            if (c.getName().equals("sym") && v instanceof String str) {
                return str;
            }
            if (a instanceof IaActions.IaOpen && c.getName().equals("k") && v instanceof Integer k) {
                return "ia" + k;
            }
        }
        return null;
    }

    /** A symbol's kind: its letters before the first digit (pz, evd, lmr, ep, ia, ...). */
    static String kind(String sym) {
        int i = 0;
        while (i < sym.length() && !Character.isDigit(sym.charAt(i))) {
            i++;
        }
        return sym.substring(0, i);
    }

    /**
     * {@code v} with every string component equal to {@code from} (in records, nested records and lists) replaced by
     * {@code to}; a value without one is returned as it is.
     */
    static Object rename(Object v, String from, String to) {
        if (v instanceof String str) {
            return str.equals(from) ? to : str;
        }
        if (v instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            boolean changed = false;
            for (Object e : list) {
                Object r = rename(e, from, to);
                changed |= r != e;
                out.add(r);
            }
            return changed ? out : v;
        }
        if (v == null || !v.getClass().isRecord()) {
            return v;
        }
        RecordComponent[] cs = v.getClass().getRecordComponents();
        Object[] args = new Object[cs.length];
        Class<?>[] types = new Class<?>[cs.length];
        boolean changed = false;
        for (int i = 0; i < cs.length; i++) {
            Object old = value(cs[i], v);
            args[i] = rename(old, from, to);
            changed |= args[i] != old;
            types[i] = cs[i].getType();
        }
        if (!changed) {
            return v;
        }
        try {
            Constructor<?> ctor = v.getClass().getDeclaredConstructor(types);
            ctor.setAccessible(true);
            return ctor.newInstance(args);
        } catch (ReflectiveOperationException e) {
            return v;
        }
    }

    /** The values of {@code record}'s components {@code cs}, in order. */
    private static Object[] values(RecordComponent[] cs, Object record) {
        Object[] args = new Object[cs.length];
        for (int i = 0; i < cs.length; i++) {
            args[i] = value(cs[i], record);
        }
        return args;
    }

    /** The types of the components {@code cs}, in order (a canonical constructor's parameter types). */
    private static Class<?>[] types(RecordComponent[] cs) {
        Class<?>[] types = new Class<?>[cs.length];
        for (int i = 0; i < cs.length; i++) {
            types[i] = cs[i].getType();
        }
        return types;
    }

    private static Object value(RecordComponent c, Object record) {
        try {
            c.getAccessor().setAccessible(true);
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c.getName() + " of " + record, e);
        }
    }

    /** A sequence that hung is replayed with a shorter patience: it hangs again or ends soon. */
    static long hangFor(String sig) {
        return sig != null && sig.contains(ConformanceSuite.HANG_RULE)
                ? Math.min(ConformanceSuite.hangMillis, 15_000)
                : ConformanceSuite.hangMillis;
    }

    private static List<Action> trim(List<Action> cand, ConformanceSuite.Outcome o) {
        return new ArrayList<>(cand.subList(0, Math.min(cand.size(), o.run().failedAt + 1)));
    }

    private static ConformanceSuite.Outcome attempt(
            RunSettings settings, long seed, List<Action> cand, String sig, int[] budget) {
        budget[0]--;
        ConformanceSuite.Outcome o = ConformanceSuite.replay(settings, seed, cand, hangFor(sig));
        return sig.equals(ConformanceSuite.signature(o.run())) ? o : null;
    }
}
