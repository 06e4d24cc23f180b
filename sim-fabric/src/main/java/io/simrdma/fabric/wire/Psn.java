package io.simrdma.fabric.wire;

/**
 * 24-bit packet sequence number arithmetic (IBA 9.7.1: PSNs wrap modulo 2^24; a PSN is "ahead"
 * of another when it lies within the next 2^23 values).
 *
 * <p>Thread safety: stateless.
 */
public final class Psn {

    /** Mask of the 24 PSN bits. */
    public static final int MASK = 0xFFFFFF;

    private Psn() {}

    /** {@code psn + n} modulo 2^24. */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /**
     * Compares two PSNs in the 24-bit circular space: negative if {@code a} is before {@code b},
     * zero if equal, positive if after.
     */
    public static int compare(int a, int b) {
        // Shift the 24-bit difference into the top bits so that the sign gives the direction.
        return ((a - b) << 8) >> 8;
    }

    /** Number of PSNs from {@code from} up to {@code to} (to - from modulo 2^24). */
    public static int distance(int from, int to) {
        return (to - from) & MASK;
    }
}
