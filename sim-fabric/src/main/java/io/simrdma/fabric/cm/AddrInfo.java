package io.simrdma.fabric.cm;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Address information (struct rdma_addrinfo) from {@link RdmaCm#getAddrInfo}, and the hints
 * given to it. Addresses are socket addresses whose IP is a port GID (the way RoCE ports are
 * addressed: a GID is an IPv6 address).
 *
 * <p>Thread safety: immutable.
 *
 * @param passive   RAI_PASSIVE: for the listening side
 * @param portSpace RDMA_PS_TCP or RDMA_PS_IB
 * @param srcAddr   local address (null: any device)
 * @param dstAddr   destination (null when passive)
 * @param dstName   the node name the destination was resolved from, if any
 */
public record AddrInfo(
        boolean passive, PortSpace portSpace, InetSocketAddress srcAddr, InetSocketAddress dstAddr, String dstName) {

    public AddrInfo {
        Objects.requireNonNull(portSpace, "portSpace");
    }

    /** Hints for the active side, port space TCP. */
    public static AddrInfo active() {
        return new AddrInfo(false, PortSpace.TCP, null, null, null);
    }

    /** Hints for the passive side (RAI_PASSIVE), port space TCP. */
    public static AddrInfo passiveHints() {
        return new AddrInfo(true, PortSpace.TCP, null, null, null);
    }
}
