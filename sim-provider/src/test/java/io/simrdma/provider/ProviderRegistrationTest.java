package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.AsyncEvdRequest;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatConf;
import io.simrdma.dat.DatErrorText;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatRegistry;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdStreamMerging;
import io.simrdma.dat.IaOpenParams;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.MemoryType;
import io.simrdma.dat.ProviderAttributes;
import io.simrdma.dat.ProviderInfo;
import io.simrdma.dat.ProviderList;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.spi.DatProvider;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The provider in the DAT registry: found through {@link java.util.ServiceLoader}, dat_provider_init
 * and dat_provider_fini around its IA names, dat_registry_list_providers(3DAT),
 * dat_registry_add_provider(3DAT), dat_registry_remove_provider(3DAT), a dat.conf entry mapping an
 * IA name to a sim name, its provider attributes (dat_ia_query(3DAT)) and dat_strerror(3DAT) of its
 * errors.
 */
class ProviderRegistrationTest {

    private static String simName(String device) {
        return ObjectFixtures.iaName(DatPair.Mode.DETERMINISTIC, ObjectFixtures.fabric("reg"), device, "");
    }

    @Test
    @DisplayName(
            "Dat.registry(): the sim provider is found through ServiceLoader as \"simrdma\", DAT 1.2, thread-safe, serving sim: names")
    void shouldFindSimProviderThroughServiceLoader() {
        List<DatProvider> found = Dat.registry().providers().stream()
                .filter(p -> p.name().equals("simrdma"))
                .toList();
        assertEquals(1, found.size(), () -> "providers " + Dat.registry().providers());
        DatProvider p = found.get(0);
        assertInstanceOf(SimProvider.class, p);
        assertEquals(Dat.VERSION_MAJOR, p.daplVersionMajor());
        assertEquals(Dat.VERSION_MINOR, p.daplVersionMinor());
        assertTrue(p.isThreadSafe());
        assertTrue(p.serves("sim:f/d"));
        assertFalse(p.serves("ib0"));
        assertFalse(p.serves("SIM:f/d"));
    }

    @Test
    @DisplayName(
            "dat_provider_init(3DAT), dat_registry_list_providers(3DAT): the first open registers the IA name, listed with DAT 1.2 thread-safe")
    void shouldRegisterIaNameOnFirstOpen() {
        String name = simName("d");
        InterfaceAdapter ia = Dat.openIa(name, 8);
        try {
            assertTrue(
                    Dat.registry().listProviders().contains(new ProviderInfo(name, 1, 2, true)),
                    () -> "registry " + Dat.registry().listProviders());
            assertEquals(1, Dat.registry().openInstances(name));
            InterfaceAdapter second = Dat.openIa(name, 8);
            assertEquals(2, Dat.registry().openInstances(name), "dat_ia_open(3DAT): multiple instances of an IA");
            second.close();
        } finally {
            ia.close();
        }
        assertEquals(0, Dat.registry().openInstances(name), "dat_ia_close tells the registry");
    }

    @Test
    @DisplayName(
            "dat_provider_init/fini(3DAT), dat_registry_remove_provider(3DAT): in use -> DAT_PROVIDER_IN_USE; unloaded and opened again after the last close")
    void shouldUnloadIaNameOnlyWhenNoInstanceIsOpen() {
        SimProvider provider = new SimProvider();
        DatRegistry registry = DatRegistry.create(DatConf.empty(), List.of(provider));
        String name = simName("d");
        assertEquals(List.of(), registry.listProviders());
        InterfaceAdapter ia = registry.openIa(name, 8);
        ProviderInfo info = new ProviderInfo(name, 1, 2, true);
        assertEquals(List.of(info), registry.listProviders());
        assertTrue(registry.isRegistered(provider, info));
        assertDat(DatReturnType.PROVIDER_IN_USE, () -> registry.removeProvider(provider, info));
        assertDat(DatReturnType.PROVIDER_IN_USE, () -> registry.unload(name));
        assertDat(DatReturnType.PROVIDER_ALREADY_REGISTERED, () -> registry.addProvider(provider, info));
        // dat_registry_list_providers(3DAT): a list too small gets the count of entries.
        ProviderList none = registry.listProviders(0);
        assertEquals(List.of(), none.providers());
        assertEquals(1, none.totalCount());
        assertFalse(none.isComplete());
        ia.close(CloseFlag.GRACEFUL);
        registry.unload(name);
        assertFalse(registry.isRegistered(provider, info), "dat_provider_fini removed the IA name");
        assertEquals(List.of(), registry.listProviders());
        // The next open initialises the name again.
        InterfaceAdapter again = registry.openIa(name, 8);
        assertEquals(List.of(info), registry.listProviders());
        again.close();
        registry.close();
        assertEquals(List.of(), registry.listProviders());
    }

    @Test
    @DisplayName(
            "dat.conf: an IA name mapped to the provider opens the sim name of its ia-params; dat_ia_query's adapter name is the consumer's IA name")
    void shouldOpenSimNameOfDatConfEntry() {
        String sim = simName("dev");
        DatConf conf = DatConf.parse(
                String.join(
                        "\n",
                        "# test registry",
                        "mysim  u1.2  threadsafe  default  simrdma  simrdma.0.1  \"" + sim + "\"  \"\"",
                        "nolib  u1.2  threadsafe  default  nosuchprovider  x.1.0  \"\"  \"\""),
                "test-dat.conf");
        DatRegistry registry = DatRegistry.create(conf, List.of(new SimProvider()));
        assertEquals(
                List.of(new ProviderInfo("mysim", 1, 2, true), new ProviderInfo("nolib", 1, 2, true)),
                registry.listProviders());
        InterfaceAdapter viaConf = registry.openIa("mysim", 8);
        try {
            assertEquals("mysim", viaConf.query().iaAttributes().adapterName());
            InterfaceAdapter direct = registry.openIa(sim, 8);
            try {
                assertEquals(
                        direct.query().iaAttributes().iaAddress(),
                        viaConf.query().iaAttributes().iaAddress(),
                        "both open the same simulated device");
            } finally {
                direct.close();
            }
            // dat_registry_list_providers(3DAT): exact major version and thread safety, at least the minor.
            assertDat(
                    DatReturnType.PROVIDER_NOT_FOUND,
                    DatReturnSubtype.MAJOR_NOT_FOUND,
                    () -> registry.openIa(new IaOpenParams("mysim", AsyncEvdRequest.create(8), 2, 0, true)));
            assertDat(
                    DatReturnType.PROVIDER_NOT_FOUND,
                    DatReturnSubtype.MINOR_NOT_FOUND,
                    () -> registry.openIa(new IaOpenParams("mysim", AsyncEvdRequest.create(8), 1, 3, true)));
            InterfaceAdapter older = registry.openIa(new IaOpenParams("mysim", AsyncEvdRequest.create(8), 1, 1, true));
            older.close();
            assertDat(
                    DatReturnType.PROVIDER_NOT_FOUND,
                    DatReturnSubtype.NAME_NOT_REGISTERED,
                    () -> registry.openIa("nolib", 8));
        } finally {
            viaConf.close();
        }
    }

    @Test
    @DisplayName("dat_ia_open(3DAT): the RO_AWARE_ prefix is removed before the provider sees the name")
    void shouldOpenNameWithRelaxedOrderingPrefix() {
        String name = simName("d");
        InterfaceAdapter ia = Dat.openIa(Dat.RO_AWARE_PREFIX + name, 8);
        try {
            assertEquals(name, ia.query().iaAttributes().adapterName());
        } finally {
            ia.close();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ia_query(3DAT): provider attributes (simrdma, DAT 1.2, max_private_data_size 89, memory types, SRQ support, ...)")
    void shouldReportProviderAttributes(DatPair.Mode mode) {
        InterfaceAdapter ia = Dat.openIa(ObjectFixtures.iaName(mode, ObjectFixtures.fabric("attr"), "d", ""), 8);
        try {
            ProviderAttributes a = ia.query().providerAttributes();
            assertEquals("simrdma", a.providerName());
            assertEquals(0, a.providerVersionMajor());
            assertEquals(1, a.providerVersionMinor());
            assertEquals(1, a.daplVersionMajor());
            assertEquals(2, a.daplVersionMinor());
            assertEquals(89, a.maxPrivateDataSize());
            assertEquals(SimProvider.MAX_PRIVATE_DATA, a.maxPrivateDataSize());
            assertTrue(a.threadSafe());
            assertEquals(
                    EnumSet.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL),
                    a.lmrMemTypesSupported());
            assertEquals(EnumSet.allOf(CompletionFlag.class), a.completionFlagsSupported());
            assertEquals(EnumSet.of(Qos.BEST_EFFORT), a.qosSupported());
            assertEquals(EvdStreamMerging.all(), a.evdStreamMerging());
            assertTrue(a.srqSupported());
            assertFalse(a.srqEpPzDifferenceSupported());
            assertFalse(a.lmrSyncRequired());
            assertFalse(a.supportsMultipath());
            assertEquals(0, Dat.OPTIMAL_ALIGNMENT % a.optimalBufferAlignment());
        } finally {
            ia.close();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_connect(3DAT), dat_ia_query(3DAT): 89 bytes of private data reach the peer; 90 -> DAT_INVALID_PARAMETER")
    void shouldCarryMaxPrivateDataSize(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            int max = p.a.ia.query().providerAttributes().maxPrivateDataSize();
            Endpoint ea = p.a.ep();
            byte[] tooLong = new byte[max + 1];
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> ea.connect(
                            p.b.address(),
                            4000,
                            DatPair.WAIT,
                            tooLong,
                            Qos.BEST_EFFORT,
                            EnumSet.noneOf(ConnectFlag.class)));
            PublicServicePoint psp = p.b.ia.createPsp(4000, p.b.conn, PspFlag.CONSUMER);
            byte[] data = new byte[max];
            Arrays.fill(data, (byte) 0x5C);
            data[max - 1] = 1;
            ea.connect(p.b.address(), 4000, DatPair.WAIT, data, Qos.BEST_EFFORT, EnumSet.noneOf(ConnectFlag.class));
            ConnectionRequestEvent req = DatPair.next(p.b.conn, ConnectionRequestEvent.class);
            assertArrayEquals(data, req.cr().query().privateData());
            req.cr().reject();
            psp.free();
        }
    }

    @Test
    @DisplayName("dat_strerror(3DAT): the provider's return codes convert to their type and subtype names")
    void shouldConvertProviderErrorsWithStrerror() {
        InterfaceAdapter ia = Dat.openIa(simName("d"), 8);
        try {
            io.simrdma.dat.ProtectionZone pz = ia.createPz();
            pz.createRmr();
            DatException inUse =
                    assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, pz::free);
            DatErrorText text = Dat.strerror(inUse.code());
            assertEquals(new DatErrorText("DAT_INVALID_STATE", "DAT_INVALID_STATE_PZ_IN_USE"), text);
            assertEquals(text, inUse.errorText());
            assertTrue(
                    inUse.getMessage().startsWith("DAT_INVALID_STATE DAT_INVALID_STATE_PZ_IN_USE"), inUse.getMessage());
            assertEquals(Dat.CLASS_ERROR, inUse.code() & (Dat.CLASS_ERROR | Dat.CLASS_WARNING));
            assertEquals(DatReturnType.INVALID_STATE.value(), inUse.code() & Dat.TYPE_MASK);
            assertEquals(DatReturnSubtype.INVALID_STATE_PZ_IN_USE.value(), inUse.code() & Dat.SUBTYPE_MASK);
        } finally {
            ia.close();
        }
        DatException notFound =
                assertDat(DatReturnType.PROVIDER_NOT_FOUND, () -> Dat.openIa("nosuch:" + simName("x"), 8));
        assertEquals(
                new DatErrorText("DAT_PROVIDER_NOT_FOUND", "DAT_NAME_NOT_REGISTERED"), Dat.strerror(notFound.code()));
        DatException malformed = assertDat(DatReturnType.INVALID_PARAMETER, () -> Dat.openIa("sim:nodevice", 8));
        assertEquals(new DatErrorText("DAT_INVALID_PARAMETER", ""), Dat.strerror(malformed.code()));
        assertEquals(new DatErrorText("DAT_SUCCESS", ""), Dat.strerror(0));
        assertDat(DatReturnType.INVALID_PARAMETER, () -> Dat.strerror(Dat.CLASS_ERROR | 0x0ABC0000));
    }
}
