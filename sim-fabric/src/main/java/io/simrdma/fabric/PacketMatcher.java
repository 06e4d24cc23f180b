package io.simrdma.fabric;

import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;

import java.util.EnumSet;
import java.util.Objects;

/**
 * Selects the packets a {@link FaultRule} applies to. {@code index} is the packet's position
 * among the packets sent in its direction of the link, from 1.
 *
 * <p>Matchers are called on engine threads and must not keep the packet.
 */
@FunctionalInterface
public interface PacketMatcher {

    boolean matches(Packet packet, long index);

    /** Every packet. */
    static PacketMatcher any() {
        return (p, i) -> true;
    }

    /** Packets to the QP numbered {@code qpn}. */
    static PacketMatcher destQp(int qpn) {
        return (p, i) -> p.destQp() == qpn;
    }

    /** Packets with one of these opcodes. */
    static PacketMatcher opcode(Opcode first, Opcode... more) {
        EnumSet<Opcode> set = EnumSet.of(first, more);
        return (p, i) -> set.contains(p.opcode());
    }

    /** Packets with this PSN. */
    static PacketMatcher psn(int psn) {
        return (p, i) -> p.psn() == psn;
    }

    /** The {@code n}-th packet of the direction (from 1). */
    static PacketMatcher nth(long n) {
        return (p, i) -> i == n;
    }

    /** Packets sent by {@code device}. */
    static PacketMatcher from(Device device) {
        Objects.requireNonNull(device, "device");
        return (p, i) -> device.gid().equals(p.sourceGid());
    }

    /** Request packets (requester to responder). */
    static PacketMatcher requests() {
        return (p, i) -> p.opcode().isRequest() && !p.opcode().isUd();
    }

    /** Response packets (acknowledgements and read responses). */
    static PacketMatcher responses() {
        return (p, i) -> p.opcode().isResponse();
    }

    /** Connection-manager datagrams (UD on QP1). */
    static PacketMatcher managementDatagrams() {
        return (p, i) -> p.opcode().isUd();
    }

    /** Both this and {@code other}. */
    default PacketMatcher and(PacketMatcher other) {
        return (p, i) -> matches(p, i) && other.matches(p, i);
    }

    /** This or {@code other}. */
    default PacketMatcher or(PacketMatcher other) {
        return (p, i) -> matches(p, i) || other.matches(p, i);
    }

    /** Not this. */
    default PacketMatcher negate() {
        return (p, i) -> !matches(p, i);
    }
}
