/**
 * The RC transport engine, modelled on Linux's rdma_rxe: {@code RcQueuePair} (the IBA QP state
 * machine, attributes, posting, completions) and its three roles, each a state machine with one
 * method per step: {@code Requester} (work requests to packets, rxe_req.c), {@code Responder}
 * (requests checked and executed, ACK/NAK/read responses, rxe_resp.c) and {@code Completer}
 * (acknowledgements matched to WQEs, retries and timers, rxe_comp.c); send and receive queues,
 * WQEs and shared receive queues. Internal to sim-fabric; used by the device.
 */
package io.simrdma.fabric.internal.rc;
