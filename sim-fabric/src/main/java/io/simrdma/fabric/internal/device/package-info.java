/**
 * Devices and the fabric: {@code FabricImpl} (devices, links, remote transports, services, trace)
 * and {@code DeviceImpl} (identity, resource tables, the services lower layers name through their
 * context interfaces), its {@code Port} (packets out and in, management datagrams) and its
 * asynchronous event queue. The top of sim-fabric's implementation; used by the API's
 * {@code Fabric.Builder} and by the TCP transport.
 */
package io.simrdma.fabric.internal.device;
