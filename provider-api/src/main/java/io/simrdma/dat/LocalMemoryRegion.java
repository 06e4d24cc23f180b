package io.simrdma.dat;

import java.util.OptionalInt;

/**
 * A Local Memory Region ({@code DAT_LMR_HANDLE}): registered consumer memory, created by
 * {@link InterfaceAdapter#createLmr} (dat_lmr_create). Its {@link #lmrContext()} names it in local
 * I/O vectors ({@link LmrTriplet}); its {@link #rmrContext()}, if it has remote privileges, can be
 * given to a peer for RDMA ({@link RmrTriplet}). The consumer owns the memory; freeing the LMR
 * neither frees nor changes it.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface LocalMemoryRegion extends FreeableHandle {

    /** The {@code lmr_context} returned by dat_lmr_create (unsigned 32 bits). */
    int lmrContext();

    /**
     * The {@code rmr_context} returned by dat_lmr_create (unsigned 32 bits); empty if the LMR was
     * registered without remote read or write privilege ("rmr_context is not generated and NULL is
     * returned").
     */
    OptionalInt rmrContext();

    /** The {@code registered_size} returned by dat_lmr_create: how many bytes the provider registered. */
    long registeredSize();

    /**
     * The {@code registered_address} returned by dat_lmr_create: where the registered region starts
     * in the LMR's virtual address space; {@link LmrTriplet#virtualAddress()} and remote target
     * addresses are counted from here.
     */
    long registeredAddress();

    /**
     * The LMR's parameters. Corresponds to {@code dat_lmr_query()} (all fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    LmrParams query();

    /**
     * Destroys the LMR; DTOs using it afterwards fail with a protection violation, and remote RDMA
     * with its rmr_context fails and breaks the connection. Corresponds to {@code dat_lmr_free()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (subtype {@code DAT_INVALID_STATE_LMR_IN_USE}:
     *         an RMR is bound to it), {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();
}
