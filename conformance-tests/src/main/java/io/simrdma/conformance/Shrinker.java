package io.simrdma.conformance;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Shrinks a failing sequence to a minimal one that fails the same way (same clause and rule): drops
 * chunks of actions, largest first, down to single actions (an action whose objects are gone is skipped,
 * so dropping a creation drops what uses it, and dropping an IA's opening means fewer IAs); merges two
 * objects of a kind into one (every use of the later one names the earlier one and its creation goes:
 * fewer PZs, EVDs, LMRs, IAs); then simplifies arguments (shorter transfers, fewer segments, no private
 * data, no flags); and repeats all of it until a whole pass changes nothing (a fixpoint) or the budget
 * of replays is spent. Each candidate is replayed from scratch with the same seed, so the result replays
 * exactly.
 *
 * <p>Thread safety: stateless.
 */
final class Shrinker {

    /** Most replays one shrink may spend. */
    static final int BUDGET = 600;

    private Shrinker() {}

    static ConformanceSuite.Outcome shrink(RunSettings settings, long seed, ConformanceSuite.Outcome failing) {
        String sig = ConformanceSuite.signature(failing.run());
        boolean hang = sig.contains(ConformanceSuite.HANG_RULE);
        int[] budget = {hang ? 40 : BUDGET};
        State s = new State(settings, seed, sig, budget);
        s.best = new ArrayList<>(failing.sequence().subList(0, failing.run().failedAt + 1));
        s.bestOutcome = failing;
        s.dropSkipped();
        boolean progress = true;
        while (progress && budget[0] > 0) {
            progress = dropChunks(s);
            progress |= mergeObjects(s);
            progress |= simplify(s);
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

        /** Replays {@code cand}; keeps it (trimmed after the failing action) if it fails the same way. */
        boolean tryCandidate(List<Action> cand) {
            if (budget[0] <= 0) {
                return false;
            }
            ConformanceSuite.Outcome o = attempt(settings, seed, cand, sig, budget);
            if (o == null) {
                return false;
            }
            best = trim(cand, o);
            bestOutcome = o;
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
                    best = trim(executed, o);
                    bestOutcome = o;
                }
            }
        }
    }

    /** Drops chunks of actions, halving the chunk size down to one action; true if any drop held. */
    private static boolean dropChunks(State s) {
        boolean progress = false;
        for (int chunk = Math.max(1, s.best.size() / 2); chunk >= 1 && s.budget[0] > 0; chunk /= 2) {
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
            for (Action a : s.best.get(i).simpler()) {
                List<Action> cand = new ArrayList<>(s.best);
                cand.set(i, a);
                if (s.tryCandidate(cand)) {
                    progress = true;
                    break;
                }
            }
        }
        return progress;
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
