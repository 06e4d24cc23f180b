package io.simrdma.fabric.cm;

/**
 * RDMA port spaces (enum rdma_port_space) that carry reliable connected service. The port space
 * and the port form the IB CM service ID ({@code ps << 16 | port}) a listener matches.
 *
 * <p>Thread safety: immutable.
 */
public enum PortSpace {
    /** Reliable connected QPs, message based (RDMA_PS_TCP). */
    TCP(0x0106),
    /** Any IB service; simrdma connects RC QPs through it too (RDMA_PS_IB). */
    IB(0x013F);

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    long serviceId(int port) {
        return ((long) value << 16) | (port & 0xFFFF);
    }

    static PortSpace ofServiceId(long serviceId) {
        int ps = (int) (serviceId >>> 16);
        for (PortSpace p : values()) {
            if (p.value == ps && (serviceId >>> 32) == 0) {
                return p;
            }
        }
        return null;
    }
}
