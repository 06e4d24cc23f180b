package io.simrdma.conformance;

import io.simrdma.dat.BitFlag;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Renders values and calls as Java source for the transcript a failure is replayed from (the
 * ready-to-paste JUnit test of {@link JavaReplay}).
 *
 * <p>Thread safety: stateless.
 */
final class Java {

    private Java() {}

    /** {@code assertDat(TYPE, () -> call);} for an expected error alternative. */
    static String assertDat(Expect.Alt a, String call) {
        if (a.subtypes().size() == 1) {
            return "assertDat(DatReturnType." + a.type().name() + ", DatReturnSubtype."
                    + a.subtypes().iterator().next().name() + ", () -> " + call + ");";
        }
        return "assertDat(DatReturnType." + a.type().name() + ", () -> " + call + ");";
    }

    /** {@code assertDat(TYPE[, SUBTYPE], () -> call);} for an error that happened as expected. */
    static String assertDat(DatReturnType type, DatReturnSubtype sub, boolean anySubtype, String call) {
        if (anySubtype || sub == DatReturnSubtype.NO_SUBTYPE) {
            return "assertDat(DatReturnType." + type.name() + ", () -> " + call + ");";
        }
        return "assertDat(DatReturnType." + type.name() + ", DatReturnSubtype." + sub.name() + ", () -> " + call + ");";
    }

    /** {@code EnumSet.of(Type.A, Type.B)} or {@code EnumSet.noneOf(Type.class)}. */
    static <E extends Enum<E>> String flags(Class<E> type, Set<E> set) {
        if (set.isEmpty()) {
            return "EnumSet.noneOf(" + type.getSimpleName() + ".class)";
        }
        List<String> n = new ArrayList<>();
        for (E e : set) {
            n.add(type.getSimpleName() + "." + e.name());
        }
        return "EnumSet.of(" + String.join(", ", n) + ")";
    }

    /** {@code <T extends BitFlag>} flags, same as {@link #flags}. */
    static <E extends Enum<E> & BitFlag> String bits(Class<E> type, Set<E> set) {
        return flags(type, set);
    }

    /** A byte array literal: {@code null}, or {@code bytes(n, seed)} (the replay's helper). */
    static String bytes(byte[] b, int n, int seed) {
        if (b == null) {
            return "null";
        }
        return "bytes(" + n + ", " + seed + ")";
    }

    static String hex(byte[] b) {
        if (b == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 16); i++) {
            sb.append(String.format("%02x", b[i] & 0xff));
        }
        if (b.length > 16) {
            sb.append("...");
        }
        return sb.toString();
    }

    /** A string literal. */
    static String str(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
