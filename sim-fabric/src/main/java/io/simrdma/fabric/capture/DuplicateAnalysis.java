package io.simrdma.fabric.capture;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.util.HashMap;
import java.util.Map;

/**
 * Tells, for each request delivered to a QP, whether the responder takes it as the next one, as a
 * duplicate or as out of sequence, from the PSNs delivered so far (IBA 9.7.5.1: a duplicate
 * request is answered again without being executed again, and the first request with a PSN ahead
 * of the expected one draws a PSN sequence error NAK). Like Wireshark's TCP analysis, it reasons
 * from the packets alone: it learns a QP's expected PSN from the first request it sees, and after
 * an RDMA READ request (which takes one PSN per response packet, a number only the path MTU
 * decides) it takes any later PSN as the next one. A request the responder refused with an RNR
 * NAK or an error NAK ({@link #onResponseSent}) is expected again.
 *
 * <p>Thread safety: not thread-safe; {@link PacketCapture} and the run views call it under their lock.
 */
public final class DuplicateAnalysis {

    /** What the responder makes of a request. */
    public enum Verdict {
        /** The next request, or the first seen on the QP. */
        IN_ORDER,
        /** A PSN the responder has already taken: answered again, not executed again. */
        DUPLICATE,
        /** A PSN ahead of the expected one: a PSN sequence error NAK, or silently dropped after one. */
        OUT_OF_SEQUENCE
    }

    private record QpKey(Device device, int qpn) {}

    private static final class Expect {
        int psn;
        boolean loose;
    }

    private final Map<QpKey, Expect> expected = new HashMap<>();
    private int lastExpected;

    /**
     * Judges request {@code p} delivered to {@code device}; responses and datagrams are always
     * {@link Verdict#IN_ORDER}.
     */
    public Verdict onDelivered(Device device, Packet p) {
        if (!p.opcode().isRequest() || p.opcode().isUd()) {
            return Verdict.IN_ORDER;
        }
        QpKey key = new QpKey(device, p.destQp());
        Expect e = expected.get(key);
        int psn = p.psn();
        if (e == null) {
            e = new Expect();
            expected.put(key, e);
            accept(e, p);
            return Verdict.IN_ORDER;
        }
        int diff = Psn.compare(psn, e.psn);
        lastExpected = e.psn;
        if (diff == 0 || (e.loose && diff > 0)) {
            accept(e, p);
            return Verdict.IN_ORDER;
        }
        return diff < 0 ? Verdict.DUPLICATE : Verdict.OUT_OF_SEQUENCE;
    }

    /**
     * Notes a response {@code responder} sent: an RNR NAK or an error NAK says the request at its
     * PSN was not taken (IBA 9.7.5.2.8, 9.7.5.2.9), so the QP expects that PSN again.
     */
    public void onResponseSent(Device responder, Packet p) {
        if (!p.opcode().isResponse() || !p.opcode().has(io.simrdma.fabric.wire.HeaderType.AETH)) {
            return;
        }
        io.simrdma.fabric.wire.Aeth.Kind kind = io.simrdma.fabric.wire.Aeth.kind(p.aethSyndrome());
        if (kind == io.simrdma.fabric.wire.Aeth.Kind.ACK) {
            return;
        }
        int psn = p.psn();
        for (Map.Entry<QpKey, Expect> e : expected.entrySet()) {
            if (e.getKey().device() == responder && e.getValue().psn == Psn.add(psn, 1)) {
                e.getValue().psn = psn;
            }
        }
    }

    /** The PSN the QP expected when the last verdict was given. */
    public int lastExpected() {
        return lastExpected;
    }

    private static void accept(Expect e, Packet p) {
        e.psn = Psn.add(p.psn(), 1);
        e.loose = p.opcode().isRead();
    }
}
