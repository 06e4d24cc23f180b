package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EvdParamsTest {

    private static EvdParams params(Set<EvdState> state) {
        return new EvdParams(Fakes.ia(), 16, state, Optional.empty(), EvdFlag.defaults());
    }

    @Test
    void shouldComposeStateWordWhenOneValuePerSubState() {
        EvdParams p = params(EvdParams.stateOf(true, false, EvdState.CONFIG_THRESHOLD));
        assertTrue(p.isEnabled());
        assertFalse(p.isWaitable());
        assertEquals(0x01 | 0x08 | 0x30, p.stateBits());
        assertEquals(0x02 | 0x04, params(EvdParams.stateOf(false, true, null)).stateBits());
    }

    @Test
    void shouldRejectStateWhenSubStateHasTwoValues() {
        DatException e = assertThrows(
                DatException.class, () -> params(EnumSet.of(EvdState.ENABLED, EvdState.DISABLED, EvdState.WAITABLE)));
        assertEquals(
                "DAT_INVALID_PARAMETER: EVD state [ENABLED, DISABLED, WAITABLE] holds 2 values of ENABLEMENT",
                e.getMessage());
        assertThrows(
                DatException.class,
                () -> params(EnumSet.of(
                        EvdState.ENABLED, EvdState.WAITABLE, EvdState.CONFIG_NOTIFY, EvdState.CONFIG_SOLICITED)));
    }

    @Test
    void shouldRejectStateWhenSubStateIsMissing() {
        DatException e = assertThrows(DatException.class, () -> params(EnumSet.of(EvdState.ENABLED)));
        assertEquals("DAT_INVALID_PARAMETER: EVD state [ENABLED] holds 0 values of WAITABILITY", e.getMessage());
    }

    @Test
    void shouldCopyFlagsWhenCallerChangesItsSet() {
        EnumSet<EvdFlag> flags = EnumSet.of(EvdFlag.DTO);
        EvdParams p = new EvdParams(Fakes.ia(), 4, EvdParams.stateOf(true, true, null), Optional.empty(), flags);
        flags.add(EvdFlag.ASYNC);
        assertEquals(EnumSet.of(EvdFlag.DTO), p.flags());
        assertThrows(UnsupportedOperationException.class, () -> p.flags().add(EvdFlag.CR));
    }
}
