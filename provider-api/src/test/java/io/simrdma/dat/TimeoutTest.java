package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TimeoutTest {

    @Test
    void shouldBeAllOnesWhenInfinite() {
        assertEquals(0xFFFFFFFFL, Timeout.INFINITE.micros());
        assertTrue(Timeout.INFINITE.isInfinite());
        assertEquals(Long.MAX_VALUE, Timeout.INFINITE.toNanos());
        assertEquals(Timeout.INFINITE, Timeout.ofMicros(0xFFFFFFFFL));
    }

    @Test
    void shouldConvertUnitsWhenBuiltFromMillisOrDuration() {
        assertEquals(1_500_000, Timeout.ofMillis(1500).micros());
        assertEquals(2_000, Timeout.of(Duration.ofNanos(2_000_999)).micros());
        assertEquals(7_000, Timeout.ofMicros(7).toNanos());
        assertFalse(Timeout.ZERO.isInfinite());
        assertEquals(0, Timeout.ZERO.micros());
    }

    @Test
    void shouldRejectValueWhenOutsideUnsigned32Bits() {
        assertEquals(
                DatReturnType.INVALID_PARAMETER,
                assertThrows(DatException.class, () -> Timeout.ofMicros(-1)).type());
        assertEquals(
                "DAT_INVALID_PARAMETER: timeout 4294967296 us is outside 0..0xFFFFFFFF",
                assertThrows(DatException.class, () -> Timeout.ofMicros(0x1_0000_0000L))
                        .getMessage());
        assertThrows(DatException.class, () -> Timeout.ofMillis(4_294_968));
        assertThrows(DatException.class, () -> Timeout.of(Duration.ofSeconds(-1)));
        assertThrows(DatException.class, () -> Timeout.of(null));
    }
}
