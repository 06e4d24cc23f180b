package io.simrdma.conformance;

import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the model allows a call to return: one or more alternatives, each a success (with the model
 * change it brings, given the returned value) or a failure of a return type and, where a rule or the
 * API contract names it, its subtypes. Where several errors apply at once the pages give no
 * precedence, so each is an alternative.
 *
 * <p>Thread safety: not thread-safe.
 */
final class Expect {

    /**
     * One allowed outcome.
     *
     * @param type      {@link DatReturnType#SUCCESS} or the error type
     * @param subtypes  the subtypes allowed (empty: any)
     * @param subChoice the subtype is a provider choice, not a rule (checked only when strict)
     * @param check     what the outcome checks
     * @param effect    the model change if this outcome happens (given the returned value; may be null)
     */
    record Alt(
            DatReturnType type,
            Set<DatReturnSubtype> subtypes,
            boolean subChoice,
            Check check,
            Consumer<Object> effect) {}

    final List<Alt> alts = new ArrayList<>();

    static Expect ok(Check check, Consumer<Object> effect) {
        return new Expect().orOk(check, effect);
    }

    static Expect ok(Check check) {
        return ok(check, null);
    }

    static Expect err(DatReturnType type, Check check) {
        return new Expect().orErr(type, check);
    }

    Expect orOk(Check check, Consumer<Object> effect) {
        alts.add(new Alt(DatReturnType.SUCCESS, Set.of(), false, check, effect));
        return this;
    }

    /** An error of {@code type}, any subtype. */
    Expect orErr(DatReturnType type, Check check) {
        alts.add(new Alt(type, Set.of(), false, check, null));
        return this;
    }

    /** An error of {@code type} whose subtype a rule names: one of {@code subtypes}. */
    Expect orErr(DatReturnType type, Check check, DatReturnSubtype... subtypes) {
        alts.add(new Alt(type, EnumSet.copyOf(List.of(subtypes)), false, check, null));
        return this;
    }

    /** An error of {@code type} whose subtype is a provider choice: one of {@code subtypes} when strict. */
    Expect orErrChoice(DatReturnType type, Check check, DatReturnSubtype... subtypes) {
        alts.add(new Alt(type, EnumSet.copyOf(List.of(subtypes)), true, check, null));
        return this;
    }

    /** Adds every alternative of {@code other}. */
    Expect or(Expect other) {
        alts.addAll(other.alts);
        return this;
    }

    boolean allowsSuccess() {
        for (Alt a : alts) {
            if (a.type == DatReturnType.SUCCESS) {
                return true;
            }
        }
        return false;
    }

    boolean onlyErrors() {
        return !alts.isEmpty() && !allowsSuccess();
    }

    /** The first error alternative, or null. */
    Alt firstError() {
        for (Alt a : alts) {
            if (a.type != DatReturnType.SUCCESS) {
                return a;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Alt a : alts) {
            if (sb.length() > 0) {
                sb.append(" or ");
            }
            sb.append(a.type == DatReturnType.SUCCESS ? "DAT_SUCCESS" : a.type.cName());
            if (!a.subtypes.isEmpty()) {
                sb.append(a.subtypes.size() == 1 ? " " : " one of ");
                List<String> n = new ArrayList<>();
                for (DatReturnSubtype s : a.subtypes) {
                    n.add(s.cName());
                }
                sb.append(String.join("/", n));
            }
        }
        return sb.toString();
    }
}
