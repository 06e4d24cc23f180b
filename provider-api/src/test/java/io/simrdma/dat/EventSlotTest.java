package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link EventSlot}: the caller-owned DAT_EVENT of dat_evd_dequeue(3DAT), and the interface's default dequeue into it. */
class EventSlotTest {

    private final EventDispatcher evd = Fakes.evd();
    private final Endpoint ep = Fakes.ep();

    @Test
    @DisplayName(
            "dat_evd_dequeue(3DAT): a DTO completion stored in a slot reads back field by field and as an equal record")
    void shouldHoldDtoFieldsWhenSetFromRecord() {
        DtoCompletionEvent e = new DtoCompletionEvent(evd, ep, 42L, DtoCompletionStatus.ERR_FLUSHED, 0);
        EventSlot slot = new EventSlot().set(e);
        assertTrue(slot.isDtoCompletion());
        assertEquals(EventNumber.DTO_COMPLETION_EVENT, slot.eventNumber());
        assertSame(evd, slot.evd());
        assertSame(ep, slot.ep());
        assertEquals(42L, slot.userCookie());
        assertEquals(DtoCompletionStatus.ERR_FLUSHED, slot.status());
        assertEquals(0, slot.transferredLength());
        assertEquals(e, slot.event(), "event() rebuilds an equal DtoCompletionEvent");
    }

    @Test
    @DisplayName("another kind of event is held as its record; the DTO accessors name the kind it is")
    void shouldHoldRecordWhenNotADtoCompletion() {
        SoftwareEvent e = new SoftwareEvent(evd, "p");
        EventSlot slot = new EventSlot().set(e);
        assertFalse(slot.isDtoCompletion());
        assertSame(e, slot.event());
        assertEquals(EventNumber.SOFTWARE_EVENT, slot.eventNumber());
        IllegalStateException x = assertThrows(IllegalStateException.class, slot::userCookie);
        assertTrue(x.getMessage().contains("SOFTWARE_EVENT"), x.getMessage());
    }

    @Test
    @DisplayName("an empty or cleared slot has no event: its accessors say so")
    void shouldRefuseAccessWhenEmpty() {
        EventSlot slot = new EventSlot();
        assertTrue(slot.isEmpty());
        assertThrows(IllegalStateException.class, slot::eventNumber);
        slot.setDtoCompletion(evd, ep, 1, DtoCompletionStatus.SUCCESS, 8).clear();
        assertTrue(slot.isEmpty());
        assertThrows(IllegalStateException.class, slot::event);
    }

    @Test
    @DisplayName("EventDispatcher.dequeue(EventSlot) by default takes dequeue()'s event into the slot; empty is false "
            + "(DAT_QUEUE_EMPTY) and a null slot DAT_INVALID_PARAMETER")
    void shouldDelegateToDequeueWhenProviderHasNoOwnSlotDequeue() {
        ArrayDeque<DatEvent> queue = new ArrayDeque<>();
        InvocationHandler h = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            if (method.getName().equals("dequeue") && method.getParameterCount() == 0) {
                return Optional.ofNullable(queue.poll());
            }
            throw new AssertionError("unexpected call " + method);
        };
        EventDispatcher fake = (EventDispatcher) Proxy.newProxyInstance(
                EventDispatcher.class.getClassLoader(), new Class<?>[] {EventDispatcher.class}, h);
        EventSlot slot = new EventSlot();
        assertFalse(fake.dequeue(slot));
        assertTrue(slot.isEmpty(), "an empty EVD leaves the slot as it was");
        queue.add(new DtoCompletionEvent(evd, ep, 9L, DtoCompletionStatus.SUCCESS, 64));
        assertTrue(fake.dequeue(slot));
        assertEquals(9L, slot.userCookie());
        assertEquals(64, slot.transferredLength());
        DatException e = assertThrows(DatException.class, () -> fake.dequeue((EventSlot) null));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
    }
}
