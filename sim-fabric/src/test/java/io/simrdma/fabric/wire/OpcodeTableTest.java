package io.simrdma.fabric.wire;

import static io.simrdma.fabric.wire.HeaderType.AETH;
import static io.simrdma.fabric.wire.HeaderType.ATOMIC_ACK_ETH;
import static io.simrdma.fabric.wire.HeaderType.ATOMIC_ETH;
import static io.simrdma.fabric.wire.HeaderType.BTH;
import static io.simrdma.fabric.wire.HeaderType.DETH;
import static io.simrdma.fabric.wire.HeaderType.IETH;
import static io.simrdma.fabric.wire.HeaderType.IMM_DT;
import static io.simrdma.fabric.wire.HeaderType.RETH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The opcode table checked against the IBA specification (STYLE.md "Tables over scattered
 * switches ... A test checks each table against its spec source"). The expected rows are typed
 * here independently of {@link Opcode}, from IBA Vol. 1:
 * <ul>
 *   <li>9.2.1 table 41 "OpCode field": the transport bits (000 RC, 001 UC, 011 UD) and the operation bits,
 *       and the names the table gives;</li>
 *   <li>9.2 and the packet layouts of 9.3/9.4/9.5: which extension headers each opcode carries,
 *       in the order LRH, GRH, BTH, RDETH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
 *       IETH, payload;</li>
 *   <li>the header lengths: BTH 12 (9.2), DETH 8 (9.3.2), RETH 16 (9.3.3), AtomicETH 28
 *       (9.3.4), AETH 4 (9.3.5), AtomicAckETH 8 (9.3.6), ImmDt 4 (9.3.7), IETH 4 (9.3.8);</li>
 *   <li>properties: first/middle/last/only of a message, payload, and whether the responder
 *       consumes a receive WQE (SEND First/Only, RDMA WRITE Last/Only with Immediate: 9.4.1, 9.4.3).</li>
 * </ul>
 */
class OpcodeTableTest {

    /** Flags of a row: F first, M middle, L last, P payload, W needs a receive WQE, Q request, R response. */
    record Row(int value, String name, List<HeaderType> headers, String flags) {
        boolean has(char c) {
            return flags.indexOf(c) >= 0;
        }
    }

    private static final Map<Opcode, Row> IBA = new EnumMap<>(Opcode.class);

    private static void row(Opcode op, int value, String name, String flags, HeaderType... ext) {
        List<HeaderType> h = new ArrayList<>();
        h.add(BTH);
        h.addAll(List.of(ext));
        IBA.put(op, new Row(value, name, h, flags));
    }

    static {
        // IBA table 41, RC (transport bits 000). Flags: F M L P W Q R.
        row(Opcode.RC_SEND_FIRST, 0b000_00000, "RC SEND First", "F P W Q");
        row(Opcode.RC_SEND_MIDDLE, 0b000_00001, "RC SEND Middle", "M P Q");
        row(Opcode.RC_SEND_LAST, 0b000_00010, "RC SEND Last", "L P Q");
        row(Opcode.RC_SEND_LAST_WITH_IMMEDIATE, 0b000_00011, "RC SEND Last with Immediate", "L P Q", IMM_DT);
        row(Opcode.RC_SEND_ONLY, 0b000_00100, "RC SEND Only", "F L P W Q");
        row(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, 0b000_00101, "RC SEND Only with Immediate", "F L P W Q", IMM_DT);
        row(Opcode.RC_RDMA_WRITE_FIRST, 0b000_00110, "RC RDMA WRITE First", "F P Q", RETH);
        row(Opcode.RC_RDMA_WRITE_MIDDLE, 0b000_00111, "RC RDMA WRITE Middle", "M P Q");
        row(Opcode.RC_RDMA_WRITE_LAST, 0b000_01000, "RC RDMA WRITE Last", "L P Q");
        row(
                Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                0b000_01001,
                "RC RDMA WRITE Last with Immediate",
                "L P W Q",
                IMM_DT);
        row(Opcode.RC_RDMA_WRITE_ONLY, 0b000_01010, "RC RDMA WRITE Only", "F L P Q", RETH);
        row(
                Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
                0b000_01011,
                "RC RDMA WRITE Only with Immediate",
                "F L P W Q",
                RETH,
                IMM_DT);
        row(Opcode.RC_RDMA_READ_REQUEST, 0b000_01100, "RC RDMA READ Request", "F L Q", RETH);
        row(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 0b000_01101, "RC RDMA READ response First", "F P R", AETH);
        row(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 0b000_01110, "RC RDMA READ response Middle", "M P R");
        row(Opcode.RC_RDMA_READ_RESPONSE_LAST, 0b000_01111, "RC RDMA READ response Last", "L P R", AETH);
        row(Opcode.RC_RDMA_READ_RESPONSE_ONLY, 0b000_10000, "RC RDMA READ response Only", "F L P R", AETH);
        row(Opcode.RC_ACKNOWLEDGE, 0b000_10001, "RC Acknowledge", "F L R", AETH);
        row(Opcode.RC_ATOMIC_ACKNOWLEDGE, 0b000_10010, "RC ATOMIC Acknowledge", "F L R", AETH, ATOMIC_ACK_ETH);
        row(Opcode.RC_CMP_SWAP, 0b000_10011, "RC CmpSwap", "F L Q", ATOMIC_ETH);
        row(Opcode.RC_FETCH_ADD, 0b000_10100, "RC FetchAdd", "F L Q", ATOMIC_ETH);
        // 0b000_10101 is reserved.
        row(Opcode.RC_SEND_LAST_WITH_INVALIDATE, 0b000_10110, "RC SEND Last with Invalidate", "L P Q", IETH);
        row(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, 0b000_10111, "RC SEND Only with Invalidate", "F L P W Q", IETH);
        // UC (transport bits 001): SEND and RDMA WRITE only, no READ, atomics or acknowledges.
        row(Opcode.UC_SEND_FIRST, 0b001_00000, "UC SEND First", "F P W Q");
        row(Opcode.UC_SEND_MIDDLE, 0b001_00001, "UC SEND Middle", "M P Q");
        row(Opcode.UC_SEND_LAST, 0b001_00010, "UC SEND Last", "L P Q");
        row(Opcode.UC_SEND_LAST_WITH_IMMEDIATE, 0b001_00011, "UC SEND Last with Immediate", "L P Q", IMM_DT);
        row(Opcode.UC_SEND_ONLY, 0b001_00100, "UC SEND Only", "F L P W Q");
        row(Opcode.UC_SEND_ONLY_WITH_IMMEDIATE, 0b001_00101, "UC SEND Only with Immediate", "F L P W Q", IMM_DT);
        row(Opcode.UC_RDMA_WRITE_FIRST, 0b001_00110, "UC RDMA WRITE First", "F P Q", RETH);
        row(Opcode.UC_RDMA_WRITE_MIDDLE, 0b001_00111, "UC RDMA WRITE Middle", "M P Q");
        row(Opcode.UC_RDMA_WRITE_LAST, 0b001_01000, "UC RDMA WRITE Last", "L P Q");
        row(
                Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                0b001_01001,
                "UC RDMA WRITE Last with Immediate",
                "L P W Q",
                IMM_DT);
        row(Opcode.UC_RDMA_WRITE_ONLY, 0b001_01010, "UC RDMA WRITE Only", "F L P Q", RETH);
        row(
                Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
                0b001_01011,
                "UC RDMA WRITE Only with Immediate",
                "F L P W Q",
                RETH,
                IMM_DT);
        // UD (transport bits 011): SEND Only carries a DETH.
        row(Opcode.UD_SEND_ONLY, 0b011_00100, "UD SEND Only", "F L P W Q", DETH);
        row(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, 0b011_00101, "UD SEND Only with Immediate", "F L P W Q", DETH, IMM_DT);
    }

    /** IBA header lengths in bytes, typed from the spec sections named in the class comment. */
    private static final Map<HeaderType, Integer> LENGTH = Map.of(
            BTH,
            12,
            HeaderType.RDETH,
            4,
            DETH,
            8,
            RETH,
            16,
            ATOMIC_ETH,
            28,
            AETH,
            4,
            ATOMIC_ACK_ETH,
            8,
            IMM_DT,
            4,
            IETH,
            4);

    /** IBA wire order of the transport headers (9.2). */
    private static final List<HeaderType> WIRE_ORDER =
            List.of(BTH, HeaderType.RDETH, DETH, RETH, ATOMIC_ETH, AETH, ATOMIC_ACK_ETH, IMM_DT, IETH);

    @Test
    @DisplayName("IBA 9.2.1 table 41: every opcode the table lists is an Opcode and vice versa")
    void shouldCoverExactlyTheTypedRowsWhenComparedWithTable41() {
        assertEquals(EnumSet.allOf(Opcode.class), EnumSet.copyOf(IBA.keySet()));
    }

    @ParameterizedTest
    @EnumSource(Opcode.class)
    @DisplayName("IBA table 41: wire value, name, and fromValue round trip")
    void shouldHaveTable41ValueAndNameWhenLookedUp(Opcode op) {
        Row r = IBA.get(op);
        assertEquals(r.value(), op.value(), op + " wire value");
        assertEquals(r.name(), op.ibaName(), op + " IBA name");
        assertSame(op, Opcode.fromValue(r.value()));
        // Upper three bits select the transport: 000 RC, 001 UC, 011 UD.
        assertEquals(op.isUd() ? 0b011 : op.isUc() ? 0b001 : 0b000, r.value() >>> 5, op + " transport bits");
    }

    @ParameterizedTest
    @EnumSource(Opcode.class)
    @DisplayName("IBA 9.2-9.3: header set, offsets in wire order and total header length")
    void shouldCarryIbaHeadersAtIbaOffsetsWhenLaidOut(Opcode op) {
        Row r = IBA.get(op);
        assertEquals(EnumSet.copyOf(r.headers()), op.headers(), op + " header set");
        int offset = 0;
        for (HeaderType h : WIRE_ORDER) {
            if (r.headers().contains(h)) {
                assertEquals(offset, op.offset(h), op + " offset of " + h);
                assertEquals(true, op.has(h));
                offset += LENGTH.get(h);
            } else {
                assertEquals(-1, op.offset(h), op + " has no " + h);
                assertEquals(false, op.has(h));
            }
        }
        assertEquals(offset, op.headerLength(), op + " header length");
        // headers() iterates in wire order, BTH first.
        assertEquals(r.headers(), new ArrayList<>(op.headers()), op + " header order");
    }

    @ParameterizedTest
    @EnumSource(Opcode.class)
    @DisplayName("IBA 9.4: first/middle/last/only, payload, receive WQE, request/response")
    void shouldHaveIbaPropertiesWhenAskedTheTable(Opcode op) {
        Row r = IBA.get(op);
        assertEquals(r.has('F'), op.isFirst(), op + " first");
        assertEquals(r.has('M'), op.isMiddle(), op + " middle");
        assertEquals(r.has('L'), op.isLast(), op + " last");
        assertEquals(r.has('F') && r.has('L'), op.isOnly(), op + " only");
        assertEquals(r.has('P'), op.hasPayload(), op + " payload");
        assertEquals(r.has('W'), op.requiresReceiveWqe(), op + " consumes a receive WQE");
        assertEquals(r.has('Q'), op.isRequest(), op + " request");
        assertEquals(r.has('R'), op.isResponse(), op + " response");
        assertEquals(r.headers().contains(IMM_DT), op.hasImmediate(), op + " immediate");
        assertEquals(r.headers().contains(IETH), op.hasInvalidate(), op + " invalidate");
        String n = r.name();
        assertEquals(n.contains("SEND"), op.isSend(), op + " send");
        assertEquals(n.contains("WRITE"), op.isWrite(), op + " write");
        assertEquals(n.contains("READ"), op.isRead(), op + " read");
        assertEquals(
                n.contains("CmpSwap") || n.contains("FetchAdd") || n.contains("ATOMIC"), op.isAtomic(), op + " atomic");
        assertEquals(n.equals("RC Acknowledge"), op.isAck(), op + " plain acknowledge");
        assertEquals(
                n.startsWith("RC ") && (n.contains("Request") || n.contains("CmpSwap") || n.contains("FetchAdd")),
                op.isReadOrAtomicRequest(),
                op + " READ or atomic request");
        // Every message position is exactly one of first-only, middle, last, only.
        int positions = (op.isFirst() ? 1 : 0) + (op.isMiddle() ? 1 : 0) + (op.isLast() ? 1 : 0);
        assertEquals(op.isOnly() ? 2 : 1, positions, op + " position");
        // A message completes a receive WQE on its last packet, for SENDs and WRITE with immediate.
        assertEquals(
                op.isLast() && (op.isSend() || op.hasImmediate()), op.completesReceive(), op + " completes a receive");
    }

    @Test
    @DisplayName("IBA table 41: reserved and unknown values map to no opcode")
    void shouldReturnNullWhenValueIsReservedOrUnknown() {
        Set<Integer> known = new java.util.HashSet<>();
        for (Row r : IBA.values()) {
            known.add(r.value());
        }
        for (int v = -1; v <= 256; v++) {
            if (!known.contains(v)) {
                assertNull(Opcode.fromValue(v), "value 0x" + Integer.toHexString(v));
            }
        }
        assertNull(Opcode.fromValue(0x15), "0x15 is reserved in table 41");
        assertNull(Opcode.fromValue(0x2C), "0x2C is reserved in table 41 (UC)");
        assertNull(Opcode.fromValue(Integer.MIN_VALUE));
    }

    @Test
    @DisplayName("IBA 9.2-9.3: header lengths")
    void shouldHaveIbaLengthWhenHeaderTypeIsAsked() {
        for (HeaderType h : HeaderType.values()) {
            assertEquals(LENGTH.get(h), h.length(), h.toString());
        }
        assertEquals(WIRE_ORDER, List.of(HeaderType.values()), "enum order is the IBA wire order");
        // The longest combination fits the packet's header array.
        int longest = 0;
        for (Opcode op : Opcode.values()) {
            longest = Math.max(longest, op.headerLength());
        }
        assertEquals(40, longest, "BTH + AtomicETH is the longest simrdma header");
        assertEquals(true, longest <= Packet.MAX_HEADER_LENGTH);
    }
}
