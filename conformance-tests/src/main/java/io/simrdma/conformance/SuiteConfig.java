package io.simrdma.conformance;

import io.simrdma.dat.Dat;
import io.simrdma.dat.DatRegistry;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a conformance run does: which provider (an IA name template looked up in a DAT registry),
 * how many seeds of how many actions, on which fabric mode and fault profile, whether alternatives
 * to the recorded choices fail, and where the report goes. Build with {@link #builder(String)}.
 *
 * <p>The IA name is a template: {@code {ia}} becomes the IA's index (0, 1, 2), {@code {seed}} the seed
 * and {@code {run}} a number unique to each run, so that each run gets fresh IAs; a template without
 * {@code {ia}} opens the same name for every IA (a provider whose every dat_ia_open gives another
 * IA). A fault profile appends its IA-name options.
 *
 * <p>Thread safety: immutable.
 *
 * @param iaTemplate the IA name template
 * @param firstSeed  the first seed
 * @param seeds      how many seeds (one sequence each)
 * @param actions    actions per sequence (after the IAs are opened)
 * @param mode       the fabric mode the IA names select (bounds real-time waits)
 * @param profile    the fault profile
 * @param strict     outcomes the pages allow beside a recorded choice fail (as for sim-provider)
 * @param shrink     shrink the first failure to a minimal sequence
 * @param stopAfter  stop after this many failing seeds
 * @param registry   the registry to find the provider in
 * @param reportDir  where to write the matrix, or null
 * @param progress   receives a progress line now and then, or null
 * @param knownDeviations the provider's known deviations: a failed check whose rule starts with a key is
 *                   reported as that deviation (the value says why it is known and where it is tracked)
 *                   and does not fail the run; the seed's sequence ends there
 */
public record SuiteConfig(
        String iaTemplate,
        long firstSeed,
        int seeds,
        int actions,
        Mode mode,
        FaultProfile profile,
        boolean strict,
        boolean shrink,
        int stopAfter,
        DatRegistry registry,
        Path reportDir,
        Consumer<String> progress,
        java.util.Map<String, String> knownDeviations) {

    /** The fabric the IA names select: what the engine may wait on, and for how long. */
    public enum Mode {
        /** Virtual time driven by the waiting thread: a seed replays exactly. */
        DETERMINISTIC,
        /** Real time, a thread per device. */
        THREADED,
        /** TCP nodes on loopback. */
        TCP
    }

    public SuiteConfig {
        Objects.requireNonNull(iaTemplate, "iaTemplate");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(profile, "profile");
        if (seeds < 1 || actions < 0 || stopAfter < 1) {
            throw new IllegalArgumentException("seeds must be positive, actions not negative");
        }
        knownDeviations = knownDeviations == null ? java.util.Map.of() : java.util.Map.copyOf(knownDeviations);
    }

    /** A configuration for {@code iaTemplate}: 100 seeds of 200 actions, deterministic, no faults, strict. */
    public static Builder builder(String iaTemplate) {
        return new Builder(iaTemplate);
    }

    /** The registry to use: the given one or {@link Dat#registry()}. */
    DatRegistry registryOrDefault() {
        return registry != null ? registry : Dat.registry();
    }

    /** The IA name template with the fault profile's options. */
    String template() {
        return profile.apply(iaTemplate);
    }

    /** Builds a {@link SuiteConfig}. Not thread-safe. */
    public static final class Builder {
        private final String iaTemplate;
        private long firstSeed = 1;
        private int seeds = 100;
        private int actions = 200;
        private Mode mode = Mode.DETERMINISTIC;
        private FaultProfile profile = FaultProfile.NONE;
        private boolean strict = true;
        private boolean shrink = true;
        private int stopAfter = 1;
        private DatRegistry registry;
        private Path reportDir;
        private Consumer<String> progress;
        private java.util.Map<String, String> knownDeviations = java.util.Map.of();

        private Builder(String iaTemplate) {
            this.iaTemplate = iaTemplate;
        }

        public Builder firstSeed(long v) {
            firstSeed = v;
            return this;
        }

        public Builder seeds(int v) {
            seeds = v;
            return this;
        }

        public Builder actions(int v) {
            actions = v;
            return this;
        }

        public Builder mode(Mode v) {
            mode = v;
            return this;
        }

        public Builder profile(FaultProfile v) {
            profile = v;
            return this;
        }

        public Builder strict(boolean v) {
            strict = v;
            return this;
        }

        public Builder shrink(boolean v) {
            shrink = v;
            return this;
        }

        public Builder stopAfter(int v) {
            stopAfter = v;
            return this;
        }

        public Builder registry(DatRegistry v) {
            registry = v;
            return this;
        }

        public Builder reportDir(Path v) {
            reportDir = v;
            return this;
        }

        public Builder progress(Consumer<String> v) {
            progress = v;
            return this;
        }

        /** Known deviations of the provider: rule prefix to reason. */
        public Builder knownDeviations(java.util.Map<String, String> v) {
            knownDeviations = v;
            return this;
        }

        public SuiteConfig build() {
            return new SuiteConfig(
                    iaTemplate,
                    firstSeed,
                    seeds,
                    actions,
                    mode,
                    profile,
                    strict,
                    shrink,
                    stopAfter,
                    registry,
                    reportDir,
                    progress,
                    knownDeviations);
        }
    }
}
