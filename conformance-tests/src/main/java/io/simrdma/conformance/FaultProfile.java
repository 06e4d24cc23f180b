package io.simrdma.conformance;

/**
 * A fault profile of the links under the IAs: options appended to the IA name. They are the
 * sim provider's IA-name options ({@code loss}, {@code dup}, {@code reorder}, {@code delay},
 * {@code flap}, see the README's IA-name table); another provider is judged without them (or with
 * its own options in the IA name). Transport faults must change nothing a DAT consumer sees but
 * timing, unless a link stays down past the retry budget.
 *
 * <p>Thread safety: immutable.
 */
public enum FaultProfile {
    /** No faults. */
    NONE(""),
    /** 1% of packets lost. */
    LOSS1("loss=0.01"),
    /** 10% of packets lost. */
    LOSS10("loss=0.1"),
    /** 30% of request packets lost (responses are not), as far as retries stay within their budget. */
    LOSS30("loss=0.3"),
    /** 10% of packets delivered twice. */
    DUPLICATE("dup=0.1"),
    /** 20% of packets held back so that later ones overtake them. */
    REORDER("reorder=0.2"),
    /** 20% of packets delayed by 2 ms. */
    DELAY("delay=0.2"),
    /** Every link goes down for 20 ms every 300 ms: shorter than the retry budget. */
    FLAP("flap=300:20"),
    /** Loss, duplication and reordering together. */
    MIXED("loss=0.05&dup=0.05&reorder=0.1");

    private final String options;

    FaultProfile(String options) {
        this.options = options;
    }

    /** The IA-name options of the profile (empty for {@link #NONE}). */
    public String options() {
        return options;
    }

    /** Whether {@code iaName} carries an option of a fault profile ({@code loss=}, {@code dup=}, ...). */
    static boolean faulty(String iaName) {
        for (FaultProfile p : values()) {
            for (String option : p.options.split("&")) {
                int eq = option.indexOf('=');
                if (eq > 0 && iaName.contains(option.substring(0, eq + 1))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code iaName} with the profile's options appended. */
    String apply(String iaName) {
        if (options.isEmpty()) {
            return iaName;
        }
        return iaName + (iaName.contains("?") ? "&" : "?") + options;
    }
}
