package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class RegionDescriptionTest {

    @Test
    void shouldRegisterBufferInPlaceWhenVirtual() {
        ByteBuffer direct = ByteBuffer.allocateDirect(64).position(8).limit(40);
        RegionDescription.Virtual v = new RegionDescription.Virtual(direct);
        direct.clear();
        assertSame(direct, v.buffer());
        assertEquals(8, v.offset());
        assertEquals(32, v.length());
        assertSame(MemoryType.VIRTUAL, v.memType());
        assertEquals(v, new RegionDescription.Virtual(direct, 8, 32));
        assertNotEquals(v, new RegionDescription.Virtual(direct));
        assertNotEquals(
                v,
                new RegionDescription.Virtual(
                        ByteBuffer.allocateDirect(64).position(8).limit(40)));
    }

    @Test
    void shouldRejectRangeWhenOutsideBufferCapacity() {
        ByteBuffer heap = ByteBuffer.allocate(16);
        assertEquals(16, new RegionDescription.Virtual(heap, 0, 16).length());
        DatException e = assertThrows(DatException.class, () -> new RegionDescription.Virtual(heap, 8, 9));
        assertEquals("DAT_INVALID_PARAMETER: region [8, +9) is outside the buffer's 16 bytes", e.getMessage());
        assertThrows(DatException.class, () -> new RegionDescription.Virtual(heap, -1, 1));
        assertThrows(DatException.class, () -> new RegionDescription.Virtual(null));
    }

    @Test
    void shouldNameLmrWhenRegisteringExistingLmr() {
        LocalMemoryRegion lmr = Fakes.handle(LocalMemoryRegion.class, HandleType.LMR);
        assertSame(MemoryType.LMR, new RegionDescription.Lmr(lmr).memType());
        assertThrows(DatException.class, () -> new RegionDescription.Lmr(null));
    }

    @Test
    void shouldCopyCookieWhenSharedVirtual() {
        byte[] cookie = new byte[40];
        cookie[0] = 1;
        RegionDescription.SharedVirtual s = new RegionDescription.SharedVirtual(cookie, ByteBuffer.allocate(16));
        cookie[0] = 2;
        assertEquals(1, s.cookie()[0]);
        assertSame(MemoryType.SHARED_VIRTUAL, s.memType());
        assertEquals(16, s.length());
        byte[] expected = new byte[40];
        expected[0] = 1;
        assertArrayEquals(expected, s.cookie());
    }

    @Test
    void shouldRejectCookieWhenNot40Bytes() {
        DatException e = assertThrows(
                DatException.class, () -> new RegionDescription.SharedVirtual(new byte[39], ByteBuffer.allocate(1)));
        assertEquals("DAT_INVALID_PARAMETER: LMR cookie has 39 bytes, not 40", e.getMessage());
    }
}
