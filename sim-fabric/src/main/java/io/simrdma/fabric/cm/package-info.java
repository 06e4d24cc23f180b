/**
 * The connection manager, the Java shape of librdmacm (rdma_*): event channels, CM ids, address
 * resolution ({@code rdma_getaddrinfo}), listen, connect, accept, reject, disconnect and
 * migrate, over an IB CM protocol (REQ, REP, RTU, REJ, DREQ, DREP, MRA) carried as management
 * datagrams on the same links as data, so it can be lost, delayed and traced. The UDP port
 * space (RDMA_PS_UDP) resolves a remote UD QP with SIDR REQ and SIDR REP instead. Public API for
 * applications and the DAT provider; built only on the verbs API ({@code io.simrdma.fabric}).
 */
package io.simrdma.fabric.cm;
