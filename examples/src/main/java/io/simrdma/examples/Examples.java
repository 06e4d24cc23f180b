package io.simrdma.examples;

import java.util.List;
import java.util.Optional;

/**
 * The examples, in the order the tutorial takes them.
 *
 * <p>Thread safety: immutable.
 */
public final class Examples {

    private static final List<Example> ALL = List.of(
            new RcPingPong(),
            new RpingVerbs(),
            new RpingDat(),
            new WriteImmDoorbell(),
            new AtomicCounter(),
            new SrqServer(),
            new FaultLab());

    private Examples() {}

    /** Every example. */
    public static List<Example> all() {
        return ALL;
    }

    /** The example called {@code name}, if there is one. */
    public static Optional<Example> named(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst();
    }
}
