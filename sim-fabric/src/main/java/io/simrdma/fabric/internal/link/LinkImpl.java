package io.simrdma.fabric.internal.link;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultGate;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.LinkConfig;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Scheduler;
import io.simrdma.fabric.sched.Task;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.PacketSink;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A path between two devices of a fabric, in one JVM: it carries packets with a latency and a
 * bandwidth, applies the faults of its rules (drop, duplicate, delay, reorder, corrupt, rewrite,
 * hold), takes crafted packets, and can go down and come up, now or at a given time. A link to a
 * device itself carries loopback traffic.
 *
 * <p>Packets travel by reference (no copy, no serialization); each direction keeps order unless a
 * fault delays a packet. Fault decisions use a random source per direction, derived from the
 * fabric's seed under the deterministic scheduler, so a seed replays the same faults.
 *
 * <p>Thread safety: thread-safe. Each direction is driven by its sending device's executor.
 */
public final class LinkImpl implements Link, PacketRoute {

    private final Tracer tracer;
    private final Scheduler scheduler;
    private final EngineExecutor control;
    private final Device a;
    private final Device b;
    private final Direction ab;
    private final Direction ba;
    private volatile LinkConfig config;
    private final FaultInjector faults = new FaultInjector();
    private volatile boolean up = true;
    /** Times the link went down; a packet sent before the latest outage is lost on arrival. */
    private volatile long outages;

    private volatile boolean removed;
    private volatile boolean offload = true;
    /** Timed changes ({@link #downAt}, {@link #upAt}) scheduled and not yet run. */
    private final AtomicLong pendingChanges = new AtomicLong();

    /**
     * A link between ports {@code a} and {@code b} of one fabric (the same port twice for loopback).
     *
     * @param control runs the link's own timed changes ({@link #downAt}, {@link #upAt})
     * @param randomAb the random source of the faults of the direction from a to b
     * @param randomBa the same for b to a (unused for a loopback link)
     */
    public <P extends Device & PacketSink> LinkImpl(
            Tracer tracer,
            Scheduler scheduler,
            EngineExecutor control,
            P a,
            P b,
            LinkConfig config,
            SplittableRandom randomAb,
            SplittableRandom randomBa) {
        this.tracer = tracer;
        this.scheduler = scheduler;
        this.control = control;
        this.a = a;
        this.b = b;
        this.config = config;
        this.ab = new Direction(a, b, b, randomAb);
        this.ba = a == b ? ab : new Direction(b, a, a, randomBa);
    }

    /** One end of the link. */
    public Device a() {
        return a;
    }

    /** The other end. */
    public Device b() {
        return b;
    }

    public LinkConfig config() {
        return config;
    }

    /** Changes latency and bandwidth for packets sent from now on. */
    public LinkImpl config(LinkConfig c) {
        this.config = Objects.requireNonNull(c, "config");
        return this;
    }

    /** Adds a fault rule; rules apply in the order added. */
    public LinkImpl addFault(FaultRule rule) {
        faults.add(rule);
        return this;
    }

    /** Removes every fault rule. */
    public LinkImpl clearFaults() {
        faults.clear();
        return this;
    }

    /** The fault rules, in order. */
    public List<FaultRule> faults() {
        return faults.rules();
    }

    public boolean isUp() {
        return up;
    }

    /**
     * Takes the link down or brings it up now. While down, packets sent are lost, and packets on
     * the wire when it goes down are lost (when they would have arrived, even if the link is up
     * again by then); the RC engine's retries decide what happens, as on a real fabric.
     */
    public synchronized void setUp(boolean upNow) {
        if (up != upNow) {
            if (!upNow) {
                outages++;
            }
            up = upNow;
            tracer.link(this, upNow);
        }
    }

    /** Takes the link down at {@code timeNanos} on the fabric's clock. */
    public LinkImpl downAt(long timeNanos) {
        return changeAt(timeNanos, false);
    }

    /** Brings the link up at {@code timeNanos} on the fabric's clock. */
    public LinkImpl upAt(long timeNanos) {
        return changeAt(timeNanos, true);
    }

    private LinkImpl changeAt(long timeNanos, boolean upThen) {
        long delay = timeNanos - scheduler.nanoTime();
        // While a change is due, packets travel one by one: a run on the wire when the link goes
        // down must lose exactly the packets that had not arrived yet.
        pendingChanges.incrementAndGet();
        control.schedule(
                new Task() {
                    @Override
                    public void run() {
                        setUp(upThen);
                        pendingChanges.decrementAndGet();
                    }

                    @Override
                    public String toString() {
                        return "link " + LinkImpl.this + (upThen ? " up" : " down");
                    }
                },
                Math.max(0, delay));
        return this;
    }

    /** Counts of what happened to packets sent from {@code from} over this link. */
    public LinkStats stats(Device from) {
        Direction d = direction(from);
        return new LinkStats(
                d.sent.get(),
                d.delivered.get(),
                d.dropped.get(),
                d.duplicated.get(),
                d.delayed.get(),
                d.corrupted.get(),
                d.rewritten.get(),
                d.held.get());
    }

    @Override
    public void inject(Device from, Packet packet) {
        Direction d = direction(from);
        Objects.requireNonNull(packet, "packet");
        if (packet.sourceGid() == null || packet.destinationGid() == null) {
            packet.route(from.gid(), d.to.gid());
        }
        packet.injected(true);
        if (removed) {
            packet.release(); // the fabric closed: nothing will run it
            return;
        }
        // The packet is its own task: first it runs on the sender's executor (injectSink), then
        // it is scheduled again as its delivery.
        packet.deliverTo(d.injectSink);
        from.executor().execute(packet);
    }

    @Override
    public boolean isRemoved() {
        return removed;
    }

    @Override
    public LinkImpl segmentationOffload(boolean on) {
        offload = on;
        return this;
    }

    @Override
    public boolean segmentationOffload() {
        return offload;
    }

    /**
     * True if a burst sent now travels as one unit: offload on, the link up with no timed change
     * pending, no fault rule, and no trace listener (a capture is one) to show each packet.
     */
    @Override
    public boolean carriesBursts() {
        return offload && up && !removed && pendingChanges.get() == 0 && faults.isEmpty() && !tracer.isActive();
    }

    public void remove() {
        removed = true;
        ab.dropHeld();
        if (ba != ab) {
            ba.dropHeld();
        }
    }

    private Direction direction(Device from) {
        if (from == a) {
            return ab;
        }
        if (from == b) {
            return ba;
        }
        throw new IllegalArgumentException(from + " is not an end of " + this);
    }

    /** Sends {@code p} from {@code from} to the other end. Runs on {@code from}'s executor; takes ownership. */
    @Override
    public void transmit(Device from, Packet p) {
        Direction d = from == a ? ab : ba;
        if (p.isBurst()) {
            if (carriesBursts()) {
                transmitBurst(d, p);
                return;
            }
            // Something needs the packets one by one now: cut the run into them.
            while (p.isBurst()) {
                transmitOne(d, from, p.splitFirst());
            }
        }
        transmitOne(d, from, p);
    }

    /** A burst travels as one unit, counted as its packets; it arrives when its last packet would have. */
    private void transmitBurst(Direction d, Packet p) {
        int n = p.burstPackets();
        d.packets += n;
        d.sent.addAndGet(n);
        p.carrierTag(outages);
        deliver(d, p, delay(d, p));
    }

    private void transmitOne(Direction d, Device from, Packet p) {
        long index = ++d.packets;
        d.sent.incrementAndGet();
        tracer.packet(p.retransmission() ? PacketEvent.RETRANSMITTED : PacketEvent.SENT, null, from, d.to, p);
        if (!up) {
            d.dropped.incrementAndGet();
            tracer.packet(PacketEvent.DROPPED, DropReason.LINK_DOWN, from, d.to, p);
            p.release();
            return;
        }
        p.carrierTag(outages);
        if (faults.isEmpty()) {
            deliver(d, p, delay(d, p));
            return;
        }
        applyFaults(d, p, faults.decide(p, index, scheduler.nanoTime(), d.random, d.decision));
    }

    /** Carries out what the fault rules decided for {@code p} (see {@link FaultInjector}). */
    private void applyFaults(Direction d, Packet p, FaultInjector.Decision f) {
        tracer.faultRules(f, d.from, d.to, p);
        if (f.rewritten()) {
            d.rewritten.incrementAndGet();
            tracer.packet(PacketEvent.REWRITTEN, null, d.from, d.to, p);
        }
        if (f.drop()) {
            d.dropped.incrementAndGet();
            tracer.packet(PacketEvent.DROPPED, DropReason.FAULT, d.from, d.to, p);
            p.release();
            return;
        }
        if (f.corrupt()) {
            FaultInjector.corrupt(p, d.random);
            d.corrupted.incrementAndGet();
            tracer.packet(PacketEvent.CORRUPTED, null, d.from, d.to, p);
        } else if (f.rewritten()) {
            FaultInjector.seal(p);
        }
        if (f.gate() != null) {
            hold(d, f.gate(), p);
            if (f.duplicate()) {
                hold(d, f.gate(), duplicate(d, p));
            }
            return;
        }
        if (f.extraDelayNanos() > 0) {
            d.delayed.incrementAndGet();
            tracer.packet(PacketEvent.DELAYED, null, d.from, d.to, p);
        }
        if (f.holdNanos() > 0) {
            d.held.incrementAndGet();
            tracer.packet(PacketEvent.HELD, null, d.from, d.to, p);
        }
        long delay = delay(d, p) + f.waitNanos();
        if (f.duplicate()) {
            Packet copy = duplicate(d, p);
            deliver(d, p, delay);
            deliver(d, copy, delay);
        } else {
            deliver(d, p, delay);
        }
    }

    private Packet duplicate(Direction d, Packet p) {
        Packet copy = p.duplicate();
        d.duplicated.incrementAndGet();
        tracer.packet(PacketEvent.DUPLICATED, null, d.from, d.to, copy);
        return copy;
    }

    private void hold(Direction d, FaultGate gate, Packet p) {
        d.held.incrementAndGet();
        tracer.packet(PacketEvent.HELD, null, d.from, d.to, p);
        if (!d.holds().hold(gate, p)) {
            d.dropped.incrementAndGet();
            tracer.packet(PacketEvent.DROPPED, DropReason.CLOSED, d.from, d.to, p);
            p.release();
        }
    }

    /** A held packet whose gate opened travels on, as if sent now. Runs on the sender's executor. */
    private void released(Direction d, Packet p) {
        tracer.packet(PacketEvent.RELEASED, null, d.from, d.to, p);
        sendNow(d, p);
    }

    /** Puts {@code p} on the wire now, with the link's latency and no faults (released, injected). */
    private void sendNow(Direction d, Packet p) {
        if (!up || removed) {
            d.dropped.incrementAndGet();
            tracer.packet(PacketEvent.DROPPED, removed ? DropReason.CLOSED : DropReason.LINK_DOWN, d.from, d.to, p);
            p.release();
            return;
        }
        p.carrierTag(outages);
        deliver(d, p, delay(d, p));
    }

    private long delay(Direction d, Packet p) {
        LinkConfig c = config;
        if (!scheduler.isDeterministic()) {
            return c.latencyNanos();
        }
        long now = scheduler.nanoTime();
        long ser = c.serializationNanos(p.headerLength() + p.payloadLength() + p.padCount() + Packet.ICRC_LENGTH);
        if (p.isBurst()) {
            // Each packet of the run occupies the link in turn, as if sent one by one.
            int middles = p.burstPackets() - 2;
            int mtu = p.burstMtu();
            ser += middles * c.serializationNanos(MIDDLE_HEADER_LENGTH + mtu + Packet.ICRC_LENGTH);
            int lastLen = p.burstBytes() - (p.burstPackets() - 1) * mtu;
            ser += c.serializationNanos(
                    p.burstLastOpcode().headerLength() + lastLen + ((-lastLen) & 3) + Packet.ICRC_LENGTH);
        }
        long start = Math.max(now, d.busyUntil);
        d.busyUntil = start + ser;
        return d.busyUntil - now + c.latencyNanos();
    }

    private void deliver(Direction d, Packet p, long delay) {
        p.deliverTo(d);
        if (delay <= 0) {
            d.to.executor().execute(p);
        } else {
            d.to.executor().schedule(p, delay);
        }
    }

    /** Header length of a Middle packet (a BTH alone). */
    private static final int MIDDLE_HEADER_LENGTH = Opcode.RC_RDMA_WRITE_MIDDLE.headerLength();

    @Override
    public String toString() {
        return a.name() + "<->" + b.name();
    }

    /** One direction of the link; also the sink that hands arriving packets to the receiving port. */
    private final class Direction implements PacketSink {
        final Device from;
        final Device to;
        final PacketSink port;
        final SplittableRandom random;
        final FaultInjector.Decision decision = new FaultInjector.Decision();
        /** Runs an injected packet's send on the sender's executor. */
        final PacketSink injectSink = this::injected;

        private HeldPackets holds;
        long packets;
        long busyUntil;
        final AtomicLong sent = new AtomicLong();
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong dropped = new AtomicLong();
        final AtomicLong duplicated = new AtomicLong();
        final AtomicLong delayed = new AtomicLong();
        final AtomicLong corrupted = new AtomicLong();
        final AtomicLong rewritten = new AtomicLong();
        final AtomicLong held = new AtomicLong();

        Direction(Device from, Device to, PacketSink port, SplittableRandom random) {
            this.from = from;
            this.to = to;
            this.port = port;
            this.random = random;
        }

        @Override
        public void receive(Packet p) {
            // Lost if the link is down now, or went down while the packet was on the wire (even
            // if it is up again).
            if (!up || removed || p.carrierTag() != outages) {
                while (p.isBurst()) {
                    lost(p.splitFirst());
                }
                lost(p);
                return;
            }
            delivered.addAndGet(p.burstPackets());
            port.receive(p);
        }

        private void lost(Packet p) {
            dropped.incrementAndGet();
            tracer.packet(PacketEvent.DROPPED, DropReason.LINK_DOWN, from, to, p);
            p.release();
        }

        /** An injected packet, now on the sender's executor. */
        private void injected(Packet p) {
            sent.incrementAndGet();
            tracer.packet(PacketEvent.INJECTED, null, from, to, p);
            sendNow(this, p);
        }

        /** The packets held on gates, made on first use. Sender's executor. */
        synchronized HeldPackets holds() {
            if (holds == null) {
                EngineExecutor executor = from.executor();
                holds = new HeldPackets(
                        r -> executor.execute(new Task() {
                            @Override
                            public void run() {
                                r.run();
                            }

                            @Override
                            public String toString() {
                                return "release held packets " + from.name() + "->" + to.name();
                            }
                        }),
                        p -> released(this, p));
            }
            return holds;
        }

        /** The link is removed: what is held is lost. */
        void dropHeld() {
            HeldPackets h;
            synchronized (this) {
                h = holds;
            }
            if (h == null) {
                return;
            }
            for (Packet p : h.close()) {
                dropped.incrementAndGet();
                tracer.packet(PacketEvent.DROPPED, DropReason.CLOSED, from, to, p);
                p.release();
            }
        }
    }
}
