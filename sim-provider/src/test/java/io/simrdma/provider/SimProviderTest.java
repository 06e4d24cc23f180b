package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.ProtectionZone;
import java.lang.reflect.Proxy;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SimProvider's entry points for test tools: the objects of an IA not freed yet (those
 * dat_ia_close(3DAT) graceful would refuse for), where each was created, and the events an EVD holds.
 */
class SimProviderTest {

    @AfterEach
    void stopRecording() {
        SimProvider.recordCreationSites(false);
    }

    @Test
    @DisplayName(
            "dat_ia_close(3DAT) graceful: openHandles lists the IA's objects not freed, oldest first; a freed one leaves")
    void shouldListUnfreedObjectsWhenAsked() {
        InterfaceAdapter ia = Dat.openIa(
                ObjectFixtures.iaName(DatPair.Mode.DETERMINISTIC, ObjectFixtures.fabric("hooks"), "a", ""), 8);
        try {
            assertEquals(List.of(), SimProvider.openHandles(ia), "a new IA holds nothing of the consumer's");
            ProtectionZone pz = ia.createPz();
            EventDispatcher evd = ia.createEvd(4, EnumSet.of(EvdFlag.SOFTWARE));
            assertEquals(List.<DatHandle>of(pz, evd), SimProvider.openHandles(ia));
            pz.free();
            assertEquals(List.<DatHandle>of(evd), SimProvider.openHandles(ia));
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                    () -> ia.close(CloseFlag.GRACEFUL));
            evd.free();
            assertEquals(List.of(), SimProvider.openHandles(ia));
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
        assertEquals(List.of(), SimProvider.openHandles(ia), "a closed IA holds nothing");
    }

    @Test
    @DisplayName(
            "queuedEvents counts what dat_evd_dequeue(3DAT) has not taken; creationSite is the creating call when recorded")
    void shouldCountEventsAndKeepSitesWhenRecording() {
        InterfaceAdapter ia = Dat.openIa(
                ObjectFixtures.iaName(DatPair.Mode.DETERMINISTIC, ObjectFixtures.fabric("hooks"), "a", ""), 8);
        try {
            ProtectionZone before = ia.createPz();
            assertNull(SimProvider.creationSite(before), "sites are off by default");
            SimProvider.recordCreationSites(true);
            EventDispatcher evd = ia.createEvd(4, EnumSet.of(EvdFlag.SOFTWARE));
            Throwable site = SimProvider.creationSite(evd);
            assertNotNull(site);
            assertTrue(
                    site.getStackTrace().length > 0
                            && List.of(site.getStackTrace()).stream()
                                    .anyMatch(e ->
                                            e.getMethodName().equals("shouldCountEventsAndKeepSitesWhenRecording")),
                    "the test's frame is in the site");
            assertEquals(0, SimProvider.queuedEvents(evd));
            evd.postSoftwareEvent("one");
            evd.postSoftwareEvent("two");
            assertEquals(2, SimProvider.queuedEvents(evd));
            evd.dequeue();
            assertEquals(1, SimProvider.queuedEvents(evd));
            evd.dequeue();
            evd.free();
            assertEquals(0, SimProvider.queuedEvents(evd), "a freed EVD holds nothing");
            before.free();
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    @Test
    @DisplayName("openHandles of an IA that is not the sim provider's is DAT_INVALID_HANDLE_IA")
    void shouldRefuseWhenIaIsNotTheProvidersOwn() {
        InterfaceAdapter other = (InterfaceAdapter) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {InterfaceAdapter.class}, (proxy, method, args) -> null);
        assertDat(
                DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> SimProvider.openHandles(other));
    }
}
