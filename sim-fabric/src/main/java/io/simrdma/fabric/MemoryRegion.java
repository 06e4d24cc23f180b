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
     * Re-registers the region (ibv_rereg_mr(3)): conceptually a deregistration followed by a
     * registration of the same handle. {@code flags} names what changes; the other arguments are
     * read only for the flag that names them ({@code pd} for CHANGE_PD, {@code buffer} for
     * CHANGE_TRANSLATION: its bytes from position to limit, at a new simulated virtual address,
     * owned by the application as in {@link ProtectionDomain#registerMemory}; {@code access} for
     * CHANGE_ACCESS). On success the region has a new L_Key and a new R_Key, as a new registration
     * would (the IBA Reregister Memory Region verb returns both): read {@link #lkey()} and
     * {@link #rkey()} again; the old keys name nothing any more. On failure nothing changed.
     *
     * @param flags  at least one of the {@link ReregFlag}s
     * @param pd     the new PD (CHANGE_PD), else ignored and may be null
     * @param buffer the new memory (CHANGE_TRANSLATION), else ignored and may be null
     * @param access the new rights (CHANGE_ACCESS); must be empty or null without CHANGE_ACCESS
     * @throws VerbsException EINVAL for no flag, access rights without CHANGE_ACCESS, a missing or
     *                        empty buffer with CHANGE_TRANSLATION, a missing PD or one of another
     *                        device with CHANGE_PD, REMOTE_WRITE or REMOTE_ATOMIC without
     *                        LOCAL_WRITE (libibverbs and the kernel's uverbs checks behind
     *                        IBV_REREG_MR_ERR_INPUT); EACCES for write access to a read-only buffer;
     *                        EBUSY while a memory window is bound to the region; ENOENT if the
     *                        region or the new PD is gone
     */
    void reregister(
            java.util.Set<ReregFlag> flags, ProtectionDomain pd, ByteBuffer buffer, java.util.Set<AccessFlag> access);

    /**
     * Deregisters the region (ibv_dereg_mr(3)). Work still referring to it afterwards fails with
     * a protection error.
     *
     * @throws VerbsException EBUSY while a memory window is bound to it; ENOENT if already deregistered
     */
    void deregister();
}
