package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.expectConnection;
import static io.simrdma.provider.DatPair.next;
import static io.simrdma.provider.EventTestSupport.completion;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EpParamField;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EpStatus;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.NamedAttribute;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.RmrBindCompletionEvent;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import io.simrdma.dat.Timeout;
import io.simrdma.provider.EpStateTable.Kind;
import io.simrdma.provider.EpStateTable.Rule;
import io.simrdma.provider.EpStates.Subject;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of {@link EpStateTable}, on a real endpoint: for each of the nine states and each of
 * the 22 operations, an endpoint is driven into the state through the DAT API ({@link EpStates}),
 * the real operation runs, and the test asserts what the row says: for REFUSE, DAT_INVALID_STATE
 * with the subtype naming the state ({@link EpStateTable#subtype}) and nothing changed; for NOOP,
 * nothing changed; for FLUSH, a flushed completion on the right EVD; for ALLOW, the next state and
 * the events on the EVD the man page names. Every row runs on the deterministic and on the
 * threaded fabric.
 *
 * <p>The SILENT / CONFLICT choices the table records (ep-state-machine.md section 7) have their
 * own tests at the end, each naming its choice id and man page.
 */
@DisplayName(
        "EpStateTable: the DAT endpoint state machine (dat_ep_*(3DAT), dat_rsp_create, dat_cr_accept, dat_cr_reject, dat_rmr_bind)")
class EpStateTableTest {

    private static final long COOKIE = 0xC0FFEE;
    private static final long RECV_COOKIE = 0xEC;
    /** A transport- or provider-specific attribute a MODIFY_SPECIFIC_ATTRIBUTES row sets. */
    private static final NamedAttribute SPECIFIC = new NamedAttribute("simrdma.test", "1");

    /** The man pages of ../shared/spec/dat that a row may cite. */
    private static final Set<String> MAN_PAGES = Set.of(
            "dat_cr_accept",
            "dat_cr_handoff",
            "dat_cr_query",
            "dat_cr_reject",
            "dat_ep_connect",
            "dat_ep_create",
            "dat_ep_create_with_srq",
            "dat_ep_disconnect",
            "dat_ep_dup_connect",
            "dat_ep_free",
            "dat_ep_get_status",
            "dat_ep_modify",
            "dat_ep_post_rdma_read",
            "dat_ep_post_rdma_write",
            "dat_ep_post_recv",
            "dat_ep_post_send",
            "dat_ep_query",
            "dat_ep_recv_query",
            "dat_ep_reset",
            "dat_ep_set_watermark",
            "dat_psp_create",
            "dat_psp_create_any",
            "dat_psp_free",
            "dat_rmr_bind",
            "dat_rsp_create",
            "dat_rsp_free",
            "dat_srq_post_recv");

    /** dat_ep_query(3DAT): the states in which remote_ia_address and remote_port_qual are valid. */
    private static final Set<EndpointState> REMOTE_VALID = EnumSet.of(
            EndpointState.PASSIVE_CONNECTION_PENDING,
            EndpointState.ACTIVE_CONNECTION_PENDING,
            EndpointState.TENTATIVE_CONNECTION_PENDING,
            EndpointState.DISCONNECT_PENDING,
            EndpointState.COMPLETION_PENDING,
            EndpointState.CONNECTED);

    /** dat_ep_query(3DAT): the states in which local_port_qual is "valid only" (C6: it "might be" in others). */
    private static final Set<EndpointState> LOCAL_VALID = EnumSet.of(
            EndpointState.PASSIVE_CONNECTION_PENDING,
            EndpointState.ACTIVE_CONNECTION_PENDING,
            EndpointState.DISCONNECT_PENDING,
            EndpointState.COMPLETION_PENDING,
            EndpointState.CONNECTED);

    /** The RMR of an RMR_BIND row. */
    private RemoteMemoryRegion rmr;
    /** The qualifier of an RSP_CREATE row. */
    private long rspQual;

    // ====================================================================== the table itself

    @Test
    @DisplayName("the table has a row for each of the nine states x 22 operations, each naming its man page")
    void shouldHaveARowNamingItsManPageForEveryStateAndOperation() {
        Map<EndpointState, Map<EpOp, Rule>> rows = EpStateTable.rows();
        assertEquals(EnumSet.copyOf(EpStates.NINE), rows.keySet(), "the nine states of ep-state-machine.md section 1");
        assertEquals(22, EpOp.values().length);
        Pattern choiceId = Pattern.compile("^[SC]\\d+ (SILENT|CONFLICT)\\b.*");
        for (EndpointState s : EpStates.NINE) {
            assertEquals(EnumSet.allOf(EpOp.class), rows.get(s).keySet(), () -> "operations of " + s);
            for (EpOp op : EpOp.values()) {
                Rule r = EpStateTable.rule(s, op);
                String where = s + " x " + op;
                assertNotNull(r.kind(), where);
                assertNotNull(r.source(), where);
                assertFalse(r.source().isBlank(), where);
                for (String page : r.source().split(",\\s*")) {
                    assertTrue(MAN_PAGES.contains(page), () -> where + " cites " + page + ", which is no DAT man page");
                }
                assertNotNull(r.events(), where);
                if (r.kind() != Kind.ALLOW) {
                    assertNull(r.next(), () -> where + ": only an allowed operation moves the endpoint");
                } else if (r.next() != null) {
                    assertTrue(rows.containsKey(r.next()), where);
                }
                if (r.choice() != null
                        && (r.choice().contains("SILENT") || r.choice().contains("CONFLICT"))) {
                    assertTrue(
                            choiceId.matcher(r.choice()).matches(),
                            () -> where
                                    + ": a SILENT/CONFLICT choice starts with its ep-state-machine.md section 7 id: "
                                    + r.choice());
                }
            }
        }
    }

    @Test
    @DisplayName("each state has its own DAT_INVALID_STATE_EP_* subtype (dat_error.h)")
    void shouldNameEachStateWithItsOwnInvalidStateSubtype() {
        Set<DatReturnSubtype> seen = new HashSet<>();
        for (EndpointState s : EpStates.NINE) {
            DatReturnSubtype t = EpStateTable.subtype(s);
            assertTrue(t.name().startsWith("INVALID_STATE_EP_"), t::name);
            assertTrue(seen.add(t), () -> "two states share " + t);
        }
        assertEquals(
                DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING, EpStateTable.subtype(EndpointState.COMPLETION_PENDING));
        assertEquals(
                DatReturnSubtype.INVALID_STATE_EP_DISCPENDING, EpStateTable.subtype(EndpointState.DISCONNECT_PENDING));
    }

    // ====================================================================== every row on a real endpoint

    static Stream<Arguments> rows() {
        return ConnSupport.everyMode(EpStates.NINE.stream()
                .flatMap(s -> Stream.of(EpOp.values()).map(op -> Arguments.of(s, op)))
                .toList());
    }

    @ParameterizedTest(name = "[{0}] {1} x {2}")
    @MethodSource("rows")
    @DisplayName("each (state, operation) row holds on a real endpoint")
    void shouldDoWhatItsRowSaysWhenTheOperationRunsInTheState(DatPair.Mode mode, EndpointState state, EpOp op) {
        Rule rule = EpStateTable.rule(state, op);
        try (DatPair pair = DatPair.open(mode)) {
            Subject s = new Subject(pair);
            if (op == EpOp.DUP_CONNECT) {
                s.prepareDupSource();
            }
            if ((op == EpOp.CR_ACCEPT || op == EpOp.CR_REJECT) && !ownRequest(state)) {
                s.prepareForeignRequest();
            }
            s.driveTo(state);
            switch (rule.kind()) {
                case REFUSE -> refused(s, op, rule);
                case NOOP -> noop(s, op, rule);
                case FLUSH -> flushed(s, op, rule);
                case ALLOW -> allowed(s, op, rule);
                default -> fail("unknown kind " + rule.kind());
            }
        }
    }

    private static boolean ownRequest(EndpointState s) {
        return s == EndpointState.PASSIVE_CONNECTION_PENDING || s == EndpointState.TENTATIVE_CONNECTION_PENDING;
    }

    /** The observable state of an endpoint: what a refused or no-op operation must leave as it was. */
    private record Snapshot(EpStatus status, EpRecvInfo recv, EpParams params) {
        static Snapshot of(Endpoint ep) {
            return new Snapshot(ep.status(), ep.recvQuery(), ep.query());
        }
    }

    /** Runs {@code op} on the subject with ordinary arguments. */
    private void perform(Subject s, EpOp op) {
        Endpoint ep = s.ep;
        switch (op) {
            case CONNECT -> ConnSupport.connect(ep, s.other, 4242, null);
            case DUP_CONNECT -> ep.dupConnect(s.dupSource, DatPair.WAIT, null, Qos.BEST_EFFORT);
            case DISCONNECT_ABRUPT -> ep.disconnect(CloseFlag.ABRUPT);
            case DISCONNECT_GRACEFUL -> ep.disconnect(CloseFlag.GRACEFUL);
            case RESET -> ep.reset();
            case FREE -> ep.free();
            case MODIFY_PZ ->
                ep.modify(EpModify.builder().pz(s.side.ia.createPz()).build());
            case MODIFY_ATTRIBUTES ->
                ep.modify(EpModify.builder().maxMessageSize(4096).build());
            case MODIFY_RECV_FLAGS ->
                ep.modify(EpModify.builder()
                        .recvCompletionFlags(EnumSet.of(CompletionFlag.EVD_THRESHOLD))
                        .build());
            case MODIFY_SPECIFIC_ATTRIBUTES ->
                ep.modify(EpModify.builder()
                        .providerSpecific(List.of(SPECIFIC))
                        .transportSpecific(List.of(SPECIFIC))
                        .build());
            case POST_SEND -> ep.postSend(s.side.iov(0, 8), COOKIE, CompletionFlag.defaults());
            case POST_RDMA_READ ->
                ep.postRdmaRead(s.side.iov(0, 8), COOKIE, s.other.remote(0, 8), CompletionFlag.defaults());
            case POST_RDMA_WRITE ->
                ep.postRdmaWrite(s.side.iov(0, 8), COOKIE, s.other.remote(0, 8), CompletionFlag.defaults());
            case RMR_BIND -> {
                rmr = s.side.pz.createRmr();
                rmr.bind(
                        s.side.iov(0, 4096).get(0),
                        EnumSet.of(MemoryPrivilege.REMOTE_READ, MemoryPrivilege.REMOTE_WRITE),
                        ep,
                        COOKIE,
                        CompletionFlag.defaults());
            }
            case POST_RECV -> ep.postRecv(s.side.iov(1024, 64), RECV_COOKIE, CompletionFlag.defaults());
            case QUERY -> ep.query();
            case GET_STATUS -> ep.status();
            case SET_WATERMARK -> ep.setWatermark(4, 8);
            case RECV_QUERY -> ep.recvQuery();
            case RSP_CREATE -> {
                rspQual = s.pair.qual();
                s.side.ia.createRsp(rspQual, ep, s.crEvd);
            }
            case CR_ACCEPT -> request(s).accept(ep, null);
            case CR_REJECT -> request(s).reject();
            default -> fail("no way to perform " + op);
        }
    }

    private static ConnectionRequest request(Subject s) {
        return ownRequest(s.state) ? s.request : s.foreignRequest;
    }

    private static void assertNoEvents(Subject s) {
        for (EventDispatcher evd : List.of(s.recvEvd, s.requestEvd, s.connectEvd, s.crEvd)) {
            EventTestSupport.assertNoEvent(evd);
        }
    }

    private static void assertState(EndpointState expected, Subject s, String why) {
        assertEquals(expected, s.ep.status().state(), why);
        assertEquals(expected, s.ep.query().state(), why);
    }

    // ---------------------------------------------------------------------- REFUSE

    private void refused(Subject s, EpOp op, Rule rule) {
        Snapshot before = Snapshot.of(s.ep);
        DatException e = assertDat(DatReturnType.INVALID_STATE, EpStateTable.subtype(s.state), () -> perform(s, op));
        assertNotNull(e.getMessage());
        assertEquals(before, Snapshot.of(s.ep), () -> "a refused " + op + " changes nothing (" + rule.source() + ")");
        assertNoEvents(s);
        switch (op) {
            // The refused RSP did not keep its qualifier.
            case RSP_CREATE ->
                s.side.ia.createPsp(rspQual, s.side.conn, PspFlag.CONSUMER).free();
            // dat_cr_accept(3DAT): a failed accept has no effect on the Connection Request.
            case CR_ACCEPT -> assertNotNull(s.foreignRequest.query());
            case RMR_BIND -> assertTrue(rmr.query().binding().isEmpty(), "a refused bind binds nothing");
            default -> {}
        }
    }

    // ---------------------------------------------------------------------- NOOP

    private void noop(Subject s, EpOp op, Rule rule) {
        if (s.state != EndpointState.DISCONNECTED) {
            // dat_ep_reset(3DAT): "the preposted Recvs are not affected"; nothing else may touch one either.
            s.ep.postRecv(s.side.iov(1024, 64), RECV_COOKIE, CompletionFlag.defaults());
        }
        Snapshot before = Snapshot.of(s.ep);
        perform(s, op);
        assertEquals(before, Snapshot.of(s.ep), () -> op + " has no effect in " + s.state + " (" + rule.source() + ")");
        assertNoEvents(s);
        if (op == EpOp.CR_REJECT) {
            // dat_cr_reject(3DAT): the request is gone; its requester is rejected by the consumer.
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, () -> s.foreignRequest.query());
            // On a held link (threaded COMPLETION_PENDING) the reject itself is lost; elsewhere it arrives.
            if (!s.linkHeld) {
                expectConnection(s.foreignConnectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            }
        }
    }

    // ---------------------------------------------------------------------- FLUSH

    private void flushed(Subject s, EpOp op, Rule rule) {
        perform(s, op);
        if (op == EpOp.POST_RECV) {
            DtoCompletionEvent e = next(s.recvEvd, DtoCompletionEvent.class);
            assertFlushed(s, e, RECV_COOKIE);
        } else if (op == EpOp.RMR_BIND) {
            RmrBindCompletionEvent e = next(s.requestEvd, RmrBindCompletionEvent.class);
            assertSame(rmr, e.rmr());
            assertEquals(COOKIE, e.userCookie());
            assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status(), "dat_rmr_bind(3DAT) in DISCONNECTED");
            assertTrue(rmr.query().binding().isEmpty(), "a flushed bind binds nothing");
        } else {
            DtoCompletionEvent e = next(s.requestEvd, DtoCompletionEvent.class);
            assertFlushed(s, e, COOKIE);
        }
        assertState(EndpointState.DISCONNECTED, s, rule.source());
        assertNoEvents(s);
    }

    private static void assertFlushed(Subject s, DtoCompletionEvent e, long cookie) {
        assertSame(s.ep, e.ep());
        assertEquals(cookie, e.userCookie());
        assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status(), () -> "flushed at once: " + e);
        assertEquals(0, e.transferredLength());
    }

    // ---------------------------------------------------------------------- ALLOW

    private void allowed(Subject s, EpOp op, Rule rule) {
        EndpointState st = s.state;
        switch (op) {
            case QUERY -> query(s);
            case GET_STATUS -> {
                EpStatus status = s.ep.status();
                assertEquals(st, status.state(), "dat_ep_get_status(3DAT)");
                assertTrue(status.recvIdle(), "no receive posted");
                assertEquals(
                        st != EndpointState.DISCONNECT_PENDING,
                        status.requestIdle(),
                        "only the DISCONNECT_PENDING endpoint has a request DTO outstanding");
                assertNoEvents(s);
            }
            case SET_WATERMARK -> {
                Snapshot before = Snapshot.of(s.ep);
                perform(s, op);
                assertEquals(before, Snapshot.of(s.ep), "dat_ep_set_watermark(3DAT) changes no state");
                assertNoEvents(s);
            }
            case RECV_QUERY -> recvQuery(s);
            case POST_RECV -> postRecv(s);
            case CONNECT -> connect(s, rule);
            case DUP_CONNECT -> dupConnect(s, rule);
            case DISCONNECT_ABRUPT, DISCONNECT_GRACEFUL -> disconnect(s, op, rule);
            case RESET -> reset(s, rule);
            case FREE -> free(s);
            case MODIFY_PZ -> {
                ProtectionZone pz2 = s.side.ia.createPz();
                s.ep.modify(EpModify.builder().pz(pz2).build());
                assertEquals(Optional.of(pz2), s.ep.query().pz(), "dat_ep_modify(3DAT) pz_handle");
                assertState(st, s, rule.source());
                assertNoEvents(s);
            }
            case MODIFY_ATTRIBUTES -> {
                perform(s, op);
                assertEquals(4096, s.ep.query().attributes().maxMessageSize(), "dat_ep_modify(3DAT) max_message_size");
                assertState(st, s, rule.source());
                assertNoEvents(s);
            }
            case MODIFY_RECV_FLAGS -> {
                perform(s, op);
                assertEquals(
                        EnumSet.of(CompletionFlag.EVD_THRESHOLD),
                        s.ep.query().attributes().recvCompletionFlags(),
                        "dat_ep_modify(3DAT) recv_completion_flags");
                assertState(st, s, rule.source());
                assertNoEvents(s);
            }
            case MODIFY_SPECIFIC_ATTRIBUTES -> {
                perform(s, op);
                assertEquals(
                        List.of(SPECIFIC),
                        s.ep.query().attributes().providerSpecific(),
                        "dat_ep_modify(3DAT) provider-specific attributes");
                assertEquals(
                        List.of(SPECIFIC),
                        s.ep.query().attributes().transportSpecific(),
                        "dat_ep_modify(3DAT) transport-specific attributes");
                assertState(st, s, rule.source());
                assertNoEvents(s);
            }
            case POST_SEND, POST_RDMA_READ, POST_RDMA_WRITE -> postRequest(s, op);
            case RMR_BIND -> {
                perform(s, op);
                RmrBindCompletionEvent e = next(s.requestEvd, RmrBindCompletionEvent.class);
                assertSame(rmr, e.rmr());
                assertEquals(COOKIE, e.userCookie());
                assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "dat_rmr_bind(3DAT) on a connected endpoint");
                assertTrue(rmr.query().binding().isPresent(), "the bind took effect");
                assertState(st, s, rule.source());
                assertNoEvents(s);
            }
            case RSP_CREATE -> rspCreate(s, rule);
            case CR_ACCEPT -> accept(s, rule);
            case CR_REJECT -> reject(s, rule);
            default -> fail("no check for the allowed " + op + " in " + st);
        }
    }

    /** dat_ep_query(3DAT), with the validity rules of its DESCRIPTION. */
    private static void query(Subject s) {
        EpParams p = s.ep.query();
        EndpointState st = s.state;
        assertEquals(st, p.state());
        assertSame(s.side.ia, p.ia());
        assertEquals(Optional.of(s.side.pz), p.pz());
        assertEquals(Optional.of(s.recvEvd), p.recvEvd());
        assertEquals(Optional.of(s.requestEvd), p.requestEvd());
        assertEquals(Optional.of(s.connectEvd), p.connectEvd());
        assertEquals(Optional.of(s.side.address()), p.localIaAddress());
        if (REMOTE_VALID.contains(st)) {
            assertEquals(
                    Optional.of(s.other.address()),
                    p.remoteIaAddress(),
                    "dat_ep_query(3DAT) remote_ia_address in " + st);
            long remoteQual = s.remoteQual >= 0
                    ? s.remoteQual
                    : s.peer.query().localPortQual().orElseThrow();
            assertEquals(remoteQual, p.remotePortQual().orElse(-1), "dat_ep_query(3DAT) remote_port_qual in " + st);
        }
        if (LOCAL_VALID.contains(st)) {
            assertTrue(p.localPortQual().isPresent(), "dat_ep_query(3DAT) local_port_qual in " + st);
            long local = p.localPortQual().getAsLong();
            switch (st) {
                case PASSIVE_CONNECTION_PENDING -> assertEquals(s.rsp.connQual(), local);
                case COMPLETION_PENDING -> assertEquals(s.psp.connQual(), local);
                case ACTIVE_CONNECTION_PENDING ->
                    assertEquals(
                            local,
                            s.request.query().remotePortQual(),
                            "the requester's port qualifier the peer sees (dat_cr_query(3DAT))");
                default ->
                    assertEquals(local, s.peer.query().remotePortQual().orElse(-1), "the peer's remote_port_qual");
            }
        }
        assertNoEvents(s);
    }

    /** S7 (dat_ep_recv_query(3DAT)): allowed in every state; counts the receives posted and not completed. */
    private static void recvQuery(Subject s) {
        s.ep.postRecv(s.side.iov(1024, 64), RECV_COOKIE, CompletionFlag.defaults());
        if (s.state == EndpointState.DISCONNECTED) {
            assertFlushed(s, next(s.recvEvd, DtoCompletionEvent.class), RECV_COOKIE);
        }
        EpRecvInfo i = s.ep.recvQuery();
        int expected = s.state == EndpointState.DISCONNECTED ? 0 : 1;
        assertEquals(expected, i.nbufsAllocated(), "dat_ep_recv_query(3DAT) nbufs_allocated in " + s.state);
        assertTrue(
                i.bufsAllocSpan() >= i.nbufsAllocated(),
                "dat_ep_recv_query(3DAT): the span is never smaller than the count");
        assertState(s.state, s, "dat_ep_recv_query(3DAT)");
    }

    /** dat_ep_post_recv(3DAT): valid in every state; the completion comes on recv_evd when a message arrives. */
    private static void postRecv(Subject s) {
        EndpointState st = s.state;
        int before = s.ep.recvQuery().nbufsAllocated();
        s.ep.postRecv(s.side.iov(1024, 64), RECV_COOKIE, CompletionFlag.defaults());
        assertEquals(before + 1, s.ep.recvQuery().nbufsAllocated(), "the receive is queued");
        assertFalse(s.ep.status().recvIdle());
        assertState(st, s, "dat_ep_post_recv(3DAT)");
        assertNoEvents(s);
        if (st == EndpointState.CONNECTED || st == EndpointState.DISCONNECT_PENDING) {
            s.other.buf.put(0, "8 bytes!".getBytes(StandardCharsets.US_ASCII));
            s.peer.postSend(s.other.iov(0, 8), 1, CompletionFlag.defaults());
            DtoCompletionEvent e = next(s.recvEvd, DtoCompletionEvent.class);
            assertSame(s.ep, e.ep());
            assertEquals(RECV_COOKIE, e.userCookie());
            assertEquals(DtoCompletionStatus.SUCCESS, e.status());
            assertEquals(8, e.transferredLength());
            byte[] got = new byte[8];
            s.side.buf.get(1024, got);
            assertArrayEquals("8 bytes!".getBytes(StandardCharsets.US_ASCII), got);
            assertState(st, s, "a receive completing changes no state");
            assertTrue(s.requestEvd.dequeue().isEmpty());
        }
    }

    /** dat_ep_connect(3DAT) from UNCONNECTED: ACTIVE_CONNECTION_PENDING, then ESTABLISHED on connect_evd. */
    private static void connect(Subject s, Rule rule) {
        long q = s.pair.qual();
        s.other.ia.createPsp(q, s.other.conn, PspFlag.CONSUMER);
        ConnSupport.connect(s.ep, s.other, q, null);
        assertState(rule.next(), s, rule.source());
        assertNoEvents(s);
        ConnectionRequest cr = next(s.other.conn, ConnectionRequestEvent.class).cr();
        Endpoint peer = s.newPeer();
        cr.accept(peer, null);
        ConnectionEvent e = expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertSame(s.ep, e.ep());
        assertState(EndpointState.CONNECTED, s, "ESTABLISHED (dat_ep_connect(3DAT))");
        expectConnection(s.peerConnectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertNoEvents(s);
    }

    /** dat_ep_dup_connect(3DAT) from UNCONNECTED: to the remote end of dup_ep_handle. */
    private static void dupConnect(Subject s, Rule rule) {
        s.ep.dupConnect(s.dupSource, DatPair.WAIT, null, Qos.BEST_EFFORT);
        assertState(rule.next(), s, rule.source());
        EpParams dup = s.dupSource.query();
        EpParams p = s.ep.query();
        assertEquals(dup.remoteIaAddress(), p.remoteIaAddress(), "the remote end is copied from dup_ep_handle");
        assertEquals(dup.remotePortQual(), p.remotePortQual());
        ConnectionRequestEvent req = next(s.other.conn, ConnectionRequestEvent.class);
        assertEquals(s.dupQual, req.connQual(), "the request goes to dup_ep_handle's remote qualifier");
        req.cr().accept(s.newPeer(), null);
        assertSame(
                s.ep,
                expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED)
                        .ep());
        assertState(EndpointState.CONNECTED, s, "ESTABLISHED (dat_ep_dup_connect(3DAT))");
        assertEquals(EndpointState.CONNECTED, s.dupSource.status().state(), "dup_ep_handle is not affected");
        assertNoEvents(s);
    }

    /** dat_ep_disconnect(3DAT) in the states that allow it. */
    private static void disconnect(Subject s, EpOp op, Rule rule) {
        CloseFlag flag = op == EpOp.DISCONNECT_ABRUPT ? CloseFlag.ABRUPT : CloseFlag.GRACEFUL;
        switch (s.state) {
            case ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> {
                // "aborts the connection establishment ... causes preposted Recv DTOs to be flushed to recv_evd_handle"
                s.ep.postRecv(s.side.iov(1024, 64), RECV_COOKIE, CompletionFlag.defaults());
                s.ep.disconnect(flag);
                assertState(rule.next(), s, rule.source());
                assertFlushed(s, next(s.recvEvd, DtoCompletionEvent.class), RECV_COOKIE);
                // S1 SILENT, chosen: aborting establishment posts DISCONNECTED, a final event for the connect.
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED)
                                .ep());
                assertNoEvents(s);
                if (s.state == EndpointState.COMPLETION_PENDING) {
                    s.releaseLink();
                    EpStates.Subject.expectFinal(s.peerConnectEvd);
                    assertEquals(
                            EndpointState.DISCONNECTED, s.peer.status().state(), "the active peer has no connection");
                }
            }
            case CONNECTED -> {
                if (flag == CloseFlag.ABRUPT) {
                    s.ep.postRecv(s.side.iov(1024, 64), RECV_COOKIE, CompletionFlag.defaults());
                    s.ep.disconnect(flag);
                    assertState(rule.next(), s, rule.source());
                    assertFlushed(s, next(s.recvEvd, DtoCompletionEvent.class), RECV_COOKIE);
                } else {
                    // A send the peer has no receive for yet: the graceful disconnect waits for it.
                    s.ep.postSend(s.side.iov(0, 8), COOKIE, CompletionFlag.defaults());
                    s.ep.disconnect(flag);
                    assertState(rule.next(), s, rule.source());
                    assertNoEvents(s);
                    s.peer.postRecv(s.other.iov(0, 64), 2, CompletionFlag.defaults());
                    DtoCompletionEvent sent = next(s.requestEvd, DtoCompletionEvent.class);
                    assertEquals(COOKIE, sent.userCookie());
                    assertEquals(
                            DtoCompletionStatus.SUCCESS, sent.status(), "graceful: the request DTO completes first");
                }
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED)
                                .ep());
                assertState(EndpointState.DISCONNECTED, s, "DISCONNECTED event (dat_ep_disconnect(3DAT))");
                expectConnection(s.peerConnectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertEquals(EndpointState.DISCONNECTED, s.peer.status().state());
                assertNoEvents(s);
            }
            case DISCONNECT_PENDING -> {
                // Abrupt: DISCONNECTED at once, without waiting for the outstanding send, which is flushed.
                s.ep.disconnect(flag);
                assertState(rule.next(), s, rule.source());
                completion(s.requestEvd, EpStates.PENDING_SEND, DtoCompletionStatus.ERR_FLUSHED);
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED)
                                .ep());
                expectConnection(s.peerConnectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertNoEvents(s);
            }
            default -> fail("no check for " + op + " in " + s.state);
        }
    }

    /** dat_ep_reset(3DAT) from DISCONNECTED: UNCONNECTED, and usable for a new connection. */
    private static void reset(Subject s, Rule rule) {
        s.ep.reset();
        assertState(rule.next(), s, rule.source());
        EpParams p = s.ep.query();
        assertTrue(p.remoteIaAddress().isEmpty(), "no remote end after a reset");
        assertTrue(p.remotePortQual().isEmpty());
        assertNoEvents(s);
        ConnSupport.connect(s.ep, s.other, s.remoteQual, null);
        assertState(EndpointState.ACTIVE_CONNECTION_PENDING, s, "dat_ep_connect(3DAT) after dat_ep_reset(3DAT)");
        next(s.other.conn, ConnectionRequestEvent.class).cr().accept(s.newPeer(), null);
        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertState(EndpointState.CONNECTED, s, "reconnected");
    }

    /** dat_ep_free(3DAT) in the states that allow it. */
    private static void free(Subject s) {
        EndpointState st = s.state;
        s.ep.free();
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> s.ep.status());
        // "The freeing of an Endpoint also destroys an Event Stream for each of the associated Event Dispatchers."
        s.recvEvd.free();
        s.requestEvd.free();
        s.connectEvd.free();
        switch (st) {
            case ACTIVE_CONNECTION_PENDING -> {
                // S1 SILENT, chosen: a peer that accepts the abandoned request ends in ACCEPT_COMPLETION_ERROR.
                Endpoint late = s.newPeer();
                s.request.accept(late, null);
                ConnectionEvent e = EpStates.Subject.expectFinal(s.peerConnectEvd);
                assertEquals(
                        EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, e.eventNumber(), "dat_cr_accept(3DAT)");
                assertEquals(EndpointState.DISCONNECTED, late.status().state());
            }
            case COMPLETION_PENDING -> {
                s.releaseLink();
                EpStates.Subject.expectFinal(s.peerConnectEvd);
                assertEquals(
                        EndpointState.DISCONNECTED, s.peer.status().state(), "the accepted connection is torn down");
            }
            case CONNECTED, DISCONNECT_PENDING -> {
                expectConnection(s.peerConnectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertEquals(EndpointState.DISCONNECTED, s.peer.status().state(), "the connection is torn down");
            }
            default -> {}
        }
    }

    /** Send, RDMA Read and RDMA Write on a CONNECTED endpoint: completions on request_evd. */
    private void postRequest(Subject s, EpOp op) {
        byte[] local = "local-8b".getBytes(StandardCharsets.US_ASCII);
        byte[] remote = "remote8b".getBytes(StandardCharsets.US_ASCII);
        s.side.buf.put(0, local);
        s.other.buf.put(0, remote);
        if (op == EpOp.POST_SEND) {
            s.peer.postRecv(s.other.iov(1024, 64), 2, CompletionFlag.defaults());
        }
        perform(s, op);
        DtoCompletionEvent e = next(s.requestEvd, DtoCompletionEvent.class);
        assertSame(s.ep, e.ep());
        assertEquals(COOKIE, e.userCookie());
        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), op + " on a CONNECTED endpoint");
        assertEquals(8, e.transferredLength());
        byte[] got = new byte[8];
        switch (op) {
            case POST_SEND -> {
                DtoCompletionEvent r = next(s.other.dto, DtoCompletionEvent.class);
                assertEquals(2, r.userCookie());
                s.other.buf.get(1024, got);
                assertArrayEquals(local, got);
            }
            case POST_RDMA_READ -> {
                s.side.buf.get(0, got);
                assertArrayEquals(remote, got);
            }
            default -> {
                s.other.buf.get(0, got);
                assertArrayEquals(local, got);
            }
        }
        assertState(EndpointState.CONNECTED, s, "DTOs change no state");
        assertNoEvents(s);
    }

    /** dat_rsp_create(3DAT) with an UNCONNECTED endpoint: RESERVED; its request makes it PASSIVE_CONNECTION_PENDING. */
    private static void rspCreate(Subject s, Rule rule) {
        long q = s.pair.qual();
        ReservedServicePoint rsp = s.side.ia.createRsp(q, s.ep, s.crEvd);
        assertState(rule.next(), s, rule.source());
        assertEquals(q, rsp.connQual());
        Endpoint active = s.newPeer();
        ConnSupport.connect(active, s.side, q, null);
        ConnectionRequestEvent e = next(s.crEvd, ConnectionRequestEvent.class);
        assertEquals(q, e.connQual());
        assertEquals(Optional.of(s.ep), e.cr().query().localEp(), "the RSP's request names its endpoint");
        assertState(EndpointState.PASSIVE_CONNECTION_PENDING, s, "a request on the RSP (dat_rsp_create(3DAT))");
    }

    /** S4: dat_cr_accept(3DAT) moves the endpoint to COMPLETION_PENDING; ESTABLISHED on connect_evd makes it CONNECTED. */
    private static void accept(Subject s, Rule rule) {
        boolean own = ownRequest(s.state);
        ConnectionRequest cr = own ? s.request : s.foreignRequest;
        Endpoint active = own ? s.peer : s.foreignActive;
        EventDispatcher activeEvd = own ? s.peerConnectEvd : s.foreignConnectEvd;
        s.holdLinkIfThreaded();
        // A request that names the endpoint is accepted with DAT_HANDLE_NULL; another with the endpoint.
        cr.accept(own ? null : s.ep, null);
        assertState(rule.next(), s, rule.source());
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, cr::query);
        s.releaseLink();
        ConnectionEvent e = expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertSame(s.ep, e.ep());
        assertEquals(0, e.privateDataSize(), "dat_evd_wait(3DAT): the passive side's ESTABLISHED has no private data");
        assertState(EndpointState.CONNECTED, s, "ESTABLISHED (dat_cr_accept(3DAT))");
        expectConnection(activeEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertEquals(EndpointState.CONNECTED, active.status().state());
        assertNoEvents(s);
    }

    /** dat_cr_reject(3DAT) of the endpoint's own request. */
    private static void reject(Subject s, Rule rule) {
        s.request.reject();
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, s.request::query);
        if (s.state == EndpointState.PASSIVE_CONNECTION_PENDING) {
            // "The local Endpoint that the Consumer provided for Reserved Service Point reverts to Consumer control"
            assertState(rule.next(), s, rule.source());
            assertNoEvents(s);
        } else {
            // "that Endpoint reverts to Provider Control": freed, as far as the consumer is concerned
            // (dat_ep_free(3DAT)).
            assertNull(rule.next());
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> s.ep.status());
        }
        expectConnection(s.peerConnectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        assertEquals(EndpointState.DISCONNECTED, s.peer.status().state(), "dat_ep_connect(3DAT): rejected");
        if (s.state == EndpointState.PASSIVE_CONNECTION_PENDING) {
            s.ep.free();
        }
    }

    // ====================================================================== the SILENT / CONFLICT choices

    /**
     * The choices the table (and the provider around it) made where the man pages are SILENT or in
     * CONFLICT (ep-state-machine.md section 7), one test per choice, each naming the choice id and
     * the man page. The rows above exercise them once per row; these say what each choice is.
     */
    @Nested
    @DisplayName("SILENT / CONFLICT choices (ep-state-machine.md section 7)")
    class Choices {

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "S4 + C5 (dat_cr_accept, dat_ep_get_status, dat_ep_query): COMPLETION_PENDING from a successful accept until ESTABLISHED")
        void shouldBeCompletionPendingFromAcceptUntilEstablishedWhenAccepting(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.COMPLETION_PENDING);
                assertEquals(12, s.ep.status().state().value(), "DAT_EP_STATE_COMPLETION_PENDING is 12 in dat.h");
                assertEquals(EndpointState.COMPLETION_PENDING, s.ep.query().state());
                assertTrue(s.connectEvd.dequeue().isEmpty(), "no ESTABLISHED yet");
                s.releaseLink();
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED)
                                .ep());
                assertState(EndpointState.CONNECTED, s, "ESTABLISHED ends COMPLETION_PENDING");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "C5 (dat_ep_reset, dat_ep_post_send, dat_ep_free): in COMPLETION_PENDING reset and posts are refused, free is allowed")
        void shouldRefuseResetAndPostsButAllowFreeWhenCompletionPending(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.COMPLETION_PENDING);
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING,
                        () -> s.ep.reset());
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING,
                        () -> s.ep.postSend(s.side.iov(0, 8), 1, CompletionFlag.defaults()));
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING,
                        () -> s.ep.postRdmaWrite(s.side.iov(0, 8), 2, s.other.remote(0, 8), CompletionFlag.defaults()));
                assertState(EndpointState.COMPLETION_PENDING, s, "refusals change nothing");
                s.ep.free();
                assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> s.ep.status());
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName("C3 (dat_ep_disconnect): disconnecting is refused when UNCONNECTED and a no-op when DISCONNECTED")
        void shouldRefuseDisconnectWhenUnconnectedAndIgnoreItWhenDisconnected(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject u = new Subject(pair).driveTo(EndpointState.UNCONNECTED);
                for (CloseFlag f : CloseFlag.values()) {
                    assertDat(
                            DatReturnType.INVALID_STATE,
                            DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                            () -> u.ep.disconnect(f));
                }
                Subject d = new Subject(pair).driveTo(EndpointState.DISCONNECTED);
                for (CloseFlag f : CloseFlag.values()) {
                    d.ep.disconnect(f);
                    assertState(
                            EndpointState.DISCONNECTED, d, "dat_ep_disconnect(3DAT) of a DISCONNECTED EP is a no-op");
                }
                assertTrue(d.connectEvd.dequeue().isEmpty(), "a no-op disconnect posts no second DISCONNECTED");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "S1 (dat_ep_disconnect): aborting an active connect posts DISCONNECTED on connect_evd and flushes pre-posted receives")
        void shouldPostDisconnectedWhenAConnectIsAbortedByDisconnect(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.ACTIVE_CONNECTION_PENDING);
                s.ep.postRecv(s.side.iov(1024, 64), RECV_COOKIE, CompletionFlag.defaults());
                s.ep.disconnect(CloseFlag.GRACEFUL);
                assertState(EndpointState.DISCONNECTED, s, "dat_ep_disconnect(3DAT) during establishment");
                assertFlushed(s, next(s.recvEvd, DtoCompletionEvent.class), RECV_COOKIE);
                ConnectionEvent e = expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertSame(s.ep, e.ep());
                assertEquals(0, e.privateDataSize());
                assertTrue(s.connectEvd.dequeue().isEmpty(), "one final event for the connect");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "S1 + C7 (dat_ep_free, dat_cr_accept): freeing a connecting EP fails a later accept with ACCEPT_COMPLETION_ERROR")
        void shouldFailThePeersAcceptWhenTheConnectingEndpointIsFreed(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.ACTIVE_CONNECTION_PENDING);
                s.ep.free();
                Endpoint late = s.newPeer();
                late.postRecv(s.other.iov(0, 64), 7, CompletionFlag.defaults());
                s.request.accept(late, null);
                ConnectionEvent e = EpStates.Subject.expectFinal(s.peerConnectEvd);
                // C7: the event is DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR (dat_cr_accept), the header's name.
                assertEquals(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, e.eventNumber());
                assertSame(late, e.ep());
                assertEquals(EndpointState.DISCONNECTED, late.status().state());
                DtoCompletionEvent f = next(s.other.dto, DtoCompletionEvent.class);
                assertEquals(7, f.userCookie());
                assertEquals(
                        DtoCompletionStatus.ERR_FLUSHED,
                        f.status(),
                        "dat_cr_accept(3DAT): posted receives are flushed");
            }
        }

        static Stream<Arguments> modesAndFlags() {
            return ConnSupport.everyMode(
                    Stream.of(CloseFlag.values()).map(f -> Arguments.of(f)).toList());
        }

        @ParameterizedTest(name = "[{0}] {1}")
        @MethodSource("modesAndFlags")
        @DisplayName(
                "S1 (dat_ep_disconnect): the peer of a disconnecting EP gets DISCONNECTED on its connect_evd, its receives flushed")
        void shouldTellThePeerDisconnectedWhenTheOtherSideDisconnects(DatPair.Mode mode, CloseFlag flag) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.CONNECTED);
                s.peer.postRecv(s.other.iov(0, 64), 9, CompletionFlag.defaults());
                s.ep.disconnect(flag);
                ConnectionEvent e = expectConnection(s.peerConnectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertSame(s.peer, e.ep());
                assertEquals(EndpointState.DISCONNECTED, s.peer.status().state());
                completion(s.other.dto, 9, DtoCompletionStatus.ERR_FLUSHED);
                expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "S2 (dat_cr_accept): accepting with a CONNECTED EP is DAT_INVALID_STATE and leaves the request usable")
        void shouldRefuseAcceptWithAConnectedEndpointAndLeaveTheRequestUsable(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).prepareForeignRequest().driveTo(EndpointState.CONNECTED);
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                        () -> s.foreignRequest.accept(s.ep, null));
                assertState(EndpointState.CONNECTED, s, "the refused accept leaves the EP alone");
                Endpoint other = s.side.ep();
                s.foreignRequest.accept(other, null);
                expectConnection(s.foreignConnectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertEquals(EndpointState.CONNECTED, s.foreignActive.status().state(), "the request was not spoilt");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName("S7 (dat_ep_dup_connect): allowed from UNCONNECTED only, refused from DISCONNECTED")
        void shouldAllowDupConnectFromUnconnectedOnly(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject d = new Subject(pair).prepareDupSource().driveTo(EndpointState.DISCONNECTED);
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED,
                        () -> d.ep.dupConnect(d.dupSource, DatPair.WAIT, null, Qos.BEST_EFFORT));
                d.ep.reset();
                d.ep.dupConnect(d.dupSource, DatPair.WAIT, null, Qos.BEST_EFFORT);
                assertState(
                        EndpointState.ACTIVE_CONNECTION_PENDING,
                        d,
                        "dat_ep_dup_connect(3DAT) after dat_ep_reset(3DAT)");
            }
        }

        @ParameterizedTest(name = "[{0}] {1}")
        @MethodSource("io.simrdma.provider.EpStates#modesAndStates")
        @DisplayName("S7 (dat_ep_recv_query): allowed in every state")
        void shouldAnswerRecvQueryInEveryState(DatPair.Mode mode, EndpointState state) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(state);
                EpRecvInfo i = s.ep.recvQuery();
                assertEquals(0, i.nbufsAllocated(), "no receive posted");
                assertEquals(0, i.bufsAllocSpan());
                assertState(state, s, "dat_ep_recv_query(3DAT) changes nothing");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "C10 (dat_ep_modify): pz_handle is refused in RESERVED and PASSIVE_CONNECTION_PENDING, allowed in TENTATIVE; other attributes allowed")
        void shouldRefusePzButAllowAttributesWhenReservedOrPassive(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                ProtectionZone pz2 = pair.b.ia.createPz();
                for (EndpointState st : List.of(EndpointState.RESERVED, EndpointState.PASSIVE_CONNECTION_PENDING)) {
                    Subject s = new Subject(pair).driveTo(st);
                    assertDat(
                            DatReturnType.INVALID_STATE,
                            EpStateTable.subtype(st),
                            () -> s.ep.modify(EpModify.builder().pz(pz2).build()));
                    assertEquals(Optional.of(pair.b.pz), s.ep.query().pz());
                    s.ep.modify(EpModify.builder()
                            .maxRecvDtos(16)
                            .maxRequestDtos(16)
                            .build());
                    assertEquals(16, s.ep.query().attributes().maxRecvDtos());
                    assertState(st, s, "dat_ep_modify(3DAT) changes no state");
                }
                Subject t = new Subject(pair).driveTo(EndpointState.TENTATIVE_CONNECTION_PENDING);
                t.ep.modify(EpModify.builder().pz(pz2).build());
                assertEquals(
                        Optional.of(pz2),
                        t.ep.query().pz(),
                        "TENTATIVE_CONNECTION_PENDING is quiescent (dat_ep_modify(3DAT))");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "C1 (dat_ep_dup_connect, dat_ep_connect): a rejected dup connect ends in DISCONNECTED (not \"UNDISCONNECTED\")")
        void shouldEndARejectedDupConnectInDisconnected(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).prepareDupSource().driveTo(EndpointState.UNCONNECTED);
                s.ep.dupConnect(s.dupSource, DatPair.WAIT, null, Qos.BEST_EFFORT);
                next(s.other.conn, ConnectionRequestEvent.class).cr().reject();
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED)
                                .ep());
                assertState(EndpointState.DISCONNECTED, s, "dat_ep_connect(3DAT): a rejected connect is DISCONNECTED");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "C2 (dat_rsp_free, dat_rsp_create): an RSP outlives its request; freed before it, its EP is UNCONNECTED again")
        void shouldKeepTheRspAfterItsRequestAndReleaseTheEndpointWhenFreedBefore(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject r = new Subject(pair).driveTo(EndpointState.RESERVED);
                r.rsp.free();
                assertState(EndpointState.UNCONNECTED, r, "dat_rsp_free(3DAT) before the request");
                r.ep.free();

                Subject s = new Subject(pair).driveTo(EndpointState.PASSIVE_CONNECTION_PENDING);
                long q = s.rsp.connQual();
                assertEquals(q, s.rsp.query().connQual(), "the RSP is not destroyed by its request");
                Endpoint second = s.newPeer();
                ConnSupport.connect(second, s.side, q, null);
                ConnectionEvent e = EpStates.Subject.expectFinal(s.peerConnectEvd);
                assertSame(second, e.ep());
                assertEquals(
                        EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, e.eventNumber(), "an RSP takes one request");
                s.rsp.free();
                assertState(
                        EndpointState.PASSIVE_CONNECTION_PENDING,
                        s,
                        "freeing a used RSP leaves its EP's request pending");
                s.request.accept(null, null);
                expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertState(EndpointState.CONNECTED, s, "the request is still accepted");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "C4 (dat_ep_disconnect): a graceful disconnect with a request DTO outstanding reports DAT_EP_STATE_DISCONNECT_PENDING until it completes")
        void shouldReportDisconnectPendingWhileARequestIsOutstanding(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.DISCONNECT_PENDING);
                assertEquals(10, s.ep.status().state().value(), "DAT_EP_STATE_DISCONNECT_PENDING is 10 in dat.h");
                assertFalse(s.ep.status().requestIdle());
                s.ep.disconnect(CloseFlag.GRACEFUL);
                assertState(EndpointState.DISCONNECT_PENDING, s, "a second graceful disconnect has no effect");
                s.peer.postRecv(s.other.iov(0, 64), 3, CompletionFlag.defaults());
                completion(s.requestEvd, EpStates.PENDING_SEND, DtoCompletionStatus.SUCCESS);
                expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertState(EndpointState.DISCONNECTED, s, "the drained disconnect completes");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "C6 (dat_ep_query): local_port_qual is the RSP's qualifier in RESERVED and PASSIVE, the PSP's in TENTATIVE")
        void shouldGiveTheServicePointQualifierAsLocalPortQual(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject r = new Subject(pair).driveTo(EndpointState.RESERVED);
                assertEquals(
                        r.rsp.connQual(), r.ep.query().localPortQual().orElse(-1), "RESERVED: might be valid; it is");
                Subject p = new Subject(pair).driveTo(EndpointState.PASSIVE_CONNECTION_PENDING);
                assertEquals(
                        p.rsp.connQual(), p.ep.query().localPortQual().orElse(-1), "PASSIVE_CONNECTION_PENDING: valid");
                Subject t = new Subject(pair).driveTo(EndpointState.TENTATIVE_CONNECTION_PENDING);
                assertEquals(
                        t.psp.connQual(), t.ep.query().localPortQual().orElse(-1), "TENTATIVE: might be valid; it is");
                assertEquals(
                        Optional.of(pair.a.address()),
                        t.ep.query().remoteIaAddress(),
                        "TENTATIVE: remote_ia_address valid");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "C13 (dat_evd_wait, dat_evd_dequeue): the active side's ESTABLISHED carries the accepter's private data, the passive side's none")
        void shouldCarryTheAcceptersPrivateDataOnTheActiveSideOnly(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.ACTIVE_CONNECTION_PENDING);
                byte[] data = "accepted".getBytes(StandardCharsets.US_ASCII);
                Endpoint peer = s.newPeer();
                s.request.accept(peer, data);
                ConnectionEvent active = expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertArrayEquals(data, active.privateData());
                ConnectionEvent passive = expectConnection(s.peerConnectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertEquals(0, passive.privateDataSize());
            }
        }

        @Test
        @DisplayName(
                "S3 (dat_ep_create_with_srq, dat_ep_post_recv): posting a receive to an EP with an SRQ is DAT_INVALID_PARAMETER")
        void shouldRefusePostRecvWhenTheEndpointHasAnSrq() {
            try (DatPair pair = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
                SharedReceiveQueue srq = pair.b.ia.createSrq(pair.b.pz, new SrqAttributes(16, 1, Dat.SRQ_LW_DEFAULT));
                Endpoint ep = pair.b.ia.createEndpointWithSrq(
                        pair.b.pz,
                        pair.b.dto,
                        pair.b.dto,
                        pair.b.conn,
                        srq,
                        EventTestSupport.attrs(pair.b).build());
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        () -> ep.postRecv(pair.b.iov(0, 64), 1, CompletionFlag.defaults()));
                assertEquals(EndpointState.UNCONNECTED, ep.status().state());
                assertEquals(
                        Dat.VALUE_UNKNOWN,
                        ep.recvQuery().nbufsAllocated(),
                        "dat_ep_recv_query(3DAT): not tracked per EP");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "S5 (dat_ep_modify): srq_soft_hw and the RDMA IOV limits follow the attribute rows; srq_handle is never modifiable")
        void shouldTreatTheNewerAttributesAsAttributes(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject u = new Subject(pair).driveTo(EndpointState.UNCONNECTED);
                u.ep.modify(EpModify.builder()
                        .maxRdmaReadIov(1)
                        .maxRdmaWriteIov(1)
                        .srqSoftHw(Dat.HW_DEFAULT)
                        .build());
                assertEquals(1, u.ep.query().attributes().maxRdmaReadIov());
                assertEquals(1, u.ep.query().attributes().maxRdmaWriteIov());
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        () -> u.ep.modify(EpModify.from(u.ep.query(), EnumSet.of(EpParamField.SRQ_HANDLE))));
                Subject c = new Subject(pair).driveTo(EndpointState.CONNECTED);
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                        () -> c.ep.modify(EpModify.builder().maxRdmaReadIov(1).build()));
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                        () -> c.ep.modify(
                                EpModify.builder().srqSoftHw(Dat.HW_DEFAULT).build()));
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName("S9 (dat_ep_connect): TIMED_OUT when the consumer's timeout expires after the peer responded (its "
                + "CM acknowledged the resent request with an MRA, IBA 12.6.6) but before it accepted")
        void shouldReportTimedOutWhenTheConnectTimeoutExpiresFirst(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.UNCONNECTED);
                long q = pair.qual();
                pair.a.ia.createPsp(q, pair.a.conn, PspFlag.CONSUMER);
                s.ep.connect(
                        pair.a.address(),
                        q,
                        Timeout.ofMillis(1000),
                        null,
                        Qos.BEST_EFFORT,
                        EnumSet.noneOf(ConnectFlag.class));
                next(pair.a.conn, ConnectionRequestEvent.class);
                // The request is never answered; the REQ resent after 268 ms earns an MRA; the consumer's 1 s run out
                // long before the CM gives up.
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_TIMED_OUT)
                                .ep());
                assertState(EndpointState.DISCONNECTED, s, "dat_ep_connect(3DAT): timed out");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "S9 (dat_ep_connect): UNREACHABLE when the consumer's timeout expires before anything answered: the "
                        + "listener's CM acknowledges only a resent request (ib_cm's delayed MRA), and 100 ms is shorter than the "
                        + "268 ms before the first resend")
        void shouldReportUnreachableWhenTheConnectTimeoutExpiresBeforeAnyAnswer(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.UNCONNECTED);
                long q = pair.qual();
                pair.a.ia.createPsp(q, pair.a.conn, PspFlag.CONSUMER);
                s.ep.connect(
                        pair.a.address(),
                        q,
                        Timeout.ofMillis(100),
                        null,
                        Qos.BEST_EFFORT,
                        EnumSet.noneOf(ConnectFlag.class));
                next(pair.a.conn, ConnectionRequestEvent.class);
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE)
                                .ep());
                assertState(EndpointState.DISCONNECTED, s, "dat_ep_connect(3DAT): unreachable");
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName("S9 (dat_ep_connect): UNREACHABLE when the transport gives up (no answer to the CM's retries)")
        void shouldReportUnreachableWhenTheTransportGivesUp(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).driveTo(EndpointState.UNCONNECTED);
                long q = pair.qual();
                pair.a.ia.createPsp(q, pair.a.conn, PspFlag.CONSUMER);
                s.linkUp(false);
                s.ep.connect(
                        pair.a.address(),
                        q,
                        Timeout.INFINITE,
                        null,
                        Qos.BEST_EFFORT,
                        EnumSet.noneOf(ConnectFlag.class));
                assertSame(
                        s.ep,
                        expectConnection(s.connectEvd, EventNumber.CONNECTION_EVENT_UNREACHABLE)
                                .ep());
                assertState(EndpointState.DISCONNECTED, s, "dat_ep_connect(3DAT): unreachable");
                s.linkUp(true);
            }
        }

        @ParameterizedTest(name = "[{0}]")
        @EnumSource(DatPair.Mode.class)
        @DisplayName(
                "dat_cr_reject: rejecting a request never fails on, or touches, an EP the request does not name (table rows CR_REJECT = NOOP)")
        void shouldLeaveOtherEndpointsAloneWhenRejecting(DatPair.Mode mode) {
            try (DatPair pair = DatPair.open(mode)) {
                Subject s = new Subject(pair).prepareForeignRequest().driveTo(EndpointState.CONNECTED);
                Subject u = new Subject(pair).driveTo(EndpointState.UNCONNECTED);
                s.foreignRequest.reject();
                assertState(EndpointState.CONNECTED, s, "a reject touches only the EP its request names");
                assertState(EndpointState.UNCONNECTED, u, "a reject touches only the EP its request names");
                expectConnection(s.foreignConnectEvd, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            }
        }

        @Test
        @DisplayName("C9 (dat_ep_post_recv): a receive needs local write on its LMR, not local read")
        void shouldNeedLocalWriteForAReceive() {
            try (DatPair pair = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
                Subject s = new Subject(pair).driveTo(EndpointState.UNCONNECTED);
                LocalMemoryRegion readOnly =
                        ObjectFixtures.lmr(pair.b, pair.b.pz, EnumSet.of(MemoryPrivilege.LOCAL_READ));
                List<LmrTriplet> iov = ObjectFixtures.seg(readOnly, 0, 64);
                assertDat(
                        DatReturnType.PRIVILEGES_VIOLATION,
                        DatReturnSubtype.PRIVILEGES_WRITE,
                        () -> s.ep.postRecv(iov, 1, CompletionFlag.defaults()));
                assertEquals(0, s.ep.recvQuery().nbufsAllocated());
            }
        }
    }
}
