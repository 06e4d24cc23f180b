package io.simrdma.fabric.internal.device;

import io.netty.util.collection.IntObjectHashMap;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.CompletionChannel;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.MwType;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PortAttributes;
import io.simrdma.fabric.PortState;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QpType;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.SrqAttr;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.internal.CounterSet;
import io.simrdma.fabric.internal.cq.CompChannelImpl;
import io.simrdma.fabric.internal.cq.CqImpl;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.internal.mem.KeyTable;
import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.internal.mem.MrImpl;
import io.simrdma.fabric.internal.mem.MwImpl;
import io.simrdma.fabric.internal.mem.PdImpl;
import io.simrdma.fabric.internal.rc.RcQueuePair;
import io.simrdma.fabric.internal.rc.SendWqe;
import io.simrdma.fabric.internal.rc.SrqImpl;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Task;
import io.simrdma.fabric.sched.WaitSignal;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.PacketSink;
import io.simrdma.fabric.wire.Psn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A simulated HCA with one port (an opened ibv_context): creates protection domains,
 * completion queues and channels, reports asynchronous events, and runs the RC transport of
 * its queue pairs on its own {@link EngineExecutor}.
 *
 * <p>Thread safety: thread-safe. Control operations (create, modify, destroy) run on the
 * device's executor; posts and polls run on the caller's thread.
 */
public final class DeviceImpl implements Device, PacketSink {

    private static final Logger LOG = LoggerFactory.getLogger(DeviceImpl.class);
    private static final long VA_BASE = 0x7f00_0000_0000L;
    private static final long PAGE = 4096;

    private final FabricImpl fabric;
    private final String name;
    private final long guid;
    private final Gid gid;
    private final DeviceAttributes attributes;
    private final Mtu maxMtu;
    private final int maxUnackedPsns;
    private final EngineExecutor executor;
    private final CounterSet counters = new CounterSet(null);
    public final KeyTable keys;

    // ---- engine-thread state
    private final IntObjectHashMap<RcQueuePair> qps = new IntObjectHashMap<>();
    private final List<PdImpl> pds = new ArrayList<>();
    private final List<CqImpl> cqs = new ArrayList<>();
    private final List<CompChannelImpl> channels = new ArrayList<>();
    private final List<SrqImpl> srqs = new ArrayList<>();
    private int nextQpn = 0x11;
    private boolean qpnWrapped;
    private int nextPdHandle = 1;
    private int nextCqHandle = 1;
    private long nextVa = VA_BASE;
    private int mrCount;
    private int mwCount;
    private int srqCount;
    private int srqHandle = 1;
    private volatile MadHandler madHandler;
    private int madPsn;
    private final List<java.util.function.Consumer<AsyncEvent>> asyncListeners = new CopyOnWriteArrayList<>();
    private final List<QpStateListener> qpStateListeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> closeListeners = new CopyOnWriteArrayList<>();

    // ---- async events: any thread
    private final ArrayDeque<AsyncEvent> asyncEvents = new ArrayDeque<>();
    private final WaitSignal asyncSignal;

    private volatile PortState portState = PortState.ACTIVE;
    private volatile boolean closed;

    DeviceImpl(FabricImpl fabric, DeviceConfig config, long guid, EngineExecutor executor, int keySeed) {
        this.fabric = fabric;
        this.name = config.name();
        this.guid = guid;
        this.gid = config.gid() != null ? config.gid() : Gid.linkLocal(guid);
        this.attributes = config.attributes(guid);
        this.maxMtu = config.maxMtu();
        this.maxUnackedPsns = config.maxUnackedPsns();
        this.executor = executor;
        this.keys = new KeyTable(keySeed);
        this.asyncSignal = fabric.scheduler().newSignal();
    }

    // ------------------------------------------------------------------ public API

    public String name() {
        return name;
    }

    public FabricImpl fabric() {
        return fabric;
    }

    /** Node GUID. */
    public long guid() {
        return guid;
    }

    /** The port's GID: the address other devices use to reach this one. */
    public Gid gid() {
        return gid;
    }

    /** The device's attributes and limits (ibv_query_device(3)). */
    public DeviceAttributes query() {
        return attributes;
    }

    public DeviceAttributes attributes() {
        return attributes;
    }

    /**
     * The port's attributes (ibv_query_port(3)).
     *
     * @throws VerbsException EINVAL for a port other than 1
     */
    public PortAttributes queryPort(int port) {
        if (port != 1) {
            throw VerbsException.invalid("device " + name + " has one port, numbered 1; asked for " + port);
        }
        return new PortAttributes(portState, maxMtu, maxMtu, 1, Integer.MAX_VALUE, 1, "Ethernet");
    }

    /** The executor running this device's engine work. */
    public EngineExecutor executor() {
        return executor;
    }

    /** DeviceImpl-wide counters (sums over its queue pairs, plus packets no QP received). */
    public CounterSet counters() {
        return counters;
    }

    /** Allocates a protection domain (ibv_alloc_pd(3)). ENOMEM beyond max_pd. */
    public PdImpl allocPd() {
        checkOpen();
        return executor.call(() -> {
            if (pds.size() >= attributes.maxPd()) {
                throw new VerbsException(Errno.ENOMEM, "max_pd (" + attributes.maxPd() + ") reached");
            }
            PdImpl pd = new PdImpl(this, nextPdHandle++);
            pds.add(pd);
            return pd;
        });
    }

    /** Creates a completion event channel (ibv_create_comp_channel(3)). */
    public CompChannelImpl createCompletionChannel() {
        checkOpen();
        return executor.call(() -> {
            CompChannelImpl ch = new CompChannelImpl(this);
            channels.add(ch);
            return ch;
        });
    }

    /** Creates a CQ of {@code cqe} entries without a channel (ibv_create_cq(3)). */
    public CqImpl createCq(int cqe) {
        return createCq(cqe, null, null);
    }

    /**
     * Creates a completion queue (ibv_create_cq(3)) of exactly {@code cqe} entries.
     *
     * @param channel where notifications go when requested (may be null)
     * @param context application object kept with the CQ (cq_context)
     * @throws VerbsException EINVAL if {@code cqe} is not in 1..max_cqe; ENOMEM beyond max_cq
     */
    public CqImpl createCq(int cqe, CompletionChannel completionChannel, Object context) {
        CompChannelImpl channel = channel(completionChannel);
        checkOpen();
        VerbsException.checkRange("cqe", cqe, 1, attributes.maxCqe());
        if (channel != null && channel.device() != this) {
            throw VerbsException.invalid("completion channel belongs to device " + channel.device().name());
        }
        return executor.call(() -> {
            if (cqs.size() >= attributes.maxCq()) {
                throw new VerbsException(Errno.ENOMEM, "max_cq (" + attributes.maxCq() + ") reached");
            }
            if (channel != null) {
                channel.checkUsable();
                channel.cqCount++;
            }
            CqImpl cq = new CqImpl(this, nextCqHandle++, cqe, channel, context);
            cqs.add(cq);
            return cq;
        });
    }

    /**
     * Waits for the next asynchronous event (ibv_get_async_event(3)) for at most {@code timeout}.
     *
     * @return the event, or null if none arrived in time
     */
    public AsyncEvent getAsyncEvent(long timeout, TimeUnit unit) {
        boolean got = asyncSignal.await(this::hasAsyncEvent, unit.toNanos(timeout));
        return got ? pollAsyncEvent() : null;
    }

    /** The next asynchronous event, or null if none is queued; never blocks. */
    public AsyncEvent pollAsyncEvent() {
        AsyncEvent e;
        synchronized (asyncEvents) {
            e = asyncEvents.poll();
        }
        if (e != null) {
            switch (e.type().element()) {
                case QP:
                    ((RcQueuePair) e.qp()).asyncRetrieved.incrementAndGet();
                    break;
                case CQ:
                    ((CqImpl) e.cq()).asyncRetrieved.incrementAndGet();
                    break;
                case SRQ:
                    ((SrqImpl) e.srq()).asyncRetrieved.incrementAndGet();
                    break;
                default:
                    break;
            }
        }
        return e;
    }

    private boolean hasAsyncEvent() {
        synchronized (asyncEvents) {
            return !asyncEvents.isEmpty();
        }
    }

    /**
     * Acknowledges an event returned by {@link #getAsyncEvent} (ibv_ack_async_event(3)). An
     * object with retrieved, unacknowledged events cannot be destroyed.
     */
    public void ackAsyncEvent(AsyncEvent e) {
        switch (e.type().element()) {
            case QP:
                ((RcQueuePair) e.qp()).asyncRetrieved.decrementAndGet();
                break;
            case CQ:
                ((CqImpl) e.cq()).asyncRetrieved.decrementAndGet();
                break;
            case SRQ:
                ((SrqImpl) e.srq()).asyncRetrieved.decrementAndGet();
                break;
            default:
                break;
        }
    }

    /** Current logical state of the port. */
    public PortState portState() {
        return portState;
    }

    /**
     * Takes the port down or brings it up (a cable pulled or plugged back): a down port drops
     * every packet in and out; PORT_ERR or PORT_ACTIVE is raised.
     */
    public void setPortActive(boolean active) {
        executor.call(() -> {
            PortState next = active ? PortState.ACTIVE : PortState.DOWN;
            if (portState != next) {
                portState = next;
                raiseAsync(active ? AsyncEventType.PORT_ACTIVE : AsyncEventType.PORT_ERR, null, null, null);
            }
            return null;
        });
    }

    /**
     * Closes the device (ibv_close_device(3)).
     *
     * @throws VerbsException EBUSY while PDs, CQs or completion channels of it exist
     */
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

    /**
     * Runs {@code listener} on the closing thread once {@link #close()} has closed the device (not
     * when the fabric closes it): how the connection manager learns that a device was removed
     * (RDMA_CM_EVENT_DEVICE_REMOVAL, rdma_get_cm_event(3)). Listeners must not block.
     */
    public void addCloseListener(Runnable listener) {
        closeListeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** True once closed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "DeviceImpl[" + name + ", " + gid + "]";
    }

    // ------------------------------------------------------------------ object creation (engine thread)

    public MrImpl createMr(PdImpl pd, java.nio.ByteBuffer view, long iova, int length, int access) {
        checkPd(pd);
        if (mrCount >= attributes.maxMr()) {
            throw new VerbsException(Errno.ENOMEM, "max_mr (" + attributes.maxMr() + ") reached");
        }
        long base = iova;
        if (base < 0) {
            base = nextVa;
            nextVa += ((length + PAGE - 1) / PAGE + 1) * PAGE;
        }
        int key = keys.reserve();
        MrImpl mr = new MrImpl(pd, view, base, length, access, key);
        keys.install(key, mr);
        mrCount++;
        pd.resources++;
        return mr;
    }

    public void destroyMr(MrImpl mr) {
        if (!mr.valid) {
            throw VerbsException.invalid("memory region already deregistered");
        }
        // ibv_dereg_mr(3): fails while a memory window is bound to the region.
        if (mr.boundWindows > 0) {
            throw VerbsException.busy(mr.boundWindows + " memory window(s) still bound to " + mr);
        }
        mr.valid = false;
        keys.release(mr.lkey());
        mrCount--;
        mr.pd().resources--;
    }

    public MwImpl createMw(PdImpl pd, MwType type) {
        checkPd(pd);
        if (mwCount >= attributes.maxMw()) {
            throw new VerbsException(Errno.ENOMEM, "max_mw (" + attributes.maxMw() + ") reached");
        }
        int key = keys.reserve();
        MwImpl mw = new MwImpl(pd, type, key);
        keys.install(key, mw);
        mwCount++;
        pd.resources++;
        return mw;
    }

    public void destroyMw(MwImpl mw) {
        if (mw.deallocated) {
            throw VerbsException.invalid("memory window already deallocated");
        }
        if (mw.bound) {
            unbindWindow(mw);
        }
        mw.deallocated = true;
        keys.release(mw.activeRkey);
        mwCount--;
        mw.pd().resources--;
    }

    void unbindWindow(MwImpl mw) {
        if (mw.boundQp != null) {
            mw.boundQp.boundWindows--;
        }
        mw.bound = false;
        mw.mr.boundWindows--;
        mw.mr = null;
        mw.boundQp = null;
        mw.addr = 0;
        mw.length = 0;
        mw.access = 0;
    }

    public RcQueuePair createQp(PdImpl pd, QpInitAttr attr) {
        checkPd(pd);
        if (attr.qpType() != QpType.RC) {
            throw VerbsException.invalid("only RC queue pairs are supported");
        }
        CqImpl scq = cq(attr.sendCq());
        CqImpl rcq = cq(attr.recvCq());
        if (scq == null || rcq == null) {
            throw VerbsException.invalid("a QP needs a send CQ and a receive CQ");
        }
        if (scq.device() != this || rcq.device() != this) {
            throw VerbsException.invalid("CQ of another device");
        }
        scq.checkUsable();
        rcq.checkUsable();
        SrqImpl srq = srq(attr.srq());
        if (srq != null) {
            if (srq.pd().device() != this) {
                throw VerbsException.invalid("SRQ of another device");
            }
            srq.checkUsable();
        }
        QpCaps c = attr.caps();
        VerbsException.checkRange("max_send_wr", c.maxSendWr(), 1, attributes.maxQpWr());
        if (srq == null) {
            VerbsException.checkRange("max_recv_wr", c.maxRecvWr(), 1, attributes.maxQpWr());
        }
        VerbsException.checkRange("max_send_sge", c.maxSendSge(), 0, attributes.maxSge());
        if (srq == null) {
            VerbsException.checkRange("max_recv_sge", c.maxRecvSge(), 0, attributes.maxSge());
        }
        VerbsException.checkRange("max_inline_data", c.maxInlineData(), 0, attributes.maxInlineData());
        if (qps.size() >= attributes.maxQp()) {
            throw new VerbsException(Errno.ENOMEM, "max_qp (" + attributes.maxQp() + ") reached");
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
            return qpn >= 0x11 && qpn <= 0xFFFFFF;
        }
        return qpn >= 0x11 && qpn < nextQpn;
    }

    private int allocateQpn() {
        for (int tries = 0; tries < (1 << 24); tries++) {
            int qpn = nextQpn;
            if (nextQpn >= 0xFFFFFF) {
                qpnWrapped = true;
                nextQpn = 0x11;
            } else {
                nextQpn++;
            }
            if (!qps.containsKey(qpn)) {
                return qpn;
            }
        }
        throw new VerbsException(Errno.ENOMEM, "QP numbers exhausted");
    }

    public void destroyQp(RcQueuePair qp) {
        qps.remove(qp.qpNum());
        qp.sendCq().boundQps--;
        qp.recvCq().boundQps--;
        if (qp.srq() != null) {
            qp.srq().qpCount--;
        }
        qp.pd().resources--;
        discardAsyncEvents(qp);
    }

    public SrqImpl createSrq(PdImpl pd, SrqAttr attr, Object context) {
        checkPd(pd);
        VerbsException.checkRange("SRQ max_wr", attr.maxWr(), 1, attributes.maxSrqWr());
        VerbsException.checkRange("SRQ max_sge", attr.maxSge(), 0, attributes.maxSrqSge());
        if (srqCount >= attributes.maxSrq()) {
            throw new VerbsException(Errno.ENOMEM, "max_srq (" + attributes.maxSrq() + ") reached");
        }
        srqCount++;
        pd.resources++;
        SrqImpl srq = new SrqImpl(pd, srqHandle++, attr.maxWr(), attr.maxSge(), context);
        srqs.add(srq);
        return srq;
    }

    public void srqDestroyed(SrqImpl srq) {
        srqs.remove(srq);
        srqCount--;
        srq.pd().resources--;
        discardAsyncEvents(srq);
    }

    public void cqDestroyed(CqImpl cq) {
        cqs.remove(cq);
        if (cq.channel() != null) {
            cq.channel().cqCount--;
        }
        discardAsyncEvents(cq);
    }

    public void channelDestroyed(CompChannelImpl ch) {
        channels.remove(ch);
    }

    public void pdDeallocated(PdImpl pd) {
        pds.remove(pd);
    }

    /** The CQ as this device's implementation, or EINVAL. */
    private CqImpl cq(CompletionQueue cq) {
        if (cq != null && !(cq instanceof CqImpl)) {
            throw VerbsException.invalid("not a completion queue of this fabric: " + cq);
        }
        return (CqImpl) cq;
    }

    /** The channel as this device's implementation, or EINVAL. */
    private static CompChannelImpl channel(CompletionChannel ch) {
        if (ch != null && !(ch instanceof CompChannelImpl)) {
            throw VerbsException.invalid("not a completion channel of this fabric: " + ch);
        }
        return (CompChannelImpl) ch;
    }

    /** The SRQ as this device's implementation, or EINVAL. */
    private SrqImpl srq(SharedReceiveQueue srq) {
        if (srq != null && !(srq instanceof SrqImpl)) {
            throw VerbsException.invalid("not a shared receive queue of this fabric: " + srq);
        }
        return (SrqImpl) srq;
    }

    private void checkPd(PdImpl pd) {
        if (pd.device() != this) {
            throw VerbsException.invalid("protection domain of another device");
        }
        pd.checkUsable();
    }

    public void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.ENODEV, "device " + name + " is closed");
        }
    }

    // ------------------------------------------------------------------ local operations (engine thread)

    /**
     * Executes a LOCAL_INV or BIND_MW work request when the requester reaches it.
     *
     * @return SUCCESS, or MW_BIND_ERR ("memory management operation error") when the rules of
     *         ibv_bind_mw(3) / ibv_alloc_mw(3) / IBA 10.6.7 are broken
     */
    public WcStatus executeLocal(RcQueuePair qp, SendWqe w) {
        if (w.opcode == WrOpcode.LOCAL_INV) {
            return invalidateWindow(qp, w.invRkey) ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR;
        }
        return bind(qp, w);
    }

    private WcStatus bind(RcQueuePair qp, SendWqe w) {
        MwImpl mw = w.mw;
        MrImpl mr = w.bindMr;
        if (mw.deallocated || mw.pd() != qp.pd() || mw.pd().device() != this) {
            return WcStatus.MW_BIND_ERR;
        }
        if (mw.type() == MwType.TYPE_1 && w.bindLength == 0) {
            // ibv_alloc_mw(3): a zero-length bind invalidates a type 1 window.
            if (mw.bound) {
                unbindWindow(mw);
            }
            return WcStatus.SUCCESS;
        }
        if (mw.type() == MwType.TYPE_2) {
            if (mw.bound) {
                // A type 2 window must be invalidated before it is bound again.
                return WcStatus.MW_BIND_ERR;
            }
            if (w.bindLength == 0 || mr == null) {
                // IBA o10-37.2.40 (rxe_check_bind_mw): a type 2 window is unbound by LOCAL_INV or
                // SEND_WITH_INV, never by a zero-length bind.
                return WcStatus.MW_BIND_ERR;
            }
            if ((w.bindRkey & 0xFFFFFF00) != (mw.activeRkey & 0xFFFFFF00)) {
                // The new R_Key may change only its low 8 bits (ibv_inc_rkey(3)).
                return WcStatus.MW_BIND_ERR;
            }
        }
        // IBA o10-36.2.2: only type 2 windows may be zero based.
        int allowed = AccessFlag.REMOTE_READ.bit() | AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit()
                | (mw.type() == MwType.TYPE_2 ? AccessFlag.ZERO_BASED.bit() : 0);
        if ((w.bindAccess & ~allowed) != 0) {
            return WcStatus.MW_BIND_ERR;
        }
        if (!mr.valid || mr.pd() != qp.pd() || (mr.accessMask() & AccessFlag.MW_BIND.bit()) == 0) {
            return WcStatus.MW_BIND_ERR;
        }
        // ibv_bind_mw(3): remote write and atomic access through a window need local write on the region.
        if ((w.bindAccess & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0
                && (mr.accessMask() & AccessFlag.LOCAL_WRITE.bit()) == 0) {
            return WcStatus.MW_BIND_ERR;
        }
        if (w.bindLength < 0 || !MemoryAccess.inRange(mr.address(), mr.length(), w.bindAddr, w.bindLength)) {
            return WcStatus.MW_BIND_ERR;
        }
        if (mw.bound) {
            unbindWindow(mw);
        }
        mw.bound = true;
        mw.mr = mr;
        mr.boundWindows++;
        mw.addr = w.bindAddr;
        mw.length = w.bindLength;
        mw.access = w.bindAccess;
        mw.boundQp = mw.type() == MwType.TYPE_2 ? qp : null;
        if (mw.boundQp != null) {
            qp.boundWindows++;
        }
        mw.activeRkey = w.bindRkey;
        mw.rkey(w.bindRkey);
        return WcStatus.SUCCESS;
    }

    /**
     * Invalidates the window whose R_Key a LOCAL_INV (IBA 10.6.7.2.5) or a SEND_WITH_INV
     * (IBA 10.6.7.2.6) names: it must be a bound type 2 window of {@code qp} (a type 2B window is
     * invalidated through the QP it is bound to).
     *
     * @return false, leaving everything as it was, if it is not
     */
    public boolean invalidateWindow(RcQueuePair qp, int rkey) {
        Object o = keys.lookup(rkey);
        if (!(o instanceof MwImpl)) {
            // Only type 2 windows can be invalidated; regions are not fast-registered here.
            return false;
        }
        MwImpl mw = (MwImpl) o;
        if (mw.type() != MwType.TYPE_2 || mw.activeRkey != rkey || !mw.bound || mw.deallocated
                || mw.pd() != qp.pd() || mw.boundQp != qp) {
            return false;
        }
        unbindWindow(mw);
        return true;
    }

    // ------------------------------------------------------------------ async events

    /** Queues an async event and wakes waiters. Any thread. */
    public void raiseAsync(AsyncEventType type, RcQueuePair qp, CqImpl cq, SrqImpl srq) {
        AsyncEvent e = new AsyncEvent(type, qp, cq, srq, type.element() == AsyncEventType.Element.PORT ? 1 : 0,
                fabric.scheduler().nanoTime());
        synchronized (asyncEvents) {
            asyncEvents.add(e);
        }
        LOG.debug("{}: async event {}", name, e);
        for (java.util.function.Consumer<AsyncEvent> l : asyncListeners) {
            try {
                l.accept(e);
            } catch (RuntimeException ex) {
                LOG.error("{}: async event listener failed", name, ex);
            }
        }
        fabric.traceAsync(this, e);
        asyncSignal.signalAll();
    }

    /** Removes queued (not yet retrieved) events of an object being destroyed, as the kernel does. */
    private void discardAsyncEvents(Object element) {
        synchronized (asyncEvents) {
            Iterator<AsyncEvent> it = asyncEvents.iterator();
            while (it.hasNext()) {
                AsyncEvent e = it.next();
                if (e.qp() == element || e.cq() == element || e.srq() == element) {
                    it.remove();
                }
            }
        }
    }

    // ------------------------------------------------------------------ packets

    public int maxUnackedPsns() {
        return maxUnackedPsns;
    }

    public Mtu activeMtu() {
        return maxMtu;
    }

    /** Sends a packet of {@code qp} towards its destination. Engine thread; takes ownership. */
    public void transmit(RcQueuePair qp, Packet p) {
        p.route(gid, qp.destGid());
        qp.counters.increment(Counter.PACKETS_SENT);
        qp.counters.add(Counter.BYTES_SENT, p.payloadLength());
        if (p.retransmission()) {
            qp.counters.increment(Counter.RETRANSMITTED_PACKETS);
        }
        if (portState != PortState.ACTIVE) {
            dropUnsent(p, DropReason.PORT_DOWN);
            return;
        }
        PacketRoute link = qp.route;
        if (link == null || link.isRemoved()) {
            link = fabric.route(this, qp.destGid());
            qp.route = link;
        }
        if (link == null) {
            dropUnsent(p, DropReason.NO_ROUTE);
            return;
        }
        link.transmit(this, p);
    }

    /** A packet that cannot leave the port: traced as sent, then as dropped, and released. */
    private void dropUnsent(Packet p, DropReason reason) {
        fabric.tracePacket(p.retransmission() ? PacketEvent.RETRANSMITTED : PacketEvent.SENT, null, this, null, p);
        fabric.tracePacket(PacketEvent.DROPPED, reason, this, null, p);
        p.release();
    }



    /**
     * Installs the handler for QP1 management datagrams (one per device: the connection manager
     * claims it).
     *
     * @throws IllegalStateException if another handler is installed
     */
    public void setMadHandler(MadHandler handler) {
        synchronized (this) {
            if (handler != null && madHandler != null && madHandler != handler) {
                throw new IllegalStateException("device " + name + " already has a MAD handler");
            }
            madHandler = handler;
        }
    }

    /**
     * Sends a 256-byte management datagram from QP1 to QP {@code destQp} of the port owning
     * {@code destination}, as a UD SEND Only with a DETH (IBA 13.4), over the same links as data,
     * so it can be lost, delayed, duplicated and traced. May be called from any thread; the bytes
     * are copied.
     */
    public void sendMad(Gid destination, int destQp, byte[] mad) {
        if (mad.length != MAD_SIZE) {
            throw new IllegalArgumentException("a MAD has " + MAD_SIZE + " bytes, got " + mad.length);
        }
        java.nio.ByteBuffer copy = java.nio.ByteBuffer.wrap(mad.clone());
        executor.execute(new io.simrdma.fabric.sched.Task() {
            @Override
            public void run() {
                if (closed) {
                    return;
                }
                Packet p = Packet.allocate(io.simrdma.fabric.wire.Opcode.UD_SEND_ONLY);
                p.destQp(destQp).pkey(RcQueuePair.DEFAULT_PKEY).psn(madPsn).deth(GSI_QKEY, GSI_QPN);
                madPsn = io.simrdma.fabric.wire.Psn.add(madPsn, 1);
                p.addSegment(copy, 0, MAD_SIZE).updatePadCount();
                transmitUd(p, destination);
            }

            @Override
            public String toString() {
                return "send MAD from " + name;
            }
        });
    }

    /** Sends a UD packet to {@code destination}. Engine thread; takes ownership. */
    private void transmitUd(Packet p, Gid destination) {
        p.route(gid, destination);
        counters.increment(Counter.PACKETS_SENT);
        counters.add(Counter.BYTES_SENT, p.payloadLength());
        PacketRoute link = portState == PortState.ACTIVE ? fabric.route(this, destination) : null;
        if (link == null) {
            dropUnsent(p, portState == PortState.ACTIVE ? DropReason.NO_ROUTE : DropReason.PORT_DOWN);
            return;
        }
        link.transmit(this, p);
    }

    private void receiveMad(Packet p) {
        MadHandler h = madHandler;
        if (h == null || p.destQp() != GSI_QPN || p.payloadLength() != MAD_SIZE || p.dethQkey() != GSI_QKEY) {
            drop(p, h == null ? DropReason.UNKNOWN_QP : DropReason.MALFORMED,
                    h == null ? Counter.DROPPED_PACKETS : Counter.INVALID_PACKETS);
            return;
        }
        byte[] mad = new byte[MAD_SIZE];
        p.copyPayload(0, mad, 0, MAD_SIZE);
        Gid source = p.sourceGid();
        int srcQp = p.dethSrcQp();
        p.release();
        try {
            h.onMad(source, srcQp, mad);
        } catch (RuntimeException e) {
            LOG.error("{}: MAD handler failed", name, e);
        }
    }


    /**
     * Observes every state change of this device's queue pairs (by modify calls or by the engine
     * on an error), on the engine thread: how the connection manager learns that a connected QP
     * failed. Listeners must not block.
     */
    public void addQpStateListener(QpStateListener listener) {
        qpStateListeners.add(listener);
    }

    /** Removes a listener added with {@link #addQpStateListener}. */
    public void removeQpStateListener(QpStateListener listener) {
        qpStateListeners.remove(listener);
    }

    /** Removes a listener added with {@link #addAsyncEventListener}. */
    public void removeAsyncEventListener(java.util.function.Consumer<AsyncEvent> listener) {
        asyncListeners.remove(listener);
    }

    public void qpStateChanged(RcQueuePair qp, QpState from, QpState to) {
        for (QpStateListener l : qpStateListeners) {
            try {
                l.onStateChange(qp, from, to);
            } catch (RuntimeException ex) {
                LOG.error("{}: QP state listener failed", name, ex);
            }
        }
    }

    /**
     * Observes every asynchronous event this device raises, on the engine thread, before it is
     * queued for {@link #getAsyncEvent}: how the connection manager learns of COMM_EST on its
     * queue pairs. Listeners must not block.
     */
    public void addAsyncEventListener(java.util.function.Consumer<AsyncEvent> listener) {
        asyncListeners.add(listener);
    }

    /**
     * A link delivers a packet to this device's port. Runs on this device's executor.
     */
    @Override
    public void receive(Packet p) {
        if (closed) {
            fabric.tracePacket(PacketEvent.DROPPED, DropReason.CLOSED, null, this, p);
            p.release();
            return;
        }
        if (portState != PortState.ACTIVE) {
            drop(p, DropReason.PORT_DOWN, Counter.DROPPED_PACKETS);
            return;
        }
        if (!p.icrcValid()) {
            drop(p, DropReason.BAD_ICRC, Counter.INVALID_PACKETS);
            return;
        }
        fabric.tracePacket(PacketEvent.DELIVERED, null, null, this, p);
        if (p.opcode().isUd()) {
            counters.increment(Counter.PACKETS_RECEIVED);
            counters.add(Counter.BYTES_RECEIVED, p.payloadLength());
            receiveMad(p);
            return;
        }
        RcQueuePair qp = qps.get(p.destQp());
        if (qp == null) {
            counters.increment(Counter.PACKETS_RECEIVED);
            drop(p, DropReason.UNKNOWN_QP, Counter.DROPPED_PACKETS);
            return;
        }
        qp.counters.increment(Counter.PACKETS_RECEIVED);
        qp.counters.add(Counter.BYTES_RECEIVED, p.payloadLength());
        if (p.opcode().isRequest()) {
            qp.responder.enqueue(p);
        } else {
            qp.completer.enqueue(p);
        }
    }

    public void drop(Packet p, DropReason reason, Counter counter) {
        counters.increment(counter);
        fabric.tracePacket(PacketEvent.DROPPED, reason, null, this, p);
        p.release();
    }

    // ------------------------------------------------------------------ teardown

    /** Destroys everything this device holds, in dependency order; used when the fabric closes. */
    void forceClose() {
        if (closed) {
            return;
        }
        executor.call(() -> {
            for (RcQueuePair qp : qpsSorted()) {
                qp.forceDestroy();
            }
            pds.clear();
            for (CqImpl cq : new ArrayList<>(cqs)) {
                cq.forceDestroy();
            }
            // Everything else goes too (FabricImpl.close): SRQs, windows, then regions.
            for (SrqImpl srq : srqs) {
                srq.forceDestroy();
            }
            srqs.clear();
            List<Object> keyOwners = keys.owners();
            for (Object o : keyOwners) {
                if (o instanceof MwImpl && !((MwImpl) o).deallocated) {
                    destroyMw((MwImpl) o);
                }
            }
            for (Object o : keyOwners) {
                if (o instanceof MrImpl && ((MrImpl) o).valid) {
                    destroyMr((MrImpl) o);
                }
            }
            for (CompChannelImpl ch : channels) {
                ch.forceDestroy();
            }
            channels.clear();
            closed = true;
            return null;
        });
    }

    private List<RcQueuePair> qpsSorted() {
        List<RcQueuePair> l = new ArrayList<>(qps.values());
        l.sort((x, y) -> Integer.compare(x.qpNum(), y.qpNum()));
        return l;
    }

    /** The QP with number {@code qpn}, or null. Engine thread. */
    RcQueuePair qp(int qpn) {
        return qps.get(qpn);
    }
}
