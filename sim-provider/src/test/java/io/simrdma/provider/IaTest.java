package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.AsyncEvdRequest;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdParams;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.IaAttributes;
import io.simrdma.dat.IaOpenParams;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Interface Adapter: dat_ia_open(3DAT), dat_ia_query(3DAT), dat_ia_close(3DAT), and what every
 * handle shares: dat_set_consumer_context(3DAT), dat_get_consumer_context(3DAT),
 * dat_get_handle_type(3DAT), and DAT_INVALID_HANDLE (with the subtype naming the handle) for a
 * destroyed handle or a handle of another IA.
 */
class IaTest {

    private static String name(DatPair.Mode mode, String options) {
        return ObjectFixtures.iaName(mode, ObjectFixtures.fabric("ia"), "d", options);
    }

    // ------------------------------------------------------------------ dat_ia_open

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ia_open(3DAT): DAT_HANDLE_NULL async EVD -> the provider creates one of at least async_evd_min_qlen; dat_ia_close destroys it")
    void shouldCreateAsyncEvdWhenNoneIsGiven(DatPair.Mode mode) {
        InterfaceAdapter ia = Dat.openIa(name(mode, ""), 10);
        EventDispatcher async;
        try {
            async = ia.query().asyncEvd().orElseThrow(() -> new AssertionError("no async EVD"));
            EvdParams p = async.query();
            assertSame(ia, p.ia());
            assertTrue(p.qlen() >= 10, () -> "async EVD qlen " + p.qlen());
            assertTrue(p.flags().contains(EvdFlag.ASYNC), () -> "flags " + p.flags());
            assertEquals(Optional.empty(), p.cno(), "dat_ia_open: the async EVD is created with no CNO");
        } finally {
            ia.close(CloseFlag.GRACEFUL);
        }
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, async::query);
    }

    @Test
    @DisplayName("dat_ia_open(3DAT): a name no provider serves -> DAT_PROVIDER_NOT_FOUND (DAT_NAME_NOT_REGISTERED)")
    void shouldFailWithProviderNotFoundWhenNoProviderServesTheName() {
        assertDat(
                DatReturnType.PROVIDER_NOT_FOUND,
                DatReturnSubtype.NAME_NOT_REGISTERED,
                () -> Dat.openIa("nosuchprovider:" + ObjectFixtures.fabric("x") + "/d", 8));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "sim:%s",
                "sim:/dev",
                "sim:%s/",
                "sim:%s/d/e",
                "sim:%s/d?bogus=1",
                "sim:%s/d?mode=fast",
                "sim:%s/d?maxQp=lots",
                "sim:%s/d?seed",
                "sim:%s/d?mtu=100",
                "sim:%s/d?profile=cx9",
                "sim:%s/d?profile="
            })
    @DisplayName("dat_ia_open(3DAT): a malformed sim IA name -> DAT_INVALID_PARAMETER")
    void shouldFailWithInvalidParameterWhenSimNameIsMalformed(String pattern) {
        String name = pattern.replace("%s", ObjectFixtures.fabric("bad"));
        assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> Dat.openIa(name, 8));
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ia_open(3DAT): a consumer async EVD gets the IA's async events and survives dat_ia_close")
    void shouldUseConsumerAsyncEvdWhenGiven(DatPair.Mode mode) {
        String fabric = ObjectFixtures.fabric("async");
        InterfaceAdapter owner = Dat.openIa(ObjectFixtures.iaName(mode, fabric, "a", ""), 8);
        try {
            EventDispatcher shared = owner.createEvd(8, EnumSet.of(EvdFlag.ASYNC));
            InterfaceAdapter ia = Dat.openIa(ObjectFixtures.iaName(mode, fabric, "b", ""), shared);
            assertSame(shared, ia.query().asyncEvd().orElseThrow(), "dat_ia_query returns the EVD passed in");
            ProtectionZone pz = ia.createPz();
            SharedReceiveQueue srq = ia.createSrq(pz, new SrqAttributes(4, 1, Dat.SRQ_LW_DEFAULT));
            // dat_srq_set_lw(3DAT): an empty SRQ is below a low watermark of 1 at once.
            srq.setLowWatermark(1);
            AsyncErrorEvent e = DatPair.next(shared, AsyncErrorEvent.class);
            assertSame(shared, e.evd());
            assertSame(srq, e.handle());
            assertEquals(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT, e.reason());
            // dat_evd_free(3DAT): the EVD feeds an open IA.
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, shared::free);
            srq.free();
            pz.free();
            ia.close(CloseFlag.GRACEFUL);
            // dat_ia_close(3DAT): an async EVD passed in by the consumer is not destroyed.
            assertSame(owner, shared.query().ia());
            shared.free();
            owner.close(CloseFlag.GRACEFUL);
        } finally {
            HandleSet.closeQuietly(owner);
        }
    }

    @Test
    @DisplayName(
            "dat_ia_open(3DAT): an invalid consumer async EVD (freed, or without the async stream) -> DAT_INVALID_HANDLE")
    void shouldFailWithInvalidHandleWhenConsumerAsyncEvdIsInvalid() {
        String fabric = ObjectFixtures.fabric("badasync");
        InterfaceAdapter owner = Dat.openIa(ObjectFixtures.iaName(DatPair.Mode.DETERMINISTIC, fabric, "a", ""), 8);
        try {
            EventDispatcher freed = owner.createEvd(8, EnumSet.of(EvdFlag.ASYNC));
            freed.free();
            EventDispatcher notAsync = owner.createEvd(8, EnumSet.of(EvdFlag.DTO));
            String other = ObjectFixtures.iaName(DatPair.Mode.DETERMINISTIC, fabric, "b", "");
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                    () -> Dat.openIa(other, freed));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                    () -> Dat.openIa(other, notAsync));
            // The failed opens left nothing behind: the EVD is free to go and the IA closes gracefully.
            notAsync.free();
            owner.close(CloseFlag.GRACEFUL);
        } finally {
            HandleSet.closeQuietly(owner);
        }
    }

    @Test
    @DisplayName("dat_ia_open(3DAT): DAT_EVD_ASYNC_EXISTS -> no async EVD in scope (DAT_EVD_OUT_OF_SCOPE)")
    void shouldReportNoAsyncEvdWhenItExistsElsewhere() {
        InterfaceAdapter ia =
                Dat.openIa(IaOpenParams.of(name(DatPair.Mode.DETERMINISTIC, ""), AsyncEvdRequest.existsElsewhere()));
        try {
            assertEquals(Optional.empty(), ia.query().asyncEvd());
        } finally {
            ia.close(CloseFlag.GRACEFUL);
        }
    }

    // ------------------------------------------------------------------ dat_ia_query

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_ia_query(3DAT): IA attributes are the device limits the IA name sets; adapter name is ia_name")
    void shouldReportDeviceLimitsOfTheNameInIaAttributes(DatPair.Mode mode) {
        String n = name(
                mode,
                "maxQp=7&maxCq=5&maxCqe=100&maxMr=9&maxPd=3&maxMw=6&maxSrq=2&maxQpWr=50&maxSge=3" + "&maxSrqWr=40");
        InterfaceAdapter ia = Dat.openIa(n, 8);
        try {
            IaAttributes a = ia.query().iaAttributes();
            assertEquals(n, a.adapterName(), "dat_ia_query: adapter name is the same as ia_name_ptr");
            assertEquals(7, a.maxEps());
            assertEquals(5, a.maxEvds());
            assertEquals(100, a.maxEvdQlen());
            assertEquals(9, a.maxLmrs());
            assertEquals(3, a.maxPzs());
            assertEquals(6, a.maxRmrs());
            assertEquals(2, a.maxSrqs());
            assertEquals(50, a.maxDtoPerEp());
            assertEquals(3, a.maxIovSegmentsPerDto());
            assertEquals(40, a.maxRecvPerSrq());
            assertEquals(3, a.maxIovSegmentsPerRdmaWrite());
            assertEquals(a.iaAddress(), ia.query().iaAttributes().iaAddress());
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "IA name profile=siw: the device is SoftiWARP (README Device profiles): the IA attributes follow its limits (max_rmrs 0, one RDMA READ segment) and dat_rmr_create is refused, DAT_INSUFFICIENT_RESOURCES")
    void shouldApplyTheProfileOfTheNameToTheIaDevice(DatPair.Mode mode) {
        InterfaceAdapter ia = Dat.openIa(name(mode, "profile=siw"), 8);
        try {
            IaAttributes a = ia.query().iaAttributes();
            io.simrdma.fabric.DeviceProfile.Limits siw = io.simrdma.fabric.DeviceProfile.SIW.limits();
            assertEquals(0, a.maxRmrs(), "siw has no memory windows");
            assertEquals(1, a.maxIovSegmentsPerRdmaRead(), "iWARP: one SGE per RDMA READ");
            assertEquals(siw.maxSge(), a.maxIovSegmentsPerDto());
            assertEquals(siw.maxQp(), a.maxEps());
            ProtectionZone pz = ia.createPz();
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY_REGION, pz::createRmr);
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("IA name profile=mlx5&maxQp=7: a limit in the name overrides the profile's; the rest is the profile's")
    void shouldLetNameLimitsOverrideTheProfile(DatPair.Mode mode) {
        InterfaceAdapter ia = Dat.openIa(name(mode, "maxQp=7&profile=MLX5"), 8);
        try {
            IaAttributes a = ia.query().iaAttributes();
            assertEquals(7, a.maxEps());
            assertEquals(io.simrdma.fabric.DeviceProfile.MLX5.limits().maxSge(), a.maxIovSegmentsPerDto());
            assertEquals(io.simrdma.fabric.DeviceProfile.MLX5.limits().maxCqe(), a.maxEvdQlen());
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    @Test
    @DisplayName("IA names: profile= is an option of sim: and simtcp: names alike; without it the device is ibta")
    void shouldParseProfileOptionInSimAndSimtcpNames() {
        assertSame(
                io.simrdma.fabric.DeviceProfile.RXE,
                IaName.parse("simtcp:127.0.0.1:0?profile=rxe").profile());
        assertSame(
                io.simrdma.fabric.DeviceProfile.SIW,
                IaName.parse("sim:f/d?profile=siw&seed=3").profile());
        assertSame(io.simrdma.fabric.DeviceProfile.IBTA, IaName.parse("sim:f/d").profile());
        assertDat(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> IaName.parse("simtcp:127.0.0.1:0?profile=cx9"));
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_pz_create, dat_lmr_create, dat_rmr_create, dat_srq_create, dat_ep_create, dat_evd_create: "
            + "beyond the IA limits -> DAT_INSUFFICIENT_RESOURCES; beyond max_evd_qlen -> DAT_INVALID_PARAMETER")
    void shouldEnforceIaLimitsWhenCreatingObjects(DatPair.Mode mode) {
        InterfaceAdapter ia = Dat.openIa(name(mode, "maxQp=1&maxCq=2&maxCqe=100&maxMr=2&maxPd=2&maxMw=1&maxSrq=1"), 8);
        try {
            ProtectionZone pz = ia.createPz();
            ia.createPz();
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN, ia::createPz);
            RegionDescription r = new RegionDescription.Virtual(ByteBuffer.allocate(64));
            ia.createLmr(r, pz, MemoryPrivilege.all());
            ia.createLmr(r, pz, MemoryPrivilege.all());
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_MEMORY_REGION,
                    () -> ia.createLmr(r, pz, MemoryPrivilege.all()));
            pz.createRmr();
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY_REGION, pz::createRmr);
            ia.createSrq(pz, new SrqAttributes(4, 1, 0));
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_SRQ,
                    () -> ia.createSrq(pz, new SrqAttributes(4, 1, 0)));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG2,
                    () -> ia.createEvd(101, EnumSet.of(EvdFlag.DTO)));
            EventDispatcher dto = ia.createEvd(100, EnumSet.of(EvdFlag.DTO));
            ia.createEvd(10, EnumSet.of(EvdFlag.CONNECTION));
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_TEVD,
                    () -> ia.createEvd(10, EnumSet.of(EvdFlag.DTO)));
            ia.createEndpoint(pz, dto, dto, null, null);
            assertDat(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_TEP,
                    () -> ia.createEndpoint(pz, dto, dto, null, null));
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    // ------------------------------------------------------------------ dat_ia_close

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ia_close(3DAT): graceful close -> DAT_INVALID_STATE (IA in use) until every consumer object is freed")
    void shouldRefuseGracefulCloseWhileAnyObjectRemains(DatPair.Mode mode) {
        InterfaceAdapter ia = Dat.openIa(name(mode, ""), 8);
        try {
            ProtectionZone pz = ia.createPz();
            EventDispatcher dto = ia.createEvd(16, EnumSet.of(EvdFlag.DTO));
            EventDispatcher cr = ia.createEvd(16, EnumSet.of(EvdFlag.CR));
            ConsumerNotificationObject cno = ia.createCno(null);
            LocalMemoryRegion lmr =
                    ia.createLmr(new RegionDescription.Virtual(ByteBuffer.allocate(64)), pz, MemoryPrivilege.all());
            RemoteMemoryRegion rmr = pz.createRmr();
            SharedReceiveQueue srq = ia.createSrq(pz, new SrqAttributes(4, 1, 0));
            Endpoint ep = ia.createEndpoint(pz, dto, dto, null, null);
            PublicServicePoint psp = ia.createPsp(7, cr, PspFlag.CONSUMER);
            // Freed in dependency order; graceful close is refused after every free but the last.
            List<Runnable> frees = List.of(
                    psp::free, ep::free, srq::free, rmr::free, lmr::free, cno::free, cr::free, dto::free, pz::free);
            for (Runnable free : frees) {
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                        () -> ia.close(CloseFlag.GRACEFUL));
                assertSame(ia, ia.query().asyncEvd().orElseThrow().query().ia(), "the refused close changed nothing");
                free.run();
            }
            // dat_ia_close(3DAT): the async EVD the provider created does not count.
            ia.close(CloseFlag.GRACEFUL);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, ia::query);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, ia::createPz);
        } finally {
            HandleSet.closeQuietly(ia);
        }
    }

    @Test
    @DisplayName("dat_ia_close(3DAT): closing a closed IA -> DAT_INVALID_HANDLE; a null flag -> DAT_INVALID_PARAMETER")
    void shouldFailWhenClosedTwiceOrWithoutFlag() {
        InterfaceAdapter ia = Dat.openIa(name(DatPair.Mode.DETERMINISTIC, ""), 8);
        assertDat(DatReturnType.INVALID_PARAMETER, () -> ia.close(null));
        ia.close(CloseFlag.ABRUPT);
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> ia.close(CloseFlag.ABRUPT));
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> ia.close(CloseFlag.GRACEFUL));
        assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, ia::handleType);
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ia_close(3DAT): abrupt close destroys every object; each handle then fails with DAT_INVALID_HANDLE and its subtype")
    void shouldInvalidateEveryHandleWhenClosedAbruptly(DatPair.Mode mode) {
        try (HandleSet h = new HandleSet(mode)) {
            for (HandleSet.Entry e : h.entries()) {
                e.handle().setConsumerContext(e.name());
            }
            h.y.close(CloseFlag.ABRUPT);
            for (HandleSet.Entry e : h.entries()) {
                assertDat(DatReturnType.INVALID_HANDLE, e.invalidSubtype(), e.use());
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        e.invalidSubtype(),
                        () -> e.handle().handleType());
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        e.invalidSubtype(),
                        () -> e.handle().consumerContext());
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        e.invalidSubtype(),
                        () -> e.handle().setConsumerContext(null));
            }
            // dat_ia_close(3DAT): the async EVD dat_ia_open created is destroyed too.
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, h.async::query);
            // The other IA of the fabric is untouched.
            assertSame(h.x, h.x.createPz().query().ia());
        }
    }

    @Test
    @DisplayName("dat_ia_close(3DAT), dat_evd_wait(3DAT): an abrupt close unblocks a waiter on an EVD with DAT_ABORT")
    void shouldAbortEvdWaiterWhenClosedAbruptly() throws Exception {
        InterfaceAdapter ia = Dat.openIa(name(DatPair.Mode.THREADED, ""), 8);
        try {
            EventDispatcher evd = ia.createEvd(8, EnumSet.of(EvdFlag.SOFTWARE));
            CompletableFuture<EvdWaitResult> waiter = EventTestSupport.startWaiter(evd);
            // dat_evd_dequeue(3DAT): DAT_INVALID_STATE while a thread waits: that tells the waiter is in.
            EventTestSupport.awaitWaiter(evd);
            ia.close(CloseFlag.ABRUPT);
            assertEquals(DatReturnType.ABORT, EventTestSupport.failure(waiter).type());
        } finally {
            HandleSet.closeQuietly(ia);
        }
    }

    // ------------------------------------------------------------------ consumer context, handle type

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_set_consumer_context(3DAT), dat_get_consumer_context(3DAT), dat_get_handle_type(3DAT) on every handle type")
    void shouldKeepConsumerContextAndHandleTypeOnEveryHandle(DatPair.Mode mode) {
        try (HandleSet h = new HandleSet(mode)) {
            List<HandleSet.Entry> entries = h.entries();
            List<Object> contexts = new ArrayList<>();
            for (HandleSet.Entry e : entries) {
                assertEquals(e.type(), e.handle().handleType(), () -> "dat_get_handle_type of " + e);
                assertNull(e.handle().consumerContext(), () -> "initial context of " + e);
                Object c = new Object();
                contexts.add(c);
                e.handle().setConsumerContext(c);
            }
            for (int i = 0; i < entries.size(); i++) {
                HandleSet.Entry e = entries.get(i);
                assertSame(contexts.get(i), e.handle().consumerContext(), () -> "one context per handle: " + e);
                Object replacement = "replacement of " + e;
                e.handle().setConsumerContext(replacement);
                assertSame(replacement, e.handle().consumerContext(), () -> "the new context replaces the old: " + e);
                e.handle().setConsumerContext(null);
                assertNull(e.handle().consumerContext(), () -> "NULL disassociates the context: " + e);
            }
            assertEquals(io.simrdma.dat.HandleType.EVD, h.async.handleType());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_get_consumer_context(3DAT) et al.: a freed handle of each type -> DAT_INVALID_HANDLE with its subtype")
    void shouldFailWithInvalidHandleWhenHandleWasFreed(DatPair.Mode mode) {
        try (HandleSet h = new HandleSet(mode)) {
            h.cr.reject();
            h.psp.free();
            h.rsp.free();
            h.ep.free();
            h.rspEp.free();
            h.srq.free();
            h.rmr.free();
            h.lmr.free();
            h.cno.free();
            h.dto.free();
            h.conn.free();
            h.pz.free();
            for (HandleSet.Entry e : h.entries()) {
                if (e.handle() == h.y) {
                    continue;
                }
                assertDat(DatReturnType.INVALID_HANDLE, e.invalidSubtype(), e.use());
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        e.invalidSubtype(),
                        () -> e.handle().consumerContext());
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        e.invalidSubtype(),
                        () -> e.handle().handleType());
            }
            h.y.close(CloseFlag.GRACEFUL);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_INVALID_HANDLE with the handle's subtype: handles of another IA, freed handles and NULL passed as arguments")
    void shouldFailWithInvalidHandleWhenArgumentIsFreedOrOfAnotherIa(DatPair.Mode mode) {
        try (HandleSet h = new HandleSet(mode)) {
            InterfaceAdapter y = h.y;
            InterfaceAdapter x = h.x;
            // Counted on the device executor, after the task that delivered the CR has remembered it.
            SimIa sy = (SimIa) y;
            int liveHandles = sy.call(() -> sy.handleCount(SimHandle.class));
            ProtectionZone xpz = x.createPz();
            EventDispatcher xdto = x.createEvd(8, EnumSet.of(EvdFlag.DTO));
            EventDispatcher xconn = x.createEvd(8, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            ConsumerNotificationObject xcno = x.createCno(null);
            LocalMemoryRegion xlmr =
                    x.createLmr(new RegionDescription.Virtual(ByteBuffer.allocate(64)), xpz, MemoryPrivilege.all());
            Endpoint xep = x.createEndpoint(xpz, xdto, xdto, xconn, null);
            SharedReceiveQueue xsrq = x.createSrq(xpz, new SrqAttributes(4, 1, 0));
            RegionDescription region = new RegionDescription.Virtual(ByteBuffer.allocate(64));

            // dat_lmr_create(3DAT), dat_srq_create(3DAT), dat_ep_create(3DAT): pz_handle.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> y.createLmr(region, xpz, MemoryPrivilege.all()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> y.createLmr(region, null, MemoryPrivilege.all()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> y.createSrq(xpz, new SrqAttributes(4, 1, 0)));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> y.createEndpoint(xpz, h.dto, h.dto, h.conn, null));
            // dat_ep_create(3DAT): recv_evd_handle, request_evd_handle, connect_evd_handle.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> y.createEndpoint(h.pz, xdto, h.dto, h.conn, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    () -> y.createEndpoint(h.pz, h.dto, xdto, h.conn, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    () -> y.createEndpoint(h.pz, h.dto, h.dto, xconn, null));
            // dat_psp_create(3DAT): evd_handle.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                    () -> y.createPsp(3000, xconn, PspFlag.CONSUMER));
            // dat_evd_create (udat.h), dat_evd_modify_cno(3DAT): cno_handle.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_CNO,
                    () -> y.createEvd(8, xcno, EnumSet.of(EvdFlag.DTO)));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, () -> h.dto.modifyCno(xcno));
            // dat_lmr_create(3DAT) DAT_MEM_TYPE_LMR: the region's LMR handle.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_LMR,
                    () -> y.createLmr(new RegionDescription.Lmr(xlmr), h.pz, MemoryPrivilege.all()));
            // dat_rmr_bind(3DAT), dat_rsp_create(3DAT), dat_cr_accept(3DAT): ep_handle.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> h.rmr.bind(
                            ObjectFixtures.seg(h.lmr, 0, 8).get(0),
                            MemoryPrivilege.write(),
                            xep,
                            1,
                            EnumSet.noneOf(io.simrdma.dat.CompletionFlag.class)));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> y.createRsp(3001, xep, h.conn));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> h.cr.accept(xep, null));
            // dat_ep_create_with_srq(3DAT): srq_handle.
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_SRQ,
                    () -> y.createEndpointWithSrq(
                            h.pz, h.dto, h.dto, h.conn, xsrq, h.ep.query().attributes()));

            // The same arguments once freed.
            ProtectionZone pz2 = y.createPz();
            EventDispatcher evd2 = y.createEvd(8, EnumSet.of(EvdFlag.DTO, EvdFlag.CONNECTION, EvdFlag.CR));
            ConsumerNotificationObject cno2 = y.createCno(null);
            LocalMemoryRegion lmr2 = y.createLmr(region, pz2, MemoryPrivilege.all());
            Endpoint ep2 = y.createEndpoint(h.pz, h.dto, h.dto, h.conn, null);
            SharedReceiveQueue srq2 = y.createSrq(h.pz, new SrqAttributes(4, 1, 0));
            lmr2.free();
            pz2.free();
            evd2.free();
            cno2.free();
            ep2.free();
            srq2.free();
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> y.createLmr(region, pz2, MemoryPrivilege.all()));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, pz2::createRmr);
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> y.createEndpoint(h.pz, evd2, h.dto, h.conn, null));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EVD_CR,
                    () -> y.createPsp(3002, evd2, PspFlag.CONSUMER));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_CNO,
                    () -> y.createEvd(8, cno2, EnumSet.of(EvdFlag.DTO)));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_LMR,
                    () -> y.createLmr(new RegionDescription.Lmr(lmr2), h.pz, MemoryPrivilege.all()));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> y.createRsp(3003, ep2, h.conn));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_SRQ,
                    () -> y.createEndpointWithSrq(
                            h.pz, h.dto, h.dto, h.conn, srq2, h.ep.query().attributes()));
            assertEquals(liveHandles, sy.handleCount(SimHandle.class), "the refused calls created nothing");
        }
    }
}
