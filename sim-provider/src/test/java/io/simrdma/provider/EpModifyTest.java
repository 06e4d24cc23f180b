package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.connEvd;
import static io.simrdma.provider.ConnSupport.dtoEvd;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.flags;
import static io.simrdma.provider.DatPair.next;
import static io.simrdma.provider.EventTestSupport.completion;
import static io.simrdma.provider.ObjectFixtures.validAttributes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
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
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.NamedAttribute;
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
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * dat_ep_modify(3DAT) on real endpoints: which parameter may change in which state, exactly as the
 * page lists them; PZ and EVD changes and what they do to posted receives and to completions;
 * invalid values; and "nothing changes on failure" (dat_ep_query before == after).
 */
class EpModifyTest {

    private static final Set<CompletionFlag> DEFAULT = CompletionFlag.defaults();

    /** The states where dat_ep_modify changes anything: before a connection is requested or accepted. */
    private static final Set<EndpointState> BEFORE_CONNECTION = EnumSet.of(
            EndpointState.UNCONNECTED,
            EndpointState.RESERVED,
            EndpointState.PASSIVE_CONNECTION_PENDING,
            EndpointState.TENTATIVE_CONNECTION_PENDING);

    /** The quiescent states of dat_ep_modify(3DAT)'s Protection Zone row. */
    private static final Set<EndpointState> QUIESCENT =
            EnumSet.of(EndpointState.UNCONNECTED, EndpointState.TENTATIVE_CONNECTION_PENDING);

    /** The transport- and provider-specific attributes and their counts: "Quiescent (unconnected) state" only. */
    private static final Set<EpParamField> SPECIFIC = EnumSet.of(
            EpParamField.EP_ATTR_NUM_TRANSPORT_ATTR,
            EpParamField.EP_ATTR_TRANSPORT_SPECIFIC_ATTR,
            EpParamField.EP_ATTR_NUM_PROVIDER_ATTR,
            EpParamField.EP_ATTR_PROVIDER_SPECIFIC_ATTR);

    /**
     * Whether dat_ep_modify(3DAT) lets {@code f} change in {@code s}: the Protection Zone and the
     * transport- and provider-specific attributes ("Can be modified when in Quiescent (unconnected)
     * state") only in the quiescent states (UNCONNECTED, TENTATIVE_CONNECTION_PENDING); every other
     * modifiable parameter in Unconnected, Reserved, Passive Connection Pending and Tentative
     * Connection Pending. The page does not list srq_soft_hw, max_rdma_read_iov or
     * max_rdma_write_iov (S5 SILENT: the provider treats them like the other attributes).
     */
    static boolean allowed(EpParamField f, EndpointState s) {
        if (f == EpParamField.PZ_HANDLE || SPECIFIC.contains(f)) {
            return QUIESCENT.contains(s);
        }
        return BEFORE_CONNECTION.contains(s);
    }

    /** New objects of the side an endpoint lives on, to change its handles to. */
    private record Targets(ProtectionZone pz, EventDispatcher dto, EventDispatcher conn) {
        static Targets on(DatPair.Side s) {
            return new Targets(s.ia.createPz(), dtoEvd(s), connEvd(s));
        }
    }

    /** A modification of {@code f} (with its partner bit for the named-attribute lists) to a new valid value. */
    private static EpModify change(EpParamField f, Targets t) {
        EpModify.Builder b = EpModify.builder();
        switch (f) {
            case PZ_HANDLE -> b.pz(t.pz());
            case RECV_EVD_HANDLE -> b.recvEvd(t.dto());
            case REQUEST_EVD_HANDLE -> b.requestEvd(t.dto());
            case CONNECT_EVD_HANDLE -> b.connectEvd(t.conn());
            case EP_ATTR_SERVICE_TYPE -> b.serviceType(ServiceType.RC);
            case EP_ATTR_MAX_MESSAGE_SIZE -> b.maxMessageSize(4000);
            case EP_ATTR_MAX_RDMA_SIZE -> b.maxRdmaSize(8000);
            case EP_ATTR_QOS -> b.qos(Qos.BEST_EFFORT);
            case EP_ATTR_RECV_COMPLETION_FLAGS -> b.recvCompletionFlags(flags(CompletionFlag.EVD_THRESHOLD));
            case EP_ATTR_REQUEST_COMPLETION_FLAGS -> b.requestCompletionFlags(flags(CompletionFlag.EVD_THRESHOLD));
            case EP_ATTR_MAX_RECV_DTOS -> b.maxRecvDtos(7);
            case EP_ATTR_MAX_REQUEST_DTOS -> b.maxRequestDtos(9);
            case EP_ATTR_MAX_RECV_IOV -> b.maxRecvIov(3);
            case EP_ATTR_MAX_REQUEST_IOV -> b.maxRequestIov(3);
            case EP_ATTR_MAX_RDMA_READ_IN -> b.maxRdmaReadIn(3);
            case EP_ATTR_MAX_RDMA_READ_OUT -> b.maxRdmaReadOut(3);
            case EP_ATTR_SRQ_SOFT_HW -> b.srqSoftHw(5);
            case EP_ATTR_MAX_RDMA_READ_IOV -> b.maxRdmaReadIov(3);
            case EP_ATTR_MAX_RDMA_WRITE_IOV -> b.maxRdmaWriteIov(3);
            case EP_ATTR_NUM_TRANSPORT_ATTR, EP_ATTR_TRANSPORT_SPECIFIC_ATTR ->
                b.transportSpecific(List.of(new NamedAttribute("h8.transport", "1")));
            case EP_ATTR_NUM_PROVIDER_ATTR, EP_ATTR_PROVIDER_SPECIFIC_ATTR ->
                b.providerSpecific(List.of(new NamedAttribute("h8.provider", "2")));
            default -> throw new IllegalArgumentException(f + " is never modifiable");
        }
        return b.build();
    }

    /** {@code before} with {@code m} applied, as dat_ep_query must show it after a successful modify. */
    private static EpParams applied(EpParams before, EpModify m) {
        return new EpParams(
                before.ia(),
                before.state(),
                before.localIaAddress(),
                before.localPortQual(),
                before.remoteIaAddress(),
                before.remotePortQual(),
                m.contains(EpParamField.PZ_HANDLE) ? Optional.of(m.pz()) : before.pz(),
                m.contains(EpParamField.RECV_EVD_HANDLE) ? Optional.ofNullable(m.recvEvd()) : before.recvEvd(),
                m.contains(EpParamField.REQUEST_EVD_HANDLE) ? Optional.ofNullable(m.requestEvd()) : before.requestEvd(),
                m.contains(EpParamField.CONNECT_EVD_HANDLE) ? Optional.ofNullable(m.connectEvd()) : before.connectEvd(),
                before.srq(),
                m.applyTo(before.attributes()));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.simrdma.provider.EpStates#modesAndStates")
    @DisplayName(
            "dat_ep_modify(3DAT): each modifiable parameter changes in the states the page lists, else DAT_INVALID_STATE and nothing changes")
    void shouldModifyEachParameterOnlyInTheStatesThePageLists(DatPair.Mode mode, EndpointState state) {
        try (DatPair p = DatPair.open(mode)) {
            EpStates.Subject placed =
                    new EpStates.Subject(p).providerEndpointAsGiven().driveTo(state);
            Endpoint ep = placed.ep;
            Targets t = Targets.on(placed.side);
            int changed = 0;
            for (EpParamField f : EpParamField.values()) {
                if (!f.modifiable()) {
                    continue;
                }
                EpModify m = change(f, t);
                EpParams before = ep.query();
                if (allowed(f, state)) {
                    ep.modify(m);
                    assertEquals(applied(before, m), ep.query(), () -> f + " in " + state);
                    changed++;
                } else {
                    assertDat(DatReturnType.INVALID_STATE, EpStateTable.subtype(state), () -> ep.modify(m));
                    assertEquals(
                            before, ep.query(), () -> "failed modify of " + f + " in " + state + " changed the EP");
                }
                assertEquals(state, ep.status().state(), () -> "modify of " + f + " moved the EP");
            }
            // 23 modifiable mask bits: PZ, three EVDs, fifteen attributes, two named-attribute lists of two bits each;
            // RESERVED and PASSIVE_CONNECTION_PENDING take neither the PZ nor the four named-attribute bits.
            int expected = QUIESCENT.contains(state) ? 23 : BEFORE_CONNECTION.contains(state) ? 18 : 0;
            assertEquals(expected, changed, "parameters modifiable in " + state);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_modify(3DAT): IA, state, addresses, port qualifiers (and the SRQ) cannot be modified: DAT_INVALID_PARAMETER")
    void shouldRejectNeverModifiableFieldsWithInvalidParameter(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            EpParams before = ep.query();
            List<EpParamField> never = new ArrayList<>();
            for (EpParamField f : EpParamField.values()) {
                if (!f.modifiable()) {
                    never.add(f);
                    assertDat(
                            DatReturnType.INVALID_PARAMETER,
                            DatReturnSubtype.NO_SUBTYPE,
                            () -> ep.modify(
                                    EpModify.from(before, EnumSet.of(f, EpParamField.EP_ATTR_MAX_MESSAGE_SIZE))));
                }
            }
            assertEquals(
                    List.of(
                            EpParamField.IA_HANDLE,
                            EpParamField.EP_STATE,
                            EpParamField.LOCAL_IA_ADDRESS_PTR,
                            EpParamField.LOCAL_PORT_QUAL,
                            EpParamField.REMOTE_IA_ADDRESS_PTR,
                            EpParamField.REMOTE_PORT_QUAL,
                            EpParamField.SRQ_HANDLE),
                    never);
            assertEquals(before, ep.query());
            // The C form with modifiable fields only is accepted.
            ep.modify(EpModify.from(before, EnumSet.of(EpParamField.EP_ATTR_MAX_MESSAGE_SIZE, EpParamField.PZ_HANDLE)));
            assertEquals(before, ep.query());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.simrdma.provider.EpStates#modesAndStates")
    @DisplayName("dat_ep_modify(3DAT) Num / Transport-specific and Num / Provider-specific endpoint attributes: "
            + "\"Can be modified when in Quiescent (unconnected) state\" (UNCONNECTED, TENTATIVE_CONNECTION_PENDING); "
            + "elsewhere DAT_INVALID_STATE with the state's subtype, nothing changed, even with other fields the state "
            + "allows in the same mask")
    void shouldModifySpecificAttributesOnlyInTheQuiescentStates(DatPair.Mode mode, EndpointState state) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = new EpStates.Subject(p).driveTo(state).ep;
            List<NamedAttribute> transport = List.of(new NamedAttribute("simrdma.transport", "t"));
            List<NamedAttribute> provider =
                    List.of(new NamedAttribute("simrdma.provider", "p"), new NamedAttribute("simrdma.provider.2", "q"));
            EpModify both = EpModify.builder()
                    .maxMessageSize(4000)
                    .transportSpecific(transport)
                    .providerSpecific(provider)
                    .build();
            EpParams before = ep.query();
            if (QUIESCENT.contains(state)) {
                ep.modify(both);
                assertEquals(transport, ep.query().attributes().transportSpecific());
                assertEquals(provider, ep.query().attributes().providerSpecific());
                assertEquals(4000, ep.query().attributes().maxMessageSize());
            } else {
                assertDat(DatReturnType.INVALID_STATE, EpStateTable.subtype(state), () -> ep.modify(both));
                for (EpModify one : List.of(
                        EpModify.builder().transportSpecific(transport).build(),
                        EpModify.builder().providerSpecific(provider).build())) {
                    assertDat(DatReturnType.INVALID_STATE, EpStateTable.subtype(state), () -> ep.modify(one));
                }
                assertEquals(before, ep.query(), () -> "a refused modify in " + state + " changed the EP");
            }
            assertEquals(state, ep.status().state());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT): a mask with one field not modifiable in the state changes none of the others")
    void shouldChangeNothingWhenOneFieldOfTheMaskIsNotModifiableInTheState(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            for (EndpointState s : List.of(EndpointState.RESERVED, EndpointState.PASSIVE_CONNECTION_PENDING)) {
                EpStates.Subject placed = new EpStates.Subject(p).driveTo(s);
                Endpoint ep = placed.ep;
                Targets t = Targets.on(placed.side);
                EpParams before = ep.query();
                assertDat(
                        DatReturnType.INVALID_STATE,
                        EpStateTable.subtype(s),
                        () -> ep.modify(EpModify.builder()
                                .maxMessageSize(4000)
                                .maxRecvDtos(3)
                                .recvEvd(t.dto())
                                .pz(t.pz())
                                .build()));
                assertEquals(before, ep.query());
                // The PZ and the new EVD took no user of the failed call: both free.
                t.pz().free();
                t.dto().free();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT): an invalid value, handle or stream combination fails and changes nothing")
    void shouldChangeNothingWhenAValueIsInvalid(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher recv = dtoEvd(p.a);
            EventDispatcher request = dtoEvd(p.a);
            EventDispatcher conn = connEvd(p.a);
            Endpoint ep = p.a.ia.createEndpoint(
                    p.a.pz, recv, request, conn, validAttributes().build());
            ep.postRecv(p.a.iov(0, 64), 1, DEFAULT);
            EventDispatcher spare = dtoEvd(p.a);
            ProtectionZone dead = p.a.ia.createPz();
            dead.free();
            EpParams before = ep.query();

            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(EpModify.builder()
                            .maxMessageSize(4000)
                            .maxRecvDtos(0)
                            .build()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    () -> ep.modify(
                            EpModify.builder().recvEvd(spare).requestEvd(conn).build()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> ep.modify(EpModify.builder()
                            .maxMessageSize(4000)
                            .recvEvd(conn)
                            .build()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    () -> ep.modify(EpModify.builder().connectEvd(spare).build()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> ep.modify(
                            EpModify.builder().maxMessageSize(4000).pz(dead).build()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> ep.modify(EpModify.builder().pz(p.b.pz).build()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> ep.modify(EpModify.builder().recvEvd(p.b.dto).build()));
            // dat_ep_modify(3DAT) names only DAT_INVALID_PARAMETER for a value "not supported".
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(EpModify.builder()
                            .maxMessageSize(4000)
                            .qos(Qos.PREMIUM)
                            .build()));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(EpModify.builder()
                            .requestCompletionFlags(flags(CompletionFlag.SOLICITED_WAIT))
                            .build()));
            // dat_ep_create(3DAT) USAGE: UNSIGNALLED requests on an EVD whose other stream (the EP's own receives,
            // moved there in the same call) is not UNSIGNALLED.
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(EpModify.builder()
                            .recvEvd(spare)
                            .requestEvd(spare)
                            .requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                            .build()));

            assertEquals(before, ep.query());
            assertEquals(new EpRecvInfo(1, 1), ep.recvQuery());
            // Stream accounting is unchanged too: the spare EVD has no stream, the EP's EVDs still have theirs.
            spare.free();
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, recv::free);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, request::free);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, conn::free);
            // And the EP still works as before.
            ep.postRecv(p.a.iov(64, 64), 2, DEFAULT);
            assertEquals(new EpRecvInfo(2, 2), ep.recvQuery());
        }
    }

    static Stream<Arguments> invalidValues() {
        List<UnaryOperator<EpModify.Builder>> l = List.of(
                b -> b.maxMessageSize(0),
                b -> b.maxMessageSize(Integer.MAX_VALUE + 1L),
                b -> b.maxRdmaSize(Integer.MAX_VALUE + 1L),
                b -> b.maxRecvDtos(0),
                b -> b.maxRecvDtos(65),
                b -> b.maxRequestDtos(0),
                b -> b.maxRequestDtos(65),
                b -> b.maxRecvIov(0),
                b -> b.maxRecvIov(5),
                b -> b.maxRequestIov(0),
                b -> b.maxRequestIov(5),
                b -> b.maxRdmaReadIn(129),
                b -> b.maxRdmaReadOut(129),
                b -> b.maxRdmaReadIov(5),
                b -> b.maxRdmaWriteIov(5),
                b -> b.qos(Qos.LOW_LATENCY),
                b -> b.recvCompletionFlags(flags(CompletionFlag.SUPPRESS)),
                b -> b.recvCompletionFlags(flags(CompletionFlag.UNSIGNALLED, CompletionFlag.EVD_THRESHOLD)),
                b -> b.requestCompletionFlags(flags(CompletionFlag.BARRIER_FENCE)),
                b -> b.requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED, CompletionFlag.EVD_THRESHOLD)));
        return ConnSupport.everyMode(IntStream.range(0, l.size())
                .mapToObj(i -> Arguments.of(i, l.get(i)))
                .toList());
    }

    @ParameterizedTest(name = "{0} #{1}")
    @MethodSource("invalidValues")
    @DisplayName(
            "dat_ep_modify(3DAT): a value out of range or not supported is DAT_INVALID_PARAMETER and changes nothing")
    void shouldRejectValueWithInvalidParameterWhenOutOfRangeOrUnsupported(
            DatPair.Mode mode, int index, UnaryOperator<EpModify.Builder> bad) {
        try (DatPair p = DatPair.open(mode, "maxQpWr=64&maxSge=4")) {
            Endpoint ep = p.a.ia.createEndpoint(
                    p.a.pz,
                    dtoEvd(p.a),
                    dtoEvd(p.a),
                    p.a.conn,
                    validAttributes().build());
            EpParams before = ep.query();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(
                            bad.apply(EpModify.builder().maxMessageSize(1000)).build()));
            assertEquals(before, ep.query());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT): Recv Completion Flags change only before any receive is posted")
    void shouldRefuseRecvCompletionFlagsWithInvalidStateOnceAReceiveWasPosted(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher recv = dtoEvd(p.a);
            Endpoint ep = p.a.ia.createEndpoint(
                    p.a.pz, recv, p.a.dto, p.a.conn, validAttributes().build());
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.postRecv(p.a.iov(0, 64), 1, flags(CompletionFlag.UNSIGNALLED)));
            ep.modify(EpModify.builder()
                    .recvCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                    .build());
            assertEquals(
                    Set.of(CompletionFlag.UNSIGNALLED), ep.query().attributes().recvCompletionFlags());
            ep.modify(EpModify.builder()
                    .recvCompletionFlags(flags(CompletionFlag.SOLICITED_WAIT))
                    .build());
            ep.modify(EpModify.builder()
                    .recvCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                    .build());
            ep.postRecv(p.a.iov(0, 64), 1, flags(CompletionFlag.UNSIGNALLED));

            EpParams before = ep.query();
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> ep.modify(
                            EpModify.builder().recvCompletionFlags(DEFAULT).build()));
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> ep.modify(EpModify.builder()
                            .maxMessageSize(100)
                            .recvCompletionFlags(DEFAULT)
                            .build()));
            assertEquals(before, ep.query());
            // Every other parameter stays modifiable.
            ep.modify(EpModify.builder().maxMessageSize(100).build());
            assertEquals(100, ep.query().attributes().maxMessageSize());
            // Also once the receive is gone: "before posting of any Recvs" (it is flushed, and a flush notifies).
            p.connect(ep, p.b.ep());
            ep.disconnect(CloseFlag.ABRUPT);
            DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            completion(recv, 1, DtoCompletionStatus.ERR_FLUSHED);
            ep.reset();
            assertEquals(new EpRecvInfo(0, 0), ep.recvQuery());
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> ep.modify(
                            EpModify.builder().recvCompletionFlags(DEFAULT).build()));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT): after an EVD change completions and connection events go to the new EVDs")
    void shouldReportToNewEvdsWhenEvdsAreModified(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher recv1 = dtoEvd(p.a);
            EventDispatcher request1 = dtoEvd(p.a);
            EventDispatcher conn1 = connEvd(p.a);
            EventDispatcher recv2 = dtoEvd(p.a);
            EventDispatcher request2 = dtoEvd(p.a);
            EventDispatcher conn2 = connEvd(p.a);
            Endpoint ep = p.a.ia.createEndpoint(
                    p.a.pz, recv1, request1, conn1, validAttributes().build());
            ep.postRecv(p.a.iov(0, 64), 11, DEFAULT);
            ep.modify(EpModify.builder()
                    .recvEvd(recv2)
                    .requestEvd(request2)
                    .connectEvd(conn2)
                    .build());
            // The old EVDs feed no stream of the EP any more.
            recv1.free();
            request1.free();
            conn1.free();
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, recv2::free);

            Endpoint peer = p.b.ep();
            peer.postRecv(p.b.iov(0, 64), 21, DEFAULT);
            ConnSupport.establish(p, ep, conn2, peer, p.b.conn, 777);
            ep.postSend(p.a.iov(100, 8), 12, DEFAULT);
            assertEquals(12, next(request2, DtoCompletionEvent.class).userCookie());
            assertEquals(21, next(p.b.dto, DtoCompletionEvent.class).userCookie());
            peer.postSend(p.b.iov(100, 8), 22, DEFAULT);
            DtoCompletionEvent got = next(recv2, DtoCompletionEvent.class);
            assertEquals(11, got.userCookie());
            assertEquals(recv2, got.evd());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT): receives posted before a change that rebuilds the QP stay posted, in order")
    void shouldKeepPostedReceivesWhenTheQueuePairIsRebuilt(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher recv = dtoEvd(p.a);
            EventDispatcher recv2 = dtoEvd(p.a);
            Endpoint ep = p.a.ia.createEndpoint(
                    p.a.pz, recv, p.a.dto, p.a.conn, validAttributes().build());
            for (int i = 0; i < 3; i++) {
                ep.postRecv(
                        List.of(
                                p.a.iov(1000 * i, 2).get(0),
                                p.a.iov(1000 * i + 500, 8).get(0)),
                        30 + i,
                        DEFAULT);
            }
            // New queue sizes and a new receive EVD need a new QP.
            ep.modify(EpModify.builder()
                    .maxRequestDtos(16)
                    .maxRecvDtos(16)
                    .maxRecvIov(4)
                    .build());
            ep.modify(EpModify.builder().recvEvd(recv2).build());
            assertEquals(new EpRecvInfo(3, 3), ep.recvQuery());
            assertTrue(!ep.status().recvIdle());
            recv.free();

            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            for (int i = 0; i < 3; i++) {
                p.b.buf.put(i * 10, new byte[] {(byte) (i + 1), (byte) (i + 2), (byte) (i + 3)});
                peer.postSend(p.b.iov(i * 10, 3), 40 + i, DEFAULT);
            }
            for (int i = 0; i < 3; i++) {
                DtoCompletionEvent e = completion(recv2, 30 + i, DtoCompletionStatus.SUCCESS);
                assertEquals(3, e.transferredLength());
                assertEquals(i + 1, p.a.buf.get(1000 * i));
                assertEquals(i + 3, p.a.buf.get(1000 * i + 500));
            }
            assertEquals(new EpRecvInfo(0, 0), ep.recvQuery());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT): a new PZ fails the posted receives of other PZs; posts then use the new PZ")
    void shouldFailPostedReceivesOfTheOldPzWhenThePzIsModified(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher recv = dtoEvd(p.a);
            EventDispatcher request = dtoEvd(p.a);
            ProtectionZone pz2 = p.a.ia.createPz();
            LocalMemoryRegion lmr2 = ObjectFixtures.lmr(p.a, pz2, MemoryPrivilege.all());
            List<LmrTriplet> inPz2 = ObjectFixtures.seg(lmr2, 0, 64);
            Endpoint ep = p.a.ia.createEndpoint(
                    p.a.pz, recv, request, p.a.conn, validAttributes().build());
            assertDat(
                    DatReturnType.PROTECTION_VIOLATION,
                    DatReturnSubtype.PROTECTION_WRITE,
                    () -> ep.postRecv(inPz2, 50, DEFAULT));
            ep.postRecv(p.a.iov(0, 64), 51, DEFAULT);

            ep.modify(EpModify.builder().pz(pz2).build());
            assertEquals(Optional.of(pz2), ep.query().pz());
            completion(recv, 51, DtoCompletionStatus.ERR_LOCAL_PROTECTION);
            assertEquals(new EpRecvInfo(0, 0), ep.recvQuery());
            // The old PZ is no longer the EP's: it can be freed once its own LMR goes.
            assertDat(
                    DatReturnType.PROTECTION_VIOLATION,
                    DatReturnSubtype.PROTECTION_WRITE,
                    () -> ep.postRecv(p.a.iov(0, 64), 52, DEFAULT));
            ep.postRecv(inPz2, 53, DEFAULT);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, pz2::free);

            Endpoint peer = p.b.ep();
            p.connect(ep, peer);
            peer.postSend(p.b.iov(0, 8), 54, DEFAULT);
            completion(recv, 53, DtoCompletionStatus.SUCCESS);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_modify(3DAT), dat_ep_create(3DAT): moving a stream onto an EVD obeys the shared-EVD flag rules")
    void shouldRejectStreamMoveWithInvalidParameterWhenFlagsClashOnTheTargetEvd(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher shared = dtoEvd(p.a);
            EventDispatcher own = dtoEvd(p.a);
            p.a.ia.createEndpoint(
                    p.a.pz,
                    own,
                    shared,
                    p.a.conn,
                    validAttributes()
                            .requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                            .build());
            Endpoint ep = p.a.ia.createEndpoint(
                    p.a.pz,
                    dtoEvd(p.a),
                    dtoEvd(p.a),
                    p.a.conn,
                    validAttributes().build());
            EpParams before = ep.query();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(EpModify.builder().requestEvd(shared).build()));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(EpModify.builder().recvEvd(shared).build()));
            assertEquals(before, ep.query());
            ep.modify(EpModify.builder()
                    .requestEvd(shared)
                    .requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                    .build());
            assertEquals(Optional.of(shared), ep.query().requestEvd());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT), dat_ep_create_with_srq(3DAT): an SRQ endpoint keeps the SRQ's PZ")
    void shouldRejectPzOtherThanTheSrqsWithInvalidParameterWhenEndpointUsesSrq(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = p.a.ia.createSrq(p.a.pz, new SrqAttributes(8, 1, 0));
            Endpoint ep = p.a.ia.createEndpointWithSrq(
                    p.a.pz, p.a.dto, p.a.dto, p.a.conn, srq, validAttributes().build());
            ProtectionZone other = p.a.ia.createPz();
            EpParams before = ep.query();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ep.modify(EpModify.builder().pz(other).build()));
            assertEquals(before, ep.query());
            other.free();
            ep.modify(EpModify.builder().pz(p.a.pz).maxMessageSize(100).build());
            assertEquals(100, ep.query().attributes().maxMessageSize());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_modify(3DAT): a freed EP is DAT_INVALID_HANDLE_EP; no modification is DAT_INVALID_PARAMETER")
    void shouldRejectFreedEndpointAndNullModification(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint ep = p.a.ep();
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> ep.modify(null));
            ep.free();
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> ep.modify(EpModify.builder().maxMessageSize(100).build()));
        }
    }
}
