package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class EvdStreamMergingTest {

    @Test
    void shouldAllowOnlyDiagonalWhenNone() {
        EvdStreamMerging m = EvdStreamMerging.none();
        for (EvdFlag a : EvdFlag.values()) {
            for (EvdFlag b : EvdFlag.values()) {
                assertEquals(a == b, m.supports(a, b), a + "/" + b);
            }
        }
        assertEquals("EvdStreamMerging[100000 010000 001000 000100 000010 000001]", m.toString());
    }

    @Test
    void shouldBeSymmetricWhenPairIsAdded() {
        EvdStreamMerging m = EvdStreamMerging.none().with(EvdFlag.DTO, EvdFlag.CONNECTION);
        assertTrue(m.supports(EvdFlag.CONNECTION, EvdFlag.DTO));
        assertTrue(m.supports(EnumSet.of(EvdFlag.DTO, EvdFlag.CONNECTION)));
        assertFalse(m.supports(EnumSet.of(EvdFlag.DTO, EvdFlag.CONNECTION, EvdFlag.ASYNC)));
    }

    @Test
    void shouldMergeEverythingWhenAllUnlessPairIsRemoved() {
        assertTrue(EvdStreamMerging.all().supports(EnumSet.allOf(EvdFlag.class)));
        EvdStreamMerging m = EvdStreamMerging.all().without(EvdFlag.SOFTWARE, EvdFlag.ASYNC);
        assertFalse(m.supports(EvdFlag.ASYNC, EvdFlag.SOFTWARE));
        assertEquals(EvdStreamMerging.all(), m.with(EvdFlag.ASYNC, EvdFlag.SOFTWARE));
        assertThrows(DatException.class, () -> EvdStreamMerging.all().without(EvdFlag.DTO, EvdFlag.DTO));
    }
}
