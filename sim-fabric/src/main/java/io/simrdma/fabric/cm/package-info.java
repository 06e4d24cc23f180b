/**
 * The connection manager, the Java shape of librdmacm (rdma_*): event channels, CM ids, address
 * resolution ({@code rdma_getaddrinfo}), listen, connect, accept, reject, disconnect and
 * migrate, over an IB CM protocol (REQ, REP, RTU, REJ, DREQ, DREP, MRA) carried as management
 * datagrams on the same links as data, so it can be lost, delayed and traced. Public API for
 * applications and the DAT provider; built only on the verbs API ({@code io.simrdma.fabric}).
 */
package io.simrdma.fabric.cm;
