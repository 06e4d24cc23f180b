package io.simrdma.dat;

import java.net.SocketAddress;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The parameters of an Endpoint ({@code DAT_EP_PARAM}), as {@link Endpoint#query()} returns them.
 * Handles that may be {@code DAT_HANDLE_NULL} (a provider-created EP has no PZ and no EVDs until the
 * consumer sets them) are optional. The remote address and port qualifier are present only in
 * {@link EndpointState#PASSIVE_CONNECTION_PENDING}, {@link EndpointState#ACTIVE_CONNECTION_PENDING},
 * {@link EndpointState#TENTATIVE_CONNECTION_PENDING}, {@link EndpointState#DISCONNECT_PENDING},
 * {@link EndpointState#COMPLETION_PENDING} and {@link EndpointState#CONNECTED}; the local port
 * qualifier in those states and possibly others (dat_ep_query; the page contradicts itself on which).
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA
 * @param state the EP state
 * @param localIaAddress the local IA address
 * @param localPortQual the local port qualifier, if bound
 * @param remoteIaAddress the remote IA address, if connected or connecting
 * @param remotePortQual the remote port qualifier, if connected or connecting
 * @param pz the PZ
 * @param recvEvd the EVD of receive completions
 * @param requestEvd the EVD of request (Send, RDMA, bind) completions
 * @param connectEvd the EVD of connection events
 * @param srq the SRQ of an EP created with one
 * @param attributes the EP attributes
 */
public record EpParams(
        InterfaceAdapter ia,
        EndpointState state,
        Optional<SocketAddress> localIaAddress,
        OptionalLong localPortQual,
        Optional<SocketAddress> remoteIaAddress,
        OptionalLong remotePortQual,
        Optional<ProtectionZone> pz,
        Optional<EventDispatcher> recvEvd,
        Optional<EventDispatcher> requestEvd,
        Optional<EventDispatcher> connectEvd,
        Optional<SharedReceiveQueue> srq,
        EpAttributes attributes) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public EpParams {
        Checks.notNull(ia, "ia");
        Checks.notNull(state, "state");
        Checks.notNull(localIaAddress, "localIaAddress");
        Checks.notNull(localPortQual, "localPortQual");
        Checks.notNull(remoteIaAddress, "remoteIaAddress");
        Checks.notNull(remotePortQual, "remotePortQual");
        Checks.notNull(pz, "pz");
        Checks.notNull(recvEvd, "recvEvd");
        Checks.notNull(requestEvd, "requestEvd");
        Checks.notNull(connectEvd, "connectEvd");
        Checks.notNull(srq, "srq");
        Checks.notNull(attributes, "attributes");
    }
}
