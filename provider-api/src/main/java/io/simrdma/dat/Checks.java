package io.simrdma.dat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Argument checks shared by the records of this package; each failure is DAT_INVALID_PARAMETER. */
final class Checks {

    private Checks() {}

    static <T> T notNull(T value, String what) {
        if (value == null) {
            throw DatException.invalidParameter(what + " must not be null");
        }
        return value;
    }

    static int nonNegative(int value, String what) {
        if (value < 0) {
            throw DatException.invalidParameter(what + " " + value + " is negative");
        }
        return value;
    }

    static long nonNegative(long value, String what) {
        if (value < 0) {
            throw DatException.invalidParameter(what + " " + value + " is negative");
        }
        return value;
    }

    /** A count that may also be {@link Dat#VALUE_UNKNOWN}. */
    static int countOrUnknown(int value, String what) {
        if (value < 0 && value != Dat.VALUE_UNKNOWN) {
            throw DatException.invalidParameter(what + " " + value + " is neither a count nor DAT_VALUE_UNKNOWN");
        }
        return value;
    }

    /** A watermark: a count or {@link Dat#WATERMARK_INFINITE}. */
    static int watermark(int value, String what) {
        if (value < 0 && value != Dat.WATERMARK_INFINITE) {
            throw DatException.invalidParameter(what + " " + value + " is neither a count nor DAT_WATERMARK_INFINITE");
        }
        return value;
    }

    /** An unmodifiable copy of an enum set; null elements and a null set are rejected. */
    static <E extends Enum<E>> Set<E> enumSet(Set<E> set, Class<E> type, String what) {
        notNull(set, what);
        EnumSet<E> copy = EnumSet.noneOf(type);
        for (E e : set) {
            copy.add(notNull(e, what + " element"));
        }
        return Collections.unmodifiableSet(copy);
    }

    /** An unmodifiable copy of a list; null elements and a null list are rejected. */
    static <T> List<T> list(List<T> list, String what) {
        notNull(list, what);
        List<T> copy = new ArrayList<>(list.size());
        for (T t : list) {
            copy.add(notNull(t, what + " element"));
        }
        return Collections.unmodifiableList(copy);
    }

    /** A copy of private data; null is the same as empty. */
    static byte[] privateData(byte[] data) {
        return data == null ? new byte[0] : data.clone();
    }

    /** An IA name as DAT allows it: not blank, at most {@code DAT_NAME_MAX_LENGTH - 1} characters. */
    static String iaName(String name) {
        notNull(name, "IA name");
        if (name.isBlank()) {
            throw DatException.invalidParameter("IA name is blank");
        }
        if (name.length() >= Dat.NAME_MAX_LENGTH) {
            throw DatException.invalidParameter("IA name has " + name.length() + " characters; at most "
                    + (Dat.NAME_MAX_LENGTH - 1) + " fit DAT_NAME_MAX_LENGTH");
        }
        return name;
    }

    /** Checks that {@code number} is carried by {@code stream}. */
    static EventNumber eventOfStream(EventNumber number, EvdFlag stream) {
        notNull(number, "eventNumber");
        if (number.stream() != stream) {
            throw DatException.invalidParameter(number + " is not an event of the " + stream + " stream");
        }
        return number;
    }
}
