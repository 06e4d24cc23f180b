package io.simrdma.dat;

/**
 * One flag of {@code DAT_CONNECT_FLAGS} (dat.h) for {@link Endpoint#connect}. The empty set is
 * {@code DAT_CONNECT_DEFAULT_FLAG} (0x00). The man page spells the flag {@code DAT_MULTIPATH_FLAG}.
 *
 * <p>Thread safety: immutable.
 */
public enum ConnectFlag implements BitFlag {
    /** {@code DAT_CONNECT_MULTIPATH_FLAG} (0x01): the consumer requests multipathing. */
    MULTIPATH(0x01);

    private final int value;

    ConnectFlag(int value) {
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
}
