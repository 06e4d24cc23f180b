package io.simrdma.fabric.cm;

import io.simrdma.fabric.wire.Gid;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The RDMA CM header that an RDMA_PS_TCP connection request carries at the start of the REQ's
 * private data (librdmacm's cma_hdr), so that the passive side learns the requester's address
 * and port; it takes 36 of the REQ's 92 bytes, which is why rdma_connect(3) allows 56 bytes of
 * user data there. RDMA_PS_IB requests carry no header.
 *
 * <pre>
 *  0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  | cma_version=0 | ip_version=6  |        source port            |
 *  |               | (upper nibble)|        (big endian)           |
 *  +---------------+---------------+---------------+---------------+
 *  |              source address: the requester's GID (16)         |
 *  +---------------+---------------+---------------+---------------+
 *  |          destination address: the listener's GID (16)         |
 *  +---------------+---------------+---------------+---------------+
 *  |                  user private data (up to 56)                 |
 * </pre>
 *
 * <p>Thread safety: stateless.
 *
 * <p>Who calls it: the {@link ConnectionMachine}, building a REQ on the active side and reading one on
 * the passive side.
 */
final class CmaHeader {

    /** Size of the header: version, IP version, port and two 16-byte addresses. */
    static final int LENGTH = 36;

    private CmaHeader() {}

    /** The REQ private data for a connection from {@code src} to {@code dst}: the header, then {@code user}. */
    static byte[] prepend(InetSocketAddress src, InetSocketAddress dst, byte[] user) {
        byte[] pd = new byte[LENGTH + user.length];
        pd[0] = 0;
        pd[1] = 0x60;
        int port = src.getPort();
        pd[2] = (byte) (port >>> 8);
        pd[3] = (byte) port;
        RdmaCm.gidOf(src).copyTo(pd, 4);
        RdmaCm.gidOf(dst).copyTo(pd, 20);
        System.arraycopy(user, 0, pd, LENGTH, user.length);
        return pd;
    }

    /** The requester's port in the header at the start of {@code privateData}. */
    static int sourcePort(byte[] privateData) {
        return (privateData[2] & 0xFF) << 8 | (privateData[3] & 0xFF);
    }

    /** The requester's GID in the header at the start of {@code privateData}. */
    static Gid sourceGid(byte[] privateData) {
        return Gid.of(Arrays.copyOfRange(privateData, 4, 20));
    }
}
