package io.simrdma.fabric.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The AETH syndrome (IBA 9.3.5 and 9.7.5.2.1, table 43/44) and the RNR timer (9.7.5.2.8, table 45). */
class AethTest {

    /**
     * IBA table 45 "Minimum RNR NAK timer field values", typed in milliseconds as the table
     * writes them, indexed by the 5-bit code.
     */
    private static final String[] TABLE_45_MS = {
        "655.36", "0.01", "0.02", "0.03", "0.04", "0.06", "0.08", "0.12",
        "0.16", "0.24", "0.32", "0.48", "0.64", "0.96", "1.28", "1.92",
        "2.56", "3.84", "5.12", "7.68", "10.24", "15.36", "20.48", "30.72",
        "40.96", "61.44", "81.92", "122.88", "163.84", "245.76", "327.68", "491.52",
    };

    @Test
    @DisplayName("IBA 9.7.5.2.8 table 45: all 32 RNR timer codes")
    void shouldMatchTable45WhenRnrTimerCodeIsDecoded() {
        assertEquals(32, TABLE_45_MS.length);
        for (int code = 0; code < 32; code++) {
            long nanos = new BigDecimal(TABLE_45_MS[code]).movePointRight(6).longValueExact();
            assertEquals(nanos, Aeth.rnrTimerNanos(code), "RNR timer code " + code);
        }
        assertEquals(Aeth.rnrTimerNanos(12), Aeth.rnrTimerNanos(12 | 0x20), "only the low 5 bits are the code");
    }

    @Test
    @DisplayName("IBA 9.7.5.2.1: ACK syndrome 0b0_00_ccccc carries the credit count")
    void shouldEncodeAckWithCreditsWhenAcknowledging() {
        for (int credits = 0; credits < 32; credits++) {
            int s = Aeth.ack(credits);
            assertEquals(credits, s, "ACK syndrome with " + credits + " credits");
            assertEquals(Aeth.Kind.ACK, Aeth.kind(s));
            assertEquals(credits, Aeth.value(s));
        }
        assertEquals(0x1F, Aeth.CREDITS_INVALID, "11111: end-to-end credits not used");
        assertEquals(0x1F, Aeth.ACK_UNLIMITED);
        assertEquals(0x1F, Aeth.ack(Aeth.CREDITS_INVALID));
        assertEquals("ACK", Aeth.describe(Aeth.ack(Aeth.CREDITS_INVALID)));
    }

    @Test
    @DisplayName("IBA 9.7.5.2.1: RNR NAK syndrome 0b0_01_ttttt carries the RNR timer code")
    void shouldEncodeRnrNakWithTimerWhenReceiverNotReady() {
        for (int code = 0; code < 32; code++) {
            int s = Aeth.rnrNak(code);
            assertEquals(0x20 | code, s);
            assertEquals(Aeth.Kind.RNR_NAK, Aeth.kind(s));
            assertEquals(code, Aeth.value(s));
        }
        assertTrue(Aeth.describe(Aeth.rnrNak(12)).startsWith("RNR NAK"), Aeth.describe(Aeth.rnrNak(12)));
        assertTrue(Aeth.describe(Aeth.rnrNak(12)).contains("640 us"), Aeth.describe(Aeth.rnrNak(12)));
    }

    @ParameterizedTest
    @EnumSource(Aeth.NakCode.class)
    @DisplayName("IBA 9.7.5.2.1 table 44: NAK syndrome 0b0_11_nnnnn for each NAK code")
    void shouldEncodeAndDecodeEachNakCodeWhenNaking(Aeth.NakCode code) {
        int expected = switch (code) { // exhaustive: a new NAK code must be added here
            case PSN_SEQUENCE_ERROR -> 0;
            case INVALID_REQUEST -> 1;
            case REMOTE_ACCESS_ERROR -> 2;
            case REMOTE_OPERATIONAL_ERROR -> 3;
            case INVALID_RD_REQUEST -> 4;
        };
        assertEquals(expected, code.code());
        int s = Aeth.nak(code);
        assertEquals(0x60 | expected, s);
        assertEquals(Aeth.Kind.NAK, Aeth.kind(s));
        assertEquals(expected, Aeth.value(s));
        assertEquals(code, Aeth.NakCode.fromCode(Aeth.value(s)));
        assertEquals("NAK " + code.name(), Aeth.describe(s));
    }

    @Test
    @DisplayName("IBA 9.7.5.2.1: reserved NAK codes and the reserved syndrome type 10")
    void shouldReportReservedWhenCodeOrTypeIsReserved() {
        for (int c = 5; c < 32; c++) {
            assertNull(Aeth.NakCode.fromCode(c), "NAK code " + c + " is reserved");
            assertTrue(Aeth.describe(0x60 | c).contains("reserved"), Aeth.describe(0x60 | c));
        }
        assertNull(Aeth.NakCode.fromCode(-1));
        for (int v = 0; v < 32; v++) {
            assertEquals(Aeth.Kind.RESERVED, Aeth.kind(0x40 | v), "syndrome type 10");
        }
        assertTrue(Aeth.describe(0x45).startsWith("reserved syndrome"), Aeth.describe(0x45));
    }
}
