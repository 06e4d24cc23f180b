package io.simrdma.dat;

/**
 * Who can create an Endpoint for a Connection Request on a Public Service Point
 * ({@code DAT_EP_CREATOR_FOR_PSP} in dat.h), reported as {@link ProviderAttributes#epCreator()}.
 *
 * <p>Thread safety: immutable.
 */
public enum PspEpCreator {
    /** {@code DAT_PSP_CREATES_EP_NEVER} (0): only {@link PspFlag#CONSUMER} PSPs. */
    NEVER,
    /** {@code DAT_PSP_CREATES_EP_IFASKED} (1): both kinds of PSP. */
    IF_ASKED,
    /** {@code DAT_PSP_CREATES_EP_ALWAYS} (2): only {@link PspFlag#PROVIDER} PSPs. */
    ALWAYS;

    /** The header value (the declaration position). */
    public int value() {
        return ordinal();
    }
}
