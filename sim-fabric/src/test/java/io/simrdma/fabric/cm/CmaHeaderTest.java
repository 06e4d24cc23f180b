package io.simrdma.fabric.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.simrdma.fabric.wire.Gid;
import java.net.InetSocketAddress;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The RDMA CM header (librdmacm's cma_hdr) at the start of an RDMA_PS_TCP REQ's private data. */
class CmaHeaderTest {

    private static final Gid SRC = Gid.parse("fe80::1:2");
    private static final Gid DST = Gid.parse("fe80::a:b");

    @Test
    @DisplayName("rdma_connect(3): the RDMA CM header takes 36 of the REQ's 92 private data bytes, leaving 56")
    void shouldLeaveFiftySixBytesWhenHeaderTakesItsShare() {
        assertEquals(
                CmMessage.Type.REQ.privateDataLength - CmId.MAX_CONNECT_PRIVATE_DATA,
                CmaHeader.LENGTH,
                "header length = REQ private data (92) - rdma_connect's TCP limit (56)");
    }

    @Test
    @DisplayName(
            "cma_hdr: version 0, IP version 6 in the upper nibble, source port, source and destination GID, then the user's bytes")
    void shouldLayOutHeaderWhenPrependedToUserData() {
        byte[] user = {1, 2, 3};
        byte[] pd = CmaHeader.prepend(
                new InetSocketAddress(RdmaCm.inetOf(SRC), 0xBEEF),
                new InetSocketAddress(RdmaCm.inetOf(DST), 7471),
                user);

        assertEquals(CmaHeader.LENGTH + user.length, pd.length, "header + user data");
        assertEquals(0, pd[0], "cma_version");
        assertEquals(0x60, pd[1] & 0xFF, "ip_version 6 << 4");
        assertEquals(0xBE, pd[2] & 0xFF, "source port, high byte first");
        assertEquals(0xEF, pd[3] & 0xFF, "source port, low byte");
        assertArrayEquals(SRC.toBytes(), Arrays.copyOfRange(pd, 4, 20), "source GID");
        assertArrayEquals(DST.toBytes(), Arrays.copyOfRange(pd, 20, 36), "destination GID");
        assertArrayEquals(user, Arrays.copyOfRange(pd, CmaHeader.LENGTH, pd.length), "user data after the header");
    }

    @Test
    @DisplayName("cma_hdr: the passive side reads back the requester's port and GID")
    void shouldReadSourcePortAndGidWhenHeaderWasPrepended() {
        byte[] pd = CmaHeader.prepend(
                new InetSocketAddress(RdmaCm.inetOf(SRC), 65535),
                new InetSocketAddress(RdmaCm.inetOf(DST), 1),
                new byte[0]);

        assertEquals(65535, CmaHeader.sourcePort(pd), "port 65535 survives as unsigned");
        assertEquals(SRC, CmaHeader.sourceGid(pd));
    }
}
