package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class EpModifyTest {

    @Test
    void shouldSetMaskBitWhenSetterIsCalled() {
        ProtectionZone pz = Fakes.handle(ProtectionZone.class, HandleType.PZ);
        EpModify m = EpModify.builder().pz(pz).maxRecvDtos(16).connectEvd(null).build();
        assertEquals(
                EnumSet.of(EpParamField.PZ_HANDLE, EpParamField.CONNECT_EVD_HANDLE, EpParamField.EP_ATTR_MAX_RECV_DTOS),
                m.fields());
        assertEquals(0x40L | 0x200L | 0x40000L, m.mask());
        assertSame(pz, m.pz());
        assertNull(m.connectEvd());
        assertEquals(16, m.attributeValues().maxRecvDtos());
        assertTrue(m.contains(EpParamField.CONNECT_EVD_HANDLE));
    }

    @Test
    void shouldSetCountAndArrayBitsWhenNamedAttributesAreSet() {
        EpModify m = EpModify.builder()
                .providerSpecific(List.of(new NamedAttribute("k", "v")))
                .build();
        assertEquals(0x20000000L | 0x40000000L, m.mask());
    }

    @Test
    void shouldChangeOnlyMaskedAttributesWhenApplied() {
        EpAttributes current = EpAttributes.builder()
                .maxMessageSize(4096)
                .maxRecvDtos(8)
                .maxRequestDtos(8)
                .build();
        EpModify m = EpModify.builder().maxRecvDtos(32).qos(Qos.LOW_LATENCY).build();
        EpAttributes after = m.applyTo(current);
        assertEquals(32, after.maxRecvDtos());
        assertEquals(8, after.maxRequestDtos());
        assertEquals(4096, after.maxMessageSize());
        assertSame(Qos.LOW_LATENCY, after.qos());
    }

    @Test
    void shouldTakeMaskedFieldsWhenBuiltFromParams() {
        InterfaceAdapter ia = Fakes.ia();
        EventDispatcher evd = Fakes.evd();
        EpParams params = new EpParams(
                ia,
                EndpointState.UNCONNECTED,
                Optional.of(InetSocketAddress.createUnresolved("a", 1)),
                OptionalLong.empty(),
                Optional.empty(),
                OptionalLong.empty(),
                Optional.empty(),
                Optional.of(evd),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                EpAttributes.builder().maxRdmaReadIn(4).build());
        EpModify m = EpModify.from(
                params,
                EnumSet.of(
                        EpParamField.RECV_EVD_HANDLE,
                        EpParamField.EP_ATTR_MAX_RDMA_READ_IN,
                        EpParamField.EP_ATTR_NUM_TRANSPORT_ATTR));
        assertSame(evd, m.recvEvd());
        assertEquals(4, m.attributeValues().maxRdmaReadIn());
        assertEquals(
                EnumSet.of(
                        EpParamField.RECV_EVD_HANDLE,
                        EpParamField.EP_ATTR_MAX_RDMA_READ_IN,
                        EpParamField.EP_ATTR_NUM_TRANSPORT_ATTR,
                        EpParamField.EP_ATTR_TRANSPORT_SPECIFIC_ATTR),
                m.fields());
    }

    @Test
    void shouldRejectMaskWhenFieldCanNeverBeModified() {
        EpParams params = new EpParams(
                Fakes.ia(),
                EndpointState.UNCONNECTED,
                Optional.empty(),
                OptionalLong.empty(),
                Optional.empty(),
                OptionalLong.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                EpAttributes.builder().build());
        for (EpParamField f : EnumSet.of(
                EpParamField.IA_HANDLE,
                EpParamField.EP_STATE,
                EpParamField.LOCAL_PORT_QUAL,
                EpParamField.REMOTE_IA_ADDRESS_PTR,
                EpParamField.SRQ_HANDLE)) {
            DatException e = assertThrows(DatException.class, () -> EpModify.from(params, EnumSet.of(f)));
            assertEquals("DAT_INVALID_PARAMETER: dat_ep_modify cannot change " + f, e.getMessage());
        }
    }

    @Test
    void shouldRejectValueWhenCountIsNegative() {
        EpModify.Builder b = EpModify.builder().maxRecvIov(-1);
        DatException e = assertThrows(DatException.class, b::build);
        assertEquals("DAT_INVALID_PARAMETER: maxRecvIov -1 is negative", e.getMessage());
    }
}
