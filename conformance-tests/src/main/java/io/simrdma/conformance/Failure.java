package io.simrdma.conformance;

import java.util.List;

/**
 * A disagreement between the provider and the man pages, as the suite found, shrank and replayed it.
 *
 * <p>Thread safety: immutable.
 *
 * @param seed          the seed whose sequence failed
 * @param mode          the fabric mode
 * @param profile       the fault profile
 * @param clauses       the clauses of the failed check
 * @param rule          the rule in words
 * @param choice        the recorded choice the check follows, or null
 * @param expected      what the pages allow
 * @param actual        what the provider did
 * @param actionsBefore the actions of the sequence up to the failure
 * @param actionsAfter  the actions of the shrunk sequence (equal to {@code actionsBefore} if not shrunk)
 * @param sequence      the shrunk sequence, one action a line
 * @param replayTest    the shrunk sequence as a JUnit test in plain DAT API calls
 * @param traceReplay   on the deterministic fabric: "identical (sha256 ...)" if replaying the shrunk sequence
 *                      gave a byte-identical fabric trace, a description of the difference otherwise, or
 *                      "not exposed" when the provider exposes no trace digest
 */
public record Failure(
        long seed,
        SuiteConfig.Mode mode,
        FaultProfile profile,
        List<String> clauses,
        String rule,
        String choice,
        String expected,
        String actual,
        int actionsBefore,
        int actionsAfter,
        List<String> sequence,
        String replayTest,
        String traceReplay) {

    public Failure {
        clauses = List.copyOf(clauses);
        sequence = List.copyOf(sequence);
    }

    /** One line: seed, clause, rule, expected and actual. */
    public String summary() {
        return "seed " + seed + " (" + mode + (profile == FaultProfile.NONE ? "" : ", " + profile) + "): "
                + String.join(", ", clauses) + ": " + rule + ": expected " + expected + ", got " + actual;
    }
}
