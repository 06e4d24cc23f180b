package io.simrdma.conformance;

import java.util.List;

/**
 * The outcome of a conformance run: the failures (each shrunk and replayable), the coverage of the
 * clauses, what ran and how long it took.
 *
 * <p>Thread safety: immutable apart from the {@link Coverage}, which the caller must not change.
 *
 * @param config   the run's configuration
 * @param failures the failing seeds, shrunk (at most {@link SuiteConfig#stopAfter()})
 * @param deviations the first seed of each known deviation that showed, shrunk
 * @param coverage every check that ran, by clause
 * @param seeds    seeds run
 * @param actions  actions executed (skipped ones excluded)
 * @param millis   wall-clock duration
 * @param notes    alternatives to recorded choices and relaxed checks seen (a sample)
 */
public record SuiteReport(
        SuiteConfig config,
        List<Failure> failures,
        List<Failure> deviations,
        Coverage coverage,
        int seeds,
        long actions,
        long millis,
        List<String> notes) {

    public SuiteReport {
        failures = List.copyOf(failures);
        deviations = List.copyOf(deviations);
        notes = List.copyOf(notes);
    }

    /** The coverage line of the matrix. */
    public String coverageLine() {
        return MatrixWriter.coverageLine(coverage);
    }

    /** Whether every check held. */
    public boolean passed() {
        return failures.isEmpty();
    }
}
