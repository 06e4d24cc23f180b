package io.simrdma.fabric;

import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.Objects;

/**
 * A change a {@link FaultRule#rewrite rewrite rule} makes to the headers or payload of a packet
 * on the wire: the PSN, the opcode, the RETH (virtual address, R_Key, DMA length), the AETH
 * (syndrome, MSN), the immediate data, or payload bytes. Changes chain with {@link #andThen}:
 * <pre>{@code
 * // turn the ACK of PSN n into a PSN sequence error NAK naming PSN m
 * PacketRewrite.psn(m).andThen(PacketRewrite.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR))
 * }</pre>
 *
 * <p>A rewritten packet leaves the link with a correct ICRC (IBA 7.8.1) computed over its new
 * bytes, so the receiver takes it as a packet its peer really sent; only a
 * {@link FaultRule#corrupt corrupt} rule makes it fail the check. Payload rewrites copy the
 * payload first: the sender's memory is never touched.
 *
 * <p>Implementations are called on the thread sending the packet, must not keep it, and must
 * not block. The factories' rewrites are immutable and thread-safe.
 */
public interface PacketRewrite {

    /**
     * True if {@code packet} carries what this rewrite changes (a RETH rewrite applies only to
     * packets with a RETH). A rule does not fire on a packet its rewrite does not apply to.
     */
    boolean appliesTo(Packet packet);

    /** Rewrites {@code packet} in place. Called only if {@link #appliesTo} said yes. */
    void apply(Packet packet);

    /**
     * This rewrite, then {@code next} (if it applies to the packet as this one left it). The
     * chain applies where this one does.
     */
    default PacketRewrite andThen(PacketRewrite next) {
        return new PacketRewrites.Chain(this, Objects.requireNonNull(next, "next"));
    }

    /** Sets the BTH PSN to {@code psn} (24 bits). */
    static PacketRewrite psn(int psn) {
        return new PacketRewrites.SetPsn(psn & 0xFFFFFF);
    }

    /** Moves the BTH PSN by {@code delta}, modulo 2^24 (IBA 9.7.1): +1 numbers it one ahead. */
    static PacketRewrite psnShift(int delta) {
        return new PacketRewrites.ShiftPsn(delta);
    }

    /**
     * Sets the BTH opcode. Extension headers both opcodes carry keep their values, headers only
     * the new one carries are zero, and an opcode without payload drops the payload.
     */
    static PacketRewrite opcode(Opcode opcode) {
        return new PacketRewrites.SetOpcode(Objects.requireNonNull(opcode, "opcode"));
    }

    /** Sets the RETH virtual address. */
    static PacketRewrite rethVa(long va) {
        return new PacketRewrites.SetRethVa(va);
    }

    /** Sets the RETH R_Key. */
    static PacketRewrite rethRkey(int rkey) {
        return new PacketRewrites.SetRethRkey(rkey);
    }

    /** Sets the RETH DMA length (an unsigned 32-bit value). */
    static PacketRewrite rethLength(int length) {
        return new PacketRewrites.SetRethLength(length);
    }

    /** Sets the AETH syndrome byte (see {@link Aeth}: an ACK, an RNR NAK or a NAK code). */
    static PacketRewrite aethSyndrome(int syndrome) {
        return new PacketRewrites.SetSyndrome(syndrome & 0xFF);
    }

    /** Makes the AETH a NAK with {@code code} (IBA 9.7.5.2.1, table 44). */
    static PacketRewrite nak(Aeth.NakCode code) {
        return aethSyndrome(Aeth.nak(Objects.requireNonNull(code, "code")));
    }

    /** Sets the AETH MSN (24 bits). */
    static PacketRewrite aethMsn(int msn) {
        return new PacketRewrites.SetMsn(msn & 0xFFFFFF);
    }

    /** Sets the immediate data (ImmDt) of a packet that carries it. */
    static PacketRewrite immediate(int imm) {
        return new PacketRewrites.SetImmediate(imm);
    }

    /**
     * Overwrites payload bytes from payload offset {@code offset} with {@code bytes} (copied
     * now); applies to packets whose payload holds the whole range.
     */
    static PacketRewrite payload(int offset, byte[] bytes) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative payload offset " + offset);
        }
        return new PacketRewrites.SetPayload(offset, bytes.clone());
    }
}
