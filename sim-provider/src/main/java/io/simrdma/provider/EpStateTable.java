package io.simrdma.provider;

import static io.simrdma.dat.EndpointState.ACTIVE_CONNECTION_PENDING;
import static io.simrdma.dat.EndpointState.COMPLETION_PENDING;
import static io.simrdma.dat.EndpointState.CONNECTED;
import static io.simrdma.dat.EndpointState.DISCONNECTED;
import static io.simrdma.dat.EndpointState.DISCONNECT_PENDING;
import static io.simrdma.dat.EndpointState.PASSIVE_CONNECTION_PENDING;
import static io.simrdma.dat.EndpointState.RESERVED;
import static io.simrdma.dat.EndpointState.TENTATIVE_CONNECTION_PENDING;
import static io.simrdma.dat.EndpointState.UNCONNECTED;

import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EndpointState;
import java.util.EnumMap;
import java.util.Map;

/**
 * The DAT endpoint state machine as one table: for each of the nine states the man pages use and
 * each operation, what happens (allowed, a no-op, flushed, or refused with DAT_INVALID_STATE and
 * the subtype naming the state), the state it leads to, the events it produces and the EVD they
 * go to, and the man page that says so. {@link SimEp} and its parts ({@link EpConnection},
 * {@link EpPosting}, {@link EpConfiguration}) consult it before every state-dependent operation
 * instead of repeating state checks.
 *
 * <p>Where the pages are SILENT or in CONFLICT (../shared/spec/ep-state-machine.md, section 7),
 * the row says which choice was made and why (the {@code choice} column).
 */
final class EpStateTable {

    /** What an operation does in a state. */
    enum Kind {
        /** Allowed; the operation's own logic runs. */
        ALLOW,
        /** Allowed, and has no effect. */
        NOOP,
        /** Allowed; a posted work request completes at once as flushed. */
        FLUSH,
        /** Refused with DAT_INVALID_STATE. */
        REFUSE
    }

    /**
     * One row.
     *
     * @param kind   what happens
     * @param next   the state it leads to (null: unchanged, or decided by later events)
     * @param events events and their EVD, as text
     * @param source the man page(s) the row comes from
     * @param choice for SILENT/CONFLICT cases: the choice made and why; null otherwise
     */
    record Rule(Kind kind, EndpointState next, String events, String source, String choice) {}

    private static final Map<EndpointState, Map<EpOp, Rule>> TABLE = new EnumMap<>(EndpointState.class);

    static {
        EndpointState[] all = {
            UNCONNECTED,
            RESERVED,
            PASSIVE_CONNECTION_PENDING,
            TENTATIVE_CONNECTION_PENDING,
            ACTIVE_CONNECTION_PENDING,
            COMPLETION_PENDING,
            CONNECTED,
            DISCONNECT_PENDING,
            DISCONNECTED
        };
        for (EndpointState s : all) {
            TABLE.put(s, new EnumMap<>(EpOp.class));
            // Valid in every state (dat_ep_query, dat_ep_get_status, dat_ep_set_watermark, dat_ep_post_recv).
            allow(s, EpOp.QUERY, null, "none", "dat_ep_query");
            allow(s, EpOp.GET_STATUS, null, "none", "dat_ep_get_status");
            allow(s, EpOp.SET_WATERMARK, null, "none", "dat_ep_set_watermark");
            rule(
                    s,
                    EpOp.RECV_QUERY,
                    Kind.ALLOW,
                    null,
                    "none",
                    "dat_ep_recv_query",
                    "S7 SILENT: allowed in every state, as query-like calls are; it only reads counts");
            if (s != DISCONNECTED) {
                allow(s, EpOp.POST_RECV, null, "DTO completion on recv_evd when a message arrives", "dat_ep_post_recv");
            }
        }

        // --- 2.1 UNCONNECTED
        allow(
                UNCONNECTED,
                EpOp.CONNECT,
                ACTIVE_CONNECTION_PENDING,
                "later ESTABLISHED / PEER_REJECTED / NON_PEER_REJECTED / UNREACHABLE / TIMED_OUT on connect_evd",
                "dat_ep_connect");
        rule(
                UNCONNECTED,
                EpOp.DUP_CONNECT,
                Kind.ALLOW,
                ACTIVE_CONNECTION_PENDING,
                "as dat_ep_connect",
                "dat_ep_dup_connect",
                "S7 SILENT: valid in UNCONNECTED only, by analogy with dat_ep_connect");
        refuse(
                UNCONNECTED,
                EpOp.DISCONNECT_ABRUPT,
                "dat_ep_disconnect",
                "C3 CONFLICT: the page calls disconnecting an UNCONNECTED EP disallowed and lists DAT_INVALID_STATE; refused");
        refuse(UNCONNECTED, EpOp.DISCONNECT_GRACEFUL, "dat_ep_disconnect", "C3 CONFLICT: as abrupt");
        rule(UNCONNECTED, EpOp.RESET, Kind.NOOP, null, "none; pre-posted receives untouched", "dat_ep_reset", null);
        allow(UNCONNECTED, EpOp.FREE, null, "the EP's streams leave their EVDs", "dat_ep_free");
        allow(UNCONNECTED, EpOp.MODIFY_PZ, null, "none", "dat_ep_modify");
        allow(UNCONNECTED, EpOp.MODIFY_ATTRIBUTES, null, "none", "dat_ep_modify");
        allow(UNCONNECTED, EpOp.MODIFY_RECV_FLAGS, null, "none (only before any receive is posted)", "dat_ep_modify");
        allow(UNCONNECTED, EpOp.MODIFY_SPECIFIC_ATTRIBUTES, null, "none", "dat_ep_modify");
        refuse(UNCONNECTED, EpOp.POST_SEND, "dat_ep_post_send", null);
        refuse(UNCONNECTED, EpOp.POST_RDMA_READ, "dat_ep_post_rdma_read", null);
        refuse(UNCONNECTED, EpOp.POST_RDMA_WRITE, "dat_ep_post_rdma_write", null);
        refuse(UNCONNECTED, EpOp.RMR_BIND, "dat_rmr_bind", null);
        allow(
                UNCONNECTED,
                EpOp.RSP_CREATE,
                RESERVED,
                "a later request: DAT_CONNECTION_REQUEST_EVENT on the RSP's evd",
                "dat_rsp_create");
        rule(
                UNCONNECTED,
                EpOp.CR_ACCEPT,
                Kind.ALLOW,
                COMPLETION_PENDING,
                "ESTABLISHED or ACCEPT_COMPLETION_ERROR on connect_evd",
                "dat_cr_accept, dat_psp_create",
                "S4 SILENT: the state between a successful accept and ESTABLISHED is COMPLETION_PENDING, the one state "
                        + "dat_ep_disconnect and dat_ep_query name for 'during connection establishment'");
        notNamed(UNCONNECTED);

        // --- 2.2 RESERVED
        refuse(RESERVED, EpOp.CONNECT, "dat_ep_connect", null);
        refuse(RESERVED, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        refuse(RESERVED, EpOp.DISCONNECT_ABRUPT, "dat_ep_disconnect", null);
        refuse(RESERVED, EpOp.DISCONNECT_GRACEFUL, "dat_ep_disconnect", null);
        refuse(RESERVED, EpOp.RESET, "dat_ep_reset", null);
        refuse(RESERVED, EpOp.FREE, "dat_ep_free", null);
        refuse(
                RESERVED,
                EpOp.MODIFY_PZ,
                "dat_ep_modify",
                "C10 CONFLICT: the PZ row names only quiescent, UNCONNECTED and TENTATIVE states; refused here");
        allow(RESERVED, EpOp.MODIFY_ATTRIBUTES, null, "none", "dat_ep_modify");
        allow(RESERVED, EpOp.MODIFY_RECV_FLAGS, null, "none (only before any receive is posted)", "dat_ep_modify");
        refuse(
                RESERVED,
                EpOp.MODIFY_SPECIFIC_ATTRIBUTES,
                "dat_ep_modify",
                "transport- and provider-specific attributes \"can be modified when in Quiescent (unconnected) state\"; "
                        + "the quiescent states are UNCONNECTED and TENTATIVE_CONNECTION_PENDING (the PZ row)");
        refuse(RESERVED, EpOp.POST_SEND, "dat_ep_post_send", null);
        refuse(RESERVED, EpOp.POST_RDMA_READ, "dat_ep_post_rdma_read", null);
        refuse(RESERVED, EpOp.POST_RDMA_WRITE, "dat_ep_post_rdma_write", null);
        refuse(RESERVED, EpOp.RMR_BIND, "dat_rmr_bind", null);
        refuse(RESERVED, EpOp.RSP_CREATE, "dat_rsp_create", null);
        refuse(
                RESERVED,
                EpOp.CR_ACCEPT,
                "dat_cr_accept",
                "S2 SILENT: nothing was requested of a RESERVED EP yet; refused with DAT_INVALID_STATE");
        notNamed(RESERVED);

        // --- 2.3 PASSIVE_CONNECTION_PENDING
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.CONNECT, "dat_ep_connect", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.DISCONNECT_ABRUPT, "dat_ep_disconnect", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.DISCONNECT_GRACEFUL, "dat_ep_disconnect", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.RESET, "dat_ep_reset", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.FREE, "dat_ep_free", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.MODIFY_PZ, "dat_ep_modify", "C10 CONFLICT: as RESERVED");
        allow(PASSIVE_CONNECTION_PENDING, EpOp.MODIFY_ATTRIBUTES, null, "none", "dat_ep_modify");
        allow(
                PASSIVE_CONNECTION_PENDING,
                EpOp.MODIFY_RECV_FLAGS,
                null,
                "none (only before any receive is posted)",
                "dat_ep_modify");
        refuse(
                PASSIVE_CONNECTION_PENDING,
                EpOp.MODIFY_SPECIFIC_ATTRIBUTES,
                "dat_ep_modify",
                "not quiescent, as RESERVED");
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.POST_SEND, "dat_ep_post_send", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.POST_RDMA_READ, "dat_ep_post_rdma_read", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.POST_RDMA_WRITE, "dat_ep_post_rdma_write", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.RMR_BIND, "dat_rmr_bind", null);
        refuse(PASSIVE_CONNECTION_PENDING, EpOp.RSP_CREATE, "dat_rsp_create", null);
        allow(
                PASSIVE_CONNECTION_PENDING,
                EpOp.CR_ACCEPT,
                COMPLETION_PENDING,
                "ESTABLISHED or ACCEPT_COMPLETION_ERROR on connect_evd",
                "dat_cr_accept, dat_rsp_create");
        allow(
                PASSIVE_CONNECTION_PENDING,
                EpOp.CR_REJECT,
                UNCONNECTED,
                "remote: PEER_REJECTED",
                "dat_cr_reject, dat_rsp_create");

        // --- 2.4 TENTATIVE_CONNECTION_PENDING (provider-created EP of a PSP)
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.CONNECT, "dat_ep_connect", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.DISCONNECT_ABRUPT, "dat_ep_disconnect", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.DISCONNECT_GRACEFUL, "dat_ep_disconnect", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.RESET, "dat_ep_reset", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.FREE, "dat_ep_free", "reject the request instead (dat_cr_reject)");
        allow(TENTATIVE_CONNECTION_PENDING, EpOp.MODIFY_PZ, null, "none", "dat_ep_modify");
        allow(TENTATIVE_CONNECTION_PENDING, EpOp.MODIFY_ATTRIBUTES, null, "none", "dat_ep_modify");
        allow(
                TENTATIVE_CONNECTION_PENDING,
                EpOp.MODIFY_RECV_FLAGS,
                null,
                "none (only before any receive is posted)",
                "dat_ep_modify");
        allow(
                TENTATIVE_CONNECTION_PENDING,
                EpOp.MODIFY_SPECIFIC_ATTRIBUTES,
                null,
                "none (a quiescent state)",
                "dat_ep_modify");
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.POST_SEND, "dat_ep_post_send", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.POST_RDMA_READ, "dat_ep_post_rdma_read", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.POST_RDMA_WRITE, "dat_ep_post_rdma_write", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.RMR_BIND, "dat_rmr_bind", null);
        refuse(TENTATIVE_CONNECTION_PENDING, EpOp.RSP_CREATE, "dat_rsp_create", null);
        allow(
                TENTATIVE_CONNECTION_PENDING,
                EpOp.CR_ACCEPT,
                COMPLETION_PENDING,
                "ESTABLISHED or ACCEPT_COMPLETION_ERROR on connect_evd",
                "dat_cr_accept");
        allow(
                TENTATIVE_CONNECTION_PENDING,
                EpOp.CR_REJECT,
                null,
                "remote: PEER_REJECTED; the EP goes back to the provider (freed)",
                "dat_cr_reject, dat_ep_free");

        // --- 2.5 ACTIVE_CONNECTION_PENDING
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.CONNECT, "dat_ep_connect", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        rule(
                ACTIVE_CONNECTION_PENDING,
                EpOp.DISCONNECT_ABRUPT,
                Kind.ALLOW,
                DISCONNECTED,
                "flushed receives on recv_evd; DISCONNECTED on connect_evd",
                "dat_ep_disconnect",
                "S1 SILENT: aborting establishment posts DAT_CONNECTION_EVENT_DISCONNECTED so the consumer always gets a "
                        + "final connection event for its connect");
        rule(
                ACTIVE_CONNECTION_PENDING,
                EpOp.DISCONNECT_GRACEFUL,
                Kind.ALLOW,
                DISCONNECTED,
                "as abrupt",
                "dat_ep_disconnect",
                "S1 SILENT: as abrupt (the page gives both the same effect here)");
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.RESET, "dat_ep_reset", null);
        rule(
                ACTIVE_CONNECTION_PENDING,
                EpOp.FREE,
                Kind.ALLOW,
                null,
                "the connection attempt is abandoned with a reject",
                "dat_ep_free",
                "S1 SILENT: a peer that accepts the abandoned request gets ACCEPT_COMPLETION_ERROR (when the "
                        + "reject reaches it, or when its REP retries run out: a reject sent before any REP names no "
                        + "connection the passive CM knows, as in ib_cm)");
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.MODIFY_PZ, "dat_ep_modify", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.MODIFY_ATTRIBUTES, "dat_ep_modify", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.MODIFY_RECV_FLAGS, "dat_ep_modify", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.MODIFY_SPECIFIC_ATTRIBUTES, "dat_ep_modify", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.POST_SEND, "dat_ep_post_send", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.POST_RDMA_READ, "dat_ep_post_rdma_read", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.POST_RDMA_WRITE, "dat_ep_post_rdma_write", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.RMR_BIND, "dat_rmr_bind", null);
        refuse(ACTIVE_CONNECTION_PENDING, EpOp.RSP_CREATE, "dat_rsp_create", null);
        refuse(
                ACTIVE_CONNECTION_PENDING,
                EpOp.CR_ACCEPT,
                "dat_cr_accept",
                "S2 SILENT: an EP already connecting cannot accept");
        notNamed(ACTIVE_CONNECTION_PENDING);

        // --- 2.6 COMPLETION_PENDING (passive side after accept, before ESTABLISHED; S4/C5)
        refuse(COMPLETION_PENDING, EpOp.CONNECT, "dat_ep_connect", null);
        refuse(COMPLETION_PENDING, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        allow(
                COMPLETION_PENDING,
                EpOp.DISCONNECT_ABRUPT,
                DISCONNECTED,
                "flushed receives on recv_evd; DISCONNECTED on connect_evd",
                "dat_ep_disconnect");
        allow(COMPLETION_PENDING, EpOp.DISCONNECT_GRACEFUL, DISCONNECTED, "as abrupt", "dat_ep_disconnect");
        rule(
                COMPLETION_PENDING,
                EpOp.RESET,
                Kind.REFUSE,
                null,
                "none",
                "dat_ep_reset",
                "C5 SILENT: reset is valid only in DISCONNECTED and UNCONNECTED; refused");
        rule(
                COMPLETION_PENDING,
                EpOp.FREE,
                Kind.ALLOW,
                null,
                "the accepted connection is torn down",
                "dat_ep_free",
                "C5 SILENT: dat_ep_free refuses only RESERVED and the two request-pending states; allowed");
        refuse(COMPLETION_PENDING, EpOp.MODIFY_PZ, "dat_ep_modify", null);
        refuse(COMPLETION_PENDING, EpOp.MODIFY_ATTRIBUTES, "dat_ep_modify", null);
        refuse(COMPLETION_PENDING, EpOp.MODIFY_RECV_FLAGS, "dat_ep_modify", null);
        refuse(COMPLETION_PENDING, EpOp.MODIFY_SPECIFIC_ATTRIBUTES, "dat_ep_modify", null);
        rule(
                COMPLETION_PENDING,
                EpOp.POST_SEND,
                Kind.REFUSE,
                null,
                "none",
                "dat_ep_post_send",
                "C5 SILENT: posts are valid only in CONNECTED and DISCONNECTED; refused");
        rule(
                COMPLETION_PENDING,
                EpOp.POST_RDMA_READ,
                Kind.REFUSE,
                null,
                "none",
                "dat_ep_post_rdma_read",
                "C5 SILENT: as send");
        rule(
                COMPLETION_PENDING,
                EpOp.POST_RDMA_WRITE,
                Kind.REFUSE,
                null,
                "none",
                "dat_ep_post_rdma_write",
                "C5 SILENT: as send");
        rule(COMPLETION_PENDING, EpOp.RMR_BIND, Kind.REFUSE, null, "none", "dat_rmr_bind", "C5 SILENT: as send");
        refuse(COMPLETION_PENDING, EpOp.RSP_CREATE, "dat_rsp_create", null);
        refuse(COMPLETION_PENDING, EpOp.CR_ACCEPT, "dat_cr_accept", "S2 SILENT: already accepted");
        notNamed(COMPLETION_PENDING);

        // --- 2.7 CONNECTED
        refuse(CONNECTED, EpOp.CONNECT, "dat_ep_connect", null);
        refuse(CONNECTED, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        allow(
                CONNECTED,
                EpOp.DISCONNECT_ABRUPT,
                DISCONNECTED,
                "flushes on request_evd/recv_evd; DISCONNECTED on connect_evd when done",
                "dat_ep_disconnect");
        allow(
                CONNECTED,
                EpOp.DISCONNECT_GRACEFUL,
                DISCONNECT_PENDING,
                "request DTOs complete first; then DISCONNECTED on connect_evd",
                "dat_ep_disconnect");
        refuse(CONNECTED, EpOp.RESET, "dat_ep_reset", null);
        allow(CONNECTED, EpOp.FREE, null, "the connection is torn down abruptly", "dat_ep_free");
        refuse(CONNECTED, EpOp.MODIFY_PZ, "dat_ep_modify", null);
        refuse(CONNECTED, EpOp.MODIFY_ATTRIBUTES, "dat_ep_modify", null);
        refuse(CONNECTED, EpOp.MODIFY_RECV_FLAGS, "dat_ep_modify", null);
        refuse(CONNECTED, EpOp.MODIFY_SPECIFIC_ATTRIBUTES, "dat_ep_modify", null);
        allow(CONNECTED, EpOp.POST_SEND, null, "DTO completion on request_evd", "dat_ep_post_send");
        allow(CONNECTED, EpOp.POST_RDMA_READ, null, "DTO completion on request_evd", "dat_ep_post_rdma_read");
        allow(CONNECTED, EpOp.POST_RDMA_WRITE, null, "DTO completion on request_evd", "dat_ep_post_rdma_write");
        allow(CONNECTED, EpOp.RMR_BIND, null, "RMR bind completion on request_evd", "dat_rmr_bind");
        refuse(CONNECTED, EpOp.RSP_CREATE, "dat_rsp_create", null);
        refuse(CONNECTED, EpOp.CR_ACCEPT, "dat_cr_accept", "S2 SILENT: a connected EP cannot accept another request");
        notNamed(CONNECTED);

        // --- 2.8 DISCONNECT_PENDING
        refuse(DISCONNECT_PENDING, EpOp.CONNECT, "dat_ep_connect", null);
        refuse(DISCONNECT_PENDING, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        allow(
                DISCONNECT_PENDING,
                EpOp.DISCONNECT_ABRUPT,
                DISCONNECTED,
                "flushes; DISCONNECTED on connect_evd",
                "dat_ep_disconnect");
        rule(DISCONNECT_PENDING, EpOp.DISCONNECT_GRACEFUL, Kind.NOOP, null, "none", "dat_ep_disconnect", null);
        refuse(DISCONNECT_PENDING, EpOp.RESET, "dat_ep_reset", null);
        allow(DISCONNECT_PENDING, EpOp.FREE, null, "the connection is torn down abruptly", "dat_ep_free");
        refuse(DISCONNECT_PENDING, EpOp.MODIFY_PZ, "dat_ep_modify", null);
        refuse(DISCONNECT_PENDING, EpOp.MODIFY_ATTRIBUTES, "dat_ep_modify", null);
        refuse(DISCONNECT_PENDING, EpOp.MODIFY_RECV_FLAGS, "dat_ep_modify", null);
        refuse(DISCONNECT_PENDING, EpOp.MODIFY_SPECIFIC_ATTRIBUTES, "dat_ep_modify", null);
        refuse(DISCONNECT_PENDING, EpOp.POST_SEND, "dat_ep_disconnect, dat_ep_post_send", null);
        refuse(DISCONNECT_PENDING, EpOp.POST_RDMA_READ, "dat_ep_disconnect, dat_ep_post_rdma_read", null);
        refuse(DISCONNECT_PENDING, EpOp.POST_RDMA_WRITE, "dat_ep_disconnect, dat_ep_post_rdma_write", null);
        refuse(DISCONNECT_PENDING, EpOp.RMR_BIND, "dat_ep_disconnect, dat_rmr_bind", null);
        refuse(DISCONNECT_PENDING, EpOp.RSP_CREATE, "dat_rsp_create", null);
        refuse(DISCONNECT_PENDING, EpOp.CR_ACCEPT, "dat_cr_accept", "S2 SILENT: as CONNECTED");
        notNamed(DISCONNECT_PENDING);

        // --- 2.9 DISCONNECTED
        refuse(DISCONNECTED, EpOp.CONNECT, "dat_ep_connect", "reset first (dat_ep_reset)");
        refuse(DISCONNECTED, EpOp.DUP_CONNECT, "dat_ep_dup_connect", null);
        rule(
                DISCONNECTED,
                EpOp.DISCONNECT_ABRUPT,
                Kind.NOOP,
                null,
                "none",
                "dat_ep_disconnect",
                "C3 CONFLICT: disconnecting a DISCONNECTED EP is a no-op");
        rule(
                DISCONNECTED,
                EpOp.DISCONNECT_GRACEFUL,
                Kind.NOOP,
                null,
                "none",
                "dat_ep_disconnect",
                "C3 CONFLICT: as abrupt");
        allow(DISCONNECTED, EpOp.RESET, UNCONNECTED, "none; completions not yet dequeued may be lost", "dat_ep_reset");
        allow(DISCONNECTED, EpOp.FREE, null, "none", "dat_ep_free");
        refuse(DISCONNECTED, EpOp.MODIFY_PZ, "dat_ep_modify", null);
        refuse(DISCONNECTED, EpOp.MODIFY_ATTRIBUTES, "dat_ep_modify", null);
        refuse(DISCONNECTED, EpOp.MODIFY_RECV_FLAGS, "dat_ep_modify", null);
        refuse(DISCONNECTED, EpOp.MODIFY_SPECIFIC_ATTRIBUTES, "dat_ep_modify", null);
        flush(DISCONNECTED, EpOp.POST_SEND, "flushed DTO completion on request_evd", "dat_ep_post_send");
        flush(DISCONNECTED, EpOp.POST_RDMA_READ, "flushed DTO completion on request_evd", "dat_ep_post_rdma_read");
        flush(DISCONNECTED, EpOp.POST_RDMA_WRITE, "flushed DTO completion on request_evd", "dat_ep_post_rdma_write");
        flush(DISCONNECTED, EpOp.RMR_BIND, "flushed RMR bind completion on request_evd", "dat_rmr_bind");
        flush(DISCONNECTED, EpOp.POST_RECV, "flushed DTO completion on recv_evd", "dat_ep_post_recv");
        refuse(DISCONNECTED, EpOp.RSP_CREATE, "dat_rsp_create", null);
        refuse(DISCONNECTED, EpOp.CR_ACCEPT, "dat_cr_accept", "S2 SILENT: reset first");
        notNamed(DISCONNECTED);

        for (Map.Entry<EndpointState, Map<EpOp, Rule>> e : TABLE.entrySet()) {
            if (e.getValue().size() != EpOp.values().length) {
                throw new IllegalStateException("EP state table misses rows for " + e.getKey());
            }
        }
    }

    private EpStateTable() {}

    private static void rule(
            EndpointState s, EpOp op, Kind kind, EndpointState next, String events, String source, String choice) {
        Rule old = TABLE.get(s).put(op, new Rule(kind, next, events, source, choice));
        if (old != null) {
            throw new IllegalStateException("two rows for " + s + " x " + op);
        }
    }

    private static void allow(EndpointState s, EpOp op, EndpointState next, String events, String source) {
        rule(s, op, Kind.ALLOW, next, events, source, null);
    }

    private static void flush(EndpointState s, EpOp op, String events, String source) {
        rule(s, op, Kind.FLUSH, null, events, source, null);
    }

    private static void refuse(EndpointState s, EpOp op, String source, String choice) {
        rule(s, op, Kind.REFUSE, null, "none", source, choice);
    }

    /**
     * dat_cr_reject(3DAT) lists no DAT_INVALID_STATE, and a reject touches only the endpoint its
     * request names: a RESERVED-then-PASSIVE endpoint of an RSP or a TENTATIVE one of a PSP. While
     * an endpoint is in any other state a reject (of whatever request) leaves it alone.
     */
    private static void notNamed(EndpointState s) {
        rule(
                s,
                EpOp.CR_REJECT,
                Kind.NOOP,
                null,
                "none for this endpoint; the requester sees PEER_REJECTED",
                "dat_cr_reject",
                "a reject cannot fail on an endpoint's state (dat_cr_reject lists only DAT_INVALID_HANDLE); it does "
                        + "nothing to an endpoint its request does not name as PASSIVE or TENTATIVE");
    }

    /** The row of {@code op} in {@code state}. */
    static Rule rule(EndpointState state, EpOp op) {
        Map<EpOp, Rule> row = TABLE.get(state);
        if (row == null) {
            throw new IllegalArgumentException("the sim provider never puts an EP in state " + state);
        }
        return row.get(op);
    }

    /**
     * The row of {@code op} in {@code state}, refusing it with DAT_INVALID_STATE and the subtype of
     * the state when the row says so.
     */
    static Rule check(EndpointState state, EpOp op) {
        Rule r = rule(state, op);
        if (r.kind() == Kind.REFUSE) {
            throw new DatException(
                    DatReturnType.INVALID_STATE,
                    subtype(state),
                    op + " is not valid for an endpoint in " + state + " (" + r.source() + ")");
        }
        return r;
    }

    /** The DAT_INVALID_STATE subtype that names an endpoint state. */
    static DatReturnSubtype subtype(EndpointState s) {
        switch (s) {
            case UNCONNECTED:
                return DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED;
            case RESERVED:
                return DatReturnSubtype.INVALID_STATE_EP_RESERVED;
            case PASSIVE_CONNECTION_PENDING:
                return DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING;
            case TENTATIVE_CONNECTION_PENDING:
                return DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING;
            case ACTIVE_CONNECTION_PENDING:
                return DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING;
            case COMPLETION_PENDING:
                return DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING;
            case CONNECTED:
                return DatReturnSubtype.INVALID_STATE_EP_CONNECTED;
            case DISCONNECT_PENDING:
                return DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            case DISCONNECTED:
                return DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED;
            default:
                return DatReturnSubtype.INVALID_STATE_EP_NOTREADY;
        }
    }

    /** Every row, for documentation and for the test that covers them. */
    static Map<EndpointState, Map<EpOp, Rule>> rows() {
        return TABLE;
    }
}
