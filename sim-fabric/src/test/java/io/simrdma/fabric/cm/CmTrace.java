package io.simrdma.fabric.cm;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Test helper: a {@link TraceListener} that decodes every IB CM message (a 256-byte MAD in a UD
 * SEND Only to QP1) a fabric sends, delivers or drops, and records every QP state change; and
 * {@link PacketMatcher}s that select CM messages by type for fault rules. Add the same instance
 * to both fabrics of a TCP pair to see both nodes.
 *
 * <p>Thread safety: thread-safe (listeners are called on engine threads).
 */
final class CmTrace implements TraceListener {

    /** One CM message seen on the wire: what happened to it, when, who sent it, and its decoded contents. */
    record Mad(PacketEvent event, DropReason reason, long time, Gid source, CmMessage msg) {
        CmMessage.Type type() {
            return msg.type;
        }

        boolean from(Device d) {
            return d.gid().equals(source);
        }

        @Override
        public String toString() {
            return event + (reason != null ? "(" + reason + ")" : "") + "@" + time + " " + msg;
        }
    }

    /** One QP state change. */
    record QpChange(long time, QueuePair qp, QpState from, QpState to) {
        @Override
        public String toString() {
            return qp.device().name() + "/qp" + qp.qpNum() + " " + from + "->" + to + "@" + time;
        }
    }

    private final List<Mad> mads = new ArrayList<>();
    private final List<QpChange> qpChanges = new ArrayList<>();
    private final List<AsyncEvent> asyncEvents = new ArrayList<>();

    @Override
    public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
        CmMessage m = decode(packet);
        if (m != null) {
            synchronized (this) {
                mads.add(new Mad(event, reason, time, packet.sourceGid(), m));
            }
        }
    }

    @Override
    public void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {
        synchronized (this) {
            qpChanges.add(new QpChange(time, qp, from, to));
        }
    }

    @Override
    public void onAsyncEvent(long time, Device device, AsyncEvent event) {
        synchronized (this) {
            asyncEvents.add(event);
        }
    }

    /** The async events of type {@code type} raised so far. */
    synchronized List<AsyncEvent> asyncEvents(AsyncEventType type) {
        List<AsyncEvent> out = new ArrayList<>();
        for (AsyncEvent e : asyncEvents) {
            if (e.type() == type) {
                out.add(e);
            }
        }
        return out;
    }

    /** Every CM message event so far, in order. */
    synchronized List<Mad> all() {
        return new ArrayList<>(mads);
    }

    /** The CM messages put on a link (first transmissions and CM resends alike: a MAD resend is a new send), in order. */
    List<Mad> sent() {
        return select(m -> m.event() == PacketEvent.SENT);
    }

    /** The CM messages of {@code type} sent by {@code d}, in order. */
    List<Mad> sent(Device d, CmMessage.Type type) {
        return select(m -> m.event() == PacketEvent.SENT && m.type() == type && m.from(d));
    }

    /** The CM messages of {@code type} handed to a receiving port, in order. */
    List<Mad> delivered(CmMessage.Type type) {
        return select(m -> m.event() == PacketEvent.DELIVERED && m.type() == type);
    }

    /** The types of the CM messages sent, in order, each prefixed "a:" or "b:" by the sending device. */
    List<String> sentTypes(Device a, Device b) {
        List<String> out = new ArrayList<>();
        for (Mad m : sent()) {
            out.add((m.from(a) ? "a:" : m.from(b) ? "b:" : "?:") + m.type());
        }
        return out;
    }

    List<Mad> select(Predicate<Mad> p) {
        List<Mad> out = new ArrayList<>();
        for (Mad m : all()) {
            if (p.test(m)) {
                out.add(m);
            }
        }
        return out;
    }

    /** Every QP state change so far, in order. */
    synchronized List<QpChange> qpChanges() {
        return new ArrayList<>(qpChanges);
    }

    /** The state changes of {@code qp}, as "FROM->TO" strings in order. */
    synchronized List<String> transitions(QueuePair qp) {
        List<String> out = new ArrayList<>();
        for (QpChange c : qpChanges) {
            if (c.qp() == qp) {
                out.add(c.from() + "->" + c.to());
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ decoding and matching

    /** The CM message a packet carries, or null if it is not a CM MAD. The packet is only read. */
    static CmMessage decode(Packet p) {
        if (p.opcode() != Opcode.UD_SEND_ONLY || p.payloadLength() != CmMessage.MAD_SIZE) {
            return null;
        }
        byte[] mad = new byte[CmMessage.MAD_SIZE];
        p.copyPayload(0, mad, 0, mad.length);
        return CmMessage.decode(mad);
    }

    /**
     * Matches CM MADs whose attribute (message type) is one of {@code types}: reads the common MAD
     * header (IBA 13.4.3: management class 07h at byte 1, AttributeID at bytes 16-17) of the payload.
     */
    static PacketMatcher type(CmMessage.Type first, CmMessage.Type... more) {
        Set<CmMessage.Type> set = EnumSet.of(first, more);
        return (p, i) -> {
            if (p.opcode() != Opcode.UD_SEND_ONLY || p.payloadLength() != CmMessage.MAD_SIZE) {
                return false;
            }
            byte[] h = new byte[CmMessage.HEADER];
            p.copyPayload(0, h, 0, h.length);
            if ((h[1] & 0xFF) != CmMessage.MGMT_CLASS_CM) {
                return false;
            }
            CmMessage.Type t = CmMessage.Type.of((h[16] & 0xFF) << 8 | (h[17] & 0xFF));
            return t != null && set.contains(t);
        };
    }

    /**
     * Matches the {@code n}-th (from 1) packet that {@code inner} matches; counts only on a link
     * direction's sending thread (one thread per direction), so a plain counter is enough there,
     * and is atomic for safety.
     */
    static PacketMatcher nth(PacketMatcher inner, int n) {
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        return (p, i) -> inner.matches(p, i) && seen.incrementAndGet() == n;
    }

    /** Matches every packet {@code inner} matches after its first {@code skip}. */
    static PacketMatcher after(PacketMatcher inner, int skip) {
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        return (p, i) -> inner.matches(p, i) && seen.incrementAndGet() > skip;
    }
}
