package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BitFlagTest {

    @Test
    void shouldOrBitsWhenConvertingSetToWord() {
        assertEquals(0x21, BitFlag.toBits(EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.REMOTE_WRITE)));
        assertEquals(0, BitFlag.toBits(Set.<CompletionFlag>of()));
    }

    @Test
    void shouldGiveSetWhenWordHasOnlyKnownBits() {
        assertEquals(
                EnumSet.of(CompletionFlag.SUPPRESS, CompletionFlag.BARRIER_FENCE),
                BitFlag.fromBits(CompletionFlag.class, 0x09));
        assertEquals(EnumSet.allOf(EpParamField.class), BitFlag.fromBits(EpParamField.class, 0x7FFFF7FFL));
        assertEquals(EnumSet.noneOf(EvdFlag.class), BitFlag.fromBits(EvdFlag.class, 0));
    }

    @Test
    void shouldRejectWordWhenItHasUnknownBits() {
        DatException e = assertThrows(DatException.class, () -> BitFlag.fromBits(EpParamField.class, 0x800));
        assertEquals("DAT_INVALID_PARAMETER: undefined EpParamField bits 0x800", e.getMessage());
    }
}
