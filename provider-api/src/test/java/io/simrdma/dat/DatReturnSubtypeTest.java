package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DatReturnSubtypeTest {

    /** dat-constants.md, DAT_RETURN_SUBTYPE: name, value, the major type it qualifies ("-": any). */
    private static final String TABLE = """
            DAT_NO_SUBTYPE                           0x0000  -
            DAT_SUB_INTERRUPTED                      0x0001  DAT_ABORT
            DAT_RESOURCE_MEMORY                      0x0002  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_DEVICE                      0x0003  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_TEP                         0x0004  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_TEVD                        0x0005  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_PROTECTION_DOMAIN           0x0006  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_MEMORY_REGION               0x0007  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_ERROR_HANDLER               0x0008  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_CREDITS                     0x0009  DAT_INSUFFICIENT_RESOURCES
            DAT_RESOURCE_SRQ                         0x000A  DAT_INSUFFICIENT_RESOURCES
            DAT_INVALID_HANDLE_IA                    0x000B  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_EP                    0x000C  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_LMR                   0x000D  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_RMR                   0x000E  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_PZ                    0x000F  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_PSP                   0x0010  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_RSP                   0x0011  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_CR                    0x0012  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_CNO                   0x0013  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_EVD_CR                0x0014  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_EVD_REQUEST           0x0015  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_EVD_RECV              0x0016  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_EVD_CONN              0x0017  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_EVD_ASYNC             0x0018  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE_SRQ                   0x0019  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE1                      0x001A  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE2                      0x001B  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE3                      0x001C  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE4                      0x001D  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE5                      0x001E  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE6                      0x001F  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE7                      0x0020  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE8                      0x0021  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE9                      0x0022  DAT_INVALID_HANDLE
            DAT_INVALID_HANDLE10                     0x0023  DAT_INVALID_HANDLE
            DAT_INVALID_ARG1                         0x0024  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG2                         0x0025  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG3                         0x0026  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG4                         0x0027  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG5                         0x0028  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG6                         0x0029  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG7                         0x002A  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG8                         0x002B  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG9                         0x002C  DAT_INVALID_PARAMETER
            DAT_INVALID_ARG10                        0x002D  DAT_INVALID_PARAMETER
            DAT_INVALID_STATE_EP_UNCONNECTED         0x002E  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_ACTCONNPENDING      0x002F  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_PASSCONNPENDING     0x0030  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_TENTCONNPENDING     0x0031  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_CONNECTED           0x0032  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_DISCONNECTED        0x0033  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_RESERVED            0x0034  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_COMPLPENDING        0x0035  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_DISCPENDING         0x0036  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_PROVIDERCONTROL     0x0037  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_NOTREADY            0x0038  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_RECV_WATERMARK      0x0039  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_PZ                  0x003A  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_EVD_REQUEST         0x003B  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_EVD_RECV            0x003C  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_EVD_CONNECT         0x003D  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_UNCONFIGURED        0x003E  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_UNCONFRESERVED      0x003F  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_UNCONFPASSIVE       0x0040  DAT_INVALID_STATE
            DAT_INVALID_STATE_EP_UNCONFTENTATIVE     0x0041  DAT_INVALID_STATE
            DAT_INVALID_STATE_CNO_IN_USE             0x0042  DAT_INVALID_STATE
            DAT_INVALID_STATE_CNO_DEAD               0x0043  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_OPEN               0x0044  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_ENABLED            0x0045  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_DISABLED           0x0046  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_WAITABLE           0x0047  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_UNWAITABLE         0x0048  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_IN_USE             0x0049  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_CONFIG_NOTIFY      0x004A  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_CONFIG_SOLICITED   0x004B  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD   0x004C  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_WAITER             0x004D  DAT_INVALID_STATE
            DAT_INVALID_STATE_EVD_ASYNC              0x004E  DAT_INVALID_STATE
            DAT_INVALID_STATE_IA_IN_USE              0x004F  DAT_INVALID_STATE
            DAT_INVALID_STATE_LMR_IN_USE             0x0050  DAT_INVALID_STATE
            DAT_INVALID_STATE_LMR_FREE               0x0051  DAT_INVALID_STATE
            DAT_INVALID_STATE_PZ_IN_USE              0x0052  DAT_INVALID_STATE
            DAT_INVALID_STATE_PZ_FREE                0x0053  DAT_INVALID_STATE
            DAT_INVALID_STATE_SRQ_OPERATIONAL        0x0054  DAT_INVALID_STATE
            DAT_INVALID_STATE_SRQ_ERROR              0x0055  DAT_INVALID_STATE
            DAT_INVALID_STATE_SRQ_IN_USE             0x0056  DAT_INVALID_STATE
            DAT_PRIVILEGES_READ                      0x0057  DAT_PRIVILEGES_VIOLATION
            DAT_PRIVILEGES_WRITE                     0x0058  DAT_PRIVILEGES_VIOLATION
            DAT_PRIVILEGES_RDMA_READ                 0x0059  DAT_PRIVILEGES_VIOLATION
            DAT_PRIVILEGES_RDMA_WRITE                0x005A  DAT_PRIVILEGES_VIOLATION
            DAT_PROTECTION_READ                      0x005B  DAT_PROTECTION_VIOLATION
            DAT_PROTECTION_WRITE                     0x005C  DAT_PROTECTION_VIOLATION
            DAT_PROTECTION_RDMA_READ                 0x005D  DAT_PROTECTION_VIOLATION
            DAT_PROTECTION_RDMA_WRITE                0x005E  DAT_PROTECTION_VIOLATION
            DAT_INVALID_ADDRESS_UNSUPPORTED          0x005F  DAT_INVALID_ADDRESS
            DAT_INVALID_ADDRESS_UNREACHABLE          0x0060  DAT_INVALID_ADDRESS
            DAT_INVALID_ADDRESS_MALFORMED            0x0061  DAT_INVALID_ADDRESS
            DAT_NAME_NOT_REGISTERED                  0x0062  DAT_PROVIDER_NOT_FOUND
            DAT_MAJOR_NOT_FOUND                      0x0063  DAT_PROVIDER_NOT_FOUND
            DAT_MINOR_NOT_FOUND                      0x0064  DAT_PROVIDER_NOT_FOUND
            DAT_THREAD_SAFETY_NOT_FOUND              0x0065  DAT_PROVIDER_NOT_FOUND
            DAT_INVALID_RO_COOKIE                    0x0066  DAT_INVALID_PARAMETER
            """;

    @Test
    void shouldMatchHeaderTableWhenEverySubtypeIsListed() {
        String[] lines = TABLE.strip().split("\n");
        assertEquals(lines.length, DatReturnSubtype.values().length, "number of subtypes");
        for (int i = 0; i < lines.length; i++) {
            String[] f = lines[i].trim().split("\\s+");
            DatReturnSubtype s = DatReturnSubtype.values()[i];
            assertEquals(f[0], s.cName(), "name at position " + i);
            assertEquals(Integer.decode(f[1]), s.value(), "value of " + f[0]);
            if (f[2].equals("-")) {
                assertNull(s.qualifies(), f[0] + " qualifies any type");
            } else {
                assertEquals(f[2], s.qualifies().cName(), "type " + f[0] + " qualifies");
            }
        }
    }

    @Test
    void shouldGiveEmptyMinorMessageWhenThereIsNoSubtype() {
        assertEquals("", DatReturnSubtype.NO_SUBTYPE.message());
        assertEquals("DAT_INVALID_STATE_EP_UNCONNECTED", DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED.message());
    }

    @Test
    void shouldFindSubtypeWhenCodeHasClassAndTypeBits() {
        assertSame(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, DatReturnSubtype.fromCode(0x8007002E));
        assertSame(DatReturnSubtype.INVALID_RO_COOKIE, DatReturnSubtype.fromCode(0x80060066));
    }

    @Test
    void shouldRejectCodeWhenSubtypeBitsAreUndefined() {
        DatException e = assertThrows(DatException.class, () -> DatReturnSubtype.fromCode(0x80060067));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals("DAT_INVALID_PARAMETER: undefined DAT_RETURN subtype bits 0x0067", e.getMessage());
    }
}
