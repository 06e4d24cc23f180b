package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DatExceptionTest {

    @Test
    void shouldComposeCodeWhenTypeAndSubtypeAreGiven() {
        DatException e = new DatException(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED);
        assertSame(DatReturnType.INVALID_STATE, e.type());
        assertSame(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, e.subtype());
        assertEquals(0x8007002E, e.code());
    }

    @Test
    void shouldComposeCodeWhenProviderIsNotFound() {
        DatException e = new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED);
        assertEquals(0x800A0062, e.code());
    }

    @Test
    void shouldUseClassErrorAndNoSubtypeWhenOnlyTypeIsGiven() {
        DatException e = new DatException(DatReturnType.QUEUE_FULL);
        assertSame(DatReturnSubtype.NO_SUBTYPE, e.subtype());
        assertEquals(0x800E0000, e.code());
        assertEquals("DAT_QUEUE_FULL", e.getMessage());
        assertNull(e.detail());
    }

    @Test
    void shouldUseStrerrorTextAsMessageWhenThereIsNoDetail() {
        DatException e = new DatException(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED);
        assertEquals("DAT_INVALID_STATE DAT_INVALID_STATE_EP_UNCONNECTED", e.getMessage());
        assertEquals(new DatErrorText("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_UNCONNECTED"), e.errorText());
        assertEquals(Dat.strerror(e.code()), e.errorText());
    }

    @Test
    void shouldAppendDetailWhenDetailIsGiven() {
        DatException e = new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, "ep freed");
        assertEquals("DAT_INVALID_HANDLE DAT_INVALID_HANDLE_EP: ep freed", e.getMessage());
        assertEquals("ep freed", e.detail());
    }

    @Test
    void shouldKeepCauseWhenCauseIsGiven() {
        IllegalStateException cause = new IllegalStateException("boom");
        DatException e = new DatException(DatReturnType.INTERNAL_ERROR, DatReturnSubtype.NO_SUBTYPE, "x", cause);
        assertSame(cause, e.getCause());
        assertInstanceOf(RuntimeException.class, e);
    }

    @Test
    void shouldRejectSubtypeWhenItQualifiesAnotherType() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> new DatException(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_HANDLE_EP));
        assertEquals("DAT_INVALID_HANDLE_EP qualifies DAT_INVALID_HANDLE, not DAT_INVALID_STATE", e.getMessage());
    }

    @Test
    void shouldRejectSuccessWhenUsedAsFailure() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new DatException(DatReturnType.SUCCESS));
        assertEquals("DAT_SUCCESS is not a failure", e.getMessage());
    }

    @Test
    void shouldAcceptSrqInUseWhenSrqFreeIsRefused() {
        DatException e = new DatException(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE);
        assertEquals(0x80070056, e.code());
    }

    @Test
    void shouldBeInvalidParameterWhenBuiltByShorthand() {
        DatException e = DatException.invalidParameter("bad");
        assertSame(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals("DAT_INVALID_PARAMETER: bad", e.getMessage());
    }
}
