package io.simrdma.conformance;

import java.util.ArrayList;
import java.util.List;

/**
 * Shrinks a failing sequence to a minimal one that fails the same way (same clause and rule): drops
 * chunks of actions, then single actions (an action whose objects are gone is skipped, so dropping
 * a creation drops what uses it, and dropping an IA's opening means fewer IAs), then simplifies
 * arguments (shorter transfers, fewer segments, no private data, no flags), and repeats while any
 * step helps. Each candidate is replayed from scratch with the same seed.
 *
 * <p>Thread safety: stateless.
 */
final class Shrinker {

    /** Most replays one shrink may spend. */
    static final int BUDGET = 600;

    private Shrinker() {}

    static ConformanceSuite.Outcome shrink(RunSettings settings, long seed, ConformanceSuite.Outcome failing) {
        String sig = ConformanceSuite.signature(failing.run());
        List<Action> best = new ArrayList<>(failing.sequence().subList(0, failing.run().failedAt + 1));
        ConformanceSuite.Outcome bestOutcome = failing;
        boolean hang = sig.contains(ConformanceSuite.HANG_RULE);
        int[] budget = {hang ? 40 : BUDGET};
        boolean progress = true;
        while (progress && budget[0] > 0) {
            progress = false;
            // drop chunks, largest first
            for (int chunk = Math.max(1, best.size() / 2); chunk >= 1 && budget[0] > 0; chunk /= 2) {
                for (int start = best.size() - chunk; start >= 0 && budget[0] > 0; start -= chunk) {
                    if (start >= best.size()) {
                        // an earlier success cut the sequence at its (earlier) failure: nothing there to drop
                        continue;
                    }
                    List<Action> cand = new ArrayList<>(best);
                    cand.subList(start, Math.min(cand.size(), start + chunk)).clear();
                    ConformanceSuite.Outcome o = attempt(settings, seed, cand, sig, budget);
                    if (o != null) {
                        best = trim(cand, o);
                        bestOutcome = o;
                        progress = true;
                    }
                }
            }
            // simplify arguments
            for (int i = 0; i < best.size() && budget[0] > 0; i++) {
                for (Action s : best.get(i).simpler()) {
                    List<Action> cand = new ArrayList<>(best);
                    cand.set(i, s);
                    ConformanceSuite.Outcome o = attempt(settings, seed, cand, sig, budget);
                    if (o != null) {
                        best = trim(cand, o);
                        bestOutcome = o;
                        progress = true;
                        break;
                    }
                }
            }
        }
        // drop the actions the final run skipped: they do nothing
        List<Action> executed = new ArrayList<>();
        for (int i = 0; i < best.size(); i++) {
            if (bestOutcome.run().ran.get(i)) {
                executed.add(best.get(i));
            }
        }
        if (executed.size() < best.size()) {
            ConformanceSuite.Outcome o = ConformanceSuite.replay(settings, seed, executed, hangFor(sig));
            if (sig.equals(ConformanceSuite.signature(o.run()))) {
                return o;
            }
        }
        return bestOutcome;
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
