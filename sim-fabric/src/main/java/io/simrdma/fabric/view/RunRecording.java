package io.simrdma.fabric.view;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.capture.DuplicateAnalysis;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a fabric did during a run, kept for a picture of it ({@link Ladder}, {@link HtmlView}):
 * every packet with its headers and its fate (delivered, dropped and by which rule, retransmitted,
 * duplicated, taken as a duplicate), every QP state change, every work completion, and the state
 * changes of objects a layer above verbs reports (the DAT provider's endpoints).
 *
 * <pre>{@code
 * RunRecording run = RunRecording.start(fabric, "RDMA WRITE on a lossy link");
 * ... the traffic ...
 * run.stop();
 * System.out.print(Ladder.render(run));
 * HtmlView.write(Path.of("run.html"), List.of(run));
 * }</pre>
 *
 * <p>Columns ({@link Lane}) are QPs. The sending QP of an RC packet is not on the wire (the BTH
 * names only the destination), so the recording learns which QPs talk to each other from the
 * responses: a response carries the PSN of the request it answers.
 *
 * <p>Times: a deterministic fabric's virtual clock as it is; on a threaded fabric, the time since
 * the recording started (never a raw {@code System.nanoTime()}).
 *
 * <p>Thread safety: thread-safe; engine threads record under its lock. It copies what it keeps
 * of each packet, never the packet.
 */
public final class RunRecording {

    /** A column: one QP of a device, or a named object (a DAT endpoint). */
    public record Lane(String device, int qpn, String object) {
        /** The column's title: "a QP17", "b QP1", "ia1 EP 1", "a ?" for an unknown QP. */
        public String title() {
            if (object != null) {
                return device + " " + object;
            }
            return device + (qpn < 0 ? " ?" : " QP" + qpn);
        }
    }

    /** What an event is. */
    public enum Kind {
        /** A packet from one lane to another. */
        PACKET,
        /** A QP changed state. */
        QP_STATE,
        /** An object of a layer above verbs changed state. */
        STATE,
        /** A work completion was generated. */
        COMPLETION,
        /** An asynchronous event. */
        ASYNC
    }

    /** One event of the run. Packets keep their headers; everything is a copy. */
    public static final class Event {
        private final Kind kind;
        private final long time;
        private final String label;
        private Lane from;
        private Lane to;
        private final List<HeaderFields.Field> headers;
        private final List<String> notes = new ArrayList<>(2);
        private final List<FaultRule> rules = new ArrayList<>(1);
        private boolean dropped;
        private boolean retransmission;
        private boolean copy;
        private boolean duplicate;
        private boolean done;
        // packet routing, resolved to lanes when the recording is read
        private String fromDevice;
        private String toDevice;
        private int destQp;
        private int srcQp = -1;
        private int psn;
        private boolean request;

        Event(Kind kind, long time, String label, Lane lane, List<HeaderFields.Field> headers) {
            this.kind = kind;
            this.time = time;
            this.label = label;
            this.from = lane;
            this.to = lane;
            this.headers = headers;
        }

        public Kind kind() {
            return kind;
        }

        /** Nanoseconds: virtual time, or time since the recording started. */
        public long time() {
            return time;
        }

        /** A short label: "RDMA WRITE First #4012", "INIT->RTR", "wc SEND SUCCESS". */
        public String label() {
            return label;
        }

        /** The lane a packet leaves from; for other kinds, the lane of the event. */
        public Lane from() {
            return from;
        }

        /** The lane a packet goes to; for other kinds, the lane of the event. */
        public Lane to() {
            return to;
        }

        /** A packet's header fields (empty for other kinds). */
        public List<HeaderFields.Field> headers() {
            return headers;
        }

        /** What happened to the packet, in words (empty if nothing special). */
        public List<String> notes() {
            return Collections.unmodifiableList(notes);
        }

        public boolean dropped() {
            return dropped;
        }

        public boolean retransmission() {
            return retransmission;
        }

        /** A second copy a fault rule made. */
        public boolean copy() {
            return copy;
        }

        /** A request the responder took as a duplicate (answered again, not executed again). */
        public boolean duplicate() {
            return duplicate;
        }

        void note(String s) {
            notes.add(s);
        }

        String rule(FaultRule.Action... actions) {
            for (FaultRule r : rules) {
                for (FaultRule.Action a : actions) {
                    if (r.action() == a) {
                        return "fault rule \"" + r.label() + "\"";
                    }
                }
            }
            return "a fault rule";
        }
    }

    private final Fabric fabric;
    private final String title;
    private final boolean virtualClock;
    private final long base;
    private final List<Event> events = new ArrayList<>();
    private final Map<Packet, Event> open = new IdentityHashMap<>();
    private final Map<Thread, Event> current = new HashMap<>();
    private final Map<String, Integer> requestPsns = new HashMap<>();
    private final Map<Lane, Lane> peers = new HashMap<>();
    private final DuplicateAnalysis duplicates = new DuplicateAnalysis();
    private final TraceListener listener = new Listener();
    private boolean stopped;

    private RunRecording(Fabric fabric, String title) {
        this.fabric = fabric;
        this.title = title;
        this.virtualClock = fabric.scheduler().isDeterministic();
        this.base = virtualClock ? 0 : fabric.now();
    }

    /** Starts recording {@code fabric}'s events under {@code title}. */
    public static RunRecording start(Fabric fabric, String title) {
        Objects.requireNonNull(fabric, "fabric");
        RunRecording r = new RunRecording(fabric, Objects.requireNonNull(title, "title"));
        fabric.addTraceListener(r.listener);
        return r;
    }

    /** Stops recording. Idempotent; the events stay readable. */
    public void stop() {
        fabric.removeTraceListener(listener);
        synchronized (this) {
            stopped = true;
        }
    }

    public String title() {
        return title;
    }

    /** True if times are a deterministic fabric's virtual clock, false if time since the start. */
    public boolean virtualClock() {
        return virtualClock;
    }

    /** The events so far, in the order they happened, with their lanes resolved. */
    public synchronized List<Event> events() {
        for (Event e : events) {
            if (e.kind == Kind.PACKET) {
                resolve(e);
            }
        }
        return List.copyOf(events);
    }

    /** The lanes the events use: devices in the order they first appear, each device's lanes likewise. */
    public List<Lane> lanes() {
        List<Event> es = events();
        Map<String, List<Lane>> byDevice = new LinkedHashMap<>();
        for (Event e : es) {
            for (Lane l : new Lane[] {e.from, e.to}) {
                List<Lane> ls = byDevice.computeIfAbsent(l.device(), d -> new ArrayList<>());
                if (!ls.contains(l)) {
                    ls.add(l);
                }
            }
        }
        List<Lane> lanes = new ArrayList<>();
        for (List<Lane> ls : byDevice.values()) {
            // QPs first, in order of appearance, then the objects above them
            ls.stream().filter(l -> l.object() == null).forEach(lanes::add);
            ls.stream().filter(l -> l.object() != null).forEach(lanes::add);
        }
        return lanes;
    }

    /** Number of packets recorded (copies included). */
    public long packets() {
        return events().stream().filter(e -> e.kind == Kind.PACKET).count();
    }

    /** Number of packets dropped. */
    public long drops() {
        return events().stream().filter(e -> e.kind == Kind.PACKET && e.dropped).count();
    }

    private void resolve(Event e) {
        e.to = new Lane(e.toDevice, e.destQp, null);
        if (e.srcQp >= 0) {
            e.from = new Lane(e.fromDevice, e.srcQp, null);
            return;
        }
        Lane peer = peers.get(e.to);
        e.from = peer != null && peer.device().equals(e.fromDevice) ? peer : new Lane(e.fromDevice, -1, null);
    }

    private long t(long time) {
        return time - base;
    }

    // ------------------------------------------------------------------ events

    private final class Listener implements TraceListener {
        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            packet(event, reason, time, from, to, p);
        }

        @Override
        public void onFaultRule(long time, FaultRule rule, Device from, Device to, Packet p) {
            synchronized (RunRecording.this) {
                Event e = open.get(p);
                if (e != null) {
                    e.rules.add(rule);
                }
            }
        }

        @Override
        public void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {
            add(new Event(
                    Kind.QP_STATE,
                    t(time),
                    from + "->" + to,
                    new Lane(qp.device().name(), qp.qpNum(), null),
                    List.of()));
        }

        @Override
        public void onCompletion(
                long time, CompletionQueue cq, int qpNum, long wrId, WcStatus status, WcOpcode opcode, int byteLen) {
            add(new Event(
                    Kind.COMPLETION,
                    t(time),
                    "wc " + opcode + (status == WcStatus.SUCCESS ? "" : " " + status),
                    new Lane(cq.device().name(), qpNum, null),
                    List.of()));
        }

        @Override
        public void onStateChange(long time, Device device, String object, String from, String to) {
            add(new Event(Kind.STATE, t(time), from + "->" + to, new Lane(device.name(), -1, object), List.of()));
        }

        @Override
        public void onAsyncEvent(long time, Device device, AsyncEvent event) {
            int qpn = event.qp() != null ? event.qp().qpNum() : -1;
            add(new Event(Kind.ASYNC, t(time), "async " + event.type(), new Lane(device.name(), qpn, null), List.of()));
        }
    }

    private synchronized void add(Event e) {
        if (!stopped) {
            events.add(e);
        }
    }

    private synchronized void packet(
            PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
        if (stopped) {
            return;
        }
        Thread thread = Thread.currentThread();
        Event e = open.get(p);
        Event last = current.get(thread);
        switch (event) {
            case SENT:
            case RETRANSMITTED:
            case INJECTED:
                e = create(time, from, to, p, event == PacketEvent.RETRANSMITTED ? "re " : "");
                if (from != null) {
                    duplicates.onResponseSent(from, p);
                }
                if (event == PacketEvent.RETRANSMITTED) {
                    e.retransmission = true;
                    e.note("retransmission");
                } else if (event == PacketEvent.INJECTED) {
                    e.note("injected by a test");
                }
                break;
            case DUPLICATED: {
                e = create(time, from, to, p, "copy ");
                e.copy = true;
                String rule = last != null ? last.rule(FaultRule.Action.DUPLICATE) : "a fault rule";
                e.note("second copy made by " + rule);
                if (last != null) {
                    last.note("duplicated by " + rule);
                }
                break;
            }
            case DROPPED:
                if (e == null) {
                    e = create(time, from, to, p, "");
                }
                e.dropped = true;
                e.done = true;
                e.note(
                        reason == DropReason.FAULT
                                ? "dropped by " + e.rule(FaultRule.Action.DROP)
                                : "dropped: " + reason);
                break;
            case DELIVERED:
                if (e == null || e.done) {
                    e = create(time, from, to, p, "");
                }
                switch (duplicates.onDelivered(to, p)) {
                    case DUPLICATE:
                        e.duplicate = true;
                        e.note("duplicate: answered again, not executed again");
                        break;
                    case OUT_OF_SEQUENCE:
                        e.note("out of sequence (expected PSN " + duplicates.lastExpected() + ")");
                        break;
                    default:
                        break;
                }
                e.done = true;
                break;
            case DELAYED:
                if (e != null) {
                    e.note("delayed by " + e.rule(FaultRule.Action.DELAY, FaultRule.Action.REORDER));
                }
                break;
            case HELD:
                if (e != null) {
                    e.note("held by " + e.rule(FaultRule.Action.HOLD));
                }
                break;
            case RELEASED:
                if (e != null) {
                    e.note("released");
                }
                break;
            case CORRUPTED:
                if (e != null) {
                    e.note("corrupted by " + e.rule(FaultRule.Action.CORRUPT));
                }
                break;
            case REWRITTEN:
                if (e != null) {
                    e.note("rewritten by " + e.rule(FaultRule.Action.REWRITE) + " to " + label(p));
                }
                break;
            default:
                break;
        }
        if (e != null) {
            current.put(thread, e);
        }
    }

    private Event create(long time, Device from, Device to, Packet p, String prefix) {
        Event e = new Event(Kind.PACKET, t(time), prefix + label(p), null, HeaderFields.of(p));
        e.fromDevice = from != null ? from.name() : gidName(p.sourceGid());
        e.toDevice = to != null ? to.name() : deviceOf(p.destinationGid());
        e.destQp = p.destQp();
        e.psn = p.psn();
        e.request = p.opcode().isRequest();
        if (p.opcode().has(HeaderType.DETH)) {
            e.srcQp = p.dethSrcQp();
        }
        resolve(e);
        learnPeers(e);
        e.done = to == null;
        open.put(p, e);
        events.add(e);
        return e;
    }

    /** A response carries the PSN of the request it answers: that pairs the two QPs. */
    private void learnPeers(Event e) {
        if (e.srcQp >= 0) {
            return;
        }
        if (e.request) {
            requestPsns.put(e.fromDevice + "/" + e.toDevice + "/" + e.psn, e.destQp);
            return;
        }
        Integer requesterTarget = requestPsns.get(e.toDevice + "/" + e.fromDevice + "/" + e.psn);
        if (requesterTarget != null) {
            Lane requester = new Lane(e.toDevice, e.destQp, null);
            Lane responder = new Lane(e.fromDevice, requesterTarget, null);
            peers.put(responder, requester);
            peers.put(requester, responder);
            resolve(e);
        }
    }

    private String deviceOf(Gid gid) {
        Device d = gid == null ? null : fabric.device(gid);
        return d != null ? d.name() : gidName(gid);
    }

    private static String gidName(Gid gid) {
        return gid == null ? "?" : gid.toString();
    }

    /** "SEND Only #4012", "ACK #4012", "RNR NAK #77", "CM REQ". */
    static String label(Packet p) {
        Opcode op = p.opcode();
        if (op.isUd() && p.destQp() == Device.GSI_QPN && p.payloadLength() >= 18) {
            byte[] mad = new byte[18];
            p.copyPayload(0, mad, 0, 18);
            if (mad[1] == 0x07) {
                return "CM " + cmName(((mad[16] & 0xFF) << 8) | (mad[17] & 0xFF));
            }
            return "MAD";
        }
        String name;
        if (op == Opcode.RC_ACKNOWLEDGE) {
            name = syndromeName(p.aethSyndrome());
        } else {
            name = shortName(op);
            if (op.has(HeaderType.AETH) && Aeth.kind(p.aethSyndrome()) != Aeth.Kind.ACK) {
                name += " " + syndromeName(p.aethSyndrome());
            }
        }
        return name + " #" + p.psn();
    }

    /** The opcode's IBA name, shortened for a column: "WRITE First", "READ resp Only", "SEND Only Imm". */
    static String shortName(Opcode op) {
        String n = op.ibaName();
        if (n.startsWith("RC ")) {
            n = n.substring(3);
        }
        return n.replace("RDMA ", "")
                .replace("response", "resp")
                .replace(" with Immediate", " Imm")
                .replace(" with Invalidate", " Inv")
                .replace("Acknowledge", "Ack");
    }

    /** An AETH syndrome in a few letters: "ACK", "RNR NAK", "NAK PSN seq" (IBA 9.7.5.2, tables 43 and 44). */
    static String syndromeName(int syndrome) {
        switch (Aeth.kind(syndrome)) {
            case ACK:
                return "ACK";
            case RNR_NAK:
                return "RNR NAK";
            case NAK:
                Aeth.NakCode code = Aeth.NakCode.fromCode(Aeth.value(syndrome));
                if (code == null) {
                    return "NAK ?";
                }
                switch (code) {
                    case PSN_SEQUENCE_ERROR:
                        return "NAK PSN seq";
                    case INVALID_REQUEST:
                        return "NAK inv req";
                    case REMOTE_ACCESS_ERROR:
                        return "NAK rem access";
                    case REMOTE_OPERATIONAL_ERROR:
                        return "NAK rem op";
                    default:
                        return "NAK " + code.name();
                }
            default:
                return "AETH ?";
        }
    }

    private static String cmName(int attributeId) {
        switch (attributeId) {
            case 0x10:
                return "REQ";
            case 0x11:
                return "MRA";
            case 0x12:
                return "REJ";
            case 0x13:
                return "REP";
            case 0x14:
                return "RTU";
            case 0x15:
                return "DREQ";
            case 0x16:
                return "DREP";
            default:
                return "attribute 0x" + Integer.toHexString(attributeId);
        }
    }
}
