package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmRig.TO_RTS;
import static io.simrdma.fabric.cm.CmRig.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.cm.CmMessage.Type;
import io.simrdma.fabric.cm.CmRig.Backend;
import io.simrdma.fabric.cm.CmTrace.Mad;
import io.simrdma.fabric.tcp.RcEnd;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The IB CM's Message Receipt Acknowledgement (IBA 12.6.6, 12.9.6 "MRA Rcvd (REQ)"): a listener
 * whose application has not accepted yet answers a resent REQ with an MRA, as the kernel's IB CM
 * does for rdma_cm (it prepares the MRA when it reports the request and sends it for a duplicate
 * REQ), and the requester then waits the MRA's service timeout plus one response timeout before
 * each further resend, with the retries it has left. So a slow accept connects instead of ending
 * in UNREACHABLE after the plain retries, and a listener that never answers still ends the attempt.
 *
 * <p>The exact-time cases run on the deterministic scheduler; the late accept runs on every
 * backend, the MRA crossing a TCP link like any CM message.
 */
class CmMraTest {

    /** Response timeout 4096 ns x 2^10 = 4.19 ms, 3 resends; MRA service timeout 4096 ns x 2^16 = 268 ms. */
    static final CmConfig CONFIG = CmConfig.defaults()
            .withResponseTimeout(10, 3)
            .withTimewaitNanos(1_000_000L)
            .withMraServiceTimeout(16);

    static final long T = CONFIG.responseTimeoutNanos();
    static final long S = CONFIG.mraServiceTimeoutNanos();
    static final int R = CONFIG.maxCmRetries();

    private static CmRig rig(long seed) {
        return CmRig.create(Backend.DETERMINISTIC, seed, CONFIG);
    }

    private static List<Mad> delivered(CmRig rig, Type type) {
        return rig.trace.delivered(type);
    }

    @Test
    @DisplayName("IBA 12.6.6, 12.9.6 MRA Rcvd (REQ): a REQ resent while the listener has not accepted is answered with "
            + "an MRA naming the REQ; the requester resends only after service timeout + response timeout, and a late "
            + "accept establishes both sides")
    void shouldWaitTheServiceTimeoutAfterAnMraAndEstablishWhenTheListenerAcceptsLate() {
        try (CmRig rig = rig(301)) {
            RcEnd client = rig.connecting(7301);
            RcEnd server = rig.request();
            assertFalse(client.id.requestAcknowledged(), "nothing acknowledged before the resend");

            rig.await(() -> !delivered(rig, Type.MRA).isEmpty(), "the MRA");
            List<Mad> reqs = rig.trace.sent(rig.a, Type.REQ);
            assertEquals(2, reqs.size(), "one resend before the MRA: " + reqs);
            assertEquals(T, reqs.get(1).time() - reqs.get(0).time(), "resent after one response timeout");
            CmMessage req = reqs.get(0).msg();
            Mad mra = rig.trace.sent(rig.b, Type.MRA).get(0);
            assertEquals(delivered(rig, Type.REQ).get(1).time(), mra.time(), "the resent REQ is answered at once");
            assertEquals(CmMessage.MSG_REQ, mra.msg().messageRejected, "MessageMRAed: the REQ");
            assertEquals(CONFIG.mraServiceTimeout(), mra.msg().serviceTimeout);
            assertEquals(req.localCommId, mra.msg().remoteCommId);
            assertEquals(server.id.connection.localCommId, mra.msg().localCommId);
            assertEquals(req.transactionId, mra.msg().transactionId, "the MRA answers the REQ's transaction");
            assertTrue(client.id.requestAcknowledged(), "CmId.requestAcknowledged after the MRA");

            // Without the MRA a would give up at (R + 1) x T; it waits S + T from the MRA for its next resend.
            long mraAt = delivered(rig, Type.MRA).get(0).time();
            rig.sched().advanceTime(mraAt + S + T - 1 - rig.now());
            assertNull(rig.chA.pollEvent(), "no UNREACHABLE while the MRA's service timeout runs");
            assertEquals(2, rig.trace.sent(rig.a, Type.REQ).size(), "no resend before S + T");
            rig.sched().advanceTime(1);
            assertEquals(3, rig.trace.sent(rig.a, Type.REQ).size());
            assertEquals(mraAt + S + T, rig.trace.sent(rig.a, Type.REQ).get(2).time(), "resent S + T after the MRA");
            rig.await(() -> rig.trace.sent(rig.b, Type.MRA).size() == 2, "the MRA answering the third REQ");

            server.id.accept(null);
            expect(rig.chA, CmEventType.ESTABLISHED);
            expect(rig.chB, CmEventType.ESTABLISHED);
            assertEquals(
                    List.of("a:REQ", "a:REQ", "b:MRA", "a:REQ", "b:MRA", "b:REP", "a:RTU"),
                    rig.trace.sentTypes(rig.a, rig.b));
            rig.assertQuiet("a: one ESTABLISHED only", "b: one ESTABLISHED only");
            assertEquals(TO_RTS, rig.trace.transitions(client.qp));
            assertEquals(TO_RTS, rig.trace.transitions(server.qp));
        }
    }

    @Test
    @DisplayName(
            "IBA 12.6.6, rdma_get_cm_event(3) UNREACHABLE: an MRA does not renew the retries: a listener that never "
                    + "answers ends the attempt R x (S + T) after the MRA, every resend answered by an MRA; the REJ (timeout) "
                    + "names the passive comm ID, and the passive side gets REJECTED")
    void shouldEndUnreachableAfterTheRetriesLeftWhenTheListenerNeverAnswers() {
        try (CmRig rig = rig(302)) {
            RcEnd client = rig.connecting(7302);
            RcEnd server = rig.request();
            rig.await(() -> !delivered(rig, Type.MRA).isEmpty(), "the MRA");
            long mraAt = delivered(rig, Type.MRA).get(0).time();

            CmEvent e = expect(rig.chA, CmEventType.UNREACHABLE);
            assertEquals(mraAt + R * (S + T), e.timeNanos(), "the R - 1 resends left, S + T apart, then give up");
            assertEquals(-Errno.ETIMEDOUT.value(), e.status());
            assertEquals(QpState.ERR, client.qp.state());
            List<Mad> reqs = rig.trace.sent(rig.a, Type.REQ);
            assertEquals(R + 1, reqs.size(), "the first REQ and R resends in all");
            for (int i = 3; i < reqs.size(); i++) {
                assertEquals(S + T, reqs.get(i).time() - reqs.get(i - 1).time());
            }
            assertEquals(R, rig.trace.sent(rig.b, Type.MRA).size(), "every resend is answered by an MRA");

            rig.await(() -> !rig.trace.sent(rig.a, Type.REJ).isEmpty(), "a's REJ");
            Mad rej = rig.trace.sent(rig.a, Type.REJ).get(0);
            assertEquals(e.timeNanos(), rej.time(), "a tells b it gave up as it gives up");
            assertEquals(RejectReason.TIMEOUT.code(), rej.msg().reason);
            assertEquals(server.id.connection.localCommId, rej.msg().remoteCommId, "a learnt b's comm ID from the MRA");
            CmEvent gone = expect(rig.chB, CmEventType.REJECTED);
            assertEquals(RejectReason.TIMEOUT, gone.rejectReason());
            assertEquals(server.id, gone.id());
            rig.assertQuiet();
        }
    }

    @Test
    @DisplayName("IBA 12.6.6, 12.9.6: an MRA is a CM message like the others: a lost MRA leaves the requester on its "
            + "response timeout, and the next resend earns a new MRA")
    void shouldResendAfterOneResponseTimeoutAndEarnANewMraWhenTheMraIsLost() {
        try (CmRig rig = rig(303)) {
            rig.link().addFault(FaultRule.drop(CmTrace.type(Type.MRA), 1).times(1));
            RcEnd client = rig.connecting(7303);
            RcEnd server = rig.request();
            rig.await(() -> !delivered(rig, Type.MRA).isEmpty(), "an MRA delivered");
            List<Mad> dropped = rig.trace.select(m -> m.event() == PacketEvent.DROPPED && m.type() == Type.MRA);
            assertEquals(1, dropped.size(), "the first MRA was lost: " + rig.trace.all());
            List<Mad> reqs = rig.trace.sent(rig.a, Type.REQ);
            assertEquals(3, reqs.size(), "resent twice, one response timeout apart: " + reqs);
            assertEquals(T, reqs.get(2).time() - reqs.get(1).time());
            assertTrue(client.id.requestAcknowledged());

            long mraAt = delivered(rig, Type.MRA).get(0).time();
            rig.sched().advanceTime(mraAt + S + T - 1 - rig.now());
            assertEquals(3, rig.trace.sent(rig.a, Type.REQ).size(), "the MRA that arrived stretched the wait");
            server.id.accept(null);
            expect(rig.chA, CmEventType.ESTABLISHED);
            expect(rig.chB, CmEventType.ESTABLISHED);
            rig.assertQuiet();
        }
    }

    @Test
    @DisplayName("IBA 12.6.6: a request accepted before the requester resends is never MRAed (ib_cm's delayed MRA)")
    void shouldSendNoMraWhenTheListenerAcceptsBeforeTheResend() {
        try (CmRig rig = rig(304)) {
            RcEnd client = rig.connecting(7304);
            RcEnd server = rig.request();
            server.id.accept(null);
            expect(rig.chA, CmEventType.ESTABLISHED);
            expect(rig.chB, CmEventType.ESTABLISHED);
            rig.assertQuiet();
            assertEquals(List.of("a:REQ", "b:REP", "a:RTU"), rig.trace.sentTypes(rig.a, rig.b));
            assertFalse(client.id.requestAcknowledged());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName("IBA 12.6.6 on every backend: a listener that accepts after the requester's plain retries would have "
            + "run out ((R + 1) x T) still connects: the MRAs cross the link and both sides report ESTABLISHED")
    void shouldEstablishWhenTheListenerAcceptsAfterThePlainRetriesWouldHaveRunOut(Backend backend) {
        // Plain retries end after 9 x 33.5 ms = 302 ms; the MRA asks for 537 ms more before each resend.
        CmConfig late = CmConfig.defaults()
                .withResponseTimeout(13, 8)
                .withTimewaitNanos(1_000_000L)
                .withMraServiceTimeout(17);
        assertTrue(late.mraServiceTimeoutNanos() > (late.maxCmRetries() + 1) * late.responseTimeoutNanos());
        try (CmRig rig = CmRig.create(backend, 305, late)) {
            RcEnd client = rig.connecting(7305);
            RcEnd server = rig.request();
            // The second MRA answers a resend made a service timeout after the first: the plain give-up is past.
            rig.await(() -> delivered(rig, Type.MRA).size() >= 2, "two MRAs delivered to a");
            assertTrue(client.id.requestAcknowledged());
            server.id.accept(null);
            expect(rig.chA, CmEventType.ESTABLISHED);
            expect(rig.chB, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, client.qp.state());
            assertEquals(QpState.RTS, server.qp.state());
            List<String> sent = rig.trace.sentTypes(rig.a, rig.b);
            assertEquals(List.of("b:REP", "a:RTU"), sent.subList(sent.size() - 2, sent.size()), sent::toString);
            assertFalse(sent.contains("a:REJ"), "a never gave up: " + sent);
        }
    }

    @Test
    @DisplayName(
            "CmConfig: the MRA service timeout is a 5-bit exponent (IBA 12.6.6 ServiceTimeout); 4.096 us x 2^value")
    void shouldRefuseAnMraServiceTimeoutOutsideFiveBits() {
        assertThrows(IllegalArgumentException.class, () -> CmConfig.defaults().withMraServiceTimeout(32));
        assertThrows(IllegalArgumentException.class, () -> CmConfig.defaults().withMraServiceTimeout(-1));
        assertEquals(24, CmConfig.defaults().mraServiceTimeout(), "the kernel IB CM's value for rdma_cm");
        assertEquals(4096L << 24, CmConfig.defaults().mraServiceTimeoutNanos());
    }
}
