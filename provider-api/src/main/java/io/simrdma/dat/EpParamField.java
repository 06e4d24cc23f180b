package io.simrdma.dat;

/**
 * One bit of {@code DAT_EP_PARAM_MASK} (dat.h): a field of {@link EpParams}, or of the
 * {@link EpAttributes} inside it (bits from 0x1000 up). {@link EpModify} records the set of fields a
 * dat_ep_modify call changes; {@link #modifiable()} says whether dat_ep_modify can ever change the
 * field.
 *
 * <p>Never modifiable (dat_ep_modify: "Cannot be modified"): the IA, the EP state, the local and
 * remote IA addresses and port qualifiers. The SRQ handle is also never modifiable here, because
 * dat_ep_create_with_srq says the SRQ "can not be disassociated or replaced" (dat_ep_modify itself
 * predates the field). In which EP states the other fields may change is the provider's rule
 * (dat_ep_modify's table; DAT_INVALID_STATE otherwise).
 *
 * <p>Query masks: this API has no mask type for queries; every {@code query()} returns the full
 * parameter record. The C masks let a consumer save the provider work; a record is cheap to fill
 * and the man pages allow returning more than was asked.
 *
 * <p>Thread safety: immutable.
 */
public enum EpParamField implements BitFlag {
    /** {@code DAT_EP_FIELD_IA_HANDLE} (0x00000001). Never modifiable. */
    IA_HANDLE(0x00000001L, false),
    /** {@code DAT_EP_FIELD_EP_STATE} (0x00000002). Never modifiable. */
    EP_STATE(0x00000002L, false),
    /** {@code DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR} (0x00000004). Never modifiable. */
    LOCAL_IA_ADDRESS_PTR(0x00000004L, false),
    /** {@code DAT_EP_FIELD_LOCAL_PORT_QUAL} (0x00000008). Never modifiable. */
    LOCAL_PORT_QUAL(0x00000008L, false),
    /** {@code DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR} (0x00000010). Never modifiable. */
    REMOTE_IA_ADDRESS_PTR(0x00000010L, false),
    /** {@code DAT_EP_FIELD_REMOTE_PORT_QUAL} (0x00000020). Never modifiable. */
    REMOTE_PORT_QUAL(0x00000020L, false),
    /** {@code DAT_EP_FIELD_PZ_HANDLE} (0x00000040). */
    PZ_HANDLE(0x00000040L, true),
    /** {@code DAT_EP_FIELD_RECV_EVD_HANDLE} (0x00000080). */
    RECV_EVD_HANDLE(0x00000080L, true),
    /** {@code DAT_EP_FIELD_REQUEST_EVD_HANDLE} (0x00000100). */
    REQUEST_EVD_HANDLE(0x00000100L, true),
    /** {@code DAT_EP_FIELD_CONNECT_EVD_HANDLE} (0x00000200). */
    CONNECT_EVD_HANDLE(0x00000200L, true),
    /** {@code DAT_EP_FIELD_SRQ_HANDLE} (0x00000400). Never modifiable (dat_ep_create_with_srq). */
    SRQ_HANDLE(0x00000400L, false),
    /** {@code DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE} (0x00001000). */
    EP_ATTR_SERVICE_TYPE(0x00001000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE} (0x00002000). */
    EP_ATTR_MAX_MESSAGE_SIZE(0x00002000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE} (0x00004000). */
    EP_ATTR_MAX_RDMA_SIZE(0x00004000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_QOS} (0x00008000). */
    EP_ATTR_QOS(0x00008000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS} (0x00010000). */
    EP_ATTR_RECV_COMPLETION_FLAGS(0x00010000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS} (0x00020000). */
    EP_ATTR_REQUEST_COMPLETION_FLAGS(0x00020000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS} (0x00040000). */
    EP_ATTR_MAX_RECV_DTOS(0x00040000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS} (0x00080000). */
    EP_ATTR_MAX_REQUEST_DTOS(0x00080000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV} (0x00100000). */
    EP_ATTR_MAX_RECV_IOV(0x00100000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV} (0x00200000). */
    EP_ATTR_MAX_REQUEST_IOV(0x00200000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN} (0x00400000). */
    EP_ATTR_MAX_RDMA_READ_IN(0x00400000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT} (0x00800000). */
    EP_ATTR_MAX_RDMA_READ_OUT(0x00800000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW} (0x01000000). */
    EP_ATTR_SRQ_SOFT_HW(0x01000000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV} (0x02000000). */
    EP_ATTR_MAX_RDMA_READ_IOV(0x02000000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV} (0x04000000). */
    EP_ATTR_MAX_RDMA_WRITE_IOV(0x04000000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR} (0x08000000). */
    EP_ATTR_NUM_TRANSPORT_ATTR(0x08000000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR} (0x10000000). */
    EP_ATTR_TRANSPORT_SPECIFIC_ATTR(0x10000000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR} (0x20000000). */
    EP_ATTR_NUM_PROVIDER_ATTR(0x20000000L, true),
    /** {@code DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR} (0x40000000). */
    EP_ATTR_PROVIDER_SPECIFIC_ATTR(0x40000000L, true);

    /** {@code DAT_EP_FIELD_EP_ATTR_ALL}: every EP attribute bit. */
    public static final long EP_ATTR_ALL_BITS = 0x7FFFF000L;

    /** {@code DAT_EP_FIELD_ALL}: every bit (0x800 is unused). */
    public static final long ALL_BITS = 0x7FFFF7FFL;

    private final long bit;
    private final boolean modifiable;

    EpParamField(long bit, boolean modifiable) {
        this.bit = bit;
        this.modifiable = modifiable;
    }

    @Override
    public long bit() {
        return bit;
    }

    /** Whether dat_ep_modify can change this field in some EP state. */
    public boolean modifiable() {
        return modifiable;
    }
}
