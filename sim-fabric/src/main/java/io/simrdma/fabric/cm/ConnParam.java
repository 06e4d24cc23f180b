package io.simrdma.fabric.cm;

import java.util.Arrays;

/**
 * Connection properties (struct rdma_conn_param) for connect and accept, and as reported by
 * CONNECT_REQUEST and ESTABLISHED events. See rdma_connect(3) and rdma_accept(3).
 *
 * <p>Thread safety: immutable. The private data is copied in and copied out: the caller keeps
 * ownership of the arrays it passes and receives.
 *
 * @param privateData        bytes passed to the peer: at most 56 on connect, 196 on accept
 *                           (IB CM REQ and REP private data minus the RDMA CM header); copied
 * @param responderResources RDMA READs/atomics the local side accepts from the peer
 * @param initiatorDepth     RDMA READs/atomics the local side issues to the peer
 * @param flowControl        hardware flow control available (exchanged, not used)
 * @param retryCount         transport retries of the QP (3 bits; ignored on accept)
 * @param rnrRetryCount      RNR retries the PEER should make (3 bits; 7 = forever)
 * @param srq                the local QP uses a shared receive queue
 * @param qpNum              QP number when the id has no QP of its own
 */
public record ConnParam(
        byte[] privateData,
        int responderResources,
        int initiatorDepth,
        boolean flowControl,
        int retryCount,
        int rnrRetryCount,
        boolean srq,
        int qpNum) {

    public ConnParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (responderResources < 0 || responderResources > 255 || initiatorDepth < 0 || initiatorDepth > 255) {
            throw new IllegalArgumentException("responder resources and initiator depth are 8-bit values");
        }
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("retry counts are 3-bit values (rdma_connect(3))");
        }
    }

    /** Sensible defaults: no private data, 1 RDMA READ/atomic each way, retry 7, RNR retry 7. */
    public static ConnParam defaults() {
        return new ConnParam(null, 1, 1, false, 7, 7, false, 0);
    }

    /** Defaults with {@code data} as private data. */
    public static ConnParam withPrivateData(byte[] data) {
        return defaults().privateData(data);
    }

    public ConnParam privateData(byte[] data) {
        return new ConnParam(
                data, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    public ConnParam responderResources(int n) {
        return new ConnParam(privateData, n, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    public ConnParam initiatorDepth(int n) {
        return new ConnParam(privateData, responderResources, n, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    public ConnParam retryCount(int n) {
        return new ConnParam(
                privateData, responderResources, initiatorDepth, flowControl, n, rnrRetryCount, srq, qpNum);
    }

    public ConnParam rnrRetryCount(int n) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retryCount, n, srq, qpNum);
    }

    public ConnParam qpNum(int n) {
        return new ConnParam(
                privateData, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq, n);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnParam c
                && Arrays.equals(privateData, c.privateData)
                && responderResources == c.responderResources
                && initiatorDepth == c.initiatorDepth
                && flowControl == c.flowControl
                && retryCount == c.retryCount
                && rnrRetryCount == c.rnrRetryCount
                && srq == c.srq
                && qpNum == c.qpNum;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + responderResources * 7 + initiatorDepth;
    }

    @Override
    public String toString() {
        return "ConnParam[pd=" + privateData.length + "B, rr=" + responderResources + ", id=" + initiatorDepth
                + ", retry=" + retryCount + ", rnr=" + rnrRetryCount + ", srq=" + srq + ", qpn=" + qpNum + "]";
    }
}
