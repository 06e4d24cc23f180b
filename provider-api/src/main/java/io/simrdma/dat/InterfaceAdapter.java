package io.simrdma.dat;

import java.util.List;
import java.util.Set;

/**
 * An open instance of an Interface Adapter ({@code DAT_IA_HANDLE}), the root of every other DAT
 * object; obtained from {@link Dat#openIa} / {@link DatRegistry#openIa} (dat_ia_open). The methods
 * that create objects are the dat functions whose first argument is the IA handle.
 * {@link #close()} closes abruptly ({@code DAT_CLOSE_DEFAULT}), so an IA can be used in
 * try-with-resources.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface InterfaceAdapter extends DatHandle, AutoCloseable {

    /**
     * The IA's asynchronous EVD, IA attributes and provider attributes. Corresponds to
     * {@code dat_ia_query()}; the attribute masks are not needed, every field is filled.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE} if the IA is closed
     */
    IaQueryResult query();

    /**
     * Closes the IA. Corresponds to {@code dat_ia_close()}. {@link CloseFlag#ABRUPT} destroys every
     * object of the IA (service points, EPs, CRs, LMRs, RMRs, EVDs, CNOs, PZs); CNO waiters return
     * with no EVD, EVD waiters fail with {@code DAT_ABORT}. {@link CloseFlag#GRACEFUL} succeeds only
     * if the consumer freed every object it created (the asynchronous EVD the provider created does
     * not count). An asynchronous EVD created by dat_ia_open is destroyed; one the consumer passed in
     * is not.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (graceful close with objects left),
     *         {@code DAT_INVALID_HANDLE} (already closed), {@code DAT_INVALID_PARAMETER} (null flag),
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    void close(CloseFlag flag);

    /** Abrupt close, {@code dat_ia_close(ia, DAT_CLOSE_DEFAULT)}; see {@link #close(CloseFlag)}. */
    @Override
    default void close() {
        close(CloseFlag.DEFAULT);
    }

    /**
     * Creates an Event Dispatcher with a queue of at least {@code minQlen} events, fed by the event
     * streams in {@code flags} and notifying {@code cno} ({@code null}: no CNO). Corresponds to
     * {@code dat_evd_create()} (udat.h; it has no man page).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE} (IA or CNO), {@code DAT_INVALID_PARAMETER}
     *         (queue length or flags), {@code DAT_INSUFFICIENT_RESOURCES},
     *         {@code DAT_MODEL_NOT_SUPPORTED} (stream combination the provider cannot merge)
     */
    EventDispatcher createEvd(int minQlen, ConsumerNotificationObject cno, Set<EvdFlag> flags);

    /** {@link #createEvd(int, ConsumerNotificationObject, Set)} with no CNO. */
    default EventDispatcher createEvd(int minQlen, Set<EvdFlag> flags) {
        return createEvd(minQlen, null, flags);
    }

    /**
     * Creates a Consumer Notification Object with an optional OS Wait Proxy Agent ({@code null}:
     * {@code DAT_OS_WAIT_PROXY_AGENT_NULL}). Corresponds to {@code dat_cno_create()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER},
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    ConsumerNotificationObject createCno(WaitProxyAgent agent);

    /**
     * Creates a Protection Zone. Corresponds to {@code dat_pz_create()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER},
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    ProtectionZone createPz();

    /**
     * Registers memory as a Local Memory Region in {@code pz} with {@code privileges} (empty:
     * {@code DAT_MEM_PRIV_NONE_FLAG}). Corresponds to {@code dat_lmr_create()}; the region
     * description carries the memory type. The memory is registered, never copied: for a
     * {@link RegionDescription.Virtual} region the consumer owns the {@link java.nio.ByteBuffer}
     * (heap or direct), keeps it reachable and must not reuse it for other data while the LMR
     * exists; DTOs and remote RDMA read and write it in place. The created LMR's
     * {@code lmr_context}, {@code rmr_context} (only with a remote privilege), registered size and
     * address are on the returned object.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE} (IA, PZ or region LMR),
     *         {@code DAT_INVALID_PARAMETER} (for example a read-only buffer with a write privilege),
     *         {@code DAT_INVALID_STATE}, {@code DAT_MODEL_NOT_SUPPORTED} (memory type),
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    LocalMemoryRegion createLmr(RegionDescription region, ProtectionZone pz, Set<MemoryPrivilege> privileges);

    /**
     * Makes local memory changes visible to incoming RDMA Reads of {@code segments} (needed only if
     * {@link ProviderAttributes#lmrSyncRequired()}). Corresponds to {@code dat_lmr_sync_rdma_read()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER} (a segment
     *         outside its LMR, or an unknown LMR)
     */
    void syncRdmaRead(List<LmrTriplet> segments);

    /**
     * Makes memory written by incoming RDMA Writes to {@code segments} visible locally (needed only
     * if {@link ProviderAttributes#lmrSyncRequired()}). Corresponds to
     * {@code dat_lmr_sync_rdma_write()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER} (a segment
     *         outside its LMR, or an unknown LMR)
     */
    void syncRdmaWrite(List<LmrTriplet> segments);

    /**
     * Creates an Endpoint in {@link EndpointState#UNCONNECTED}. Corresponds to
     * {@code dat_ep_create()}. Each EVD may be {@code null} ({@code DAT_HANDLE_NULL}: no interest in
     * that stream); {@code attributes} may be {@code null} to take the provider's defaults (query
     * them before use).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER} (an attribute
     *         or a combination, for example completion flags that do not match another stream of the
     *         same EVD), {@code DAT_MODEL_NOT_SUPPORTED}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    Endpoint createEndpoint(
            ProtectionZone pz,
            EventDispatcher recvEvd,
            EventDispatcher requestEvd,
            EventDispatcher connectEvd,
            EpAttributes attributes);

    /**
     * Creates an Endpoint in {@link EndpointState#UNCONNECTED} whose receive buffers come from
     * {@code srq}, permanently. Corresponds to {@code dat_ep_create_with_srq()}. {@code attributes}
     * must not be null; {@code max_recv_iov} is ignored.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER} (for example a
     *         PZ other than the SRQ's when {@link ProviderAttributes#srqEpPzDifferenceSupported()} is
     *         false), {@code DAT_MODEL_NOT_SUPPORTED}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    Endpoint createEndpointWithSrq(
            ProtectionZone pz,
            EventDispatcher recvEvd,
            EventDispatcher requestEvd,
            EventDispatcher connectEvd,
            SharedReceiveQueue srq,
            EpAttributes attributes);

    /**
     * Creates a persistent Public Service Point listening on {@code connQual}; connection requests
     * arrive on {@code evd} as {@link ConnectionRequestEvent}s (the EVD's queue length is the
     * backlog). Corresponds to {@code dat_psp_create()}.
     *
     * @throws DatException {@code DAT_CONN_QUAL_IN_USE}, {@code DAT_INVALID_HANDLE} (IA or EVD),
     *         {@code DAT_INVALID_PARAMETER} (connection qualifier or flag),
     *         {@code DAT_MODEL_NOT_SUPPORTED} (flag), {@code DAT_INSUFFICIENT_RESOURCES}
     */
    PublicServicePoint createPsp(long connQual, EventDispatcher evd, PspFlag flag);

    /**
     * Creates a Public Service Point on an unused connection qualifier the provider chooses;
     * {@link PublicServicePoint#connQual()} returns it. Corresponds to {@code dat_psp_create_any()}
     * (whose header declares the qualifier OUT; the man page synopsis shows IN).
     *
     * @throws DatException {@code DAT_CONN_QUAL_UNAVAILABLE}, {@code DAT_INVALID_HANDLE},
     *         {@code DAT_INVALID_PARAMETER}, {@code DAT_MODEL_NOT_SUPPORTED},
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    PublicServicePoint createPspAny(EventDispatcher evd, PspFlag flag);

    /**
     * Creates a Reserved Service Point on {@code connQual} that yields at most one connection
     * request, to be accepted only by {@code ep}, which must be given (the man page creates an RSP
     * "with the specified Endpoint" and lists an invalid ep_handle as DAT_INVALID_HANDLE). The EP
     * moves to {@link EndpointState#RESERVED}. Corresponds to {@code dat_rsp_create()}.
     *
     * @throws DatException {@code DAT_CONN_QUAL_IN_USE}, {@code DAT_INVALID_HANDLE},
     *         {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_STATE} (EP not idle, that is not
     *         {@link EndpointState#UNCONNECTED}), {@code DAT_INSUFFICIENT_RESOURCES}
     */
    ReservedServicePoint createRsp(long connQual, Endpoint ep, EventDispatcher evd);

    /**
     * Creates a Shared Receive Queue in {@code pz}, attached to no EP. Corresponds to
     * {@code dat_srq_create()}. Set the low watermark to {@link Dat#SRQ_LW_DEFAULT} so that no
     * event fires at once.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE} (IA or PZ), {@code DAT_INVALID_PARAMETER},
     *         {@code DAT_MODEL_NOT_SUPPORTED}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    SharedReceiveQueue createSrq(ProtectionZone pz, SrqAttributes attributes);
}
