package io.simrdma.provider;

import static io.simrdma.provider.DatPair.WAIT;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.flags;
import static io.simrdma.provider.EventTestSupport.awaitQueued;
import static io.simrdma.provider.EventTestSupport.awaitWaiter;
import static io.simrdma.provider.EventTestSupport.drain;
import static io.simrdma.provider.EventTestSupport.failure;
import static io.simrdma.provider.EventTestSupport.queued;
import static io.simrdma.provider.EventTestSupport.startWaiter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdParams;
import io.simrdma.dat.EvdState;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.SoftwareEvent;
import io.simrdma.dat.Timeout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Event Dispatcher tests: dat_evd_create (udat.h; no man page, S8), dat_evd_query, dat_evd_wait,
 * dat_evd_dequeue, dat_evd_post_se, dat_evd_resize, dat_evd_set_unwaitable,
 * dat_evd_clear_unwaitable, dat_evd_enable, dat_evd_disable, dat_evd_modify_cno and dat_evd_free,
 * and the overflow of an EVD reported on the IA's asynchronous EVD.
 */
class EvdTest {

    /** An IA of its own fabric, with extra name options (device limits). */
    private static InterfaceAdapter openIa(DatPair.Mode mode, String options) {
        return Dat.openIa(ObjectFixtures.iaName(mode, ObjectFixtures.fabric("evdtest"), "x", options), 8);
    }

    private static EventDispatcher softwareEvd(InterfaceAdapter ia, int qlen, ConsumerNotificationObject cno) {
        return ia.createEvd(qlen, cno, EnumSet.of(EvdFlag.SOFTWARE));
    }

    private static Object pointer(DatEvent e) {
        return assertInstanceOf(SoftwareEvent.class, e).pointer();
    }

    // ------------------------------------------------------------------ dat_evd_create

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_create (udat.h): every combination of stream flags is accepted and reported by dat_evd_query")
    void shouldCreateEvdWhenAnyCombinationOfStreamFlagsIsGiven(DatPair.Mode mode) {
        InterfaceAdapter ia = openIa(mode, "");
        try {
            EvdFlag[] all = EvdFlag.values();
            for (int bits = 0; bits < 1 << all.length; bits++) {
                EnumSet<EvdFlag> f = EnumSet.noneOf(EvdFlag.class);
                for (int i = 0; i < all.length; i++) {
                    if ((bits & 1 << i) != 0) {
                        f.add(all[i]);
                    }
                }
                EventDispatcher evd = ia.createEvd(8, null, f);
                EvdParams p = evd.query();
                assertEquals(f, p.flags(), "flags of an EVD created with " + f);
                assertTrue(p.qlen() >= 8, "qlen " + p.qlen() + " is below the requested 8");
                assertSame(ia, p.ia());
                assertEquals(Optional.empty(), p.cno());
                assertEquals(Set.of(EvdState.ENABLED, EvdState.WAITABLE), p.state(), "state of a new EVD " + f);
                evd.free();
            }
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_create (udat.h): evd_min_qlen below 1 or above max_evd_qlen is DAT_INVALID_PARAMETER/DAT_INVALID_ARG2")
    void shouldRejectEvdWhenMinQlenIsZeroOrAboveMaxEvdQlen(DatPair.Mode mode) {
        InterfaceAdapter ia = openIa(mode, "maxCqe=16");
        try {
            assertEquals(16, ia.query().iaAttributes().maxEvdQlen());
            for (Set<EvdFlag> f : List.of(EnumSet.of(EvdFlag.SOFTWARE), EnumSet.of(EvdFlag.DTO), EvdFlag.defaults())) {
                assertDat(
                        DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> ia.createEvd(0, null, f));
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.INVALID_ARG2,
                        () -> ia.createEvd(-1, null, f));
                // S8 SILENT (no man page): the provider calls a length beyond max_evd_qlen an invalid evd_min_qlen.
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.INVALID_ARG2,
                        () -> ia.createEvd(17, null, f));
                EventDispatcher max = ia.createEvd(16, null, f);
                assertEquals(16, max.query().qlen());
                max.free();
            }
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_create (udat.h): beyond max_evds is DAT_INSUFFICIENT_RESOURCES/DAT_RESOURCE_TEVD; a freed EVD makes room")
    void shouldRefuseEvdWhenMaxEvdsExist(DatPair.Mode mode) {
        InterfaceAdapter ia = openIa(mode, "maxCq=3");
        try {
            assertEquals(3, ia.query().iaAttributes().maxEvds());
            List<EventDispatcher> evds = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                evds.add(softwareEvd(ia, 4, null));
            }
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_TEVD,
                    () -> softwareEvd(ia, 4, null));
            evds.get(1).free();
            softwareEvd(ia, 4, null);
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_create (udat.h): a CNO that is freed or of another IA is DAT_INVALID_HANDLE/DAT_INVALID_HANDLE_CNO")
    void shouldRejectEvdWhenCnoIsOfAnotherIaOrFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject other = p.b.ia.createCno(null);
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_CNO,
                    () -> softwareEvd(p.a.ia, 4, other));
            ConsumerNotificationObject freed = p.a.ia.createCno(null);
            freed.free();
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_CNO,
                    () -> softwareEvd(p.a.ia, 4, freed));
        }
    }

    // ------------------------------------------------------------------ dat_evd_query

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_query(3DAT): the state follows enable/disable, set/clear_unwaitable and the CNO follows modify_cno")
    void shouldReportStateAndCnoWhenQueried(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            EventDispatcher evd = softwareEvd(p.a.ia, 5, cno);
            EvdParams q = evd.query();
            assertEquals(5, q.qlen());
            assertEquals(Optional.of(cno), q.cno());
            assertEquals(EnumSet.of(EvdFlag.SOFTWARE), q.flags());
            assertTrue(q.isEnabled());
            assertTrue(q.isWaitable());

            evd.disable();
            assertEquals(
                    Set.of(EvdState.DISABLED, EvdState.WAITABLE), evd.query().state());
            evd.disable(); // dat_evd_disable(3DAT): already disabled is a no-op
            assertEquals(
                    Set.of(EvdState.DISABLED, EvdState.WAITABLE), evd.query().state());
            evd.setUnwaitable();
            assertEquals(
                    Set.of(EvdState.DISABLED, EvdState.UNWAITABLE), evd.query().state());
            evd.enable();
            evd.enable(); // dat_evd_enable(3DAT): no-op when enabled
            assertEquals(
                    Set.of(EvdState.ENABLED, EvdState.UNWAITABLE), evd.query().state());
            evd.clearUnwaitable();
            assertEquals(
                    Set.of(EvdState.ENABLED, EvdState.WAITABLE), evd.query().state());
            assertEquals(0x01 | 0x04, evd.query().stateBits());

            evd.modifyCno(null);
            assertEquals(Optional.empty(), evd.query().cno());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_query(3DAT): the configuration sub-state follows the completion flags of the streams feeding the EVD")
    void shouldReportConfigurationWhenEndpointStreamsFeedTheEvd(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher threshold = p.a.ia.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher notify = p.a.ia.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher solicited = p.a.ia.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            assertFalse(hasConfig(threshold.query()), "an EVD no stream feeds has no configuration");
            EpAttributes base = EventTestSupport.attrs(p.a).build();
            Endpoint e1 = p.a.ia.createEndpoint(p.a.pz, threshold, threshold, p.a.conn, base);
            Endpoint e2 = p.a.ia.createEndpoint(
                    p.a.pz,
                    solicited,
                    notify,
                    p.a.conn,
                    base.toBuilder()
                            .recvCompletionFlags(flags(CompletionFlag.SOLICITED_WAIT))
                            .requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                            .build());
            assertTrue(threshold.query().state().contains(EvdState.CONFIG_THRESHOLD), () -> "" + threshold.query());
            assertTrue(notify.query().state().contains(EvdState.CONFIG_NOTIFY), () -> "" + notify.query());
            assertTrue(solicited.query().state().contains(EvdState.CONFIG_SOLICITED), () -> "" + solicited.query());
            e1.free();
            e2.free();
            assertFalse(hasConfig(threshold.query()), "streams go with their endpoint");
        }
    }

    private static boolean hasConfig(EvdParams q) {
        return q.state().stream().anyMatch(s -> s.subState() == EvdState.SubState.CONFIGURATION);
    }

    // ------------------------------------------------------------------ dat_evd_dequeue, dat_evd_wait

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_dequeue(3DAT): an empty EVD gives DAT_QUEUE_EMPTY as a value; events come out in order, once")
    void shouldReturnEmptyWhenDequeueingAnEmptyEvd(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher evd = softwareEvd(p.a.ia, 4, null);
            assertEquals(Optional.empty(), evd.dequeue());
            evd.postSoftwareEvent("one");
            evd.postSoftwareEvent(null);
            evd.postSoftwareEvent("three");
            List<DatEvent> got = drain(evd);
            assertEquals(3, got.size());
            assertEquals("one", pointer(got.get(0)));
            assertEquals(null, pointer(got.get(1)));
            assertEquals("three", pointer(got.get(2)));
            for (DatEvent e : got) {
                assertEquals(EventNumber.SOFTWARE_EVENT, e.eventNumber());
                assertSame(evd, e.evd());
            }
            assertEquals(Optional.empty(), evd.dequeue());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_wait(3DAT): below the threshold at the timeout is DAT_TIMEOUT_EXPIRED with nmore, nothing dequeued")
    void shouldTimeOutWithNmoreWhenFewerEventsThanThreshold(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher evd = softwareEvd(p.a.ia, 8, null);
            EvdWaitResult r = evd.waitForEvent(Timeout.ofMillis(1), 1);
            assertEquals(DatReturnType.TIMEOUT_EXPIRED, r.status());
            assertEquals(0, r.nmore());
            assertTrue(r.event().isEmpty());

            evd.postSoftwareEvent(1);
            evd.postSoftwareEvent(2);
            r = evd.waitForEvent(Timeout.ofMillis(1), 3);
            assertEquals(DatReturnType.TIMEOUT_EXPIRED, r.status());
            assertEquals(2, r.nmore(), "nmore is the snapshot of the queue at the timeout");
            assertEquals(2, queued(evd), "a timed-out wait dequeues nothing");

            r = evd.waitForEvent(Timeout.ZERO, 2);
            assertEquals(DatReturnType.SUCCESS, r.status());
            assertEquals(1, pointer(r.event().orElseThrow()));
            assertEquals(1, r.nmore(), "nmore is at least threshold - 1");
            r = evd.waitForEvent(WAIT, 1);
            assertEquals(2, pointer(r.event().orElseThrow()));
            assertEquals(0, r.nmore());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_wait(3DAT): a waiter interrupted by a signal (Thread.interrupt) gets DAT_INTERRUPTED_CALL; "
            + "its interrupt status is set again (provider-api EventDispatcher.waitForEvent)")
    void shouldFailWithInterruptedCallAndKeepInterruptStatusWhenWaiterIsInterrupted(DatPair.Mode mode) {
        try (InterfaceAdapter ia = openIa(mode, "")) {
            EventDispatcher evd = softwareEvd(ia, 4, null);
            Thread.currentThread().interrupt();
            boolean stillInterrupted;
            try {
                assertDat(DatReturnType.INTERRUPTED_CALL, () -> evd.waitForEvent(Timeout.ofMillis(50), 1));
            } finally {
                stillInterrupted = Thread.interrupted();
            }
            assertTrue(stillInterrupted, "the interrupt status must be set again after DAT_INTERRUPTED_CALL");
            evd.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_wait(3DAT): a threshold below 1 or above the EVD's queue length is DAT_INVALID_PARAMETER")
    void shouldRejectWaitWhenThresholdIsOutOfRange(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher evd = softwareEvd(p.a.ia, 4, null);
            evd.postSoftwareEvent("x");
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG3,
                    () -> evd.waitForEvent(Timeout.ZERO, 0));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG3,
                    () -> evd.waitForEvent(Timeout.ZERO, -3));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG3,
                    () -> evd.waitForEvent(Timeout.ZERO, 5));
            assertDat(DatReturnType.INVALID_PARAMETER, () -> evd.waitForEvent(null, 1));
            assertEquals(1, queued(evd), "a rejected wait dequeues nothing");
            assertEquals(
                    DatReturnType.TIMEOUT_EXPIRED,
                    evd.waitForEvent(Timeout.ZERO, 4).status(),
                    "threshold == qlen is valid");
            evd.resize(8);
            assertEquals(
                    DatReturnType.TIMEOUT_EXPIRED,
                    evd.waitForEvent(Timeout.ZERO, 8).status(),
                    "the limit follows a resize");
        }
    }

    @Test
    @DisplayName(
            "dat_evd_wait(3DAT), dat_evd_dequeue(3DAT): while a thread waits, another wait or a dequeue is DAT_INVALID_STATE")
    void shouldRejectSecondDequeuerWhenAThreadWaits() throws Exception {
        try (DatPair p = DatPair.open(DatPair.Mode.THREADED)) {
            EventDispatcher evd = softwareEvd(p.a.ia, 4, null);
            CompletableFuture<EvdWaitResult> waiter = startWaiter(evd);
            awaitWaiter(evd);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_WAITER, evd::dequeue);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EVD_WAITER,
                    () -> evd.waitForEvent(Timeout.ZERO, 1));
            evd.postSoftwareEvent("wake");
            EvdWaitResult r = waiter.get(20, TimeUnit.SECONDS);
            assertEquals("wake", pointer(r.event().orElseThrow()));
            assertEquals(Optional.empty(), evd.dequeue(), "the waiter took the event, exactly once");
        }
    }

    // ------------------------------------------------------------------ unwaitable

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_set_unwaitable(3DAT): waits fail with DAT_INVALID_STATE; events still arrive and dequeue; clear_unwaitable restores waits")
    void shouldFailWaitsWhenEvdIsUnwaitable(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            EventDispatcher evd = softwareEvd(p.a.ia, 4, cno);
            evd.setUnwaitable();
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE,
                    () -> evd.waitForEvent(Timeout.ZERO, 1));
            evd.postSoftwareEvent("a");
            // dat_evd_set_unwaitable(3DAT): events still trigger the CNO and can be dequeued.
            assertSame(evd, cno.waitForNotification(WAIT).evd().orElseThrow());
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE,
                    () -> evd.waitForEvent(WAIT, 1));
            assertEquals("a", pointer(evd.dequeue().orElseThrow()));
            evd.postSoftwareEvent("b");
            evd.clearUnwaitable();
            assertEquals("b", pointer(evd.waitForEvent(WAIT, 1).event().orElseThrow()));
        }
    }

    @Test
    @DisplayName("dat_evd_set_unwaitable(3DAT): a thread blocked in dat_evd_wait returns DAT_INVALID_STATE")
    void shouldReleaseWaiterWhenEvdIsMadeUnwaitable() throws Exception {
        try (DatPair p = DatPair.open(DatPair.Mode.THREADED)) {
            EventDispatcher evd = softwareEvd(p.a.ia, 4, null);
            CompletableFuture<EvdWaitResult> waiter = startWaiter(evd);
            awaitWaiter(evd);
            evd.setUnwaitable();
            DatException e = failure(waiter);
            assertEquals(DatReturnType.INVALID_STATE, e.type());
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, e.subtype());
            evd.clearUnwaitable();
            evd.postSoftwareEvent("after");
            assertEquals("after", pointer(evd.waitForEvent(WAIT, 1).event().orElseThrow()));
        }
    }

    @Test
    @DisplayName("dat_evd_wait(3DAT): freeing the EVD or closing the IA under a waiter is DAT_ABORT")
    void shouldAbortWaiterWhenEvdIsFreedOrIaClosed() throws Exception {
        InterfaceAdapter ia = openIa(DatPair.Mode.THREADED, "");
        try {
            EventDispatcher evd = softwareEvd(ia, 4, null);
            CompletableFuture<EvdWaitResult> waiter = startWaiter(evd);
            awaitWaiter(evd);
            evd.free();
            assertEquals(DatReturnType.ABORT, failure(waiter).type());

            EventDispatcher evd2 = softwareEvd(ia, 4, null);
            CompletableFuture<EvdWaitResult> waiter2 = startWaiter(evd2);
            awaitWaiter(evd2);
            ia.close(CloseFlag.ABRUPT);
            assertEquals(DatReturnType.ABORT, failure(waiter2).type());
        } finally {
            HandleSet.closeQuietly(ia);
        }
    }

    // ------------------------------------------------------------------ dat_evd_post_se

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_post_se(3DAT): only an EVD with the software stream takes software events (DAT_INVALID_PARAMETER)")
    void shouldRejectSoftwareEventWhenEvdHasNoSoftwareStream(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            for (Set<EvdFlag> f : List.of(EnumSet.of(EvdFlag.DTO), EvdFlag.defaults(), EnumSet.of(EvdFlag.ASYNC))) {
                EventDispatcher evd = p.a.ia.createEvd(4, null, f);
                assertDat(DatReturnType.INVALID_PARAMETER, () -> evd.postSoftwareEvent("x"));
                assertEquals(0, queued(evd));
                evd.free();
            }
            EventDispatcher mixed = p.a.ia.createEvd(4, null, EnumSet.of(EvdFlag.SOFTWARE, EvdFlag.DTO));
            mixed.postSoftwareEvent("ok");
            assertEquals("ok", pointer(mixed.dequeue().orElseThrow()));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_post_se(3DAT): on a full EVD DAT_QUEUE_FULL, the event is not queued and the async EVD is not affected")
    void shouldReturnQueueFullWhenPostingToFullEvd(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = p.a.ia.query().asyncEvd().orElseThrow();
            EventDispatcher evd = softwareEvd(p.a.ia, 2, null);
            evd.postSoftwareEvent(1);
            evd.postSoftwareEvent(2);
            assertDat(DatReturnType.QUEUE_FULL, DatReturnSubtype.NO_SUBTYPE, () -> evd.postSoftwareEvent(3));
            assertEquals(2, queued(evd));
            assertEquals(1, pointer(evd.dequeue().orElseThrow()));
            evd.postSoftwareEvent(4);
            assertEquals(2, pointer(evd.dequeue().orElseThrow()));
            assertEquals(4, pointer(evd.dequeue().orElseThrow()));
            assertEquals(Optional.empty(), async.dequeue(), "no overflow event for a refused software event");
        }
    }

    // ------------------------------------------------------------------ dat_evd_resize

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_resize(3DAT): below the queued events DAT_INVALID_STATE and no change; bad lengths DAT_INVALID_PARAMETER; no event lost")
    void shouldRefuseResizeWhenMoreEventsAreQueued(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            int max = p.a.ia.query().iaAttributes().maxEvdQlen();
            EventDispatcher evd = softwareEvd(p.a.ia, 4, null);
            for (int i = 0; i < 3; i++) {
                evd.postSoftwareEvent(i);
            }
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, () -> evd.resize(2));
            assertEquals(4, evd.query().qlen(), "a refused resize changes nothing");
            assertDat(DatReturnType.INVALID_PARAMETER, () -> evd.resize(0));
            assertDat(DatReturnType.INVALID_PARAMETER, () -> evd.resize(-1));
            assertDat(DatReturnType.INVALID_PARAMETER, () -> evd.resize(max + 1));
            evd.resize(3);
            assertEquals(3, evd.query().qlen());
            assertDat(DatReturnType.QUEUE_FULL, () -> evd.postSoftwareEvent(99));
            evd.resize(6);
            assertEquals(6, evd.query().qlen());
            for (int i = 3; i < 6; i++) {
                evd.postSoftwareEvent(i);
            }
            List<DatEvent> got = drain(evd);
            assertEquals(6, got.size());
            for (int i = 0; i < 6; i++) {
                assertEquals(i, pointer(got.get(i)), "resizing loses and reorders nothing");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_resize(3DAT): a DTO EVD resized larger takes more completions without overflow")
    void shouldTakeMoreCompletionsWhenDtoEvdIsResized(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher req = p.a.ia.createEvd(2, null, EnumSet.of(EvdFlag.DTO));
            req.resize(6);
            sendToPostedReceives(p, req, 6, 8, 100);
            awaitQueued(p.a.ia, req, 6);
            List<DatEvent> got = drain(req);
            assertEquals(6, got.size());
            for (int i = 0; i < 6; i++) {
                DtoCompletionEvent e = assertInstanceOf(DtoCompletionEvent.class, got.get(i));
                assertEquals(100 + i, e.userCookie());
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
            }
            assertEquals(
                    Optional.empty(), p.a.ia.query().asyncEvd().orElseThrow().dequeue(), "no overflow");
        }
    }

    /**
     * Connects an endpoint of a whose request EVD is {@code req} to an endpoint of b with {@code n}
     * receives posted (cookies 0..n-1), and sends {@code n} messages of {@code len} bytes from a
     * (cookies {@code firstCookie}..).
     */
    private static void sendToPostedReceives(DatPair p, EventDispatcher req, int n, int len, long firstCookie) {
        Endpoint a = p.a.ia.createEndpoint(p.a.pz, p.a.dto, req, p.a.conn, null);
        Endpoint b = p.b.ep();
        p.connect(a, b);
        for (int i = 0; i < n; i++) {
            b.postRecv(p.b.iov(64 * i, 64), i, CompletionFlag.defaults());
        }
        for (int i = 0; i < n; i++) {
            a.postSend(p.a.iov(0, len), firstCookie + i, CompletionFlag.defaults());
        }
    }

    // ------------------------------------------------------------------ overflow

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "EVD overflow: the events that fit are kept in order, each lost one is DAT_ASYNC_ERROR_EVD_OVERFLOW on the IA's async EVD")
    void shouldReportOverflowOnAsyncEvdWhenCompletionsExceedQlen(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = p.a.ia.query().asyncEvd().orElseThrow();
            EventDispatcher req = p.a.ia.createEvd(4, null, EnumSet.of(EvdFlag.DTO));
            sendToPostedReceives(p, req, 7, 16, 1000);
            for (int i = 0; i < 3; i++) {
                AsyncErrorEvent o = DatPair.next(async, AsyncErrorEvent.class);
                assertEquals(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, o.eventNumber());
                assertSame(req, o.handle(), "the overflow names the EVD that overflowed");
                assertEquals(AsyncErrorReason.EVD_OVERFLOW_ERROR, o.reason());
                assertSame(async, o.evd());
            }
            List<DatEvent> kept = drain(req);
            assertEquals(4, kept.size(), "a 4-entry EVD keeps 4 events");
            for (int i = 0; i < 4; i++) {
                DtoCompletionEvent e = assertInstanceOf(DtoCompletionEvent.class, kept.get(i));
                assertEquals(1000 + i, e.userCookie(), "the events before the overflow are kept, in order, once each");
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                assertEquals(16, e.transferredLength());
            }
            // The receiver's EVD had room: all seven receives completed there.
            for (int i = 0; i < 7; i++) {
                assertEquals(i, EventTestSupport.nextDto(p.b.dto).userCookie());
            }
            assertEquals(Optional.empty(), async.dequeue(), "one overflow event per lost event");
        }
    }

    // ------------------------------------------------------------------ enable, disable, modify_cno

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_disable(3DAT), dat_evd_enable(3DAT): a disabled EVD does not trigger its CNO; enabled again it does")
    void shouldNotTriggerCnoWhenEvdIsDisabled(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            EventDispatcher evd = softwareEvd(p.a.ia, 8, cno);
            evd.disable();
            evd.postSoftwareEvent("quiet");
            assertTrue(cno.waitForNotification(Timeout.ZERO).isTimedOut(), "a disabled EVD does not notify its CNO");
            assertEquals(1, queued(evd), "the event is queued all the same");
            evd.enable();
            assertTrue(cno.waitForNotification(Timeout.ZERO).isTimedOut(), "enabling does not replay earlier arrivals");
            evd.postSoftwareEvent("loud");
            assertSame(evd, cno.waitForNotification(WAIT).evd().orElseThrow());
            assertEquals(2, drain(evd).size());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_modify_cno(3DAT): notifications go to the new CNO only; DAT_HANDLE_NULL detaches; a foreign CNO is DAT_INVALID_HANDLE")
    void shouldNotifyNewCnoWhenCnoIsModified(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject c1 = p.a.ia.createCno(null);
            ConsumerNotificationObject c2 = p.a.ia.createCno(null);
            EventDispatcher evd = softwareEvd(p.a.ia, 8, c1);
            evd.disable();
            evd.modifyCno(c2);
            evd.enable();
            assertEquals(Optional.of(c2), evd.query().cno());
            c1.free(); // no EVD refers to c1 any more (dat_cno_free(3DAT))
            evd.postSoftwareEvent(1);
            assertSame(evd, c2.waitForNotification(WAIT).evd().orElseThrow());

            evd.modifyCno(null);
            evd.postSoftwareEvent(2);
            assertTrue(c2.waitForNotification(Timeout.ZERO).isTimedOut(), "a detached CNO is not notified");

            ConsumerNotificationObject foreign = p.b.ia.createCno(null);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, () -> evd.modifyCno(foreign));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, () -> evd.modifyCno(c1));
            assertEquals(Optional.empty(), evd.query().cno(), "a refused modify changes nothing");
            c2.free();
        }
    }

    @Test
    @DisplayName("dat_evd_wait(3DAT), dat_evd_enable(3DAT): a direct waiter preempts the CNO")
    void shouldNotTriggerCnoWhenAThreadWaitsOnTheEvd() throws Exception {
        try (DatPair p = DatPair.open(DatPair.Mode.THREADED)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            EventDispatcher evd = softwareEvd(p.a.ia, 8, cno);
            CompletableFuture<EvdWaitResult> waiter = startWaiter(evd);
            awaitWaiter(evd);
            evd.postSoftwareEvent("direct");
            assertEquals(
                    "direct", pointer(waiter.get(20, TimeUnit.SECONDS).event().orElseThrow()));
            assertTrue(
                    cno.waitForNotification(Timeout.ZERO).isTimedOut(),
                    "the CNO was not triggered while a thread waited");
            evd.postSoftwareEvent("cno");
            assertSame(
                    evd,
                    cno.waitForNotification(WAIT).evd().orElseThrow(),
                    "without a waiter the CNO is triggered again");
        }
    }

    // ------------------------------------------------------------------ dat_evd_free

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_free(3DAT): an EVD fed by an EP, a PSP, an RSP or an IA is DAT_INVALID_STATE (EVD in use)")
    void shouldRefuseFreeWhenEventStreamsFeedTheEvd(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            InterfaceAdapter ia = p.a.ia;
            EventDispatcher recv = ia.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher request = ia.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher connect = ia.createEvd(8, null, EnumSet.of(EvdFlag.CONNECTION));
            Endpoint ep = ia.createEndpoint(p.a.pz, recv, request, connect, null);
            for (EventDispatcher e : List.of(recv, request, connect)) {
                assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, e::free);
            }
            ep.free();
            recv.free();
            request.free();
            connect.free();

            EventDispatcher cr = ia.createEvd(8, null, EnumSet.of(EvdFlag.CR));
            PublicServicePoint psp = ia.createPsp(p.qual(), cr, PspFlag.CONSUMER);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, cr::free);
            psp.free();
            Endpoint reserved = p.a.ep();
            ReservedServicePoint rsp = ia.createRsp(p.qual(), reserved, cr);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, cr::free);
            rsp.free();
            cr.free();

            EventDispatcher own = ia.query().asyncEvd().orElseThrow();
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, own::free);
            EventDispatcher shared = ia.createEvd(8, null, EnumSet.of(EvdFlag.ASYNC));
            InterfaceAdapter second = Dat.openIa("sim:" + p.fabric + "/c?" + p.mode.options, shared);
            try {
                assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, shared::free);
            } finally {
                second.close(CloseFlag.ABRUPT);
            }
            shared.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_free(3DAT): queued events are lost and the handle is invalid afterwards")
    void shouldInvalidateHandleWhenEvdIsFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher evd = softwareEvd(p.a.ia, 4, null);
            evd.postSoftwareEvent("lost");
            evd.free();
            assertDat(DatReturnType.INVALID_HANDLE, evd::dequeue);
            assertDat(DatReturnType.INVALID_HANDLE, () -> evd.waitForEvent(Timeout.ZERO, 1));
            assertDat(DatReturnType.INVALID_HANDLE, evd::query);
            assertDat(DatReturnType.INVALID_HANDLE, () -> evd.postSoftwareEvent("x"));
            assertDat(DatReturnType.INVALID_HANDLE, () -> evd.resize(8));
            assertDat(DatReturnType.INVALID_HANDLE, evd::enable);
            assertDat(DatReturnType.INVALID_HANDLE, evd::disable);
            assertDat(DatReturnType.INVALID_HANDLE, evd::setUnwaitable);
            assertDat(DatReturnType.INVALID_HANDLE, evd::clearUnwaitable);
            assertDat(DatReturnType.INVALID_HANDLE, () -> evd.modifyCno(null));
            assertDat(DatReturnType.INVALID_HANDLE, evd::free);
        }
    }
}
