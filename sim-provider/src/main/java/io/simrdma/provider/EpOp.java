package io.simrdma.provider;

/** The operations whose validity depends on the endpoint state (rows of {@link EpStateTable}). */
enum EpOp {
    CONNECT,
    DUP_CONNECT,
    DISCONNECT_ABRUPT,
    DISCONNECT_GRACEFUL,
    RESET,
    FREE,
    /** dat_ep_modify of pz_handle. */
    MODIFY_PZ,
    /** dat_ep_modify of EVD handles, service type, sizes, QoS, request completion flags, DTO/IOV and RDMA read limits. */
    MODIFY_ATTRIBUTES,
    /** dat_ep_modify of recv_completion_flags (also only before any receive is posted). */
    MODIFY_RECV_FLAGS,
    /**
     * dat_ep_modify of the transport-specific or provider-specific attributes (and their counts):
     * "Can be modified when in Quiescent (unconnected) state".
     */
    MODIFY_SPECIFIC_ATTRIBUTES,
    POST_SEND,
    POST_RDMA_READ,
    POST_RDMA_WRITE,
    RMR_BIND,
    POST_RECV,
    QUERY,
    GET_STATUS,
    SET_WATERMARK,
    RECV_QUERY,
    RSP_CREATE,
    CR_ACCEPT,
    CR_REJECT
}
