package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;

/**
 * The limits rdma_connect(3), rdma_accept(3) and rdma_reject(3) put on their parameters before
 * anything is sent: private data must fit the IB CM message's field (REQ 92 bytes, less the
 * 36-byte RDMA CM header of an RDMA_PS_TCP request; REP 196; REJ 148), responder resources and
 * initiator depth must fit the local device (max_qp_rd_atom, max_qp_init_rd_atom of
 * ibv_query_device(3)), and an accept may not promise more reads than the request offered.
 * Every violation is EINVAL with a message naming the limit.
 *
 * <p>Thread safety: stateless.
 *
 * <p>Who calls it: {@link CmId}, before it hands connect, accept or reject to the device's IB CM.
 */
final class ConnParamLimits {

    private ConnParamLimits() {}

    /** Checks rdma_connect's {@code p} for an id in port space {@code ps} on {@code d}. */
    static void checkConnect(PortSpace ps, ConnParam p, Device d) {
        int limit = ps == PortSpace.TCP
                ? CmId.MAX_CONNECT_PRIVATE_DATA
                : ps == PortSpace.UDP ? CmId.MAX_UDP_CONNECT_PRIVATE_DATA : CmId.MAX_CONNECT_PRIVATE_DATA_IB;
        if (p.privateData().length > limit) {
            throw invalid("connect private data of " + p.privateData().length + " bytes exceeds " + limit
                    + " (rdma_connect(3))");
        }
        if (p.responderResources() > d.query().maxQpRdAtom()) {
            throw invalid("responder_resources " + p.responderResources() + " exceeds max_qp_rd_atom "
                    + d.query().maxQpRdAtom());
        }
        if (p.initiatorDepth() > d.query().maxQpInitRdAtom()) {
            throw invalid("initiator_depth " + p.initiatorDepth() + " exceeds max_qp_init_rd_atom "
                    + d.query().maxQpInitRdAtom());
        }
    }

    /**
     * What rdma_accept without parameters accepts: the request's resources adjusted down to the
     * limits of {@code d}, its retry counts, no private data; {@code srq} if the id's QP has an SRQ.
     */
    static ConnParam acceptDefaults(ConnParam request, Device d, boolean srq) {
        return new ConnParam(
                null,
                Math.min(request.responderResources(), d.query().maxQpRdAtom()),
                Math.min(request.initiatorDepth(), d.query().maxQpInitRdAtom()),
                false,
                request.retryCount(),
                request.rnrRetryCount(),
                srq,
                0);
    }

    /** Checks rdma_accept's {@code p} on {@code d} against the {@code request} it answers. */
    static void checkAccept(ConnParam p, ConnParam request, Device d) {
        if (p.privateData().length > CmId.MAX_ACCEPT_PRIVATE_DATA) {
            throw invalid("accept private data of " + p.privateData().length + " bytes exceeds "
                    + CmId.MAX_ACCEPT_PRIVATE_DATA + " (rdma_accept(3))");
        }
        if (p.responderResources() > d.query().maxQpRdAtom()) {
            throw invalid("responder_resources " + p.responderResources() + " exceeds max_qp_rd_atom "
                    + d.query().maxQpRdAtom());
        }
        if (p.initiatorDepth() > d.query().maxQpInitRdAtom() || p.initiatorDepth() > request.initiatorDepth()) {
            throw invalid("initiator_depth " + p.initiatorDepth() + " exceeds max_qp_init_rd_atom "
                    + d.query().maxQpInitRdAtom() + " or the request's " + request.initiatorDepth()
                    + " (rdma_accept(3))");
        }
    }

    /** rdma_reject's private data: a copy, empty for null, checked against the REJ's 148 bytes. */
    static byte[] rejectData(byte[] privateData) {
        byte[] pd = privateData == null ? new byte[0] : privateData.clone();
        if (pd.length > CmId.MAX_REJECT_PRIVATE_DATA) {
            throw invalid("reject private data of " + pd.length + " bytes exceeds " + CmId.MAX_REJECT_PRIVATE_DATA);
        }
        return pd;
    }

    private static VerbsException invalid(String message) {
        return new VerbsException(Errno.EINVAL, message);
    }
}
