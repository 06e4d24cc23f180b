package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmRig.TO_ERR;
import static io.simrdma.fabric.cm.CmRig.TO_RTS;
import static io.simrdma.fabric.cm.CmRig.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.cm.CmMessage.Type;
import io.simrdma.fabric.cm.CmRig.Backend;
import io.simrdma.fabric.cm.CmRig.Pair;
import io.simrdma.fabric.cm.CmTrace.Mad;
import io.simrdma.fabric.tcp.RcEnd;
import io.simrdma.fabric.wire.Packet;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The IB CM under link faults (IBA 12.9.6 state machines, 12.7.34 response timeout): CM messages
 * are MADs on the same links as data, so fault rules drop, duplicate and delay them. A lost REQ,
 * REP or DREQ is resent after the response timeout; a lost RTU is recovered by the REP resend
 * (or the DREQ that follows); a duplicate is answered again but never executed twice; when every
 * resend is lost the attempt ends after exactly (retries + 1) timeouts.
 *
 * <p>In-process cases run on the deterministic scheduler and check exact virtual times; the TCP
 * cases take a node's link down in real time and wait with deadlines.
 */
class CmFaultTest {

    /** Response timeout 4096 ns x 2^10 = 4.19 ms, 3 resends; timewait 10 ms (longer than 1.5 timeouts). */
    static final CmConfig CONFIG = CmConfig.defaults().withResponseTimeout(10, 3);

    static final long T = CONFIG.responseTimeoutNanos();
    static final int R = CONFIG.maxCmRetries();

    private static CmRig rig(long seed) {
        return CmRig.create(Backend.DETERMINISTIC, seed, CONFIG);
    }

    /** One-way delivery delay of a MAD on the idle link: the first REQ's delivery minus its send. */
    private static long oneWay(CmRig rig) {
        Mad sent = rig.trace.sent(rig.a, Type.REQ).get(0);
        Mad delivered = rig.trace.delivered(Type.REQ).get(0);
        return delivered.time() - sent.time();
    }

    private static List<Mad> dropped(CmRig rig, Type type) {
        return rig.trace.select(m -> m.event() == PacketEvent.DROPPED && m.type() == type);
    }

    /**
     * The connection formed exactly once: no event left on either side after the fabric ran idle,
     * each QP went RESET->INIT->RTR->RTS once and sits in RTS, and the PSNs agree.
     */
    private static void assertConnectedOnce(CmRig rig, Pair p) {
        rig.assertQuiet("a: events after ESTABLISHED", "b: events after ESTABLISHED");
        rig.assertTransitions(TO_RTS, p);
        QpAttr qa = p.client().qp.query();
        QpAttr qb = p.server().qp.query();
        assertEquals(qa.sqPsn(), qb.rqPsn());
        assertEquals(qb.sqPsn(), qa.rqPsn());
        assertEquals(p.server().qp.qpNum(), qa.destQpn());
        assertEquals(p.client().qp.qpNum(), qb.destQpn());
    }

    /** Both sides reported DISCONNECTED once and TIMEWAIT_EXIT once; both QPs left RTS for ERR once. */
    private static void assertDisconnectedOnce(CmRig rig, Pair p) {
        rig.expectDisconnection().assertTimewait(CONFIG.timewaitNanos());
        rig.assertQuiet();
        rig.assertTransitions(TO_ERR, p);
    }

    /** a ESTABLISHED (its event {@code estA}) while b, having accepted, still waits for the RTU that was lost. */
    private record RtuLost(Pair pair, CmEvent estA) {}

    /**
     * Drops the first RTU, connects a to b's listener on {@code port} and accepts (with a receive
     * posted first if {@code postRecv}); returns once a is ESTABLISHED.
     */
    private static RtuLost acceptWithTheRtuLost(CmRig rig, int port, boolean postRecv) {
        rig.link().addFault(FaultRule.drop(CmTrace.type(Type.RTU), 1).times(1));
        RcEnd client = rig.connecting(port);
        RcEnd server = rig.request();
        if (postRecv) {
            server.postRecv(1);
        }
        server.id.accept(null);
        CmEvent estA = expect(rig.chA, CmEventType.ESTABLISHED);
        return new RtuLost(new Pair(client, server), estA);
    }

    /** a SENDs "early" to b's posted receive, which completes successfully. */
    private static void sendEarly(Pair p) {
        p.client().postSend(2, "early".getBytes(StandardCharsets.US_ASCII));
        WorkCompletion wc = p.server().next();
        assertNotNull(wc, "no receive completion on b");
        assertEquals(WcStatus.SUCCESS, wc.status());
    }

    // ------------------------------------------------------------------ lost messages

    @Test
    @DisplayName("IBA 12.9.6 REQ Sent: a lost REQ is resent after one response timeout; one connection forms")
    void shouldResendReqAfterOneResponseTimeoutWhenTheFirstReqIsLost() {
        try (CmRig rig = rig(201)) {
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REQ), 1).times(1));
            Pair p = rig.connect(7101);
            List<Mad> reqs = rig.trace.sent(rig.a, Type.REQ);
            assertEquals(2, reqs.size(), reqs::toString);
            assertEquals(T, reqs.get(1).time() - reqs.get(0).time(), "resent after exactly one response timeout");
            assertEquals(reqs.get(0).msg().localCommId, reqs.get(1).msg().localCommId, "the same request");
            assertEquals(reqs.get(0).msg().transactionId, reqs.get(1).msg().transactionId);
            assertEquals(reqs.get(0).msg().startingPsn, reqs.get(1).msg().startingPsn);
            assertEquals(1, dropped(rig, Type.REQ).size());
            assertEquals(DropReason.FAULT, dropped(rig, Type.REQ).get(0).reason());
            assertEquals(List.of("a:REQ", "a:REQ", "b:REP", "a:RTU"), rig.trace.sentTypes(rig.a, rig.b));
            assertConnectedOnce(rig, p);
        }
    }

    @Test
    @DisplayName("IBA 12.9.6 REP Sent: a lost REP is resent by the passive side after one response timeout")
    void shouldResendRepAfterOneResponseTimeoutWhenTheFirstRepIsLost() {
        try (CmRig rig = rig(202)) {
            // the first REP is lost, and so is the REQ resend that would make b answer early
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REP), 1).times(1));
            rig.link().addFault(FaultRule.drop(CmTrace.nth(CmTrace.type(Type.REQ), 2), 1));
            Pair p = rig.connect(7102);
            List<Mad> reps = rig.trace.sent(rig.b, Type.REP);
            assertEquals(2, reps.size(), reps::toString);
            assertEquals(T, reps.get(1).time() - reps.get(0).time(), "REP resent after exactly one response timeout");
            assertEquals(reps.get(0).msg().startingPsn, reps.get(1).msg().startingPsn, "the same REP");
            assertEquals(reps.get(0).msg().localCommId, reps.get(1).msg().localCommId);
            assertEquals(2, rig.trace.sent(rig.a, Type.REQ).size());
            assertEquals(1, rig.trace.sent(rig.a, Type.RTU).size());
            assertConnectedOnce(rig, p);
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6: a REQ resent to a passive side in REP Sent is answered with the REP again, not a second request")
    void shouldAnswerTheResentReqWithTheRepWhenTheRepIsLost() {
        try (CmRig rig = rig(203)) {
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REP), 1).times(1));
            Pair p = rig.connect(7103);
            List<Mad> reqs = rig.trace.delivered(Type.REQ);
            assertEquals(2, reqs.size());
            long resentReqArrives = reqs.get(1).time();
            assertTrue(
                    rig.trace.sent(rig.b, Type.REP).stream().anyMatch(m -> m.time() == resentReqArrives),
                    "b answers the resent REQ at once with its REP: " + rig.trace.sent());
            assertConnectedOnce(rig, p);
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6 REP Sent: with the RTU lost, the REP resend makes a repeat its RTU; b ESTABLISHED once, one timeout late")
    void shouldEstablishThePassiveSideThroughTheRepResendWhenTheRtuIsLost() {
        try (CmRig rig = rig(204)) {
            RtuLost r = acceptWithTheRtuLost(rig, 7104, false);
            CmEvent estA = r.estA();
            CmEvent estB = expect(rig.chB, CmEventType.ESTABLISHED);
            long d = oneWay(rig);
            Mad rep1 = rig.trace.sent(rig.b, Type.REP).get(0);
            assertEquals(rep1.time() + d, estA.timeNanos());
            assertEquals(
                    rep1.time() + T + 2 * d, estB.timeNanos(), "REP resent after one timeout, RTU repeated at once");
            assertEquals(2, rig.trace.sent(rig.b, Type.REP).size());
            assertEquals(2, rig.trace.sent(rig.a, Type.RTU).size());
            assertConnectedOnce(rig, r.pair());
        }
    }

    @Test
    @DisplayName(
            "IBA 11.6.3: data reaching the passive QP (already RTS) before the RTU is received; no COMM_EST, ESTABLISHED by the REP resend")
    void shouldReceiveDataBeforeThePassiveEstablishedEventWhenTheRtuIsLost() {
        try (CmRig rig = rig(205)) {
            Pair p = acceptWithTheRtuLost(rig, 7105, true).pair();
            sendEarly(p);
            long received = rig.now();
            Mad rep1 = rig.trace.sent(rig.b, Type.REP).get(0);
            assertTrue(received < rep1.time() + T, "data arrived before the REP resend");
            assertNull(rig.chB.pollEvent(), "b is not ESTABLISHED before its RTU");
            CmEvent estB = expect(rig.chB, CmEventType.ESTABLISHED);
            assertEquals(rep1.time() + T + 2 * oneWay(rig), estB.timeNanos());
            // rdma_accept moved the QP to RTS before the REP: a QP in RTS raises no COMM_EST (IBA 11.6.3: RTR only)
            assertEquals(List.of(), rig.trace.asyncEvents(AsyncEventType.COMM_EST));
            assertConnectedOnce(rig, p);
        }
    }

    @Test
    @DisplayName(
            "rdma_notify(3): COMM_EST reported by the application establishes a passive side whose RTU is lost, at once and once")
    void shouldEstablishThePassiveSideAtOnceWhenTheApplicationReportsCommEst() {
        try (CmRig rig = rig(206)) {
            Pair p = acceptWithTheRtuLost(rig, 7106, true).pair();
            RcEnd server = p.server();
            sendEarly(p);
            long now = rig.now();
            server.id.notify(AsyncEventType.COMM_EST);
            CmEvent estB = expect(rig.chB, CmEventType.ESTABLISHED);
            assertEquals(now, estB.timeNanos(), "ESTABLISHED at once");
            VerbsException again = assertThrows(VerbsException.class, () -> server.id.notify(AsyncEventType.COMM_EST));
            assertEquals(Errno.EISCONN, again.errno(), "rdma_notify(3): EISCONN once established");
            assertConnectedOnce(rig, p);
            assertEquals(1, rig.trace.sent(rig.b, Type.REP).size(), "no REP resend after ESTABLISHED");
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6 REP Sent: a DREQ before the RTU establishes the connection, then disconnects it; each event once")
    void shouldEstablishThenDisconnectThePassiveSideWhenTheRtuIsLostAndADreqFollows() {
        try (CmRig rig = rig(207)) {
            Pair p = acceptWithTheRtuLost(rig, 7107, false).pair();
            p.client().id.disconnect();
            CmEvent estB = expect(rig.chB, CmEventType.ESTABLISHED);
            CmEvent discB = expect(rig.chB, CmEventType.DISCONNECTED);
            assertEquals(estB.timeNanos(), discB.timeNanos());
            assertEquals(rig.trace.delivered(Type.DREQ).get(0).time(), discB.timeNanos());
            CmEvent discA = expect(rig.chA, CmEventType.DISCONNECTED);
            expect(rig.chA, CmEventType.TIMEWAIT_EXIT);
            expect(rig.chB, CmEventType.TIMEWAIT_EXIT);
            assertEquals(rig.trace.delivered(Type.DREP).get(0).time(), discA.timeNanos());
            rig.assertQuiet();
            assertEquals(1, rig.trace.sent(rig.b, Type.REP).size(), "no REP resend");
            assertEquals(List.of("a:REQ", "b:REP", "a:RTU", "a:DREQ", "b:DREP"), rig.trace.sentTypes(rig.a, rig.b));
            rig.assertTransitions(TO_ERR, p);
        }
    }

    @Test
    @DisplayName("IBA 12.9.6 DREQ Sent: a lost DREQ is resent after one response timeout; each side DISCONNECTED once")
    void shouldResendDreqAfterOneResponseTimeoutWhenTheFirstDreqIsLost() {
        try (CmRig rig = rig(208)) {
            Pair p = rig.connect(7108);
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.DREQ), 1).times(1));
            p.client().id.disconnect();
            assertDisconnectedOnce(rig, p);
            List<Mad> dreqs = rig.trace.sent(rig.a, Type.DREQ);
            assertEquals(2, dreqs.size());
            assertEquals(T, dreqs.get(1).time() - dreqs.get(0).time());
            assertEquals(dreqs.get(0).msg().transactionId, dreqs.get(1).msg().transactionId, "the same DREQ");
            assertEquals(1, rig.trace.sent(rig.b, Type.DREP).size());
        }
    }

    @Test
    @DisplayName(
            "rdma_destroy_id(3), IBA 12.9.6 DREQ Sent: the DREQ of an established id destroyed without a disconnect is"
                    + " resent when lost, so the peer is DISCONNECTED (dat_ep_free(3DAT) of a connected EP; link faults within the"
                    + " retry budget change only timing)")
    void shouldResendTheDreqOfADestroyedIdWhenTheFirstDreqIsLost() {
        try (CmRig rig = rig(290)) {
            Pair p = rig.connect(7190);
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.DREQ), 1).times(1));
            p.client().id.destroyQp();
            p.client().id.destroy();
            expect(rig.chB, CmEventType.DISCONNECTED);
            List<Mad> dreqs = rig.trace.sent(rig.a, Type.DREQ);
            assertEquals(2, dreqs.size(), "the lost DREQ is resent once, then answered");
            assertEquals(T, dreqs.get(1).time() - dreqs.get(0).time(), "resent after one response timeout");
            assertEquals(dreqs.get(0).msg().transactionId, dreqs.get(1).msg().transactionId, "the same DREQ");
            assertEquals(1, dropped(rig, Type.DREQ).size(), "the first DREQ was lost");
            assertEquals(List.of(CmEventType.TIMEWAIT_EXIT), rig.drain(rig.chB));
            assertEquals(1, rig.trace.sent(rig.b, Type.DREP).size(), "b answers the resent DREQ");
            assertEquals(2, rig.trace.sent(rig.a, Type.DREQ).size(), "no resend after the DREP");
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6 TimeWait: a DREQ resent after a lost DREP is answered with a DREP again; each side DISCONNECTED once")
    void shouldAnswerTheResentDreqWhenTheDrepIsLost() {
        try (CmRig rig = rig(209)) {
            Pair p = rig.connect(7109);
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.DREP), 1).times(1));
            long t0 = rig.now();
            p.client().id.disconnect();
            CmEvent db = expect(rig.chB, CmEventType.DISCONNECTED);
            CmEvent da = expect(rig.chA, CmEventType.DISCONNECTED);
            long d = oneWay(rig);
            assertEquals(t0 + d, db.timeNanos());
            assertEquals(t0 + T + 2 * d, da.timeNanos(), "a disconnects on the DREP answering its resent DREQ");
            assertEquals(2, rig.trace.sent(rig.a, Type.DREQ).size());
            assertEquals(2, rig.trace.sent(rig.b, Type.DREP).size());
            assertEquals(
                    List.of(),
                    rig.drain(rig.chA).stream()
                            .filter(t -> t != CmEventType.TIMEWAIT_EXIT)
                            .toList());
            assertEquals(List.of(CmEventType.TIMEWAIT_EXIT), rig.drain(rig.chB));
        }
    }

    // ------------------------------------------------------------------ duplicates

    @Test
    @DisplayName("IBA 12.9.6: a duplicated REQ creates one request: one CONNECT_REQUEST, one REP")
    void shouldCreateOneRequestWhenTheReqIsDuplicated() {
        try (CmRig rig = rig(210)) {
            rig.link().addFault(FaultRule.duplicate(CmTrace.type(Type.REQ), 1).times(1));
            Pair p = rig.connect(7110);
            assertConnectedOnce(rig, p);
            assertEquals(2, rig.trace.delivered(Type.REQ).size());
            // the copy arrives after the application accepted: it is answered with the REP again, and a repeats its RTU
            assertEquals(List.of("a:REQ", "b:REP", "b:REP", "a:RTU", "a:RTU"), rig.trace.sentTypes(rig.a, rig.b));
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6 Established: a duplicated REP is answered with the RTU again, not executed: one ESTABLISHED, no QP transition")
    void shouldRepeatTheRtuWhenTheRepIsDuplicated() {
        try (CmRig rig = rig(211)) {
            rig.link().addFault(FaultRule.duplicate(CmTrace.type(Type.REP), 1).times(1));
            Pair p = rig.connect(7111);
            assertConnectedOnce(rig, p);
            assertEquals(2, rig.trace.delivered(Type.REP).size());
            assertEquals(List.of("a:REQ", "b:REP", "a:RTU", "a:RTU"), rig.trace.sentTypes(rig.a, rig.b));
        }
    }

    @Test
    @DisplayName("IBA 12.9.6 Established: a duplicated RTU is ignored: one ESTABLISHED on b")
    void shouldIgnoreADuplicatedRtu() {
        try (CmRig rig = rig(212)) {
            rig.link().addFault(FaultRule.duplicate(CmTrace.type(Type.RTU), 1).times(1));
            Pair p = rig.connect(7112);
            assertConnectedOnce(rig, p);
            assertEquals(2, rig.trace.delivered(Type.RTU).size());
            assertEquals(List.of("a:REQ", "b:REP", "a:RTU"), rig.trace.sentTypes(rig.a, rig.b));
        }
    }

    @Test
    @DisplayName("IBA 12.9.6 TimeWait: a duplicated DREQ is answered with a second DREP, never disconnected twice")
    void shouldAnswerADuplicatedDreqWithASecondDrep() {
        try (CmRig rig = rig(213)) {
            Pair p = rig.connect(7113);
            rig.link().addFault(FaultRule.duplicate(CmTrace.type(Type.DREQ), 1).times(1));
            p.client().id.disconnect();
            assertDisconnectedOnce(rig, p);
            assertEquals(2, rig.trace.delivered(Type.DREQ).size());
            assertEquals(
                    List.of("a:REQ", "b:REP", "a:RTU", "a:DREQ", "b:DREP", "b:DREP"),
                    rig.trace.sentTypes(rig.a, rig.b));
        }
    }

    @Test
    @DisplayName("IBA 12.9.6: a REQ delayed past its resend arrives at an established connection and is not executed")
    void shouldIgnoreALateCopyOfTheReqAfterEstablishment() {
        try (CmRig rig = rig(214)) {
            rig.link()
                    .addFault(FaultRule.delay(CmTrace.type(Type.REQ), 1, T + T / 2)
                            .times(1));
            Pair p = rig.connect(7114);
            assertConnectedOnce(rig, p);
            List<Mad> reqs = rig.trace.delivered(Type.REQ);
            assertEquals(2, reqs.size());
            assertEquals(T / 2, reqs.get(1).time() - reqs.get(0).time(), "the resent REQ overtook the delayed one");
            assertEquals(1, rig.trace.sent(rig.b, Type.REP).size(), "the late REQ is not answered once established");
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6: a REP delayed past the resends arrives at an established active side: RTU repeated, nothing executed")
    void shouldRepeatTheRtuForALateCopyOfTheRep() {
        try (CmRig rig = rig(215)) {
            rig.link()
                    .addFault(FaultRule.delay(CmTrace.type(Type.REP), 1, T + T / 2)
                            .times(1));
            Pair p = rig.connect(7115);
            assertConnectedOnce(rig, p);
            List<Mad> reps = rig.trace.delivered(Type.REP);
            assertTrue(reps.size() >= 2, reps::toString);
            assertEquals(
                    reps.size(), rig.trace.sent(rig.a, Type.RTU).size(), "every REP delivered is answered by an RTU");
        }
    }

    @Test
    @DisplayName("IBA 12.9.6 TimeWait: a DREQ delayed past its resend is answered with a DREP again; DISCONNECTED once")
    void shouldAnswerALateCopyOfTheDreqInTimewait() {
        try (CmRig rig = rig(216)) {
            Pair p = rig.connect(7116);
            rig.link()
                    .addFault(FaultRule.delay(CmTrace.type(Type.DREQ), 1, T + T / 2)
                            .times(1));
            p.client().id.disconnect();
            assertDisconnectedOnce(rig, p);
            assertEquals(2, rig.trace.delivered(Type.DREQ).size());
            assertEquals(2, rig.trace.sent(rig.b, Type.DREP).size());
        }
    }

    // ------------------------------------------------------------------ every resend lost

    @Test
    @DisplayName(
            "rdma_get_cm_event(3) UNREACHABLE: every REQ lost ends the attempt after (retries + 1) response timeouts, ETIMEDOUT")
    void shouldReportUnreachableAfterRetriesPlusOneTimeoutsWhenEveryReqIsLost() {
        try (CmRig rig = rig(217)) {
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REQ), 1));
            rig.listen(7117);
            RcEnd client = rig.active(7117);
            long t0 = rig.now();
            client.id.connect(ConnParam.defaults());
            CmEvent e = expect(rig.chA, CmEventType.UNREACHABLE);
            assertEquals(t0 + (R + 1) * T, e.timeNanos(), "(retries + 1) x timeout");
            assertEquals(-Errno.ETIMEDOUT.value(), e.status());
            List<Mad> reqs = rig.trace.sent(rig.a, Type.REQ);
            assertEquals(R + 1, reqs.size());
            for (int i = 1; i < reqs.size(); i++) {
                assertEquals(T, reqs.get(i).time() - reqs.get(i - 1).time());
            }
            assertEquals(QpState.ERR, client.qp.state());
            rig.assertQuiet(null, "b never saw a request");
            // the requester tells the passive side it gave up (IBA 12.6.7.2 reason 4, timeout)
            Mad rej = rig.trace.sent(rig.a, Type.REJ).get(0);
            assertEquals(RejectReason.TIMEOUT.code(), rej.msg().reason);
            assertEquals(0, rej.msg().remoteCommId, "a never learnt b's comm id");
            assertEquals(e.timeNanos(), rej.time());
        }
    }

    @Test
    @DisplayName(
            "rdma_get_cm_event(3) CONNECT_ERROR: every REP lost ends the passive attempt after (retries + 1) timeouts from the accept")
    void shouldReportConnectErrorAfterRetriesPlusOneTimeoutsWhenEveryRepIsLost() {
        try (CmRig rig = rig(218)) {
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REP), 1));
            // b learns nothing from a: its own timer decides
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REJ).and(PacketMatcher.from(rig.a)), 1));
            rig.listen(7118);
            RcEnd client = rig.active(7118);
            long t0 = rig.now();
            client.id.connect(ConnParam.defaults());
            RcEnd server = rig.request();
            long accepted = rig.now();
            server.id.accept(null);
            CmEvent ua = expect(rig.chA, CmEventType.UNREACHABLE);
            assertEquals(t0 + (R + 1) * T, ua.timeNanos());
            CmEvent ce = expect(rig.chB, CmEventType.CONNECT_ERROR);
            assertEquals(accepted + (R + 1) * T, ce.timeNanos(), "(retries + 1) x timeout after the REP");
            assertEquals(-Errno.ETIMEDOUT.value(), ce.status());
            assertEquals(QpState.ERR, server.qp.state());
            assertEquals(QpState.ERR, client.qp.state());
            rig.assertQuiet();
            Mad rej = rig.trace.sent(rig.b, Type.REJ).get(0);
            assertEquals(RejectReason.TIMEOUT.code(), rej.msg().reason);
            assertEquals(CmMessage.MSG_REP, rej.msg().messageRejected);
            assertEquals(ce.timeNanos(), rej.time());
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6 REP Sent: the requester's REJ (timeout) after every REP was lost ends the passive attempt: REJECTED")
    void shouldReportRejectedOnThePassiveSideWhenTheRequesterGivesUpAfterTheRep() {
        try (CmRig rig = rig(219)) {
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REP), 1));
            rig.listen(7119);
            RcEnd client = rig.active(7119);
            long t0 = rig.now();
            client.id.connect(ConnParam.defaults());
            RcEnd server = rig.request();
            rig.sched().advanceTime(T / 2); // b accepts late: its own REP timer would end half a timeout after a's
            server.id.accept(null);
            CmEvent ua = expect(rig.chA, CmEventType.UNREACHABLE);
            assertEquals(t0 + (R + 1) * T, ua.timeNanos());
            CmEvent rb = expect(rig.chB, CmEventType.REJECTED);
            assertEquals(RejectReason.TIMEOUT, rb.rejectReason());
            assertEquals(ua.timeNanos() + oneWay(rig), rb.timeNanos(), "b learns at once from a's REJ");
            assertEquals(QpState.ERR, server.qp.state());
            long repsAfter = rig.trace.sent(rig.b, Type.REP).stream()
                    .filter(m -> m.time() > rb.timeNanos())
                    .count();
            assertEquals(0, repsAfter, "no REP resent after the REJ");
            rig.assertQuiet(null, "no CONNECT_ERROR after REJECTED");
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6: a REQ arriving after the passive side gave up is answered with its REJ, never with the stale REP")
    void shouldAnswerALateReqWithTheRejAfterThePassiveSideGaveUp() {
        try (CmRig rig = rig(220)) {
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REP), 1));
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.REJ).and(PacketMatcher.from(rig.a)), 1));
            // the first resend of the REQ is held in the network until after b gave up
            rig.link().addFault(FaultRule.delay(CmTrace.nth(CmTrace.type(Type.REQ), 2), 1, (R + 2) * T));
            RcEnd client = rig.connecting(7120);
            RcEnd server = rig.request();
            server.id.accept(null);
            CmEvent ce = expect(rig.chB, CmEventType.CONNECT_ERROR);
            assertEquals(List.of(), rig.drain(rig.chB));
            List<Mad> late = rig.trace.select(
                    m -> m.event() == PacketEvent.DELIVERED && m.type() == Type.REQ && m.time() > ce.timeNanos());
            assertEquals(1, late.size(), "the delayed REQ arrives after b gave up: " + rig.trace.all());
            List<Mad> answers = rig.trace.select(m -> m.event() == PacketEvent.SENT
                    && m.from(rig.b)
                    && m.time() == late.get(0).time());
            assertEquals(1, answers.size(), answers::toString);
            assertEquals(Type.REJ, answers.get(0).type(), "answered with the REJ b sent when it gave up");
            assertEquals(RejectReason.TIMEOUT.code(), answers.get(0).msg().reason);
        }
    }

    @Test
    @DisplayName(
            "rdma_reject(3), IBA 12.9.6: a REQ resent after its REJ was lost gets the REJ again, even after the rejected "
                    + "id is destroyed; no second CONNECT_REQUEST (dat_cr_reject(3DAT): the request is destroyed)")
    void shouldAnswerAResentReqWithTheRejWhenTheRejectedIdIsDestroyed() {
        try (CmRig rig = rig(222)) {
            rig.link()
                    .addFault(FaultRule.drop(CmTrace.type(Type.REJ).and(PacketMatcher.from(rig.b)), 1)
                            .times(1));
            RcEnd client = rig.connecting(7122);
            CmEvent request = expect(rig.chB, CmEventType.CONNECT_REQUEST);
            request.id().reject("no".getBytes(StandardCharsets.US_ASCII));
            request.id().destroy();
            CmEvent rejected = expect(rig.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.CONSUMER_DEFINED, rejected.rejectReason(), "expected the consumer's reject");
            assertEquals("no", new String(rejected.privateData(), 0, 2, StandardCharsets.US_ASCII));
            assertEquals(List.of("a:REQ", "b:REJ", "a:REQ", "b:REJ"), rig.trace.sentTypes(rig.a, rig.b));
            List<Mad> rejs = rig.trace.sent(rig.b, Type.REJ);
            assertEquals(rejs.get(0).msg().remoteCommId, rejs.get(1).msg().remoteCommId, "the same request refused");
            assertEquals(1, dropped(rig, Type.REJ).size(), "the first REJ was lost");
            assertEquals(QpState.ERR, client.qp.state());
            rig.assertQuiet(null, "b: no second CONNECT_REQUEST for the rejected request");
        }
    }

    @Test
    @DisplayName(
            "IBA 12.9.6 DREQ Sent: every DREQ lost: DISCONNECTED after (retries + 1) timeouts, then timewait; the peer hears nothing")
    void shouldReportDisconnectedAfterRetriesPlusOneTimeoutsWhenEveryDreqIsLost() {
        try (CmRig rig = rig(221)) {
            Pair p = rig.connect(7121);
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.DREQ), 1));
            long t0 = rig.now();
            p.client().id.disconnect();
            CmEvent da = expect(rig.chA, CmEventType.DISCONNECTED);
            assertEquals(t0 + (R + 1) * T, da.timeNanos());
            CmEvent ta = expect(rig.chA, CmEventType.TIMEWAIT_EXIT);
            assertEquals(da.timeNanos() + CONFIG.timewaitNanos(), ta.timeNanos());
            assertEquals(R + 1, rig.trace.sent(rig.a, Type.DREQ).size());
            assertEquals(QpState.ERR, p.client().qp.state());
            assertEquals(QpState.RTS, p.server().qp.state(), "b never learnt of the disconnection");
            rig.assertQuiet();
        }
    }

    // ------------------------------------------------------------------ QP failure

    @Test
    @DisplayName(
            "IBA 12.9.6, rdma_get_cm_event(3): a connected QP that fails (retries exhausted) sends a DREQ; both DISCONNECTED, then TIMEWAIT_EXIT")
    void shouldSendDreqWhenAConnectedQpFails() {
        CmConfig fast = CONFIG.withAckTimeout(8);
        try (CmRig rig = CmRig.create(Backend.DETERMINISTIC, 222, fast)) {
            Pair p = rig.connect(7122, ConnParam.defaults().retryCount(1), null);
            // data requests are lost from now on; CM datagrams still pass
            rig.link()
                    .addFault(FaultRule.drop(PacketMatcher.managementDatagrams().negate(), 1));
            p.client().postSend(1, "lost".getBytes(StandardCharsets.US_ASCII));
            WorkCompletion wc = p.client().next();
            assertNotNull(wc);
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
            rig.expectDisconnection().assertTimewait(fast.timewaitNanos());
            List<Mad> dreqs = rig.trace.sent(rig.a, Type.DREQ);
            assertEquals(1, dreqs.size());
            assertEquals(p.server().qp.qpNum(), dreqs.get(0).msg().remoteQpn);
            assertEquals(qpErrorTime(rig, p.client()), dreqs.get(0).time(), "the DREQ leaves when the QP fails");
            assertEquals(1, rig.trace.sent(rig.b, Type.DREP).size());
            assertEquals(QpState.ERR, p.server().qp.state(), "the peer's CM moves its QP to ERR");
            rig.assertQuiet();
        }
    }

    private static long qpErrorTime(CmRig rig, RcEnd end) {
        return rig.trace.qpChanges().stream()
                .filter(c -> c.qp() == end.qp && c.to() == QpState.ERR)
                .findFirst()
                .orElseThrow()
                .time();
    }

    // ------------------------------------------------------------------ TCP links

    @Test
    @DisplayName(
            "TCP: b's link goes down after the REQ and comes back; the resends complete the connection, once per side")
    void shouldConnectOnceWhenTheTcpLinkGoesDownAndComesBackDuringEstablishment() throws InterruptedException {
        CmConfig cfg = CmConfig.defaults().withResponseTimeout(15, 15).withTimewaitNanos(1_000_000L);
        try (CmRig rig = CmRig.create(Backend.TCP, 223, cfg)) {
            CountDownLatch lost = new CountDownLatch(2);
            rig.fb.addTraceListener(new TraceListener() {
                @Override
                public void onPacket(PacketEvent e, DropReason reason, long time, Device from, Device to, Packet p) {
                    if (e == PacketEvent.DROPPED && reason == DropReason.LINK_DOWN && CmTrace.decode(p) != null) {
                        lost.countDown();
                    }
                }
            });
            RcEnd client = rig.connecting(7123);
            RcEnd server = rig.request();
            rig.tcpLinkOfB().setUp(false);
            server.id.accept(null);
            assertTrue(lost.await(CmRig.WAIT_SECONDS, TimeUnit.SECONDS), "CM datagrams lost while the link is down");
            rig.tcpLinkOfB().setUp(true);
            expect(rig.chA, CmEventType.ESTABLISHED);
            expect(rig.chB, CmEventType.ESTABLISHED);
            client.id.disconnect();
            // the next events are the disconnection's: no second ESTABLISHED was queued before them
            rig.expectDisconnection();
            assertEquals(TO_RTS, rig.trace.transitions(client.qp).subList(0, 3));
            assertEquals(TO_RTS, rig.trace.transitions(server.qp).subList(0, 3));
            assertEquals(4, rig.trace.transitions(client.qp).size());
            assertEquals(4, rig.trace.transitions(server.qp).size());
        }
    }

    @Test
    @DisplayName("TCP: b's link goes down after the REQ for good: a UNREACHABLE, b CONNECT_ERROR, both ETIMEDOUT")
    void shouldReportUnreachableAndConnectErrorWhenTheTcpLinkStaysDownDuringEstablishment() {
        CmConfig cfg = CmConfig.defaults().withResponseTimeout(14, 3);
        try (CmRig rig = CmRig.create(Backend.TCP, 224, cfg)) {
            RcEnd client = rig.connecting(7124);
            RcEnd server = rig.request();
            rig.tcpLinkOfB().setUp(false);
            server.id.accept(null);
            CmEvent ua = expect(rig.chA, CmEventType.UNREACHABLE);
            assertEquals(-Errno.ETIMEDOUT.value(), ua.status());
            CmEvent cb = expect(rig.chB, CmEventType.CONNECT_ERROR);
            assertEquals(-Errno.ETIMEDOUT.value(), cb.status());
            assertEquals(QpState.ERR, client.qp.state());
            assertEquals(QpState.ERR, server.qp.state());
            assertEquals(R + 1, rig.trace.sent(rig.a, Type.REQ).size(), "every REQ resend was made");
            assertEquals(0, rig.chA.pending());
            assertEquals(0, rig.chB.pending());
        }
    }

    @Test
    @DisplayName(
            "TCP, IBA 12.9.6: a passive node that gave up answers the requester's next REQ with a REJ, so the requester never "
                    + "establishes against a dead QP")
    void shouldRejectTheRequesterWhenThePassiveNodeGaveUpFirst() {
        // b gives up after 2 x 4 ms; a resends its REQ every 268 ms
        CmConfig slowA = CmConfig.defaults().withResponseTimeout(16, 15);
        CmConfig fastB = CmConfig.defaults().withResponseTimeout(10, 1);
        try (CmRig rig = CmRig.tcp(225, slowA, fastB, c -> c)) {
            rig.listen(7125);
            // b's REPs are lost, and so is the REJ b sends when it gives up
            rig.tcpLinkOfB().addFault(FaultRule.drop(CmTrace.type(Type.REP), 1).times(fastB.maxCmRetries() + 1));
            rig.tcpLinkOfB().addFault(FaultRule.drop(CmTrace.type(Type.REJ), 1).times(1));
            RcEnd client = rig.active(7125);
            client.id.connect(ConnParam.defaults());
            RcEnd server = rig.request();
            server.id.accept(null);
            expect(rig.chB, CmEventType.CONNECT_ERROR);
            CmEvent e = expect(rig.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.TIMEOUT, e.rejectReason());
            assertEquals(QpState.ERR, client.qp.state());
            assertEquals(0, rig.trace.delivered(Type.REP).size(), "no REP reached a");
        }
    }
}
