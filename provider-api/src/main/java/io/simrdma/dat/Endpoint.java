package io.simrdma.dat;

import java.net.SocketAddress;
import java.util.List;
import java.util.Set;

/**
 * An Endpoint ({@code DAT_EP_HANDLE}): one end of a reliable connection, created by
 * {@link InterfaceAdapter#createEndpoint} or {@link InterfaceAdapter#createEndpointWithSrq}, or by
 * the provider for a {@link PspFlag#PROVIDER} PSP. Its state is an {@link EndpointState}; which
 * operation is allowed in which state is summarised in {@code shared/spec/ep-state-machine.md}.
 *
 * <p>Buffers: a post names registered memory through {@link LmrTriplet}s. The consumer must not
 * change the memory of a posted DTO until its completion event; the list of triplets itself may be
 * reused once the post returns (whatever {@link ProviderAttributes#iovOwnershipOnReturn()} says, a
 * Java provider never keeps the caller's {@link List}). Private data ({@code byte[]}) is copied by
 * the provider before the call returns; the consumer keeps ownership of its array. {@code null}
 * private data is the same as an empty array.
 *
 * <p>Cookies: {@code DAT_DTO_COOKIE} is a {@code long}, returned untouched in the completion event.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface Endpoint extends FreeableHandle {

    /**
     * The EP's parameters and attributes. Corresponds to {@code dat_ep_query()} (all fields; no
     * mask). Remote address and port qualifiers are present only in the states the man page lists.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    EpParams query();

    /**
     * Changes the parameters named in {@code modification}. Corresponds to {@code dat_ep_modify()};
     * {@link EpModify#fields()} is the mask.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (a value invalid or not supported),
     *         {@code DAT_INVALID_STATE} (a field that cannot change in the EP's current state, for
     *         example anything while {@link EndpointState#CONNECTED}), {@code DAT_INVALID_HANDLE}
     */
    void modify(EpModify modification);

    /**
     * Requests a connection to the remote IA {@code remoteIaAddress} on connection qualifier
     * {@code remoteConnQual}; the EP moves to {@link EndpointState#ACTIVE_CONNECTION_PENDING}.
     * Corresponds to {@code dat_ep_connect()}. The outcome arrives on the connect EVD as a
     * {@link ConnectionEvent}: {@code ESTABLISHED} (the peer's private data), or
     * {@code PEER_REJECTED}, {@code NON_PEER_REJECTED}, {@code UNREACHABLE}, {@code TIMED_OUT} (the
     * EP is then {@link EndpointState#DISCONNECTED}).
     *
     * @param timeout how long to wait for establishment; must be positive
     * @param privateData delivered to the peer in the connection request; copied
     * @throws DatException {@code DAT_INVALID_STATE} (EP not {@link EndpointState#UNCONNECTED}),
     *         {@code DAT_INVALID_PARAMETER} (for example private data longer than
     *         {@link ProviderAttributes#maxPrivateDataSize()}), {@code DAT_INVALID_ADDRESS},
     *         {@code DAT_MODEL_NOT_SUPPORTED} (qos), {@code DAT_INVALID_HANDLE},
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void connect(
            SocketAddress remoteIaAddress,
            long remoteConnQual,
            Timeout timeout,
            byte[] privateData,
            Qos qos,
            Set<ConnectFlag> connectFlags);

    /**
     * Requests a connection to the same remote end as the connected local EP {@code dupEp}.
     * Corresponds to {@code dat_ep_dup_connect()}; outcomes as {@link #connect}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (this EP not unconnected, or {@code dupEp} not
     *         connected), {@code DAT_INVALID_PARAMETER}, {@code DAT_MODEL_NOT_SUPPORTED},
     *         {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void dupConnect(Endpoint dupEp, Timeout timeout, byte[] privateData, Qos qos);

    /**
     * Terminates the connection or its establishment. Corresponds to {@code dat_ep_disconnect()}.
     * Abrupt: outstanding DTOs and binds are flushed and the EP becomes
     * {@link EndpointState#DISCONNECTED}. Graceful (from {@link EndpointState#CONNECTED}): the EP is
     * {@link EndpointState#DISCONNECT_PENDING} until request DTOs and binds have had their chance to
     * complete. Completion is a {@code DISCONNECTED} {@link ConnectionEvent}. On a disconnected EP
     * this is a no-op.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (in {@link EndpointState#UNCONNECTED},
     *         {@link EndpointState#RESERVED}, {@link EndpointState#PASSIVE_CONNECTION_PENDING} or
     *         {@link EndpointState#TENTATIVE_CONNECTION_PENDING}), {@code DAT_INVALID_PARAMETER}
     *         (null flag), {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void disconnect(CloseFlag flag);

    /**
     * Moves a disconnected EP back to {@link EndpointState#UNCONNECTED}; completions not yet
     * dequeued may be lost. No-op when already unconnected. Corresponds to {@code dat_ep_reset()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE}, {@code DAT_INVALID_HANDLE}
     */
    void reset();

    /**
     * Destroys the EP, aborting any connection establishment. Corresponds to {@code dat_ep_free()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (in {@link EndpointState#RESERVED},
     *         {@link EndpointState#PASSIVE_CONNECTION_PENDING} or
     *         {@link EndpointState#TENTATIVE_CONNECTION_PENDING}), {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();

    /**
     * A snapshot of the EP's state and whether receives and requests are idle. Corresponds to
     * {@code dat_ep_get_status()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    EpStatus status();

    /**
     * Sends the data of {@code localIov} (empty for a zero-size message). Corresponds to
     * {@code dat_ep_post_send()}. Valid in {@link EndpointState#CONNECTED} and
     * {@link EndpointState#DISCONNECTED} (flushed at once); completes with a
     * {@link DtoCompletionEvent} on the request EVD.
     *
     * @throws DatException {@code DAT_INVALID_STATE}, {@code DAT_INVALID_PARAMETER} (a segment
     *         outside its LMR; {@link CompletionFlag#UNSIGNALLED} while the EP's request completion
     *         flags are not unsignalled), {@code DAT_PROTECTION_VIOLATION} (LMR in another PZ),
     *         {@code DAT_PRIVILEGES_VIOLATION} (LMR invalid or without local read),
     *         {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void postSend(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags);

    /**
     * Posts a receive buffer (empty {@code localIov} for a zero-size message). Corresponds to
     * {@code dat_ep_post_recv()}. Valid in every state; data moves once
     * {@link EndpointState#CONNECTED}; flushed at once when {@link EndpointState#DISCONNECTED}. A
     * message longer than the buffer completes with {@link DtoCompletionStatus#ERR_LOCAL_LENGTH}.
     * Not allowed on an EP created with an SRQ (post to the SRQ).
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (a segment outside its LMR;
     *         {@link CompletionFlag#UNSIGNALLED} while the EP's receive completion flags are not
     *         unsignalled), {@code DAT_PROTECTION_VIOLATION}, {@code DAT_PRIVILEGES_VIOLATION} (LMR
     *         invalid or without local write), {@code DAT_INVALID_HANDLE},
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void postRecv(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags);

    /**
     * Reads the remote buffer {@code remoteBuffer} into {@code localIov}. Corresponds to
     * {@code dat_ep_post_rdma_read()}. Valid in {@link EndpointState#CONNECTED} and
     * {@link EndpointState#DISCONNECTED} (flushed at once).
     *
     * @throws DatException {@code DAT_INVALID_STATE}, {@code DAT_INVALID_PARAMETER},
     *         {@code DAT_LENGTH_ERROR} (local buffer smaller than the remote one),
     *         {@code DAT_PROTECTION_VIOLATION}, {@code DAT_PRIVILEGES_VIOLATION} (LMR without local
     *         write), {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void postRdmaRead(
            List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer, Set<CompletionFlag> completionFlags);

    /**
     * Writes the data of {@code localIov} into the remote buffer {@code remoteBuffer}. Corresponds to
     * {@code dat_ep_post_rdma_write()}. Valid in {@link EndpointState#CONNECTED} and
     * {@link EndpointState#DISCONNECTED} (flushed at once).
     *
     * @throws DatException {@code DAT_INVALID_STATE}, {@code DAT_INVALID_PARAMETER},
     *         {@code DAT_LENGTH_ERROR} (remote buffer smaller than the local data),
     *         {@code DAT_PROTECTION_VIOLATION}, {@code DAT_PRIVILEGES_VIOLATION} (LMR without local
     *         read), {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void postRdmaWrite(
            List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer, Set<CompletionFlag> completionFlags);

    /**
     * The receive buffers the EP holds and their span. Corresponds to {@code dat_ep_recv_query()}.
     *
     * @throws DatException {@code DAT_MODEL_NOT_SUPPORTED} (neither count supported),
     *         {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    EpRecvInfo recvQuery();

    /**
     * Sets and arms the soft and hard high watermarks of receive buffers held by the EP
     * ({@link Dat#WATERMARK_INFINITE}: none). Exceeding the soft one raises one asynchronous event on
     * the IA's asynchronous EVD; exceeding the hard one breaks the connection. Valid in every state.
     * Corresponds to {@code dat_ep_set_watermark()}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_MODEL_NOT_SUPPORTED},
     *         {@code DAT_INVALID_HANDLE}
     */
    void setWatermark(int softHighWatermark, int hardHighWatermark);
}
