package io.simrdma.fabric;

import java.util.Set;

/**
 * Memory access rights of an MR, an MW or a QP (ibv_reg_mr(3): IBV_ACCESS_*).
 *
 * <p>Thread safety: immutable.
 */
public enum AccessFlag {
    LOCAL_WRITE(1),
    REMOTE_WRITE(1 << 1),
    REMOTE_READ(1 << 2),
    REMOTE_ATOMIC(1 << 3),
    MW_BIND(1 << 4),
    /** Remote addresses are offsets from the start of the region or window. */
    ZERO_BASED(1 << 5);

    private final int bit;

    AccessFlag(int bit) {
        this.bit = bit;
    }

    /** The IBV_ACCESS_* bit. */
    public int bit() {
        return bit;
    }

    /** The IBV_ACCESS_* bit mask of a set. */
    public static int mask(Set<AccessFlag> flags) {
        int m = 0;
        for (AccessFlag f : flags) {
            m |= f.bit;
        }
        return m;
    }

    /** The set of a bit mask. */
    public static java.util.EnumSet<AccessFlag> fromMask(int mask) {
        java.util.EnumSet<AccessFlag> s = java.util.EnumSet.noneOf(AccessFlag.class);
        for (AccessFlag f : values()) {
            if ((mask & f.bit) != 0) {
                s.add(f);
            }
        }
        return s;
    }
}
