package io.simrdma.dat;

/**
 * A pending Connection Request ({@code DAT_CR_HANDLE}), delivered in a
 * {@link ConnectionRequestEvent}. The consumer accepts, rejects or hands it off; each destroys it
 * (accept only on success), after which it and its private data are invalid.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface ConnectionRequest extends DatHandle {

    /**
     * The request's parameters: remote address and port qualifier, the requester's private data, and
     * the provider-created local EP if any. Corresponds to {@code dat_cr_query()} (all fields; no
     * mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    CrParams query();

    /**
     * Accepts the request on {@code ep} ({@code null} when the request names the EP: a
     * provider-created EP or the RSP's EP). Asynchronous: completion is an {@code ESTABLISHED}
     * {@link ConnectionEvent} on the EP's connect EVD, or {@code ACCEPT_COMPLETION_ERROR} (the EP is
     * then {@link EndpointState#DISCONNECTED} and its receives are flushed). If the EP does not
     * satisfy the request, nothing changes. Corresponds to {@code dat_cr_accept()}.
     *
     * @param privateData delivered to the requester with the establishment; copied
     * @throws DatException {@code DAT_INVALID_PARAMETER} (private data longer than
     *         {@link ProviderAttributes#maxPrivateDataSize()}, or an EP that does not satisfy the
     *         request), {@code DAT_INVALID_HANDLE} (CR or EP)
     */
    void accept(Endpoint ep, byte[] privateData);

    /**
     * Rejects the request (the requester sees {@code PEER_REJECTED}). A provider-created EP goes back
     * to the provider; an RSP's EP goes back to the consumer ({@link EndpointState#UNCONNECTED}).
     * Corresponds to {@code dat_cr_reject()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void reject();

    /**
     * Hands the request to the service point on connection qualifier {@code connQual} of the same
     * IA. Corresponds to {@code dat_cr_handoff()}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (no such service point),
     *         {@code DAT_INVALID_HANDLE}
     */
    void handoff(long connQual);
}
