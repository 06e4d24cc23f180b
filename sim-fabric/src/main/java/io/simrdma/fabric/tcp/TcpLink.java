package io.simrdma.fabric.tcp;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.internal.device.DeviceImpl;
import io.simrdma.fabric.internal.link.FaultInjector;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The link between a {@link TcpNode} and one peer node: the route its device's packets to that
 * node take, carried by one TCP connection that opens on first use (the first packet to the
 * peer's GID) and again on the next packet after it closed. Like an in-process {@link Link} it can
 * be taken down and brought up, now or at a time, carries fault rules, applied to the
 * connection's packets by a pipeline handler with the same {@link FaultInjector}, and takes
 * crafted packets ({@link #inject}).
 *
 * <p>A closed or broken connection is a link down: packets sent meanwhile are lost (dropped,
 * counted and traced), and the RC engine's retries decide what happens, as on a real fabric.
 * Packets sent while the connection opens wait for it (up to
 * {@link TcpConfig#pendingPacketLimit()}); after a failed attempt packets are dropped for
 * {@link TcpConfig#reconnectBackoffNanos()} before the next one.
 *
 * <p>On TLS nodes one connection carries both directions: when both nodes connect at once, each
 * keeps the connection opened by the node with the lower GID and closes the other; a connection
 * from a restarted peer (a new incarnation) replaces the old one. On plain nodes a peer's claim
 * of its GID proves nothing, so the node sends the peer's packets only over a connection it
 * dialled to the address the GID names; a connection the peer opened delivers the peer's packets
 * and carries none of this node's ({@link #isConnected()} speaks of the dialled one). Whoever
 * claims a node's GID therefore never receives what is meant for that node.
 *
 * <p>A handshake refused on a connection this node dialled (wrong credentials, another fabric,
 * another version) is final for the connection attempts waiting for the peer: the device's
 * connection manager hears the cause at once and ends them, instead of retrying into the same
 * refusal.
 *
 * <p>A link nobody asked for (made by traffic, not by {@link TcpNode#link}) that has had no
 * connection for the idle timeout is removed by the node's housekeeping, at once if the peer only
 * ever connected in; the next packet to the peer makes a new one.
 *
 * <p>Thread safety: thread-safe. Packets and connection state are handled on the node's event
 * loop (the device's executor); the control methods may be called from any thread.
 */
public final class TcpLink implements PacketRoute {

    private static final Logger LOG = LoggerFactory.getLogger(TcpLink.class);

    private final TcpNode node;
    private final Gid peer;
    private final InetSocketAddress address;
    private final FaultInjector faults = new FaultInjector();
    private final SplittableRandom random;
    private final FaultInjector.Decision decision = new FaultInjector.Decision();
    private volatile boolean up = true;
    private volatile boolean removed;
    private volatile boolean pinned;
    private volatile boolean offload = true;

    // ---- event loop
    private long faultIndex;
    private volatile Connection active;
    private Connection connecting;
    private final ArrayDeque<Packet> pending = new ArrayDeque<>();
    private long retryNotBefore;
    private boolean backingOff;
    private final List<Connection> inbound = new ArrayList<>(1);
    private boolean transmitted;
    private long unusedSinceNanos;

    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong duplicated = new AtomicLong();
    private final AtomicLong delayed = new AtomicLong();
    private final AtomicLong corrupted = new AtomicLong();
    private final AtomicLong rewritten = new AtomicLong();
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong deliveredIn = new AtomicLong();
    private final AtomicLong droppedIn = new AtomicLong();

    TcpLink(TcpNode node, Gid peer) {
        this.node = node;
        this.peer = peer;
        this.address = TcpNode.addressOf(peer);
        this.random = new SplittableRandom(node.fabric().seed() ^ peer.hashCode() * 0x9E3779B97F4A7C15L);
    }

    /** The node this link belongs to. */
    public TcpNode node() {
        return node;
    }

    /** The peer node's GID. */
    public Gid peer() {
        return peer;
    }

    /** The peer's listen address (what its GID encodes). */
    public InetSocketAddress remoteAddress() {
        return address;
    }

    /** True while a connection to the peer has completed its handshake. */
    public boolean isConnected() {
        return active != null;
    }

    // ------------------------------------------------------------------ administrative control

    public boolean isUp() {
        return up;
    }

    /**
     * Takes the link down or brings it up now. While down, packets sent to the peer and packets
     * arriving from it are lost (the connection stays open); the RC engine's retries decide what
     * happens, as with {@link Link#setUp}.
     */
    public void setUp(boolean upNow) {
        if (up != upNow) {
            up = upNow;
            LOG.info("{}: link to {} {}", node.name(), address, upNow ? "up" : "down");
            node.event(new TcpEvent(
                    upNow ? TcpEvent.Type.LINK_UP : TcpEvent.Type.LINK_DOWN, peer, address, "administrative"));
        }
    }

    /** Takes the link down at {@code timeNanos} on the fabric's clock. */
    public TcpLink downAt(long timeNanos) {
        return changeAt(timeNanos, false);
    }

    /** Brings the link up at {@code timeNanos} on the fabric's clock. */
    public TcpLink upAt(long timeNanos) {
        return changeAt(timeNanos, true);
    }

    private TcpLink changeAt(long timeNanos, boolean upThen) {
        long delay = Math.max(0, timeNanos - node.fabric().now());
        node.eventLoop().schedule(() -> setUp(upThen), delay, TimeUnit.NANOSECONDS);
        return this;
    }

    /** Adds a fault rule; rules apply in the order added, to packets written to the peer. */
    public TcpLink addFault(FaultRule rule) {
        faults.add(rule);
        return this;
    }

    /**
     * Turns segmentation offload on (the default) or off: whether a run of consecutive packets of
     * one message may cross this link as one BURST frame ({@link PacketCodec#TYPE_BURST}) when
     * nothing needs them one by one, as on an in-process {@link Link#segmentationOffload(boolean)}.
     */
    public TcpLink segmentationOffload(boolean on) {
        offload = on;
        return this;
    }

    /** True if segmentation offload is on (see {@link #segmentationOffload(boolean)}). */
    public boolean segmentationOffload() {
        return offload;
    }

    /**
     * True if a burst sent now crosses as BURST frames: offload on, the link up with a connection
     * whose peer takes bursts, no fault rule and no trace listener (a capture is one) to show each
     * packet. Event loop.
     */
    @Override
    public boolean carriesBursts() {
        Connection c = active;
        return offload
                && up
                && !removed
                && c != null
                && c.burstLimit(PacketCodec.MAX_PAYLOAD) >= 2
                && faults.isEmpty()
                && !node.fabricImpl().tracer().isActive();
    }

    /** True if the link has a fault rule. */
    boolean hasFaults() {
        return !faults.isEmpty();
    }

    /** Removes every fault rule. */
    public TcpLink clearFaults() {
        faults.clear();
        return this;
    }

    /** The fault rules, in order. */
    public List<FaultRule> faults() {
        return faults.rules();
    }

    /**
     * Closes the connection to the peer, if any (packets in flight are lost); the next packet to
     * the peer opens a new one.
     */
    public void disconnect() {
        node.runOnLoop(() -> {
            Connection c = active;
            if (c != null) {
                c.close("disconnected by the application");
            }
            if (connecting != null) {
                connecting.close("disconnected by the application");
            }
            for (Connection in : new ArrayList<>(inbound)) {
                in.close("disconnected by the application");
            }
        });
    }

    /**
     * Counts of the packets sent to the peer: {@code sent} given to the link, {@code delivered}
     * written to a connection, {@code dropped} lost (link down, no connection, fault), and the
     * copies, delays and corruptions fault rules made.
     */
    public Link.LinkStats stats() {
        return new Link.LinkStats(
                sent.get(),
                written.get(),
                dropped.get(),
                duplicated.get(),
                delayed.get(),
                corrupted.get(),
                rewritten.get(),
                held.get());
    }

    /**
     * Puts a crafted packet on the link to the peer, as {@link Link#inject} does on an in-process
     * link: traced {@link PacketEvent#INJECTED}, written to the connection (opened if need be)
     * past the fault rules, lost if the link is down. The link fills in the GIDs (this node to the
     * peer) if the packet has none. Any thread; takes ownership of {@code packet}.
     */
    public void inject(Packet packet) {
        java.util.Objects.requireNonNull(packet, "packet");
        if (packet.sourceGid() == null || packet.destinationGid() == null) {
            packet.route(node.gid(), peer);
        }
        packet.injected(true);
        if (!node.runOnLoop(() -> transmit(node.device(), packet))) {
            packet.release(); // the node is closing
        }
    }

    /**
     * Counts of the packets from the peer: {@code sent} received from a connection,
     * {@code delivered} handed to the device, {@code dropped} lost because the link was down.
     */
    public Link.LinkStats inboundStats() {
        return new Link.LinkStats(received.get(), deliveredIn.get(), droppedIn.get(), 0, 0, 0);
    }

    /** The connection carrying the peer's packets, or null. */
    Connection activeConnection() {
        return active;
    }

    @Override
    public boolean isRemoved() {
        return removed;
    }

    @Override
    public String toString() {
        return "TcpLink[" + node.name() + " -> " + address.getAddress().getHostAddress() + ":" + address.getPort()
                + (active != null ? ", connected" : "") + (up ? "" : ", down") + "]";
    }

    // ------------------------------------------------------------------ packets (event loop)

    /** Sends {@code p} to the peer. Runs on the device's executor (the event loop); takes ownership. */
    @Override
    public void transmit(Device from, Packet p) {
        if (p.isBurst()) {
            Connection c = active;
            if (c != null && carriesBursts()) {
                sent.addAndGet(p.burstPackets());
                transmitted = true;
                c.write(p);
                return;
            }
            // Something needs the packets one by one now (a rule, a trace, no connection): cut the run.
            while (p.isBurst()) {
                transmitOne(from, p.splitFirst());
            }
        }
        transmitOne(from, p);
    }

    private void transmitOne(Device from, Packet p) {
        sent.incrementAndGet();
        transmitted = true;
        node.fabricImpl()
                .tracer()
                .packet(
                        p.injected()
                                ? PacketEvent.INJECTED
                                : p.retransmission() ? PacketEvent.RETRANSMITTED : PacketEvent.SENT,
                        null,
                        from,
                        null,
                        p);
        if (!up || removed) {
            dropOutbound(p, removed ? DropReason.CLOSED : DropReason.LINK_DOWN);
            return;
        }
        Connection c = active;
        if (c != null) {
            c.write(p);
            return;
        }
        if (connecting == null) {
            if (backingOff && node.fabric().now() - retryNotBefore < 0) {
                dropOutbound(p, DropReason.LINK_DOWN);
                return;
            }
            backingOff = false;
            connecting = node.connect(this);
            if (connecting == null) {
                dropOutbound(p, DropReason.CLOSED);
                return;
            }
        }
        if (pending.size() >= node.config().pendingPacketLimit()) {
            dropOutbound(p, DropReason.LINK_DOWN);
            return;
        }
        pending.add(p);
    }

    /** A packet from the peer, checked by its connection. Event loop; takes ownership. */
    void receive(Packet p) {
        int packets = p.burstPackets();
        if (packets > 1) {
            node.count(TcpCounter.BURSTS_RECEIVED);
        }
        received.addAndGet(packets);
        node.counterSet().add(TcpCounter.PACKETS_RECEIVED, packets);
        DeviceImpl d = node.deviceImpl();
        if (!up) {
            while (p.isBurst()) {
                dropInbound(d, p.splitFirst());
            }
            dropInbound(d, p);
            return;
        }
        deliveredIn.addAndGet(packets);
        d.receive(p);
    }

    /** A packet from the peer lost because the link is down: counted, traced, released. Event loop. */
    private void dropInbound(DeviceImpl d, Packet p) {
        droppedIn.incrementAndGet();
        node.count(TcpCounter.PACKETS_DROPPED);
        node.fabricImpl().tracer().packet(PacketEvent.DROPPED, DropReason.LINK_DOWN, null, d, p);
        p.release();
    }

    /** Drops an outbound packet: counted, traced, released. Event loop. */
    void dropOutbound(Packet p, DropReason reason) {
        dropped.incrementAndGet();
        node.count(TcpCounter.PACKETS_DROPPED);
        node.fabricImpl().tracer().packet(PacketEvent.DROPPED, reason, node.device(), null, p);
        p.release();
    }

    /**
     * The fault decision for the next packet written, or null if no rule is set or the packet was
     * injected (crafted packets pass the rules by and are not counted). Event loop.
     */
    FaultInjector.Decision decide(Packet p) {
        if (p.injected()) {
            return null;
        }
        long index = faultIndex += p.burstPackets();
        if (faults.isEmpty()) {
            return null;
        }
        FaultInjector.Decision d = faults.decide(p, index, node.fabric().now(), random, decision);
        node.fabricImpl().tracer().faultRules(d, node.device(), null, p);
        return d;
    }

    SplittableRandom random() {
        return random;
    }

    void countWritten(int packets) {
        if (packets > 1) {
            node.count(TcpCounter.BURSTS_SENT);
        }
        written.addAndGet(packets);
        node.counterSet().add(TcpCounter.PACKETS_SENT, packets);
    }

    void countCorrupted(Packet p) {
        corrupted.incrementAndGet();
        node.fabricImpl().tracer().packet(PacketEvent.CORRUPTED, null, node.device(), null, p);
    }

    void countDuplicated(Packet copy) {
        duplicated.incrementAndGet();
        node.fabricImpl().tracer().packet(PacketEvent.DUPLICATED, null, node.device(), null, copy);
    }

    void countDelayed(Packet p) {
        delayed.incrementAndGet();
        node.fabricImpl().tracer().packet(PacketEvent.DELAYED, null, node.device(), null, p);
    }

    void countRewritten(Packet p) {
        rewritten.incrementAndGet();
        node.fabricImpl().tracer().packet(PacketEvent.REWRITTEN, null, node.device(), null, p);
    }

    void countHeld(Packet p) {
        held.incrementAndGet();
        node.fabricImpl().tracer().packet(PacketEvent.HELD, null, node.device(), null, p);
    }

    void traceReleased(Packet p) {
        node.fabricImpl().tracer().packet(PacketEvent.RELEASED, null, node.device(), null, p);
    }

    // ------------------------------------------------------------------ connections (event loop)

    /** A connection to the peer completed its handshake. */
    void established(Connection c) {
        if (removed) {
            c.close("node closed");
            return;
        }
        Connection old = active;
        if (old != null && old != c) {
            Connection keep = preferred(old, c);
            Connection lose = keep == old ? c : old;
            node.count(TcpCounter.DUPLICATE_CONNECTIONS_CLOSED);
            LOG.debug("{}: two connections with {}; keeping {}", node.name(), address, keep);
            node.event(new TcpEvent(TcpEvent.Type.DUPLICATE_CLOSED, peer, lose.remoteAddress(), "kept " + keep));
            if (keep == old) {
                if (connecting == c) {
                    connecting = null;
                }
                lose.closeAsDuplicate();
                return;
            }
            active = c;
            lose.closeAsDuplicate();
        } else {
            active = c;
        }
        if (connecting == c) {
            connecting = null;
        }
        backingOff = false;
        LOG.info(
                "{}: connected to {} ({}, {})",
                node.name(),
                c.peerName(),
                address,
                c.isOutbound() ? "outbound" : "inbound");
        node.event(new TcpEvent(
                TcpEvent.Type.CONNECTED, peer, c.remoteAddress(), c.isOutbound() ? "outbound" : "inbound"));
        Packet p;
        while ((p = pending.poll()) != null) {
            c.write(p);
        }
    }

    /**
     * Which of two connections with the peer both nodes keep: the one from a newer incarnation of
     * the peer; else the one opened by the node with the lower GID; else (both opened by the same
     * node, which gave up the first) the newer.
     */
    private Connection preferred(Connection old, Connection fresh) {
        if (old.peerIncarnation() != fresh.peerIncarnation()) {
            return fresh;
        }
        Gid oldOpener = old.isOutbound() ? node.gid() : peer;
        Gid freshOpener = fresh.isOutbound() ? node.gid() : peer;
        if (oldOpener.equals(freshOpener)) {
            return fresh;
        }
        return TcpNode.compare(oldOpener, freshOpener) < 0 ? old : fresh;
    }

    /**
     * A connection the peer opened to this plain node completed its handshake: it delivers the
     * peer's packets; this node's go over a connection it dials itself.
     */
    void inboundEstablished(Connection c) {
        if (removed) {
            c.close("node closed");
            return;
        }
        inbound.add(c);
        LOG.debug(
                "{}: {} connected in ({}; its packets arrive on it, ours go over a connection we dial)",
                node.name(),
                c.peerName(),
                address);
        node.event(new TcpEvent(TcpEvent.Type.CONNECTED, peer, c.remoteAddress(), "inbound, receive only"));
    }

    /** A connection with the peer closed (or failed to open). */
    void closed(Connection c) {
        inbound.remove(c);
        HandshakeFailure refusal = c.refusal();
        if (c.isOutbound() && connecting == c && refusal != null && refusal != HandshakeFailure.TIMEOUT) {
            String cause = "the node at " + address.getAddress().getHostAddress() + ":" + address.getPort()
                    + " refused the handshake: it " + refusal.cause() + " (" + refusal + ")";
            node.reportUnreachable(peer, cause);
        }
        if (active == c) {
            active = null;
            if (!c.isClosedHere()) {
                node.count(TcpCounter.CONNECTIONS_LOST);
            }
            LOG.info("{}: connection to {} closed: {}", node.name(), address, c.closeReason());
            node.event(new TcpEvent(TcpEvent.Type.DISCONNECTED, peer, c.remoteAddress(), c.closeReason()));
        }
        if (connecting == c) {
            connecting = null;
            if (active == null) {
                if (!c.isDeliberate()) {
                    backingOff = true;
                    retryNotBefore = node.fabric().now() + node.config().reconnectBackoffNanos();
                }
                dropPending(DropReason.LINK_DOWN);
            }
        }
    }

    private void dropPending(DropReason reason) {
        Packet p;
        while ((p = pending.poll()) != null) {
            dropOutbound(p, reason);
        }
    }

    /** The application asked for this link: the housekeeping never removes it. */
    void pin() {
        pinned = true;
    }

    /**
     * True if the housekeeping may remove this link: nobody asked for it, it has no connection,
     * no packet waiting and no fault rule, it is up, and either the peer only ever connected in
     * or it has been so for the idle timeout. Event loop.
     */
    boolean idleAndUnused(long now) {
        if (pinned
                || removed
                || !up
                || active != null
                || connecting != null
                || !inbound.isEmpty()
                || !pending.isEmpty()
                || !faults.isEmpty()) {
            unusedSinceNanos = 0;
            return false;
        }
        if (!transmitted) {
            return true;
        }
        if (unusedSinceNanos == 0) {
            unusedSinceNanos = now;
            return false;
        }
        return now - unusedSinceNanos >= node.config().idleTimeoutNanos();
    }

    /** The housekeeping removed the link: a route the device still holds looks the peer up again. */
    void remove() {
        removed = true;
    }

    /** The node closes: no more packets; close the connections. */
    void shutdown() {
        removed = true;
        for (Connection in : new ArrayList<>(inbound)) {
            in.close("node closed");
        }
        Connection c = active;
        if (c != null) {
            c.close("node closed");
        }
        if (connecting != null) {
            connecting.close("node closed");
        }
        dropPending(DropReason.CLOSED);
    }
}
