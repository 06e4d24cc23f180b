package io.simrdma.dat;

/**
 * The type of a DAT handle ({@code DAT_HANDLE_TYPE} in udat.h), as {@link DatHandle#handleType()}
 * returns it (dat_get_handle_type). Values are the header positions.
 *
 * <p>Thread safety: immutable.
 */
public enum HandleType {
    /** {@code DAT_HANDLE_TYPE_CR} (0): {@link ConnectionRequest}. */
    CR,
    /** {@code DAT_HANDLE_TYPE_EP} (1): {@link Endpoint}. */
    EP,
    /** {@code DAT_HANDLE_TYPE_EVD} (2): {@link EventDispatcher}. */
    EVD,
    /** {@code DAT_HANDLE_TYPE_IA} (3): {@link InterfaceAdapter}. */
    IA,
    /** {@code DAT_HANDLE_TYPE_LMR} (4): {@link LocalMemoryRegion}. */
    LMR,
    /** {@code DAT_HANDLE_TYPE_PSP} (5): {@link PublicServicePoint}. */
    PSP,
    /** {@code DAT_HANDLE_TYPE_PZ} (6): {@link ProtectionZone}. */
    PZ,
    /** {@code DAT_HANDLE_TYPE_RMR} (7): {@link RemoteMemoryRegion}. */
    RMR,
    /** {@code DAT_HANDLE_TYPE_RSP} (8): {@link ReservedServicePoint}. */
    RSP,
    /** {@code DAT_HANDLE_TYPE_CNO} (9): {@link ConsumerNotificationObject}. */
    CNO,
    /** {@code DAT_HANDLE_TYPE_SRQ} (10): {@link SharedReceiveQueue}. */
    SRQ;

    /** The header value (the declaration position). */
    public int value() {
        return ordinal();
    }
}
