package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class WaitResultTest {

    @Test
    void shouldCarryTimeoutAndNmoreWhenEvdWaitTimesOut() {
        EvdWaitResult r = EvdWaitResult.timedOut(3);
        assertSame(DatReturnType.TIMEOUT_EXPIRED, r.status());
        assertTrue(r.isTimedOut());
        assertEquals(Optional.empty(), r.event());
        assertEquals(3, r.nmore());
    }

    @Test
    void shouldCarryEventWhenEvdWaitSucceeds() {
        EventDispatcher evd = Fakes.evd();
        SoftwareEvent e = new SoftwareEvent(evd, "x");
        EvdWaitResult r = EvdWaitResult.success(e, 0);
        assertSame(DatReturnType.SUCCESS, r.status());
        assertFalse(r.isTimedOut());
        assertSame(e, r.event().orElseThrow());
    }

    @Test
    void shouldRejectEvdResultWhenStatusAndEventDisagree() {
        assertThrows(DatException.class, () -> new EvdWaitResult(DatReturnType.SUCCESS, Optional.empty(), 0));
        assertThrows(
                DatException.class,
                () -> new EvdWaitResult(
                        DatReturnType.TIMEOUT_EXPIRED, Optional.of(new SoftwareEvent(Fakes.evd(), null)), 0));
        assertEquals(
                "DAT_INVALID_PARAMETER: a wait result is SUCCESS or TIMEOUT_EXPIRED, not ABORT",
                assertThrows(DatException.class, () -> new EvdWaitResult(DatReturnType.ABORT, Optional.empty(), 0))
                        .getMessage());
        assertThrows(DatException.class, () -> EvdWaitResult.timedOut(-1));
    }

    @Test
    void shouldReportQueueEmptyWhenCnoWaitTimesOut() {
        CnoWaitResult r = CnoWaitResult.timedOut();
        assertSame(DatReturnType.QUEUE_EMPTY, r.status());
        assertTrue(r.isTimedOut());
        assertEquals(Optional.empty(), r.evd());
    }

    @Test
    void shouldAllowNoEvdWhenCnoIsReleasedByIaClose() {
        CnoWaitResult r = CnoWaitResult.notified(null);
        assertSame(DatReturnType.SUCCESS, r.status());
        assertEquals(Optional.empty(), r.evd());
        EventDispatcher evd = Fakes.evd();
        assertSame(evd, CnoWaitResult.notified(evd).evd().orElseThrow());
    }

    @Test
    void shouldRejectCnoResultWhenTimeoutNamesEvd() {
        assertThrows(DatException.class, () -> new CnoWaitResult(DatReturnType.QUEUE_EMPTY, Optional.of(Fakes.evd())));
        assertThrows(DatException.class, () -> new CnoWaitResult(DatReturnType.TIMEOUT_EXPIRED, Optional.empty()));
    }
}
