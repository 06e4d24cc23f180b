package io.simrdma.dat;

/**
 * A persistent Public Service Point ({@code DAT_PSP_HANDLE}), created by
 * {@link InterfaceAdapter#createPsp} or {@link InterfaceAdapter#createPspAny}: every connection
 * request arriving on its connection qualifier becomes a {@link ConnectionRequest} delivered in a
 * {@link ConnectionRequestEvent} on its EVD.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface PublicServicePoint extends ServicePoint {

    /**
     * The connection qualifier: the one given to dat_psp_create, or the one dat_psp_create_any
     * allocated.
     */
    @Override
    long connQual();

    /**
     * The PSP's parameters. Corresponds to {@code dat_psp_query()} (all fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    PspParams query();

    /**
     * Destroys the PSP; later requests for its qualifier are rejected as if nobody listened. Earlier
     * connection requests (and provider-created EPs) are not affected. Corresponds to
     * {@code dat_psp_free()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();
}
