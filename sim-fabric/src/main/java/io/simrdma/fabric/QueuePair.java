package io.simrdma.fabric;

import java.util.Set;

/**
 * A queue pair (ibv_create_qp(3)) with the IBA state machine of its {@link #qpType() type}. An RC
 * QP runs the RC transport as rxe does: a requester turns send WQEs into packets, a responder
 * executes incoming requests, a completer matches acknowledgements to WQEs and retries. UC and UD
 * QPs ({@link QpType}) send without acknowledgements.
 *
 * <p>Posting ({@link #postSend}, {@link #postRecv}) runs on the caller's thread and copies the
 * work requests into the queues; the engine runs on the device's executor. {@link #modify},
 * {@link #query} and {@link #destroy} run on the executor and wait for it.
 *
 * <p>After {@link #destroy()} the handle is stale: every verb on it (post, bind, modify, query,
 * destroy) fails with ENOENT; the accessors of what it was ({@link #qpNum()}, {@link #state()},
 * {@link #sendQueueDepth()}, ...) keep answering.
 *
 * <p>Thread safety: thread-safe; several threads may post to the same QP.
 */
public interface QueuePair {

    /** The QP number (24 bits). */
    int qpNum();

    /** The transport service type (ibv_qp's qp_type): RC unless created as UC or UD. */
    default QpType qpType() {
        return QpType.RC;
    }

    Device device();

    ProtectionDomain pd();

    CompletionQueue sendCq();

    CompletionQueue recvCq();

    /** The SRQ receives come from, or null. */
    SharedReceiveQueue srq();

    /** Capabilities the QP was created with (max_recv_wr and max_recv_sge read 0 with an SRQ). */
    QpCaps caps();

    /** The application object given at creation (qp_context). */
    Object context();

    boolean sqSigAll();

    /** Current state; changes by {@link #modify} or by the engine on an error. */
    QpState state();

    /** This QP's counters. */
    Counters counters();

    /**
     * Posts a chain of send work requests (ibv_post_send(3)). Processing stops at the first WR
     * that cannot be posted: the WRs before it are posted, it and the rest are not.
     *
     * <p>An atomic's arguments are checked when it executes, not here: a gather list that is not
     * one 8-byte SGE completes LOC_LEN_ERR, a remote address not 8-byte aligned REM_INV_REQ_ERR
     * (the responder NAKs it as an invalid request).
     *
     * @throws PostException EINVAL: QP state (RESET, INIT or RTR, unless the device profile holds
     *                       or drops such a post; ENOTCONN for a profile that says so), too many
     *                       SGEs, inline data too long or on an opcode that carries none, a BIND_MW
     *                       of a type 1 window, a message longer than 2^31 bytes; the profile's
     *                       errno for an operation it lacks; ENOMEM: send queue full
     */
    void postSend(SendWr first);

    /**
     * Binds a type 1 memory window (ibv_bind_mw(3)): posts a bind to this QP's send queue and
     * returns the window's new R_Key at once (the window's {@link MemoryWindow#rkey()} changes
     * now; remote access with it works once the bind's completion has been generated). A
     * {@code length} of 0 unbinds the window.
     *
     * @param mr    the region to bind to; may be null when {@code length} is 0
     * @param flags SIGNALED and FENCE are honoured
     * @return the R_Key the window will have
     * @throws VerbsException EINVAL for a type 2 window, a non-zero length without a region, or a
     *                        QP state that does not allow posting; ENOMEM when the send queue is full
     */
    int bindMw(
            MemoryWindow mw,
            MemoryRegion mr,
            long addr,
            long length,
            Set<AccessFlag> access,
            long wrId,
            Set<SendFlag> flags);

    /**
     * Posts a chain of receive work requests (ibv_post_recv(3)), stopping at the first that fails.
     *
     * @throws PostException EINVAL in RESET (unless the device profile holds it), for a QP that uses
     *                       an SRQ, or too many SGEs; ENOMEM when the receive queue is full
     */
    void postRecv(RecvWr first);

    /**
     * Modifies the QP's attributes and state (ibv_modify_qp(3)). The transition must be legal and
     * the attributes set in {@code attr} must be exactly those it requires plus any it accepts
     * (IBA 11.2.5.2); every value is checked before anything changes: if one is invalid, nothing
     * is modified.
     *
     * @throws VerbsException EINVAL naming the illegal transition, the missing or unaccepted
     *                        attribute, or the invalid value
     */
    void modify(QpAttr attr);

    /**
     * Why the QP entered ERR the last time, or null if it never did since it was last reset: lets
     * a layer above tell a connection that broke (an engine cause) from one that was closed (MODIFY).
     */
    ErrorCause errorCause();

    /**
     * Send work requests posted and not yet retired (completed, with or without a completion
     * entry): zero once the send queue has drained. Any thread.
     */
    int sendQueueDepth();

    /**
     * Queries the QP's attributes (ibv_query_qp(3)): every attribute is set, with its mask.
     */
    QpAttr query();

    /**
     * Destroys the QP (ibv_destroy_qp(3)). Outstanding work requests produce no completions.
     *
     * @throws VerbsException EBUSY while async events retrieved for it are unacknowledged
     *                        (ibv_get_async_event(3)); ENOENT if already destroyed
     */
    void destroy();

    /** Why a QP entered ERR; see {@link #errorCause()}. */
    enum ErrorCause {
        /** A modify to ERR (by the application or the connection manager). */
        MODIFY,
        /** A send work request failed (local protection, remote access, retries exhausted...). */
        SEND_ERROR,
        /** The responder found a fatal error in an incoming request (IBA class C). */
        RESPONDER_ERROR,
        /** A completion queue of the QP overran. */
        CQ_OVERRUN
    }
}
