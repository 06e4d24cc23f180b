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

    private ConformanceSuite() {}

    /** One generated (or replayed) sequence and its run. */
    record Outcome(List<Action> sequence, Run run, String traceDigest) {}

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
                config.progress()
                        .accept(String.format(
                                "conform: %d/%d seeds, %d actions, %d failing, %.0f s",
                                seeds, config.seeds(), actions, failures.size(), (System.nanoTime() - t0) / 1e9));
            }
        }
        SuiteReport report = new SuiteReport(
                config, failures, deviations, coverage, seeds, actions, (System.nanoTime() - t0) / 1_000_000, notes);
        if (config.reportDir() != null) {
            MatrixWriter.write(
                    coverage,
                    config.reportDir(),
                    "Provider " + config.iaTemplate() + ", " + config.mode()
                            + (config.profile() == FaultProfile.NONE ? "" : ", " + config.profile()) + ": " + seeds
                            + " seeds, "
                            + actions + " actions, " + failures.size() + " failing, " + deviations.size()
                            + " known deviations.");
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
        return new RunSettings(
                template, config.mode(), config.strict(), config.registryOrDefault(), config.registry() == null);
    }

    /** Number of IAs of a seed's sequence: two or three. */
    static int ias(long seed) {
        return Math.floorMod(seed * 0x5DEECE66DL, 3) == 0 ? 3 : 2;
    }

    /** Generates and runs the sequence of {@code seed}. */
    static Outcome generate(RunSettings settings, long seed, int actions) {
        Generator g = new Generator(seed, ias(seed), !settings.deterministic());
        List<Action> seq = java.util.Collections.synchronizedList(new ArrayList<>());
        Run run = new Run(settings, seed);
        return guarded(run, seq, hangMillis, () -> {
            String digest = null;
            try {
                int i = 0;
                for (Action a : g.prefix()) {
                    seq.add(a);
                    run.execute(a, i++);
                    if (run.failed()) {
                        return new Outcome(List.copyOf(seq), run, null);
                    }
                }
                for (int k = 0; k < actions; k++) {
                    Action a = g.next(run.model);
                    seq.add(a);
                    run.execute(a, i++);
                    if (run.failed()) {
                        return new Outcome(List.copyOf(seq), run, null);
                    }
                }
                Action d = new EvdActions.Drain();
                seq.add(d);
                run.execute(d, i++);
                if (run.failed()) {
                    return new Outcome(List.copyOf(seq), run, null);
                }
                digest = traceDigest(run);
                // the closing phase: calls a random walk reaches too rarely (see Closing)
                Closing closing = new Closing(settings.deterministic() && !FaultProfile.faulty(settings.iaTemplate()));
                for (Action a = closing.next(run.model); a != null; a = closing.next(run.model)) {
                    seq.add(a);
                    run.execute(a, i++);
                    if (run.failed()) {
                        return new Outcome(List.copyOf(seq), run, null);
                    }
                }
            } finally {
                run.closing = true;
                run.close();
            }
            return new Outcome(List.copyOf(seq), run, digest);
        });
    }

    /** Replays a fixed sequence. */
    static Outcome replay(RunSettings settings, long seed, List<Action> seq) {
        return replay(settings, seed, seq, hangMillis);
    }

    static Outcome replay(RunSettings settings, long seed, List<Action> seq, long hang) {
        Run run = new Run(settings, seed);
        return guarded(run, seq, hang, () -> {
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
                run.closing = true;
                run.close();
            }
            return new Outcome(seq, run, digest);
        });
    }

    /** How long one sequence may run before the suite calls the provider hung (-Dconform.hangMillis). */
    static long hangMillis = Long.getLong("conform.hangMillis", 120_000);

    /** The rule a sequence that never ends fails. */
    static final String HANG_RULE = "a DAT call returns (a wait within its timeout): the provider does not hang";

    /**
     * Runs {@code body} on a thread of its own and waits at most {@code hang} ms. A sequence that does not
     * end by then fails on the action it was in (or on dat_ia_close while closing): its thread is
     * interrupted and, if that does not end it, stopped, since a provider looping on the deterministic
     * fabric would otherwise hold a core for the rest of the suite.
     */
    static Outcome guarded(Run run, List<Action> seq, long hang, java.util.concurrent.Callable<Outcome> body) {
        Outcome[] out = new Outcome[1];
        Throwable[] thrown = new Throwable[1];
        Thread t = new Thread(
                () -> {
                    try {
                        out[0] = body.call();
                    } catch (Throwable e) {
                        thrown[0] = e;
                    }
                },
                "conform-seed-" + run.seed);
        t.setDaemon(true);
        t.start();
        try {
            t.join(hang);
            if (t.isAlive()) {
                StackTraceElement[] stack = t.getStackTrace();
                t.interrupt();
                t.join(2_000);
                if (t.isAlive()) {
                    stop(t);
                    t.join(2_000);
                }
                int at = Math.max(0, run.closing ? seq.size() - 1 : run.index);
                StringBuilder where = new StringBuilder();
                for (int i = 0; i < Math.min(12, stack.length); i++) {
                    where.append(i == 0 ? "" : " < ").append(stack[i]);
                }
                Check c = Check.ok(
                        run.closing
                                ? "dat_ia_close"
                                : seq.get(Math.min(at, seq.size() - 1)).page(),
                        HANG_RULE);
                run.failure = new Mismatch(c, "a return within " + hang + " ms", "still running in " + where);
                run.failedAt = at;
                run.ran.set(at);
                run.transcript.add("// FAILS: " + HANG_RULE + " (still running after " + hang + " ms)");
                return new Outcome(List.copyOf(seq.subList(0, Math.min(seq.size(), at + 1))), run, null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a seed ran", e);
        }
        if (thrown[0] instanceof RuntimeException r) {
            throw r;
        }
        if (thrown[0] instanceof Error err) {
            throw err;
        }
        if (thrown[0] != null) {
            throw new IllegalStateException(thrown[0]);
        }
        return out[0];
    }

    /** Thread.stop where the JDK still has it (17 does); a later JDK leaves the thread running. */
    private static void stop(Thread t) {
        try {
            Thread.class.getMethod("stop").invoke(t);
        } catch (ReflectiveOperationException | UnsupportedOperationException e) {
            // cannot stop it: the daemon thread is abandoned
        }
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
            RunSettings traced = settings(
                    config, config.template() + (config.template().contains("?") ? "&" : "?") + "traceDigest=true");
            long hang = Shrinker.hangFor(signature(best.run));
            Outcome a = replay(traced, seed, best.sequence, hang);
            Outcome b = replay(traced, seed, best.sequence, hang);
            String da = a.run.failed() ? traceDigestAtFailure(a) : a.traceDigest;
            String db = b.run.failed() ? traceDigestAtFailure(b) : b.traceDigest;
            if (da == null) {
                trace = "not exposed by the provider";
            } else {
                trace = da.equals(db) && signatureEquals(a, b)
                        ? "identical (sha256 " + da + ")"
                        : "differs: " + da + " vs " + db;
            }
        }
        List<String> seq = new ArrayList<>();
        for (Action a : best.sequence) {
            seq.add(a.toString());
        }
        return new Failure(
                seed,
                config.mode(),
                config.profile(),
                m.check.clauses(),
                m.check.rule(),
                m.check.choice(),
                m.expected,
                m.actual,
                o.sequence.size(),
                best.sequence.size(),
                seq,
                JavaReplay.render(best.run, config, seed),
                trace);
    }

    private static boolean signatureEquals(Outcome a, Outcome b) {
        return java.util.Objects.equals(signature(a.run), signature(b.run));
    }

    private static String traceDigestAtFailure(Outcome o) {
        return o.traceDigest;
    }
}
