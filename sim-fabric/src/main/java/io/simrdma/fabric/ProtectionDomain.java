package io.simrdma.fabric;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A protection domain (ibv_alloc_pd(3)): memory regions, memory windows, queue pairs and shared
 * receive queues created in one PD can be used together, and only together: every memory access
 * checks that the key's PD is the QP's.
 *
 * <p>Thread safety: thread-safe; creation and destruction run on the device's executor.
 */
public interface ProtectionDomain {

    Device device();

    /** A number identifying this PD on its device. */
    int handle();

    /**
     * Registers {@code buffer}'s bytes from its position to its limit (ibv_reg_mr(3)). Nothing is
     * copied: the region is the application's buffer, which it keeps owning and must keep alive
     * (not reuse for anything else) until the region is deregistered. The region gets a simulated
     * virtual address range chosen by the device ({@link MemoryRegion#address()}).
     *
     * @throws VerbsException EINVAL for REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE, or an
     *                        oversized buffer; EACCES for write access to a read-only buffer;
     *                        ENOMEM beyond max_mr. An empty buffer is a zero-length region, or
     *                        EINVAL on a device whose profile does not allow one.
     */
    MemoryRegion registerMemory(ByteBuffer buffer, Set<AccessFlag> access);

    /**
     * Registers {@code buffer} with a chosen virtual base address (ibv_reg_mr_iova(3)):
     * remote and local addresses of the region start at {@code iova}.
     */
    MemoryRegion registerMemory(ByteBuffer buffer, Set<AccessFlag> access, long iova);

    /**
     * Allocates a memory window of {@code type} (ibv_alloc_mw(3)); it starts unbound.
     *
     * @throws VerbsException EOPNOTSUPP on a device without memory windows (libibverbs, when the
     *                        provider has no alloc_mw); EINVAL for a type the device lacks; ENOMEM
     *                        beyond max_mw
     */
    MemoryWindow allocMw(MwType type);

    /**
     * Creates an address handle (ibv_create_ah(3)): the path a UD send takes to a remote port.
     *
     * @throws VerbsException EINVAL for a port other than 1, an sgid_index outside the port's GID
     *                        table (one entry), an SL above 15, a flow label over 20 bits, a hop
     *                        limit or traffic class over 255; ENOENT if this PD was deallocated
     */
    AddressHandle createAh(AhAttr attr);

    /** Creates a queue pair (ibv_create_qp(3)); it starts in RESET. */
    QueuePair createQp(QpInitAttr attr);

    /** Creates a shared receive queue (ibv_create_srq(3)); {@code attr.srqLimit()} is ignored. */
    SharedReceiveQueue createSrq(SrqAttr attr);

    /** Creates a shared receive queue with an application context (srq_context). */
    SharedReceiveQueue createSrq(SrqAttr attr, Object context);

    /**
     * Deallocates this PD (ibv_dealloc_pd(3)).
     *
     * @throws VerbsException EBUSY while any MR, MW, QP or SRQ of it exists; ENOENT if already
     *                        deallocated (every call on a deallocated PD fails with ENOENT)
     */
    void dealloc();
}
