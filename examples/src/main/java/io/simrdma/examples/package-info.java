/**
 * Short programs that show what RDMA does, each commented for a learner and run with
 * {@code ./simrdma example NAME}: rping over DAT and over verbs with the connection manager,
 * ibv_rc_pingpong, RDMA WRITE with immediate data as a doorbell, an atomic counter shared by
 * clients, a server with a shared receive queue, and a fault lab. docs/tutorial.md walks through
 * them with their output.
 */
package io.simrdma.examples;
