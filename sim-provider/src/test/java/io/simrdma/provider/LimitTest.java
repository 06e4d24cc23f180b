package io.simrdma.provider;

import static io.simrdma.provider.DatPair.WAIT;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.expectConnection;
import static io.simrdma.provider.DatPair.next;
import static io.simrdma.provider.EventTestSupport.attrs;
import static io.simrdma.provider.EventTestSupport.nextDto;
import static io.simrdma.provider.ObjectFixtures.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.FreeableHandle;
import io.simrdma.dat.IaAttributes;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.VerbsException;
import io.simrdma.provider.DatPair.Side;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Resource limits, in the manner of dapltest's limit test: every kind of object is created up to
 * the limit that dat_ia_query(3DAT) reports for it (for IAs, the provider's max_ia_instances); one
 * more fails with DAT_INSUFFICIENT_RESOURCES and a subtype naming the resource; the refusal leaves
 * nothing half-created (the count stays at the limit, a second try fails the same way, freeing one
 * object makes room for exactly one); and everything tears down cleanly: freed in reverse order of
 * creation, the IA closed gracefully, and the simulated device left without a PD, CQ or completion
 * channel (its ibv_close_device refuses otherwise, which is how a leaked verbs object shows).
 *
 * <p>The limits come from the IA name ({@link #LIMITS}). The man pages name no subtype for
 * DAT_INSUFFICIENT_RESOURCES; the subtypes checked are the provider's (SimIa, SimEp, SimSrq):
 * DAT_RESOURCE_DEVICE for IAs, _PROTECTION_DOMAIN for PZs, _TEVD for EVDs, _TEP for EPs,
 * _MEMORY_REGION for LMRs and RMRs, _SRQ for SRQs and for receives beyond an SRQ's max_recv_dtos, and
 * _MEMORY for receives, requests and RMR binds beyond an EP's queue depths (as the OFED reference
 * provider reports a full DTO cookie ring).
 *
 * <p>Each test runs on a fabric of its own that the test registers with the provider
 * ({@link SimProvider#registerFabric}), so that the devices outlive the IAs and can be checked empty.
 */
class LimitTest {

    static final int MAX_QP = 8;
    static final int MAX_CQ = 8;
    static final int MAX_MR = 8;
    static final int MAX_PD = 4;
    static final int MAX_MW = 8;
    static final int MAX_SRQ = 4;
    static final int MAX_QP_WR = 16;
    static final int MAX_CQE = 64;
    static final int MAX_SGE = 4;
    static final int MAX_SRQ_WR = 16;
    /** The device limits every IA name of this class carries. */
    static final String LIMITS = "maxQp=" + MAX_QP + "&maxCq=" + MAX_CQ + "&maxMr=" + MAX_MR + "&maxPd=" + MAX_PD
            + "&maxMw=" + MAX_MW + "&maxSrq=" + MAX_SRQ + "&maxQpWr=" + MAX_QP_WR + "&maxCqe=" + MAX_CQE
            + "&maxSge=" + MAX_SGE + "&maxSrqWr=" + MAX_SRQ_WR;

    private static final int ASYNC_QLEN = 8;
    private static final EnumSet<CompletionFlag> DEFAULT = CompletionFlag.defaults();
    private static final AtomicInteger FABRICS = new AtomicInteger();

    // ------------------------------------------------------------------ fixtures

    /**
     * A fabric registered under a unique name; IAs opened through it are closed (abruptly, if a
     * test left them open) before the fabric closes.
     */
    private static final class OwnFabric implements AutoCloseable {
        final String name = "limit" + FABRICS.incrementAndGet();
        final Fabric fabric;
        private final List<InterfaceAdapter> opened = new ArrayList<>();

        OwnFabric(DatPair.Mode mode) {
            fabric = mode == DatPair.Mode.THREADED
                    ? Fabric.builder().name(name).threaded().build()
                    : Fabric.builder().name(name).deterministic(17).build();
            SimProvider.registerFabric(name, fabric);
        }

        String iaName(String device) {
            return "sim:" + name + "/" + device + "?" + LIMITS;
        }

        InterfaceAdapter open(String device) {
            InterfaceAdapter ia = Dat.openIa(iaName(device), ASYNC_QLEN);
            opened.add(ia);
            return ia;
        }

        /** An IA on {@code device} with a PZ, a DTO EVD of max_evd_qlen, a connection EVD and a 16 KiB LMR. */
        Side side(String device) {
            return new Side(open(device), MAX_CQE, 8, 16 * 1024);
        }

        /** ibv_close_device(3) of {@code device}: refused while a PD, CQ or completion channel of it is left. */
        void assertDeviceEmpty(String device) {
            Device d = fabric.device(device);
            assertNotNull(d, "device " + device);
            try {
                d.close();
            } catch (VerbsException e) {
                fail("the IAs on device " + device + " left verbs objects behind: " + e.getMessage());
            }
        }

        @Override
        public void close() {
            try {
                for (InterfaceAdapter ia : opened) {
                    if (!((SimIa) ia).closed) {
                        ia.close(CloseFlag.ABRUPT);
                    }
                }
            } finally {
                SimProvider.unregisterFabric(name);
                fabric.close();
            }
        }
    }

    /** Live handles of {@code kind} in {@code ia}. */
    private static int count(InterfaceAdapter ia, Class<? extends SimHandle> kind) {
        return ((SimIa) ia).handleCount(kind);
    }

    /** Frees every handle, newest first. */
    private static void freeAll(Deque<? extends FreeableHandle> made) {
        while (!made.isEmpty()) {
            made.pop().free();
        }
    }

    /** What objects of each kind need: one PZ and one DTO EVD, which count against their own limits. */
    private record Base(InterfaceAdapter ia, ProtectionZone pz, EventDispatcher evd, ByteBuffer buf) {
        static Base on(InterfaceAdapter ia) {
            ProtectionZone pz = ia.createPz();
            EventDispatcher evd = ia.createEvd(16, null, EnumSet.of(EvdFlag.DTO));
            return new Base(ia, pz, evd, ByteBuffer.allocateDirect(4096));
        }

        /** Number of objects of {@code r} the base itself holds. */
        int holds(Resource r) {
            return r == Resource.PZ || r == Resource.EVD ? 1 : 0;
        }

        void free() {
            evd.free();
            pz.free();
        }
    }

    /** The object kinds with an IA limit, each with its limit, its create call and the subtype of its refusal. */
    enum Resource {
        PZ(
                "dat_pz_create(3DAT)",
                DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN,
                SimPz.class,
                MAX_PD,
                IaAttributes::maxPzs,
                b -> b.ia().createPz()),
        EVD(
                "dat_evd_create (udat.h)",
                DatReturnSubtype.RESOURCE_TEVD,
                SimEvd.class,
                MAX_CQ,
                IaAttributes::maxEvds,
                b -> b.ia().createEvd(8, null, EnumSet.of(EvdFlag.DTO))),
        LMR(
                "dat_lmr_create(3DAT)",
                DatReturnSubtype.RESOURCE_MEMORY_REGION,
                SimLmr.class,
                MAX_MR,
                IaAttributes::maxLmrs,
                b -> b.ia().createLmr(new RegionDescription.Virtual(b.buf(), 0, 1024), b.pz(), MemoryPrivilege.all())),
        RMR(
                "dat_rmr_create(3DAT)",
                DatReturnSubtype.RESOURCE_MEMORY_REGION,
                SimRmr.class,
                MAX_MW,
                IaAttributes::maxRmrs,
                b -> b.pz().createRmr()),
        SRQ(
                "dat_srq_create(3DAT)",
                DatReturnSubtype.RESOURCE_SRQ,
                SimSrq.class,
                MAX_SRQ,
                IaAttributes::maxSrqs,
                b -> b.ia().createSrq(b.pz(), new SrqAttributes(4, 1, 0))),
        EP(
                "dat_ep_create(3DAT)",
                DatReturnSubtype.RESOURCE_TEP,
                SimEp.class,
                MAX_QP,
                IaAttributes::maxEps,
                b -> b.ia().createEndpoint(b.pz(), b.evd(), b.evd(), null, null));

        final String page;
        final DatReturnSubtype subtype;
        final Class<? extends SimHandle> kind;
        final int configured;
        private final ToIntFunction<IaAttributes> limit;
        private final Function<Base, FreeableHandle> create;

        Resource(
                String page,
                DatReturnSubtype subtype,
                Class<? extends SimHandle> kind,
                int configured,
                ToIntFunction<IaAttributes> limit,
                Function<Base, FreeableHandle> create) {
            this.page = page;
            this.subtype = subtype;
            this.kind = kind;
            this.configured = configured;
            this.limit = limit;
            this.create = create;
        }

        /** The dat_ia_query(3DAT) attribute that limits this kind. */
        int limit(IaAttributes a) {
            return limit.applyAsInt(a);
        }

        FreeableHandle create(Base b) {
            return create.apply(b);
        }

        /** Asserts one more is refused with DAT_INSUFFICIENT_RESOURCES and this kind's subtype. */
        void assertRefused(Base b) {
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, subtype, () -> create(b));
        }
    }

    static Stream<Arguments> resourcesAndModes() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (Resource r : Resource.values()) {
            for (DatPair.Mode m : DatPair.Mode.values()) {
                b.add(Arguments.of(r, m));
            }
        }
        return b.build();
    }

    // ------------------------------------------------------------------ IA instances

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ia_open(3DAT): beyond the provider's max_ia_instances (system property simrdma.maxIaInstances) "
            + "the open fails with DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_DEVICE) and takes nothing; a closed IA "
            + "makes room for one; every IA closes gracefully")
    void shouldRefuseOpenBeyondMaxIaInstancesWhenEveryInstanceIsOpen(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            Deque<InterfaceAdapter> open = new ArrayDeque<>();
            try {
                open.push(Dat.openIa(f.iaName("a"), ASYNC_QLEN));
                int max = open.peek().query().providerAttributes().maxIaInstances();
                assertEquals(
                        Integer.getInteger("simrdma.maxIaInstances", 64),
                        max,
                        "the provider attribute is the system property (default 64)");
                DatException refused = null;
                while (refused == null && open.size() <= max) {
                    try {
                        open.push(Dat.openIa(f.iaName("a"), ASYNC_QLEN));
                    } catch (DatException e) {
                        refused = e;
                    }
                }
                assertNotNull(refused, "an open beyond max_ia_instances " + max + " must fail");
                assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, refused.type(), refused.toString());
                assertEquals(DatReturnSubtype.RESOURCE_DEVICE, refused.subtype());
                assertEquals(
                        max, open.size(), "the provider is full at max_ia_instances (no other IA is open in this JVM)");
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_DEVICE,
                        () -> Dat.openIa(f.iaName("a"), ASYNC_QLEN));

                open.pop().close(CloseFlag.GRACEFUL);
                open.push(Dat.openIa(f.iaName("a"), ASYNC_QLEN));
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_DEVICE,
                        () -> Dat.openIa(f.iaName("a"), ASYNC_QLEN));
                assertEquals(max, open.size());
                while (!open.isEmpty()) {
                    open.pop().close(CloseFlag.GRACEFUL);
                }
                // The refused opens left no instance behind: the provider takes max_ia_instances again.
                for (int i = 0; i < max; i++) {
                    open.push(Dat.openIa(f.iaName("a"), ASYNC_QLEN));
                }
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_DEVICE,
                        () -> Dat.openIa(f.iaName("a"), ASYNC_QLEN));
                while (!open.isEmpty()) {
                    open.pop().close(CloseFlag.GRACEFUL);
                }
            } finally {
                while (!open.isEmpty()) {
                    open.pop().close(CloseFlag.ABRUPT);
                }
            }
            f.assertDeviceEmpty("a");
        }
    }

    // ------------------------------------------------------------------ one kind at a time

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("resourcesAndModes")
    @DisplayName("dat_pz/evd/lmr/rmr/srq/ep_create: one past the IA limit is DAT_INSUFFICIENT_RESOURCES with the "
            + "kind's subtype, nothing half-created; freeing one makes room for one; reverse teardown, graceful close")
    void shouldRefuseOnePastTheLimitWithoutHalfCreatingWhenIaUsesTheDeviceAlone(Resource r, DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            InterfaceAdapter ia = f.open("a");
            Base base = Base.on(ia);
            int limit = r.limit(ia.query().iaAttributes());
            assertEquals(r.configured, limit, () -> "dat_ia_query(3DAT): the limit of " + r + " is the IA name's");
            Deque<FreeableHandle> made = new ArrayDeque<>();
            for (int i = base.holds(r); i < limit; i++) {
                made.push(r.create(base));
            }
            assertEquals(limit, count(ia, r.kind));

            r.assertRefused(base);
            assertEquals(limit, count(ia, r.kind), () -> r.page + ": a refused create leaves nothing behind");
            r.assertRefused(base);
            assertEquals(limit, count(ia, r.kind));

            made.pop().free();
            assertEquals(limit - 1, count(ia, r.kind));
            made.push(r.create(base));
            assertEquals(limit, count(ia, r.kind), "the freed slot is taken again");
            r.assertRefused(base);

            freeAll(made);
            base.free();
            ia.close(CloseFlag.GRACEFUL);
            f.assertDeviceEmpty("a");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("resourcesAndModes")
    @DisplayName("dat_pz/evd/lmr/rmr/srq/ep_create: two IAs on one device share its limits; the device's refusal "
            + "is the same DAT_INSUFFICIENT_RESOURCES and subtype, nothing half-created, room made by either IA")
    void shouldRefuseAtTheDeviceLimitWithoutHalfCreatingWhenTwoIasShareTheDevice(Resource r, DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            InterfaceAdapter first = f.open("shared");
            InterfaceAdapter second = f.open("shared");
            Base b1 = Base.on(first);
            Base b2 = Base.on(second);
            int limit = r.limit(first.query().iaAttributes());
            int half = limit / 2;
            Deque<FreeableHandle> made1 = new ArrayDeque<>();
            Deque<FreeableHandle> made2 = new ArrayDeque<>();
            for (int i = b1.holds(r); i < half; i++) {
                made1.push(r.create(b1));
            }
            DatException refused = null;
            while (refused == null && count(second, r.kind) <= limit) {
                try {
                    made2.push(r.create(b2));
                } catch (DatException e) {
                    refused = e;
                }
            }
            assertNotNull(refused, r.page + ": the device's limit must stop the second IA");
            String seen = refused.toString();
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, refused.type(), seen);
            assertEquals(r.subtype, refused.subtype(), seen);
            assertEquals(half, count(first, r.kind));
            assertEquals(limit - half, count(second, r.kind), "the device's limit counts both IAs' objects");
            r.assertRefused(b2);
            r.assertRefused(b1);
            assertEquals(
                    limit - half, count(second, r.kind), () -> r.page + ": a refused create leaves nothing behind");

            made1.pop().free();
            made2.push(r.create(b2));
            assertEquals(limit - half + 1, count(second, r.kind), "room made by one IA is the other's");
            r.assertRefused(b1);

            freeAll(made2);
            freeAll(made1);
            b2.free();
            b1.free();
            second.close(CloseFlag.GRACEFUL);
            first.close(CloseFlag.GRACEFUL);
            f.assertDeviceEmpty("shared");
        }
    }

    // ------------------------------------------------------------------ every kind at once

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ia_query(3DAT) limits all held at once (PZs, EVDs, LMRs, RMRs, SRQs, EPs, posted receives); "
            + "each one more refused; freed in reverse order, graceful close; the same IA limits again after reopening")
    void shouldHoldEveryLimitAtOnceAndTearDownInReverseOrderWhenExhausted(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            for (int round = 0; round < 2; round++) {
                InterfaceAdapter ia = f.open("a");
                IaAttributes attrs = ia.query().iaAttributes();
                Deque<FreeableHandle> made = new ArrayDeque<>();
                List<ProtectionZone> pzs = new ArrayList<>();
                while (pzs.size() < attrs.maxPzs()) {
                    pzs.add(push(made, ia.createPz()));
                }
                ProtectionZone pz = pzs.get(0);
                List<EventDispatcher> evds = new ArrayList<>();
                while (evds.size() < attrs.maxEvds()) {
                    evds.add(push(made, ia.createEvd(16, null, EnumSet.of(EvdFlag.DTO))));
                }
                ByteBuffer buf = ByteBuffer.allocateDirect(attrs.maxLmrs() * 1024);
                List<LocalMemoryRegion> lmrs = new ArrayList<>();
                while (lmrs.size() < attrs.maxLmrs()) {
                    lmrs.add(push(
                            made,
                            ia.createLmr(
                                    new RegionDescription.Virtual(buf, lmrs.size() * 1024, 1024),
                                    pz,
                                    MemoryPrivilege.all())));
                }
                for (int i = 0; i < attrs.maxRmrs(); i++) {
                    push(made, pz.createRmr());
                }
                List<SharedReceiveQueue> srqs = new ArrayList<>();
                while (srqs.size() < attrs.maxSrqs()) {
                    srqs.add(push(made, ia.createSrq(pz, new SrqAttributes(attrs.maxRecvPerSrq(), 1, 0))));
                }
                EpAttributes epAttrs = EpAttributeRules.defaults((SimIa) ia).toBuilder()
                        .maxRecvDtos(attrs.maxDtoPerEp())
                        .build();
                List<Endpoint> eps = new ArrayList<>();
                while (eps.size() < attrs.maxEps()) {
                    int i = eps.size();
                    EventDispatcher evd = evds.get(i % evds.size());
                    eps.add(push(
                            made,
                            i % 2 == 0
                                    ? ia.createEndpoint(pz, evd, evd, null, epAttrs)
                                    : ia.createEndpointWithSrq(
                                            pz, evd, evd, null, srqs.get(i / 2 % srqs.size()), epAttrs)));
                }
                LmrTriplet one =
                        new LmrTriplet(lmrs.get(0).lmrContext(), lmrs.get(0).registeredAddress(), 64);
                for (int i = 0; i < eps.size(); i += 2) {
                    for (int k = 0; k < attrs.maxDtoPerEp(); k++) {
                        eps.get(i).postRecv(List.of(one), k, DEFAULT);
                    }
                }
                for (SharedReceiveQueue s : srqs) {
                    for (int k = 0; k < attrs.maxRecvPerSrq(); k++) {
                        s.postRecv(List.of(one), k);
                    }
                }

                for (Resource r : Resource.values()) {
                    assertEquals(r.configured, count(ia, r.kind), r::toString);
                }
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN,
                        ia::createPz);
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_TEVD,
                        () -> ia.createEvd(4, null, EnumSet.of(EvdFlag.SOFTWARE)));
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_MEMORY_REGION,
                        () -> ia.createLmr(new RegionDescription.Virtual(buf, 0, 64), pz, MemoryPrivilege.all()));
                assertDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY_REGION, pz::createRmr);
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_SRQ,
                        () -> ia.createSrq(pz, new SrqAttributes(1, 1, 0)));
                assertDat(
                        DatReturnType.INSUFFICIENT_RESOURCES,
                        DatReturnSubtype.RESOURCE_TEP,
                        () -> ia.createEndpoint(pz, evds.get(0), evds.get(0), null, null));
                for (int i = 0; i < eps.size(); i += 2) {
                    Endpoint ep = eps.get(i);
                    assertDat(
                            DatReturnType.INSUFFICIENT_RESOURCES,
                            DatReturnSubtype.RESOURCE_MEMORY,
                            () -> ep.postRecv(List.of(one), 99, DEFAULT));
                    assertEquals(new EpRecvInfo(attrs.maxDtoPerEp(), attrs.maxDtoPerEp()), ep.recvQuery());
                }
                for (SharedReceiveQueue s : srqs) {
                    assertDat(
                            DatReturnType.INSUFFICIENT_RESOURCES,
                            DatReturnSubtype.RESOURCE_SRQ,
                            () -> s.postRecv(List.of(one), 99));
                    assertEquals(attrs.maxRecvPerSrq(), s.query().availableDtoCount());
                }

                freeAll(made); // EPs, SRQs, RMRs, LMRs, EVDs, PZs: each free succeeds because its users went first
                ia.close(CloseFlag.GRACEFUL);
            }
            f.assertDeviceEmpty("a");
        }
    }

    private static <T extends FreeableHandle> T push(Deque<FreeableHandle> made, T h) {
        made.push(h);
        return h;
    }

    // ------------------------------------------------------------------ queues of an endpoint

    /** Connects {@code ea} of {@code a} to {@code eb} of {@code b} through a consumer PSP; both ESTABLISHED. */
    private static void connect(Side a, Endpoint ea, Side b, Endpoint eb) {
        DatPair.connect(a, ea, b, eb, 77, null, null);
    }

    /** Abrupt disconnect from {@code ea}: DISCONNECTED on both connection EVDs. */
    private static void disconnect(Side a, Endpoint ea, Side b) {
        ea.disconnect(CloseFlag.ABRUPT);
        expectConnection(a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        expectConnection(b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    private static void fill(ByteBuffer buf, int offset, int len, int seed) {
        for (int i = 0; i < len; i++) {
            buf.put(offset + i, (byte) (seed * 31 + i));
        }
    }

    /**
     * The graceful end of a test on two sides: frees {@code objects} in the order given, then frees
     * each side's standard objects and closes its IA gracefully, and checks that neither device kept
     * a verbs object.
     */
    private static void tearDown(OwnFabric f, Side a, Side b, FreeableHandle... objects) {
        for (FreeableHandle h : objects) {
            h.free();
        }
        for (Side s : List.of(a, b)) {
            s.lmr.free();
            s.conn.free();
            s.dto.free();
            s.pz.free();
            s.ia.close(CloseFlag.GRACEFUL);
        }
        f.assertDeviceEmpty("a");
        f.assertDeviceEmpty("b");
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_recv(3DAT): max_recv_dtos (up to max_dto_per_ep) receives posted, one more is "
            + "DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_MEMORY) and not posted; a completed receive makes room for one; "
            + "an EP asking for more than max_dto_per_ep is DAT_INVALID_PARAMETER and not created")
    void shouldRefuseReceiveBeyondMaxRecvDtosWhenEndpointQueueIsFull(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            Side a = f.side("a");
            Side b = f.side("b");
            int max = b.ia.query().iaAttributes().maxDtoPerEp();
            assertEquals(MAX_QP_WR, max);
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> b.ep(attrs(b).maxRecvDtos(max + 1).build()));
            assertEquals(0, count(b.ia, SimEp.class), "dat_ep_create(3DAT): the refused EP was not created");

            Endpoint ea = a.ep(null);
            Endpoint eb = b.ep(attrs(b).maxRecvDtos(max).build());
            for (int i = 0; i < max; i++) {
                eb.postRecv(b.iov(i * 64, 64), i, DEFAULT);
            }
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_MEMORY,
                    () -> eb.postRecv(b.iov(max * 64, 64), 99, DEFAULT));
            assertEquals(
                    new EpRecvInfo(max, max),
                    eb.recvQuery(),
                    "dat_ep_recv_query(3DAT): the refused receive is not posted");

            connect(a, ea, b, eb);
            fill(a.buf, 0, 64, 1);
            ea.postSend(a.iov(0, 64), 500, DEFAULT);
            nextDto(a.dto, ea, 500, DtoCompletionStatus.SUCCESS);
            assertEquals(64, nextDto(b.dto, eb, 0, DtoCompletionStatus.SUCCESS).transferredLength());
            assertArrayEquals(bytes(a.buf, 0, 64), bytes(b.buf, 0, 64));

            eb.postRecv(b.iov(max * 64, 64), max, DEFAULT);
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_MEMORY,
                    () -> eb.postRecv(b.iov(0, 64), 99, DEFAULT));
            assertEquals(new EpRecvInfo(max, max), eb.recvQuery());

            // Every posted receive completes exactly once: the rest are flushed by the disconnect, in order.
            disconnect(a, ea, b);
            for (int i = 1; i <= max; i++) {
                nextDto(b.dto, eb, i, DtoCompletionStatus.ERR_FLUSHED);
            }
            assertEquals(Optional.empty(), b.dto.dequeue());
            tearDown(f, a, b, ea, eb);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_send/rdma_write(3DAT), dat_rmr_bind(3DAT): with max_request_dtos requests outstanding "
            + "(the peer has no receive), one more send, RDMA Write or bind is DAT_INSUFFICIENT_RESOURCES "
            + "(DAT_RESOURCE_MEMORY); a completion makes room for one; every cookie completes once, in order")
    void shouldRefuseRequestBeyondMaxRequestDtosWhenAllAreOutstanding(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            Side a = f.side("a");
            Side b = f.side("b");
            int max = a.ia.query().iaAttributes().maxDtoPerEp();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> a.ep(attrs(a).maxRequestDtos(max + 1).build()));
            Endpoint ea = a.ep(attrs(a).maxRequestDtos(max).build());
            Endpoint eb = b.ep(attrs(b).maxRecvDtos(max).build());
            connect(a, ea, b, eb);

            // No receive at b: each send waits for one (RNR, retried without limit), so all stay outstanding.
            for (int i = 0; i < max; i++) {
                fill(a.buf, i * 64, 64, i);
                ea.postSend(a.iov(i * 64, 64), i, DEFAULT);
            }
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_MEMORY,
                    () -> ea.postSend(a.iov(0, 8), 100, DEFAULT));
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_MEMORY,
                    () -> ea.postRdmaWrite(a.iov(0, 8), 101, b.remote(8192, 8), DEFAULT));
            RemoteMemoryRegion rmr = a.pz.createRmr();
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_MEMORY,
                    () -> rmr.bind(a.iov(0, 64).get(0), EnumSet.of(MemoryPrivilege.REMOTE_READ), ea, 102, DEFAULT));
            assertTrue(rmr.query().binding().isEmpty(), "dat_rmr_bind(3DAT): the refused bind bound nothing");
            assertFalse(ea.status().requestIdle());

            eb.postRecv(b.iov(0, 64), 1000, DEFAULT);
            assertEquals(64, nextDto(a.dto, ea, 0, DtoCompletionStatus.SUCCESS).transferredLength());
            nextDto(b.dto, eb, 1000, DtoCompletionStatus.SUCCESS);
            fill(a.buf, max * 64, 64, max);
            ea.postSend(a.iov(max * 64, 64), max, DEFAULT);
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_MEMORY,
                    () -> ea.postSend(a.iov(0, 8), 103, DEFAULT));

            for (int i = 1; i <= max; i++) {
                eb.postRecv(b.iov(i * 64, 64), 1000 + i, DEFAULT);
            }
            for (int i = 1; i <= max; i++) {
                nextDto(a.dto, ea, i, DtoCompletionStatus.SUCCESS);
            }
            for (int i = 1; i <= max; i++) {
                assertEquals(
                        64,
                        nextDto(b.dto, eb, 1000 + i, DtoCompletionStatus.SUCCESS)
                                .transferredLength());
            }
            for (int i = 0; i <= max; i++) {
                assertArrayEquals(bytes(a.buf, i * 64, 64), bytes(b.buf, i * 64, 64), "message " + i);
            }
            assertTrue(ea.status().requestIdle());
            assertEquals(Optional.empty(), a.dto.dequeue());

            disconnect(a, ea, b);
            tearDown(f, a, b, rmr, ea, eb);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_srq_post_recv(3DAT), dat_srq_create(3DAT): max_recv_dtos (up to max_recv_per_srq) receives on "
            + "the SRQ, one more is DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_SRQ) and not posted; a consumed one makes "
            + "room; an SRQ beyond max_recv_per_srq is DAT_INVALID_PARAMETER and not created")
    void shouldRefuseSrqReceiveBeyondMaxRecvDtosWhenSrqIsFull(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            Side a = f.side("a");
            Side b = f.side("b");
            int max = b.ia.query().iaAttributes().maxRecvPerSrq();
            assertEquals(MAX_SRQ_WR, max);
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> b.ia.createSrq(b.pz, new SrqAttributes(max + 1, 1, 0)));
            assertEquals(0, count(b.ia, SimSrq.class), "dat_srq_create(3DAT): the refused SRQ was not created");
            SharedReceiveQueue srq = b.ia.createSrq(b.pz, new SrqAttributes(max, 1, 0));
            for (int i = 0; i < max; i++) {
                srq.postRecv(b.iov(i * 64, 64), i);
            }
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_SRQ,
                    () -> srq.postRecv(b.iov(0, 64), 99));
            assertEquals(max, srq.query().availableDtoCount());
            assertEquals(max, srq.query().outstandingDtoCount());

            Endpoint ea = a.ep(null);
            Endpoint eb = b.ia.createEndpointWithSrq(b.pz, b.dto, b.dto, b.conn, srq, attrs(b).build());
            connect(a, ea, b, eb);
            fill(a.buf, 0, 64, 3);
            ea.postSend(a.iov(0, 64), 500, DEFAULT);
            nextDto(a.dto, ea, 500, DtoCompletionStatus.SUCCESS);
            nextDto(b.dto, eb, 0, DtoCompletionStatus.SUCCESS);
            assertArrayEquals(bytes(a.buf, 0, 64), bytes(b.buf, 0, 64));
            srq.postRecv(b.iov(max * 64, 64), max);
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_SRQ,
                    () -> srq.postRecv(b.iov(0, 64), 99));
            assertEquals(max, srq.query().availableDtoCount());

            disconnect(a, ea, b);
            tearDown(f, a, b, ea, eb, srq);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ep_post_send/recv/rdma_write(3DAT): max_iov_segments_per_dto segments carry the data byte for "
            + "byte; one segment more than the EP's limit is DAT_INVALID_PARAMETER and nothing is posted; an EP asking "
            + "for more segments than the IA gives is DAT_INVALID_PARAMETER")
    void shouldCarryMaxIovSegmentsAndRefuseOneMoreWhenPosting(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            Side a = f.side("a");
            Side b = f.side("b");
            int max = a.ia.query().iaAttributes().maxIovSegmentsPerDto();
            assertEquals(MAX_SGE, max);
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> a.ep(attrs(a).maxRequestIov(max + 1).build()));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> b.ep(attrs(b).maxRecvIov(max + 1).build()));
            assertEquals(0, count(a.ia, SimEp.class) + count(b.ia, SimEp.class));
            Endpoint ea = a.ep(attrs(a).maxRequestIov(max).maxRdmaWriteIov(max).build());
            Endpoint eb = b.ep(attrs(b).maxRecvIov(max).build());

            // Gather from max scattered pieces of a, scatter into max scattered pieces of b.
            List<LmrTriplet> src = new ArrayList<>();
            List<LmrTriplet> dst = new ArrayList<>();
            int total = 0;
            for (int i = 0; i < max; i++) {
                int len = 16 + 8 * i;
                src.add(a.iov(1000 * i + 3, len).get(0));
                dst.add(b.iov(2000 + 700 * (max - i) + 5, len).get(0));
                fill(a.buf, 1000 * i + 3, len, 7 + i);
                total += len;
            }
            List<LmrTriplet> tooMany = new ArrayList<>(dst);
            tooMany.add(b.iov(9000, 8).get(0));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> eb.postRecv(tooMany, 99, DEFAULT));
            assertEquals(new EpRecvInfo(0, 0), eb.recvQuery(), "the refused receive is not posted");
            eb.postRecv(dst, 1, DEFAULT);
            connect(a, ea, b, eb);
            List<LmrTriplet> tooManySrc = new ArrayList<>(src);
            tooManySrc.add(a.iov(9000, 8).get(0));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ea.postSend(tooManySrc, 98, DEFAULT));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> ea.postRdmaWrite(tooManySrc, 97, b.remote(12000, 4096), DEFAULT));
            assertTrue(ea.status().requestIdle(), "the refused posts are not outstanding");
            ea.postSend(src, 2, DEFAULT);
            ea.postRdmaWrite(src, 3, b.remote(12000, total), DEFAULT);
            assertEquals(
                    total, nextDto(a.dto, ea, 2, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(
                    total, nextDto(a.dto, ea, 3, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(
                    total, nextDto(b.dto, eb, 1, DtoCompletionStatus.SUCCESS).transferredLength());
            int at = 0;
            for (int i = 0; i < max; i++) {
                LmrTriplet s = src.get(i);
                LmrTriplet d = dst.get(i);
                byte[] sent =
                        bytes(a.buf, (int) (s.virtualAddress() - a.lmr.registeredAddress()), (int) s.segmentLength());
                assertArrayEquals(
                        sent,
                        bytes(b.buf, (int) (d.virtualAddress() - b.lmr.registeredAddress()), sent.length),
                        "segment " + i + " of the receive");
                assertArrayEquals(sent, bytes(b.buf, 12000 + at, sent.length), "segment " + i + " of the RDMA Write");
                at += sent.length;
            }
            assertEquals(Optional.empty(), a.dto.dequeue());

            disconnect(a, ea, b);
            tearDown(f, a, b, ea, eb);
        }
    }

    // ------------------------------------------------------------------ EVD queue length

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_evd_create (udat.h), EVD overflow: an EVD of max_evd_qlen holds max_evd_qlen completions; one "
            + "more is lost and reported as DAT_ASYNC_ERROR_EVD_OVERFLOW naming it on the IA's async EVD; an EVD "
            + "longer than max_evd_qlen is DAT_INVALID_PARAMETER and not created")
    void shouldReportOverflowWhenEvdOfMaxQlenIsFull(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            Side a = f.side("a");
            Side b = f.side("b");
            int qlen = a.ia.query().iaAttributes().maxEvdQlen();
            assertEquals(MAX_CQE, qlen);
            int evds = count(a.ia, SimEvd.class);
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG2,
                    () -> a.ia.createEvd(qlen + 1, null, EnumSet.of(EvdFlag.DTO)));
            assertEquals(evds, count(a.ia, SimEvd.class));
            EventDispatcher full = a.ia.createEvd(qlen, null, EnumSet.of(EvdFlag.DTO));
            EventDispatcher async = a.ia.query().asyncEvd().orElseThrow();
            int depth = a.ia.query().iaAttributes().maxDtoPerEp();
            Endpoint ea = a.ia.createEndpoint(
                    a.pz, a.dto, full, a.conn, attrs(a).maxRequestDtos(depth).build());
            Endpoint eb = b.ep(null);
            connect(a, ea, b, eb);

            int cookie = 0;
            while (cookie < qlen) {
                int batch = Math.min(depth, qlen - cookie);
                for (int i = 0; i < batch; i++, cookie++) {
                    ea.postRdmaWrite(a.iov(cookie * 8, 8), cookie, b.remote(cookie * 8, 8), DEFAULT);
                }
                int expected = cookie;
                EventTestSupport.await(
                        a.ia,
                        () -> ((SimEvd) full).size() == expected && ea.status().requestIdle(),
                        expected + " completions queued");
            }
            assertEquals(Optional.empty(), async.dequeue(), "a full EVD is not an overflowed one");
            ea.postRdmaWrite(a.iov(0, 8), qlen, b.remote(0, 8), DEFAULT);
            AsyncErrorEvent overflow = next(async, AsyncErrorEvent.class);
            assertEquals(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, overflow.eventNumber());
            assertEquals(AsyncErrorReason.EVD_OVERFLOW_ERROR, overflow.reason());
            assertSame(full, overflow.handle(), "the overflow names the EVD that overflowed");
            for (int i = 0; i < qlen; i++) {
                Optional<DatEvent> e = full.dequeue();
                assertTrue(e.isPresent(), "event " + i + " of " + qlen);
                DtoCompletionEvent d = (DtoCompletionEvent) e.get();
                assertEquals(i, d.userCookie(), "the events that fit are kept in order");
                assertEquals(DtoCompletionStatus.SUCCESS, d.status());
            }
            assertTrue(full.waitForEvent(Timeout.ofMillis(1), 1).isTimedOut(), "the lost completion is not queued");
            assertEquals(Optional.empty(), async.dequeue(), "one overflow event for one lost completion");

            disconnect(a, ea, b);
            tearDown(f, a, b, ea, eb, full);
        }
    }

    // ------------------------------------------------------------------ the provider's endpoints

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_psp_create(3DAT) with DAT_PSP_PROVIDER at max_eps: the provider cannot make an EP for a request, "
            + "which is refused (the requester sees NON_PEER_REJECTED, dat_ep_connect(3DAT)) with no CR and no EP left; "
            + "with one EP freed the next request arrives with its provider EP")
    void shouldRefuseRequestWhenProviderPspFindsNoEndpointLeft(DatPair.Mode mode) {
        try (OwnFabric f = new OwnFabric(mode)) {
            Side a = f.side("a");
            Side b = f.side("b");
            int max = b.ia.query().iaAttributes().maxEps();
            Deque<Endpoint> eps = new ArrayDeque<>();
            for (int i = 0; i < max; i++) {
                eps.push(b.ep(null));
            }
            PublicServicePoint psp = b.ia.createPsp(88, b.conn, PspFlag.PROVIDER);
            Endpoint ea = a.ep(null);
            ea.connect(b.address(), 88, WAIT, new byte[] {1}, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
            expectConnection(a.conn, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(Optional.empty(), b.conn.dequeue(), "no connection request reached the consumer");
            assertEquals(max, count(b.ia, SimEp.class));
            assertEquals(0, count(b.ia, SimCr.class));

            eps.pop().free();
            ea.reset();
            ea.connect(b.address(), 88, WAIT, new byte[] {2}, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
            ConnectionRequestEvent req = next(b.conn, ConnectionRequestEvent.class);
            assertArrayEquals(new byte[] {2}, req.cr().query().privateData());
            assertTrue(req.cr().query().localEp().isPresent(), "the request comes with the provider's EP");
            assertEquals(max, count(b.ia, SimEp.class), "the provider's EP takes the freed slot");
            req.cr().reject();
            expectConnection(a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(max - 1, count(b.ia, SimEp.class), "dat_cr_reject(3DAT): the provider's EP went back to it");

            psp.free();
            ea.free();
            freeAll(eps);
            tearDown(f, a, b);
        }
    }
}
