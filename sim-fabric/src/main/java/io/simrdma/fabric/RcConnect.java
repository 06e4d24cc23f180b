package io.simrdma.fabric;

import io.simrdma.fabric.wire.Gid;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Connects RC queue pairs without a connection manager, the way ibv_rc_pingpong(1) does: each
 * side tells the other its GID, QP number and first PSN out of band (an {@link Endpoint}), then
 * moves its own QP from RESET through INIT and RTR to RTS.
 *
 * <pre>{@code
 * // Both QPs in one process (a test): one call.
 * RcConnect.connect(qpA, qpB);
 *
 * // Across processes: exchange endpoints over any channel, then each side connects its own QP.
 * RcConnect.Endpoint mine = RcConnect.Endpoint.of(qp, psn);   // send it to the peer
 * RcConnect.connect(qp, psn, peersEndpoint, RcConnect.Options.defaults());
 * }</pre>
 *
 * <p>The attributes each transition sets, with the defaults of {@link Options#defaults()}
 * (ibv_rc_pingpong's values unless noted):
 * <table>
 *   <caption>ibv_modify_qp(3) attributes set by connect</caption>
 *   <tr><th>transition</th><th>attribute</th><th>default</th></tr>
 *   <tr><td>RESET to INIT</td><td>pkey_index, port_num</td><td>0, 1</td></tr>
 *   <tr><td></td><td>qp_access_flags</td><td>REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC (ibv_rc_pingpong
 *       sets none, as it only sends; a QP without them answers every RDMA request with a remote
 *       access error, so the helper allows what the memory regions allow)</td></tr>
 *   <tr><td>INIT to RTR</td><td>ah_attr</td><td>the peer's GID, port 1, SL 0</td></tr>
 *   <tr><td></td><td>path_mtu</td><td>1024 bytes</td></tr>
 *   <tr><td></td><td>dest_qp_num, rq_psn</td><td>the peer's QP number and first PSN</td></tr>
 *   <tr><td></td><td>max_dest_rd_atomic</td><td>1</td></tr>
 *   <tr><td></td><td>min_rnr_timer</td><td>12 (0.64 ms)</td></tr>
 *   <tr><td>RTR to RTS</td><td>sq_psn</td><td>this side's first PSN</td></tr>
 *   <tr><td></td><td>timeout</td><td>14 (4.096 us x 2^14 = 67 ms)</td></tr>
 *   <tr><td></td><td>retry_cnt, rnr_retry</td><td>7, 7 (7 means "retry forever" for RNR)</td></tr>
 *   <tr><td></td><td>max_rd_atomic</td><td>1</td></tr>
 * </table>
 *
 * <p>UC queue pairs connect the same way, with only the attributes the UC column of IBA
 * 11.2.5.2 table 91 takes: access flags at INIT, the address vector, path MTU, destination QP and
 * RQ PSN at RTR, the SQ PSN at RTS (no RDMA READ depths, RNR timer, timeout or retry counts).
 * A UD queue pair has no peer to connect to: EINVAL.
 *
 * <p>Thread safety: stateless; each call modifies the QPs it is given (ibv_modify_qp(3) rules
 * apply: the QP must be in RESET).
 */
public final class RcConnect {

    private RcConnect() {}

    /**
     * What one side tells the other out of band (ibv_rc_pingpong's {@code struct pingpong_dest}):
     * the port's GID, the QP number and the first PSN this side will send with.
     *
     * @param gid the GID of the QP's device ({@link Device#gid()})
     * @param qpn the QP number (24 bits)
     * @param psn the first PSN this side sends (24 bits)
     */
    public record Endpoint(Gid gid, int qpn, int psn) {

        public Endpoint {
            Objects.requireNonNull(gid, "gid");
            VerbsException.checkRange("qpn", qpn, 0, 0xFFFFFF);
            VerbsException.checkRange("psn", psn, 0, 0xFFFFFF);
        }

        /** The endpoint of {@code qp} with first PSN {@code psn}. */
        public static Endpoint of(QueuePair qp, int psn) {
            return new Endpoint(qp.device().gid(), qp.qpNum(), psn);
        }
    }

    /**
     * The attributes {@link #connect} sets; see the table in {@link RcConnect}. Immutable: each
     * {@code withXxx} returns a copy.
     *
     * @param access       qp_access_flags: what the peer may do to this side's memory
     * @param pathMtu      path_mtu
     * @param timeout      local ACK timeout exponent (4.096 us x 2^timeout), 0..31
     * @param retryCnt     retries after an ACK timeout, 0..7
     * @param rnrRetry     retries after an RNR NAK, 0..7 (7: forever)
     * @param minRnrTimer  RNR NAK timer code this side's responder advertises, 0..31
     * @param maxRdAtomic  RDMA READs and atomics this side may have outstanding (max_rd_atomic)
     * @param maxDestRdAtomic RDMA READs and atomics this side accepts at once (max_dest_rd_atomic)
     */
    public record Options(
            Set<AccessFlag> access,
            Mtu pathMtu,
            int timeout,
            int retryCnt,
            int rnrRetry,
            int minRnrTimer,
            int maxRdAtomic,
            int maxDestRdAtomic) {

        public Options {
            access = Set.copyOf(Objects.requireNonNull(access, "access"));
            Objects.requireNonNull(pathMtu, "pathMtu");
            VerbsException.checkRange("timeout", timeout, 0, 31);
            VerbsException.checkRange("retry_cnt", retryCnt, 0, 7);
            VerbsException.checkRange("rnr_retry", rnrRetry, 0, 7);
            VerbsException.checkRange("min_rnr_timer", minRnrTimer, 0, 31);
            VerbsException.checkRange("max_rd_atomic", maxRdAtomic, 0, 255);
            VerbsException.checkRange("max_dest_rd_atomic", maxDestRdAtomic, 0, 255);
        }

        /** ibv_rc_pingpong's attributes, with RDMA access allowed (see {@link RcConnect}). */
        public static Options defaults() {
            return new Options(
                    EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC),
                    Mtu.MTU_1024,
                    14,
                    7,
                    7,
                    12,
                    1,
                    1);
        }

        public Options withAccess(Set<AccessFlag> a) {
            return new Options(a, pathMtu, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic);
        }

        public Options withPathMtu(Mtu m) {
            return new Options(access, m, timeout, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic);
        }

        public Options withTimeout(int t) {
            return new Options(access, pathMtu, t, retryCnt, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic);
        }

        public Options withRetryCnt(int n) {
            return new Options(access, pathMtu, timeout, n, rnrRetry, minRnrTimer, maxRdAtomic, maxDestRdAtomic);
        }

        public Options withRnrRetry(int n) {
            return new Options(access, pathMtu, timeout, retryCnt, n, minRnrTimer, maxRdAtomic, maxDestRdAtomic);
        }

        public Options withMinRnrTimer(int code) {
            return new Options(access, pathMtu, timeout, retryCnt, rnrRetry, code, maxRdAtomic, maxDestRdAtomic);
        }

        /** Sets both RDMA READ / atomic depths (max_rd_atomic and max_dest_rd_atomic). */
        public Options withRdAtomic(int n) {
            return new Options(access, pathMtu, timeout, retryCnt, rnrRetry, minRnrTimer, n, n);
        }
    }

    /**
     * Connects two RC QPs of the same fabric to each other with {@link Options#defaults()}. Each
     * side's first PSN is derived from its device's GUID and its QP number, so a deterministic
     * fabric replays the same PSNs.
     *
     * @throws VerbsException EINVAL if a QP is not in RESET or a value exceeds a device limit
     */
    public static void connect(QueuePair a, QueuePair b) {
        connect(a, b, Options.defaults());
    }

    /** As {@link #connect(QueuePair, QueuePair)}, with {@code options} on both sides. */
    public static void connect(QueuePair a, QueuePair b, Options options) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        checkConnected(a);
        checkConnected(b);
        Endpoint ea = Endpoint.of(a, firstPsn(a));
        Endpoint eb = Endpoint.of(b, firstPsn(b));
        toInit(a, options);
        toInit(b, options);
        toRtr(a, eb, options);
        toRtr(b, ea, options);
        toRts(a, ea.psn(), options);
        toRts(b, eb.psn(), options);
    }

    /**
     * Connects {@code qp} to the peer described by {@code remote}: RESET to INIT to RTR to RTS.
     * The peer does the same with this side's {@link Endpoint#of(QueuePair, int) endpoint}.
     *
     * @param localPsn the first PSN this side sends with (the one it told the peer)
     * @throws VerbsException EINVAL if the QP is not in RESET or a value exceeds a device limit
     */
    public static void connect(QueuePair qp, int localPsn, Endpoint remote, Options options) {
        Objects.requireNonNull(qp, "qp");
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(options, "options");
        VerbsException.checkRange("localPsn", localPsn, 0, 0xFFFFFF);
        checkConnected(qp);
        toInit(qp, options);
        toRtr(qp, remote, options);
        toRts(qp, localPsn, options);
    }

    private static void toInit(QueuePair qp, Options o) {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(o.access()));
    }

    private static void checkConnected(QueuePair qp) {
        if (qp.qpType() == QpType.UD) {
            throw VerbsException.invalid("a UD queue pair has no peer to connect to; send to an address handle");
        }
    }

    private static void toRtr(QueuePair qp, Endpoint remote, Options o) {
        if (qp.qpType() == QpType.UC) {
            qp.modify(new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(remote.gid()))
                    .pathMtu(o.pathMtu())
                    .destQpn(remote.qpn())
                    .rqPsn(remote.psn()));
            return;
        }
        qp.modify(new QpAttr()
                .state(QpState.RTR)
                .av(AhAttr.to(remote.gid()))
                .pathMtu(o.pathMtu())
                .destQpn(remote.qpn())
                .rqPsn(remote.psn())
                .maxDestRdAtomic(o.maxDestRdAtomic())
                .minRnrTimer(o.minRnrTimer()));
    }

    private static void toRts(QueuePair qp, int psn, Options o) {
        if (qp.qpType() == QpType.UC) {
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(psn));
            return;
        }
        qp.modify(new QpAttr()
                .state(QpState.RTS)
                .sqPsn(psn)
                .timeout(o.timeout())
                .retryCnt(o.retryCnt())
                .rnrRetry(o.rnrRetry())
                .maxRdAtomic(o.maxRdAtomic()));
    }

    /** A first PSN that differs between QPs and replays: a mix of the device GUID and the QP number. */
    private static int firstPsn(QueuePair qp) {
        long h = qp.device().guid() * 0x9E3779B97F4A7C15L + qp.qpNum() * 0xBF58476D1CE4E5B9L;
        return (int) ((h ^ (h >>> 29)) & 0xFFFFFF);
    }
}
