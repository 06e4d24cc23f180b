package io.simrdma.fabric.cm;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import java.util.EnumSet;

/**
 * Moves the queue pair of a connection through the states the IB CM exchange calls for, with
 * the attributes it negotiated, as librdmacm does with rdma_init_qp_attr(3): RTR (path, the
 * peer's QPN and starting PSN, responder resources) when the REP is sent or received, RTS (own
 * starting PSN, ACK timeout, retry counts, initiator depth) right after, and ERR when the
 * connection or the attempt ends.
 *
 * <p>Thread safety: none of its own; it runs on the device executor, as the verbs calls it
 * makes require of a connection's QP.
 *
 * <p>Who calls it: the device's {@link ConnectionMachine}.
 */
final class QpTransitions {

    private final Device device;
    private final CmConfig config;

    QpTransitions(Device device, CmConfig config) {
        this.device = device;
        this.config = config;
    }

    /**
     * INIT (from RESET) and RTR towards the peer of {@code id}; remote reads and atomics are
     * allowed when this side grants responder resources.
     */
    void toRtr(CmId id, QueuePair qp, int responderResources) {
        Connection c = id.connection;
        EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        if (responderResources > 0) {
            access.add(AccessFlag.REMOTE_READ);
            access.add(AccessFlag.REMOTE_ATOMIC);
        }
        AhAttr av = new AhAttr(c.remoteGid, 0, 64, id.tos, 0, 0, 1);
        if (qp.state() == QpState.RESET) {
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(access));
        }
        qp.modify(new QpAttr()
                .state(QpState.RTR)
                .av(av)
                .pathMtu(mtuOf(id.pathMtuCode))
                .destQpn(c.remoteQpn)
                .rqPsn(c.remotePsn)
                .maxDestRdAtomic(Math.min(responderResources, device.query().maxQpRdAtom()))
                .minRnrTimer(config.minRnrTimer())
                .accessFlags(access));
    }

    /** RTS with this side's starting PSN, the id's ACK timeout and the given retry counts and read depth. */
    void toRts(CmId id, QueuePair qp, int retryCount, int rnrRetry, int initiatorDepth) {
        qp.modify(new QpAttr()
                .state(QpState.RTS)
                .sqPsn(id.connection.localPsn)
                .timeout(id.ackTimeoutFor(config))
                .retryCnt(retryCount)
                .rnrRetry(rnrRetry)
                .maxRdAtomic(Math.min(initiatorDepth, device.query().maxQpInitRdAtom())));
    }

    /**
     * ERR, flushing the QP's work requests, unless it is in ERR or RESET already; remembers that
     * the connection manager did it, so the QP's ERR is not taken for a failure of the connection.
     */
    void toError(CmId id) {
        QueuePair qp = id.qp();
        if (qp != null && qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
            id.connection.cmMovedQpToError = true;
            qp.modify(new QpAttr().state(QpState.ERR));
        }
    }

    private static Mtu mtuOf(int code) {
        for (Mtu m : Mtu.values()) {
            if (m.code() == code) {
                return m;
            }
        }
        return Mtu.MTU_1024;
    }
}
