package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

/** Every enum of the API against the tables of dat-constants.md: C name (without DAT_ prefix) and value, in order. */
class HeaderValuesTest {

    private static <E extends Enum<E>> void assertTable(Class<E> type, ToLongFunction<E> value, Object... table) {
        E[] constants = type.getEnumConstants();
        assertEquals(table.length / 2, constants.length, "number of " + type.getSimpleName() + " constants");
        for (int i = 0; i < constants.length; i++) {
            assertEquals(table[2 * i], constants[i].name(), type.getSimpleName() + " at position " + i);
            assertEquals(
                    ((Number) table[2 * i + 1]).longValue(),
                    value.applyAsLong(constants[i]),
                    type.getSimpleName() + "." + constants[i].name());
        }
    }

    @Test
    void shouldMatchDatEpStateWhenAll13StatesAreListed() {
        assertTable(
                EndpointState.class,
                EndpointState::value,
                "UNCONNECTED",
                0,
                "UNCONFIGURED_UNCONNECTED",
                1,
                "RESERVED",
                2,
                "UNCONFIGURED_RESERVED",
                3,
                "PASSIVE_CONNECTION_PENDING",
                4,
                "UNCONFIGURED_PASSIVE",
                5,
                "ACTIVE_CONNECTION_PENDING",
                6,
                "TENTATIVE_CONNECTION_PENDING",
                7,
                "UNCONFIGURED_TENTATIVE",
                8,
                "CONNECTED",
                9,
                "DISCONNECT_PENDING",
                10,
                "DISCONNECTED",
                11,
                "COMPLETION_PENDING",
                12);
        assertSame(EndpointState.DISCONNECTED, EndpointState.fromValue(11));
        assertEquals(
                DatReturnType.INVALID_PARAMETER,
                assertThrows(DatException.class, () -> EndpointState.fromValue(13))
                        .type());
    }

    @Test
    void shouldMatchDatSrqStateWhenListed() {
        assertTable(SrqState.class, SrqState::value, "OPERATIONAL", 0, "ERROR", 1);
    }

    @Test
    void shouldMatchDatEvdStateWhenListed() {
        assertTable(
                EvdState.class,
                EvdState::value,
                "ENABLED",
                0x01,
                "DISABLED",
                0x02,
                "WAITABLE",
                0x04,
                "UNWAITABLE",
                0x08,
                "CONFIG_NOTIFY",
                0x10,
                "CONFIG_SOLICITED",
                0x20,
                "CONFIG_THRESHOLD",
                0x30);
    }

    @Test
    void shouldMatchDatEventNumberWhenListed() {
        assertTable(
                EventNumber.class,
                EventNumber::value,
                "DTO_COMPLETION_EVENT",
                0x00001,
                "RMR_BIND_COMPLETION_EVENT",
                0x01001,
                "CONNECTION_REQUEST_EVENT",
                0x02001,
                "CONNECTION_EVENT_ESTABLISHED",
                0x04001,
                "CONNECTION_EVENT_PEER_REJECTED",
                0x04002,
                "CONNECTION_EVENT_NON_PEER_REJECTED",
                0x04003,
                "CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR",
                0x04004,
                "CONNECTION_EVENT_DISCONNECTED",
                0x04005,
                "CONNECTION_EVENT_BROKEN",
                0x04006,
                "CONNECTION_EVENT_TIMED_OUT",
                0x04007,
                "CONNECTION_EVENT_UNREACHABLE",
                0x04008,
                "ASYNC_ERROR_EVD_OVERFLOW",
                0x08001,
                "ASYNC_ERROR_IA_CATASTROPHIC",
                0x08002,
                "ASYNC_ERROR_EP_BROKEN",
                0x08003,
                "ASYNC_ERROR_TIMED_OUT",
                0x08004,
                "ASYNC_ERROR_PROVIDER_INTERNAL_ERROR",
                0x08005,
                "SOFTWARE_EVENT",
                0x10001);
        for (EventNumber n : EventNumber.values()) {
            assertSame(n, EventNumber.fromValue(n.value()), n.name());
        }
        assertThrows(DatException.class, () -> EventNumber.fromValue(0x04009));
    }

    @Test
    void shouldMapEventNumbersToStreamsWhenAsked() {
        assertSame(EvdFlag.DTO, EventNumber.DTO_COMPLETION_EVENT.stream());
        assertSame(EvdFlag.RMR_BIND, EventNumber.RMR_BIND_COMPLETION_EVENT.stream());
        assertSame(EvdFlag.CR, EventNumber.CONNECTION_REQUEST_EVENT.stream());
        assertSame(EvdFlag.CONNECTION, EventNumber.CONNECTION_EVENT_BROKEN.stream());
        assertSame(EvdFlag.ASYNC, EventNumber.ASYNC_ERROR_EP_BROKEN.stream());
        assertSame(EvdFlag.SOFTWARE, EventNumber.SOFTWARE_EVENT.stream());
    }

    @Test
    void shouldMatchDatDtoCompletionStatusWhenListed() {
        assertTable(
                DtoCompletionStatus.class,
                DtoCompletionStatus::value,
                "SUCCESS",
                0,
                "ERR_FLUSHED",
                1,
                "ERR_LOCAL_LENGTH",
                2,
                "ERR_LOCAL_EP",
                3,
                "ERR_LOCAL_PROTECTION",
                4,
                "ERR_BAD_RESPONSE",
                5,
                "ERR_REMOTE_ACCESS",
                6,
                "ERR_REMOTE_RESPONDER",
                7,
                "ERR_TRANSPORT",
                8,
                "ERR_RECEIVER_NOT_READY",
                9,
                "ERR_PARTIAL_PACKET",
                10,
                "RMR_OPERATION_FAILED",
                11);
    }

    @Test
    void shouldMatchDatHandleTypeWhenListed() {
        assertTable(
                HandleType.class,
                HandleType::value,
                "CR",
                0,
                "EP",
                1,
                "EVD",
                2,
                "IA",
                3,
                "LMR",
                4,
                "PSP",
                5,
                "PZ",
                6,
                "RMR",
                7,
                "RSP",
                8,
                "CNO",
                9,
                "SRQ",
                10);
    }

    @Test
    void shouldMatchAsyncErrorReasonsWhenListedPerObjectType() {
        assertTable(
                AsyncErrorReason.class,
                AsyncErrorReason::value,
                "IA_CATASTROPHIC_ERROR",
                0,
                "IA_OTHER_ERROR",
                1,
                "EP_TRANSFER_TO_ERROR",
                0,
                "EP_OTHER_ERROR",
                1,
                "SRQ_SOFT_HIGH_WATERMARK_EVENT",
                2,
                "EVD_OVERFLOW_ERROR",
                0,
                "EVD_OTHER_ERROR",
                1,
                "SRQ_TRANSFER_TO_ERROR",
                0,
                "SRQ_OTHER_ERROR",
                1,
                "SRQ_LOW_WATERMARK_EVENT",
                2,
                "LMR_OTHER_ERROR",
                0,
                "RMR_OTHER_ERROR",
                0,
                "PZ_OTHER_ERROR",
                0);
        assertSame(HandleType.EP, AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT.objectType());
        assertSame(HandleType.SRQ, AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT.objectType());
        assertSame(HandleType.PZ, AsyncErrorReason.PZ_OTHER_ERROR.objectType());
    }

    @Test
    void shouldMatchDatCompletionFlagsWhenListed() {
        assertTable(
                CompletionFlag.class,
                CompletionFlag::bit,
                "SUPPRESS",
                0x01,
                "SOLICITED_WAIT",
                0x02,
                "UNSIGNALLED",
                0x04,
                "BARRIER_FENCE",
                0x08,
                "EVD_THRESHOLD",
                0x10);
        assertEquals(0x00, BitFlag.toBits(CompletionFlag.defaults()));
    }

    @Test
    void shouldMatchDatQosWhenListed() {
        assertTable(
                Qos.class,
                Qos::value,
                "BEST_EFFORT",
                0x00,
                "HIGH_THROUGHPUT",
                0x01,
                "LOW_LATENCY",
                0x02,
                "ECONOMY",
                0x04,
                "PREMIUM",
                0x08);
    }

    @Test
    void shouldMatchConnectClosePspFlagsWhenListed() {
        assertTable(ConnectFlag.class, ConnectFlag::bit, "MULTIPATH", 0x01);
        assertTable(CloseFlag.class, CloseFlag::value, "ABRUPT", 0x00, "GRACEFUL", 0x01);
        assertSame(CloseFlag.ABRUPT, CloseFlag.DEFAULT);
        assertTable(PspFlag.class, PspFlag::value, "CONSUMER", 0x00, "PROVIDER", 0x01);
    }

    @Test
    void shouldMatchDatEvdFlagsWhenListed() {
        assertTable(
                EvdFlag.class,
                EvdFlag::bit,
                "SOFTWARE",
                0x001,
                "CR",
                0x010,
                "DTO",
                0x020,
                "CONNECTION",
                0x040,
                "RMR_BIND",
                0x080,
                "ASYNC",
                0x100);
        assertEquals(0x1F0, BitFlag.toBits(EvdFlag.defaults()));
        assertEquals(0x1F0, EvdFlag.DEFAULT_BITS);
    }

    @Test
    void shouldMatchDatMemPrivFlagsWhenListed() {
        assertTable(
                MemoryPrivilege.class,
                MemoryPrivilege::bit,
                "LOCAL_READ",
                0x01,
                "REMOTE_READ",
                0x02,
                "LOCAL_WRITE",
                0x10,
                "REMOTE_WRITE",
                0x20,
                "RO_DISABLE",
                0x100);
        assertEquals(0x33, BitFlag.toBits(MemoryPrivilege.all()));
        assertEquals(0x03, BitFlag.toBits(MemoryPrivilege.read()));
        assertEquals(0x30, BitFlag.toBits(MemoryPrivilege.write()));
    }

    @Test
    void shouldMatchMemoryTypesOwnershipCreatorPzSupportServiceTypeWhenListed() {
        assertTable(
                MemoryType.class,
                MemoryType::value,
                "VIRTUAL",
                0x00,
                "LMR",
                0x01,
                "SHARED_VIRTUAL",
                0x02,
                "SO_VIRTUAL",
                0x03);
        assertTable(
                IovOwnership.class, IovOwnership::value, "CONSUMER", 0x0, "PROVIDER_NOMOD", 0x1, "PROVIDER_MOD", 0x2);
        assertTable(PspEpCreator.class, PspEpCreator::value, "NEVER", 0, "IF_ASKED", 1, "ALWAYS", 2);
        assertTable(PzSupport.class, PzSupport::value, "UNIQUE", 0, "SAME", 1, "SHAREABLE", 2);
        assertTable(ServiceType.class, ServiceType::value, "RC", 0);
    }

    @Test
    void shouldMatchDatEpParamMaskWhenListed() {
        assertTable(
                EpParamField.class,
                EpParamField::bit,
                "IA_HANDLE",
                0x00000001,
                "EP_STATE",
                0x00000002,
                "LOCAL_IA_ADDRESS_PTR",
                0x00000004,
                "LOCAL_PORT_QUAL",
                0x00000008,
                "REMOTE_IA_ADDRESS_PTR",
                0x00000010,
                "REMOTE_PORT_QUAL",
                0x00000020,
                "PZ_HANDLE",
                0x00000040,
                "RECV_EVD_HANDLE",
                0x00000080,
                "REQUEST_EVD_HANDLE",
                0x00000100,
                "CONNECT_EVD_HANDLE",
                0x00000200,
                "SRQ_HANDLE",
                0x00000400,
                "EP_ATTR_SERVICE_TYPE",
                0x00001000,
                "EP_ATTR_MAX_MESSAGE_SIZE",
                0x00002000,
                "EP_ATTR_MAX_RDMA_SIZE",
                0x00004000,
                "EP_ATTR_QOS",
                0x00008000,
                "EP_ATTR_RECV_COMPLETION_FLAGS",
                0x00010000,
                "EP_ATTR_REQUEST_COMPLETION_FLAGS",
                0x00020000,
                "EP_ATTR_MAX_RECV_DTOS",
                0x00040000,
                "EP_ATTR_MAX_REQUEST_DTOS",
                0x00080000,
                "EP_ATTR_MAX_RECV_IOV",
                0x00100000,
                "EP_ATTR_MAX_REQUEST_IOV",
                0x00200000,
                "EP_ATTR_MAX_RDMA_READ_IN",
                0x00400000,
                "EP_ATTR_MAX_RDMA_READ_OUT",
                0x00800000,
                "EP_ATTR_SRQ_SOFT_HW",
                0x01000000,
                "EP_ATTR_MAX_RDMA_READ_IOV",
                0x02000000,
                "EP_ATTR_MAX_RDMA_WRITE_IOV",
                0x04000000,
                "EP_ATTR_NUM_TRANSPORT_ATTR",
                0x08000000,
                "EP_ATTR_TRANSPORT_SPECIFIC_ATTR",
                0x10000000,
                "EP_ATTR_NUM_PROVIDER_ATTR",
                0x20000000,
                "EP_ATTR_PROVIDER_SPECIFIC_ATTR",
                0x40000000);
        assertEquals(0x7FFFF7FFL, BitFlag.toBits(EnumSet.allOf(EpParamField.class)));
        assertEquals(0x7FFFF7FFL, EpParamField.ALL_BITS);
        EnumSet<EpParamField> attr =
                EnumSet.range(EpParamField.EP_ATTR_SERVICE_TYPE, EpParamField.EP_ATTR_PROVIDER_SPECIFIC_ATTR);
        assertEquals(0x7FFFF000L, BitFlag.toBits(attr));
        assertEquals(0x7FFFF000L, EpParamField.EP_ATTR_ALL_BITS);
    }

    @Test
    void shouldMarkOnlyDatEpModifyFieldsModifiableWhenAsked() {
        List<EpParamField> never = List.of(
                EpParamField.IA_HANDLE,
                EpParamField.EP_STATE,
                EpParamField.LOCAL_IA_ADDRESS_PTR,
                EpParamField.LOCAL_PORT_QUAL,
                EpParamField.REMOTE_IA_ADDRESS_PTR,
                EpParamField.REMOTE_PORT_QUAL,
                EpParamField.SRQ_HANDLE);
        for (EpParamField f : EpParamField.values()) {
            assertEquals(!never.contains(f), f.modifiable(), f.name());
        }
        assertTrue(EpParamField.PZ_HANDLE.modifiable());
        assertFalse(EpParamField.EP_STATE.modifiable());
    }
}
