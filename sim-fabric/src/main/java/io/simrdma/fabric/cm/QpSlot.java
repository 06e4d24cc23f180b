package io.simrdma.fabric.cm;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionChannel;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QpType;
import io.simrdma.fabric.QueuePair;
import java.util.EnumSet;

/**
 * The one queue pair an rdma_cm_id may be associated with (rdma_create_qp(3)), and the CQs and
 * completion channel the connection manager made for it when the application gave none; they
 * are destroyed with the QP (rdma_destroy_qp(3)). A QP created elsewhere can be attached and
 * detached without the slot ever destroying it.
 *
 * <p>The slot only makes, holds and releases the QP: {@link CmId} checks the id's state before
 * calling it, and the IB CM moves the QP through RTR, RTS and ERR as the connection forms and
 * ends.
 *
 * <p>Thread safety: thread-safe; the QP reference is volatile (the device executor reads it),
 * the rest is guarded by the slot's monitor, which is never held while a verbs call runs.
 *
 * <p>Who calls it: {@link CmId} (create_qp, attach, detach, destroy_qp).
 */
final class QpSlot {

    private volatile QueuePair qp;
    private boolean cmCreatedCqs;
    private CompletionQueue cmSendCq;
    private CompletionQueue cmRecvCq;
    private CompletionChannel cmCompChannel;

    /** The QP, or null. */
    QueuePair qp() {
        return qp;
    }

    /**
     * Creates the QP on {@code pd} of {@code device} with {@code attr} and moves it to INIT so
     * receives can be posted. Without CQs in {@code attr}, one CQ with a completion channel,
     * deep enough for both queues, serves the missing ones; it goes with the QP.
     */
    QueuePair create(Device device, ProtectionDomain pd, QpInitAttr attr) {
        return create(device, pd, attr, PortSpace.TCP);
    }

    /**
     * As {@link #create(Device, ProtectionDomain, QpInitAttr)} for an id of port space {@code ps}:
     * an RDMA_PS_UDP id's QP is a UD QP, brought to RTS at once with Q_Key
     * {@link CmId#RDMA_UDP_QKEY}, as librdmacm does for a UD id's QP (no connection will move it).
     */
    QueuePair create(Device device, ProtectionDomain pd, QpInitAttr attr, PortSpace ps) {
        boolean ud = ps == PortSpace.UDP;
        QpInitAttr a = attr;
        CompletionChannel ch = null;
        CompletionQueue scq = attr.sendCq();
        CompletionQueue rcq = attr.recvCq();
        boolean created = false;
        if (scq == null || rcq == null) {
            ch = device.createCompletionChannel();
            int depth =
                    Math.max(attr.caps().maxSendWr(), 1) + Math.max(attr.caps().maxRecvWr(), 1);
            CompletionQueue cq = device.createCq(Math.min(depth, device.query().maxCqe()), ch, null);
            scq = scq != null ? scq : cq;
            rcq = rcq != null ? rcq : cq;
            created = true;
            a = QpInitAttr.rc(scq, rcq)
                    .caps(attr.caps())
                    .srq(attr.srq())
                    .sqSigAll(attr.sqSigAll())
                    .context(attr.context());
        }
        if (ud && a.qpType() != QpType.UD) {
            a = QpInitAttr.ud(scq, rcq)
                    .caps(attr.caps())
                    .srq(attr.srq())
                    .sqSigAll(attr.sqSigAll())
                    .context(attr.context());
        }
        QueuePair q;
        try {
            q = pd.createQp(a);
            if (ud) {
                toRtsUd(q);
            } else {
                toInit(q);
            }
        } catch (RuntimeException e) {
            if (created) {
                scq.destroy();
                ch.destroy();
            }
            throw e;
        }
        synchronized (this) {
            qp = q;
            cmCreatedCqs = created;
            cmSendCq = created ? scq : null;
            cmRecvCq = created ? rcq : null;
            cmCompChannel = ch;
        }
        return q;
    }

    /** Holds {@code q}, made by the caller, moving it to INIT if it is in RESET. */
    void attach(QueuePair q) {
        if (q.state() == QpState.RESET) {
            toInit(q);
        }
        synchronized (this) {
            qp = q;
            cmCreatedCqs = false;
        }
    }

    /** Lets go of the QP without destroying it; returns it, or null. */
    synchronized QueuePair detach() {
        QueuePair q = qp;
        qp = null;
        return q;
    }

    /** Destroys the QP, if any, and the CQs and channel the connection manager made for it. */
    void destroy() {
        QueuePair q;
        synchronized (this) {
            q = qp;
            if (q == null) {
                return;
            }
        }
        q.destroy();
        synchronized (this) {
            qp = null;
            if (cmCreatedCqs) {
                cmSendCq.destroy();
                if (cmRecvCq != cmSendCq) {
                    cmRecvCq.destroy();
                }
                cmCompChannel.destroy();
                cmCreatedCqs = false;
                cmSendCq = null;
                cmRecvCq = null;
                cmCompChannel = null;
            }
        }
    }

    /** A UD QP from RESET to RTS: INIT (pkey_index, port, qkey), RTR, RTS (sq_psn 0). */
    private static void toRtsUd(QueuePair q) {
        q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(CmId.RDMA_UDP_QKEY));
        q.modify(new QpAttr().state(QpState.RTR));
        q.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
    }

    private static void toInit(QueuePair q) {
        q.modify(new QpAttr()
                .state(QpState.INIT)
                .pkeyIndex(0)
                .port(1)
                .accessFlags(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE)));
    }
}
