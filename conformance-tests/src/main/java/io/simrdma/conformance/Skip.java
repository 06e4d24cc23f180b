package io.simrdma.conformance;

/**
 * Thrown by an action whose objects do not exist in this run (an action left after shrinking whose
 * creator was dropped): the action is skipped and changes nothing.
 */
final class Skip extends RuntimeException {

    private static final long serialVersionUID = 1L;

    static final Skip INSTANCE = new Skip();

    private Skip() {
        super("skipped", null, false, false);
    }
}
