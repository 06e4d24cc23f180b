/**
 * Completion queues and completion channels (ibv_create_cq, ibv_poll_cq, ibv_req_notify_cq,
 * ibv_get_cq_event): preallocated entries, overrun, notification. Internal to sim-fabric; used by
 * the RC engine and the device.
 */
package io.simrdma.fabric.internal.cq;
