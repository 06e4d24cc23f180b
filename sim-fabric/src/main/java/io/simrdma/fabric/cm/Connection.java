package io.simrdma.fabric.cm;

import io.simrdma.fabric.sched.EngineTimer;
import io.simrdma.fabric.wire.Gid;

/**
 * The IB CM side of one {@link CmId}: its communication state (IBA 12.9.6) and what the REQ, REP
 * and RTU exchange established about the peer. The transitions that change it are the
 * {@link ConnectionMachine}'s; this class only holds the values, so that the rdma_cm id, which an
 * application sees, and the IB CM connection, which only the device's CM touches, stay apart.
 *
 * <p>Thread safety: confined to the executor of the id's device, where the IB CM runs. Three
 * values are read elsewhere without a lock, as a hint: {@link #state} by {@link CmId#toString},
 * {@link #requestParam} by rdma_accept after CONNECT_REQUEST delivered it, {@link #localCommId}
 * when the destroyed id's comm ID is released; {@link #requestAcknowledged} is volatile.
 *
 * <p>Who uses it: {@link ConnectionMachine}, {@link CmSender} (the last MAD, retries, the timer),
 * {@link QpTransitions} (the peer's QPN, PSNs and GID) and {@link ConnectionTable} (comm IDs);
 * {@link CmId} creates one per id.
 */
final class Connection {

    /**
     * IB CM communication states (IBA 12.9.6). REQ_RCVD stands for IBA's REQ Rcvd and MRA Sent
     * (REQ) alike: as the kernel's IB CM does for rdma_cm, the passive side is ready to answer a
     * resent REQ with an MRA as soon as it has reported the request, and no REQ can arrive between
     * the two here.
     */
    enum State {
        IDLE,
        REQ_SENT,
        /** The REQ was answered with an MRA: the peer has it and its application has not answered yet. */
        MRA_REQ_RCVD,
        REQ_RCVD,
        REP_SENT,
        REP_RCVD,
        ESTABLISHED,
        DREQ_SENT,
        TIMEWAIT,
        /** An RDMA_PS_UDP id's SIDR REQ waits for its SIDR REP (IBA 12.11). */
        SIDR_REQ_SENT
    }

    State state = State.IDLE;
    int localCommId;
    int remoteCommId;
    long remoteGuid;
    Gid remoteGid;
    int remoteQpn;
    int remotePsn;
    int localPsn;
    /** The service ID a SIDR REQ asked for, echoed by its SIDR REP (passive side). */
    long sidrServiceId;
    /** Transaction ID of the REQ, kept by REP, RTU and REJ of the same exchange (IBA 12.6.x). */
    long transactionId;
    /** What this side sent: rdma_connect's parameters (active) or rdma_accept's (passive). */
    ConnParam connectParam;
    /** The request's parameters as CONNECT_REQUEST reported them (passive side). */
    ConnParam requestParam;
    /** The requester's retry_cnt, which the passive QP uses too. */
    int retryCountForQp;
    /** The RNR retry count the peer asked for, which this side's QP uses. */
    int rnrRetryForQp;
    /** The last CM message sent that a duplicate of the peer's message is answered with; or a retransmission. */
    byte[] lastMad;

    /** Passive side: how long the requester waits for an answer before it resends its REQ (the REQ's Remote CM Response Timeout). */
    long requesterResendNanos;
    /** Passive side: how many times the requester resends its REQ (the REQ's Max CM Retries). */
    int requesterRetries;
    /** Passive side: an MRA answered a resent REQ, so the requester waits the MRA's service timeout longer. */
    boolean mraSent;

    int retriesLeft;
    /** How long the tracked message waits for an answer before a resend: the response timeout, longer after an MRA. */
    long retryTimeoutNanos;
    /**
     * True once the peer's CM acknowledged this side's REQ with an MRA (IBA 12.6.6). Written on the
     * device executor, read by {@link CmId#requestAcknowledged} on any thread.
     */
    volatile boolean requestAcknowledged;
    /** Response timeout of a REQ, REP or DREQ; then the timewait. Made with the first tracked message. */
    EngineTimer timer;
    /** True once the CM itself moved the QP to ERR, so that the QP's ERR is not taken for a failure. */
    boolean cmMovedQpToError;
}
