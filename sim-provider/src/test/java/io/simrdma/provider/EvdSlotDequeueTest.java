package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.EventSlot;
import io.simrdma.dat.SoftwareEvent;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * dat_evd_dequeue(3DAT) into caller-owned storage ({@link EventDispatcher#dequeue(EventSlot)}, the C
 * call's {@code DAT_EVENT *}): the same events, in the same order, as {@link EventDispatcher#dequeue()},
 * whichever of the two takes each one.
 */
class EvdSlotDequeueTest {

    private static final EnumSet<CompletionFlag> SIGNALLED = EnumSet.noneOf(CompletionFlag.class);

    private DatPair pair;
    private Endpoint a;
    private Endpoint b;

    @BeforeEach
    void connect() {
        pair = DatPair.open(DatPair.Mode.DETERMINISTIC);
        a = pair.a.ep();
        b = pair.b.ep();
        pair.connect(a, b);
    }

    @AfterEach
    void close() {
        pair.close();
    }

    @Test
    @DisplayName(
            "dat_evd_dequeue(3DAT): DTO completions taken into a slot or as events, mixed at random, come once each, "
                    + "in posting order, with their cookie, status and transfered_length")
    void shouldGiveTheSameEventsWhenSlotAndOptionalDequeuesMix() {
        Random rnd = new Random(42);
        EventSlot slot = new EventSlot();
        for (int round = 0; round < 50; round++) {
            int n = 1 + rnd.nextInt(8);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int len = 1 + rnd.nextInt(64);
                long cookie = 1000L * round + i;
                b.postRecv(pair.b.iov(0, 64), cookie, SIGNALLED);
                a.postSend(pair.a.iov(0, len), cookie, SIGNALLED);
                expected.add(cookie + ":" + DtoCompletionStatus.SUCCESS + ":" + len);
            }
            List<String> seen = new ArrayList<>();
            while (seen.size() < n) {
                if (rnd.nextBoolean()) {
                    if (pair.b.dto.dequeue(slot)) {
                        assertTrue(slot.isDtoCompletion(), () -> "a receive completion, got " + slot);
                        assertSame(pair.b.dto, slot.evd(), "the slot names the EVD it was dequeued from");
                        assertSame(b, slot.ep());
                        seen.add(slot.userCookie() + ":" + slot.status() + ":" + slot.transferredLength());
                    }
                } else {
                    Optional<DatEvent> e = pair.b.dto.dequeue();
                    if (e.isPresent()) {
                        DtoCompletionEvent d = e.get().asDtoCompletion();
                        assertSame(pair.b.dto, d.evd());
                        assertSame(b, d.ep());
                        seen.add(d.userCookie() + ":" + d.status() + ":" + d.transferredLength());
                    }
                }
            }
            assertEquals(expected, seen, "round " + round + ": receives once each, in posting order");
            drainSends(n);
            assertFalse(pair.b.dto.dequeue(slot), "nothing more on the receive EVD");
        }
    }

    private void drainSends(int n) {
        EventSlot s = new EventSlot();
        int got = 0;
        while (got < n) {
            if (pair.a.dto.dequeue(s)) {
                assertEquals(DtoCompletionStatus.SUCCESS, s.status(), () -> "send completion " + s);
                got++;
            }
        }
    }

    @Test
    @DisplayName("dat_evd_dequeue(3DAT): a receive's transfered_length in a slot is the bytes the SEND carried")
    void shouldReportTransferredLengthWhenDequeuedIntoSlot() {
        EventSlot slot = new EventSlot();
        b.postRecv(pair.b.iov(0, 64), 7, SIGNALLED);
        a.postSend(pair.a.iov(0, 37), 8, SIGNALLED);
        while (!pair.b.dto.dequeue(slot)) {
            // poll
        }
        assertEquals(7, slot.userCookie());
        assertEquals(37, slot.transferredLength(), "transfered_length of the receive");
        DtoCompletionEvent asRecord = slot.event().asDtoCompletion();
        assertEquals(new DtoCompletionEvent(pair.b.dto, b, 7, DtoCompletionStatus.SUCCESS, 37), asRecord);
    }

    @Test
    @DisplayName("dat_evd_dequeue(3DAT): an empty EVD returns DAT_QUEUE_EMPTY (false) and leaves the slot as it was")
    void shouldLeaveSlotUnchangedWhenEvdIsEmpty() {
        EventSlot slot = new EventSlot();
        assertFalse(pair.a.dto.dequeue(slot), "empty EVD");
        assertTrue(slot.isEmpty(), "nothing stored");
        b.postRecv(pair.b.iov(0, 64), 1, SIGNALLED);
        a.postSend(pair.a.iov(0, 8), 2, SIGNALLED);
        while (!pair.a.dto.dequeue(slot)) {
            // poll
        }
        assertEquals(2, slot.userCookie());
        assertFalse(pair.a.dto.dequeue(slot), "empty again");
        assertEquals(2, slot.userCookie(), "the last event stays in the slot");
    }

    @Test
    @DisplayName("dat_evd_dequeue(3DAT): a software event is held in the slot as its record")
    void shouldHoldRecordWhenEventIsNotADtoCompletion() {
        EventDispatcher se = pair.a.ia.createEvd(4, null, EnumSet.of(EvdFlag.SOFTWARE));
        try {
            Object pointer = new Object();
            se.postSoftwareEvent(pointer);
            EventSlot slot = new EventSlot();
            assertTrue(se.dequeue(slot));
            assertEquals(EventNumber.SOFTWARE_EVENT, slot.eventNumber());
            assertFalse(slot.isDtoCompletion());
            assertSame(pointer, ((SoftwareEvent) slot.event()).pointer());
        } finally {
            se.free();
        }
    }

    @Test
    @DisplayName("dat_evd_resize(3DAT): DTO completions queued when the EVD is resized keep their order and fields")
    void shouldKeepQueuedCompletionsWhenResized() {
        for (int i = 0; i < 5; i++) {
            b.postRecv(pair.b.iov(0, 64), 100 + i, SIGNALLED);
            a.postSend(pair.a.iov(0, 10 + i), 200 + i, SIGNALLED);
        }
        drainSends(5);
        pair.b.dto.resize(300);
        EventSlot slot = new EventSlot();
        for (int i = 0; i < 5; i++) {
            while (!pair.b.dto.dequeue(slot)) {
                // poll: the engine runs on this thread
            }
            assertEquals(100 + i, slot.userCookie(), "receive " + i + " in order after the resize");
            assertEquals(10 + i, slot.transferredLength());
        }
    }

    @Test
    @DisplayName("dat_evd_dequeue(3DAT): a null slot is DAT_INVALID_PARAMETER")
    void shouldRejectNullSlot() {
        assertDat(DatReturnType.INVALID_PARAMETER, () -> pair.a.dto.dequeue((EventSlot) null));
    }
}
