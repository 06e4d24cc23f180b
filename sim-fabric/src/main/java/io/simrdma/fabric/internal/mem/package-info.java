/**
 * Memory and protection: protection domains, memory regions and windows (ibv_alloc_pd,
 * ibv_reg_mr, ibv_alloc_mw, ibv_bind_mw), the device's key table, and the checks of IBA 10.6
 * (key, PD, access rights, bounds) that every local and remote access passes before a byte moves.
 * Internal to sim-fabric; used by the RC engine and the device.
 */
package io.simrdma.fabric.internal.mem;
