package io.simrdma.conformance;

import io.simrdma.dat.DatRegistry;

/**
 * How one run opens its IAs and waits: the IA name template, the fabric mode (which bounds real-time
 * waits and enables the actions that need a second thread), strictness and the registry.
 *
 * <p>Thread safety: immutable.
 *
 * @param iaTemplate      the IA name, with {@code {ia}} (the IA's index), {@code {seed}} and {@code {run}} (a
 *                        number unique to the run) replaced
 * @param mode            the fabric mode
 * @param strict          alternatives to the recorded choices fail the run
 * @param registry        the DAT registry the provider is found in
 * @param defaultRegistry whether {@code registry} is {@link io.simrdma.dat.Dat#registry()} (for the transcript)
 */
record RunSettings(
        String iaTemplate, SuiteConfig.Mode mode, boolean strict, DatRegistry registry, boolean defaultRegistry) {

    private static final java.util.concurrent.atomic.AtomicLong RUNS = new java.util.concurrent.atomic.AtomicLong();

    /** A number unique to a run in this JVM (fabric names must not repeat while one closes). */
    static long nextRun() {
        return RUNS.incrementAndGet();
    }

    String iaName(int ia, long seed, long run) {
        return iaTemplate
                .replace("{ia}", Integer.toString(ia))
                .replace("{seed}", Long.toString(seed))
                .replace("{run}", Long.toString(run));
    }

    boolean deterministic() {
        return mode == SuiteConfig.Mode.DETERMINISTIC;
    }

    /** A wait for an event the model is certain of: long enough for retries on a lossy link. */
    long longWaitMillis() {
        return deterministic() ? 60_000 : 20_000;
    }

    /** A wait for an event that may or may not come. */
    long shortWaitMillis() {
        return 1;
    }

    /** Letting the fabric run for {@code ms}: virtual time on the deterministic fabric, capped real time otherwise. */
    long settleMillis(long ms) {
        return deterministic() ? ms : Math.min(ms, 5);
    }
}
