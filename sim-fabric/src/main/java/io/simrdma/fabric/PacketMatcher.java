package io.simrdma.fabric;

import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.EnumSet;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Selects the packets a {@link FaultRule} applies to. {@code index} is the packet's position
 * among the packets sent in its direction of the link, from 1.
 *
 * <p>Matchers select by kind ({@link #requests()}, {@link #responses()}, {@link #acks()},
 * {@link #naks()}, {@link #readRequests()}, {@link #readResponses()}, {@link #opcode}), by
 * destination ({@link #to(Device)}, {@link #toQp(QueuePair)}, {@link #destQp}), by sender
 * ({@link #from(Device)}), by {@link #psn}, and by count ({@link #nth(long)} of the direction,
 * {@link #nth(long, PacketMatcher)} of a kind). Since requests and responses differ by opcode,
 * loopback traffic (both ends on one device) is selected the same way as traffic between two
 * devices: {@code nth(2, readResponses().and(toQp(qp)))} is the second READ response to
 * {@code qp}.
 *
 * <p>Matchers are called on the thread sending the packet and must not keep it. The counting
 * matchers ({@link #nth(long, PacketMatcher)}) are thread-safe and count the packets they are
 * asked about: give each rule its own.
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

    /** Request packets (requester to responder), UC and UD sends included; not the CM's MADs. */
    static PacketMatcher requests() {
        return (p, i) -> p.opcode().isRequest() && !(p.opcode().isUd() && p.destQp() == Device.GSI_QPN);
    }

    /** Response packets (acknowledgements and read responses). */
    static PacketMatcher responses() {
        return (p, i) -> p.opcode().isResponse();
    }

    /** Positive acknowledgements: RC Acknowledge packets whose AETH is an ACK (IBA 9.7.5.2.1). */
    static PacketMatcher acks() {
        return (p, i) -> p.opcode() == Opcode.RC_ACKNOWLEDGE && Aeth.kind(p.aethSyndrome()) == Aeth.Kind.ACK;
    }

    /** Negative acknowledgements: RC Acknowledge packets carrying a NAK or an RNR NAK. */
    static PacketMatcher naks() {
        return (p, i) -> p.opcode() == Opcode.RC_ACKNOWLEDGE && Aeth.kind(p.aethSyndrome()) != Aeth.Kind.ACK;
    }

    /** RDMA READ requests. */
    static PacketMatcher readRequests() {
        return (p, i) -> p.opcode() == Opcode.RC_RDMA_READ_REQUEST;
    }

    /** RDMA READ responses (First, Middle, Last and Only). */
    static PacketMatcher readResponses() {
        return (p, i) -> p.opcode().isRead() && p.opcode().isResponse();
    }

    /** Packets a requester sent again after a timeout or a NAK. */
    static PacketMatcher retransmissions() {
        return (p, i) -> p.retransmission();
    }

    /** Packets to {@code device} (their destination GID is its port's). */
    static PacketMatcher to(Device device) {
        Gid gid = Objects.requireNonNull(device, "device").gid();
        return (p, i) -> gid.equals(p.destinationGid());
    }

    /**
     * Packets to the queue pair {@code qp}: its device and its QP number. For a requester these
     * are its acknowledgements and responses; for a responder, the requests it receives.
     */
    static PacketMatcher toQp(QueuePair qp) {
        Gid gid = qp.device().gid();
        int qpn = qp.qpNum();
        return (p, i) -> p.destQp() == qpn && gid.equals(p.destinationGid());
    }

    /**
     * The {@code n}-th packet (from 1) that {@code kind} selects, counted by this matcher:
     * {@code nth(3, readResponses())} is the third READ response the rule sees, whatever
     * other packets pass between them.
     */
    static PacketMatcher nth(long n, PacketMatcher kind) {
        if (n < 1) {
            throw new IllegalArgumentException("n counts from 1: " + n);
        }
        Objects.requireNonNull(kind, "kind");
        AtomicLong seen = new AtomicLong();
        return (p, i) -> kind.matches(p, i) && seen.incrementAndGet() == n;
    }

    /** Connection-manager datagrams (UD to QP1). */
    static PacketMatcher managementDatagrams() {
        return (p, i) -> p.opcode().isUd() && p.destQp() == Device.GSI_QPN;
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
