package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TripletTest {

    @Test
    void shouldKeepUnsignedBitsWhenContextAndAddressAreLarge() {
        LmrTriplet t = new LmrTriplet(0xFFFF_FFF0, 0xFFFF_0000_0000_0000L, 4096);
        assertEquals(0xFFFF_FFF0, t.lmrContext());
        assertEquals(0xFFFF_0000_0000_0000L, t.virtualAddress());
        assertEquals(4096, t.segmentLength());
        RmrTriplet r = new RmrTriplet(0x8000_0001, 0x1000, 0);
        assertEquals(0x8000_0001, r.rmrContext());
    }

    @Test
    void shouldAllowZeroLengthWhenSegmentIsEmpty() {
        assertEquals(0, LmrTriplet.EMPTY.segmentLength());
        assertEquals(new LmrTriplet(0, 0, 0), LmrTriplet.EMPTY);
    }

    @Test
    void shouldRejectSegmentWhenLengthIsNegative() {
        assertEquals(
                "DAT_INVALID_PARAMETER: segment length -1 is negative",
                assertThrows(DatException.class, () -> new LmrTriplet(1, 0, -1)).getMessage());
        assertEquals(
                DatReturnType.INVALID_PARAMETER,
                assertThrows(DatException.class, () -> new RmrTriplet(1, 0, -5)).type());
    }
}
