package io.simrdma.conformance;

/**
 * One row of the traceability matrix: a return-code clause of a DAT man page (a return code listed
 * under RETURN VALUES, with the page's text for it) or a row of the endpoint state-machine digest
 * ({@code shared/spec/ep-state-machine.md}).
 *
 * <p>Thread safety: immutable.
 *
 * @param id    {@code dat_ep_post_send:DAT_INVALID_STATE} for a return-code clause, {@code 2.7#1} for
 *              a state-machine row (section and row number)
 * @param kind  which of the two
 * @param page  the man page ({@code dat_ep_post_send}), or for a row the section ({@code 2.7})
 * @param title the return code, or the row's first cell
 * @param text  the page's text for the return code, or the rest of the row
 */
public record Clause(String id, Kind kind, String page, String title, String text) {

    /** The two kinds of matrix rows. */
    public enum Kind {
        /** A return code under RETURN VALUES of a page in shared/spec/dat. */
        RETURN_CODE,
        /** A row of a table of shared/spec/ep-state-machine.md. */
        STATE_ROW
    }
}
