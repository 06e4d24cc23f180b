package io.simrdma.fabric.internal.device;

import io.netty.util.collection.IntObjectHashMap;
import io.simrdma.fabric.AddressHandle;
import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.CompletionChannel;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PortAttributes;
import io.simrdma.fabric.PortState;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QpType;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.SrqAttr;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.internal.CounterSet;
import io.simrdma.fabric.internal.cq.CompChannelImpl;
import io.simrdma.fabric.internal.cq.CqContext;
import io.simrdma.fabric.internal.cq.CqImpl;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.internal.mem.MemoryContext;
import io.simrdma.fabric.internal.mem.MemoryTable;
import io.simrdma.fabric.internal.mem.PdImpl;
import io.simrdma.fabric.internal.rc.RcContext;
import io.simrdma.fabric.internal.rc.RcQueuePair;
import io.simrdma.fabric.internal.rc.SrqImpl;
import io.simrdma.fabric.internal.ucud.AhImpl;
import io.simrdma.fabric.internal.ucud.UnreliableContext;
import io.simrdma.fabric.internal.ucud.UnreliableQueuePair;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Scheduler;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.PacketSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The implementation of {@link Device}: the device's identity and limits, its resource tables
 * (PDs, CQs, completion channels, QPs by number, SRQs; memory in a {@link MemoryTable}), its
 * asynchronous events and listeners, and its {@link Port}. It gives the layers below it the
 * services they name through {@link MemoryContext}, {@link CqContext}, {@link RcContext} and
 * {@link UnreliableContext}.
 *
 * <p>Thread safety: thread-safe. Creation and destruction run on the device's executor (the
 * tables are touched only there); posts and polls run on the caller's thread.
 */
public final class DeviceImpl implements Device, PacketSink, MemoryContext, CqContext, RcContext, UnreliableContext {

    private static final Logger LOG = LoggerFactory.getLogger(DeviceImpl.class);
    private static final int FIRST_QPN = 0x11;
    private static final int MAX_QPN = 0xFFFFFF;

    private final FabricImpl fabric;
    private final String name;
    private final long guid;
    private final DeviceAttributes attributes;
    private final DeviceProfile profile;
    private final int maxUnackedPsns;
    private final EngineExecutor executor;
    private final CounterSet counters = new CounterSet(null);
    private final MemoryTable memory;
    private final Port port;
    private final AsyncEventQueue asyncEvents;

    // ---- resource tables: engine thread
    private final IntObjectHashMap<RcQueuePair> qps = new IntObjectHashMap<>();
    /** UC and UD queue pairs; their numbers come from the same space as RC's. */
    private final IntObjectHashMap<UnreliableQueuePair> unreliableQps = new IntObjectHashMap<>();

    private final List<PdImpl> pds = new ArrayList<>();
    private final List<CqImpl> cqs = new ArrayList<>();
    private final List<CompChannelImpl> channels = new ArrayList<>();
    private final List<SrqImpl> srqs = new ArrayList<>();
    private int nextQpn = FIRST_QPN;
    private boolean qpnWrapped;
    private int nextPdHandle = 1;
    private int nextCqHandle = 1;
    private int nextSrqHandle = 1;

    private final List<QpStateListener> qpStateListeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> closeListeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    DeviceImpl(FabricImpl fabric, DeviceConfig config, long guid, EngineExecutor executor, int keySeed) {
        this.fabric = fabric;
        this.name = config.name();
        this.guid = guid;
        this.attributes = config.attributes(guid);
        this.profile = config.profile();
        this.maxUnackedPsns = config.maxUnackedPsns();
        this.executor = executor;
        this.memory = new MemoryTable(attributes, keySeed);
        this.port = new Port(this, fabric, config.gid() != null ? config.gid() : Gid.linkLocal(guid), config.maxMtu());
        this.asyncEvents = new AsyncEventQueue(this, fabric.scheduler(), fabric.tracer());
    }

    // ------------------------------------------------------------------ identity

    @Override
    public String name() {
        return name;
    }

    @Override
    public FabricImpl fabric() {
        return fabric;
    }

    @Override
    public Device device() {
        return this;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public Gid gid() {
        return port.gid();
    }

    @Override
    public DeviceAttributes query() {
        return attributes;
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    @Override
    public DeviceProfile profile() {
        return profile;
    }

    @Override
    public PortAttributes queryPort(int portNum) {
        if (portNum != 1) {
            throw VerbsException.invalid("device " + name + " has one port, numbered 1; asked for " + portNum);
        }
        return port.attributes();
    }

    @Override
    public EngineExecutor executor() {
        return executor;
    }

    @Override
    public Scheduler scheduler() {
        return fabric.scheduler();
    }

    @Override
    public CounterSet counters() {
        return counters;
    }

    @Override
    public MemoryTable memory() {
        return memory;
    }

    @Override
    public Mtu activeMtu() {
        return port.maxMtu();
    }

    @Override
    public int maxUnackedPsns() {
        return maxUnackedPsns;
    }

    // ------------------------------------------------------------------ creation (API)

    @Override
    public FabricObserver observer() {
        return fabric.observer();
    }

    /** Tells the fabric's observer, if any, that the application created {@code o}. Caller's thread. */
    private <T> T created(T o) {
        FabricObserver observer = fabric.observer();
        if (observer != null) {
            observer.created(o);
        }
        return o;
    }

    @Override
    public PdImpl allocPd() {
        checkOpen();
        return created(executor.call(() -> {
            if (pds.size() >= attributes.maxPd()) {
                throw new VerbsException(Errno.ENOMEM, "max_pd (" + attributes.maxPd() + ") reached");
            }
            PdImpl pd = new PdImpl(this, nextPdHandle++);
            pds.add(pd);
            return pd;
        }));
    }

    @Override
    public CompChannelImpl createCompletionChannel() {
        checkOpen();
        return created(executor.call(() -> {
            CompChannelImpl ch = new CompChannelImpl(this);
            channels.add(ch);
            return ch;
        }));
    }

    @Override
    public CqImpl createCq(int cqe) {
        return createCq(cqe, null, null);
    }

    @Override
    public CqImpl createCq(int cqe, CompletionChannel completionChannel, Object context) {
        return createCq(cqe, completionChannel, context, 0);
    }

    @Override
    public int numCompVectors() {
        return attributes.numCompVectors();
    }

    @Override
    public CqImpl createCq(int cqe, CompletionChannel completionChannel, Object context, int compVector) {
        CompChannelImpl channel = implOf(completionChannel, CompChannelImpl.class, "completion channel");
        checkOpen();
        VerbsException.checkRange("cqe", cqe, 1, attributes.maxCqe());
        // ibv_create_cq(3): comp_vector "must be at least zero and less than context->num_comp_vectors"
        // (ib_uverbs_create_cq: EINVAL otherwise).
        VerbsException.checkRange("comp_vector", compVector, 0, attributes.numCompVectors() - 1);
        if (channel != null && channel.device() != this) {
            throw VerbsException.invalid(
                    "completion channel belongs to device " + channel.device().name());
        }
        return created(executor.call(() -> {
            if (cqs.size() >= attributes.maxCq()) {
                throw new VerbsException(Errno.ENOMEM, "max_cq (" + attributes.maxCq() + ") reached");
            }
            if (channel != null) {
                channel.checkUsable();
                channel.cqCount++;
            }
            CqImpl cq = new CqImpl(this, nextCqHandle++, cqe, channel, context, compVector);
            cqs.add(cq);
            return cq;
        }));
    }

    // ------------------------------------------------------------------ creation (engine thread, from a PD)

    @Override
    public QueuePair createQp(PdImpl pd, QpInitAttr attr) {
        checkPd(pd);
        if (!profile.supports(attr.qpType())) {
            // siw_create_qp: a QP type the device lacks is EOPNOTSUPP.
            throw new VerbsException(
                    Errno.EOPNOTSUPP,
                    "device " + name + " (profile " + profile.name() + ") creates no " + attr.qpType()
                            + " queue pairs");
        }
        CqImpl scq = implOf(attr.sendCq(), CqImpl.class, "completion queue");
        CqImpl rcq = implOf(attr.recvCq(), CqImpl.class, "completion queue");
        if (scq == null || rcq == null) {
            throw VerbsException.invalid("a QP needs a send CQ and a receive CQ");
        }
        if (scq.device() != this || rcq.device() != this) {
            throw VerbsException.invalid("CQ of another device");
        }
        scq.checkUsable();
        rcq.checkUsable();
        SrqImpl srq = implOf(attr.srq(), SrqImpl.class, "shared receive queue");
        if (srq != null) {
            if (srq.pd().device() != this) {
                throw VerbsException.invalid("SRQ of another device");
            }
            srq.checkUsable();
        }
        QpCaps c = attr.caps();
        // ibv_create_qp(3): max_send_wr may be 0, a receive-only QP (every send post is then ENOMEM).
        VerbsException.checkRange("max_send_wr", c.maxSendWr(), 0, attributes.maxQpWr());
        if (srq == null) {
            VerbsException.checkRange("max_recv_wr", c.maxRecvWr(), 1, attributes.maxQpWr());
        }
        VerbsException.checkRange("max_send_sge", c.maxSendSge(), 0, attributes.maxSge());
        if (srq == null) {
            VerbsException.checkRange("max_recv_sge", c.maxRecvSge(), 0, attributes.maxSge());
        }
        VerbsException.checkRange("max_inline_data", c.maxInlineData(), 0, attributes.maxInlineData());
        if (qps.size() + unreliableQps.size() >= attributes.maxQp()) {
            throw new VerbsException(Errno.ENOMEM, "max_qp (" + attributes.maxQp() + ") reached");
        }
        if (attr.qpType() != QpType.RC) {
            if (srq != null && attr.qpType() != QpType.UD) {
                // ibv_create_qp(3) NOTES: only RC and UD QPs may be associated with an SRQ.
                throw VerbsException.invalid(
                        "ibv_create_qp(3): a " + attr.qpType() + " QP cannot take an SRQ (RC and UD only)");
            }
            int qpn = allocateQpn();
            UnreliableQueuePair uqp = new UnreliableQueuePair(this, pd, qpn, attr);
            unreliableQps.put(qpn, uqp);
            scq.boundQps++;
            rcq.boundQps++;
            if (srq != null) {
                srq.qpCount++;
            }
            pd.resources++;
            return uqp;
        }
        int qpn = allocateQpn();
        RcQueuePair qp = new RcQueuePair(this, pd, qpn, attr);
        qps.put(qpn, qp);
        scq.boundQps++;
        rcq.boundQps++;
        if (srq != null) {
            srq.qpCount++;
        }
        pd.resources++;
        return qp;
    }

    @Override
    public SrqImpl createSrq(PdImpl pd, SrqAttr attr, Object context) {
        checkPd(pd);
        VerbsException.checkRange("SRQ max_wr", attr.maxWr(), 1, attributes.maxSrqWr());
        VerbsException.checkRange("SRQ max_sge", attr.maxSge(), 0, attributes.maxSrqSge());
        if (srqs.size() >= attributes.maxSrq()) {
            throw new VerbsException(Errno.ENOMEM, "max_srq (" + attributes.maxSrq() + ") reached");
        }
        pd.resources++;
        SrqImpl srq = new SrqImpl(this, pd, nextSrqHandle++, attr.maxWr(), attr.maxSge(), context);
        srqs.add(srq);
        return srq;
    }

    /**
     * True if {@code qpn} names a queue pair this device has created at some point (it may have been
     * destroyed since): a packet for any other QP number cannot be a late packet, only garbage.
     * Engine thread.
     */
    public boolean qpnEverAllocated(int qpn) {
        if (qpn == GSI_QPN) {
            return true;
        }
        if (qpnWrapped) {
            return qpn >= FIRST_QPN && qpn <= MAX_QPN;
        }
        return qpn >= FIRST_QPN && qpn < nextQpn;
    }

    private int allocateQpn() {
        for (int tries = 0; tries < (1 << 24); tries++) {
            int qpn = nextQpn;
            if (nextQpn >= MAX_QPN) {
                qpnWrapped = true;
                nextQpn = FIRST_QPN;
            } else {
                nextQpn++;
            }
            if (!qps.containsKey(qpn) && !unreliableQps.containsKey(qpn)) {
                return qpn;
            }
        }
        throw new VerbsException(Errno.ENOMEM, "QP numbers exhausted");
    }

    /** The QP with number {@code qpn}, or null. Engine thread. */
    RcQueuePair qp(int qpn) {
        return qps.get(qpn);
    }

    /** The UC or UD QP with number {@code qpn}, or null. Engine thread. */
    UnreliableQueuePair unreliableQp(int qpn) {
        return unreliableQps.get(qpn);
    }

    @Override
    public AddressHandle createAh(PdImpl pd, AhAttr attr) {
        checkPd(pd);
        return AhImpl.create(pd, attr);
    }

    // ------------------------------------------------------------------ destruction (engine thread)

    @Override
    public void qpDestroyed(RcQueuePair qp) {
        qps.remove(qp.qpNum());
        qp.sendCq().boundQps--;
        qp.recvCq().boundQps--;
        if (qp.srq() != null) {
            qp.srq().qpCount--;
        }
        qp.pd().resources--;
        asyncEvents.discard(qp);
    }

    @Override
    public void qpDestroyed(UnreliableQueuePair qp) {
        unreliableQps.remove(qp.qpNum());
        qp.sendCq().boundQps--;
        qp.recvCq().boundQps--;
        if (qp.srq() != null) {
            qp.srq().qpCount--;
        }
        qp.pd().resources--;
        asyncEvents.discard(qp);
    }

    @Override
    public void srqDestroyed(SrqImpl srq) {
        srqs.remove(srq);
        srq.pd().resources--;
        asyncEvents.discard(srq);
    }

    @Override
    public void cqDestroyed(CqImpl cq) {
        cqs.remove(cq);
        if (cq.channel() != null) {
            cq.channel().cqCount--;
        }
        asyncEvents.discard(cq);
    }

    @Override
    public void channelDestroyed(CompChannelImpl ch) {
        channels.remove(ch);
    }

    @Override
    public void pdDeallocated(PdImpl pd) {
        pds.remove(pd);
    }

    /** {@code o} as this fabric's implementation {@code type}, null for null, or EINVAL. */
    private static <T> T implOf(Object o, Class<T> type, String what) {
        if (o != null && !type.isInstance(o)) {
            throw VerbsException.invalid("not a " + what + " of this fabric: " + o);
        }
        return type.cast(o);
    }

    private void checkPd(PdImpl pd) {
        if (pd.owner() != this) {
            throw VerbsException.invalid("protection domain of another device");
        }
        pd.checkUsable();
    }

    @Override
    public void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "device " + name + " is closed");
        }
    }

    // ------------------------------------------------------------------ async events and listeners

    @Override
    public AsyncEvent getAsyncEvent(long timeout, TimeUnit unit) {
        return asyncEvents.await(timeout, unit);
    }

    @Override
    public AsyncEvent pollAsyncEvent() {
        return asyncEvents.poll();
    }

    @Override
    public void ackAsyncEvent(AsyncEvent e) {
        asyncEvents.ack(e);
    }

    @Override
    public void raiseAsync(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq) {
        asyncEvents.raise(type, qp, cq, srq);
    }

    @Override
    public void addAsyncEventListener(Consumer<AsyncEvent> listener) {
        asyncEvents.addListener(listener);
    }

    @Override
    public void removeAsyncEventListener(Consumer<AsyncEvent> listener) {
        asyncEvents.removeListener(listener);
    }

    @Override
    public void addQpStateListener(QpStateListener listener) {
        qpStateListeners.add(listener);
    }

    @Override
    public void removeQpStateListener(QpStateListener listener) {
        qpStateListeners.remove(listener);
    }

    @Override
    public void traceCompletion(
            CompletionQueue cq, int qpNum, long wrId, WcStatus status, WcOpcode opcode, int byteLen) {
        fabric.tracer().completion(cq, qpNum, wrId, status, opcode, byteLen);
    }

    @Override
    public void qpStateChanged(RcQueuePair qp, QpState from, QpState to) {
        qpStateChanged((QueuePair) qp, from, to);
    }

    @Override
    public void qpStateChanged(QueuePair qp, QpState from, QpState to) {
        fabric.tracer().qpState(qp, from, to);
        for (QpStateListener l : qpStateListeners) {
            try {
                l.onStateChange(qp, from, to);
            } catch (RuntimeException ex) {
                LOG.error("{}: QP state listener failed", name, ex);
            }
        }
    }

    // ------------------------------------------------------------------ port

    @Override
    public PortState portState() {
        return port.state();
    }

    @Override
    public void setPortActive(boolean active) {
        executor.call(() -> {
            if (port.setState(active ? PortState.ACTIVE : PortState.DOWN)) {
                raiseAsync(active ? AsyncEventType.PORT_ACTIVE : AsyncEventType.PORT_ERR, null, null, null);
            }
            return null;
        });
    }

    @Override
    public void setMadHandler(MadHandler handler) {
        port.setMadHandler(handler);
    }

    @Override
    public void sendMad(Gid destination, int destQp, byte[] mad) {
        port.sendMad(destination, destQp, mad);
    }

    /**
     * A remote transport tells the device that {@code destination} refused it for good
     * ({@link MadHandler#onUnreachable}); the MAD handler (the connection manager) hears it on the
     * device's executor. Any thread.
     */
    public void reportUnreachable(Gid destination, String cause) {
        port.reportUnreachable(destination, cause);
    }

    @Override
    public void transmit(RcQueuePair qp, Packet p) {
        port.transmit(qp, p);
    }

    @Override
    public boolean carriesBursts(RcQueuePair qp) {
        return port.carriesBursts(qp);
    }

    @Override
    public PacketRoute route(Gid destination) {
        return fabric.route(this, destination);
    }

    @Override
    public void transmit(Packet p, Gid destination, PacketRoute route) {
        port.transmitUnreliable(p, destination, route);
    }

    @Override
    public void raiseAsync(AsyncEventType type, QueuePair qp) {
        asyncEvents.raise(type, qp, null, null);
    }

    /** A link delivers a packet to this device's port. Runs on this device's executor. */
    @Override
    public void receive(Packet p) {
        port.receive(p);
    }

    @Override
    public void drop(Packet p, DropReason reason, Counter counter) {
        port.drop(p, reason, counter);
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void close() {
        if (closed) {
            return;
        }
        executor.call(() -> {
            if (!pds.isEmpty() || !cqs.isEmpty() || !channels.isEmpty()) {
                throw VerbsException.busy("device " + name + " still has " + pds.size() + " PDs, " + cqs.size()
                        + " CQs and " + channels.size() + " completion channels");
            }
            closed = true;
            return null;
        });
        fabric.deviceClosed(this);
        for (Runnable l : closeListeners) {
            try {
                l.run();
            } catch (RuntimeException ex) {
                LOG.error("{}: close listener failed", name, ex);
            }
        }
    }

    @Override
    public void addCloseListener(Runnable listener) {
        closeListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /** Destroys everything this device holds, in dependency order; used when the fabric closes. */
    void forceClose() {
        if (closed) {
            return;
        }
        executor.call(() -> {
            List<RcQueuePair> all = new ArrayList<>(qps.values());
            all.sort((x, y) -> Integer.compare(x.qpNum(), y.qpNum()));
            for (RcQueuePair qp : all) {
                qp.forceDestroy();
            }
            List<UnreliableQueuePair> unreliable = new ArrayList<>(unreliableQps.values());
            unreliable.sort((x, y) -> Integer.compare(x.qpNum(), y.qpNum()));
            for (UnreliableQueuePair qp : unreliable) {
                qp.forceDestroy();
            }
            pds.clear();
            for (CqImpl cq : new ArrayList<>(cqs)) {
                cq.forceDestroy();
            }
            // Everything else goes too (Fabric.close): SRQs, windows, then regions.
            for (SrqImpl srq : srqs) {
                srq.forceDestroy();
            }
            srqs.clear();
            memory.destroyAll();
            for (CompChannelImpl ch : channels) {
                ch.forceDestroy();
            }
            channels.clear();
            closed = true;
            return null;
        });
    }

    @Override
    public String toString() {
        return "Device[" + name + ", " + gid() + "]";
    }
}
