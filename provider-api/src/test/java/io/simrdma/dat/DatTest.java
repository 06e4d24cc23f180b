package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DatTest {

    @Test
    void shouldGiveSuccessMessagesWhenCodeIsZero() {
        assertEquals(new DatErrorText("DAT_SUCCESS", ""), Dat.strerror(0));
    }

    @Test
    void shouldGiveTypeAndSubtypeNamesWhenCodeIsAnError() {
        assertEquals(
                new DatErrorText("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_UNCONNECTED"), Dat.strerror(0x8007002E));
        assertEquals(new DatErrorText("DAT_PROVIDER_NOT_FOUND", "DAT_NAME_NOT_REGISTERED"), Dat.strerror(0x800A0062));
    }

    @Test
    void shouldAcceptWarningAndBareCodesWhenConverting() {
        assertEquals(new DatErrorText("DAT_TIMEOUT_EXPIRED", ""), Dat.strerror(0x400F0000));
        assertEquals(new DatErrorText("DAT_ABORT", "DAT_SUB_INTERRUPTED"), Dat.strerror(0x00010001));
    }

    @Test
    void shouldConvertEveryTypeWhenCodeCarriesIt() {
        for (DatReturnType t : DatReturnType.values()) {
            int code = t == DatReturnType.SUCCESS ? 0 : Dat.CLASS_ERROR | t.value();
            assertEquals(new DatErrorText(t.cName(), ""), Dat.strerror(code), t.cName());
        }
    }

    @Test
    void shouldRejectCodeWhenTypeIsUndefined() {
        DatException e = assertThrows(DatException.class, () -> Dat.strerror(0x80150000));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
    }

    @Test
    void shouldRejectCodeWhenSubtypeIsUndefined() {
        DatException e = assertThrows(DatException.class, () -> Dat.strerror(0x80060067));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
    }

    @Test
    void shouldRejectCodeWhenBothClassBitsAreSet() {
        DatException e = assertThrows(DatException.class, () -> Dat.strerror(0xC0060000));
        assertEquals("DAT_INVALID_PARAMETER: undefined DAT_RETURN class bits 0xC0000000", e.getMessage());
    }

    @Test
    void shouldRejectCodeWhenSuccessCarriesOtherBits() {
        DatException e = assertThrows(DatException.class, () -> Dat.strerror(0x00000001));
        assertEquals("DAT_INVALID_PARAMETER: undefined DAT_RETURN 0x00000001", e.getMessage());
    }

    @Test
    void shouldConvertTypeAndSubtypeWhenGivenAsEnums() {
        assertEquals(
                new DatErrorText("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_EVD_ASYNC"),
                Dat.strerror(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC));
    }

    @Test
    void shouldMatchHeaderValuesWhenConstantsAreRead() {
        assertEquals(1, Dat.VERSION_MAJOR);
        assertEquals(2, Dat.VERSION_MINOR);
        assertEquals(256, Dat.NAME_MAX_LENGTH);
        assertEquals(0x80000000, Dat.CLASS_ERROR);
        assertEquals(0x40000000, Dat.CLASS_WARNING);
        assertEquals(0x00000000, Dat.CLASS_SUCCESS);
        assertEquals(0x3FFF0000, Dat.TYPE_MASK);
        assertEquals(0x0000FFFF, Dat.SUBTYPE_MASK);
        assertEquals(-1, Dat.WATERMARK_INFINITE);
        assertEquals(-1, Dat.HW_DEFAULT);
        assertEquals(0, Dat.SRQ_LW_DEFAULT);
        assertEquals(-2, Dat.VALUE_UNKNOWN);
        assertEquals(256, Dat.OPTIMAL_ALIGNMENT);
        assertEquals(40, Dat.LMR_COOKIE_SIZE);
        assertEquals(0xFFFFFFFFL, Timeout.INFINITE.micros());
    }
}
