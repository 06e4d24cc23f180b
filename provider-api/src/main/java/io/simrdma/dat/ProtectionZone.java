package io.simrdma.dat;

/**
 * A Protection Zone ({@code DAT_PZ_HANDLE}): EPs, LMRs, RMRs and SRQs in the same PZ may be used
 * together; a mismatch fails with {@code DAT_PROTECTION_VIOLATION}. Created by
 * {@link InterfaceAdapter#createPz()} (dat_pz_create).
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface ProtectionZone extends FreeableHandle {

    /**
     * The PZ's parameters. Corresponds to {@code dat_pz_query()} (all fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    PzParams query();

    /**
     * Destroys the PZ. Corresponds to {@code dat_pz_free()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (subtype {@code DAT_INVALID_STATE_PZ_IN_USE}:
     *         an EP, LMR or RMR uses it), {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();

    /**
     * Creates an unbound Remote Memory Region in this PZ. Corresponds to {@code dat_rmr_create()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    RemoteMemoryRegion createRmr();
}
