package io.simrdma.dat;

/**
 * Who owns a posted local IOV list after the post returns ({@code DAT_IOV_OWNERSHIP} in dat.h),
 * reported as {@link ProviderAttributes#iovOwnershipOnReturn()}. In any case the consumer owns it
 * again once the DTO's completion event is delivered.
 *
 * <p>Thread safety: immutable.
 */
public enum IovOwnership {
    /** {@code DAT_IOV_CONSUMER} (0x0): the consumer may reuse the IOV as soon as the post returns. */
    CONSUMER(0x0),
    /** {@code DAT_IOV_PROVIDER_NOMOD} (0x1): the provider keeps it until completion and does not modify it. */
    PROVIDER_NOMOD(0x1),
    /** {@code DAT_IOV_PROVIDER_MOD} (0x2): the provider keeps it until completion and may modify it. */
    PROVIDER_MOD(0x2);

    private final int value;

    IovOwnership(int value) {
        this.value = value;
    }

    /** The header value. */
    public int value() {
        return value;
    }
}
