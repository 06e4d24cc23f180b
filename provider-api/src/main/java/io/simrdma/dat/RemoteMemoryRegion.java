package io.simrdma.dat;

import java.util.Set;

/**
 * A Remote Memory Region ({@code DAT_RMR_HANDLE}): a window onto part of an LMR that a peer may
 * access by RDMA, created unbound by {@link ProtectionZone#createRmr()} (dat_rmr_create) and bound
 * with {@link #bind}.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface RemoteMemoryRegion extends FreeableHandle {

    /**
     * Binds the RMR to the region {@code lmrTriplet} of an LMR with remote {@code privileges}, posted
     * on {@code ep}, and returns the new {@code rmr_context} for the peer. Corresponds to
     * {@code dat_rmr_bind()}. The bind completes asynchronously with an
     * {@link RmrBindCompletionEvent} carrying {@code userCookie} on the EP's request EVD (subject to
     * {@code completionFlags}); it fences later Sends, RDMA and binds on the EP; an earlier
     * rmr_context of this RMR stops working. A zero-length triplet unbinds ({@link #unbind}); the
     * returned value is then undefined. Valid in {@link EndpointState#CONNECTED} and
     * {@link EndpointState#DISCONNECTED} (flushed at once). If the bind fails after returning, the
     * connection breaks ({@link EventNumber#CONNECTION_EVENT_BROKEN}).
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (range outside the LMR, or
     *         {@link CompletionFlag#UNSIGNALLED} while the EP's request completion flags are not
     *         unsignalled), {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_STATE} (EP state),
     *         {@code DAT_PRIVILEGES_VIOLATION} (for example remote read without the LMR's local
     *         read), {@code DAT_PROTECTION_VIOLATION}, {@code DAT_MODEL_NOT_SUPPORTED},
     *         {@code DAT_INSUFFICIENT_RESOURCES}
     */
    int bind(
            LmrTriplet lmrTriplet,
            Set<MemoryPrivilege> privileges,
            Endpoint ep,
            long userCookie,
            Set<CompletionFlag> completionFlags);

    /**
     * Unbinds the RMR: {@code dat_rmr_bind()} with a zero-length LMR triplet, which the man page
     * defines as associating the RMR with no memory. Completes like a bind.
     *
     * @throws DatException as {@link #bind}
     */
    default void unbind(Endpoint ep, long userCookie, Set<CompletionFlag> completionFlags) {
        bind(LmrTriplet.EMPTY, Set.of(), ep, userCookie, completionFlags);
    }

    /**
     * The RMR's parameters; the binding is empty while unbound. Corresponds to {@code dat_rmr_query()}
     * (all fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    RmrParams query();

    /**
     * Destroys the RMR, unbinding it first if bound. Corresponds to {@code dat_rmr_free()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();
}
