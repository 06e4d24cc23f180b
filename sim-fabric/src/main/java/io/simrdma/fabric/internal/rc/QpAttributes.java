package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpAttrMask;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.wire.Psn;
import java.util.Objects;
import java.util.Set;

/**
 * The attributes of an RC queue pair that ibv_modify_qp(3) sets and ibv_query_qp(3) reads
 * (struct ibv_qp_attr's fields that belong to the QP, not to its state machine): access flags,
 * P_Key index, port, address vector, path MTU, destination QP, PSNs, ACK timeout, retry counts,
 * RNR timer and RDMA READ / atomic depths. The engine reads them directly.
 *
 * <p>Thread safety: written and read on the owning device's executor only.
 */
final class QpAttributes {

    private static final int QP_ACCESS_BITS = AccessFlag.LOCAL_WRITE.bit()
            | AccessFlag.REMOTE_WRITE.bit()
            | AccessFlag.REMOTE_READ.bit()
            | AccessFlag.REMOTE_ATOMIC.bit();

    int accessFlags;
    int pkeyIndex;
    int port = 1;
    AhAttr av;
    Mtu pathMtu = Mtu.MTU_256;
    /** The path MTU in bytes. */
    int mtu = 256;

    int destQpn;
    int rqPsn;
    int sqPsn;
    int timeout;
    int retryCnt;
    int rnrRetry;
    int minRnrTimer;
    int maxRdAtomic;
    int maxDestRdAtomic;
    boolean sqdNotify;

    /**
     * Checks every value {@code mask} sets against the device's limits and the IBA ranges
     * (ibv_modify_qp(3)); nothing changes if one is invalid.
     *
     * @throws VerbsException EINVAL naming the first invalid value
     */
    static void validate(QpAttr a, Set<QpAttrMask> mask, DeviceAttributes da, Mtu activeMtu) {
        if (mask.contains(QpAttrMask.PKEY_INDEX) && a.pkeyIndex() != 0) {
            throw VerbsException.invalid("pkey_index " + a.pkeyIndex() + " out of range: the P_Key table has 1 entry");
        }
        if (mask.contains(QpAttrMask.PORT) && a.port() != 1) {
            throw VerbsException.invalid("port_num " + a.port() + ": the device has one port, numbered 1");
        }
        if (mask.contains(QpAttrMask.ACCESS_FLAGS) && (a.accessFlagBits() & ~QP_ACCESS_BITS) != 0) {
            throw VerbsException.invalid(
                    "qp_access_flags may hold only LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC");
        }
        if (mask.contains(QpAttrMask.AV)) {
            AhAttr av = Objects.requireNonNull(a.av(), "av");
            if (av.portNum() != 1 || av.sgidIndex() != 0 || av.sl() < 0 || av.sl() > 15) {
                throw VerbsException.invalid("address vector needs port 1, sgid_index 0 and sl 0..15: " + av);
            }
        }
        if (mask.contains(QpAttrMask.PATH_MTU)) {
            Mtu m = Objects.requireNonNull(a.pathMtu(), "pathMtu");
            if (m.bytes() > activeMtu.bytes()) {
                throw VerbsException.invalid("path_mtu " + m + " exceeds the port's active MTU " + activeMtu);
            }
        }
        if (mask.contains(QpAttrMask.DEST_QPN) && (a.destQpn() & ~Psn.MASK) != 0) {
            throw VerbsException.invalid("dest_qp_num " + a.destQpn() + " is not a 24-bit QP number");
        }
        if (mask.contains(QpAttrMask.RQ_PSN) && (a.rqPsn() & ~Psn.MASK) != 0) {
            throw VerbsException.invalid("rq_psn " + a.rqPsn() + " is not a 24-bit PSN");
        }
        if (mask.contains(QpAttrMask.SQ_PSN) && (a.sqPsn() & ~Psn.MASK) != 0) {
            throw VerbsException.invalid("sq_psn " + a.sqPsn() + " is not a 24-bit PSN");
        }
        range(mask, QpAttrMask.TIMEOUT, a.timeout(), 0, 31, "timeout");
        range(mask, QpAttrMask.MIN_RNR_TIMER, a.minRnrTimer(), 0, 31, "min_rnr_timer");
        range(mask, QpAttrMask.RETRY_CNT, a.retryCnt(), 0, 7, "retry_cnt");
        range(mask, QpAttrMask.RNR_RETRY, a.rnrRetry(), 0, 7, "rnr_retry");
        range(mask, QpAttrMask.MAX_QP_RD_ATOMIC, a.maxRdAtomic(), 0, da.maxQpInitRdAtom(), "max_rd_atomic");
        range(mask, QpAttrMask.MAX_DEST_RD_ATOMIC, a.maxDestRdAtomic(), 0, da.maxQpRdAtom(), "max_dest_rd_atomic");
        if (mask.contains(QpAttrMask.ALT_PATH) || mask.contains(QpAttrMask.PATH_MIG_STATE)) {
            throw VerbsException.invalid(
                    "the device does not support automatic path migration (no IBV_DEVICE_AUTO_PATH_MIG)");
        }
    }

    private static void range(Set<QpAttrMask> mask, QpAttrMask m, int v, int lo, int hi, String name) {
        if (mask.contains(m)) {
            VerbsException.checkRange(name, v, lo, hi);
        }
    }

    /** Takes every value {@code mask} sets (already validated). */
    void apply(QpAttr a, Set<QpAttrMask> mask) {
        if (mask.contains(QpAttrMask.ACCESS_FLAGS)) {
            accessFlags = a.accessFlagBits();
        }
        if (mask.contains(QpAttrMask.PKEY_INDEX)) {
            pkeyIndex = a.pkeyIndex();
        }
        if (mask.contains(QpAttrMask.PORT)) {
            port = a.port();
        }
        if (mask.contains(QpAttrMask.AV)) {
            av = a.av();
        }
        if (mask.contains(QpAttrMask.PATH_MTU)) {
            pathMtu = a.pathMtu();
            mtu = a.pathMtu().bytes();
        }
        if (mask.contains(QpAttrMask.DEST_QPN)) {
            destQpn = a.destQpn();
        }
        if (mask.contains(QpAttrMask.RQ_PSN)) {
            rqPsn = a.rqPsn();
        }
        if (mask.contains(QpAttrMask.SQ_PSN)) {
            sqPsn = a.sqPsn();
        }
        if (mask.contains(QpAttrMask.TIMEOUT)) {
            timeout = a.timeout();
        }
        if (mask.contains(QpAttrMask.RETRY_CNT)) {
            retryCnt = a.retryCnt();
        }
        if (mask.contains(QpAttrMask.RNR_RETRY)) {
            rnrRetry = a.rnrRetry();
        }
        if (mask.contains(QpAttrMask.MIN_RNR_TIMER)) {
            minRnrTimer = a.minRnrTimer();
        }
        if (mask.contains(QpAttrMask.MAX_QP_RD_ATOMIC)) {
            maxRdAtomic = a.maxRdAtomic();
        }
        if (mask.contains(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            maxDestRdAtomic = a.maxDestRdAtomic();
        }
        if (mask.contains(QpAttrMask.EN_SQD_ASYNC_NOTIFY)) {
            sqdNotify = a.enSqdAsyncNotify();
        }
    }

    /** Writes every attribute into {@code a}, as a query returns them. */
    void fill(QpAttr a) {
        a.accessFlags(AccessFlag.fromMask(accessFlags))
                .pkeyIndex(pkeyIndex)
                .port(port)
                .pathMtu(pathMtu)
                .timeout(timeout)
                .retryCnt(retryCnt)
                .rnrRetry(rnrRetry)
                .rqPsn(rqPsn)
                .maxRdAtomic(maxRdAtomic)
                .minRnrTimer(minRnrTimer)
                .sqPsn(sqPsn)
                .maxDestRdAtomic(maxDestRdAtomic)
                .destQpn(destQpn)
                .enSqdAsyncNotify(sqdNotify);
        if (av != null) {
            a.av(av);
        }
    }
}
