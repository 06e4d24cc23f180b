package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmRig.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QpAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.cm.CmRig.Backend;
import io.simrdma.fabric.cm.CmRig.Pair;
import io.simrdma.fabric.cm.CmTrace.Mad;
import io.simrdma.fabric.tcp.RcEnd;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The IB CM message exchange (IBA 12.6, 12.9) behind rdma_connect(3), rdma_accept(3),
 * rdma_reject(3) and rdma_disconnect(3), seen on the wire through a trace listener, and the QP
 * attributes the exchange negotiates (ibv_query_qp(3)). Every scenario runs on the deterministic
 * and the threaded in-process fabric and between two TCP nodes ("one contract, every backend").
 */
class CmProtocolTest {

    /** IB CM defaults, with a 1 ms timewait so the threaded and TCP runs wait little for TIMEWAIT_EXIT. */
    static final CmConfig CONFIG = CmConfig.defaults().withTimewaitNanos(1_000_000L);

    private static final int PS_TCP = 0x0106;

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName("IBA 12.9.6, rdma_connect(3), rdma_disconnect(3): REQ, REP, RTU; DREQ, DREP; each event once per side")
    void shouldExchangeReqRepRtuThenDreqDrepWhenConnectingAndDisconnecting(Backend backend) {
        try (CmRig rig = CmRig.create(backend, 101, CONFIG)) {
            Pair p = rig.connect(7001);
            assertEquals(List.of("a:REQ", "b:REP", "a:RTU"), rig.trace.sentTypes(rig.a, rig.b));
            CmMessage req = rig.trace.sent(rig.a, CmMessage.Type.REQ).get(0).msg();
            CmMessage rep = rig.trace.sent(rig.b, CmMessage.Type.REP).get(0).msg();
            CmMessage rtu = rig.trace.sent(rig.a, CmMessage.Type.RTU).get(0).msg();
            assertEquals((long) PS_TCP << 16 | 7001, req.serviceId, "service ID = port space << 16 | port (rdma_cm)");
            assertEquals(p.client().qp.qpNum(), req.localQpn);
            assertEquals(rig.a.guid(), req.localCaGuid);
            assertNotEquals(0, req.localCommId);
            assertEquals(req.localCommId, rep.remoteCommId, "REP answers the REQ's comm id");
            assertNotEquals(0, rep.localCommId);
            assertEquals(p.server().qp.qpNum(), rep.localQpn);
            assertEquals(req.transactionId, rep.transactionId);
            assertEquals(req.localCommId, rtu.localCommId);
            assertEquals(rep.localCommId, rtu.remoteCommId);

            // the connection carries data
            p.server().postRecv(1);
            p.client().postSend(2, "ping".getBytes(StandardCharsets.US_ASCII));
            WorkCompletion recv = p.server().next();
            assertNotNull(recv, "no receive completion");
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertEquals(WcOpcode.RECV, recv.opcode());
            assertEquals(4, recv.byteLen());
            WorkCompletion send = p.client().next();
            assertNotNull(send, "no send completion");
            assertEquals(WcStatus.SUCCESS, send.status());

            p.client().id.disconnect();
            CmRig.Disconnection d = rig.expectDisconnection();
            assertEquals(List.of("a:REQ", "b:REP", "a:RTU", "a:DREQ", "b:DREP"), rig.trace.sentTypes(rig.a, rig.b));
            CmMessage dreq = rig.trace.sent(rig.a, CmMessage.Type.DREQ).get(0).msg();
            CmMessage drep = rig.trace.sent(rig.b, CmMessage.Type.DREP).get(0).msg();
            assertEquals(req.localCommId, dreq.localCommId);
            assertEquals(rep.localCommId, dreq.remoteCommId);
            assertEquals(p.server().qp.qpNum(), dreq.remoteQpn, "DREQ names the remote QPN (IBA 12.6.10)");
            assertEquals(rep.localCommId, drep.localCommId);
            assertEquals(req.localCommId, drep.remoteCommId);
            assertEquals(dreq.transactionId, drep.transactionId, "DREP answers the DREQ's transaction");
            assertEquals(QpState.ERR, p.client().qp.state());
            assertEquals(QpState.ERR, p.server().qp.state());
            if (backend.deterministic()) {
                d.assertTimewait(CONFIG.timewaitNanos());
            }
            rig.assertQuiet("a: no further events", "b: no further events");
            assertEquals(5, rig.trace.sent().size(), "no CM message resent: " + rig.trace.sent());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName(
            "rdma_reject(3), IBA 12.6.7: a consumer reject is a REJ with reason 28 and the private data; the active QP goes to ERR")
    void shouldSendRejWithConsumerDefinedReasonWhenTheListenerRejects(Backend backend) {
        try (CmRig rig = CmRig.create(backend, 102, CONFIG)) {
            RcEnd client = rig.connecting(7002, ConnParam.withPrivateData("hello".getBytes(StandardCharsets.US_ASCII)));
            CmEvent request = expect(rig.chB, CmEventType.CONNECT_REQUEST);
            byte[] why = "not today".getBytes(StandardCharsets.US_ASCII);
            request.id().reject(why);

            CmEvent rejected = expect(rig.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.CONSUMER_DEFINED.code(), rejected.status());
            assertEquals(RejectReason.CONSUMER_DEFINED, rejected.rejectReason());
            byte[] got = rejected.privateData();
            assertEquals(CmId.MAX_REJECT_PRIVATE_DATA, got.length, "REJ private data is zero-padded to 148 bytes");
            assertArrayEquals(why, Arrays.copyOf(got, why.length));
            assertEquals(QpState.ERR, client.qp.state(), "a rejected connection's QP is moved to ERR");

            assertEquals(List.of("a:REQ", "b:REJ"), rig.trace.sentTypes(rig.a, rig.b));
            CmMessage req = rig.trace.sent(rig.a, CmMessage.Type.REQ).get(0).msg();
            CmMessage rej = rig.trace.sent(rig.b, CmMessage.Type.REJ).get(0).msg();
            assertEquals(RejectReason.CONSUMER_DEFINED.code(), rej.reason);
            assertEquals(CmMessage.MSG_REQ, rej.messageRejected, "the REJ rejects the REQ");
            assertEquals(req.localCommId, rej.remoteCommId);
            assertNotEquals(0, rej.localCommId, "the rejecting id has a comm id of its own");
            assertEquals(req.transactionId, rej.transactionId);
            rig.assertQuiet("a: no further events", "b: no event after its own reject");
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName(
            "IBA 12.6.7.2: a REQ for a service nobody listens on is rejected by the remote CM, reason 8 (invalid service ID)")
    void shouldSendRejWithInvalidServiceIdWhenNobodyListens(Backend backend) {
        try (CmRig rig = CmRig.create(backend, 103, CONFIG)) {
            RcEnd client = rig.active(7003);
            client.id.connect(ConnParam.defaults());
            CmEvent rejected = expect(rig.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_SERVICE_ID, rejected.rejectReason());
            assertEquals(8, rejected.status());
            assertEquals(QpState.ERR, client.qp.state());

            assertEquals(List.of("a:REQ", "b:REJ"), rig.trace.sentTypes(rig.a, rig.b));
            CmMessage req = rig.trace.sent(rig.a, CmMessage.Type.REQ).get(0).msg();
            CmMessage rej = rig.trace.sent(rig.b, CmMessage.Type.REJ).get(0).msg();
            assertEquals(8, rej.reason);
            assertEquals(0, rej.localCommId, "no id on b: the CM itself rejects, without a comm id");
            assertEquals(req.localCommId, rej.remoteCommId);
            assertEquals(CmMessage.MSG_REQ, rej.messageRejected);
            rig.assertQuiet(null, "b has no listener and reports nothing");
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName(
            "rdma_connect(3), rdma_accept(3), ibv_query_qp(3): both QPs RESET->INIT->RTR->RTS once, with the PSNs, QPNs, "
                    + "read limits and retry counts of the REQ and REP")
    void shouldMoveBothQpsToRtsWithTheNegotiatedAttributesWhenEstablished(Backend backend) {
        try (CmRig rig = CmRig.create(backend, 104, CONFIG)) {
            RcEnd client = rig.connecting(
                    7004,
                    ConnParam.defaults()
                            .responderResources(4)
                            .initiatorDepth(2)
                            .retryCount(5)
                            .rnrRetryCount(3));
            CmEvent request = expect(rig.chB, CmEventType.CONNECT_REQUEST);
            // rdma_get_cm_event(3): the request reports the peer's initiator depth as our responder resources and v.v.
            assertEquals(2, request.param().responderResources());
            assertEquals(4, request.param().initiatorDepth());
            assertEquals(5, request.param().retryCount());
            assertEquals(3, request.param().rnrRetryCount());
            RcEnd server = new RcEnd(request.id());
            server.id.accept(
                    ConnParam.defaults().responderResources(2).initiatorDepth(3).rnrRetryCount(6));
            CmEvent estA = expect(rig.chA, CmEventType.ESTABLISHED);
            CmEvent estB = expect(rig.chB, CmEventType.ESTABLISHED);
            assertEquals(3, estA.param().responderResources(), "a accepts as many reads as b will issue");
            assertEquals(2, estA.param().initiatorDepth());
            assertEquals(2, estB.param().responderResources());
            assertEquals(3, estB.param().initiatorDepth());

            CmMessage req = rig.trace.sent(rig.a, CmMessage.Type.REQ).get(0).msg();
            CmMessage rep = rig.trace.sent(rig.b, CmMessage.Type.REP).get(0).msg();
            assertEquals(4, req.responderResources);
            assertEquals(2, req.initiatorDepth);
            assertEquals(2, rep.responderResources);
            assertEquals(3, rep.initiatorDepth);
            QpAttr qa = client.qp.query();
            QpAttr qb = server.qp.query();
            assertEquals(QpState.RTS, qa.state());
            assertEquals(QpState.RTS, qb.state());
            // IBA 12.7.23: the REQ's starting PSN is the active sq_psn and the passive rq_psn; the REP's the reverse
            assertEquals(req.startingPsn, qa.sqPsn(), "a's sq_psn is the REQ's starting PSN");
            assertEquals(req.startingPsn, qb.rqPsn(), "b's rq_psn is the REQ's starting PSN");
            assertEquals(rep.startingPsn, qb.sqPsn(), "b's sq_psn is the REP's starting PSN");
            assertEquals(rep.startingPsn, qa.rqPsn(), "a's rq_psn is the REP's starting PSN");
            assertEquals(server.qp.qpNum(), qa.destQpn());
            assertEquals(client.qp.qpNum(), qb.destQpn());
            assertEquals(Mtu.MTU_4096, qa.pathMtu());
            assertEquals(Mtu.MTU_4096, qb.pathMtu());
            assertEquals(Mtu.MTU_4096.code(), req.pathMtu);
            // read/atomic limits: what a side issues never exceeds what the other accepts
            assertEquals(2, qa.maxRdAtomic(), "a's initiator depth");
            assertEquals(3, qa.maxDestRdAtomic(), "a accepts b's initiator depth");
            assertEquals(3, qb.maxRdAtomic(), "b's initiator depth");
            assertEquals(2, qb.maxDestRdAtomic(), "b's responder resources");
            assertTrue(qa.maxRdAtomic() <= qb.maxDestRdAtomic() && qb.maxRdAtomic() <= qa.maxDestRdAtomic());
            // retry_count of the REQ serves both QPs; rnr_retry_count is what the peer asked for (rdma_accept(3))
            assertEquals(5, qa.retryCnt());
            assertEquals(5, qb.retryCnt());
            assertEquals(6, qa.rnrRetry(), "a retries RNR as often as b's REP asked");
            assertEquals(3, qb.rnrRetry(), "b retries RNR as often as a's REQ asked");
            assertEquals(CONFIG.ackTimeout(), qa.timeout());
            assertEquals(CONFIG.ackTimeout(), qb.timeout());
            assertEquals(CONFIG.minRnrTimer(), qa.minRnrTimer());
            assertEquals(CONFIG.minRnrTimer(), qb.minRnrTimer());
            assertTrue(
                    qa.accessFlags()
                            .containsAll(
                                    List.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC)),
                    "responder resources > 0 allow remote reads: " + qa.accessFlags());
            assertTrue(
                    qb.accessFlags()
                            .containsAll(
                                    List.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC)),
                    qb.accessFlags().toString());
            rig.assertTransitions(CmRig.TO_RTS, new Pair(client, server));
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Backend.class,
            names = {"DETERMINISTIC", "THREADED"})
    @DisplayName("rdma_resolve_route(3): the path MTU is the smaller active MTU of the two ports; both QPs use it")
    void shouldUseTheSmallerPortMtuAsPathMtuWhenThePassivePortIsSmaller(Backend backend) {
        try (CmRig rig = CmRig.create(backend, 105, CONFIG, c -> c.maxMtu(Mtu.MTU_1024))) {
            Pair p = rig.connect(7005);
            assertEquals(
                    Mtu.MTU_1024.code(),
                    rig.trace.sent(rig.a, CmMessage.Type.REQ).get(0).msg().pathMtu);
            assertEquals(Mtu.MTU_1024, p.client().qp.query().pathMtu());
            assertEquals(Mtu.MTU_1024, p.server().qp.query().pathMtu());
        }
    }

    @Test
    @DisplayName("IBA 12.6.7.2 reason 26: a TCP node whose port MTU is below the REQ's path MTU rejects the request")
    void shouldRejectWithInvalidPathMtuWhenTheTcpPeerPortMtuIsSmaller() {
        // over TCP the active side cannot learn the peer's port MTU when it resolves the route
        try (CmRig rig = CmRig.create(Backend.TCP, 108, CONFIG, c -> c.maxMtu(Mtu.MTU_1024))) {
            RcEnd client = rig.connecting(7008);
            CmEvent rejected = expect(rig.chA, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_PATH_MTU, rejected.rejectReason());
            assertEquals(QpState.ERR, client.qp.state());
            assertEquals(
                    Mtu.MTU_4096.code(),
                    rig.trace.sent(rig.a, CmMessage.Type.REQ).get(0).msg().pathMtu);
            assertEquals(0, rig.chB.pending(), "no CONNECT_REQUEST for a connection whose QPs could not agree");
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName(
            "IBA 12.9.6: DREQs that cross are each answered; each side reports DISCONNECTED once, then TIMEWAIT_EXIT")
    void shouldDisconnectEachSideOnceWhenBothDisconnectAtOnce(Backend backend) {
        try (CmRig rig = CmRig.create(backend, 106, CONFIG)) {
            Pair p = rig.connect(7006);
            p.client().id.disconnect();
            p.server().id.disconnect();
            rig.expectDisconnection();
            rig.assertQuiet();
            assertEquals(1, rig.trace.sent(rig.a, CmMessage.Type.DREQ).size());
            // on the real-time backends a's DREQ may reach b before b's own disconnect, which then sends nothing
            assertTrue(rig.trace.sent(rig.b, CmMessage.Type.DREQ).size() <= 1);
            if (backend.deterministic()) {
                // both DREQs left before either arrived: each side answers the other's
                assertEquals(1, rig.trace.sent(rig.b, CmMessage.Type.DREQ).size());
                assertEquals(1, rig.trace.sent(rig.a, CmMessage.Type.DREP).size());
                assertEquals(1, rig.trace.sent(rig.b, CmMessage.Type.DREP).size());
            }
            rig.assertTransitions(CmRig.TO_ERR, p);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    @DisplayName("rdma_disconnect(3) by the passive side: DREQ from b, DREP from a, DISCONNECTED on both")
    void shouldSendDreqFromThePassiveSideWhenItDisconnects(Backend backend) {
        try (CmRig rig = CmRig.create(backend, 107, CONFIG)) {
            Pair p = rig.connect(7007);
            p.server().id.disconnect();
            expect(rig.chB, CmEventType.DISCONNECTED);
            expect(rig.chA, CmEventType.DISCONNECTED);
            expect(rig.chB, CmEventType.TIMEWAIT_EXIT);
            expect(rig.chA, CmEventType.TIMEWAIT_EXIT);
            assertEquals(List.of("a:REQ", "b:REP", "a:RTU", "b:DREQ", "a:DREP"), rig.trace.sentTypes(rig.a, rig.b));
            Mad dreq = rig.trace.sent(rig.b, CmMessage.Type.DREQ).get(0);
            assertEquals(p.client().qp.qpNum(), dreq.msg().remoteQpn);
            assertEquals(QpState.ERR, p.client().qp.state());
            assertEquals(QpState.ERR, p.server().qp.state());
        }
    }
}
