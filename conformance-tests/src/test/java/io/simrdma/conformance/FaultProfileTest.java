package io.simrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The fault profiles' IA-name options, and telling a faulty IA name from a plain one. */
class FaultProfileTest {

    @Test
    @DisplayName("an IA name with a profile's options is faulty (the closing phase then leaves out the scenario whose "
            + "ordering only a fault-free deterministic fabric guarantees); a plain one is not")
    void shouldTellFaultyNameWhenItCarriesAProfilesOptions() {
        String plain = "sim:cd{run}/ia{ia}?seed={seed}";
        assertFalse(FaultProfile.faulty(plain), "no fault option in " + plain);
        assertFalse(FaultProfile.faulty(FaultProfile.NONE.apply(plain)), "NONE appends nothing");
        for (FaultProfile p : FaultProfile.values()) {
            if (p != FaultProfile.NONE) {
                String name = p.apply(plain);
                assertTrue(FaultProfile.faulty(name), "expected " + name + " (" + p + ") to be faulty");
            }
        }
        assertTrue(FaultProfile.faulty("sim:x/ia0?loss=0.2"), "an option of another value is faulty too");
    }
}
