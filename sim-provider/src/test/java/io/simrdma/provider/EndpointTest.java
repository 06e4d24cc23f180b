package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.dtoEvd;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.flags;
import static io.simrdma.provider.DatPair.next;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static io.simrdma.provider.EventTestSupport.completion;
import static io.simrdma.provider.ObjectFixtures.seg;
import static io.simrdma.provider.ObjectFixtures.validAttributes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EpStatus;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.IaAttributes;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.Qos;
import io.simrdma.dat.ServiceType;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The endpoint object (not its state table, not connection establishment): dat_ep_create(3DAT),
 * dat_ep_create_with_srq(3DAT), dat_ep_query(3DAT), dat_ep_get_status(3DAT),
 * dat_ep_set_watermark(3DAT), dat_ep_recv_query(3DAT), dat_ep_free(3DAT) and the local argument
 * checks of dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT), dat_ep_post_rdma_read(3DAT) and
 * dat_ep_post_rdma_write(3DAT). Every test runs on both fabrics unless it says why not.
 */
class EndpointTest {

    /** Device limits small enough to reach: 64 WRs per queue, 4 SGEs (max_iov 4; RDMA Read iov stays 32). */
    private static final String SMALL = "maxQpWr=64&maxSge=4";

    private static final Set<CompletionFlag> DEFAULT = CompletionFlag.defaults();

    /** Small valid attributes ({@link ObjectFixtures#validAttributes}) with recv_completion_flags {@code f}. */
    private static EpAttributes recvFlags(CompletionFlag f) {
        return validAttributes().recvCompletionFlags(flags(f)).build();
    }

    /** Small valid attributes ({@link ObjectFixtures#validAttributes}) with request_completion_flags {@code f}. */
    private static EpAttributes requestFlags(CompletionFlag f) {
        return validAttributes().requestCompletionFlags(flags(f)).build();
    }

    /** dat_ep_create(3DAT) on side a with {@code recv}, {@code request} and {@code attrs} is DAT_INVALID_PARAMETER. */
    private static void assertCreateRefused(
            DatPair p, EventDispatcher recv, EventDispatcher request, EpAttributes attrs) {
        assertDat(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> p.a.ia.createEndpoint(p.a.pz, recv, request, p.a.conn, attrs));
    }

    private static EventDispatcher asyncEvd(DatPair.Side s) {
        return s.ia.query().asyncEvd().orElseThrow();
    }

    // ------------------------------------------------------------------ dat_ep_create

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): NULL attributes give an UNCONNECTED endpoint with usable provider defaults")
    void shouldCreateUnconnectedEndpointWithProviderDefaultsWhenAttributesAreNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ia.createEndpoint(p.a.pz, p.a.dto, p.a.dto, p.a.conn, null);
            assertEquals(new EpStatus(EndpointState.UNCONNECTED, true, true), ep.status());
            EpParams q = ep.query();
            assertSame(p.a.ia, q.ia());
            assertEquals(EndpointState.UNCONNECTED, q.state());
            assertEquals(Optional.of(p.a.pz), q.pz());
            assertEquals(Optional.of(p.a.dto), q.recvEvd());
            assertEquals(Optional.of(p.a.dto), q.requestEvd());
            assertEquals(Optional.of(p.a.conn), q.connectEvd());
            assertEquals(Optional.empty(), q.srq());
            // dat_ep_query(3DAT): remote address and port qualifier only in the connecting and connected states.
            assertEquals(Optional.empty(), q.remoteIaAddress());
            assertTrue(q.remotePortQual().isEmpty());
            assertEquals(Optional.of(p.a.address()), q.localIaAddress());
            EpAttributes a = q.attributes();
            IaAttributes ia = p.a.ia.query().iaAttributes();
            assertEquals(ServiceType.RC, a.serviceType());
            assertEquals(Qos.BEST_EFFORT, a.qos());
            assertEquals(Set.of(), a.recvCompletionFlags());
            assertEquals(Set.of(), a.requestCompletionFlags());
            // "The Provider is encouraged to pick up reasonable defaults": every count usable, within the IA's limits.
            assertTrue(a.maxMessageSize() >= 1 && a.maxMessageSize() <= ia.maxMessageSize(), "max_message_size " + a);
            assertTrue(a.maxRdmaSize() >= 1 && a.maxRdmaSize() <= ia.maxRdmaSize(), "max_rdma_size " + a);
            assertTrue(a.maxRecvDtos() >= 1 && a.maxRecvDtos() <= ia.maxDtoPerEp(), "max_recv_dtos " + a);
            assertTrue(a.maxRequestDtos() >= 1 && a.maxRequestDtos() <= ia.maxDtoPerEp(), "max_request_dtos " + a);
            assertTrue(a.maxRecvIov() >= 1 && a.maxRecvIov() <= ia.maxIovSegmentsPerDto(), "max_recv_iov " + a);
            assertTrue(
                    a.maxRequestIov() >= 1 && a.maxRequestIov() <= ia.maxIovSegmentsPerDto(), "max_request_iov " + a);
            assertTrue(
                    a.maxRdmaReadIn() <= ia.maxRdmaReadIn() && a.maxRdmaReadOut() <= ia.maxRdmaReadOut(),
                    "rdma read " + a);
            assertEquals(Dat.HW_DEFAULT, a.srqSoftHw());
            assertEquals(EpAttributeRules.defaults((SimIa) p.a.ia), a);

            // The defaults let the endpoint post, connect and transfer without any dat_ep_modify.
            Endpoint peer = p.b.ep();
            peer.postRecv(p.b.iov(0, 64), 1, DEFAULT);
            p.connect(ep, peer);
            ep.postSend(p.a.iov(0, 64), 2, DEFAULT);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    next(p.a.dto, DtoCompletionEvent.class).status());
            assertEquals(64, next(p.b.dto, DtoCompletionEvent.class).transferredLength());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): requested attributes within the IA's limits are kept exactly")
    void shouldKeepRequestedAttributesWhenEveryOneIsAtTheIaLimit(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, SMALL)) {
            IaAttributes ia = p.a.ia.query().iaAttributes();
            EpAttributes requested = EpAttributes.builder()
                    .maxMessageSize(ia.maxMessageSize())
                    .maxRdmaSize(ia.maxRdmaSize())
                    .maxRecvDtos(ia.maxDtoPerEp())
                    .maxRequestDtos(ia.maxDtoPerEp())
                    .maxRecvIov(ia.maxIovSegmentsPerDto())
                    .maxRequestIov(ia.maxIovSegmentsPerDto())
                    .maxRdmaReadIn(ia.maxRdmaReadIn())
                    .maxRdmaReadOut(ia.maxRdmaReadOut())
                    .maxRdmaReadIov(ia.maxIovSegmentsPerRdmaRead())
                    .maxRdmaWriteIov(ia.maxIovSegmentsPerRdmaWrite())
                    .recvCompletionFlags(flags(CompletionFlag.EVD_THRESHOLD))
                    .requestCompletionFlags(flags(CompletionFlag.EVD_THRESHOLD))
                    .build();
            assertEquals(64, requested.maxRecvDtos());
            assertEquals(4, requested.maxRecvIov());
            Endpoint ep = p.a.ep(requested);
            assertEquals(requested, ep.query().attributes());
        }
    }

    /** One attribute out of range: the name and how to make it so. */
    static Stream<Arguments> outOfRange() {
        long maxInt = Integer.MAX_VALUE;
        List<Arguments> l = new ArrayList<>();
        l.add(bad("max_message_size 0", b -> b.maxMessageSize(0)));
        l.add(bad("max_message_size above the IA's", b -> b.maxMessageSize(maxInt + 1)));
        l.add(bad("max_rdma_size above the IA's", b -> b.maxRdmaSize(maxInt + 1)));
        l.add(bad("max_recv_dtos 0", b -> b.maxRecvDtos(0)));
        l.add(bad("max_recv_dtos above max_dto_per_ep", b -> b.maxRecvDtos(65)));
        l.add(bad("max_request_dtos 0", b -> b.maxRequestDtos(0)));
        l.add(bad("max_request_dtos above max_dto_per_ep", b -> b.maxRequestDtos(65)));
        l.add(bad("max_recv_iov 0", b -> b.maxRecvIov(0)));
        l.add(bad("max_recv_iov above max_iov_segments_per_dto", b -> b.maxRecvIov(5)));
        l.add(bad("max_request_iov 0", b -> b.maxRequestIov(0)));
        l.add(bad("max_request_iov above max_iov_segments_per_dto", b -> b.maxRequestIov(5)));
        l.add(bad("max_rdma_read_in above the IA's", b -> b.maxRdmaReadIn(129)));
        l.add(bad("max_rdma_read_out above the IA's", b -> b.maxRdmaReadOut(129)));
        l.add(bad("max_rdma_read_iov above the IA's", b -> b.maxRdmaReadIov(33)));
        l.add(bad("max_rdma_write_iov above the IA's", b -> b.maxRdmaWriteIov(5)));
        // dat.h DAT_COMPLETION_EVD_THRESHOLD_FLAG: "UNSIGNALLED for RECV not allowed" with it.
        l.add(bad(
                "recv flags EVD_THRESHOLD|UNSIGNALLED",
                b -> b.recvCompletionFlags(flags(CompletionFlag.EVD_THRESHOLD, CompletionFlag.UNSIGNALLED))));
        // dat_ep_modify(3DAT): "Recv posting does not support DAT_COMPLETION_SUPPRESS_FLAG or
        // DAT_COMPLETION_BARRIER_FENCE_FLAG"; the value is one of UNSIGNALLED, SOLICITED_WAIT, EVD_THRESHOLD.
        l.add(bad("recv flags SUPPRESS", b -> b.recvCompletionFlags(flags(CompletionFlag.SUPPRESS))));
        l.add(bad("recv flags BARRIER_FENCE", b -> b.recvCompletionFlags(flags(CompletionFlag.BARRIER_FENCE))));
        l.add(bad(
                "recv flags SOLICITED_WAIT|EVD_THRESHOLD",
                b -> b.recvCompletionFlags(flags(CompletionFlag.SOLICITED_WAIT, CompletionFlag.EVD_THRESHOLD))));
        // dat_ep_modify(3DAT): request completion flags are UNSIGNALLED or EVD_THRESHOLD; SUPPRESS,
        // SOLICITED_WAIT and BARRIER_FENCE are flags of each post.
        l.add(bad("request flags SOLICITED_WAIT", b -> b.requestCompletionFlags(flags(CompletionFlag.SOLICITED_WAIT))));
        l.add(bad("request flags SUPPRESS", b -> b.requestCompletionFlags(flags(CompletionFlag.SUPPRESS))));
        l.add(bad("request flags BARRIER_FENCE", b -> b.requestCompletionFlags(flags(CompletionFlag.BARRIER_FENCE))));
        l.add(bad(
                "request flags UNSIGNALLED|EVD_THRESHOLD",
                b -> b.requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED, CompletionFlag.EVD_THRESHOLD))));
        return ConnSupport.everyMode(l);
    }

    private static Arguments bad(String name, UnaryOperator<EpAttributes.Builder> change) {
        return Arguments.of(name, change);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("outOfRange")
    @DisplayName("dat_ep_create(3DAT): an attribute out of range is DAT_INVALID_PARAMETER and creates nothing")
    void shouldRejectAttributeWithInvalidParameterWhenOutOfRange(
            DatPair.Mode mode, String what, UnaryOperator<EpAttributes.Builder> change) {
        try (DatPair p = DatPair.open(mode, SMALL)) {
            EventDispatcher recv = dtoEvd(p.a);
            EventDispatcher request = dtoEvd(p.a);
            EventDispatcher conn = connEvd(p.a);
            EpAttributes attrs = change.apply(validAttributes()).build();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.a.ia.createEndpoint(p.a.pz, recv, request, conn, attrs));
            // Nothing was created: the EVDs feed no stream and free at once.
            recv.free();
            request.free();
            conn.free();
            // The same attributes without the bad value are fine.
            p.a.ep(validAttributes().build()).free();
        }
    }

    @Test
    @DisplayName(
            "dat_ep_create(3DAT): a negative count never reaches the provider (DAT_INVALID_PARAMETER from DAT_EP_ATTR)")
    void shouldRejectNegativeCountWhenBuildingAttributes() {
        assertDat(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> validAttributes().maxRecvDtos(-1).build());
        assertDat(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> validAttributes().maxMessageSize(-1).build());
        assertDat(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> validAttributes().srqSoftHw(-7).build());
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): a QoS the provider does not support is DAT_MODEL_NOT_SUPPORTED")
    void shouldRejectQosWithModelNotSupportedWhenNotBestEffort(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            assertEquals(
                    Set.of(Qos.BEST_EFFORT), p.a.ia.query().providerAttributes().qosSupported());
            for (Qos q : EnumSet.complementOf(EnumSet.of(Qos.BEST_EFFORT))) {
                assertDat(
                        DatReturnType.MODEL_NOT_SUPPORTED,
                        DatReturnSubtype.NO_SUBTYPE,
                        () -> p.a.ep(validAttributes().qos(q).build()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): EVD handles of the wrong kind are DAT_INVALID_HANDLE with the EVD's subtype")
    void shouldRejectEvdWithItsSubtypeWhenItHasNotTheStream(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher connOnly = connEvd(p.a);
            EventDispatcher dto = dtoEvd(p.a);
            EventDispatcher bindOnly = p.a.ia.createEvd(16, null, EnumSet.of(EvdFlag.RMR_BIND));
            EventDispatcher crOnly = p.a.ia.createEvd(16, null, EnumSet.of(EvdFlag.CR));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> p.a.ia.createEndpoint(p.a.pz, connOnly, dto, connOnly, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    () -> p.a.ia.createEndpoint(p.a.pz, dto, connOnly, connOnly, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    () -> p.a.ia.createEndpoint(p.a.pz, dto, bindOnly, connOnly, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    () -> p.a.ia.createEndpoint(p.a.pz, dto, dto, dto, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    () -> p.a.ia.createEndpoint(p.a.pz, dto, dto, crOnly, null));
            // EVDs of another IA are not handles of this one.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> p.a.ia.createEndpoint(p.a.pz, p.b.dto, dto, connOnly, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    () -> p.a.ia.createEndpoint(p.a.pz, dto, p.b.dto, connOnly, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    () -> p.a.ia.createEndpoint(p.a.pz, dto, dto, p.b.conn, null));
            // Nothing took a stream of these EVDs.
            for (EventDispatcher e : List.of(connOnly, dto, bindOnly, crOnly)) {
                e.free();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): freed EVDs are DAT_INVALID_HANDLE with EVD_RECV / EVD_REQUEST / EVD_CONN")
    void shouldRejectEvdWithItsSubtypeWhenFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher deadDto = dtoEvd(p.a);
            EventDispatcher deadConn = connEvd(p.a);
            deadDto.free();
            deadConn.free();
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> p.a.ia.createEndpoint(p.a.pz, deadDto, p.a.dto, p.a.conn, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    () -> p.a.ia.createEndpoint(p.a.pz, p.a.dto, deadDto, p.a.conn, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    () -> p.a.ia.createEndpoint(p.a.pz, p.a.dto, p.a.dto, deadConn, null));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): DAT_HANDLE_NULL EVDs mean no interest in that stream")
    void shouldCreateEndpointWithoutEvdsWhenTheyAreNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ia.createEndpoint(p.a.pz, null, null, null, null);
            EpParams q = ep.query();
            assertEquals(EndpointState.UNCONNECTED, q.state());
            assertEquals(Optional.empty(), q.recvEvd());
            assertEquals(Optional.empty(), q.requestEvd());
            assertEquals(Optional.empty(), q.connectEvd());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): a freed PZ, one of another IA, or none is DAT_INVALID_HANDLE_PZ")
    void shouldRejectPzWithInvalidHandlePzWhenFreedForeignOrNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ProtectionZone dead = p.a.ia.createPz();
            dead.free();
            for (ProtectionZone bad : new ProtectionZone[] {dead, p.b.pz, null}) {
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_PZ,
                        () -> p.a.ia.createEndpoint(bad, p.a.dto, p.a.dto, p.a.conn, null));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create(3DAT): an EVD also fed by non-DTO streams takes only threshold-controlled completion streams")
    void shouldRejectConsumerControlledStreamWhenEvdAlsoFeedsOtherStreams(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            for (EvdFlag other : List.of(EvdFlag.CONNECTION, EvdFlag.CR, EvdFlag.SOFTWARE)) {
                EventDispatcher mixed = p.a.ia.createEvd(64, null, EnumSet.of(EvdFlag.DTO, other));
                EventDispatcher own = dtoEvd(p.a);
                assertCreateRefused(p, mixed, own, recvFlags(CompletionFlag.UNSIGNALLED));
                assertCreateRefused(p, mixed, own, recvFlags(CompletionFlag.SOLICITED_WAIT));
                assertCreateRefused(p, own, mixed, requestFlags(CompletionFlag.UNSIGNALLED));
                // "only DAT_COMPLETION_THRESHOLD is valid": EVD_THRESHOLD (and the default, which notifies every
                // completion and so is threshold-controlled too) are accepted.
                p.a.ia.createEndpoint(p.a.pz, mixed, own, p.a.conn, recvFlags(CompletionFlag.EVD_THRESHOLD));
                p.a.ia.createEndpoint(p.a.pz, own, mixed, p.a.conn, requestFlags(CompletionFlag.EVD_THRESHOLD));
                p.a.ia.createEndpoint(
                        p.a.pz, mixed, mixed, p.a.conn, validAttributes().build());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create(3DAT): once a stream of an EVD is UNSIGNALLED, every request and recv stream of it must be")
    void shouldRequireEveryStreamUnsignalledWhenOneStreamOfTheEvdIsUnsignalled(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher shared = dtoEvd(p.a);
            EventDispatcher own = dtoEvd(p.a);
            EpAttributes unsignalledRequests = requestFlags(CompletionFlag.UNSIGNALLED);
            EpAttributes unsignalledRecvs = recvFlags(CompletionFlag.UNSIGNALLED);
            Endpoint first = p.a.ia.createEndpoint(p.a.pz, own, shared, p.a.conn, unsignalledRequests);

            assertCreateRefused(p, shared, own, validAttributes().build());
            assertCreateRefused(p, own, shared, validAttributes().build());
            assertCreateRefused(p, own, shared, requestFlags(CompletionFlag.EVD_THRESHOLD));
            p.a.ia.createEndpoint(p.a.pz, shared, own, p.a.conn, unsignalledRecvs);
            p.a.ia.createEndpoint(p.a.pz, own, shared, p.a.conn, unsignalledRequests);

            // The other way round: a default stream first, then an UNSIGNALLED one.
            EventDispatcher plain = dtoEvd(p.a);
            p.a.ia.createEndpoint(
                    p.a.pz, plain, own, p.a.conn, validAttributes().build());
            assertCreateRefused(p, own, plain, unsignalledRequests);
            assertCreateRefused(p, plain, own, unsignalledRecvs);
            assertEquals(EndpointState.UNCONNECTED, first.status().state());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create(3DAT): an endpoint's own recv and request streams on one EVD obey the same rules")
    void shouldApplyFlagRulesBetweenOwnStreamsWhenRecvAndRequestShareTheEvd(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher e = dtoEvd(p.a);
            assertCreateRefused(p, e, e, requestFlags(CompletionFlag.UNSIGNALLED));
            assertCreateRefused(p, e, e, recvFlags(CompletionFlag.UNSIGNALLED));
            // SOLICITED_WAIT receives: "the EVD cannot be used for any other event stream types".
            assertCreateRefused(p, e, e, recvFlags(CompletionFlag.SOLICITED_WAIT));
            // Both UNSIGNALLED is what the page asks for.
            Endpoint ok = p.a.ia.createEndpoint(
                    p.a.pz,
                    e,
                    e,
                    p.a.conn,
                    validAttributes()
                            .recvCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                            .requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                            .build());
            ok.free();
            e.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create(3DAT): a SOLICITED_WAIT recv stream shares its EVD only with SOLICITED_WAIT recv streams")
    void shouldRequireSolicitedWaitRecvStreamsOnlyWhenOneRecvStreamIsSolicitedWait(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher shared = dtoEvd(p.a);
            EventDispatcher own = dtoEvd(p.a);
            EpAttributes solicited = recvFlags(CompletionFlag.SOLICITED_WAIT);
            p.a.ia.createEndpoint(p.a.pz, shared, own, p.a.conn, solicited);
            p.a.ia.createEndpoint(p.a.pz, shared, own, p.a.conn, solicited);
            for (EpAttributes other : List.of(
                    validAttributes().build(),
                    recvFlags(CompletionFlag.EVD_THRESHOLD),
                    recvFlags(CompletionFlag.UNSIGNALLED))) {
                assertCreateRefused(p, shared, own, other);
                assertCreateRefused(p, own, shared, other);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_free(3DAT): freeing an endpoint destroys its event streams, so their flag rules no longer apply")
    void shouldAcceptConflictingStreamWhenTheEndpointOfTheOldStreamIsFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher shared = dtoEvd(p.a);
            EventDispatcher own = dtoEvd(p.a);
            Endpoint unsignalled =
                    p.a.ia.createEndpoint(p.a.pz, own, shared, p.a.conn, requestFlags(CompletionFlag.UNSIGNALLED));
            assertCreateRefused(p, own, shared, validAttributes().build());
            unsignalled.free();
            p.a.ia.createEndpoint(
                    p.a.pz, own, shared, p.a.conn, validAttributes().build());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create(3DAT): beyond max_eps the call fails with DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_TEP)")
    void shouldFailWithInsufficientResourcesTepWhenMaxEpsAreInUse(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, "maxQp=3")) {
            assertEquals(3, p.a.ia.query().iaAttributes().maxEps());
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(8, 1, 0));
            Endpoint first = p.a.ep();
            p.a.ep();
            p.a.ia.createEndpointWithSrq(
                    p.a.pz, p.a.dto, p.a.dto, p.a.conn, srq, validAttributes().build());
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP, p.a::ep);
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_TEP,
                    () -> p.a.ia.createEndpointWithSrq(
                            p.a.pz,
                            p.a.dto,
                            p.a.dto,
                            p.a.conn,
                            srq,
                            validAttributes().build()));
            first.free();
            assertEquals(EndpointState.UNCONNECTED, p.a.ep().status().state());
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP, p.a::ep);
        }
    }

    // ------------------------------------------------------------------ dat_ep_create_with_srq

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create_with_srq(3DAT): UNCONNECTED, bound to the SRQ, requested attributes kept (max_recv_iov ignored)")
    void shouldCreateUnconnectedEndpointBoundToSrqWhenPzMatches(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, SMALL)) {
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            EpAttributes requested = validAttributes()
                    .maxRecvDtos(5)
                    .maxMessageSize(1000)
                    .maxRdmaSize(3000)
                    .maxRdmaReadIn(1)
                    .maxRdmaReadOut(3)
                    .build();
            Endpoint ep = p.a.ia.createEndpointWithSrq(p.a.pz, p.a.dto, p.a.dto, p.a.conn, srq, requested);
            EpParams q = ep.query();
            assertEquals(EndpointState.UNCONNECTED, q.state());
            assertEquals(Optional.of(srq), q.srq());
            assertEquals(Optional.of(p.a.pz), q.pz());
            EpAttributes a = q.attributes();
            // "exact Consumer requested values for max_recv_dtos, max_message_size, max_rdma_size,
            // max_rdma_read_in, and max_rdma_read_out"; at least the requested request DTOs and IOV.
            assertEquals(5, a.maxRecvDtos());
            assertEquals(1000, a.maxMessageSize());
            assertEquals(3000, a.maxRdmaSize());
            assertEquals(1, a.maxRdmaReadIn());
            assertEquals(3, a.maxRdmaReadOut());
            assertTrue(a.maxRequestDtos() >= 8 && a.maxRequestIov() >= 2, "request limits " + a);
            assertEquals(requested.recvCompletionFlags(), a.recvCompletionFlags());
            assertEquals(requested.requestCompletionFlags(), a.requestCompletionFlags());
            // max_recv_iov "is ignored": no value of it makes the call fail.
            for (int iov : new int[] {0, 5, 1000, Integer.MAX_VALUE}) {
                Endpoint e = p.a.ia.createEndpointWithSrq(
                        p.a.pz,
                        p.a.dto,
                        p.a.dto,
                        p.a.conn,
                        srq,
                        validAttributes().maxRecvIov(iov).build());
                assertEquals(EndpointState.UNCONNECTED, e.status().state());
                e.free();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create_with_srq(3DAT): a max_recv_dtos the IA cannot give fails (it is kept exactly, not ignored)")
    void shouldRejectMaxRecvDtosWithInvalidParameterWhenAboveIaLimitOnSrqEndpoint(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, SMALL)) {
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            for (int n : new int[] {65, Integer.MAX_VALUE}) {
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.NO_SUBTYPE,
                        () -> p.a.ia.createEndpointWithSrq(
                                p.a.pz,
                                p.a.dto,
                                p.a.dto,
                                p.a.conn,
                                srq,
                                validAttributes().maxRecvDtos(n).build()));
            }
            srq.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create_with_srq(3DAT): ep_attributes cannot be NULL")
    void shouldRejectNullAttributesWithInvalidParameterWhenCreatingWithSrq(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.a.ia.createEndpointWithSrq(p.a.pz, p.a.dto, p.a.dto, p.a.conn, srq, null));
            srq.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create_with_srq(3DAT): a freed SRQ, one of another IA, or none is DAT_INVALID_HANDLE_SRQ")
    void shouldRejectSrqWithInvalidHandleSrqWhenFreedForeignOrNull(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue dead = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            dead.free();
            SharedReceiveQueue foreign = p.b.ia.createSrq(p.b.pz, new SrqAttributes(16, 2, 0));
            for (SharedReceiveQueue bad : new SharedReceiveQueue[] {dead, foreign, null}) {
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_SRQ,
                        () -> p.a.ia.createEndpointWithSrq(
                                p.a.pz,
                                p.a.dto,
                                p.a.dto,
                                p.a.conn,
                                bad,
                                validAttributes().build()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create_with_srq(3DAT): without srq_ep_pz_difference_supported, a PZ other than the SRQ's is DAT_INVALID_PARAMETER")
    void shouldRejectPzWithInvalidParameterWhenItIsNotTheSrqs(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            assertFalse(p.a.ia.query().providerAttributes().srqEpPzDifferenceSupported());
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            ProtectionZone other = p.a.ia.createPz();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> p.a.ia.createEndpointWithSrq(
                            other,
                            p.a.dto,
                            p.a.dto,
                            p.a.conn,
                            srq,
                            validAttributes().build()));
            // Nothing is attached to the SRQ or the PZ.
            srq.free();
            other.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_create_with_srq(3DAT): receives cannot be posted to the EP (S3 SILENT: DAT_INVALID_PARAMETER)")
    void shouldRejectPostRecvWithInvalidParameterWhenEndpointUsesSrq(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            Endpoint ep = p.a.ia.createEndpointWithSrq(
                    p.a.pz, p.a.dto, p.a.dto, p.a.conn, srq, validAttributes().build());
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.postRecv(p.a.iov(0, 64), 1, DEFAULT));
            srq.postRecv(p.a.iov(0, 64), 1);
            assertEquals(1, srq.query().availableDtoCount());
            assertTrue(ep.status().recvIdle());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create_with_srq(3DAT), dat_srq_post_recv(3DAT): SRQ receives complete with signal even on an UNSIGNALLED EP")
    void shouldNotifySrqReceiveCompletionWhenEndpointRecvFlagsAreUnsignalled(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            EventDispatcher recv = dtoEvd(p.a);
            Endpoint ep = p.a.ia.createEndpointWithSrq(
                    p.a.pz, recv, p.a.dto, p.a.conn, srq, recvFlags(CompletionFlag.UNSIGNALLED));
            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            srq.postRecv(p.a.iov(0, 64), 77);
            peer.postSend(p.b.iov(0, 10), 1, DEFAULT);
            DtoCompletionEvent got = completion(recv, 77, DtoCompletionStatus.SUCCESS);
            assertSame(ep, got.ep());
        }
    }

    // ------------------------------------------------------------------ query, status, recv_query, watermark, free in
    // every state

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.simrdma.provider.EpStates#modesAndStates")
    @DisplayName(
            "dat_ep_query, dat_ep_get_status, dat_ep_recv_query, dat_ep_set_watermark in every state; dat_ep_free's state rule")
    void shouldAnswerQueriesInEveryStateAndFreeOnlyOutsideReservedAndRequestPendingStates(
            DatPair.Mode mode, EndpointState state) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = new EpStates.Subject(p).providerEndpointAsGiven().driveTo(state).ep;
            assertEquals(state, ep.query().state());
            assertEquals(state, ep.status().state());
            EpRecvInfo r = ep.recvQuery();
            assertTrue(r.nbufsAllocated() >= 0 && r.bufsAllocSpan() >= r.nbufsAllocated(), "dat_ep_recv_query " + r);
            // dat_ep_set_watermark(3DAT): "The operation is supported for all states of Endpoint."
            ep.setWatermark(Dat.WATERMARK_INFINITE, Dat.WATERMARK_INFINITE);
            ep.setWatermark(100, 100);
            assertEquals(state, ep.status().state());

            // dat_ep_free(3DAT): any state except Reserved, Passive and Tentative Connection Pending.
            boolean refused = state == EndpointState.RESERVED
                    || state == EndpointState.PASSIVE_CONNECTION_PENDING
                    || state == EndpointState.TENTATIVE_CONNECTION_PENDING;
            if (refused) {
                assertDat(DatReturnType.INVALID_STATE, EpStateTable.subtype(state), ep::free);
                assertEquals(state, ep.status().state());
            } else {
                ep.free();
                assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, ep::status);
            }
        }
    }

    // ------------------------------------------------------------------ dat_ep_query, dat_ep_get_status

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_query(3DAT): a connected endpoint reports the remote IA address and port qualifier")
    void shouldReportRemoteAddressAndQualifierWhenConnected(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            Endpoint peer = p.b.ep();
            ConnSupport.establish(p, ep, p.a.conn, peer, p.b.conn, 4242);
            EpParams q = ep.query();
            assertEquals(EndpointState.CONNECTED, q.state());
            assertEquals(Optional.of(p.b.address()), q.remoteIaAddress());
            assertEquals(4242, q.remotePortQual().orElseThrow());
            assertTrue(q.localPortQual().isPresent(), "local_port_qual is valid when connected");
            EpParams pq = peer.query();
            assertEquals(Optional.of(p.a.address()), pq.remoteIaAddress());
            assertEquals(q.localPortQual(), pq.remotePortQual());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_get_status(3DAT): recv_idle is false while a posted receive has not completed")
    void shouldReportRecvNotIdleWhileAReceiveIsOutstanding(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            assertEquals(new EpStatus(EndpointState.UNCONNECTED, true, true), ep.status());
            ep.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            assertEquals(new EpStatus(EndpointState.UNCONNECTED, false, true), ep.status());
            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            assertFalse(ep.status().recvIdle());
            peer.postSend(p.b.iov(0, 8), 2, DEFAULT);
            assertEquals(1, next(p.a.dto, DtoCompletionEvent.class).userCookie());
            assertEquals(new EpStatus(EndpointState.CONNECTED, true, true), ep.status());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_get_status(3DAT): request_idle is false while a Send waits for the peer's receive")
    void shouldReportRequestNotIdleWhileASendIsInFlight(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            // No receive at the peer: the Send is RNR-retried and stays in flight (rnr_retry 7: for ever).
            ep.postSend(p.a.iov(0, 8), 5, DEFAULT);
            assertEquals(new EpStatus(EndpointState.CONNECTED, true, false), ep.status());
            peer.postRecv(p.b.iov(0, 64), 6, DEFAULT);
            assertEquals(5, next(p.a.dto, DtoCompletionEvent.class).userCookie());
            assertEquals(new EpStatus(EndpointState.CONNECTED, true, true), ep.status());
        }
    }

    // ------------------------------------------------------------------ dat_ep_recv_query

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_recv_query(3DAT): without SRQ a buffer is allocated when posted and counted until it completes")
    void shouldCountPostedReceivesUntilTheyCompleteWhenNoSrq(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            assertEquals(new EpRecvInfo(0, 0), ep.recvQuery());
            for (int i = 0; i < 3; i++) {
                ep.postRecv(p.a.iov(i * 64, 64), i, DEFAULT);
            }
            assertEquals(new EpRecvInfo(3, 3), ep.recvQuery());
            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            peer.postSend(p.b.iov(0, 8), 9, DEFAULT);
            assertEquals(0, next(p.a.dto, DtoCompletionEvent.class).userCookie());
            assertEquals(new EpRecvInfo(2, 2), ep.recvQuery());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_recv_query(3DAT): an SRQ endpoint's counts are DAT_VALUE_UNKNOWN (allowed when not obtainable)")
    void shouldReportValueUnknownWhenEndpointUsesSrq(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            Endpoint ep = p.a.ia.createEndpointWithSrq(
                    p.a.pz, p.a.dto, p.a.dto, p.a.conn, srq, validAttributes().build());
            srq.postRecv(p.a.iov(0, 64), 1);
            assertEquals(new EpRecvInfo(Dat.VALUE_UNKNOWN, Dat.VALUE_UNKNOWN), ep.recvQuery());
        }
    }

    // ------------------------------------------------------------------ dat_ep_set_watermark

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_set_watermark(3DAT): a watermark is a count or DAT_WATERMARK_INFINITE")
    void shouldRejectWatermarkWithInvalidParameterWhenNegativeAndNotInfinite(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> ep.setWatermark(-5, 1));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> ep.setWatermark(1, -5));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.setWatermark(Dat.VALUE_UNKNOWN, Dat.WATERMARK_INFINITE));
            ep.setWatermark(0, 0);
            ep.setWatermark(Dat.WATERMARK_INFINITE, Dat.WATERMARK_INFINITE);
        }
    }

    private static void assertSoftWatermarkEvent(EventDispatcher async, Endpoint ep) {
        AsyncErrorEvent e = next(async, AsyncErrorEvent.class);
        // S6 SILENT (event number): the provider reports it as DAT_ASYNC_ERROR_EP_BROKEN with the EP
        // reason DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT, the one EP event number of the header.
        assertEquals(EventNumber.ASYNC_ERROR_EP_BROKEN, e.eventNumber());
        assertEquals(AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, e.reason());
        assertSame(ep, e.handle());
        assertSame(async, e.evd());
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_set_watermark(3DAT): one async event on the IA's async EVD when the buffers at the EP exceed the soft watermark")
    void shouldRaiseOneSoftWatermarkEventPerSettingWhenReceivesExceedIt(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = asyncEvd(p.a);
            Endpoint ep = p.a.ep();
            ep.setWatermark(1, Dat.WATERMARK_INFINITE);
            ep.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            assertNoEvent(async);
            ep.postRecv(p.a.iov(64, 64), 2, DEFAULT);
            assertSoftWatermarkEvent(async, ep);
            // "generated only once per setting"
            ep.postRecv(p.a.iov(128, 64), 3, DEFAULT);
            assertNoEvent(async);
            // Setting it again re-arms it; "If the new high watermark values are below the current number of
            // Receive DTOs at EP, an asynchronous event will be generated immediately."
            ep.setWatermark(2, Dat.WATERMARK_INFINITE);
            assertSoftWatermarkEvent(async, ep);
            ep.setWatermark(3, Dat.WATERMARK_INFINITE);
            assertNoEvent(async);
            ep.postRecv(p.a.iov(192, 64), 4, DEFAULT);
            assertSoftWatermarkEvent(async, ep);
            // No connection event: a soft watermark does not break anything.
            assertNoEvent(p.a.conn);
            assertEquals(EndpointState.UNCONNECTED, ep.status().state());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_set_watermark(3DAT): \"no new asynchronous events for the soft high watermark is generated until "
                    + "the EP is again set for the soft high watermark\": dat_ep_reset(3DAT) does not re-arm it")
    void shouldNotRaiseSoftWatermarkEventAgainWhenEndpointIsResetWithoutNewSetting(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = asyncEvd(p.a);
            Endpoint ep = p.a.ep();
            ep.setWatermark(0, Dat.WATERMARK_INFINITE);
            ep.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            assertSoftWatermarkEvent(async, ep);
            p.connect(ep, p.b.ep());
            ep.disconnect(CloseFlag.ABRUPT);
            DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            ep.reset();
            assertEquals(EndpointState.UNCONNECTED, ep.status().state(), "dat_ep_reset: DISCONNECTED -> UNCONNECTED");
            ep.postRecv(p.a.iov(64, 64), 2, DEFAULT);
            assertNoEvent(async);
            // setting it again arms it: already above, so the event comes at once
            ep.setWatermark(0, Dat.WATERMARK_INFINITE);
            assertSoftWatermarkEvent(async, ep);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_set_watermark(3DAT): the soft watermark counts the buffers an SRQ endpoint takes")
    void shouldRaiseSoftWatermarkEventWhenSrqEndpointTakesABuffer(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = asyncEvd(p.a);
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(16, 2, 0));
            Endpoint ep = p.a.ia.createEndpointWithSrq(
                    p.a.pz, p.a.dto, p.a.dto, p.a.conn, srq, validAttributes().build());
            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            ep.setWatermark(0, Dat.WATERMARK_INFINITE);
            assertNoEvent(async);
            srq.postRecv(p.a.iov(0, 64), 1);
            srq.postRecv(p.a.iov(64, 64), 2);
            peer.postSend(p.b.iov(0, 8), 3, DEFAULT);
            assertEquals(1, next(p.a.dto, DtoCompletionEvent.class).userCookie());
            assertSoftWatermarkEvent(async, ep);
            peer.postSend(p.b.iov(0, 8), 4, DEFAULT);
            assertEquals(2, next(p.a.dto, DtoCompletionEvent.class).userCookie());
            assertNoEvent(async);
            assertEquals(EndpointState.CONNECTED, ep.status().state());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_set_watermark(3DAT): buffers above the hard watermark break the connection (BROKEN on connect_evd)")
    void shouldBreakConnectionWhenReceivesExceedHardWatermark(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = asyncEvd(p.a);
            Endpoint ep = p.a.ep();
            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            ep.setWatermark(Dat.WATERMARK_INFINITE, 1);
            ep.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            assertNoEvent(p.a.conn);
            ep.postRecv(p.a.iov(64, 64), 2, DEFAULT);
            DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(EndpointState.DISCONNECTED, ep.status().state());
            assertNoEvent(async);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_set_watermark(3DAT): the hard watermark is armed as soon as the connection is established")
    void shouldBreakConnectionAtEstablishmentWhenReceivesAlreadyExceedHardWatermark(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            ep.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            ep.postRecv(p.a.iov(64, 64), 2, DEFAULT);
            ep.setWatermark(Dat.WATERMARK_INFINITE, 1);
            // Not connected: nothing to break yet.
            assertNoEvent(p.a.conn);
            assertEquals(EndpointState.UNCONNECTED, ep.status().state());
            p.connect(ep, p.b.ep());
            DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(EndpointState.DISCONNECTED, ep.status().state());
        }
    }

    // ------------------------------------------------------------------ dat_ep_free

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_free(3DAT): every later use of the handle fails with DAT_INVALID_HANDLE_EP")
    void shouldFailEveryOperationWithInvalidHandleEpWhenFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            Endpoint dup = p.a.ep();
            ep.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            ep.free();
            List<Executable> calls = List.of(
                    ep::query,
                    ep::status,
                    ep::recvQuery,
                    ep::reset,
                    () -> ep.setWatermark(1, 1),
                    () -> ep.modify(EpModify.builder().maxMessageSize(100).build()),
                    () -> ep.postRecv(p.a.iov(0, 64), 1, DEFAULT),
                    () -> ep.postSend(p.a.iov(0, 64), 1, DEFAULT),
                    () -> ep.postRdmaRead(p.a.iov(0, 8), 1, p.b.remote(0, 8), DEFAULT),
                    () -> ep.postRdmaWrite(p.a.iov(0, 8), 1, p.b.remote(0, 8), DEFAULT),
                    () -> ep.connect(
                            p.b.address(),
                            1000,
                            DatPair.WAIT,
                            null,
                            Qos.BEST_EFFORT,
                            EnumSet.noneOf(ConnectFlag.class)),
                    () -> ep.disconnect(CloseFlag.ABRUPT),
                    ep::handleType,
                    ep::consumerContext,
                    // Another operation naming the freed EP as its argument.
                    () -> dup.dupConnect(ep, DatPair.WAIT, null, Qos.BEST_EFFORT),
                    // "any subsequent operation except for the dat_ep_free()": the page does not say what a second
                    // free returns; the handle is invalid, so it is DAT_INVALID_HANDLE like every other call.
                    ep::free);
            for (Executable c : calls) {
                assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, c);
            }
            // The freed EP's receive produced no completion.
            assertNoEvent(p.a.dto);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_free(3DAT): freeing an endpoint frees nothing else; its PZ, EVDs and SRQ are released for free")
    void shouldFreeNothingElseWhenEndpointIsFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            InterfaceAdapter ia = p.a.ia;
            ProtectionZone pz = ia.createPz();
            EventDispatcher recv = dtoEvd(p.a);
            EventDispatcher request = dtoEvd(p.a);
            EventDispatcher conn = connEvd(p.a);
            SharedReceiveQueue srq = ia.createSrq(pz, new SrqAttributes(8, 1, 0));
            LocalMemoryRegion lmr = ObjectFixtures.lmr(p.a, pz, MemoryPrivilege.all());
            Endpoint ep =
                    ia.createEndpoint(pz, recv, request, conn, validAttributes().build());
            Endpoint srqEp = ia.createEndpointWithSrq(
                    pz, recv, request, conn, srq, validAttributes().build());
            ep.postRecv(seg(lmr, 0, 64), 1, DEFAULT);
            // In use while the endpoints live.
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, recv::free);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, request::free);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, conn::free);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, srq::free);
            ep.free();
            srqEp.free();
            // Everything else is alive and usable ...
            assertEquals(pz, lmr.query().pz());
            srq.postRecv(seg(lmr, 0, 64), 2);
            assertEquals(1, srq.query().availableDtoCount());
            recv.query();
            conn.query();
            Endpoint again =
                    ia.createEndpoint(pz, recv, request, conn, validAttributes().build());
            again.postRecv(seg(lmr, 0, 64), 3, DEFAULT);
            again.free();
            // ... and, no endpoint using them any more, each frees.
            recv.free();
            request.free();
            conn.free();
            srq.free();
            lmr.free();
            pz.free();
        }
    }

    // ------------------------------------------------------------------ posting: local argument checks

    /** A connected pair of endpoints with their own EVDs and small limits, and LMRs for the checks. */
    private static final class Posting {
        final DatPair p;
        final EventDispatcher recv;
        final EventDispatcher request;
        final Endpoint ep;
        final Endpoint peer;
        final LocalMemoryRegion otherPz;
        final LocalMemoryRegion readOnly;
        final LocalMemoryRegion writeOnly;
        final int deadContext;

        Posting(DatPair p) {
            this.p = p;
            recv = dtoEvd(p.a);
            request = dtoEvd(p.a);
            ep = p.a.ia.createEndpoint(
                    p.a.pz,
                    recv,
                    request,
                    p.a.conn,
                    validAttributes().maxMessageSize(64).maxRdmaSize(64).build());
            peer = p.b.ep();
            ConnSupport.establish(p, ep, p.a.conn, peer, p.b.conn, 4711);
            otherPz = ObjectFixtures.lmr(p.a, p.a.ia.createPz(), MemoryPrivilege.all());
            readOnly = ObjectFixtures.lmr(p.a, p.a.pz, EnumSet.of(MemoryPrivilege.LOCAL_READ));
            writeOnly = ObjectFixtures.lmr(p.a, p.a.pz, EnumSet.of(MemoryPrivilege.LOCAL_WRITE));
            LocalMemoryRegion dead = ObjectFixtures.lmr(p.a, p.a.pz, MemoryPrivilege.all());
            deadContext = dead.lmrContext();
            dead.free();
        }

        List<LmrTriplet> dead(int len) {
            return List.of(new LmrTriplet(deadContext, p.a.lmr.registeredAddress(), len));
        }

        void send(List<LmrTriplet> iov) {
            ep.postSend(iov, 1, DEFAULT);
        }

        void recv(List<LmrTriplet> iov) {
            ep.postRecv(iov, 1, DEFAULT);
        }

        void read(List<LmrTriplet> iov) {
            ep.postRdmaRead(
                    iov,
                    1,
                    p.b.remote(0, (int)
                            iov.stream().mapToLong(LmrTriplet::segmentLength).sum()),
                    DEFAULT);
        }

        void write(List<LmrTriplet> iov) {
            ep.postRdmaWrite(
                    iov,
                    1,
                    p.b.remote(0, (int)
                            iov.stream().mapToLong(LmrTriplet::segmentLength).sum()),
                    DEFAULT);
        }

        /** Nothing was posted by the failed calls: no completion of any kind is queued. */
        void assertNothingPosted() {
            assertNoEvent(recv);
            assertNoEvent(request);
            assertTrue(ep.status().requestIdle() && ep.status().recvIdle(), "status " + ep.status());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_send/recv/rdma_read/rdma_write(3DAT): an invalid LMR is DAT_PRIVILEGES_VIOLATION")
    void shouldRejectInvalidLmrWithPrivilegesViolation(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            assertDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, () -> t.send(t.dead(8)));
            assertDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, () -> t.write(t.dead(8)));
            assertDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE, () -> t.recv(t.dead(8)));
            assertDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE, () -> t.read(t.dead(8)));
            t.assertNothingPosted();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_send/recv/rdma_read/rdma_write(3DAT): a segment outside its LMR is DAT_INVALID_PARAMETER")
    void shouldRejectSegmentOutsideLmrWithInvalidParameter(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            long base = p.a.lmr.registeredAddress();
            long size = p.a.lmr.registeredSize();
            int ctx = p.a.lmr.lmrContext();
            List<List<LmrTriplet>> outside = List.of(
                    List.of(new LmrTriplet(ctx, base + size - 4, 8)),
                    List.of(new LmrTriplet(ctx, base - 1, 8)),
                    List.of(new LmrTriplet(ctx, base + size, 1)),
                    List.of(new LmrTriplet(ctx, base, 4), new LmrTriplet(ctx, base + size - 2, 4)));
            for (List<LmrTriplet> iov : outside) {
                assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.send(iov));
                assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.recv(iov));
                assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.read(iov));
                assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.write(iov));
            }
            t.assertNothingPosted();
            // The last byte of the LMR is inside it.
            t.recv(List.of(new LmrTriplet(ctx, base + size - 1, 1)));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_send/recv/rdma_read/rdma_write(3DAT): an LMR of another PZ is DAT_PROTECTION_VIOLATION")
    void shouldRejectLmrOfAnotherPzWithProtectionViolation(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            List<LmrTriplet> iov = seg(t.otherPz, 0, 8);
            assertDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ, () -> t.send(iov));
            assertDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ, () -> t.write(iov));
            assertDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE, () -> t.recv(iov));
            assertDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE, () -> t.read(iov));
            t.assertNothingPosted();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_*(3DAT): an LMR without the local privilege the DTO needs is DAT_PRIVILEGES_VIOLATION")
    void shouldRejectLmrWithoutNeededLocalPrivilegeWithPrivilegesViolation(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            // Send and RDMA Write read local memory: local read; receive and RDMA Read write it: local write
            // (dat_ep_post_recv says "local read"; C9 CONFLICT, the provider asks for local write).
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_READ,
                    () -> t.send(seg(t.writeOnly, 0, 8)));
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_READ,
                    () -> t.write(seg(t.writeOnly, 0, 8)));
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> t.recv(seg(t.readOnly, 0, 8)));
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> t.read(seg(t.readOnly, 0, 8)));
            t.assertNothingPosted();
            // With the right privilege each is accepted.
            t.recv(seg(t.writeOnly, 0, 8));
            t.peer.postRecv(p.b.iov(0, 64), 2, DEFAULT);
            t.send(seg(t.readOnly, 0, 8));
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    next(t.request, DtoCompletionEvent.class).status());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_*(3DAT): more IOV segments than the endpoint's limit is DAT_INVALID_PARAMETER")
    void shouldRejectTooManySegmentsWithInvalidParameter(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            List<LmrTriplet> three = List.of(
                    p.a.iov(0, 4).get(0), p.a.iov(8, 4).get(0), p.a.iov(16, 4).get(0));
            List<LmrTriplet> two = three.subList(0, 2);
            // max_request_iov, max_recv_iov, max_rdma_read_iov and max_rdma_write_iov are all 2.
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.send(three));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.recv(three));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.read(three));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.write(three));
            t.assertNothingPosted();
            t.recv(two);
            t.write(two);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    next(t.request, DtoCompletionEvent.class).status());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_post_send(3DAT), dat_ep_post_rdma_*(3DAT): beyond max_message_size / max_rdma_size is DAT_INVALID_PARAMETER")
    void shouldRejectMessageLongerThanTheEndpointsMaximumWithInvalidParameter(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            // max_message_size and max_rdma_size are 64.
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.send(p.a.iov(0, 65)));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.send(List.of(p.a.iov(0, 60).get(0), p.a.iov(100, 5).get(0))));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.write(p.a.iov(0, 65)));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> t.read(p.a.iov(0, 65)));
            t.assertNothingPosted();
            t.peer.postRecv(p.b.iov(0, 128), 2, DEFAULT);
            t.send(p.a.iov(0, 64));
            assertEquals(64, next(t.request, DtoCompletionEvent.class).transferredLength());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_post_rdma_write(3DAT) / _read(3DAT): a remote (local) buffer too small for the data is DAT_LENGTH_ERROR")
    void shouldRejectRdmaWithLengthErrorWhenTheReceivingBufferIsTooSmall(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            assertDat(
                    DatReturnType.LENGTH_ERROR,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postRdmaWrite(p.a.iov(0, 32), 1, p.b.remote(0, 31), DEFAULT));
            assertDat(
                    DatReturnType.LENGTH_ERROR,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postRdmaRead(p.a.iov(0, 31), 1, p.b.remote(0, 32), DEFAULT));
            t.assertNothingPosted();
            // A larger remote buffer for a write, a larger local one for a read, are fine.
            p.a.buf.put(0, (byte) 5);
            t.ep.postRdmaWrite(p.a.iov(0, 8), 2, p.b.remote(100, 16), DEFAULT);
            assertEquals(2, next(t.request, DtoCompletionEvent.class).userCookie());
            assertEquals(5, p.b.buf.get(100));
            p.b.buf.put(200, (byte) 6);
            t.ep.postRdmaRead(p.a.iov(300, 16), 3, p.b.remote(200, 8), DEFAULT);
            DtoCompletionEvent read = next(t.request, DtoCompletionEvent.class);
            assertEquals(3, read.userCookie());
            assertEquals(8, read.transferredLength());
            assertEquals(6, p.a.buf.get(300));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_post_*(3DAT): post completion flags the endpoint is not configured for are DAT_INVALID_PARAMETER")
    void shouldRejectCompletionFlagWithInvalidParameterWhenEndpointIsNotConfiguredForIt(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            // UNSIGNALLED "is only valid if the Endpoint Request (Recv) Completion Flags" are UNSIGNALLED.
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postSend(p.a.iov(0, 8), 1, flags(CompletionFlag.UNSIGNALLED)));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postRdmaWrite(p.a.iov(0, 8), 1, p.b.remote(0, 8), flags(CompletionFlag.UNSIGNALLED)));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postRdmaRead(p.a.iov(0, 8), 1, p.b.remote(0, 8), flags(CompletionFlag.UNSIGNALLED)));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postRecv(p.a.iov(0, 8), 1, flags(CompletionFlag.UNSIGNALLED)));
            // EVD_THRESHOLD is an endpoint attribute only; a receive takes no flag but UNSIGNALLED
            // (dat_ep_post_recv(3DAT); dat_ep_modify(3DAT): "Recv posting does not support" SUPPRESS or BARRIER_FENCE).
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postSend(p.a.iov(0, 8), 1, flags(CompletionFlag.EVD_THRESHOLD)));
            for (CompletionFlag f : List.of(
                    CompletionFlag.SUPPRESS,
                    CompletionFlag.BARRIER_FENCE,
                    CompletionFlag.SOLICITED_WAIT,
                    CompletionFlag.EVD_THRESHOLD)) {
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.NO_SUBTYPE,
                        () -> t.ep.postRecv(p.a.iov(0, 8), 1, flags(f)));
            }
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> t.ep.postSend(p.a.iov(0, 8), 1, null));
            t.assertNothingPosted();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_*(3DAT): the user cookie comes back untouched in the completion on the right EVD")
    void shouldReturnUserCookieUntouchedWhenDtoCompletes(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            long recvCookie = Long.MIN_VALUE;
            long sendCookie = 0xCAFEBABEDEADBEEFL;
            long writeCookie = -1L;
            long readCookie = Long.MAX_VALUE;
            t.ep.postRecv(p.a.iov(1000, 64), recvCookie, DEFAULT);
            t.peer.postRecv(p.b.iov(0, 64), 0, DEFAULT);
            t.ep.postSend(p.a.iov(0, 16), sendCookie, DEFAULT);
            t.ep.postRdmaWrite(p.a.iov(0, 16), writeCookie, p.b.remote(100, 16), DEFAULT);
            t.ep.postRdmaRead(p.a.iov(200, 16), readCookie, p.b.remote(100, 16), DEFAULT);
            long[] expected = {sendCookie, writeCookie, readCookie};
            for (long c : expected) {
                DtoCompletionEvent e = completion(t.request, c, DtoCompletionStatus.SUCCESS);
                assertSame(t.ep, e.ep());
                assertEquals(16, e.transferredLength());
            }
            p.b.buf.put(10, (byte) 42);
            t.peer.postSend(p.b.iov(0, 12), 0, DEFAULT);
            DtoCompletionEvent got = next(t.recv, DtoCompletionEvent.class);
            assertEquals(recvCookie, got.userCookie());
            assertEquals(12, got.transferredLength());
            assertSame(t.recv, got.evd());
            assertEquals(42, p.a.buf.get(1010));
            assertNoEvent(t.recv);
            assertNoEvent(t.request);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat.h DAT_LMR_TRIPLET, dat_ep_post_send(3DAT): a zero-length segment is legal whatever its other fields")
    void shouldIgnoreZeroLengthSegmentWhenPosting(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            List<LmrTriplet> empty = List.of(new LmrTriplet(t.deadContext, 12345, 0));
            t.peer.postRecv(p.b.iov(0, 64), 1, DEFAULT);
            t.ep.postSend(empty, 8, DEFAULT);
            completion(t.request, 8, DtoCompletionStatus.SUCCESS);
            DtoCompletionEvent r = next(p.b.dto, DtoCompletionEvent.class);
            assertEquals(0, r.transferredLength());
            // A zero-size message with no segment at all (num_segments 0).
            t.peer.postRecv(List.of(), 2, DEFAULT);
            t.ep.postSend(List.of(), 9, DEFAULT);
            assertEquals(9, next(t.request, DtoCompletionEvent.class).userCookie());
            assertEquals(2, next(p.b.dto, DtoCompletionEvent.class).userCookie());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_recv(3DAT): more receives than max_recv_dtos is DAT_INSUFFICIENT_RESOURCES")
    void shouldRejectReceiveWithInsufficientResourcesWhenMaxRecvDtosArePosted(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep(validAttributes().maxRecvDtos(2).build());
            ep.postRecv(p.a.iov(0, 8), 1, DEFAULT);
            ep.postRecv(p.a.iov(8, 8), 2, DEFAULT);
            DatException e =
                    assertDat(DatReturnType.INSUFFICIENT_RESOURCES, () -> ep.postRecv(p.a.iov(16, 8), 3, DEFAULT));
            assertEquals(DatReturnSubtype.RESOURCE_MEMORY, e.subtype());
            assertEquals(new EpRecvInfo(2, 2), ep.recvQuery());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_recv(3DAT): data lands in the posted segments in IOV order")
    void shouldFillReceiveSegmentsInIovOrder(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            t.ep.postRecv(List.of(p.a.iov(2000, 3).get(0), p.a.iov(3000, 8).get(0)), 5, DEFAULT);
            byte[] data = {1, 2, 3, 4, 5};
            p.b.buf.put(0, data);
            t.peer.postSend(p.b.iov(0, 5), 6, DEFAULT);
            assertEquals(5, next(t.recv, DtoCompletionEvent.class).transferredLength());
            byte[] first = new byte[3];
            byte[] second = new byte[2];
            p.a.buf.get(2000, first);
            p.a.buf.get(3000, second);
            assertArrayEquals(new byte[] {1, 2, 3}, first);
            assertArrayEquals(new byte[] {4, 5}, second);
        }
    }

    @ParameterizedTest
    @EnumSource(value = DatPair.Mode.class, names = "DETERMINISTIC")
    @DisplayName("dat_ep_get_status(3DAT): request_idle is false while an RDMA Read is in flight (deterministic only: "
            + "the threaded fabric may finish it before dat_ep_get_status)")
    void shouldReportRequestNotIdleWhileRdmaReadIsInFlight(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Posting t = new Posting(p);
            t.ep.postRdmaRead(p.a.iov(0, 8), 4, p.b.remote(0, 8), DEFAULT);
            assertFalse(t.ep.status().requestIdle());
            assertEquals(4, next(t.request, DtoCompletionEvent.class).userCookie());
            assertTrue(t.ep.status().requestIdle());
        }
    }
}
