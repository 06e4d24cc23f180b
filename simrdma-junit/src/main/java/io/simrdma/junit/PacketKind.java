package io.simrdma.junit;

import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.wire.Opcode;
import java.util.Locale;

/**
 * The kinds of packet a {@link FaultScript} can select, each a {@link PacketMatcher} of sim-fabric.
 * In a script's text a kind is written as its name in any case, with an optional plural 's'
 * ({@code READ_RESPONSE}, {@code read_responses}, {@code acks}). Immutable; the matchers are
 * stateless and thread-safe.
 */
public enum PacketKind {
    /** Every packet. */
    ANY(PacketMatcher.any()),
    /** Requests (SEND, RDMA WRITE, READ request, atomics). */
    REQUEST(PacketMatcher.requests()),
    /** Responses (ACK, NAK, READ responses, atomic ACK). */
    RESPONSE(PacketMatcher.responses()),
    /** Positive acknowledgements. */
    ACK(PacketMatcher.acks()),
    /** Negative acknowledgements (PSN sequence error, RNR, remote errors). */
    NAK(PacketMatcher.naks()),
    /** RDMA READ requests. */
    READ_REQUEST(PacketMatcher.readRequests()),
    /** RDMA READ response packets (First, Middle, Last, Only). */
    READ_RESPONSE(PacketMatcher.readResponses()),
    /** SEND packets of every kind. */
    SEND(PacketMatcher.opcode(
            Opcode.RC_SEND_FIRST,
            Opcode.RC_SEND_MIDDLE,
            Opcode.RC_SEND_LAST,
            Opcode.RC_SEND_LAST_WITH_IMMEDIATE,
            Opcode.RC_SEND_ONLY,
            Opcode.RC_SEND_ONLY_WITH_IMMEDIATE,
            Opcode.RC_SEND_LAST_WITH_INVALIDATE,
            Opcode.RC_SEND_ONLY_WITH_INVALIDATE)),
    /** RDMA WRITE packets of every kind. */
    RDMA_WRITE(PacketMatcher.opcode(
            Opcode.RC_RDMA_WRITE_FIRST,
            Opcode.RC_RDMA_WRITE_MIDDLE,
            Opcode.RC_RDMA_WRITE_LAST,
            Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
            Opcode.RC_RDMA_WRITE_ONLY,
            Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)),
    /** Atomic requests (CmpSwap, FetchAdd). */
    ATOMIC(PacketMatcher.opcode(Opcode.RC_CMP_SWAP, Opcode.RC_FETCH_ADD)),
    /** Packets a requester sends again. */
    RETRANSMISSION(PacketMatcher.retransmissions());

    private final PacketMatcher matcher;

    PacketKind(PacketMatcher matcher) {
        this.matcher = matcher;
    }

    /** The matcher selecting this kind (stateless: share it freely). */
    public PacketMatcher matcher() {
        return matcher;
    }

    /** The kind a script word names ({@code read_responses}, {@code ACK}...), or null. */
    static PacketKind ofWord(String word) {
        String w = word.toUpperCase(Locale.ROOT).replace('-', '_');
        if (w.equals("PACKET") || w.equals("PACKETS") || w.equals("ALL")) {
            return ANY;
        }
        if (w.equals("WRITE") || w.equals("WRITES")) {
            return RDMA_WRITE;
        }
        for (PacketKind k : values()) {
            if (w.equals(k.name()) || w.equals(k.name() + "S") || w.equals(k.name() + "ES")) {
                return k;
            }
        }
        return null;
    }
}
