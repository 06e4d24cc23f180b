package io.simrdma.conformance;

/**
 * Thrown inside a run when the provider did what the model does not allow; ends the run. Carries
 * the check that failed and what was expected and seen.
 */
final class Mismatch extends RuntimeException {

    private static final long serialVersionUID = 1L;

    final transient Check check;
    final String expected;
    final String actual;

    Mismatch(Check check, String expected, String actual) {
        super(check + ": expected " + expected + ", got " + actual, null, false, false);
        this.check = check;
        this.expected = expected;
        this.actual = actual;
    }
}
