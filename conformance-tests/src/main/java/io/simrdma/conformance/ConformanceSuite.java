package io.simrdma.conformance;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.NamedAttribute;

import java.util.ArrayList;
import java.util.List;

/**
 * The conformance suite: runs seeded action sequences against the provider the IA name template
 * names (found through the DAT registry), checks every call, event, state and byte against the
 * reference model, shrinks the first failure to a minimal sequence, replays it (on the deterministic
 * fabric, checking the fabric trace is byte-identical where the provider exposes its digest) and
 * prints it as a JUnit test.
 *
 * <pre>{@code
 * SuiteReport r = ConformanceSuite.run(SuiteConfig.builder("sim:conform{run}/ia{ia}?seed={seed}").seeds(100).build());
 * }</pre>
 *
 * <p>Thread safety: each call runs on the caller's thread; concurrent calls must use distinct IA names.
 */
public final class ConformanceSuite {

    /** The suffix of the provider-specific attribute a provider may expose its fabric trace digest in. */
    public static final String TRACE_ATTRIBUTE_SUFFIX = "trace.sha256";

    private ConformanceSuite() {
    }

    /** One generated (or replayed) sequence and its run. */
    record Outcome(List<Action> sequence, Run run, String traceDigest) {
    }

    /** Runs the configured seeds. */
    public static SuiteReport run(SuiteConfig config) {
        long t0 = System.nanoTime();
        RunSettings settings = settings(config, config.template());
        Coverage coverage = new Coverage();
        List<Failure> failures = new ArrayList<>();
        List<Failure> deviations = new ArrayList<>();
        java.util.Set<String> deviationsSeen = new java.util.HashSet<>();
        List<String> notes = new ArrayList<>();
        long actions = 0;
        int seeds = 0;
        long lastProgress = System.nanoTime();
        for (int i = 0; i < config.seeds(); i++) {
            long seed = config.firstSeed() + i;
            Outcome o = generate(settings, seed, config.actions());
            seeds++;
            actions += o.run.executed;
            coverage.merge(o.run.coverage);
            if (notes.size() < 40) {
                for (String n : o.run.notes) {
                    if (notes.size() < 40) {
                        notes.add("seed " + seed + " " + n);
                    }
                }
            }
            if (o.run.failed()) {
                String known = knownDeviation(config, o.run.failure);
                if (known != null) {
                    if (deviationsSeen.add(known)) {
                        deviations.add(failure(config, settings, seed, o));
                    }
                } else {
                    failures.add(failure(config, settings, seed, o));
                    if (failures.size() >= config.stopAfter()) {
                        break;
                    }
                }
            }
            if (config.progress() != null && System.nanoTime() - lastProgress > 2_000_000_000L) {
                lastProgress = System.nanoTime();
                config.progress().accept(String.format("conform: %d/%d seeds, %d actions, %d failing, %.0f s", seeds,
                        config.seeds(), actions, failures.size(), (System.nanoTime() - t0) / 1e9));
            }
        }
        SuiteReport report = new SuiteReport(config, failures, deviations, coverage, seeds, actions,
                (System.nanoTime() - t0) / 1_000_000, notes);
        if (config.reportDir() != null) {
            MatrixWriter.write(coverage, config.reportDir(), "Provider " + config.iaTemplate() + ", " + config.mode()
                    + (config.profile() == FaultProfile.NONE ? "" : ", " + config.profile()) + ": " + seeds + " seeds, "
                    + actions + " actions, " + failures.size() + " failing, " + deviations.size() + " known deviations.");
        }
        return report;
    }

    /** The known deviation a failure is, or null. */
    static String knownDeviation(SuiteConfig config, Mismatch m) {
        for (String key : config.knownDeviations().keySet()) {
            if (m.check.rule().startsWith(key)) {
                return key;
            }
        }
        return null;
    }

    static RunSettings settings(SuiteConfig config, String template) {
        return new RunSettings(template, config.mode(), config.strict(), config.registryOrDefault(),
                config.registry() == null);
    }

    /** Number of IAs of a seed's sequence: two or three. */
    static int ias(long seed) {
        return Math.floorMod(seed * 0x5DEECE66DL, 3) == 0 ? 3 : 2;
    }

    /** Generates and runs the sequence of {@code seed}. */
    static Outcome generate(RunSettings settings, long seed, int actions) {
        Generator g = new Generator(seed, ias(seed), !settings.deterministic());
        List<Action> seq = new ArrayList<>();
        Run run = new Run(settings, seed);
        String digest = null;
        try {
            int i = 0;
            for (Action a : g.prefix()) {
                seq.add(a);
                run.execute(a, i++);
                if (run.failed()) {
                    return new Outcome(seq, run, null);
                }
            }
            for (int k = 0; k < actions; k++) {
                Action a = g.next(run.model);
                seq.add(a);
                run.execute(a, i++);
                if (run.failed()) {
                    return new Outcome(seq, run, null);
                }
            }
            Action d = new EvdActions.Drain();
            seq.add(d);
            run.execute(d, i);
            digest = traceDigest(run);
        } finally {
            run.close();
        }
        return new Outcome(seq, run, digest);
    }

    /** Replays a fixed sequence. */
    static Outcome replay(RunSettings settings, long seed, List<Action> seq) {
        Run run = new Run(settings, seed);
        String digest = null;
        try {
            for (int i = 0; i < seq.size(); i++) {
                run.execute(seq.get(i), i);
                if (run.failed()) {
                    break;
                }
            }
            digest = traceDigest(run);
        } finally {
            run.close();
        }
        return new Outcome(seq, run, digest);
    }

    /** The provider's fabric trace digest, if it exposes one through a provider-specific attribute. */
    static String traceDigest(Run run) {
        for (M.Ia ia : run.model.ias) {
            if (!ia.live()) {
                continue;
            }
            try {
                InterfaceAdapter h = run.live(ia.sym);
                for (NamedAttribute a : h.query().providerAttributes().providerSpecificAttributes()) {
                    if (a.name().endsWith(TRACE_ATTRIBUTE_SUFFIX)) {
                        return a.value();
                    }
                }
                return null;
            } catch (RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /** The signature a shrunk sequence must keep failing with: the clause and the rule. */
    static String signature(Run run) {
        return run.failure == null ? null : run.failure.check.primary() + " | " + run.failure.check.rule();
    }

    static Failure failure(SuiteConfig config, RunSettings settings, long seed, Outcome o) {
        Outcome best = o;
        if (config.shrink()) {
            best = Shrinker.shrink(settings, seed, o);
        }
        Mismatch m = best.run.failure;
        String trace = "not checked (threaded fabric)";
        if (settings.deterministic()) {
            RunSettings traced = settings(config, config.template() + (config.template().contains("?") ? "&" : "?")
                    + "traceDigest=true");
            Outcome a = replay(traced, seed, best.sequence);
            Outcome b = replay(traced, seed, best.sequence);
            String da = a.run.failed() ? traceDigestAtFailure(a) : a.traceDigest;
            String db = b.run.failed() ? traceDigestAtFailure(b) : b.traceDigest;
            if (da == null) {
                trace = "not exposed by the provider";
            } else {
                trace = da.equals(db) && signatureEquals(a, b) ? "identical (sha256 " + da + ")"
                        : "differs: " + da + " vs " + db;
            }
        }
        List<String> seq = new ArrayList<>();
        for (Action a : best.sequence) {
            seq.add(a.toString());
        }
        return new Failure(seed, config.mode(), config.profile(), m.check.clauses(), m.check.rule(), m.check.choice(),
                m.expected, m.actual, o.sequence.size(), best.sequence.size(), seq,
                JavaReplay.render(best.run, config, seed), trace);
    }

    private static boolean signatureEquals(Outcome a, Outcome b) {
        return java.util.Objects.equals(signature(a.run), signature(b.run));
    }

    private static String traceDigestAtFailure(Outcome o) {
        return o.traceDigest;
    }
}
