package io.simrdma.fabric;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A registered memory region (struct ibv_mr): an application buffer the HCA may access through
 * its L_Key (locally) and R_Key (remotely), within the rights it was registered with.
 *
 * <p>Addresses: the region occupies the simulated virtual range
 * [{@link #address()}, {@code address() + length()}); SGEs and remote addresses name bytes in that
 * range, never Java indexes.
 *
 * <p>Byte order: atomic operations on the region read and write their 8-byte operand in the
 * byte order the buffer had when it was registered (big-endian by default in Java; register a
 * buffer set to {@link ByteOrder#LITTLE_ENDIAN} to match what a C program on x86 sees).
 *
 * <p>Thread safety: thread-safe. The buffer itself stays the application's.
 */
public interface MemoryRegion {

    ProtectionDomain pd();

    /** Start of the region's virtual address range (0 for a ZERO_BASED region). */
    long address();

    /** Length in bytes. */
    int length();

    /** The local key, for SGEs. */
    int lkey();

    /** The remote key, for the remote side's RDMA and atomic work requests. */
    int rkey();

    /** The access rights the region was registered with. */
    java.util.Set<AccessFlag> access();

    /** Byte order used for atomic operands in this region. */
    ByteOrder byteOrder();

    /**
     * The registered bytes: a new view of the application's buffer whose index 0 is
     * {@link #address()} and whose limit is {@link #length()}. The bytes stay the application's;
     * this is for tools that inspect what a work request lends the device ({@link FabricObserver}).
     * Any thread.
     */
    ByteBuffer buffer();

    /** False once deregistered. */
    boolean isValid();

    /**
     * Deregisters the region (ibv_dereg_mr(3)). Work still referring to it afterwards fails with
     * a protection error.
     *
     * @throws VerbsException EBUSY while a memory window is bound to it; ENOENT if already deregistered
     */
    void deregister();
}
