package io.simrdma.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The text form of {@link FaultScript} and its builder: the same fault either way, and clear errors. */
class FaultScriptTest {

    @Test
    @DisplayName("'drop 3rd READ_RESPONSE' is the 3rd READ response on every link, dropped")
    void shouldParseNthDropWhenOrdinalAndKindAreGiven() {
        FaultScript s = FaultScript.parse("drop 3rd READ_RESPONSE");
        assertEquals(FaultScript.Action.DROP, s.action());
        assertEquals(PacketKind.READ_RESPONSE, s.kind());
        assertEquals(3, s.nth());
        assertEquals(1.0, s.probability());
        assertEquals(null, s.deviceX(), "every link");
        assertFalse(s.hasWindow());
        assertEquals("drop 3rd READ_RESPONSE", s.toString(), "the script as written");
        assertEquals(
                PacketKind.READ_RESPONSE,
                FaultScript.parse("drop 1st read_responses").kind(),
                "any case, plural");
    }

    @Test
    @DisplayName("'partition a-b 2ms..40ms' drops every packet between a and b, both ways, from 2 to 40 ms")
    void shouldParsePartitionWhenLinkAndWindowAreGiven() {
        FaultScript s = FaultScript.parse("partition a-b 2ms..40ms");
        assertEquals(FaultScript.Action.DROP, s.action());
        assertEquals(PacketKind.ANY, s.kind());
        assertEquals("a", s.deviceX());
        assertEquals("b", s.deviceY());
        assertFalse(s.directed());
        assertEquals(2_000_000, s.windowStartNanos());
        assertEquals(40_000_000, s.windowEndNanos());
        FaultScript built = FaultScript.partition("a", "b").window(2, 40, TimeUnit.MILLISECONDS);
        assertEquals(built.windowStartNanos(), s.windowStartNanos());
        assertEquals(built.windowEndNanos(), s.windowEndNanos());
    }

    @Test
    @DisplayName("'loss 5% both' and 'delay 50us' and 'drop acks b->a'")
    void shouldParseLossDelayAndDirectionWhenWritten() {
        FaultScript loss = FaultScript.parse("loss 5% both");
        assertEquals(FaultScript.Action.DROP, loss.action());
        assertEquals(0.05, loss.probability(), 1e-12);
        assertEquals(PacketKind.ANY, loss.kind());
        FaultScript delay = FaultScript.parse("delay 50us");
        assertEquals(FaultScript.Action.DELAY, delay.action());
        assertEquals(50_000, delay.delayNanos());
        FaultScript acks = FaultScript.parse("drop acks b->a");
        assertEquals(PacketKind.ACK, acks.kind());
        assertTrue(acks.directed());
        assertEquals("b", acks.deviceX());
        assertEquals("a", acks.deviceY());
        FaultScript dup = FaultScript.parse("duplicate 1% sends a-b 1.5ms..2s");
        assertEquals(FaultScript.Action.DUPLICATE, dup.action());
        assertEquals(PacketKind.SEND, dup.kind());
        assertEquals(1_500_000, dup.windowStartNanos());
        assertEquals(2_000_000_000L, dup.windowEndNanos());
    }

    @Test
    @DisplayName("a script that cannot be read names the word and what was expected")
    void shouldNameTheWordWhenScriptIsWrong() {
        assertEquals(
                "fault script 'drop 3rd READ_REPONSE': cannot read 'READ_REPONSE'; expected a packet kind ([ANY,"
                        + " REQUEST, RESPONSE, ACK, NAK, READ_REQUEST, READ_RESPONSE, SEND, RDMA_WRITE, ATOMIC, RETRANSMISSION]),"
                        + " both, a link a-b, a direction a->b, a window 2ms..40ms or a percentage 5%",
                assertThrows(IllegalArgumentException.class, () -> FaultScript.parse("drop 3rd READ_REPONSE"))
                        .getMessage());
        assertEquals(
                "fault script 'lose 5%': cannot read 'lose'; expected drop, loss, delay, duplicate, corrupt or partition",
                assertThrows(IllegalArgumentException.class, () -> FaultScript.parse("lose 5%"))
                        .getMessage());
        assertEquals(
                "fault script 'delay 50': cannot read '50'; expected a duration with a unit: ns, us, ms or s (such as 50us)",
                assertThrows(IllegalArgumentException.class, () -> FaultScript.parse("delay 50"))
                        .getMessage());
        assertEquals(
                "fault script 'partition a-b': expected a window such as 2ms..40ms at the end",
                assertThrows(IllegalArgumentException.class, () -> FaultScript.parse("partition a-b"))
                        .getMessage());
        assertEquals(
                "fault script 'loss 150%': cannot read '150%'; expected a percentage above 0% and at most 100%",
                assertThrows(IllegalArgumentException.class, () -> FaultScript.parse("loss 150%"))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> FaultScript.parse("drop any 40ms..2ms"));
        assertThrows(IllegalArgumentException.class, () -> FaultScript.parse("  "));
        assertThrows(
                IllegalArgumentException.class,
                () -> FaultScript.drop(PacketKind.ANY).nth(0));
    }

    @Test
    @DisplayName("several scripts, one a line, with comments")
    void shouldParseEveryLineWhenTextHasSeveral() {
        List<FaultScript> all = FaultScript.parseLines("# flaky network\nloss 1%\n\ndelay 10us requests\n");
        assertEquals(2, all.size());
        assertEquals(PacketKind.REQUEST, all.get(1).kind());
    }

    @Test
    @DisplayName("a builder script prints as its text form")
    void shouldPrintBuilderScriptAsText() {
        assertEquals(
                "drop 3rd READ_RESPONSE a->b",
                FaultScript.drop(PacketKind.READ_RESPONSE).nth(3).from("a", "b").toString());
        assertEquals("drop 22nd ACK", FaultScript.drop(PacketKind.ACK).nth(22).toString());
    }
}
