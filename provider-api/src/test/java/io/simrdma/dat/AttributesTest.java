package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttributesTest {

    @Test
    void shouldStartFromDatDefaultsWhenProviderAttributesAreBuilt() {
        ProviderAttributes p =
                ProviderAttributes.builder().providerName("simrdma").build();
        assertEquals(1, p.daplVersionMajor());
        assertEquals(2, p.daplVersionMinor());
        assertEquals(
                EnumSet.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL), p.lmrMemTypesSupported());
        assertEquals(64, p.maxPrivateDataSize());
        assertEquals(256, p.optimalBufferAlignment());
        assertEquals(EvdStreamMerging.all(), p.evdStreamMerging());
        assertSame(IovOwnership.CONSUMER, p.iovOwnershipOnReturn());
        assertEquals(Integer.MAX_VALUE, p.maxIaInstances());
        assertFalse(p.threadSafe());
    }

    @Test
    void shouldExposePrivateDataLimitWhenProviderSetsIt() {
        ProviderAttributes p = ProviderAttributes.builder()
                .providerName("simrdma")
                .maxPrivateDataSize(92)
                .completionFlagsSupported(EnumSet.of(CompletionFlag.SUPPRESS, CompletionFlag.UNSIGNALLED))
                .maxIaInstances(4)
                .build();
        assertEquals(92, p.maxPrivateDataSize());
        assertEquals(0x05, p.completionFlagsSupportedBits());
        assertEquals(4, p.toBuilder().build().maxIaInstances());
    }

    @Test
    void shouldRejectProviderAttributesWhenPrivateDataLimitIsBelow64() {
        DatException e = assertThrows(
                DatException.class,
                () -> ProviderAttributes.builder()
                        .providerName("p")
                        .maxPrivateDataSize(63)
                        .build());
        assertEquals(
                "DAT_INVALID_PARAMETER: maxPrivateDataSize 63 is below the 64 bytes dat_ia_query requires",
                e.getMessage());
    }

    @Test
    void shouldRejectProviderAttributesWhenAlignmentDoesNotDivide256() {
        assertThrows(
                DatException.class,
                () -> ProviderAttributes.builder()
                        .providerName("p")
                        .optimalBufferAlignment(48)
                        .build());
        assertEquals(
                64,
                ProviderAttributes.builder()
                        .providerName("p")
                        .optimalBufferAlignment(64)
                        .build()
                        .optimalBufferAlignment());
    }

    @Test
    void shouldRequireNameAndAddressWhenIaAttributesAreBuilt() {
        assertEquals(
                "DAT_INVALID_PARAMETER: adapterName must not be null",
                assertThrows(DatException.class, () -> IaAttributes.builder().build())
                        .getMessage());
        IaAttributes a = IaAttributes.builder()
                .adapterName("ia0")
                .iaAddress(InetSocketAddress.createUnresolved("h", 1))
                .maxEps(8)
                .transportAttributes(List.of(new NamedAttribute("mtu", "4096")))
                .build();
        assertEquals(8, a.maxEps());
        assertEquals(List.of(new NamedAttribute("mtu", "4096")), a.transportAttributes());
        assertThrows(DatException.class, () -> a.toBuilder().maxEvds(-1).build());
    }

    @Test
    void shouldDefaultSoftWatermarkToInfiniteWhenEpAttributesAreBuilt() {
        EpAttributes e = EpAttributes.builder().build();
        assertEquals(Dat.HW_DEFAULT, e.srqSoftHw());
        assertSame(ServiceType.RC, e.serviceType());
        assertEquals(EnumSet.noneOf(CompletionFlag.class), e.recvCompletionFlags());
        assertThrows(
                DatException.class, () -> EpAttributes.builder().srqSoftHw(-3).build());
    }

    @Test
    void shouldAllowValueUnknownWhenCountsCannotBeObtained() {
        SrqParams p = new SrqParams(
                Fakes.ia(),
                SrqState.OPERATIONAL,
                Fakes.handle(ProtectionZone.class, HandleType.PZ),
                10,
                1,
                0,
                Dat.VALUE_UNKNOWN,
                3);
        assertEquals(-2, p.availableDtoCount());
        assertThrows(
                DatException.class,
                () -> new SrqParams(
                        Fakes.ia(),
                        SrqState.OPERATIONAL,
                        Fakes.handle(ProtectionZone.class, HandleType.PZ),
                        10,
                        1,
                        0,
                        -3,
                        3));
        assertEquals(Dat.VALUE_UNKNOWN, new EpRecvInfo(Dat.VALUE_UNKNOWN, 5).nbufsAllocated());
    }

    @Test
    void shouldRejectRecvInfoWhenSpanIsLessThanCount() {
        DatException e = assertThrows(DatException.class, () -> new EpRecvInfo(3, 2));
        assertEquals("DAT_INVALID_PARAMETER: span 2 is less than the 3 buffers in it", e.getMessage());
        assertEquals(5, new EpRecvInfo(3, 5).bufsAllocSpan());
    }

    @Test
    void shouldRejectNameWhenLongerThan255Characters() {
        String ok = "n".repeat(255);
        assertEquals(ok, new ProviderInfo(ok, 1, 2, true).iaName());
        DatException e = assertThrows(DatException.class, () -> new ProviderInfo(ok + "n", 1, 2, true));
        assertEquals(
                "DAT_INVALID_PARAMETER: IA name has 256 characters; at most 255 fit DAT_NAME_MAX_LENGTH",
                e.getMessage());
        assertThrows(DatException.class, () -> IaOpenParams.of(" ", AsyncEvdRequest.create(1)));
    }

    @Test
    void shouldAskForDat12ThreadSafeWhenOpenParamsUseDefaults() {
        IaOpenParams p = IaOpenParams.of("ia0", AsyncEvdRequest.existsElsewhere());
        assertEquals(1, p.versionMajor());
        assertEquals(2, p.versionMinor());
        assertEquals(true, p.threadSafe());
        assertSame(AsyncEvdRequest.ExistsElsewhere.INSTANCE, p.asyncEvd());
        assertThrows(DatException.class, () -> AsyncEvdRequest.create(-1));
        assertThrows(DatException.class, () -> AsyncEvdRequest.use(null));
    }

    @Test
    void shouldRejectProviderListWhenTotalIsBelowSize() {
        ProviderInfo i = new ProviderInfo("a", 1, 2, true);
        assertThrows(DatException.class, () -> new ProviderList(List.of(i, i), 1));
        assertFalse(new ProviderList(List.of(i), 2).isComplete());
    }
}
