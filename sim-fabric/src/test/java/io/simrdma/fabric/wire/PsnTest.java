package io.simrdma.fabric.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** 24-bit PSN arithmetic (IBA 9.7.1: PSNs wrap modulo 2^24; "ahead" means within the next 2^23). */
class PsnTest {

    private static final int HALF = 1 << 23;

    @Test
    @DisplayName("IBA 9.7.1: add wraps modulo 2^24 in both directions")
    void shouldWrapModulo2To24WhenAdding() {
        assertEquals(0, Psn.add(0xFFFFFF, 1));
        assertEquals(5, Psn.add(0xFFFFFD, 8));
        assertEquals(0xFFFFFF, Psn.add(0, -1));
        assertEquals(0xFFFFF0, Psn.add(0x10, -0x20));
        assertEquals(0x123456, Psn.add(0x123456, 1 << 24), "a full turn");
        assertEquals(0x123456, Psn.add(0x123456, 0));
        assertEquals(0xFFFFFF, Psn.MASK);
        for (int n = -3; n <= 3; n++) {
            int r = Psn.add(0xFFFFFE, n);
            assertEquals(r & Psn.MASK, r, "result stays within 24 bits");
        }
    }

    @Test
    @DisplayName("IBA 9.7.1: compare orders PSNs across the wrap")
    void shouldOrderPsnsAcrossWrapWhenCompared() {
        assertEquals(0, Psn.compare(7, 7));
        assertTrue(Psn.compare(0, 0xFFFFFF) > 0, "0 follows 0xFFFFFF");
        assertTrue(Psn.compare(0xFFFFFF, 0) < 0);
        assertTrue(Psn.compare(2, 0xFFFFFE) > 0);
        assertTrue(Psn.compare(0xFFFFFE, 2) < 0);
        assertTrue(Psn.compare(100, 99) > 0);
        assertTrue(Psn.compare(99, 100) < 0);
        // Within the next 2^23 - 1 values is ahead; beyond half the space is behind.
        assertTrue(Psn.compare(HALF - 1, 0) > 0);
        assertTrue(Psn.compare(0, HALF - 1) < 0);
        assertTrue(Psn.compare(HALF + 1, 0) < 0);
        assertTrue(Psn.compare(0, HALF + 1) > 0);
        assertTrue(Psn.compare(0xFFFFFF + HALF - 1 & Psn.MASK, 0xFFFFFF) > 0);
        // Only the low 24 bits count.
        assertEquals(0, Psn.compare(0x1000005, 5));
        assertEquals(Psn.compare(3, 1), Psn.compare(0xFF000003, 0x7F000001));
    }

    @Test
    @DisplayName("IBA 9.7.1: compare(add(a, d), a) has the sign of d for |d| < 2^23, for random a")
    void shouldAgreeWithAddWhenDistanceIsWithinHalfTheSpace() {
        SplittableRandom r = new SplittableRandom(24);
        for (int i = 0; i < 20_000; i++) {
            int a = r.nextInt(1 << 24);
            int d = r.nextInt(1, HALF);
            assertTrue(Psn.compare(Psn.add(a, d), a) > 0, a + " + " + d);
            assertTrue(Psn.compare(Psn.add(a, -d), a) < 0, a + " - " + d);
            assertTrue(Psn.compare(a, Psn.add(a, d)) < 0);
            assertEquals(d, Psn.distance(a, Psn.add(a, d)));
            assertEquals((1 << 24) - d, Psn.distance(Psn.add(a, d), a));
        }
    }

    @Test
    @DisplayName("IBA 9.7.1: distance counts forward modulo 2^24")
    void shouldCountForwardAcrossWrapWhenMeasuringDistance() {
        assertEquals(0, Psn.distance(9, 9));
        assertEquals(3, Psn.distance(0xFFFFFE, 1));
        assertEquals(1, Psn.distance(0xFFFFFF, 0));
        assertEquals(0xFFFFFF, Psn.distance(1, 0));
        assertEquals(128, Psn.distance(0xFFFFC0, 0x40));
        assertEquals(2, Psn.distance(0x1000000, 2), "only the low 24 bits count");
    }
}
