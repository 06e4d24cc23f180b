package io.simrdma.conformance;

import io.simrdma.dat.DatReturnType;
import java.util.ArrayList;
import java.util.List;

/**
 * What one comparison of the model with the provider checks: the clauses it comes from (return-code
 * clauses and state-machine rows, see {@link ClauseCatalog}), the rule in words, and, where the man
 * pages are silent or conflict, the recorded choice the model follows ({@code "S7 ..."}). A failed
 * check with a choice does not fail another provider unless the suite runs strict.
 *
 * <p>Thread safety: immutable.
 *
 * @param clauses the clause ids, at least one
 * @param rule    the rule in words
 * @param choice  the SILENT/CONFLICT choice the check follows, or null if the pages decide
 * @param alternative the outcome is one the pages allow but not the recorded choice: accepted from
 *                any provider, refused when the suite runs strict (as it does for sim-provider)
 */
public record Check(List<String> clauses, String rule, String choice, boolean alternative) {

    /**
     * @throws IllegalArgumentException if a clause id is unknown or none is given
     */
    public Check {
        clauses = List.copyOf(clauses);
        if (clauses.isEmpty()) {
            throw new IllegalArgumentException("a check cites at least one clause");
        }
        for (String c : clauses) {
            ClauseCatalog.get().clause(c);
        }
    }

    /** The return-code clause {@code code} of {@code page}. */
    static Check ret(String page, DatReturnType code, String rule) {
        String id = page + ":" + code.cName();
        if (!ClauseCatalog.get().contains(id)) {
            // a provider choice of a return the page does not list: reported under the page's success clause
            return new Check(
                    List.of(page + ":DAT_SUCCESS"),
                    rule + " (" + code.cName() + ", which " + page + " does not list)",
                    null,
                    false);
        }
        return new Check(List.of(id), rule, null, false);
    }

    /** The success clause of {@code page}: a behaviour the page gives the successful call. */
    static Check ok(String page, String rule) {
        return ret(page, DatReturnType.SUCCESS, rule);
    }

    /** This check also citing the state-machine rows {@code rowIds}. */
    Check rows(String... rowIds) {
        List<String> c = new ArrayList<>(clauses);
        c.addAll(List.of(rowIds));
        return new Check(c, rule, choice, alternative);
    }

    /** This check also citing the return-code clause {@code code} of {@code page}. */
    Check and(String page, DatReturnType code) {
        List<String> c = new ArrayList<>(clauses);
        String id = page + ":" + code.cName();
        c.add(ClauseCatalog.get().contains(id) ? id : page + ":DAT_SUCCESS");
        return new Check(c, rule, choice, alternative);
    }

    /** This check following the recorded choice {@code choice}. */
    Check choice(String choice) {
        return new Check(clauses, rule, choice, false);
    }

    /** This check as an outcome the pages allow beside the recorded choice {@code choice}. */
    Check alternative(String choice) {
        return new Check(clauses, rule, choice, true);
    }

    /** A check with the same clauses and another rule. */
    Check rule(String otherRule) {
        return new Check(clauses, otherRule, choice, alternative);
    }

    /** The first clause: the one a failure is reported under. */
    String primary() {
        return clauses.get(0);
    }

    @Override
    public String toString() {
        return String.join(", ", clauses) + ": " + rule
                + (choice == null
                        ? ""
                        : (alternative ? " [alternative to the recorded choice: " : " [provider choice: ") + choice
                                + "]");
    }
}
