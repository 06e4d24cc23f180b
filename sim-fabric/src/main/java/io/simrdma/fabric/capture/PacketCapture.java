package io.simrdma.fabric.capture;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Packet;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A packet capture of a fabric, or of the traffic between two of its nodes, written as a pcapng
 * file of RoCEv2 frames ({@link RoceFrame}) that Wireshark and tshark read. Each packet put on a
 * link is one frame, stamped with the time it was sent and commented with what the fabric did to
 * it: a retransmission, a fault rule that dropped, duplicated, delayed, held, rewrote or corrupted
 * it (a corrupted frame keeps the ICRC of its original bytes, so the mismatch shows), a drop at the
 * receiver and why, and a request the responder takes as a duplicate ({@link DuplicateAnalysis}).
 * Packets a TCP node receives from another JVM are frames too.
 *
 * <pre>{@code
 * try (PacketCapture capture = PacketCapture.on(fabric).link(fabric.link(a, b)).start(Path.of("run.pcapng"))) {
 *     ... run the traffic ...
 * }   // tshark -r run.pcapng
 * }</pre>
 *
 * <p>Timestamps: a deterministic fabric's virtual clock as it is (nanoseconds from 0, shown as
 * 1970-01-01), so the same seed gives a byte-identical file; a threaded fabric's time is the wall
 * clock at start plus the fabric's clock since. One capture may cover several fabrics
 * ({@link #attach}).
 *
 * <p>Frames are written in the order the packets were put on the wire, each once its fate is known:
 * when it is delivered or dropped (in one JVM), or once the sending node has handed it to its TCP
 * connection; {@link #stop()} writes the packets still on a link, commented so.
 *
 * <p>Thread safety: thread-safe; the fabric's engine threads call it, serialized by its lock.
 * The capture owns the file (or the stream given to it) and closes it on {@link #stop()}.
 */
public final class PacketCapture implements AutoCloseable {

    /**
     * Starts to configure a capture of {@code fabric}'s packets (every link, TCP ones included).
     */
    public static Builder on(Fabric fabric) {
        return new Builder(fabric);
    }

    /** What to capture and where. */
    public static final class Builder {
        private final Fabric fabric;
        private Gid x;
        private Gid y;
        private String interfaceName;

        private Builder(Fabric fabric) {
            this.fabric = Objects.requireNonNull(fabric, "fabric");
        }

        /** Only the packets of {@code link} (both directions; a loopback link's own). */
        public Builder link(Link link) {
            return between(link.a().gid(), link.b().gid());
        }

        /**
         * Only the packets between the nodes with GIDs {@code a} and {@code b} (for a TCP node's
         * link: the node's own GID and {@code TcpLink.peer()}).
         */
        public Builder between(Gid a, Gid b) {
            this.x = Objects.requireNonNull(a, "a");
            this.y = Objects.requireNonNull(b, "b");
            return this;
        }

        /** The interface name shown in Wireshark (default: the fabric's name). */
        public Builder interfaceName(String name) {
            this.interfaceName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Creates (or truncates) {@code file} and starts capturing.
         *
         * @throws UncheckedIOException if the file cannot be written
         */
        public PacketCapture start(Path file) {
            try {
                return start(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write capture " + file, e);
            }
        }

        /**
         * Starts capturing into {@code out}, which the capture then owns and closes on stop.
         *
         * @throws UncheckedIOException if the file headers cannot be written
         */
        public PacketCapture start(OutputStream out) {
            try {
                PcapngWriter w = new PcapngWriter(out, interfaceName != null ? interfaceName : fabric.name());
                PacketCapture c = new PacketCapture(w, x, y);
                c.attach(fabric);
                return c;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write capture", e);
            }
        }
    }

    /** One packet's frame while its journey lasts. */
    private static final class Frame {
        final long seq;
        final long time;
        final Packet key;
        final String sentAs;
        byte[] bytes;
        boolean done;
        boolean finished;
        boolean written;
        final List<FaultRule> rules = new ArrayList<>(2);
        final StringBuilder comment = new StringBuilder();

        Frame(long seq, long time, Packet key, byte[] bytes, String sentAs) {
            this.seq = seq;
            this.time = time;
            this.key = key;
            this.bytes = bytes;
            this.sentAs = sentAs;
        }

        void note(String s) {
            if (comment.length() > 0) {
                comment.append("; ");
            }
            comment.append(s);
        }

        /** The label of the first fired rule of {@code action}, or a generic word. */
        String rule(FaultRule.Action action) {
            for (FaultRule r : rules) {
                if (r.action() == action) {
                    return "fault rule \"" + r.label() + "\"";
                }
            }
            return "a fault rule";
        }
    }

    private final PcapngWriter writer;
    private final Gid x;
    private final Gid y;
    private final List<Listener> listeners = new ArrayList<>(2);
    private long latest;
    private final Map<Packet, Frame> open = new IdentityHashMap<>();
    private final java.util.ArrayDeque<Frame> order = new java.util.ArrayDeque<>();
    private final Map<Thread, Frame> current = new HashMap<>();
    private final DuplicateAnalysis duplicates = new DuplicateAnalysis();
    private long seq;
    private long frames;
    private boolean stopped;
    private IOException failure;

    private PacketCapture(PcapngWriter writer, Gid x, Gid y) {
        this.writer = writer;
        this.x = x;
        this.y = y;
    }

    /**
     * Captures {@code other}'s packets into the same file too (a program that runs two fabrics
     * one after the other, as {@code simrdma demo} does). A deterministic fabric's virtual times
     * continue after the latest frame so far, so the file's clock keeps going forward.
     */
    public void attach(Fabric other) {
        Objects.requireNonNull(other, "fabric");
        Listener l;
        synchronized (this) {
            if (stopped) {
                throw new IllegalStateException("the capture has stopped");
            }
            long offset = other.scheduler().isDeterministic()
                    ? (listeners.isEmpty() ? 0 : latest + 1_000 - other.now())
                    : System.currentTimeMillis() * 1_000_000L - other.now();
            l = new Listener(other, offset);
            listeners.add(l);
        }
        other.addTraceListener(l);
    }

    /** Frames written so far. */
    public synchronized long frames() {
        return frames;
    }

    /**
     * Stops capturing: writes the packets still on a link, then closes the file. Idempotent.
     *
     * @throws UncheckedIOException if writing the file failed at any point of the capture
     */
    public void stop() {
        List<Listener> ls;
        synchronized (this) {
            ls = List.copyOf(listeners);
        }
        for (Listener l : ls) {
            l.fabric.removeTraceListener(l);
        }
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            for (Frame f : order) {
                if (!f.done) {
                    f.note("still on the link when the capture stopped");
                }
                write(f);
            }
            order.clear();
            open.clear();
            current.clear();
            try {
                writer.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
            if (failure != null) {
                throw new UncheckedIOException("writing the capture failed", failure);
            }
        }
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    // ------------------------------------------------------------------ events

    /** The capture's listener on one fabric, with that fabric's clock offset. */
    private final class Listener implements TraceListener {
        final Fabric fabric;
        final long offset;

        Listener(Fabric fabric, long offset) {
            this.fabric = fabric;
            this.offset = offset;
        }

        @Override
        public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
            packet(event, reason, time + offset, from, to, p);
        }

        @Override
        public void onFaultRule(long time, FaultRule rule, Device from, Device to, Packet p) {
            synchronized (PacketCapture.this) {
                Frame f = open.get(p);
                if (f != null) {
                    f.rules.add(rule);
                }
            }
        }
    }

    private synchronized void packet(
            PacketEvent event, DropReason reason, long time, Device from, Device to, Packet p) {
        if (stopped) {
            return;
        }
        Thread t = Thread.currentThread();
        Frame f = open.get(p);
        boolean creates = event == PacketEvent.SENT
                || event == PacketEvent.RETRANSMITTED
                || event == PacketEvent.INJECTED
                || event == PacketEvent.DUPLICATED
                || (event == PacketEvent.DELIVERED && f != null && f.done);
        if (creates && f != null) {
            // a pooled packet object sent again: the earlier journey is over
            finish(f);
            f = null;
        }
        Frame last = current.get(t);
        if (last != null && last != f && last.done) {
            finish(last);
        }
        switch (event) {
            case SENT:
            case RETRANSMITTED:
            case INJECTED:
                f = create(time, from, to, p);
                if (f == null) {
                    return;
                }
                if (from != null) {
                    duplicates.onResponseSent(from, p);
                }
                if (event == PacketEvent.RETRANSMITTED) {
                    f.note("retransmission: the requester sent this PSN again after a timeout or a NAK");
                } else if (event == PacketEvent.INJECTED) {
                    f.note("injected by a test (Link.inject), past the fault rules");
                }
                f.done = to == null;
                break;
            case DUPLICATED: {
                Frame original = last;
                f = create(time, from, to, p);
                if (f == null) {
                    return;
                }
                String rule = original != null ? original.rule(FaultRule.Action.DUPLICATE) : "a fault rule";
                f.note("second copy of a packet, made by " + rule);
                if (original != null) {
                    original.note("duplicated by " + rule);
                }
                f.done = to == null;
                break;
            }
            case REWRITTEN:
                if (f == null) {
                    return;
                }
                f.bytes = encode(from, to, p);
                f.note("rewritten by " + f.rule(FaultRule.Action.REWRITE) + " (sent as " + f.sentAs + ")");
                break;
            case CORRUPTED:
                if (f == null) {
                    return;
                }
                int icrc = RoceFrame.icrcOf(f.bytes);
                f.bytes = encode(from, to, p);
                RoceFrame.putIcrc(f.bytes, icrc);
                f.note("corrupted by " + f.rule(FaultRule.Action.CORRUPT)
                        + ": a bit flipped, so the ICRC no longer matches and the receiver drops it");
                break;
            case DELAYED:
                if (f != null) {
                    f.note("delayed by "
                            + f.rule(
                                    f.rules.stream().anyMatch(r -> r.action() == FaultRule.Action.DELAY)
                                            ? FaultRule.Action.DELAY
                                            : FaultRule.Action.REORDER));
                }
                break;
            case HELD:
                if (f != null) {
                    f.note("held on the link by " + f.rule(FaultRule.Action.HOLD));
                }
                break;
            case RELEASED:
                if (f != null) {
                    f.note(String.format("released at %.3f us", time / 1000.0));
                }
                break;
            case DROPPED:
                if (f == null) {
                    f = create(time, from, to, p);
                    if (f == null) {
                        return;
                    }
                }
                f.note(dropNote(reason, f, from, to));
                f.done = true;
                finish(f);
                current.remove(t);
                return;
            case DELIVERED:
                if (f == null) {
                    // from another JVM: this node's first sight of it
                    f = create(time, from, to, p);
                    if (f == null) {
                        return;
                    }
                }
                analyse(f, to, p);
                f.done = true;
                break;
            default:
                return;
        }
        current.put(t, f);
    }

    private String dropNote(DropReason reason, Frame f, Device from, Device to) {
        switch (reason) {
            case FAULT:
                return "dropped by " + f.rule(FaultRule.Action.DROP);
            case LINK_DOWN:
                return "lost: the link was down";
            case CLOSED:
                return "lost: the link or device closed";
            case NO_ROUTE:
                return "dropped: no route to the destination GID";
            default:
                return "dropped by " + (to != null ? to.name() : "the receiver") + ": " + reason;
        }
    }

    private void analyse(Frame f, Device to, Packet p) {
        switch (duplicates.onDelivered(to, p)) {
            case DUPLICATE:
                f.note("duplicate: the responder already took PSN " + p.psn() + " (expects " + duplicates.lastExpected()
                        + "), so it answers it again without executing it");
                break;
            case OUT_OF_SEQUENCE:
                f.note("out of sequence: the responder expects PSN " + duplicates.lastExpected()
                        + "; it NAKs the first such packet (PSN sequence error) and drops it");
                break;
            default:
                break;
        }
    }

    /** A new frame for {@code p}, or null if the filter leaves it out. */
    private Frame create(long time, Device from, Device to, Packet p) {
        Gid src = p.sourceGid() != null ? p.sourceGid() : from != null ? from.gid() : null;
        Gid dst = p.destinationGid() != null ? p.destinationGid() : to != null ? to.gid() : null;
        if (src == null || dst == null) {
            return null;
        }
        if (x != null && !((src.equals(x) && dst.equals(y)) || (src.equals(y) && dst.equals(x)))) {
            return null;
        }
        latest = Math.max(latest, time);
        Frame f = new Frame(seq++, time, p, RoceFrame.encode(p, src, dst), summary(p));
        open.put(p, f);
        order.addLast(f);
        return f;
    }

    private byte[] encode(Device from, Device to, Packet p) {
        Gid src = p.sourceGid() != null ? p.sourceGid() : from.gid();
        Gid dst = p.destinationGid() != null ? p.destinationGid() : to.gid();
        return RoceFrame.encode(p, src, dst);
    }

    /** The frame's journey is over; frames are written in the order their packets were sent. */
    private void finish(Frame f) {
        if (open.get(f.key) == f) {
            open.remove(f.key);
        }
        f.finished = true;
        while (!order.isEmpty() && order.peekFirst().finished) {
            write(order.pollFirst());
        }
    }

    private void write(Frame f) {
        if (f.written || failure != null) {
            return;
        }
        f.written = true;
        try {
            writer.write(f.time, f.bytes, f.comment.toString());
            frames++;
        } catch (IOException e) {
            failure = e;
        }
    }

    private static String summary(Packet p) {
        StringBuilder sb =
                new StringBuilder(p.opcode().ibaName()).append(" PSN ").append(p.psn());
        if (p.opcode().has(HeaderType.AETH)) {
            sb.append(' ').append(Aeth.describe(p.aethSyndrome()));
        }
        return sb.toString();
    }
}
