package io.simrdma.junit;

import java.util.Locale;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Attached (suppressed) to the exception of a failing {@link SimFabricTest}: the seed of the run and
 * the one command that re-runs exactly that test with it. Its message, for a deterministic fabric:
 * <pre>
 * simrdma-junit: seed 4242 (deterministic fabric, profile ibta, devices [a, b]). Re-run exactly this test with it:
 *   mvn test -Dtest=KvStoreTest#shouldGetWhenReadResponseIsLost -Dsimrdma.seed=4242
 * </pre>
 * The trace is left out: the report is about the run, not about where it was made. Immutable once
 * made, as a Throwable's message is.
 */
public final class SeedReport extends RuntimeException {

    private static final long serialVersionUID = 1L;

    SeedReport(String message) {
        super(message, null, false, false);
    }

    static String message(ExtensionContext context, TestFabric net) {
        String mode = net.mode().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        StringBuilder b = new StringBuilder("simrdma-junit: seed ")
                .append(net.seed())
                .append(" (")
                .append(mode)
                .append(" fabric, profile ")
                .append(net.profile().name())
                .append(", devices ")
                .append(net.deviceNames())
                .append(")");
        if (net.mode() == FabricMode.DETERMINISTIC) {
            b.append(". Re-run exactly this test with it:");
        } else {
            b.append(": a ")
                    .append(mode)
                    .append(" fabric runs in real time, so the seed does not replay the run;"
                            + " re-run the test with:");
        }
        String cls = context.getRequiredTestClass().getName();
        String test = cls.substring(cls.lastIndexOf('.') + 1) + "#"
                + context.getRequiredTestMethod().getName();
        // a nested class's '$' would be expanded by the shell: quote it
        b.append("\n  mvn test -Dtest=")
                .append(test.indexOf('$') >= 0 ? "'" + test + "'" : test)
                .append(" -D")
                .append(SimFabricExtension.SEED_PROPERTY)
                .append('=')
                .append(net.seed());
        return b.toString();
    }
}
