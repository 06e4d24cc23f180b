package io.simrdma.tools;

import io.simrdma.conformance.ConformanceSuite;
import io.simrdma.conformance.Failure;
import io.simrdma.conformance.FaultProfile;
import io.simrdma.conformance.SuiteConfig;
import io.simrdma.conformance.SuiteReport;
import io.simrdma.dat.DatConf;
import io.simrdma.dat.DatRegistry;
import io.simrdma.dat.spi.DatProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code simrdma conform}: runs the DAT 1.2 conformance suite ({@link ConformanceSuite}) against the provider
 * that serves an IA name, found through the DAT registry (sim-provider, or a provider jar given with
 * {@code --jar}), writes the traceability matrix and prints each failure as a shrunk, replayable JUnit test.
 */
@Command(
        name = "conform",
        mixinStandardHelpOptions = true,
        versionProvider = Simrdma.Version.class,
        sortOptions = false,
        description = {
            "Judges a DAT 1.2 provider against the man pages: runs seeded sequences of DAT calls on two or "
                    + "three IAs, checks every return code, state, event and transferred byte against a reference model, "
                    + "shrinks the first failure to a short sequence and prints it as a JUnit test.",
            "The IA name is a template: {ia} becomes the IA's index (0, 1, 2), {seed} the seed, {run} a number "
                    + "unique to each sequence, for example 'sim:c{run}/ia{ia}?seed={seed}'. A name without {ia} "
                    + "is opened once per IA."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every check held",
            "1:a check failed (the failure and its replay test are printed), or the provider could not be opened",
            "2:usage error: an unknown option or a bad value (the message names it)"
        })
final class ConformCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CliOutput.Verbosity verbosity;

    @Option(
            names = "--ia",
            required = true,
            paramLabel = "NAME",
            description = "IA name template of the provider under test")
    String ia;

    @Option(
            names = "--seeds",
            defaultValue = "100",
            paramLabel = "N",
            description = "sequences to run (default: ${DEFAULT-VALUE})")
    int seeds;

    @Option(
            names = "--actions",
            defaultValue = "200",
            paramLabel = "M",
            description = "actions per sequence (default: ${DEFAULT-VALUE})")
    int actions;

    @Option(
            names = "--profile",
            defaultValue = "none",
            paramLabel = "P",
            description =
                    "link fault profile (sim provider's IA-name options): none, loss1, loss10, loss30, duplicate, "
                            + "reorder, delay, flap, mixed (default: ${DEFAULT-VALUE})")
    String profile;

    @Option(names = "--seed", paramLabel = "S", description = "replay this one seed (with --actions as it ran)")
    Long seed;

    @Option(
            names = "--first-seed",
            defaultValue = "1",
            paramLabel = "S",
            description = "first seed of the run (default: ${DEFAULT-VALUE})")
    long firstSeed;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            description = "deterministic, threaded or tcp: how long the suite may wait "
                    + "(default: tcp for simtcp: names, threaded for mode=threaded, else deterministic)")
    String mode;

    @Option(
            names = "--strict",
            description = "fail outcomes that differ from the recorded choices where the pages are "
                    + "silent or conflict (by default they are reported as provider choices)")
    boolean strict;

    @Option(names = "--no-shrink", description = "report the failing sequence as it ran")
    boolean noShrink;

    @Option(
            names = "--report",
            defaultValue = "conformance-report",
            paramLabel = "DIR",
            description = "directory for matrix.csv, matrix.md and failures.md (default: ${DEFAULT-VALUE})")
    Path report;

    @Option(
            names = "--jar",
            paramLabel = "JAR",
            description = "a provider jar (with a META-INF/services entry for "
                    + "io.simrdma.dat.spi.DatProvider) to judge; repeatable")
    List<Path> jars = new ArrayList<>();

    @Option(names = "--json", description = "print the result as JSON")
    boolean json;

    @Option(names = "--no-progress", description = "no progress line on the error stream during long runs")
    boolean noProgress;

    @Override
    public Integer call() {
        if (seeds < 1 || actions < 0) {
            throw new ParameterException(spec.commandLine(), "--seeds must be at least 1 and --actions not negative");
        }
        FaultProfile p = profile();
        SuiteConfig.Mode m = mode();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean progress = !noProgress && !CliOutput.quiet() && !json;
        SuiteConfig.Builder b = SuiteConfig.builder(ia)
                .profile(p)
                .mode(m)
                .strict(strict)
                .shrink(!noShrink)
                .actions(actions)
                .reportDir(report)
                .registry(registry());
        if (seed != null) {
            b.firstSeed(seed).seeds(1);
        } else {
            b.firstSeed(firstSeed).seeds(seeds);
        }
        if (progress) {
            b.progress(line -> {
                err.print("\r" + line);
                err.flush();
            });
        }
        SuiteReport r = ConformanceSuite.run(b.build());
        if (progress) {
            err.print("\r");
            err.flush();
        }
        writeFailures(r);
        if (json) {
            out.println(json(r));
        } else {
            text(r, out);
        }
        out.flush();
        return r.passed() ? CliOutput.OK : CliOutput.FAILED;
    }

    private FaultProfile profile() {
        for (FaultProfile f : FaultProfile.values()) {
            if (f.name().equalsIgnoreCase(profile)) {
                return f;
            }
        }
        throw new ParameterException(
                spec.commandLine(),
                "unknown --profile '" + profile + "': one of none, loss1, "
                        + "loss10, loss30, duplicate, reorder, delay, flap, mixed");
    }

    private SuiteConfig.Mode mode() {
        if (mode == null) {
            if (ia.startsWith("simtcp:")) {
                return SuiteConfig.Mode.TCP;
            }
            return ia.contains("mode=threaded") ? SuiteConfig.Mode.THREADED : SuiteConfig.Mode.DETERMINISTIC;
        }
        try {
            return SuiteConfig.Mode.valueOf(mode.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(), "unknown --mode '" + mode + "': deterministic, threaded or tcp");
        }
    }

    /** The registry: the class path's providers, or those of the --jar files (with the class path's). */
    private DatRegistry registry() {
        if (jars.isEmpty()) {
            return DatRegistry.load();
        }
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            Path j = jars.get(i);
            if (!Files.isReadable(j)) {
                throw new ParameterException(spec.commandLine(), "--jar " + j + ": no such readable file");
            }
            try {
                urls[i] = j.toUri().toURL();
            } catch (MalformedURLException e) {
                throw new ParameterException(spec.commandLine(), "--jar " + j + ": " + e.getMessage());
            }
        }
        // The loader lives as long as the process: the provider's classes are used until the command ends.
        URLClassLoader loader = new URLClassLoader(urls, ConformCommand.class.getClassLoader());
        return DatRegistry.create(DatConf.locate(), ServiceLoader.load(DatProvider.class, loader));
    }

    private void writeFailures(SuiteReport r) {
        List<String> lines = new ArrayList<>();
        for (Failure f : r.failures()) {
            lines.add("## " + f.summary());
            lines.add("");
            lines.add("Shrunk from " + f.actionsBefore() + " to " + f.actionsAfter() + " actions; trace replay: "
                    + f.traceReplay());
            lines.add("");
            lines.add("```java");
            lines.add(f.replayTest());
            lines.add("```");
            lines.add("");
        }
        try {
            Files.createDirectories(report);
            Files.write(report.resolve("failures.md"), lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void text(SuiteReport r, PrintWriter out) {
        out.println(r.coverageLine());
        out.printf(
                Locale.ROOT,
                "%s: %d seeds, %d actions, %.1f s: %s%n",
                ia,
                r.seeds(),
                r.actions(),
                r.millis() / 1000.0,
                r.passed() ? "every check held" : r.failures().size() + " failing");
        for (Failure d : r.deviations()) {
            out.println("known deviation: " + d.summary());
        }
        for (Failure f : r.failures()) {
            out.println();
            out.println("FAILED " + f.summary());
            out.println("shrunk from " + f.actionsBefore() + " to " + f.actionsAfter() + " actions; trace replay: "
                    + f.traceReplay());
            out.println(f.replayTest());
        }
        out.println("matrix: " + report.resolve("matrix.md") + ", " + report.resolve("matrix.csv"));
        if (CliOutput.verbosity() > 0) {
            try {
                out.println(Files.readString(report.resolve("matrix.md")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static String json(SuiteReport r) {
        StringBuilder b = new StringBuilder("{");
        b.append("\"coverage\": ")
                .append(q(r.coverageLine()))
                .append(", \"seeds\": ")
                .append(r.seeds())
                .append(", \"actions\": ")
                .append(r.actions())
                .append(", \"millis\": ")
                .append(r.millis())
                .append(", \"passed\": ")
                .append(r.passed())
                .append(", \"failures\": [");
        failures(b, r.failures());
        b.append("], \"knownDeviations\": [");
        failures(b, r.deviations());
        return b.append("]}").toString();
    }

    private static void failures(StringBuilder b, List<Failure> fs) {
        for (int i = 0; i < fs.size(); i++) {
            Failure f = fs.get(i);
            b.append(i == 0 ? "" : ", ").append("{\"seed\": ").append(f.seed()).append(", \"clauses\": [");
            for (int c = 0; c < f.clauses().size(); c++) {
                b.append(c == 0 ? "" : ", ").append(q(f.clauses().get(c)));
            }
            b.append("], \"rule\": ")
                    .append(q(f.rule()))
                    .append(", \"expected\": ")
                    .append(q(f.expected()))
                    .append(", \"actual\": ")
                    .append(q(f.actual()))
                    .append(", \"actionsBefore\": ")
                    .append(f.actionsBefore())
                    .append(", \"actionsAfter\": ")
                    .append(f.actionsAfter())
                    .append(", \"traceReplay\": ")
                    .append(q(f.traceReplay()))
                    .append(", \"sequence\": [");
            for (int s = 0; s < f.sequence().size(); s++) {
                b.append(s == 0 ? "" : ", ").append(q(f.sequence().get(s)));
            }
            b.append("], \"replayTest\": ").append(q(f.replayTest())).append('}');
        }
    }

    /** A JSON string. */
    static String q(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
