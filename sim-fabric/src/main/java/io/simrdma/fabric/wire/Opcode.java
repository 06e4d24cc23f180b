package io.simrdma.fabric.wire;

import java.util.EnumSet;
import java.util.Set;

/**
 * The IBA opcode table (IBA 9.2.1, table 41 "OpCode field"): wire value, the headers each opcode
 * carries and its properties. Everything downstream asks this table (which headers, where they
 * sit, first/middle/last, payload, needs a receive WQE) rather than switching on opcodes.
 *
 * <p>The upper three bits of the wire value select the transport (000 = RC, 001 = UC, 011 = UD).
 * UD SEND Only also carries the connection manager's MADs on QP1, as the IB CM does.
 *
 * <p>Thread safety: immutable.
 */
public enum Opcode {
    RC_SEND_FIRST(0x00, "RC SEND First", K.SEND | K.FIRST | K.PAYLOAD | K.REQUEST | K.RWR),
    RC_SEND_MIDDLE(0x01, "RC SEND Middle", K.SEND | K.MIDDLE | K.PAYLOAD | K.REQUEST),
    RC_SEND_LAST(0x02, "RC SEND Last", K.SEND | K.LAST | K.PAYLOAD | K.REQUEST | K.COMP),
    RC_SEND_LAST_WITH_IMMEDIATE(
            0x03,
            "RC SEND Last with Immediate",
            K.SEND | K.LAST | K.PAYLOAD | K.REQUEST | K.COMP | K.IMM,
            HeaderType.IMM_DT),
    RC_SEND_ONLY(0x04, "RC SEND Only", K.SEND | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.RWR | K.COMP),
    RC_SEND_ONLY_WITH_IMMEDIATE(
            0x05,
            "RC SEND Only with Immediate",
            K.SEND | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.RWR | K.COMP | K.IMM,
            HeaderType.IMM_DT),
    RC_RDMA_WRITE_FIRST(0x06, "RC RDMA WRITE First", K.WRITE | K.FIRST | K.PAYLOAD | K.REQUEST, HeaderType.RETH),
    RC_RDMA_WRITE_MIDDLE(0x07, "RC RDMA WRITE Middle", K.WRITE | K.MIDDLE | K.PAYLOAD | K.REQUEST),
    RC_RDMA_WRITE_LAST(0x08, "RC RDMA WRITE Last", K.WRITE | K.LAST | K.PAYLOAD | K.REQUEST),
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(
            0x09,
            "RC RDMA WRITE Last with Immediate",
            K.WRITE | K.LAST | K.PAYLOAD | K.REQUEST | K.IMM | K.RWR | K.COMP,
            HeaderType.IMM_DT),
    RC_RDMA_WRITE_ONLY(0x0A, "RC RDMA WRITE Only", K.WRITE | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST, HeaderType.RETH),
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(
            0x0B,
            "RC RDMA WRITE Only with Immediate",
            K.WRITE | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.IMM | K.RWR | K.COMP,
            HeaderType.RETH,
            HeaderType.IMM_DT),
    RC_RDMA_READ_REQUEST(0x0C, "RC RDMA READ Request", K.READ | K.FIRST | K.LAST | K.REQUEST, HeaderType.RETH),
    RC_RDMA_READ_RESPONSE_FIRST(
            0x0D, "RC RDMA READ response First", K.READ | K.FIRST | K.PAYLOAD | K.RESPONSE, HeaderType.AETH),
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0E, "RC RDMA READ response Middle", K.READ | K.MIDDLE | K.PAYLOAD | K.RESPONSE),
    RC_RDMA_READ_RESPONSE_LAST(
            0x0F, "RC RDMA READ response Last", K.READ | K.LAST | K.PAYLOAD | K.RESPONSE, HeaderType.AETH),
    RC_RDMA_READ_RESPONSE_ONLY(
            0x10, "RC RDMA READ response Only", K.READ | K.FIRST | K.LAST | K.PAYLOAD | K.RESPONSE, HeaderType.AETH),
    RC_ACKNOWLEDGE(0x11, "RC Acknowledge", K.ACK | K.FIRST | K.LAST | K.RESPONSE, HeaderType.AETH),
    RC_ATOMIC_ACKNOWLEDGE(
            0x12,
            "RC ATOMIC Acknowledge",
            K.ATOMIC | K.FIRST | K.LAST | K.RESPONSE,
            HeaderType.AETH,
            HeaderType.ATOMIC_ACK_ETH),
    RC_CMP_SWAP(0x13, "RC CmpSwap", K.ATOMIC | K.FIRST | K.LAST | K.REQUEST, HeaderType.ATOMIC_ETH),
    RC_FETCH_ADD(0x14, "RC FetchAdd", K.ATOMIC | K.FIRST | K.LAST | K.REQUEST, HeaderType.ATOMIC_ETH),
    RC_SEND_LAST_WITH_INVALIDATE(
            0x16,
            "RC SEND Last with Invalidate",
            K.SEND | K.LAST | K.PAYLOAD | K.REQUEST | K.COMP | K.INV,
            HeaderType.IETH),
    RC_SEND_ONLY_WITH_INVALIDATE(
            0x17,
            "RC SEND Only with Invalidate",
            K.SEND | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.RWR | K.COMP | K.INV,
            HeaderType.IETH),
    UC_SEND_FIRST(0x20, "UC SEND First", K.SEND | K.FIRST | K.PAYLOAD | K.REQUEST | K.RWR | K.UC),
    UC_SEND_MIDDLE(0x21, "UC SEND Middle", K.SEND | K.MIDDLE | K.PAYLOAD | K.REQUEST | K.UC),
    UC_SEND_LAST(0x22, "UC SEND Last", K.SEND | K.LAST | K.PAYLOAD | K.REQUEST | K.COMP | K.UC),
    UC_SEND_LAST_WITH_IMMEDIATE(
            0x23,
            "UC SEND Last with Immediate",
            K.SEND | K.LAST | K.PAYLOAD | K.REQUEST | K.COMP | K.IMM | K.UC,
            HeaderType.IMM_DT),
    UC_SEND_ONLY(0x24, "UC SEND Only", K.SEND | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.RWR | K.COMP | K.UC),
    UC_SEND_ONLY_WITH_IMMEDIATE(
            0x25,
            "UC SEND Only with Immediate",
            K.SEND | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.RWR | K.COMP | K.IMM | K.UC,
            HeaderType.IMM_DT),
    UC_RDMA_WRITE_FIRST(0x26, "UC RDMA WRITE First", K.WRITE | K.FIRST | K.PAYLOAD | K.REQUEST | K.UC, HeaderType.RETH),
    UC_RDMA_WRITE_MIDDLE(0x27, "UC RDMA WRITE Middle", K.WRITE | K.MIDDLE | K.PAYLOAD | K.REQUEST | K.UC),
    UC_RDMA_WRITE_LAST(0x28, "UC RDMA WRITE Last", K.WRITE | K.LAST | K.PAYLOAD | K.REQUEST | K.UC),
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(
            0x29,
            "UC RDMA WRITE Last with Immediate",
            K.WRITE | K.LAST | K.PAYLOAD | K.REQUEST | K.IMM | K.RWR | K.COMP | K.UC,
            HeaderType.IMM_DT),
    UC_RDMA_WRITE_ONLY(
            0x2A, "UC RDMA WRITE Only", K.WRITE | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.UC, HeaderType.RETH),
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(
            0x2B,
            "UC RDMA WRITE Only with Immediate",
            K.WRITE | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.IMM | K.RWR | K.COMP | K.UC,
            HeaderType.RETH,
            HeaderType.IMM_DT),
    UD_SEND_ONLY(
            0x64,
            "UD SEND Only",
            K.SEND | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.RWR | K.COMP | K.UD,
            HeaderType.DETH),
    UD_SEND_ONLY_WITH_IMMEDIATE(
            0x65,
            "UD SEND Only with Immediate",
            K.SEND | K.FIRST | K.LAST | K.PAYLOAD | K.REQUEST | K.RWR | K.COMP | K.IMM | K.UD,
            HeaderType.DETH,
            HeaderType.IMM_DT);

    /** Property bits; kept in one place so the table above reads as a table. */
    private static final class K {
        static final int REQUEST = 1;
        static final int RESPONSE = 1 << 1;
        static final int FIRST = 1 << 2;
        static final int MIDDLE = 1 << 3;
        static final int LAST = 1 << 4;
        static final int PAYLOAD = 1 << 5;
        static final int SEND = 1 << 6;
        static final int WRITE = 1 << 7;
        static final int READ = 1 << 8;
        static final int ATOMIC = 1 << 9;
        static final int ACK = 1 << 10;
        static final int IMM = 1 << 11;
        static final int INV = 1 << 12;
        static final int RWR = 1 << 13;
        static final int COMP = 1 << 14;
        static final int UD = 1 << 15;
        static final int UC = 1 << 16;
    }

    private static final Opcode[] BY_VALUE = new Opcode[256];

    static {
        for (Opcode op : values()) {
            BY_VALUE[op.value] = op;
        }
    }

    private final int value;
    private final String ibaName;
    private final int props;
    private final int headerMask;
    private final int[] offsets = new int[HeaderType.values().length];
    private final int headerLength;

    Opcode(int value, String ibaName, int props, HeaderType... extensionHeaders) {
        this.value = value;
        this.ibaName = ibaName;
        this.props = props;
        int mask = HeaderType.BTH.bit();
        for (HeaderType h : extensionHeaders) {
            mask |= h.bit();
        }
        this.headerMask = mask;
        int offset = 0;
        for (HeaderType h : HeaderType.values()) {
            if ((mask & h.bit()) != 0) {
                offsets[h.ordinal()] = offset;
                offset += h.length();
            } else {
                offsets[h.ordinal()] = -1;
            }
        }
        this.headerLength = offset;
    }

    /** The opcode for a wire value, or null if simrdma does not know it. Allocation-free. */
    public static Opcode fromValue(int value) {
        return value >= 0 && value < 256 ? BY_VALUE[value] : null;
    }

    /** The 8-bit wire value (BTH byte 0). */
    public int value() {
        return value;
    }

    /** The opcode's name as the IBA specification writes it. */
    public String ibaName() {
        return ibaName;
    }

    /** The headers this opcode carries, BTH first, in wire order. */
    public Set<HeaderType> headers() {
        EnumSet<HeaderType> set = EnumSet.noneOf(HeaderType.class);
        for (HeaderType h : HeaderType.values()) {
            if (has(h)) {
                set.add(h);
            }
        }
        return set;
    }

    /** True if this opcode carries header {@code h}. */
    public boolean has(HeaderType h) {
        return (headerMask & h.bit()) != 0;
    }

    /** Byte offset of header {@code h} from the start of the BTH, or -1 if absent. */
    public int offset(HeaderType h) {
        return offsets[h.ordinal()];
    }

    /** Length of all transport headers of this opcode (BTH through the last extension header). */
    public int headerLength() {
        return headerLength;
    }

    /** Sent by a requester (the responder handles it). */
    public boolean isRequest() {
        return (props & K.REQUEST) != 0;
    }

    /** Sent by a responder (the completer handles it): acknowledges and read responses. */
    public boolean isResponse() {
        return (props & K.RESPONSE) != 0;
    }

    /** First packet of a message (FIRST or ONLY). */
    public boolean isFirst() {
        return (props & K.FIRST) != 0;
    }

    /** Middle packet of a multi-packet message. */
    public boolean isMiddle() {
        return (props & K.MIDDLE) != 0;
    }

    /** Last packet of a message (LAST or ONLY). */
    public boolean isLast() {
        return (props & K.LAST) != 0;
    }

    /** Single-packet message. */
    public boolean isOnly() {
        return isFirst() && isLast();
    }

    /** Carries a payload (possibly of zero bytes). */
    public boolean hasPayload() {
        return (props & K.PAYLOAD) != 0;
    }

    public boolean isSend() {
        return (props & K.SEND) != 0;
    }

    public boolean isWrite() {
        return (props & K.WRITE) != 0;
    }

    /** RDMA READ request or response. */
    public boolean isRead() {
        return (props & K.READ) != 0;
    }

    /** Atomic request or atomic acknowledge. */
    public boolean isAtomic() {
        return (props & K.ATOMIC) != 0;
    }

    /** The plain RC Acknowledge. */
    public boolean isAck() {
        return (props & K.ACK) != 0;
    }

    public boolean hasImmediate() {
        return (props & K.IMM) != 0;
    }

    public boolean hasInvalidate() {
        return (props & K.INV) != 0;
    }

    /** The responder needs a receive WQE for this packet (IBA: consumes a receive WQE). */
    public boolean requiresReceiveWqe() {
        return (props & K.RWR) != 0;
    }

    /** Completing this packet completes a receive WQE at the responder. */
    public boolean completesReceive() {
        return (props & K.COMP) != 0;
    }

    /** Unreliable datagram: UD QPs' sends and the CM's MADs on QP1. */
    public boolean isUd() {
        return (props & K.UD) != 0;
    }

    /** Unreliable connected. */
    public boolean isUc() {
        return (props & K.UC) != 0;
    }

    /** Reliable connected: neither UC nor UD. */
    public boolean isRc() {
        return (props & (K.UD | K.UC)) == 0;
    }

    /** READ or atomic request: uses a responder resource and is answered with data. */
    public boolean isReadOrAtomicRequest() {
        return isRequest() && (isRead() || isAtomic());
    }
}
