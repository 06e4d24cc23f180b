package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DatReturnTypeTest {

    /** dat-constants.md, DAT_RETURN_TYPE major types. */
    private static final Object[][] TABLE = {
        {"DAT_SUCCESS", 0x00000000},
        {"DAT_ABORT", 0x00010000},
        {"DAT_CONN_QUAL_IN_USE", 0x00020000},
        {"DAT_INSUFFICIENT_RESOURCES", 0x00030000},
        {"DAT_INTERNAL_ERROR", 0x00040000},
        {"DAT_INVALID_HANDLE", 0x00050000},
        {"DAT_INVALID_PARAMETER", 0x00060000},
        {"DAT_INVALID_STATE", 0x00070000},
        {"DAT_LENGTH_ERROR", 0x00080000},
        {"DAT_MODEL_NOT_SUPPORTED", 0x00090000},
        {"DAT_PROVIDER_NOT_FOUND", 0x000A0000},
        {"DAT_PRIVILEGES_VIOLATION", 0x000B0000},
        {"DAT_PROTECTION_VIOLATION", 0x000C0000},
        {"DAT_QUEUE_EMPTY", 0x000D0000},
        {"DAT_QUEUE_FULL", 0x000E0000},
        {"DAT_TIMEOUT_EXPIRED", 0x000F0000},
        {"DAT_PROVIDER_ALREADY_REGISTERED", 0x00100000},
        {"DAT_PROVIDER_IN_USE", 0x00110000},
        {"DAT_INVALID_ADDRESS", 0x00120000},
        {"DAT_INTERRUPTED_CALL", 0x00130000},
        {"DAT_CONN_QUAL_UNAVAILABLE", 0x00140000},
        {"DAT_NOT_IMPLEMENTED", 0x0FFF0000},
    };

    @Test
    void shouldMatchHeaderTableWhenEveryTypeIsListed() {
        assertEquals(TABLE.length, DatReturnType.values().length, "number of return types");
        for (int i = 0; i < TABLE.length; i++) {
            DatReturnType t = DatReturnType.values()[i];
            assertEquals(TABLE[i][0], t.cName(), "name at position " + i);
            assertEquals(TABLE[i][1], t.value(), "value of " + TABLE[i][0]);
        }
    }

    @Test
    void shouldGiveInvalidStateTheValue0x00070000WhenAsked() {
        assertEquals(0x00070000, DatReturnType.INVALID_STATE.value());
    }

    @Test
    void shouldFindTypeWhenCodeHasClassAndSubtypeBits() {
        assertSame(DatReturnType.INVALID_STATE, DatReturnType.fromCode(0x8007002E));
        assertSame(DatReturnType.PROVIDER_NOT_FOUND, DatReturnType.fromCode(0x000A0062));
        assertSame(DatReturnType.TIMEOUT_EXPIRED, DatReturnType.fromCode(0x400F0000));
        assertSame(DatReturnType.NOT_IMPLEMENTED, DatReturnType.fromCode(0x8FFF0000));
    }

    @Test
    void shouldRejectCodeWhenTypeBitsAreUndefined() {
        DatException e = assertThrows(DatException.class, () -> DatReturnType.fromCode(0x00150000));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals("DAT_INVALID_PARAMETER: undefined DAT_RETURN type bits 0x00150000", e.getMessage());
    }
}
