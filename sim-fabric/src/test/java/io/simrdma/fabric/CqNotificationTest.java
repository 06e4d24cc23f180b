package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.WAIT_MS;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.recv;
import static io.simrdma.fabric.ControlPlaneFixture.send;
import static io.simrdma.fabric.ControlPlaneFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CQ notification (ibv_req_notify_cq(3), ibv_get_cq_event(3)): a request is one-shot, "next"
 * fires for any new completion, "solicited only" for a receive of a solicited message or an
 * error completion; events reach the completion channel and must be acknowledged.
 *
 * <p>"No event" is checked once the completion that could have caused it is in the CQ: an event
 * is delivered when its completion is added, so if none is queued then, none will be.
 */
class CqNotificationTest {

    private Fabric fabric;
    private Node a;
    private Node b;
    private QueuePair qa;
    private QueuePair qb;

    @AfterEach
    void closeFabric() {
        if (fabric != null) {
            fabric.close();
        }
    }

    private void setUp(Mode mode) {
        fabric = mode.fabric();
        a = Node.withChannel(fabric, "a", 64);
        b = Node.withChannel(fabric, "b", 64);
        qa = a.qp();
        qb = b.qp();
        connect(qa, qb);
    }

    private static CompletionQueue event(Node n) {
        return n.cq.channel().getCqEvent(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** a SENDs to b; waits for both completions, which stay in the CQs. */
    private void sendAndWait(long id, boolean solicited) {
        qb.postRecv(recv(b, id, 0, 64));
        SendWr wr = send(a, id, 0, 64);
        if (solicited) {
            wr.flag(SendFlag.SOLICITED);
        }
        int before = b.cq.size();
        qa.postSend(wr);
        assertTrue(b.cq.awaitCompletions(before + 1, WAIT_MS, TimeUnit.MILLISECONDS), "receive completion " + id);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_req_notify_cq(3): solicited_only=0 fires for the next completion, once per request")
    void shouldDeliverOneEventWhenNextCompletionArrives(Mode mode) {
        setUp(mode);
        CompletionChannel ch = b.cq.channel();
        b.cq.requestNotify(false);
        sendAndWait(1, false);
        sendAndWait(2, false);
        assertSame(b.cq, event(b));
        assertEquals("b-cq", b.cq.context());
        assertNull(ch.pollCqEvent(), "one request, one event, however many completions");
        b.cq.ackEvents(1);
        b.cq.requestNotify(false);
        sendAndWait(3, false);
        assertSame(b.cq, event(b));
        b.cq.ackEvents(1);
        assertEquals(3, b.cq.poll(WorkCompletion.array(4)));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_cq_event(3): a channel holds at most one unread event per CQ: armed and completed again before the event is read, the CQ queues no second event; once read, the next arm fires again")
    void shouldQueueOneEventPerCqWhenRearmedBeforeEventIsRead(Mode mode) {
        setUp(mode);
        CompletionChannel ch = b.cq.channel();
        b.cq.requestNotify(false);
        sendAndWait(1, false);
        b.cq.requestNotify(false); // armed again, the first event still unread
        sendAndWait(2, false);
        b.cq.requestNotify(true);
        sendAndWait(3, true);
        assertSame(b.cq, event(b));
        assertNull(ch.pollCqEvent(), "three notifications fired, one event queued");
        b.cq.ackEvents(1);
        b.cq.requestNotify(false);
        sendAndWait(4, false);
        assertSame(b.cq, event(b), "after the event is read, the next armed completion queues one again");
        assertNull(ch.pollCqEvent());
        b.cq.ackEvents(1);
        assertEquals(4, b.cq.poll(WorkCompletion.array(8)));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_cq_event(3): the one-unread-event rule is per CQ: two CQs on one channel each queue their event")
    void shouldQueueOneEventPerCqWhenTwoCqsShareAChannel(Mode mode) {
        setUp(mode);
        CompletionChannel ch = b.cq.channel();
        CompletionQueue other = b.dev.createCq(8, ch, "other");
        QueuePair qb2 = b.pd.createQp(QpInitAttr.rc(other, other));
        QueuePair qa2 = a.qp();
        connect(qa2, qb2);
        b.cq.requestNotify(false);
        other.requestNotify(false);
        sendAndWait(1, false);
        qb2.postRecv(recv(b, 2, 1024, 64));
        qa2.postSend(send(a, 2, 0, 64));
        assertTrue(other.awaitCompletions(1, WAIT_MS, TimeUnit.MILLISECONDS));
        b.cq.requestNotify(false);
        sendAndWait(3, false);
        CompletionQueue first = event(b);
        CompletionQueue second = event(b);
        assertTrue(
                (first == b.cq && second == other) || (first == other && second == b.cq),
                "one event of each CQ: " + first + ", " + second);
        assertNull(ch.pollCqEvent(), "no second event of b.cq");
        b.cq.ackEvents(1);
        other.ackEvents(1);
        assertEquals(2, b.cq.poll(WorkCompletion.array(4)));
        assertEquals(1, other.poll(WorkCompletion.array(4)));
        qb2.destroy();
        qa2.destroy();
        other.destroy();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_req_notify_cq(3): solicited_only fires for a receive with the solicited bit, not for an unsolicited one")
    void shouldFireSolicitedOnlyRequestWhenSolicitedSendArrives(Mode mode) {
        setUp(mode);
        CompletionChannel ch = b.cq.channel();
        b.cq.requestNotify(true);
        sendAndWait(1, false);
        assertNull(ch.pollCqEvent(), "an unsolicited receive does not fire a solicited-only request");
        sendAndWait(2, true);
        assertSame(b.cq, event(b));
        b.cq.ackEvents(1);
        assertNull(ch.pollCqEvent());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_req_notify_cq(3): a successful send completion is unsolicited; an error completion fires a solicited-only request")
    void shouldFireSolicitedOnlyRequestWhenErrorCompletionArrives(Mode mode) {
        setUp(mode);
        CompletionChannel ch = a.cq.channel();
        a.cq.requestNotify(true);
        qa.postSend(write(a, 1, 0, 8, b.addr(0), b.mr.rkey()).flag(SendFlag.SOLICITED));
        assertTrue(a.cq.awaitCompletions(1, WAIT_MS, TimeUnit.MILLISECONDS));
        assertNull(ch.pollCqEvent(), "a successful send completion is not solicited");
        qa.postSend(write(a, 2, 0, 8, b.addr(0), b.mr.rkey() ^ 0x100));
        assertSame(a.cq, event(a));
        a.cq.ackEvents(1);
        assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(a.cq));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_req_notify_cq(3): a request for any completion overrides an earlier solicited-only request")
    void shouldFireForUnsolicitedWhenNextRequestedAfterSolicitedOnly(Mode mode) {
        setUp(mode);
        b.cq.requestNotify(true);
        b.cq.requestNotify(false);
        sendAndWait(1, false);
        assertSame(b.cq, event(b));
        b.cq.ackEvents(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_req_notify_cq(3): completions already in the CQ when the request is made do not fire it; the next one does")
    void shouldIgnoreOldCompletionsWhenRequestMadeAfterThem(Mode mode) {
        setUp(mode);
        sendAndWait(1, true);
        b.cq.requestNotify(false);
        assertNull(b.cq.channel().pollCqEvent());
        sendAndWait(2, false);
        assertSame(b.cq, event(b));
        b.cq.ackEvents(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_get_cq_event(3): with nothing requested the wait ends at its deadline with no event")
    void shouldReturnNullWhenNoCqEventBeforeTimeout(Mode mode) {
        setUp(mode);
        sendAndWait(1, true);
        long t0 = fabric.now();
        assertNull(b.cq.channel().getCqEvent(20, TimeUnit.MILLISECONDS));
        if (mode == Mode.DETERMINISTIC) {
            assertTrue(fabric.now() - t0 >= TimeUnit.MILLISECONDS.toNanos(20), "virtual time reached the deadline");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_cq_event(3): every event must be acknowledged before the CQ can be destroyed; acks cannot exceed events")
    void shouldCountAcknowledgementsWhenEventsAcked(Mode mode) {
        setUp(mode);
        b.cq.requestNotify(false);
        sendAndWait(1, false);
        assertSame(b.cq, event(b));
        b.cq.requestNotify(false);
        sendAndWait(2, false);
        assertSame(b.cq, event(b));
        assertErrno(Errno.EINVAL, () -> b.cq.ackEvents(3));
        assertErrno(Errno.EINVAL, () -> b.cq.ackEvents(-1));
        qb.destroy();
        b.cq.ackEvents(1);
        assertErrno(Errno.EBUSY, b.cq::destroy);
        b.cq.ackEvents(1);
        b.cq.destroy();
    }

    @Test
    @DisplayName("ibv_req_notify_cq(3): a CQ created without a completion channel cannot request notification (EINVAL)")
    void shouldRefuseNotifyWhenCqHasNoChannel() {
        try (Fabric f = Fabric.deterministic(1)) {
            CompletionQueue cq = f.createDevice("d").createCq(4);
            assertNull(cq.channel());
            assertErrno(Errno.EINVAL, () -> cq.requestNotify(false));
            assertErrno(Errno.EINVAL, () -> cq.requestNotify(true));
        }
    }
}
