package io.simrdma.fabric;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How a simulated device behaves where real RDMA devices differ: each difference is a named
 * {@link Setting} with a typed value and the source it was taken from, so an application can be
 * tested against the device it will meet instead of against one silent choice. A profile is
 * selected per device ({@link DeviceConfig#profile}) and, in the DAT provider, by the IA name's
 * {@code profile=} option.
 *
 * <p>The shipped profiles:
 * <ul>
 *   <li>{@link #IBTA}: the InfiniBand Architecture specification and the libibverbs man pages, the
 *       strictest reading; every operation supported. The {@linkplain #DEFAULT default}.</li>
 *   <li>{@link #MLX5}: a ConnectX-5 driven by rdma-core's mlx5 provider: lenient posting, its
 *       limits.</li>
 *   <li>{@link #RXE}: Soft-RoCE (the kernel's rdma_rxe and rdma-core's rxe provider) with its known
 *       deviations.</li>
 *   <li>{@link #SIW}: SoftiWARP (siw): no atomics, no immediate data, no memory windows.</li>
 * </ul>
 * The table of choices is data ({@link #choices()}); README's "Device profiles" table is made
 * from it, and a test walks every row.
 *
 * <p>Thread safety: immutable.
 */
public final class DeviceProfile {

    /** The behaviours a profile decides, in the order its table lists them. */
    public enum Setting {
        /** A send posted to a QP in RESET, INIT or RTR (ibv_post_send(3)); value {@link PostBeforeRts}. */
        POST_SEND_BEFORE_RTS("send posted in RESET, INIT or RTR"),
        /** A receive posted to a QP in RESET (ibv_post_recv(3)); value {@link PostRecvInReset}. */
        POST_RECV_IN_RESET("receive posted in RESET"),
        /**
         * A request reaching a QP in ERR; value {@link RemoteQpInError}. A QP in RESET or INIT
         * always drops requests silently: it has no remote QP number to answer to.
         */
        REMOTE_QP_IN_ERROR("request reaching a QP in ERR (RESET, INIT: always silent)"),
        /** What the sender of a SEND with invalidate sees when the R_Key cannot be invalidated; value {@link InvalidateError}. */
        SEND_INVALIDATE_ERROR("SEND with invalidate of a key that cannot be invalidated: sender"),
        /** The status of the receive completion of such a SEND; value {@link WcStatus}. */
        SEND_INVALIDATE_RECV_STATUS("same: receive completion status"),
        /** A completion arriving at a full CQ; value {@link CqOverrun}. */
        CQ_OVERRUN("completion arriving at a full CQ"),
        /** Whether ibv_reg_mr of zero bytes succeeds; value Boolean (false: EINVAL). */
        ZERO_LENGTH_MR("zero-length memory region"),
        /** Whether atomic operations are supported (atomic_cap ATOMIC_HCA or ATOMIC_NONE); value Boolean. */
        ATOMICS("atomic operations"),
        /** Where an atomic's bad arguments are found; value {@link AtomicArguments}. */
        ATOMIC_ARGUMENTS("atomic with a misaligned address or a gather list not one 8-byte SGE"),
        /** Whether SEND and RDMA WRITE with immediate data are supported; value Boolean. */
        IMMEDIATE_DATA("immediate data"),
        /** Whether SEND with invalidate is supported; value Boolean. */
        SEND_WITH_INVALIDATE("SEND with invalidate"),
        /** The memory window types supported; value {@code Set<MwType>}, empty for none. */
        MEMORY_WINDOWS("memory windows"),
        /** The queue pair types the device creates (ibv_create_qp(3)); value {@code Set<QpType>}. */
        QP_TYPES("queue pair types"),
        /** A UD send longer than the port's MTU; value {@link UdOversizedSend}. */
        UD_OVERSIZED_SEND("UD send longer than the port MTU"),
        /**
         * When a window bind or local invalidate posted behind other work requests takes effect; value
         * {@link LocalOperationOrder}.
         */
        LOCAL_OPERATION_ORDER("window bind or local invalidate behind earlier work requests"),
        /** The errno with which a post of an unsupported operation fails; value {@link Errno}. */
        UNSUPPORTED_OPERATION("post of an unsupported operation"),
        /** The device limits ibv_query_device(3) reports and the device enforces; value {@link Limits}. */
        LIMITS("limits");

        private final String title;

        Setting(String title) {
            this.title = title;
        }

        /** A short description of the behaviour, as the README's table names it. */
        public String title() {
            return title;
        }
    }

    /** What a send posted to a QP in RESET, INIT or RTR does. */
    public enum PostBeforeRts {
        /** The post fails with EINVAL; nothing is queued (IBA: an immediate error). */
        REFUSE_EINVAL,
        /** The post fails with ENOTCONN; nothing is queued. */
        REFUSE_ENOTCONN,
        /** The post succeeds; the WR waits in the send queue and runs once the QP is in RTS (a move to RESET discards it). */
        HOLD_UNTIL_RTS,
        /** The post succeeds; the WR is discarded without a completion. */
        DROP
    }

    /** What a receive posted to a QP in RESET does. */
    public enum PostRecvInReset {
        /** The post fails with EINVAL. */
        REFUSE_EINVAL,
        /** The post succeeds; the WR waits in the receive queue (a later move to RESET discards it). */
        HOLD
    }

    /** What a request reaching a QP in ERR gets. */
    public enum RemoteQpInError {
        /** Nothing: the packet is dropped; the requester retries and completes RETRY_EXC_ERR. */
        SILENT,
        /** A NAK invalid request: the requester completes REM_INV_REQ_ERR at once. */
        NAK_INVALID_REQUEST,
        /** A NAK remote operational error: the requester completes REM_OP_ERR at once. */
        NAK_REMOTE_OPERATIONAL
    }

    /** What the sender of a SEND with invalidate sees when the responder cannot invalidate its R_Key. */
    public enum InvalidateError {
        /** The SEND is acknowledged and completes successfully; the receiver's QP is in ERR after it. */
        SILENT,
        /** The responder NAKs it with a remote access error: the sender completes REM_ACCESS_ERR. */
        NAK_REMOTE_ACCESS
    }

    /** What a completion arriving at a full CQ does. */
    public enum CqOverrun {
        /** The completion is lost, the CQ enters error (polls fail with EIO), CQ_ERR is raised, the QP moves to ERR. */
        ERROR,
        /**
         * CQ_ERR is raised and the completion is lost; the CQ stays usable; a lost receive
         * completion moves its QP to ERR, a lost send completion does not.
         */
        LOSE_COMPLETION,
        /**
         * CQ_ERR is raised once; the completion waits in its QP, which stops working until the
         * application polls room free; then its waiting completions are written in order and it
         * goes on. The CQ stays usable.
         */
        STALL
    }

    /** Where an atomic's bad arguments (remote address not 8-byte aligned, gather list not one 8-byte SGE) are found. */
    public enum AtomicArguments {
        /** At execution: LOC_LEN_ERR for the gather list; the responder NAKs the address (REM_INV_REQ_ERR). */
        AT_COMPLETION,
        /** At post: EINVAL when the address is misaligned or the gather list is shorter than 8 bytes. */
        AT_POST
    }

    /** What a UD send whose message is longer than the port's MTU does. */
    public enum UdOversizedSend {
        /**
         * Nothing goes out and the send completes successfully (IBA C10-93.1.1: the CI "shall not
         * emit any packets for this message" and "shall not generate an error").
         */
        DISCARD,
        /** The send completes with LOC_LEN_ERR; nothing goes out; the QP moves to SQE. */
        LOC_LEN_ERR
    }

    /** When a window bind (or local invalidate) posted behind other work requests of its QP takes effect. */
    public enum LocalOperationOrder {
        /**
         * Once every work request before it has completed: behind one that fails, the bind is flushed
         * and never changed the window, so the old R_Key still works and the new one does not
         * (ibv_bind_mw(3) NOTES: keep the old R_Key when the bind's CQE reports a failure). A bind
         * therefore also waits for earlier RDMA WRITEs and SENDs to be acknowledged.
         */
        AFTER_EARLIER_COMPLETE,
        /**
         * When the send queue reaches it, as soon as the work requests before it are sent (a FENCE
         * still waits for earlier RDMA READs and atomics): behind one that later fails, the bind is
         * flushed although the window had already changed, so the new R_Key works and the old one
         * does not.
         */
        WHEN_REACHED
    }

    /**
     * The limits of a device (ibv_query_device(3)) and its identity. {@code maxMrSize} is capped at
     * 2^31 - 1, the most a Java buffer holds.
     *
     * @param fwVer           firmware version text
     * @param vendorId        IEEE vendor id
     * @param vendorPartId    vendor part id
     * @param hwVer           hardware version
     * @param maxMrSize       largest region in bytes
     * @param maxQp           queue pairs
     * @param maxQpWr         work requests per queue
     * @param maxSge          SGEs per WR
     * @param maxSgeRd        SGEs per RDMA READ WR
     * @param maxCq           completion queues
     * @param maxCqe          entries per CQ
     * @param maxMr           memory regions
     * @param maxPd           protection domains
     * @param maxQpRdAtom     READs and atomics a QP serves at once (max_dest_rd_atomic bound)
     * @param maxResRdAtom    responder resources of the device
     * @param maxQpInitRdAtom READs and atomics a QP issues at once (max_rd_atomic bound)
     * @param maxMw           memory windows (0 without memory windows)
     * @param maxSrq          shared receive queues
     * @param maxSrqWr        WRs per SRQ
     * @param maxSrqSge       SGEs per SRQ WR
     * @param maxInlineData   inline bytes per send WR
     * @param maxPkeys        P_Key table size
     * @param localCaAckDelay local CA ACK delay exponent
     * @param maxMtu          the port's largest (and active) MTU
     * @param numCompVectors  completion vectors (ibv_context's num_comp_vectors): a CQ's
     *                        comp_vector must be in 0..numCompVectors-1 (ibv_create_cq(3))
     */
    public record Limits(
            String fwVer,
            int vendorId,
            int vendorPartId,
            int hwVer,
            long maxMrSize,
            int maxQp,
            int maxQpWr,
            int maxSge,
            int maxSgeRd,
            int maxCq,
            int maxCqe,
            int maxMr,
            int maxPd,
            int maxQpRdAtom,
            int maxResRdAtom,
            int maxQpInitRdAtom,
            int maxMw,
            int maxSrq,
            int maxSrqWr,
            int maxSrqSge,
            int maxInlineData,
            int maxPkeys,
            int localCaAckDelay,
            Mtu maxMtu,
            int numCompVectors) {

        public Limits {
            Objects.requireNonNull(fwVer, "fwVer");
            Objects.requireNonNull(maxMtu, "maxMtu");
            if (numCompVectors < 1) {
                throw new IllegalArgumentException("a device has at least one completion vector: " + numCompVectors);
            }
        }

        @Override
        public String toString() {
            return "max_qp " + maxQp + ", max_qp_wr " + maxQpWr + ", max_sge " + maxSge + " (READ " + maxSgeRd
                    + "), max_cq " + maxCq + ", max_cqe " + maxCqe + ", max_mr " + maxMr + ", max_pd " + maxPd
                    + ", max_mw " + maxMw + ", max_srq " + maxSrq + " x " + maxSrqWr + " WRs x " + maxSrqSge
                    + " SGEs, max_qp_rd_atom " + maxQpRdAtom + ", max_qp_init_rd_atom " + maxQpInitRdAtom
                    + ", max_res_rd_atom " + maxResRdAtom + ", inline " + maxInlineData + " B, MTU "
                    + maxMtu.bytes() + ", " + numCompVectors + " completion vectors, vendor 0x"
                    + Integer.toHexString(vendorId) + " part " + vendorPartId;
        }
    }

    /**
     * One row of a profile's table: the setting, the value chosen, and where the choice comes from
     * (a specification section, a man page, a driver's source file, or "modelled" with the reason).
     */
    public record Choice(Setting setting, Object value, String source) {

        public Choice {
            Objects.requireNonNull(setting, "setting");
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(source, "source");
        }

        /** The value as the README's table writes it. */
        public String valueText() {
            if (value instanceof Boolean b) {
                return b ? "yes" : "no";
            }
            if (value instanceof Set<?> s) {
                if (s.isEmpty()) {
                    return "none";
                }
                List<String> types = new ArrayList<>();
                for (Object t : s) {
                    types.add(t instanceof MwType mw ? (mw == MwType.TYPE_1 ? "type 1" : "type 2") : t.toString());
                }
                Collections.sort(types);
                return String.join(", ", types);
            }
            return value.toString();
        }
    }

    /** The specification: IBA and the libibverbs man pages, strictest; everything supported. */
    public static final DeviceProfile IBTA;
    /** A ConnectX-5 with rdma-core's mlx5 provider. */
    public static final DeviceProfile MLX5;
    /** Soft-RoCE: the kernel's rdma_rxe with rdma-core's rxe provider. */
    public static final DeviceProfile RXE;
    /** SoftiWARP: the kernel's siw with rdma-core's siw provider. */
    public static final DeviceProfile SIW;
    /**
     * The profile a device gets unless its configuration names another: {@link #IBTA}. It is the
     * behaviour the man pages promise, so code tested on it is written to the contract every
     * device claims; its strict choices (posting before RTS refused, silence from a failed peer)
     * turn latent bugs into immediate failures; it refuses no operation, so nothing an application
     * uses is missing; and it is what simrdma did before profiles, so existing tests hold.
     */
    public static final DeviceProfile DEFAULT;

    static {
        IBTA = builder(
                        "ibta",
                        "the InfiniBand Architecture specification and the libibverbs man pages: strictest, everything supported")
                .postSendBeforeRts(
                        PostBeforeRts.REFUSE_EINVAL,
                        "IBA 10.3.1 (QP states: a send posted in RESET, INIT or RTR is an immediate error)")
                .postRecvInReset(PostRecvInReset.REFUSE_EINVAL, "IBA C10-97.2.1, as rdma-core's rxe provider cites it")
                .remoteQpInError(
                        RemoteQpInError.SILENT,
                        "IBA 10.3.1: a QP in Error discards incoming packets; the requester's retries run out")
                .sendInvalidateError(
                        InvalidateError.SILENT,
                        "IBA 10.6.7.2.6, the class J responder error rxe implements: no NAK, the receiver's QP goes to ERR")
                .sendInvalidateRecvStatus(
                        WcStatus.LOC_ACCESS_ERR,
                        "ibv_poll_cq(3): a protection error on the receiver's side of a remote operation")
                .cqOverrun(
                        CqOverrun.ERROR,
                        "IBA 11.6.3 (CQ overrun is an affiliated asynchronous error, CQ_ERR); ibv_poll_cq(3)")
                .zeroLengthMr(true, "ibv_reg_mr(3) and IBA 10.6 set no lower bound on a region's length")
                .atomics(true, "IBA 9.4.5; optional, every profile but siw has them")
                .atomicArguments(
                        AtomicArguments.AT_COMPLETION,
                        "IBA 9.4.5, 9.7.5.2.1: checked at execution, a local length error or the responder's NAK")
                .immediateData(true, "IBA 9.4: SEND and RDMA WRITE with immediate")
                .sendWithInvalidate(true, "IBA 10.6.7.2.6")
                .memoryWindows(EnumSet.allOf(MwType.class), "IBA 10.6.7, ibv_alloc_mw(3): types 1 and 2")
                .qpTypes(EnumSet.allOf(QpType.class), "IBA 9.8: RC, UC and UD")
                .udOversizedSend(
                        UdOversizedSend.DISCARD,
                        "IBA C10-93.1.1: no packet is emitted for a UD message over the MTU, and no error generated")
                .localOperationOrder(
                        LocalOperationOrder.AFTER_EARLIER_COMPLETE,
                        "ibv_bind_mw(3) NOTES: the caller keeps the old R_Key if the CQE of the bind reports a failure, so a failed bind must not have changed the window")
                .unsupportedOperation(Errno.EINVAL, "ibv_post_send(3): an invalid WR is EINVAL")
                .limits(
                        new Limits(
                                "simrdma 0.1",
                                0x0002c9,
                                0x5352,
                                1,
                                Integer.MAX_VALUE,
                                1024,
                                16384,
                                32,
                                32,
                                1024,
                                65535,
                                65536,
                                1024,
                                128,
                                128 * 1024,
                                128,
                                65536,
                                1024,
                                16384,
                                32,
                                512,
                                1,
                                15,
                                Mtu.MTU_4096,
                                4),
                        "simrdma's own defaults, a small Soft-RoCE-like device on a 4-CPU host")
                .build();

        MLX5 = builder("mlx5", "a ConnectX-5 with rdma-core's mlx5 provider: lenient posting, its limits")
                .postSendBeforeRts(
                        PostBeforeRts.HOLD_UNTIL_RTS,
                        "providers/mlx5/qp.c: _mlx5_post_send writes the WQE and rings the doorbell without a state check; the hardware runs the send queue from RTS")
                .postRecvInReset(PostRecvInReset.HOLD, "providers/mlx5/qp.c: mlx5_post_recv has no state check")
                .remoteQpInError(
                        RemoteQpInError.SILENT,
                        "as IBA: a requester whose peer QP failed reports 'transport retry counter exceeded', IBV_WC_RETRY_EXC_ERR")
                .sendInvalidateError(
                        InvalidateError.NAK_REMOTE_ACCESS,
                        "modelled: ConnectX answers a key violation in a request with a Remote Access Error NAK; no public source states this case")
                .sendInvalidateRecvStatus(WcStatus.LOC_ACCESS_ERR, "modelled, as ibta")
                .cqOverrun(CqOverrun.ERROR, "modelled as IBA: mlx5 raises IBV_EVENT_CQ_ERR on an overrun")
                .zeroLengthMr(false, "ib_umem_get (drivers/infiniband/core/umem.c): zero pages is EINVAL")
                .atomics(true, "ibv_devinfo: atomic_cap ATOMIC_HCA")
                .atomicArguments(AtomicArguments.AT_COMPLETION, "providers/mlx5/qp.c checks neither at post")
                .immediateData(true, "mlx5 supports SEND and RDMA WRITE with immediate")
                .sendWithInvalidate(true, "IBV_DEVICE_MEM_MGT_EXTENSIONS")
                .memoryWindows(EnumSet.allOf(MwType.class), "IBV_DEVICE_MEM_WINDOW, IBV_DEVICE_MEM_WINDOW_TYPE_2B")
                .qpTypes(EnumSet.allOf(QpType.class), "mlx5_ib creates RC, UC and UD QPs")
                .udOversizedSend(
                        UdOversizedSend.LOC_LEN_ERR,
                        "modelled: ConnectX completes a UD send over the MTU with a local length error (IBV_WC_LOC_LEN_ERR)")
                .localOperationOrder(
                        LocalOperationOrder.WHEN_REACHED,
                        "modelled: the HCA executes a bind WQE in send-queue order without waiting for the acknowledgement of earlier WQEs unless fenced; no public source states what a flushed bind leaves")
                .unsupportedOperation(
                        Errno.EOPNOTSUPP, "providers/mlx5/qp.c: atomics on a QP without them are EOPNOTSUPP")
                .limits(
                        new Limits(
                                "16.35.2000",
                                0x02c9,
                                4119,
                                0,
                                Integer.MAX_VALUE,
                                262144,
                                32768,
                                30,
                                30,
                                16777216,
                                4194303,
                                16777216,
                                16777216,
                                16,
                                4194304,
                                16,
                                16777216,
                                8388608,
                                32767,
                                31,
                                988,
                                128,
                                16,
                                Mtu.MTU_4096,
                                16),
                        "ibv_devinfo -v of ConnectX-4/5 (MT4115, MT4119); RC max_inline_data 988 as libfabric #3790 reports; one completion vector per completion EQ, one EQ per core of a 16-core host (mlx5_comp_vectors_max)")
                .build();

        RXE = builder("rxe", "Soft-RoCE (rdma_rxe, rdma-core's rxe provider) with its known deviations")
                .postSendBeforeRts(
                        PostBeforeRts.REFUSE_EINVAL,
                        "rxe_verbs.c rxe_post_send: 'qp not ready to send', EINVAL; the user-space provider has queued the WQE by then, modelled as a plain refusal")
                .postRecvInReset(
                        PostRecvInReset.REFUSE_EINVAL, "providers/rxe/rxe.c rxe_post_recv: RESET is EINVAL, C10-97.2.1")
                .remoteQpInError(
                        RemoteQpInError.SILENT,
                        "rxe_resp.c drains the requests of a QP in ERR; rxe_recv.c drops them before RTR")
                .sendInvalidateError(
                        InvalidateError.SILENT,
                        "rxe_resp.c RESPST_ERR_INVALIDATE_RKEY, class J: the receive completes in error, the SEND is acknowledged")
                .sendInvalidateRecvStatus(WcStatus.REM_INV_REQ_ERR, "rxe_resp.c: IB_WC_REM_INV_REQ_ERR")
                .cqOverrun(
                        CqOverrun.LOSE_COMPLETION,
                        "rxe_cq.c rxe_cq_post: CQ_ERR, the completion is dropped, the CQ stays usable; rxe_resp.c moves the QP to ERR (class G), rxe_comp.c does not")
                .zeroLengthMr(false, "ib_umem_get (drivers/infiniband/core/umem.c): zero pages is EINVAL")
                .atomics(true, "rxe: atomic_cap ATOMIC_HCA")
                .atomicArguments(
                        AtomicArguments.AT_POST,
                        "providers/rxe/rxe.c validate_send_wr: length < 8 or remote_addr & 7 is EINVAL")
                .immediateData(true, "rxe supports SEND and RDMA WRITE with immediate")
                .sendWithInvalidate(true, "rxe_resp.c invalidate_rkey")
                .memoryWindows(EnumSet.allOf(MwType.class), "rxe_mw.c: types 1 and 2")
                .qpTypes(EnumSet.allOf(QpType.class), "rxe_qp.c rxe_qp_chk_init: RC, UC, UD (and GSI)")
                .udOversizedSend(
                        UdOversizedSend.DISCARD,
                        "rxe_req.c: a UD payload over the MTU is a faked successful send, citing C10-93.1.1")
                .localOperationOrder(
                        LocalOperationOrder.WHEN_REACHED,
                        "rxe_req.c rxe_requester: a local operation (rxe_do_local_ops) runs when the requester reaches it; only IB_SEND_FENCE waits for the WQEs before it; a later flush does not undo it")
                .unsupportedOperation(Errno.EINVAL, "rxe: an opcode it lacks is EINVAL")
                .limits(
                        new Limits(
                                "0.0.0",
                                0xFFFFFF,
                                0,
                                0,
                                Integer.MAX_VALUE,
                                1048576,
                                1048576,
                                32,
                                32,
                                1048576,
                                32767,
                                1048576,
                                1048576,
                                128,
                                258048,
                                128,
                                4096,
                                1048576,
                                1048576,
                                27,
                                512,
                                64,
                                15,
                                Mtu.MTU_4096,
                                4),
                        "rxe_param.h; rxe_verbs.c: num_comp_vectors = num_possible_cpus(), a 4-CPU host")
                .build();

        SIW = builder("siw", "SoftiWARP (siw): no atomics, no immediate data, no memory windows")
                .postSendBeforeRts(
                        PostBeforeRts.REFUSE_ENOTCONN, "siw_verbs.c siw_post_send: a QP not in RTS is ENOTCONN")
                .postRecvInReset(
                        PostRecvInReset.HOLD, "providers/siw/siw.c siw_post_recv writes the RQ without a state check")
                .remoteQpInError(
                        RemoteQpInError.NAK_REMOTE_OPERATIONAL,
                        "modelled: an iWARP QP in error ends its stream with a Terminate message, RFC 5040 section 7, instead of staying silent")
                .sendInvalidateError(
                        InvalidateError.SILENT,
                        "siw_qp_rx.c: a Terminate follows, but the SEND completed at the sender when it was transmitted")
                .sendInvalidateRecvStatus(WcStatus.REM_INV_REQ_ERR, "siw_qp_rx.c: SIW_WC_REM_INV_REQ_ERR")
                .cqOverrun(
                        CqOverrun.STALL,
                        "siw_qp.c siw_sqe_complete: CQ_ERR, and the WQE is not recycled; modelled as a stall that ends when room is polled free")
                .zeroLengthMr(false, "siw_verbs.c siw_reg_user_mr: length 0 is EINVAL")
                .atomics(false, "siw: atomic_cap ATOMIC_NONE; providers/siw/siw.c maps the atomic opcodes to none")
                .atomicArguments(AtomicArguments.AT_COMPLETION, "irrelevant: no atomics")
                .immediateData(false, "providers/siw/siw.c maps SEND_WITH_IMM and RDMA_WRITE_WITH_IMM to none")
                .sendWithInvalidate(true, "SIW_OP_SEND_REMOTE_INV")
                .memoryWindows(
                        EnumSet.noneOf(MwType.class),
                        "siw.h SIW_MAX_MW 0; no alloc_mw, so libibverbs fails it with EOPNOTSUPP; BIND_MW and LOCAL_INV map to none")
                .qpTypes(EnumSet.of(QpType.RC), "siw_verbs.c siw_create_qp: only RC, anything else is EOPNOTSUPP")
                .udOversizedSend(UdOversizedSend.DISCARD, "irrelevant: no UD QPs")
                .localOperationOrder(LocalOperationOrder.AFTER_EARLIER_COMPLETE, "irrelevant: no memory windows")
                .unsupportedOperation(Errno.EINVAL, "providers/siw/siw.c push_send_wqe: 'opcode unsupported', EINVAL")
                .limits(
                        new Limits(
                                "0.0.0",
                                0x626d74,
                                0,
                                0,
                                Integer.MAX_VALUE,
                                102400,
                                32768,
                                6,
                                1,
                                102400,
                                3276800,
                                1024000,
                                102400,
                                128,
                                128 * 102400,
                                128,
                                0,
                                102400,
                                327680,
                                6,
                                80,
                                1,
                                0,
                                Mtu.MTU_4096,
                                4),
                        "siw.h; siw-abi.h: SIW_MAX_SGE 6, inline 80 bytes; siw_main.c: num_comp_vectors = num_possible_cpus(), a 4-CPU host")
                .build();

        DEFAULT = IBTA;
    }

    private static final List<DeviceProfile> SHIPPED = List.of(IBTA, MLX5, RXE, SIW);

    private final String name;
    private final String summary;
    private final Map<Setting, Choice> choices;

    private DeviceProfile(String name, String summary, Map<Setting, Choice> choices) {
        this.name = name;
        this.summary = summary;
        this.choices = Collections.unmodifiableMap(new EnumMap<>(choices));
    }

    /** The shipped profiles: ibta, mlx5, rxe, siw. */
    public static List<DeviceProfile> shipped() {
        return SHIPPED;
    }

    /**
     * The shipped profile named {@code name} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the known profiles if there is none
     */
    public static DeviceProfile named(String name) {
        Objects.requireNonNull(name, "name");
        for (DeviceProfile p : SHIPPED) {
            if (p.name.equals(name.toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        List<String> known = new ArrayList<>();
        for (DeviceProfile p : SHIPPED) {
            known.add(p.name);
        }
        throw new IllegalArgumentException("no device profile named '" + name + "'; known: " + known);
    }

    /** A new profile named {@code name}, every setting to be given. */
    public static Builder builder(String name, String summary) {
        return new Builder(name, summary);
    }

    /** A new profile named {@code name} that starts from this one's choices. */
    public Builder derive(String newName, String newSummary) {
        Builder b = new Builder(newName, newSummary);
        b.choices.putAll(choices);
        return b;
    }

    public String name() {
        return name;
    }

    /** One line saying what the profile models. */
    public String summary() {
        return summary;
    }

    /** Every row of the profile's table, in {@link Setting} order. */
    public List<Choice> choices() {
        return List.copyOf(choices.values());
    }

    /** The row of {@code setting}. */
    public Choice choice(Setting setting) {
        return choices.get(setting);
    }

    public PostBeforeRts postSendBeforeRts() {
        return (PostBeforeRts) choices.get(Setting.POST_SEND_BEFORE_RTS).value();
    }

    public PostRecvInReset postRecvInReset() {
        return (PostRecvInReset) choices.get(Setting.POST_RECV_IN_RESET).value();
    }

    public RemoteQpInError remoteQpInError() {
        return (RemoteQpInError) choices.get(Setting.REMOTE_QP_IN_ERROR).value();
    }

    public InvalidateError sendInvalidateError() {
        return (InvalidateError) choices.get(Setting.SEND_INVALIDATE_ERROR).value();
    }

    public WcStatus sendInvalidateRecvStatus() {
        return (WcStatus) choices.get(Setting.SEND_INVALIDATE_RECV_STATUS).value();
    }

    public CqOverrun cqOverrun() {
        return (CqOverrun) choices.get(Setting.CQ_OVERRUN).value();
    }

    public boolean zeroLengthMr() {
        return (Boolean) choices.get(Setting.ZERO_LENGTH_MR).value();
    }

    public boolean atomics() {
        return (Boolean) choices.get(Setting.ATOMICS).value();
    }

    public AtomicArguments atomicArguments() {
        return (AtomicArguments) choices.get(Setting.ATOMIC_ARGUMENTS).value();
    }

    public boolean immediateData() {
        return (Boolean) choices.get(Setting.IMMEDIATE_DATA).value();
    }

    public boolean sendWithInvalidate() {
        return (Boolean) choices.get(Setting.SEND_WITH_INVALIDATE).value();
    }

    /** The memory window types supported (a copy). */
    @SuppressWarnings("unchecked")
    public Set<MwType> memoryWindows() {
        Set<MwType> s = (Set<MwType>) choices.get(Setting.MEMORY_WINDOWS).value();
        return s.isEmpty() ? EnumSet.noneOf(MwType.class) : EnumSet.copyOf(s);
    }

    /** True if memory windows of {@code type} are supported. */
    public boolean supports(MwType type) {
        return ((Set<?>) choices.get(Setting.MEMORY_WINDOWS).value()).contains(type);
    }

    /** The queue pair types the device creates (a copy). */
    @SuppressWarnings("unchecked")
    public Set<QpType> qpTypes() {
        return EnumSet.copyOf((Set<QpType>) choices.get(Setting.QP_TYPES).value());
    }

    /** True if the device creates queue pairs of {@code type}. */
    public boolean supports(QpType type) {
        return ((Set<?>) choices.get(Setting.QP_TYPES).value()).contains(type);
    }

    public UdOversizedSend udOversizedSend() {
        return (UdOversizedSend) choices.get(Setting.UD_OVERSIZED_SEND).value();
    }

    public LocalOperationOrder localOperationOrder() {
        return (LocalOperationOrder) choices.get(Setting.LOCAL_OPERATION_ORDER).value();
    }

    public Errno unsupportedOperation() {
        return (Errno) choices.get(Setting.UNSUPPORTED_OPERATION).value();
    }

    public Limits limits() {
        return (Limits) choices.get(Setting.LIMITS).value();
    }

    /**
     * True if the device executes work requests of {@code op}: atomics, immediate data, SEND with
     * invalidate and the memory window operations (BIND_MW, LOCAL_INV) depend on the profile.
     */
    public boolean supports(WrOpcode op) {
        switch (op) {
            case ATOMIC_CMP_AND_SWP:
            case ATOMIC_FETCH_AND_ADD:
                return atomics();
            case SEND_WITH_IMM:
            case RDMA_WRITE_WITH_IMM:
                return immediateData();
            case SEND_WITH_INV:
                return sendWithInvalidate();
            case BIND_MW:
                return supports(MwType.TYPE_2);
            case LOCAL_INV:
                // LOCAL_INV invalidates type 2 windows (regions are not fast-registered here).
                return supports(MwType.TYPE_2);
            default:
                return true;
        }
    }

    /** ibv_query_device(3) atomic_cap: {@link AtomicCap#HCA} with atomics, {@link AtomicCap#NONE} without. */
    public AtomicCap atomicCap() {
        return atomics() ? AtomicCap.HCA : AtomicCap.NONE;
    }

    /** ibv_query_device(3) device_cap_flags: what every simrdma device does, plus what this profile adds. */
    public Set<DeviceCapability> capabilities() {
        EnumSet<DeviceCapability> c = EnumSet.of(
                DeviceCapability.PORT_ACTIVE_EVENT,
                DeviceCapability.SYS_IMAGE_GUID,
                DeviceCapability.RC_RNR_NAK_GEN,
                DeviceCapability.SRQ_RESIZE,
                DeviceCapability.N_NOTIFY_CQ);
        if (supports(MwType.TYPE_1)) {
            c.add(DeviceCapability.MEM_WINDOW);
        }
        if (supports(MwType.TYPE_2)) {
            c.add(DeviceCapability.MEM_WINDOW_TYPE_2B);
        }
        if (sendWithInvalidate()) {
            c.add(DeviceCapability.MEM_MGT_EXTENSIONS);
        }
        return c;
    }

    @Override
    public String toString() {
        return "DeviceProfile[" + name + "]";
    }

    /**
     * Builds a profile: every setting needs a value and its source.
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class Builder {

        private final String name;
        private final String summary;
        private final Map<Setting, Choice> choices = new EnumMap<>(Setting.class);

        private Builder(String name, String summary) {
            this.name = Objects.requireNonNull(name, "name");
            this.summary = Objects.requireNonNull(summary, "summary");
            if (name.isEmpty()) {
                throw new IllegalArgumentException("a profile needs a name");
            }
        }

        private Builder set(Setting s, Object value, String source) {
            choices.put(s, new Choice(s, value, source));
            return this;
        }

        public Builder postSendBeforeRts(PostBeforeRts v, String source) {
            return set(Setting.POST_SEND_BEFORE_RTS, v, source);
        }

        public Builder postRecvInReset(PostRecvInReset v, String source) {
            return set(Setting.POST_RECV_IN_RESET, v, source);
        }

        public Builder remoteQpInError(RemoteQpInError v, String source) {
            return set(Setting.REMOTE_QP_IN_ERROR, v, source);
        }

        public Builder sendInvalidateError(InvalidateError v, String source) {
            return set(Setting.SEND_INVALIDATE_ERROR, v, source);
        }

        /** @throws IllegalArgumentException for SUCCESS or WR_FLUSH_ERR, which are not errors of the receive */
        public Builder sendInvalidateRecvStatus(WcStatus v, String source) {
            if (v == WcStatus.SUCCESS || v == WcStatus.WR_FLUSH_ERR) {
                throw new IllegalArgumentException(
                        "the receive of a failed SEND with invalidate completes in error, not " + v);
            }
            return set(Setting.SEND_INVALIDATE_RECV_STATUS, v, source);
        }

        public Builder cqOverrun(CqOverrun v, String source) {
            return set(Setting.CQ_OVERRUN, v, source);
        }

        public Builder zeroLengthMr(boolean v, String source) {
            return set(Setting.ZERO_LENGTH_MR, v, source);
        }

        public Builder atomics(boolean v, String source) {
            return set(Setting.ATOMICS, v, source);
        }

        public Builder atomicArguments(AtomicArguments v, String source) {
            return set(Setting.ATOMIC_ARGUMENTS, v, source);
        }

        public Builder immediateData(boolean v, String source) {
            return set(Setting.IMMEDIATE_DATA, v, source);
        }

        public Builder sendWithInvalidate(boolean v, String source) {
            return set(Setting.SEND_WITH_INVALIDATE, v, source);
        }

        public Builder memoryWindows(Set<MwType> v, String source) {
            return set(
                    Setting.MEMORY_WINDOWS,
                    Collections.unmodifiableSet(v.isEmpty() ? EnumSet.noneOf(MwType.class) : EnumSet.copyOf(v)),
                    source);
        }

        /** @throws IllegalArgumentException for a set without RC, which every device has */
        public Builder qpTypes(Set<QpType> v, String source) {
            if (!v.contains(QpType.RC)) {
                throw new IllegalArgumentException("every device creates RC queue pairs: " + v);
            }
            return set(Setting.QP_TYPES, Collections.unmodifiableSet(EnumSet.copyOf(v)), source);
        }

        public Builder udOversizedSend(UdOversizedSend v, String source) {
            return set(Setting.UD_OVERSIZED_SEND, v, source);
        }

        public Builder localOperationOrder(LocalOperationOrder v, String source) {
            return set(Setting.LOCAL_OPERATION_ORDER, v, source);
        }

        /** @throws IllegalArgumentException for an errno other than EINVAL or EOPNOTSUPP */
        public Builder unsupportedOperation(Errno v, String source) {
            if (v != Errno.EINVAL && v != Errno.EOPNOTSUPP) {
                throw new IllegalArgumentException(
                        "an unsupported operation fails with EINVAL or EOPNOTSUPP, not " + v);
            }
            return set(Setting.UNSUPPORTED_OPERATION, v, source);
        }

        public Builder limits(Limits v, String source) {
            return set(Setting.LIMITS, v, source);
        }

        /**
         * The profile.
         *
         * @throws IllegalStateException naming the settings without a value
         * @throws IllegalArgumentException if the limits contradict the choices (memory windows with max_mw 0 or the reverse)
         */
        public DeviceProfile build() {
            EnumSet<Setting> missing = EnumSet.allOf(Setting.class);
            missing.removeAll(choices.keySet());
            if (!missing.isEmpty()) {
                throw new IllegalStateException("profile " + name + " has no value for " + missing);
            }
            boolean windows = !((Set<?>) choices.get(Setting.MEMORY_WINDOWS).value()).isEmpty();
            int maxMw = ((Limits) choices.get(Setting.LIMITS).value()).maxMw();
            if (windows != (maxMw > 0)) {
                throw new IllegalArgumentException(
                        "profile " + name + ": max_mw " + maxMw + " contradicts memory windows "
                                + choices.get(Setting.MEMORY_WINDOWS).valueText());
            }
            return new DeviceProfile(name, summary, choices);
        }
    }
}
