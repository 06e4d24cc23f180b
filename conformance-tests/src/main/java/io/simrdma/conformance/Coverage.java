package io.simrdma.conformance;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which checks ran against which clauses, and how often each passed and failed: the content of the
 * traceability matrix. One per suite run; runs of several seeds {@link #merge merge} theirs.
 *
 * <p>Thread safety: not thread-safe; each seed's run has its own, merged by one thread.
 */
public final class Coverage {

    /** Counts of one check (a rule) under one clause. */
    public static final class Tally {
        long passed;
        long failed;
        String choice;

        /** How often the check held. */
        public long passed() {
            return passed;
        }

        /** How often it did not. */
        public long failed() {
            return failed;
        }

        /** The recorded choice the check follows, or null. */
        public String choice() {
            return choice;
        }
    }

    private final Map<String, Map<String, Tally>> byClause = new TreeMap<>();

    /** Records one evaluation of {@code check}. */
    void record(Check check, boolean passed) {
        for (String clause : check.clauses()) {
            Tally t = byClause.computeIfAbsent(clause, k -> new LinkedHashMap<>())
                    .computeIfAbsent(check.rule(), k -> new Tally());
            if (passed) {
                t.passed++;
            } else {
                t.failed++;
            }
            if (check.choice() != null) {
                t.choice = check.choice();
            }
        }
    }

    /** Adds {@code other}'s counts to this one's. */
    public void merge(Coverage other) {
        for (Map.Entry<String, Map<String, Tally>> e : other.byClause.entrySet()) {
            Map<String, Tally> mine = byClause.computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>());
            for (Map.Entry<String, Tally> r : e.getValue().entrySet()) {
                Tally t = mine.computeIfAbsent(r.getKey(), k -> new Tally());
                t.passed += r.getValue().passed;
                t.failed += r.getValue().failed;
                if (r.getValue().choice != null) {
                    t.choice = r.getValue().choice;
                }
            }
        }
    }

    /** The checks (rule to tally) that ran against {@code clauseId}; empty if none did. */
    public Map<String, Tally> checks(String clauseId) {
        Map<String, Tally> m = byClause.get(clauseId);
        return m == null ? Map.of() : Collections.unmodifiableMap(m);
    }

    /** Whether any check ran against {@code clauseId}. */
    public boolean covered(String clauseId) {
        return byClause.containsKey(clauseId);
    }
}
