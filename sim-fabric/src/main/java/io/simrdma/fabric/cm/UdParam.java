package io.simrdma.fabric.cm;

import io.simrdma.fabric.AhAttr;

/**
 * The UD event data of an RDMA_PS_UDP id (rdma_get_cm_event(3), "UD EVENT DATA"): what the
 * active side needs to send datagrams to the QP the peer's rdma_accept named.
 *
 * <p>Thread safety: immutable; the private data is copied in and out.
 *
 * @param privateData the peer's private data (rdma_accept's on ESTABLISHED, rdma_connect's on
 *                    CONNECT_REQUEST; empty if none); copied
 * @param ahAttr      the address to make an address handle from (ibv_create_ah(3))
 * @param qpNum       the remote QP number (0 on CONNECT_REQUEST: a SIDR REQ carries none)
 * @param qkey        the Q_Key to send with (0 on CONNECT_REQUEST)
 */
public record UdParam(byte[] privateData, AhAttr ahAttr, int qpNum, int qkey) {

    public UdParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UdParam u
                && java.util.Arrays.equals(privateData, u.privateData)
                && java.util.Objects.equals(ahAttr, u.ahAttr)
                && qpNum == u.qpNum
                && qkey == u.qkey;
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(privateData) * 31 + qpNum;
    }

    @Override
    public String toString() {
        return "UdParam[pd=" + privateData.length + "B, ah=" + ahAttr + ", qpn=" + qpNum + ", qkey=0x"
                + Integer.toHexString(qkey) + "]";
    }
}
