package io.simrdma.fabric.cm;

/**
 * Options of rdma_set_option(3) that simrdma honours.
 *
 * <p>Thread safety: immutable.
 */
public enum CmOption {
    /** Type of service: the traffic class of the connection's path (RDMA_OPTION_ID_TOS). */
    TOS,
    /** Allow other ids to bind the same address and port (RDMA_OPTION_ID_REUSEADDR). */
    REUSEADDR,
    /** The QP's local ACK timeout exponent, 4.096 us x 2^value (RDMA_OPTION_ID_ACK_TIMEOUT). */
    ACK_TIMEOUT
}
