package io.simrdma.fabric.internal.device;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PortAttributes;
import io.simrdma.fabric.PortState;
import io.simrdma.fabric.internal.CounterSet;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.internal.link.Tracer;
import io.simrdma.fabric.internal.rc.RcQueuePair;
import io.simrdma.fabric.internal.ucud.UnreliableQueuePair;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Task;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's one port: what leaves it (a QP's packets routed to their destination, management
 * datagrams from QP1) and what arrives (packets checked, traced, then handed to the QP they name:
 * requests to its responder, acknowledgements and responses to its completer; MADs to the
 * device's MAD handler; UC and UD packets to their queue pair). A port that is down drops
 * everything in both directions.
 *
 * <p>Thread safety: sending and receiving run on the device's executor; the port state may be
 * read from any thread.
 */
final class Port {

    private static final Logger LOG = LoggerFactory.getLogger(Port.class);

    private final DeviceImpl device;
    private final FabricImpl fabric;
    private final Tracer tracer;
    private final Gid gid;
    private final Mtu maxMtu;
    private final CounterSet counters;
    private final EngineExecutor executor;
    private volatile Device.MadHandler madHandler;
    private int madPsn;
    private volatile PortState state = PortState.ACTIVE;

    Port(DeviceImpl device, FabricImpl fabric, Gid gid, Mtu maxMtu) {
        this.device = device;
        this.fabric = fabric;
        this.tracer = fabric.tracer();
        this.gid = gid;
        this.maxMtu = maxMtu;
        this.counters = device.counters();
        this.executor = device.executor();
    }

    Gid gid() {
        return gid;
    }

    Mtu maxMtu() {
        return maxMtu;
    }

    PortState state() {
        return state;
    }

    /** The port's attributes (ibv_query_port(3)). */
    PortAttributes attributes() {
        return new PortAttributes(state, maxMtu, maxMtu, 1, Integer.MAX_VALUE, 1, "Ethernet");
    }

    /** Changes the port state; true if it changed. Engine thread. */
    boolean setState(PortState next) {
        if (state == next) {
            return false;
        }
        state = next;
        return true;
    }

    // ------------------------------------------------------------------ out

    /** Sends a packet of {@code qp} towards its destination. Engine thread; takes ownership. */
    void transmit(RcQueuePair qp, Packet p) {
        p.route(gid, qp.destGid());
        int packets = p.burstPackets();
        if (packets == 1) {
            qp.counters.increment(Counter.PACKETS_SENT);
        } else {
            qp.counters.add(Counter.PACKETS_SENT, packets);
        }
        qp.counters.add(Counter.BYTES_SENT, p.burstBytes());
        if (p.retransmission()) {
            qp.counters.add(Counter.RETRANSMITTED_PACKETS, packets);
        }
        if (state != PortState.ACTIVE) {
            dropUnsent(p, DropReason.PORT_DOWN);
            return;
        }
        PacketRoute link = route(qp);
        if (link == null) {
            dropUnsent(p, DropReason.NO_ROUTE);
            return;
        }
        link.transmit(device, p);
    }

    /** The route of {@code qp}'s packets, looked up again once the cached one is gone; null if none. */
    private PacketRoute route(RcQueuePair qp) {
        PacketRoute link = qp.route;
        if (link == null || link.isRemoved()) {
            link = fabric.route(device, qp.destGid());
            qp.route = link;
        }
        return link;
    }

    /**
     * True if a burst of {@code qp}'s packets sent now would travel as one unit (segmentation
     * offload: the port up, no fabric observer, and a route that carries bursts). Engine thread.
     */
    boolean carriesBursts(RcQueuePair qp) {
        if (state != PortState.ACTIVE || device.observer() != null) {
            return false;
        }
        PacketRoute link = route(qp);
        return link != null && link.carriesBursts();
    }

    /** A packet (each packet of a burst) that cannot leave the port: traced as sent, then as dropped, and released. */
    private void dropUnsent(Packet p, DropReason reason) {
        while (p.isBurst()) {
            dropUnsentOne(p.splitFirst(), reason);
        }
        dropUnsentOne(p, reason);
    }

    private void dropUnsentOne(Packet p, DropReason reason) {
        tracer.packet(p.retransmission() ? PacketEvent.RETRANSMITTED : PacketEvent.SENT, null, device, null, p);
        tracer.packet(PacketEvent.DROPPED, reason, device, null, p);
        p.release();
    }

    // ------------------------------------------------------------------ management datagrams

    void setMadHandler(Device.MadHandler handler) {
        synchronized (this) {
            if (handler != null && madHandler != null && madHandler != handler) {
                throw new IllegalStateException("device " + device.name() + " already has a MAD handler");
            }
            madHandler = handler;
        }
    }

    /** Sends a MAD from QP1 as a UD SEND Only with a DETH (IBA 13.4). Any thread; copies the bytes. */
    void sendMad(Gid destination, int destQp, byte[] mad) {
        if (mad.length != Device.MAD_SIZE) {
            throw new IllegalArgumentException("a MAD has " + Device.MAD_SIZE + " bytes, got " + mad.length);
        }
        ByteBuffer copy = ByteBuffer.wrap(mad.clone());
        executor.execute(new Task() {
            @Override
            public void run() {
                if (device.isClosed()) {
                    return;
                }
                Packet p = Packet.allocate(Opcode.UD_SEND_ONLY);
                p.destQp(destQp).pkey(RcQueuePair.DEFAULT_PKEY).psn(madPsn).deth(Device.GSI_QKEY, Device.GSI_QPN);
                madPsn = Psn.add(madPsn, 1);
                p.addSegment(copy, 0, Device.MAD_SIZE).updatePadCount();
                transmitUd(p, destination);
            }

            @Override
            public String toString() {
                return "send MAD from " + device.name();
            }
        });
    }

    /**
     * Sends a packet of a UC or UD queue pair to {@code destination} (the QP has counted it).
     * Engine thread; takes ownership.
     */
    void transmitUnreliable(Packet p, Gid destination, PacketRoute link) {
        p.route(gid, destination);
        if (state != PortState.ACTIVE) {
            dropUnsent(p, DropReason.PORT_DOWN);
            return;
        }
        if (link == null) {
            dropUnsent(p, DropReason.NO_ROUTE);
            return;
        }
        link.transmit(device, p);
    }

    /** Sends a UD packet to {@code destination}. Engine thread; takes ownership. */
    private void transmitUd(Packet p, Gid destination) {
        p.route(gid, destination);
        counters.increment(Counter.PACKETS_SENT);
        counters.add(Counter.BYTES_SENT, p.payloadLength());
        PacketRoute link = state == PortState.ACTIVE ? fabric.route(device, destination) : null;
        if (link == null) {
            dropUnsent(p, state == PortState.ACTIVE ? DropReason.NO_ROUTE : DropReason.PORT_DOWN);
            return;
        }
        link.transmit(device, p);
    }

    /** Tells the MAD handler that {@code destination} refused this device. Any thread. */
    void reportUnreachable(Gid destination, String cause) {
        executor.execute(new Task() {
            @Override
            public void run() {
                Device.MadHandler h = madHandler;
                if (h == null || device.isClosed()) {
                    return;
                }
                try {
                    h.onUnreachable(destination, cause);
                } catch (RuntimeException e) {
                    LOG.error("{}: MAD handler failed on an unreachable destination", device.name(), e);
                }
            }

            @Override
            public String toString() {
                return "unreachable " + destination + " on " + device.name();
            }
        });
    }

    private void receiveMad(Packet p) {
        Device.MadHandler h = madHandler;
        if (h == null
                || p.destQp() != Device.GSI_QPN
                || p.payloadLength() != Device.MAD_SIZE
                || p.dethQkey() != Device.GSI_QKEY) {
            drop(
                    p,
                    h == null ? DropReason.UNKNOWN_QP : DropReason.MALFORMED,
                    h == null ? Counter.DROPPED_PACKETS : Counter.INVALID_PACKETS);
            return;
        }
        byte[] mad = new byte[Device.MAD_SIZE];
        p.copyPayload(0, mad, 0, Device.MAD_SIZE);
        Gid source = p.sourceGid();
        int srcQp = p.dethSrcQp();
        p.release();
        try {
            h.onMad(source, srcQp, mad);
        } catch (RuntimeException e) {
            LOG.error("{}: MAD handler failed", device.name(), e);
        }
    }

    // ------------------------------------------------------------------ in

    /** A link delivers a packet to this port. Engine thread; takes ownership. */
    void receive(Packet p) {
        if (p.isBurst() && !receivesBurst(p)) {
            // Something needs the packets one by one (a trace listener attached while the burst
            // was on its way, a port that went down, a QP that is gone): take them one by one.
            while (p.isBurst()) {
                receiveOne(p.splitFirst());
            }
        }
        receiveOne(p);
    }

    /** True if {@code p}, a burst, can go to its QP as one unit. */
    private boolean receivesBurst(Packet p) {
        return !tracer.isActive()
                && !device.isClosed()
                && state == PortState.ACTIVE
                && p.icrcValid()
                && device.qp(p.destQp()) != null;
    }

    private void receiveOne(Packet p) {
        if (device.isClosed()) {
            tracer.packet(PacketEvent.DROPPED, DropReason.CLOSED, null, device, p);
            p.release();
            return;
        }
        if (state != PortState.ACTIVE) {
            drop(p, DropReason.PORT_DOWN, Counter.DROPPED_PACKETS);
            return;
        }
        if (!p.icrcValid()) {
            drop(p, DropReason.BAD_ICRC, Counter.INVALID_PACKETS);
            return;
        }
        tracer.packet(PacketEvent.DELIVERED, null, null, device, p);
        if (p.opcode().isUd() && p.destQp() == Device.GSI_QPN) {
            counters.increment(Counter.PACKETS_RECEIVED);
            counters.add(Counter.BYTES_RECEIVED, p.payloadLength());
            receiveMad(p);
            return;
        }
        RcQueuePair qp = device.qp(p.destQp());
        if (qp == null) {
            UnreliableQueuePair uqp = device.unreliableQp(p.destQp());
            if (uqp != null) {
                uqp.receive(p);
                return;
            }
            counters.increment(Counter.PACKETS_RECEIVED);
            drop(p, DropReason.UNKNOWN_QP, Counter.DROPPED_PACKETS);
            return;
        }
        int packets = p.burstPackets();
        if (packets == 1) {
            qp.counters.increment(Counter.PACKETS_RECEIVED);
        } else {
            qp.counters.add(Counter.PACKETS_RECEIVED, packets);
        }
        qp.counters.add(Counter.BYTES_RECEIVED, p.burstBytes());
        if (p.opcode().isRequest()) {
            qp.responder.enqueue(p);
        } else {
            qp.completer.enqueue(p);
        }
    }

    /** Drops a received packet: counts, traces and releases it. Engine thread. */
    void drop(Packet p, DropReason reason, Counter counter) {
        counters.increment(counter);
        tracer.packet(PacketEvent.DROPPED, reason, null, device, p);
        p.release();
    }
}
