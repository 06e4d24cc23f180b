package io.simrdma.dat;

/**
 * A Reserved Service Point ({@code DAT_RSP_HANDLE}), created by {@link InterfaceAdapter#createRsp}:
 * yields at most one connection request, which only its EP can accept; on arrival the EP moves from
 * {@link EndpointState#RESERVED} to {@link EndpointState#PASSIVE_CONNECTION_PENDING}.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface ReservedServicePoint extends ServicePoint {

    /**
     * The RSP's parameters. Corresponds to {@code dat_rsp_query()} (all fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    RspParams query();

    /**
     * Destroys the RSP; its EP returns to consumer control ({@link EndpointState#UNCONNECTED}).
     * Later requests for its qualifier are rejected as if nobody listened. Corresponds to
     * {@code dat_rsp_free()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();
}
