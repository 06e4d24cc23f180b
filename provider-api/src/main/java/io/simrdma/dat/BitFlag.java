package io.simrdma.dat;

import java.util.EnumSet;
import java.util.Set;

/**
 * An enum constant that stands for one bit of a C flag word or mask ({@code DAT_COMPLETION_FLAGS},
 * {@code DAT_MEM_PRIV_FLAGS}, {@code DAT_EVD_FLAGS}, {@code DAT_CONNECT_FLAGS},
 * {@code DAT_EP_PARAM_MASK}). The Java API passes such words as {@link EnumSet}s; the empty set is
 * the C "default" or "none" value (for example {@code DAT_COMPLETION_DEFAULT_FLAG = 0}).
 * {@link #toBits} and {@link #fromBits} convert to and from the C word.
 *
 * <p>Thread safety: the static methods are stateless.
 */
public interface BitFlag {

    /** The bit (or bits) this constant sets in the C word. */
    long bit();

    /** The C word for a set of flags: the OR of their bits; 0 for the empty set. */
    static long toBits(Set<? extends BitFlag> flags) {
        long bits = 0;
        for (BitFlag f : flags) {
            bits |= f.bit();
        }
        return bits;
    }

    /**
     * The set of flags of {@code type} whose bits make up {@code bits}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code bits} has a bit no constant of
     *         {@code type} stands for
     */
    static <E extends Enum<E> & BitFlag> EnumSet<E> fromBits(Class<E> type, long bits) {
        EnumSet<E> set = EnumSet.noneOf(type);
        long seen = 0;
        for (E e : type.getEnumConstants()) {
            if ((bits & e.bit()) == e.bit()) {
                set.add(e);
                seen |= e.bit();
            }
        }
        if (seen != bits) {
            throw DatException.invalidParameter(
                    String.format("undefined %s bits 0x%X", type.getSimpleName(), bits & ~seen));
        }
        return set;
    }
}
