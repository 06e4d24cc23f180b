package io.simrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proof that the suite finds bugs: each mutant provider ({@link Mutants}) breaks one rule of a man page and
 * must be killed, its failure shrunk and replayed, within the CI seed budget ({@code -Dconform.mutantSeeds},
 * default {@value #DEFAULT_SEEDS} seeds of {@value #ACTIONS} actions). Writes the kill table to
 * {@code target/conformance/mutants.md}.
 */
class MutantsTest {

    static final int DEFAULT_SEEDS = 200;
    static final int ACTIONS = 200;
    /**
     * The longest a shrunk kill may be: a transfer of bytes needs 14 calls (IA, PZ, LMR, EVD, service point, two EPs,
     * connect, the wait that takes the request, accept, a wait that lets the connection complete, the receive, the
     * send and the wait for its completion: dto-length-off-by-one). A mutant that breaks the second or third
     * completion needs no connection: a connect no one listens to ends in DISCONNECTED, where posts are flushed
     * (dto-completion-lost 11, dto-completion-duplicated 13).
     */
    static final int MAX_SHRUNK = 14;

    private static final Map<String, String> ROWS = new ConcurrentHashMap<>();

    static List<Mutants.Mutant> mutants() {
        return Mutants.all();
    }

    @ParameterizedTest(name = "{0}")
    @Timeout(value = 20, unit = TimeUnit.MINUTES) // a surviving mutant runs the whole seed budget
    @MethodSource("mutants")
    @DisplayName("a mutant provider that breaks one man-page rule fails the suite on a seed sim-provider passes, "
            + "shrunk to a short replayable sequence")
    void shouldKillMutantWhenItBreaksARule(Mutants.Mutant mutant) {
        int seeds = Integer.getInteger("conform.mutantSeeds", DEFAULT_SEEDS);
        Failure kill = null;
        for (long seed = 1; seed <= seeds && kill == null; seed++) {
            SuiteReport r = run(new MutantProvider(mutant.name(), mutant.mutation()), seed, false);
            if (r.failures().isEmpty()) {
                continue;
            }
            // the kill counts only where the provider without the mutation conforms on the same seed
            SuiteReport control = run(new MutantProvider("control", (t, m, a, p) -> p.run()), seed, false);
            if (!control.failures().isEmpty() || !control.deviations().isEmpty()) {
                continue;
            }
            SuiteReport shrunk = run(new MutantProvider(mutant.name(), mutant.mutation()), seed, true);
            assertFalse(shrunk.failures().isEmpty(), "seed " + seed + " fails again when run to be shrunk");
            kill = shrunk.failures().get(0);
        }
        if (kill == null) {
            ROWS.put(
                    mutant.name(),
                    "| " + mutant.name() + " | " + mutant.breaks() + " | **survived** " + seeds + " seeds | | | |");
        } else {
            ROWS.put(
                    mutant.name(),
                    "| " + mutant.name() + " | " + mutant.breaks() + " | " + kill.seed() + " | "
                            + kill.actionsBefore() + " | " + kill.actionsAfter() + " | "
                            + String.join(", ", kill.clauses())
                            + ": " + kill.rule().replace("|", "/") + " |");
        }
        assertNotNull(
                kill,
                "mutant " + mutant.name() + " (" + mutant.breaks() + ") survived " + seeds + " seeds of " + ACTIONS
                        + " actions");
        assertTrue(
                kill.actionsAfter() <= kill.actionsBefore(),
                "shrinking never lengthens: " + kill.actionsBefore() + " -> " + kill.actionsAfter());
        assertTrue(
                kill.actionsAfter() <= MAX_SHRUNK,
                "expected the kill of " + mutant.name() + " shrunk to at most " + MAX_SHRUNK + " actions, got "
                        + kill.actionsAfter() + ": " + kill.sequence());
    }

    private static SuiteReport run(MutantProvider provider, long seed, boolean shrink) {
        return ConformanceSuite.run(SuiteConfig.builder("sim:mut{run}/ia{ia}?seed={seed}")
                .registry(provider.registry())
                .firstSeed(seed)
                .seeds(1)
                .actions(ACTIONS)
                .shrink(shrink)
                .build());
    }

    @Test
    @DisplayName("the mutant harness itself changes nothing: wrapped without a mutation, sim-provider gives the same "
            + "verdict on every seed")
    void shouldGiveSameVerdictWhenTheWrapperChangesNothing() {
        for (long seed = 1; seed <= Integer.getInteger("conform.controlSeeds", 12); seed++) {
            SuiteReport wrapped = run(new MutantProvider("none", (t, m, a, p) -> p.run()), seed, false);
            SuiteReport plain = ConformanceSuite.run(SuiteConfig.builder("sim:mutplain{run}/ia{ia}?seed={seed}")
                    .firstSeed(seed)
                    .seeds(1)
                    .actions(ACTIONS)
                    .shrink(false)
                    .build());
            assertEquals(verdict(plain), verdict(wrapped), "seed " + seed + ": the wrapper changed the verdict");
        }
    }

    private static String verdict(SuiteReport r) {
        return r.failures().isEmpty()
                ? "pass"
                : r.failures().get(0).rule() + " after " + r.failures().get(0).actionsBefore();
    }

    @AfterAll
    static void writeKillTable() {
        List<String> lines = new ArrayList<>();
        lines.add("# Mutant kill table");
        lines.add("");
        lines.add("Each mutant delegates to sim-provider and breaks one rule; the suite ran up to "
                + Integer.getInteger("conform.mutantSeeds", DEFAULT_SEEDS) + " seeds of " + ACTIONS
                + " actions on the deterministic fabric, seed by seed, and stopped at the first seed that failed with "
                + "the mutant and passed without it (the harness unmutated), which it shrank.");
        lines.add("");
        lines.add("| mutant | rule broken | killing seed | actions before shrinking | after | failed check |");
        lines.add("|---|---|---|---|---|---|");
        for (Mutants.Mutant m : Mutants.all()) {
            String row = ROWS.get(m.name());
            if (row != null) {
                lines.add(row);
            }
        }
        try {
            Path dir = Path.of(System.getProperty("conform.reportDir", "target/conformance"));
            Files.createDirectories(dir);
            Files.write(dir.resolve("mutants.md"), lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
