package io.simrdma.dat;

import java.util.EnumSet;

/**
 * One memory access privilege ({@code DAT_MEM_PRIV_FLAGS} in dat.h) of an LMR or a bound RMR. The
 * empty set is {@code DAT_MEM_PRIV_NONE_FLAG}; {@link #all()} is {@code DAT_MEM_PRIV_ALL_FLAG}
 * (0x33). The DAT 1.0 names {@code DAT_MEM_PRIV_READ_FLAG} (0x03) and
 * {@code DAT_MEM_PRIV_WRITE_FLAG} (0x30) are {@link #read()} and {@link #write()}.
 *
 * <p>Thread safety: immutable.
 */
public enum MemoryPrivilege implements BitFlag {
    /** {@code DAT_MEM_PRIV_LOCAL_READ_FLAG} (0x01). */
    LOCAL_READ(0x01),
    /** {@code DAT_MEM_PRIV_REMOTE_READ_FLAG} (0x02). */
    REMOTE_READ(0x02),
    /** {@code DAT_MEM_PRIV_LOCAL_WRITE_FLAG} (0x10). */
    LOCAL_WRITE(0x10),
    /** {@code DAT_MEM_PRIV_REMOTE_WRITE_FLAG} (0x20). */
    REMOTE_WRITE(0x20),
    /**
     * {@code DAT_MEM_PRIV_RO_DISABLE_FLAG} (0x100): an illumos addition (relaxed ordering), not in
     * the DAT 1.2 man pages; not part of {@link #all()}.
     */
    RO_DISABLE(0x100);

    private final int value;

    MemoryPrivilege(int value) {
        this.value = value;
    }

    @Override
    public long bit() {
        return value;
    }

    /** The header value. */
    public int value() {
        return value;
    }

    /** A new set holding {@code DAT_MEM_PRIV_ALL_FLAG}: local and remote read and write (0x33). */
    public static EnumSet<MemoryPrivilege> all() {
        return EnumSet.of(LOCAL_READ, REMOTE_READ, LOCAL_WRITE, REMOTE_WRITE);
    }

    /** A new set holding {@code DAT_MEM_PRIV_READ_FLAG}: local and remote read (0x03). */
    public static EnumSet<MemoryPrivilege> read() {
        return EnumSet.of(LOCAL_READ, REMOTE_READ);
    }

    /** A new set holding {@code DAT_MEM_PRIV_WRITE_FLAG}: local and remote write (0x30). */
    public static EnumSet<MemoryPrivilege> write() {
        return EnumSet.of(LOCAL_WRITE, REMOTE_WRITE);
    }
}
