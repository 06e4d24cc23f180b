package io.simrdma.dat;

import java.util.Set;

/**
 * Which event streams can feed the same EVD: the provider attribute
 * {@code evd_stream_merging_supported}, a symmetric 6x6 boolean matrix whose rows and columns are
 * the {@link EvdFlag}s in declaration order (software, connection request, DTO, connection, RMR bind,
 * asynchronous). The diagonal is always true. Several streams can share an EVD if every pair of them
 * can ({@link #supports(Set)}).
 *
 * <p>Thread safety: immutable.
 */
public final class EvdStreamMerging {

    private static final int N = EvdFlag.values().length;
    private static final int ALL_ROW = (1 << N) - 1;

    private final int[] rows;

    private EvdStreamMerging(int[] rows) {
        this.rows = rows;
    }

    /** Every stream can merge with every other, as the man page says a provider should support. */
    public static EvdStreamMerging all() {
        int[] r = new int[N];
        java.util.Arrays.fill(r, ALL_ROW);
        return new EvdStreamMerging(r);
    }

    /** No two different streams can merge (only the diagonal). */
    public static EvdStreamMerging none() {
        int[] r = new int[N];
        for (int i = 0; i < N; i++) {
            r[i] = 1 << i;
        }
        return new EvdStreamMerging(r);
    }

    /** A copy of this matrix where {@code a} and {@code b} can merge. */
    public EvdStreamMerging with(EvdFlag a, EvdFlag b) {
        return set(a, b, true);
    }

    /** A copy of this matrix where {@code a} and {@code b} cannot merge ({@code a != b}). */
    public EvdStreamMerging without(EvdFlag a, EvdFlag b) {
        if (a == b) {
            throw DatException.invalidParameter("the diagonal of evd_stream_merging_supported is always 1");
        }
        return set(a, b, false);
    }

    private EvdStreamMerging set(EvdFlag a, EvdFlag b, boolean value) {
        Checks.notNull(a, "stream");
        Checks.notNull(b, "stream");
        int[] r = rows.clone();
        if (value) {
            r[a.ordinal()] |= 1 << b.ordinal();
            r[b.ordinal()] |= 1 << a.ordinal();
        } else {
            r[a.ordinal()] &= ~(1 << b.ordinal());
            r[b.ordinal()] &= ~(1 << a.ordinal());
        }
        return new EvdStreamMerging(r);
    }

    /** The matrix entry for {@code a} and {@code b}. */
    public boolean supports(EvdFlag a, EvdFlag b) {
        return (rows[a.ordinal()] & (1 << b.ordinal())) != 0;
    }

    /** Whether all of {@code streams} can feed one EVD: every pair can merge. */
    public boolean supports(Set<EvdFlag> streams) {
        for (EvdFlag a : streams) {
            for (EvdFlag b : streams) {
                if (!supports(a, b)) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EvdStreamMerging m && java.util.Arrays.equals(rows, m.rows);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(rows);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("EvdStreamMerging[");
        for (int i = 0; i < N; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            for (int j = 0; j < N; j++) {
                sb.append((rows[i] >> j & 1) != 0 ? '1' : '0');
            }
        }
        return sb.append(']').toString();
    }
}
