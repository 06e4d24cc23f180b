package io.simrdma.provider;

import static io.simrdma.provider.DatPair.WAIT;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.EventTestSupport.await;
import static io.simrdma.provider.EventTestSupport.awaitWaiter;
import static io.simrdma.provider.EventTestSupport.startWaiter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CnoParams;
import io.simrdma.dat.CnoWaitResult;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.Timeout;
import io.simrdma.dat.WaitProxyAgent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Consumer Notification Object tests: dat_cno_create, dat_cno_query, dat_cno_wait,
 * dat_cno_modify_agent and dat_cno_free, with the EVDs that feed a CNO.
 */
class CnoTest {

    /** An agent that records the EVDs it was called with (null included). */
    static final class RecordingAgent implements WaitProxyAgent {
        final List<EventDispatcher> calls = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onNotification(EventDispatcher evd) {
            calls.add(evd);
        }

        int count() {
            return calls.size();
        }
    }

    private static EventDispatcher softwareEvd(InterfaceAdapter ia, ConsumerNotificationObject cno) {
        return ia.createEvd(8, cno, EnumSet.of(EvdFlag.SOFTWARE));
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_cno_create(3DAT), dat_cno_query(3DAT): the IA and the agent (none for DAT_OS_WAIT_PROXY_AGENT_NULL)")
    void shouldReportAgentWhenQueried(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject plain = p.a.ia.createCno(null);
            CnoParams q = plain.query();
            assertSame(p.a.ia, q.ia());
            assertEquals(Optional.empty(), q.agent());
            RecordingAgent agent = new RecordingAgent();
            ConsumerNotificationObject withAgent = p.a.ia.createCno(agent);
            assertEquals(Optional.of(agent), withAgent.query().agent());
            assertEquals(0, agent.count(), "creating a CNO does not invoke its agent");
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cno_wait(3DAT): no notification within the timeout is DAT_QUEUE_EMPTY with no EVD")
    void shouldTimeOutWithQueueEmptyWhenNothingNotifies(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            CnoWaitResult r = cno.waitForNotification(Timeout.ofMillis(2));
            assertEquals(DatReturnType.QUEUE_EMPTY, r.status());
            assertEquals(Optional.empty(), r.evd());
            EventDispatcher evd = softwareEvd(p.a.ia, cno);
            r = cno.waitForNotification(Timeout.ZERO);
            assertTrue(r.isTimedOut(), "an attached EVD without events does not notify: " + r);
            assertDat(DatReturnType.INVALID_PARAMETER, () -> cno.waitForNotification(null));
            evd.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_cno_wait(3DAT): a waiter interrupted by a signal (Thread.interrupt) gets DAT_INTERRUPTED_CALL; "
            + "its interrupt status is set again (provider-api ConsumerNotificationObject.waitForNotification)")
    void shouldFailWithInterruptedCallAndKeepInterruptStatusWhenWaiterIsInterrupted(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            Thread.currentThread().interrupt();
            boolean stillInterrupted;
            try {
                assertDat(DatReturnType.INTERRUPTED_CALL, () -> cno.waitForNotification(Timeout.ofMillis(50)));
            } finally {
                stillInterrupted = Thread.interrupted();
            }
            assertTrue(stillInterrupted, "the interrupt status must be set again after DAT_INTERRUPTED_CALL");
            cno.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_cno_wait(3DAT), dat_cno_create(3DAT): a DTO completion on an attached EVD wakes the waiter and invokes the agent once")
    void shouldNotifyWaiterAndAgentWhenAttachedEvdGetsCompletion(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            RecordingAgent agent = new RecordingAgent();
            ConsumerNotificationObject cno = p.a.ia.createCno(agent);
            EventDispatcher req = p.a.ia.createEvd(16, cno, EnumSet.of(EvdFlag.DTO));
            EventDispatcher other = softwareEvd(p.a.ia, cno);
            Endpoint a = p.a.ia.createEndpoint(p.a.pz, p.a.dto, req, p.a.conn, null);
            Endpoint b = p.b.ep();
            p.connect(a, b);
            b.postRecv(p.b.iov(0, 64), 1, CompletionFlag.defaults());
            a.postSend(p.a.iov(0, 32), 42, CompletionFlag.defaults());

            CnoWaitResult r = cno.waitForNotification(WAIT);
            assertEquals(DatReturnType.SUCCESS, r.status());
            assertSame(req, r.evd().orElseThrow(), "the hint names the EVD that got the completion");
            await(p.a.ia, () -> agent.count() == 1, "the agent's call");
            assertSame(req, agent.calls.get(0));
            // dat_cno_create(3DAT): after it is invoked the agent is no longer associated with the CNO.
            assertEquals(Optional.empty(), cno.query().agent());
            EventTestSupport.nextDto(req, a, 42, DtoCompletionStatus.SUCCESS);

            other.postSoftwareEvent("again");
            assertSame(
                    other, cno.waitForNotification(WAIT).evd().orElseThrow(), "a second trigger still wakes waiters");
            assertEquals(1, agent.count(), "the agent was invoked once");
            assertEquals(1, EventTestSupport.nextDto(p.b.dto).userCookie());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_cno_modify_agent(3DAT): the new agent gets the next trigger; DAT_OS_WAIT_PROXY_AGENT_NULL removes it")
    void shouldInvokeNewAgentWhenAgentIsModified(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            RecordingAgent first = new RecordingAgent();
            RecordingAgent second = new RecordingAgent();
            ConsumerNotificationObject cno = p.a.ia.createCno(first);
            EventDispatcher evd = softwareEvd(p.a.ia, cno);
            cno.modifyAgent(second);
            assertEquals(Optional.of(second), cno.query().agent());
            evd.postSoftwareEvent(1);
            assertEquals(List.of(evd), second.calls);
            assertEquals(0, first.count(), "the replaced agent is not invoked");
            assertSame(evd, cno.waitForNotification(WAIT).evd().orElseThrow());

            cno.modifyAgent(second);
            cno.modifyAgent(null);
            assertEquals(Optional.empty(), cno.query().agent());
            evd.postSoftwareEvent(2);
            assertSame(
                    evd, cno.waitForNotification(WAIT).evd().orElseThrow(), "local delivery goes on without an agent");
            assertEquals(1, second.count(), "a removed agent is not invoked");
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_cno_free(3DAT): a CNO an EVD refers to is DAT_INVALID_STATE/DAT_INVALID_STATE_CNO_IN_USE; a freed CNO is an invalid handle")
    void shouldRefuseFreeWhenEvdRefersToCno(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            EventDispatcher e1 = softwareEvd(p.a.ia, cno);
            EventDispatcher e2 = p.a.ia.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            e2.modifyCno(cno);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, cno::free);
            e1.free();
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, cno::free);
            e2.modifyCno(null);
            cno.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, cno::query);
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_CNO,
                    () -> cno.waitForNotification(Timeout.ZERO));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, () -> cno.modifyAgent(null));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, cno::free);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, () -> e2.modifyCno(cno));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_cno_wait(3DAT): freeing every EVD of the CNO releases it with no EVD and invokes the agent with none; detaching does not")
    void shouldReleaseWithNoEvdWhenEveryEvdIsFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            RecordingAgent agent = new RecordingAgent();
            ConsumerNotificationObject cno = p.a.ia.createCno(agent);
            EventDispatcher e1 = softwareEvd(p.a.ia, cno);
            EventDispatcher e2 = softwareEvd(p.a.ia, cno);
            e1.modifyCno(null);
            assertTrue(cno.waitForNotification(Timeout.ZERO).isTimedOut(), "dat_evd_modify_cno releases nobody");
            assertEquals(0, agent.count());
            e1.free();
            e2.free();
            assertEquals(1, agent.count(), "the agent is released when the last EVD is freed");
            assertEquals(null, agent.calls.get(0));
            assertEquals(Optional.empty(), cno.query().agent());
            cno.free();
        }
    }

    @Test
    @DisplayName("dat_cno_wait(3DAT): a thread blocked on the CNO returns with no EVD when its last EVD is freed")
    void shouldReleaseBlockedWaiterWhenLastEvdIsFreed() throws Exception {
        try (DatPair p = DatPair.open(DatPair.Mode.THREADED)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            EventDispatcher evd = softwareEvd(p.a.ia, cno);
            CompletableFuture<CnoWaitResult> waiter = startWaiter(cno);
            awaitWaiter(p.a.ia, cno);
            evd.free();
            CnoWaitResult r = waiter.get(20, TimeUnit.SECONDS);
            assertEquals(DatReturnType.SUCCESS, r.status());
            assertEquals(Optional.empty(), r.evd());
            assertTrue(cno.waitForNotification(Timeout.ZERO).isTimedOut(), "a later wait is not released again");
        }
    }

    @Test
    @DisplayName(
            "dat_cno_free(3DAT): a CNO a thread is blocked on is DAT_INVALID_STATE; the USAGE recipe (post a software event) unblocks it")
    void shouldRefuseFreeWhenThreadIsBlockedOnCno() throws Exception {
        try (DatPair p = DatPair.open(DatPair.Mode.THREADED)) {
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            CompletableFuture<CnoWaitResult> waiter = startWaiter(cno);
            awaitWaiter(p.a.ia, cno);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, cno::free);
            EventDispatcher temp = softwareEvd(p.a.ia, null);
            temp.modifyCno(cno);
            temp.postSoftwareEvent("unblock");
            assertSame(temp, waiter.get(20, TimeUnit.SECONDS).evd().orElseThrow());
            temp.modifyCno(null);
            cno.free();
            temp.free();
        }
    }

    @Test
    @DisplayName("dat_cno_wait(3DAT): closing the IA releases a blocked waiter and the agent with no EVD")
    void shouldReleaseWaiterAndAgentWhenIaIsClosed() throws Exception {
        InterfaceAdapter ia =
                Dat.openIa(ObjectFixtures.iaName(DatPair.Mode.THREADED, ObjectFixtures.fabric("cnotest"), "x", ""), 8);
        try {
            RecordingAgent agent = new RecordingAgent();
            ConsumerNotificationObject cno = ia.createCno(agent);
            CompletableFuture<CnoWaitResult> waiter = startWaiter(cno);
            awaitWaiter(ia, cno);
            ia.close(CloseFlag.ABRUPT);
            CnoWaitResult r = waiter.get(20, TimeUnit.SECONDS);
            assertEquals(DatReturnType.SUCCESS, r.status());
            assertEquals(Optional.empty(), r.evd());
            assertEquals(1, agent.count());
            assertEquals(null, agent.calls.get(0));
        } finally {
            HandleSet.closeQuietly(ia);
        }
    }
}
