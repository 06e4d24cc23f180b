/**
 * Links and the trace: the in-process link between two devices (latency, bandwidth, up and down,
 * fault rules applied by the fault injector, packets held on gates), the routes a device sends through (a link, or a
 * remote transport's connection), and the fabric's trace fan-out. Internal to sim-fabric; used by
 * the device and the TCP transport.
 */
package io.simrdma.fabric.internal.link;
