package io.simrdma.dat;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DatEventTest {

    private final EventDispatcher evd = Fakes.evd();
    private final Endpoint ep = Fakes.ep();

    @Test
    void shouldCarryFixedNumberWhenEventKindHasOne() {
        assertSame(EventNumber.DTO_COMPLETION_EVENT,
                new DtoCompletionEvent(evd, ep, 7L, DtoCompletionStatus.SUCCESS, 100).eventNumber());
        assertSame(EventNumber.RMR_BIND_COMPLETION_EVENT, new RmrBindCompletionEvent(evd,
                Fakes.handle(RemoteMemoryRegion.class, HandleType.RMR), 1L, DtoCompletionStatus.SUCCESS).eventNumber());
        assertSame(EventNumber.CONNECTION_REQUEST_EVENT, new ConnectionRequestEvent(evd, Optional.empty(),
                InetSocketAddress.createUnresolved("a", 1), 42, Fakes.handle(ConnectionRequest.class, HandleType.CR))
                .eventNumber());
        assertSame(EventNumber.SOFTWARE_EVENT, new SoftwareEvent(evd, null).eventNumber());
    }

    @Test
    void shouldKeepCookieAndLengthWhenDtoCompletes() {
        DtoCompletionEvent e = new DtoCompletionEvent(evd, ep, -1L, DtoCompletionStatus.ERR_FLUSHED, 0);
        assertEquals(-1L, e.userCookie());
        assertSame(ep, e.ep());
        assertSame(evd, e.evd());
        assertEquals(0, e.transferredLength());
    }

    @Test
    void shouldRejectConnectionEventWhenNumberIsNotAConnectionEvent() {
        DatException e = assertThrows(DatException.class,
                () -> new ConnectionEvent(evd, EventNumber.DTO_COMPLETION_EVENT, ep, null));
        assertEquals("DAT_INVALID_PARAMETER: DTO_COMPLETION_EVENT is not an event of the CONNECTION stream",
                e.getMessage());
    }

    @Test
    void shouldCopyPrivateDataWhenConnectionEventIsBuiltAndRead() {
        byte[] data = {1, 2, 3};
        ConnectionEvent e = new ConnectionEvent(evd, EventNumber.CONNECTION_EVENT_ESTABLISHED, ep, data);
        data[0] = 9;
        byte[] read = e.privateData();
        assertArrayEquals(new byte[] {1, 2, 3}, read);
        read[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, e.privateData());
        assertNotSame(e.privateData(), e.privateData());
        assertEquals(3, e.privateDataSize());
        assertEquals(e, new ConnectionEvent(evd, EventNumber.CONNECTION_EVENT_ESTABLISHED, ep, new byte[] {1, 2, 3}));
        assertEquals(0, new ConnectionEvent(evd, EventNumber.CONNECTION_EVENT_DISCONNECTED, ep, null).privateDataSize());
    }

    @Test
    void shouldRejectAsyncErrorWhenReasonIsForAnotherObjectType() {
        SharedReceiveQueue srq = Fakes.handle(SharedReceiveQueue.class, HandleType.SRQ);
        AsyncErrorEvent ok = new AsyncErrorEvent(evd, EventNumber.ASYNC_ERROR_EP_BROKEN, srq,
                AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        assertSame(srq, ok.handle());
        DatException e = assertThrows(DatException.class, () -> new AsyncErrorEvent(evd,
                EventNumber.ASYNC_ERROR_EP_BROKEN, ep, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT));
        assertEquals("DAT_INVALID_PARAMETER: reason SRQ_LOW_WATERMARK_EVENT is for SRQ handles, not EP", e.getMessage());
        assertThrows(DatException.class, () -> new AsyncErrorEvent(evd, EventNumber.CONNECTION_EVENT_BROKEN, ep,
                AsyncErrorReason.EP_OTHER_ERROR));
    }

    @Test
    void shouldCopyPrivateDataWhenConnectionRequestIsQueried() {
        byte[] data = {5, 6};
        CrParams p = new CrParams(InetSocketAddress.createUnresolved("peer", 7), 99, data, Optional.empty());
        data[0] = 0;
        assertArrayEquals(new byte[] {5, 6}, p.privateData());
        assertEquals(2, p.privateDataSize());
        assertEquals(0, new CrParams(InetSocketAddress.createUnresolved("peer", 7), 99, null, Optional.of(ep))
                .privateDataSize());
    }
}
