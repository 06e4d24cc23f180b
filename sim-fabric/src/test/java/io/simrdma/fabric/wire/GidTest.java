package io.simrdma.fabric.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The GID's two halves, as the TCP codec compares them with a received header. */
class GidTest {

    @Test
    @DisplayName(
            "high and low are bytes 0-7 and 8-15 in network order, as ByteBuf.getLong reads them from a header (IBA 8.3 GRH SGID/DGID)")
    void shouldReadHalvesInNetworkOrderWhenComparedWithAWireHeader() {
        byte[] b = new byte[16];
        for (int i = 0; i < 16; i++) {
            b[i] = (byte) (0xf0 + i);
        }
        Gid g = Gid.of(b);
        ByteBuf wire = Unpooled.wrappedBuffer(b);
        assertEquals(wire.getLong(0), g.high(), "expected high = getLong(0)");
        assertEquals(wire.getLong(8), g.low(), "expected low = getLong(8)");
        Gid ll = Gid.linkLocal(0x0002_c903_0000_0007L);
        assertEquals(0xfe80_0000_0000_0000L, ll.high(), "expected fe80:: prefix");
        assertEquals(0x0002_c903_0000_0007L, ll.low(), "expected the GUID");
    }
}
