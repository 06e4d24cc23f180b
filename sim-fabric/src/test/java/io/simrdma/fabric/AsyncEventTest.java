package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static io.simrdma.fabric.ControlPlaneFixture.expectEvent;
import static io.simrdma.fabric.ControlPlaneFixture.nextEvent;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.recv;
import static io.simrdma.fabric.ControlPlaneFixture.send;
import static io.simrdma.fabric.ControlPlaneFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import io.simrdma.fabric.sched.DeterministicScheduler;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Asynchronous events (ibv_get_async_event(3), ibv_event_type_str(3)): which verbs situations
 * raise which event, about which element, and when.
 */
class AsyncEventTest {

    private Fabric fabric;
    private Node a;
    private Node b;
    private QueuePair qa;
    private QueuePair qb;

    /** a and b with one QP each, not yet connected. */
    private void setUp(Fabric f) {
        fabric = f;
        a = Node.of(f, "a");
        b = Node.of(f, "b");
        qa = a.qp();
        qb = b.qp();
    }

    @AfterEach
    void closeFabric() {
        if (fabric != null) {
            fabric.close();
        }
    }

    @Test
    @DisplayName("ibv_event_type_str(3): each event type has libibverbs' text and names its element")
    void shouldDescribeEventTypesLikeLibibverbs() {
        Map<AsyncEventType, String> text = new EnumMap<>(AsyncEventType.class);
        text.put(AsyncEventType.CQ_ERR, "CQ error");
        text.put(AsyncEventType.QP_FATAL, "local work queue catastrophic error");
        text.put(AsyncEventType.QP_REQ_ERR, "invalid request local work queue error");
        text.put(AsyncEventType.QP_ACCESS_ERR, "local access violation work queue error");
        text.put(AsyncEventType.COMM_EST, "communication established");
        text.put(AsyncEventType.SQ_DRAINED, "send queue drained");
        text.put(AsyncEventType.DEVICE_FATAL, "local catastrophic error");
        text.put(AsyncEventType.PORT_ACTIVE, "port active");
        text.put(AsyncEventType.PORT_ERR, "port error");
        text.put(AsyncEventType.SRQ_ERR, "SRQ catastrophic error");
        text.put(AsyncEventType.SRQ_LIMIT_REACHED, "SRQ limit reached");
        text.put(AsyncEventType.QP_LAST_WQE_REACHED, "last WQE reached");
        assertEquals(AsyncEventType.values().length, text.size(), "every type is listed here");
        for (AsyncEventType t : AsyncEventType.values()) {
            assertEquals(text.get(t), t.text(), t.name());
        }
        assertEquals(AsyncEventType.Element.CQ, AsyncEventType.CQ_ERR.element());
        assertEquals(AsyncEventType.Element.SRQ, AsyncEventType.SRQ_LIMIT_REACHED.element());
        assertEquals(AsyncEventType.Element.SRQ, AsyncEventType.SRQ_ERR.element());
        assertEquals(AsyncEventType.Element.PORT, AsyncEventType.PORT_ERR.element());
        assertEquals(AsyncEventType.Element.DEVICE, AsyncEventType.DEVICE_FATAL.element());
        for (AsyncEventType t : new AsyncEventType[] {
            AsyncEventType.QP_FATAL,
            AsyncEventType.QP_REQ_ERR,
            AsyncEventType.QP_ACCESS_ERR,
            AsyncEventType.COMM_EST,
            AsyncEventType.SQ_DRAINED,
            AsyncEventType.QP_LAST_WQE_REACHED
        }) {
            assertEquals(AsyncEventType.Element.QP, t.element(), t.name());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_get_async_event(3): with no event the wait ends at its deadline and returns nothing")
    void shouldReturnNullWhenNoEventBeforeTimeout(Mode mode) {
        setUp(mode.fabric());
        long t0 = fabric.now();
        assertNull(a.dev.getAsyncEvent(25, TimeUnit.MILLISECONDS));
        assertNull(a.dev.pollAsyncEvent());
        if (mode == Mode.DETERMINISTIC) {
            assertEquals(TimeUnit.MILLISECONDS.toNanos(25), fabric.now() - t0, "virtual time stands at the deadline");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("IBA 11.6.3 / ibv_get_async_event(3): COMM_EST when a QP in RTR receives its first packet, once")
    void shouldRaiseCommEstOnceWhenRtrQpReceivesFirstPacket(Mode mode) {
        setUp(mode.fabric());
        ControlPlaneFixture.connectWithPeerInRtr(qa, qb);
        qb.postRecv(recv(b, 1, 0, 64).next(recv(b, 2, 64, 64)));
        qa.postSend(send(a, 1, 0, 64));
        assertStatus(WcStatus.SUCCESS, pollOne(b.cq));
        AsyncEvent e = nextEvent(b.dev);
        assertEquals(AsyncEventType.COMM_EST, e.type(), e.toString());
        assertSame(qb, e.qp());
        assertNull(e.cq());
        assertTrue(e.toString().contains("communication established"), e.toString());
        b.dev.ackAsyncEvent(e);
        assertEquals(QpState.RTR, qb.state(), "COMM_EST does not change the state; the application moves to RTS");
        qa.postSend(send(a, 2, 0, 64));
        assertStatus(WcStatus.SUCCESS, pollOne(b.cq));
        assertNull(b.dev.pollAsyncEvent(), "only the first packet raises COMM_EST");
        ControlPlaneFixture.toRts(qb);
        assertNull(b.dev.pollAsyncEvent());
        assertNull(a.dev.pollAsyncEvent(), "a QP already in RTS when packets come raises nothing");
    }

    @Test
    @DisplayName(
            "ibv_modify_qp(3) en_sqd_async_notify: SQ_DRAINED only once the message in progress is acknowledged; query shows sq_draining until then")
    void shouldRaiseSqDrainedOnlyWhenInFlightMessageDrained() {
        setUp(Fabric.deterministic(11));
        connect(qa, qb);
        DeterministicScheduler s = fabric.deterministicScheduler();
        RcPair.fill(a.buf, 0, 32 * 1024, 5);
        qa.postSend(write(a, 1, 0, 32 * 1024, b.addr(0), b.mr.rkey()));
        while (qa.counters().get(Counter.PACKETS_SENT) == 0) {
            assertTrue(s.progress(), "the requester runs");
        }
        qa.modify(new QpAttr().state(QpState.SQD).enSqdAsyncNotify(true));
        QpAttr q = qa.query();
        assertEquals(QpState.SQD, q.state());
        assertTrue(q.sqDraining(), "a message is in flight");
        assertTrue(q.enSqdAsyncNotify());
        assertNull(a.dev.pollAsyncEvent(), "not drained yet");

        AsyncEvent e = expectEvent(a.dev, AsyncEventType.SQ_DRAINED);
        assertSame(qa, e.qp());
        assertFalse(qa.query().sqDraining());
        WorkCompletion wc = assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        assertEquals(1, wc.wrId());
        RcPair.assertBytes(a.buf, 0, b.buf, 0, 32 * 1024);
        s.runUntilIdle();
        assertNull(a.dev.pollAsyncEvent(), "one SQ_DRAINED per drain");
    }

    @Test
    @DisplayName("IBA 10.3.1: in SQD no new message starts; SQD -> RTS resumes the send queue")
    void shouldHoldNewWorkInSqdAndResumeWhenBackToRts() {
        setUp(Fabric.deterministic(12));
        connect(qa, qb);
        qa.modify(new QpAttr().state(QpState.SQD).enSqdAsyncNotify(true));
        // Nothing in flight: the queue is drained at once.
        assertSame(qa, expectEvent(a.dev, AsyncEventType.SQ_DRAINED).qp());
        a.buf.putLong(0, 0x5A5A5A5A5A5A5A5AL);
        qa.postSend(write(a, 2, 0, 8, b.addr(128), b.mr.rkey()));
        fabric.deterministicScheduler().runUntilIdle();
        assertEquals(0, a.cq.size(), "a WR posted in SQD waits");
        assertEquals(0, b.buf.getLong(128));
        assertEquals(0, qa.counters().get(Counter.PACKETS_SENT));
        assertFalse(qa.query().sqDraining());

        qa.modify(new QpAttr().state(QpState.RTS));
        assertEquals(2, assertStatus(WcStatus.SUCCESS, pollOne(a.cq)).wrId());
        assertEquals(0x5A5A5A5A5A5A5A5AL, b.buf.getLong(128));
        assertNull(a.dev.pollAsyncEvent());
    }

    @Test
    @DisplayName("ibv_modify_qp(3): without en_sqd_async_notify a drained send queue raises no SQ_DRAINED")
    void shouldNotRaiseSqDrainedWhenNotRequested() {
        setUp(Fabric.deterministic(13));
        connect(qa, qb);
        qa.postSend(write(a, 1, 0, 4096, b.addr(0), b.mr.rkey()));
        while (qa.counters().get(Counter.PACKETS_SENT) == 0) {
            assertTrue(fabric.deterministicScheduler().progress(), "the requester runs");
        }
        qa.modify(new QpAttr().state(QpState.SQD));
        assertTrue(qa.query().sqDraining());
        assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        fabric.deterministicScheduler().runUntilIdle();
        assertFalse(qa.query().sqDraining());
        assertNull(a.dev.pollAsyncEvent());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_modify_qp(3): RTS -> SQD with notification raises SQ_DRAINED and SQD -> RTS completes work posted meanwhile")
    void shouldDrainAndResumeWhenMovedThroughSqd(Mode mode) {
        setUp(mode.fabric());
        connect(qa, qb);
        qa.postSend(write(a, 1, 0, 16 * 1024, b.addr(0), b.mr.rkey()));
        qa.modify(new QpAttr().state(QpState.SQD).enSqdAsyncNotify(true));
        assertSame(qa, expectEvent(a.dev, AsyncEventType.SQ_DRAINED).qp());
        qa.postSend(write(a, 2, 0, 8, b.addr(64 * 1024 - 8), b.mr.rkey()));
        qa.modify(new QpAttr().state(QpState.RTS).curState(QpState.SQD));
        WorkCompletion[] wcs = WorkCompletion.array(2);
        assertTrue(a.cq.awaitCompletions(2, ControlPlaneFixture.WAIT_MS, TimeUnit.MILLISECONDS));
        assertEquals(2, a.cq.poll(wcs));
        assertEquals(1, assertStatus(WcStatus.SUCCESS, wcs[0]).wrId());
        assertEquals(2, assertStatus(WcStatus.SUCCESS, wcs[1]).wrId());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_async_event(3): PORT_ERR when the port goes down, PORT_ACTIVE when it comes back, once per change; ibv_query_port(3) follows")
    void shouldRaisePortEventsWhenPortStateChanges(Mode mode) {
        setUp(mode.fabric());
        b.dev.setPortActive(false);
        AsyncEvent down = expectEvent(b.dev, AsyncEventType.PORT_ERR);
        assertEquals(1, down.portNum());
        assertNull(down.qp());
        assertNull(down.cq());
        assertNull(down.srq());
        assertEquals(PortState.DOWN, b.dev.queryPort(1).state());
        assertEquals(PortState.DOWN, b.dev.portState());
        b.dev.setPortActive(false);
        assertNull(b.dev.pollAsyncEvent(), "no change, no event");
        assertNull(a.dev.pollAsyncEvent(), "the event is the port's device's alone");
        b.dev.setPortActive(true);
        AsyncEvent up = expectEvent(b.dev, AsyncEventType.PORT_ACTIVE);
        assertEquals(1, up.portNum());
        assertEquals(PortState.ACTIVE, b.dev.queryPort(1).state());
        assertTrue(up.timeNanos() >= down.timeNanos());
    }

    @Test
    @DisplayName("A down port drops every packet; RC retries deliver the message once the port is active again")
    void shouldDeliverAfterRetryWhenPortComesBackUp() {
        setUp(Fabric.deterministic(14));
        connect(qa, qb);
        b.dev.setPortActive(false);
        expectEvent(b.dev, AsyncEventType.PORT_ERR);
        qb.postRecv(recv(b, 7, 0, 64));
        qa.postSend(send(a, 7, 0, 64));
        fabric.deterministicScheduler().advanceTime(TimeUnit.MILLISECONDS.toNanos(50));
        assertEquals(0, b.cq.size());
        assertTrue(b.dev.counters().get(Counter.DROPPED_PACKETS) > 0, "the down port dropped the SEND");
        b.dev.setPortActive(true);
        expectEvent(b.dev, AsyncEventType.PORT_ACTIVE);
        assertEquals(7, assertStatus(WcStatus.SUCCESS, pollOne(b.cq)).wrId());
        assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        assertTrue(qa.counters().get(Counter.RETRANSMITTED_PACKETS) > 0);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 9.9.3.1: an RDMA WRITE with a bad R_Key raises QP_ACCESS_ERR on the responder, which moves to ERR")
    void shouldRaiseQpAccessErrOnResponderWhenRkeyBad(Mode mode) {
        setUp(mode.fabric());
        connect(qa, qb);
        qa.postSend(write(a, 1, 0, 8, b.addr(0), b.mr.rkey() + 0x100));
        assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(a.cq));
        AsyncEvent e = expectEvent(b.dev, AsyncEventType.QP_ACCESS_ERR);
        assertSame(qb, e.qp());
        assertEquals(QpState.ERR, qb.query().state());
        assertEquals(QpState.ERR, qa.query().state(), "the requester moves to ERR on the NAK as well");
        assertNull(a.dev.pollAsyncEvent(), "the requester learns from its completion, not an event");
    }
}
