package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.fake.FakeInterfaceAdapter;
import io.simrdma.dat.fake.FakeProvider;
import io.simrdma.dat.spi.DatProvider;
import io.simrdma.dat.spi.IaOpenRequest;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class DatRegistryTest {

    private static final String ENTRY = "ib0 u1.2 threadsafe default fake fake.0.1 \"dev=0 port=1\" \"\"";

    private final FakeProvider fake = new FakeProvider();

    private DatRegistry registry(String datConf, DatProvider... providers) {
        return DatRegistry.create(DatConf.parse(datConf, "test.conf"), List.of(providers));
    }

    private static void assertFails(DatReturnType type, DatReturnSubtype subtype, Runnable call) {
        DatException e = assertThrows(DatException.class, call::run);
        assertEquals(type, e.type(), e.getMessage());
        assertEquals(subtype, e.subtype(), e.getMessage());
    }

    @Test
    void shouldFindProviderWhenListedInMetaInfServices() {
        DatRegistry registry = DatRegistry.create(DatConf.empty(), ServiceLoader.load(DatProvider.class));
        assertEquals(1, registry.providers().size());
        DatProvider p = registry.providers().get(0);
        assertInstanceOf(FakeProvider.class, p);
        assertEquals("fake", p.name());
        InterfaceAdapter ia = registry.openIa("fake:dev0", 8);
        assertEquals("fake:dev0", ia.query().iaAttributes().adapterName());
        ia.close();
    }

    @Test
    void shouldOpenNameOfProviderSyntaxWhenNoDatConfEntryMatches() {
        DatRegistry registry = registry("", fake);
        InterfaceAdapter ia = registry.openIa("fake:fabric0/dev0", 8);
        assertEquals(List.of("init fake:fabric0/dev0 null", "open fake:fabric0/dev0"), fake.calls);
        assertTrue(registry.isRegistered(fake, new ProviderInfo("fake:fabric0/dev0", 1, 2, true)));
        assertEquals(1, registry.openInstances("fake:fabric0/dev0"));
        IaOpenRequest request = fake.requests.get(0);
        assertEquals(AsyncEvdRequest.create(8), request.asyncEvd());
        assertEquals(Optional.empty(), request.instanceData());
        assertEquals(new ProviderInfo("fake:fabric0/dev0", 1, 2, true), request.registration());
        assertFalse(request.relaxedOrderingAware());
        assertSame(HandleType.IA, ia.handleType());
    }

    @Test
    void shouldInitOnceWhenSameIaIsOpenedTwice() {
        DatRegistry registry = registry("", fake);
        InterfaceAdapter a = registry.openIa("fake:x", 1);
        InterfaceAdapter b = registry.openIa("fake:x", 1);
        assertEquals(List.of("init fake:x null", "open fake:x", "open fake:x"), fake.calls);
        assertEquals(2, registry.openInstances("fake:x"));
        a.close();
        b.close(CloseFlag.GRACEFUL);
        assertEquals(0, registry.openInstances("fake:x"));
    }

    @Test
    void shouldFailWithNameNotRegisteredWhenNoProviderServesName() {
        DatRegistry registry = registry("", fake);
        DatException e = assertThrows(DatException.class, () -> registry.openIa("other:x", 1));
        assertEquals(DatReturnType.PROVIDER_NOT_FOUND, e.type());
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
        assertEquals(
                "DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED: no provider serves IA name 'other:x'", e.getMessage());
        assertEquals(0x800A0062, e.code());
        assertEquals(List.of(), fake.calls);
    }

    @Test
    void shouldPassInstanceDataToInitWhenDatConfMapsName() {
        DatRegistry registry = registry(ENTRY, fake);
        registry.openIa("ib0", 4);
        assertEquals(List.of("init ib0 dev=0 port=1", "open ib0"), fake.calls);
        assertEquals(Optional.of("dev=0 port=1"), fake.requests.get(0).instanceData());
    }

    @Test
    void shouldFailWithNameNotRegisteredWhenDatConfProviderIsAbsent() {
        DatRegistry registry = registry(ENTRY.replace(" fake ", " absent "), fake);
        DatException e = assertThrows(DatException.class, () -> registry.openIa("ib0", 4));
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
        assertEquals("test.conf:1 maps IA name 'ib0' to provider 'absent', which is not on the class path", e.detail());
    }

    @Test
    void shouldNameTheMismatchWhenVersionOrThreadSafetyDiffers() {
        assertFails(
                DatReturnType.PROVIDER_NOT_FOUND,
                DatReturnSubtype.MAJOR_NOT_FOUND,
                () -> registry(ENTRY.replace("u1.2", "u2.0"), fake).openIa("ib0", 4));
        assertFails(
                DatReturnType.PROVIDER_NOT_FOUND,
                DatReturnSubtype.THREAD_SAFETY_NOT_FOUND,
                () -> registry(ENTRY.replace("threadsafe", "nonthreadsafe"), fake)
                        .openIa("ib0", 4));
        assertFails(
                DatReturnType.PROVIDER_NOT_FOUND,
                DatReturnSubtype.MINOR_NOT_FOUND,
                () -> registry(ENTRY.replace("u1.2", "u1.1"), fake).openIa("ib0", 4));
        FakeProvider old = new FakeProvider("old", false, 1, 2);
        assertFails(
                DatReturnType.PROVIDER_NOT_FOUND,
                DatReturnSubtype.THREAD_SAFETY_NOT_FOUND,
                () -> registry("", old).openIa("old:x", 4));
        assertEquals(List.of(), old.calls);
        assertEquals(List.of(), fake.calls);
    }

    @Test
    void shouldPreferExactMinorWhenSeveralEntriesMatch() {
        FakeProvider newer = new FakeProvider("newer");
        String conf = ENTRY.replace("u1.2", "u1.3").replace(" fake ", " newer ") + "\n" + ENTRY;
        DatRegistry registry = registry(conf, fake, newer);
        registry.openIa("ib0", 4);
        assertEquals(List.of("init ib0 dev=0 port=1", "open ib0"), fake.calls);
        assertEquals(List.of(), newer.calls);
        DatRegistry onlyNewer = registry(ENTRY.replace("u1.2", "u1.3"), fake);
        onlyNewer.openIa("ib0", 4);
        assertEquals(new ProviderInfo("ib0", 1, 3, true), fake.requests.get(1).registration());
    }

    @Test
    void shouldOpenWithLowerMinorWhenConsumerAsksForIt() {
        DatRegistry registry = registry(ENTRY, fake);
        registry.openIa(new IaOpenParams("ib0", AsyncEvdRequest.existsElsewhere(), 1, 1, true));
        IaOpenRequest r = fake.requests.get(0);
        assertEquals(1, r.requestedVersionMinor());
        assertSame(AsyncEvdRequest.ExistsElsewhere.INSTANCE, r.asyncEvd());
    }

    @Test
    void shouldRejectAddWhenIaNameIsAlreadyRegistered() {
        DatRegistry registry = registry("", fake);
        ProviderInfo info = new ProviderInfo("ia0", 1, 2, true);
        registry.addProvider(fake, info);
        assertFails(
                DatReturnType.PROVIDER_ALREADY_REGISTERED,
                DatReturnSubtype.NO_SUBTYPE,
                () -> registry.addProvider(fake, info));
        assertFails(
                DatReturnType.PROVIDER_ALREADY_REGISTERED,
                DatReturnSubtype.NO_SUBTYPE,
                () -> registry.addProvider(new FakeProvider("other"), new ProviderInfo("ia0", 1, 1, false)));
    }

    @Test
    void shouldRejectAddWhenAnotherProviderHasSameName() {
        DatRegistry registry = registry("", fake);
        DatException e = assertThrows(
                DatException.class,
                () -> registry.addProvider(new FakeProvider(), new ProviderInfo("ia1", 1, 2, true)));
        assertEquals(DatReturnType.PROVIDER_ALREADY_REGISTERED, e.type());
        assertEquals("another provider is named 'fake'", e.detail());
    }

    @Test
    void shouldRejectRemovalWhenProviderIsNotRegistered() {
        DatRegistry registry = registry("", fake);
        ProviderInfo info = new ProviderInfo("ia0", 1, 2, true);
        assertFails(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> registry.removeProvider(fake, info));
        registry.addProvider(fake, info);
        assertFails(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> registry.removeProvider(new FakeProvider("other"), info));
        assertFails(
                DatReturnType.INVALID_PARAMETER,
                DatReturnSubtype.NO_SUBTYPE,
                () -> registry.removeProvider(fake, new ProviderInfo("ia0", 1, 2, false)));
        registry.removeProvider(fake, info);
        assertFalse(registry.isRegistered(fake, info));
    }

    @Test
    void shouldRefuseRemovalWhenAnInstanceIsOpen() {
        DatRegistry registry = registry("", fake);
        ProviderInfo info = new ProviderInfo("fake:a", 1, 2, true);
        InterfaceAdapter ia = registry.openIa("fake:a", 2);
        DatException e = assertThrows(DatException.class, () -> registry.removeProvider(fake, info));
        assertEquals(DatReturnType.PROVIDER_IN_USE, e.type());
        assertEquals("1 instance(s) of IA 'fake:a' are open", e.detail());
        ia.close();
        registry.removeProvider(fake, info);
        assertEquals(0, registry.openInstances("fake:a"));
    }

    @Test
    void shouldCountCloseOnceWhenProviderNotifiesTwice() {
        DatRegistry registry = registry("", fake);
        InterfaceAdapter a = registry.openIa("fake:a", 2);
        registry.openIa("fake:a", 2);
        IaOpenRequest first = ((FakeInterfaceAdapter) a).request();
        first.notifyClosed();
        first.notifyClosed();
        assertEquals(1, registry.openInstances("fake:a"));
    }

    @Test
    void shouldListStaticThenDynamicEntriesWhenAllFit() {
        DatRegistry registry = registry(ENTRY + "\nib1 u1.2 nonthreadsafe nondefault fake 0.1 \"\" \"\"", fake);
        registry.openIa("ib0", 1);
        registry.addProvider(fake, new ProviderInfo("extra", 1, 2, true));
        List<ProviderInfo> expected = List.of(
                new ProviderInfo("ib0", 1, 2, true),
                new ProviderInfo("ib1", 1, 2, false),
                new ProviderInfo("extra", 1, 2, true));
        assertEquals(expected, registry.listProviders());
        ProviderList all = registry.listProviders(10);
        assertEquals(expected, all.providers());
        assertEquals(3, all.totalCount());
        assertTrue(all.isComplete());
    }

    @Test
    void shouldReturnFittingEntriesAndTotalWhenMaxIsTooSmall() {
        DatRegistry registry = registry(ENTRY + "\nib1 u1.2 nonthreadsafe nondefault fake 0.1 \"\" \"\"", fake);
        ProviderList one = registry.listProviders(1);
        assertEquals(List.of(new ProviderInfo("ib0", 1, 2, true)), one.providers());
        assertEquals(2, one.totalCount());
        assertFalse(one.isComplete());
        ProviderList none = registry.listProviders(0);
        assertEquals(List.of(), none.providers());
        assertEquals(2, none.totalCount());
        assertFails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> registry.listProviders(-1));
    }

    @Test
    void shouldCallFiniWhenUnloadedAfterLastClose() {
        DatRegistry registry = registry("", fake);
        InterfaceAdapter ia = registry.openIa("fake:a", 2);
        assertFails(DatReturnType.PROVIDER_IN_USE, DatReturnSubtype.NO_SUBTYPE, () -> registry.unload("fake:a"));
        assertEquals(List.of("init fake:a null", "open fake:a"), fake.calls);
        ia.close();
        registry.unload("fake:a");
        assertEquals(List.of("init fake:a null", "open fake:a", "fini fake:a"), fake.calls);
        assertFalse(registry.isRegistered(fake, new ProviderInfo("fake:a", 1, 2, true)));
        assertFails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, () -> registry.unload("fake:a"));
        registry.openIa("fake:a", 2);
        assertEquals(
                List.of("init fake:a null", "open fake:a", "fini fake:a", "init fake:a null", "open fake:a"),
                fake.calls);
    }

    @Test
    void shouldRemoveRegistrationWhenFiniLeavesIt() {
        fake.finiRemoves = false;
        DatRegistry registry = registry("", fake);
        registry.openIa("fake:a", 2).close();
        registry.unload("fake:a");
        assertFalse(registry.isRegistered(fake, new ProviderInfo("fake:a", 1, 2, true)));
        assertEquals(List.of(), registry.listProviders());
    }

    @Test
    void shouldFiniEveryInitialisedNameWhenRegistryCloses() {
        DatRegistry registry = registry(ENTRY, fake);
        registry.openIa("ib0", 1).close();
        InterfaceAdapter open = registry.openIa("fake:b", 1);
        assertFails(DatReturnType.PROVIDER_IN_USE, DatReturnSubtype.NO_SUBTYPE, registry::close);
        assertEquals(List.of("init ib0 dev=0 port=1", "open ib0", "init fake:b null", "open fake:b"), fake.calls);
        open.close();
        registry.close();
        assertEquals(
                List.of(
                        "init ib0 dev=0 port=1",
                        "open ib0",
                        "init fake:b null",
                        "open fake:b",
                        "fini ib0",
                        "fini fake:b"),
                fake.calls);
    }

    @Test
    void shouldFailOpenWhenInitDoesNotRegister() {
        fake.initBehaviour = (self, registry, info, data) -> {};
        DatRegistry registry = registry("", fake);
        DatException e = assertThrows(DatException.class, () -> registry.openIa("fake:a", 1));
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
        assertEquals("provider 'fake' did not register IA name 'fake:a' in dat_provider_init", e.detail());
    }

    @Test
    void shouldRejectOtherNameWhenInitRegistersIt() {
        fake.initBehaviour =
                (self, registry, info, data) -> registry.addProvider(self, new ProviderInfo("fake:other", 1, 2, true));
        DatRegistry registry = registry("", fake);
        DatException e = assertThrows(DatException.class, () -> registry.openIa("fake:a", 1));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals("dat_provider_init for 'fake:a' must not register another IA name ('fake:other')", e.detail());
        assertEquals(List.of(), registry.listProviders());
    }

    @Test
    void shouldRemoveLeftoverEntryWhenInitFails() {
        fake.initBehaviour = (self, registry, info, data) -> {
            registry.addProvider(self, info);
            throw new IllegalStateException("device missing");
        };
        DatRegistry registry = registry("", fake);
        DatException e = assertThrows(DatException.class, () -> registry.openIa("fake:a", 1));
        assertEquals(DatReturnType.INTERNAL_ERROR, e.type());
        assertEquals("device missing", e.getCause().getMessage());
        assertEquals(List.of(), registry.listProviders());
    }

    @Test
    void shouldStripRoAwarePrefixWhenOpening() {
        DatRegistry registry = registry("", fake);
        registry.openIa("RO_AWARE_fake:a", 1);
        IaOpenRequest r = fake.requests.get(0);
        assertEquals("fake:a", r.iaName());
        assertTrue(r.relaxedOrderingAware());
        assertEquals(List.of("init fake:a null", "open fake:a"), fake.calls);
    }

    @Test
    void shouldReportInternalErrorAndReleaseCountWhenProviderOpenThrows() {
        fake.openBehaviour = r -> {
            throw new IllegalArgumentException("bad");
        };
        DatRegistry registry = registry("", fake);
        DatException e = assertThrows(DatException.class, () -> registry.openIa("fake:a", 1));
        assertEquals(DatReturnType.INTERNAL_ERROR, e.type());
        assertEquals("provider 'fake' failed to open IA 'fake:a'", e.detail());
        assertEquals(0, registry.openInstances("fake:a"));
    }

    @Test
    void shouldPassProviderFailureWhenProviderOpenThrowsDatException() {
        fake.openBehaviour = r -> {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE);
        };
        DatRegistry registry = registry("", fake);
        assertFails(
                DatReturnType.INSUFFICIENT_RESOURCES,
                DatReturnSubtype.RESOURCE_DEVICE,
                () -> registry.openIa("fake:a", 1));
        assertEquals(0, registry.openInstances("fake:a"));
        registry.removeProvider(fake, new ProviderInfo("fake:a", 1, 2, true));
    }

    @Test
    void shouldRejectRegistryWhenTwoProvidersShareName() {
        DatException e = assertThrows(
                DatException.class, () -> DatRegistry.create(DatConf.empty(), List.of(fake, new FakeProvider())));
        assertEquals(DatReturnType.PROVIDER_ALREADY_REGISTERED, e.type());
    }

    @Test
    void shouldOpenThroughDefaultRegistryWhenDatConfIsOnClassPath() {
        DatRegistry registry = Dat.registry();
        assertSame(registry, Dat.registry());
        assertTrue(registry.listProviders().contains(new ProviderInfo("fake0", 1, 2, true)));
        InterfaceAdapter ia = Dat.openIa("fake0", 4);
        IaOpenRequest r = ((FakeInterfaceAdapter) ia).request();
        assertEquals(Optional.of("instance=zero"), r.instanceData());
        assertEquals(1, registry.openInstances("fake0"));
        ia.close();
        assertEquals(0, registry.openInstances("fake0"));
    }
}
