package io.simrdma.fabric;

/**
 * Work completion flags (enum ibv_wc_flags) that RC completions carry.
 *
 * <p>Thread safety: immutable.
 */
public enum WcFlag {
    /** Immediate data is valid. */
    WITH_IMM(1 << 1),
    /** The invalidated R_Key is valid (never together with WITH_IMM). */
    WITH_INV(1 << 3);

    private final int bit;

    WcFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }
}
