package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class DatEventTest {

    private final EventDispatcher evd = Fakes.evd();
    private final Endpoint ep = Fakes.ep();

    @Test
    void shouldCarryFixedNumberWhenEventKindHasOne() {
        assertSame(
                EventNumber.DTO_COMPLETION_EVENT,
                new DtoCompletionEvent(evd, ep, 7L, DtoCompletionStatus.SUCCESS, 100).eventNumber());
        assertSame(
                EventNumber.RMR_BIND_COMPLETION_EVENT,
                new RmrBindCompletionEvent(
                                evd,
                                Fakes.handle(RemoteMemoryRegion.class, HandleType.RMR),
                                1L,
                                DtoCompletionStatus.SUCCESS)
                        .eventNumber());
        assertSame(
                EventNumber.CONNECTION_REQUEST_EVENT,
                new ConnectionRequestEvent(
                                evd,
                                Optional.empty(),
                                InetSocketAddress.createUnresolved("a", 1),
                                42,
                                Fakes.handle(ConnectionRequest.class, HandleType.CR))
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
        DatException e = assertThrows(
                DatException.class, () -> new ConnectionEvent(evd, EventNumber.DTO_COMPLETION_EVENT, ep, null));
        assertEquals(
                "DAT_INVALID_PARAMETER: DTO_COMPLETION_EVENT is not an event of the CONNECTION stream", e.getMessage());
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
        assertEquals(
                0, new ConnectionEvent(evd, EventNumber.CONNECTION_EVENT_DISCONNECTED, ep, null).privateDataSize());
    }

    @Test
    void shouldRejectAsyncErrorWhenReasonIsForAnotherObjectType() {
        SharedReceiveQueue srq = Fakes.handle(SharedReceiveQueue.class, HandleType.SRQ);
        AsyncErrorEvent ok = new AsyncErrorEvent(
                evd, EventNumber.ASYNC_ERROR_EP_BROKEN, srq, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT);
        assertSame(srq, ok.handle());
        DatException e = assertThrows(
                DatException.class,
                () -> new AsyncErrorEvent(
                        evd, EventNumber.ASYNC_ERROR_EP_BROKEN, ep, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT));
        assertEquals(
                "DAT_INVALID_PARAMETER: reason SRQ_LOW_WATERMARK_EVENT is for SRQ handles, not EP", e.getMessage());
        assertThrows(
                DatException.class,
                () -> new AsyncErrorEvent(
                        evd, EventNumber.CONNECTION_EVENT_BROKEN, ep, AsyncErrorReason.EP_OTHER_ERROR));
    }

    @Test
    void shouldCopyPrivateDataWhenConnectionRequestIsQueried() {
        byte[] data = {5, 6};
        CrParams p = new CrParams(InetSocketAddress.createUnresolved("peer", 7), 99, data, Optional.empty());
        data[0] = 0;
        assertArrayEquals(new byte[] {5, 6}, p.privateData());
        assertEquals(2, p.privateDataSize());
        assertEquals(
                0,
                new CrParams(InetSocketAddress.createUnresolved("peer", 7), 99, null, Optional.of(ep))
                        .privateDataSize());
    }

    /** One event of each kind of DAT_EVENT_DATA, with the typed accessor of that kind. */
    enum Kind {
        DTO_COMPLETION(
                DtoCompletionEvent.class,
                DatEvent::asDtoCompletion,
                (evd, ep) -> new DtoCompletionEvent(evd, ep, 7L, DtoCompletionStatus.SUCCESS, 100)),
        RMR_BIND_COMPLETION(
                RmrBindCompletionEvent.class,
                DatEvent::asRmrBindCompletion,
                (evd, ep) -> new RmrBindCompletionEvent(
                        evd, Fakes.handle(RemoteMemoryRegion.class, HandleType.RMR), 1L, DtoCompletionStatus.SUCCESS)),
        CONNECTION_REQUEST(
                ConnectionRequestEvent.class,
                DatEvent::asConnectionRequest,
                (evd, ep) -> new ConnectionRequestEvent(
                        evd,
                        Optional.empty(),
                        InetSocketAddress.createUnresolved("a", 1),
                        42,
                        Fakes.handle(ConnectionRequest.class, HandleType.CR))),
        CONNECTION(
                ConnectionEvent.class,
                DatEvent::asConnectionEvent,
                (evd, ep) -> new ConnectionEvent(evd, EventNumber.CONNECTION_EVENT_ESTABLISHED, ep, null)),
        ASYNC_ERROR(
                AsyncErrorEvent.class,
                DatEvent::asAsyncError,
                (evd, ep) -> new AsyncErrorEvent(
                        evd, EventNumber.ASYNC_ERROR_EP_BROKEN, ep, AsyncErrorReason.EP_OTHER_ERROR)),
        SOFTWARE(SoftwareEvent.class, DatEvent::asSoftwareEvent, (evd, ep) -> new SoftwareEvent(evd, "pointer"));

        final Class<? extends DatEvent> type;
        final Function<DatEvent, DatEvent> accessor;
        private final BiFunction<EventDispatcher, Endpoint, DatEvent> factory;

        Kind(
                Class<? extends DatEvent> type,
                Function<DatEvent, DatEvent> accessor,
                BiFunction<EventDispatcher, Endpoint, DatEvent> factory) {
            this.type = type;
            this.accessor = accessor;
            this.factory = factory;
        }

        DatEvent event() {
            return factory.apply(Fakes.evd(), Fakes.ep());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Kind.class)
    @DisplayName("DAT_EVENT (dat.h): the event_data of an event is the one its kind selects; the typed accessor of "
            + "that kind returns the event itself, no copy")
    void shouldReturnTheEventItselfWhenAccessorIsOfItsKind(Kind kind) {
        DatEvent e = kind.event();
        assertSame(e, kind.accessor.apply(e), kind + ": the accessor must return the very event it is called on");
    }

    static Stream<Arguments> mismatchedKinds() {
        List<Arguments> all = new ArrayList<>();
        for (Kind wanted : Kind.values()) {
            for (Kind actual : Kind.values()) {
                if (wanted != actual) {
                    all.add(Arguments.of(wanted, actual));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} of a {1}")
    @MethodSource("mismatchedKinds")
    @DisplayName("DAT_EVENT (dat.h): an accessor of another kind than the event's throws IllegalStateException "
            + "naming the kind it wanted, the event's kind and its event_number")
    void shouldNameKindAndEventNumberWhenAccessorIsOfAnotherKind(Kind wanted, Kind actual) {
        DatEvent e = actual.event();
        IllegalStateException x = assertThrows(
                IllegalStateException.class,
                () -> wanted.accessor.apply(e),
                wanted + " accessor on a " + actual + " event must throw");
        String expected = "expected a " + wanted.type.getSimpleName() + ", but the event is a "
                + actual.type.getSimpleName() + " (" + e.eventNumber() + ", 0x"
                + String.format("%05X", e.eventNumber().value()) + ")";
        assertEquals(expected, x.getMessage(), "message of " + wanted + " on " + actual);
    }

    @Test
    @DisplayName("DAT_EVENT (dat.h): the message gives the event number as the header writes it "
            + "(DAT_CONNECTION_EVENT_ESTABLISHED = 0x04001)")
    void shouldWriteEventNumberAsHeaderValueWhenAccessorRefuses() {
        DatEvent established = new ConnectionEvent(evd, EventNumber.CONNECTION_EVENT_ESTABLISHED, ep, null);
        IllegalStateException x = assertThrows(IllegalStateException.class, established::asDtoCompletion);
        assertEquals(
                "expected a DtoCompletionEvent, but the event is a ConnectionEvent (CONNECTION_EVENT_ESTABLISHED, 0x04001)",
                x.getMessage());
        IllegalStateException y =
                assertThrows(IllegalStateException.class, () -> new SoftwareEvent(evd, null).asConnectionRequest());
        assertEquals(
                "expected a ConnectionRequestEvent, but the event is a SoftwareEvent (SOFTWARE_EVENT, 0x10001)",
                y.getMessage());
    }
}
