package io.simrdma.fabric.cm;

import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.sched.WaitSignal;
import io.simrdma.fabric.wire.Gid;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A communication identifier (struct rdma_cm_id): the RDMA analogue of a socket. It binds to an
 * address and port, resolves a destination, listens, connects, accepts, rejects and disconnects,
 * and owns at most one queue pair, which the connection manager moves through INIT, RTR and RTS
 * with the parameters negotiated by the IB CM exchange (REQ, REP, RTU).
 *
 * <p>An id created without an event channel is synchronous (rdma_create_id(3)): every call that
 * produces an event blocks until the event arrives and {@link #event()} returns it; a failure
 * event becomes a {@link CmException}. With a channel, calls return at once and the events are
 * read from the channel.
 *
 * <p>Addresses are socket addresses whose IP is a port GID (RoCE: a GID is an IPv6 address);
 * {@link RdmaCm#addressOf} builds one for a device.
 *
 * <p>The id is the API object: it checks each call against the rdma_cm state and hands the work
 * on. Its IB CM connection ({@link Connection}) is driven by the device's {@link CmAgent} and
 * {@link ConnectionMachine}; its events go through {@link EventDelivery}; a listener's requests
 * wait in its {@link ListenQueue}; its queue pair sits in a {@link QpSlot}.
 *
 * <p>Thread safety: thread-safe. Calls run their protocol work on the bound device's executor.
 */
public final class CmId {

    /** rdma_cm level states of an id. */
    public enum State {
        IDLE,
        ADDR_BOUND,
        ADDR_QUERY,
        ADDR_RESOLVED,
        ROUTE_QUERY,
        ROUTE_RESOLVED,
        LISTEN,
        CONNECT,
        ESTABLISHED,
        DISCONNECT,
        DEVICE_REMOVAL,
        DESTROYED
    }

    /**
     * Private data limits of rdma_connect(3), rdma_accept(3) and rdma_reject(3): the IB CM fields
     * (REQ 92, REP 196, REJ 148 bytes), minus the 36-byte RDMA CM header on a RDMA_PS_TCP connect.
     */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Connect private data limit in the RDMA_PS_IB port space, which carries no RDMA CM header. */
    public static final int MAX_CONNECT_PRIVATE_DATA_IB = 92;

    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    public static final int MAX_REJECT_PRIVATE_DATA = 148;
    /** rdma_connect(3): the private data of an RDMA_PS_UDP connect (a SIDR REQ's 216 bytes minus the CM header). */
    public static final int MAX_UDP_CONNECT_PRIVATE_DATA = 180;
    /** rdma_accept(3): the private data of an RDMA_PS_UDP accept, and of its reject (a SIDR REP's). */
    public static final int MAX_UDP_ACCEPT_PRIVATE_DATA = 136;
    /** The Q_Key of every RDMA_PS_UDP id's QP (librdmacm's RDMA_UDP_QKEY). */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    final RdmaCm cm;
    final PortSpace ps;
    private final Object context;
    private final int handle;
    /** Where the id's events go: its channel or, synchronous, its own queue. */
    final EventDelivery events;

    // ---- binding (set on the application thread before the id has a device, then on the device)
    volatile Device device;
    volatile InetSocketAddress local;
    volatile InetSocketAddress peer;
    volatile State state = State.IDLE;
    // ---- options (rdma_set_option; a request's id takes TOS and ACK timeout from the REQ) and route
    boolean reuseAddr;
    int tos;
    int ackTimeout = -1;
    int pathMtuCode;

    private final QpSlot qpSlot = new QpSlot();

    // ---- rdma_create_ep, passive: applied to each request get_request returns
    private ProtectionDomain epPd;
    private QpInitAttr epQpInitAttr;

    // ---- listening
    final ListenQueue listenQueue;
    /** For the id of a connection request: the listening id it came to; else null. */
    CmId listener;

    /** The IB CM connection of this id (device executor). */
    final Connection connection = new Connection();

    CmId(RdmaCm cm, CmEventChannel channel, Object context, PortSpace ps, int handle) {
        this.cm = cm;
        this.context = context;
        this.ps = ps;
        this.handle = handle;
        WaitSignal signal = cm.fabric().scheduler().newSignal();
        this.events = new EventDelivery(this, channel, signal);
        this.listenQueue = new ListenQueue(this, signal);
    }

    // ------------------------------------------------------------------ accessors

    /** The application object given at creation. */
    public Object context() {
        return context;
    }

    public PortSpace portSpace() {
        return ps;
    }

    /** The event channel, or null for a synchronous id. */
    public CmEventChannel channel() {
        return events.channel();
    }

    /** The device the id is bound to, or null. */
    public Device device() {
        return device;
    }

    /** The id's queue pair, or null. */
    public QueuePair qp() {
        return qpSlot.qp();
    }

    /** The protection domain of the id's queue pair, or null. */
    public ProtectionDomain pd() {
        QueuePair q = qpSlot.qp();
        return q == null ? null : q.pd();
    }

    /** Send CQ the connection manager created for the QP (rdma_create_qp(3) without CQs), or null. */
    public CompletionQueue sendCq() {
        QueuePair q = qpSlot.qp();
        return q == null ? null : q.sendCq();
    }

    /** Receive CQ of the id's QP, or null. */
    public CompletionQueue recvCq() {
        QueuePair q = qpSlot.qp();
        return q == null ? null : q.recvCq();
    }

    /** rdma_cm state. */
    public State state() {
        return state;
    }

    /** Local address (rdma_get_local_addr(3)); the wildcard address with port 0 if unbound. */
    public InetSocketAddress localAddress() {
        InetSocketAddress l = local;
        return l != null ? l : new InetSocketAddress(RdmaCm.WILDCARD, 0);
    }

    /** Peer address (rdma_get_peer_addr(3)); the wildcard address with port 0 if none. */
    public InetSocketAddress peerAddress() {
        InetSocketAddress p = peer;
        return p != null ? p : new InetSocketAddress(RdmaCm.WILDCARD, 0);
    }

    /** Local port (rdma_get_src_port(3)); 0 if unbound. */
    public int srcPort() {
        return localAddress().getPort();
    }

    /** Remote port (rdma_get_dst_port(3)); 0 if none. */
    public int dstPort() {
        return peerAddress().getPort();
    }

    /** For a synchronous id: the event of its last completed call (id->event in librdmacm); else null. */
    public CmEvent event() {
        return events.lastEvent();
    }

    // ------------------------------------------------------------------ options

    /**
     * Sets an option (rdma_set_option(3)): TOS 0..255, REUSEADDR 0/1 (before the id is bound),
     * ACK_TIMEOUT 0..31.
     *
     * @throws VerbsException EINVAL for a value out of range or REUSEADDR on a bound id
     */
    public void setOption(CmOption option, int value) {
        Objects.requireNonNull(option, "option");
        synchronized (this) {
            checkNotDestroyed();
            switch (option) {
                case TOS:
                    if (value < 0 || value > 255) {
                        throw invalid("TOS " + value + " not in 0..255");
                    }
                    tos = value;
                    break;
                case REUSEADDR:
                    if (state != State.IDLE) {
                        throw invalid("REUSEADDR must be set before the id is bound");
                    }
                    reuseAddr = value != 0;
                    break;
                case ACK_TIMEOUT:
                    if (value < 0 || value > 31) {
                        throw invalid("ACK timeout " + value + " not in 0..31");
                    }
                    ackTimeout = value;
                    break;
                default:
                    throw invalid("option " + option);
            }
        }
    }

    // ------------------------------------------------------------------ addressing

    /**
     * Binds the id to a local address (rdma_bind_addr(3)). The wildcard address binds to the port
     * on every device; a device's address binds it to that device. Port 0 picks a free port.
     *
     * @throws VerbsException EINVAL if already bound; EADDRNOTAVAIL if no device has the address;
     *                        EADDRINUSE if the port is taken
     */
    public void bind(InetSocketAddress addr) {
        Objects.requireNonNull(addr, "addr");
        synchronized (this) {
            checkNotDestroyed();
            if (state != State.IDLE) {
                throw invalid("rdma_bind_addr on an id in state " + state);
            }
            bindLocked(addr);
        }
    }

    private void bindLocked(InetSocketAddress addr) {
        InetAddress ip = addr.getAddress();
        Device d = null;
        if (ip == null || !ip.isAnyLocalAddress()) {
            Gid gid = RdmaCm.gidOf(addr);
            d = cm.fabric().device(gid);
            if (d == null || d.isClosed()) {
                throw new VerbsException(Errno.EADDRNOTAVAIL, "no device has address " + gid);
            }
        }
        int port = cm.bindPort(this, d, addr.getPort());
        device = d;
        local = new InetSocketAddress(d == null ? RdmaCm.WILDCARD : RdmaCm.inetOf(d.gid()), port);
        state = State.ADDR_BOUND;
    }

    /**
     * Resolves the destination (rdma_resolve_addr(3)) and binds the id to the local device that
     * reaches it: the device already bound, the destination's own device (loopback), or the first
     * device with an active port. Reports ADDR_RESOLVED, or ADDR_ERROR if no local port is active
     * within {@code timeoutMs}. Like IB's path resolution, resolving does not probe the destination.
     *
     * @throws VerbsException EINVAL in a wrong state; ENODEV if the fabric has no device
     */
    public void resolveAddr(InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        Objects.requireNonNull(dst, "dst");
        Device d;
        synchronized (this) {
            checkNotDestroyed();
            if (state != State.IDLE && state != State.ADDR_BOUND && state != State.ADDR_RESOLVED) {
                throw invalid("rdma_resolve_addr on an id in state " + state);
            }
            if (src != null && state == State.IDLE) {
                bindLocked(src);
            }
            Gid dstGid = RdmaCm.gidOf(dst);
            d = device;
            if (d == null) {
                d = cm.chooseDevice(dstGid);
                if (d == null) {
                    throw new VerbsException(
                            Errno.ENODEV,
                            "no RDMA device in fabric " + cm.fabric().name());
                }
                if (state == State.IDLE) {
                    bindLocked(new InetSocketAddress(RdmaCm.inetOf(d.gid()), 0));
                } else {
                    device = d;
                    local = new InetSocketAddress(RdmaCm.inetOf(d.gid()), local.getPort());
                }
            }
            peer = new InetSocketAddress(RdmaCm.inetOf(dstGid), dst.getPort());
            state = State.ADDR_QUERY;
        }
        cm.agent(d).resolveAddr(this, timeoutMs);
        awaitResolution(CmEventType.ADDR_RESOLVED, CmEventType.ADDR_ERROR, Errno.EADDRNOTAVAIL, "address");
    }

    /**
     * Resolves the route to the destination (rdma_resolve_route(3)): ROUTE_RESOLVED with the path
     * MTU, or ROUTE_ERROR if the local port is not active.
     *
     * @throws VerbsException EINVAL unless the address is resolved
     */
    public void resolveRoute(int timeoutMs) {
        synchronized (this) {
            checkNotDestroyed();
            if (state != State.ADDR_RESOLVED) {
                throw invalid("rdma_resolve_route needs a resolved address; state " + state);
            }
            state = State.ROUTE_QUERY;
        }
        cm.agent(device).resolveRoute(this, timeoutMs);
        awaitResolution(CmEventType.ROUTE_RESOLVED, CmEventType.ROUTE_ERROR, Errno.EHOSTUNREACH, "route");
    }

    /** For a synchronous id: waits for the {@code resolved} or {@code error} event; the error throws {@code errno}. */
    private void awaitResolution(CmEventType resolved, CmEventType error, Errno errno, String what) {
        if (isSync()) {
            CmEvent e = events.awaitSync(t -> t == resolved || t == error, -1);
            if (e.type() == error) {
                throw new CmException(errno, what + " resolution failed", e);
            }
        }
    }

    // ------------------------------------------------------------------ queue pair

    /**
     * Creates the id's queue pair (rdma_create_qp(3)) on {@code pd}, or on the device's default
     * PD if null, and moves it to INIT so receives can be posted. Without CQs in {@code attr} the
     * connection manager creates them (with completion channels); they go with the QP.
     *
     * @throws VerbsException EINVAL if the id is not bound to a device, already has a QP, or the
     *                        PD belongs to another device
     */
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        Objects.requireNonNull(attr, "qp_init_attr");
        Device d = device;
        synchronized (this) {
            checkNotDestroyed();
            if (d == null) {
                throw invalid("rdma_create_qp: the id is not bound to a device");
            }
            if (qpSlot.qp() != null) {
                throw invalid("an rdma_cm_id may only be associated with a single QP");
            }
        }
        ProtectionDomain usePd = pd != null ? pd : cm.defaultPd(d);
        if (usePd.device() != d) {
            throw invalid(
                    "protection domain belongs to device " + usePd.device().name() + ", the id to " + d.name());
        }
        return qpSlot.create(d, usePd, attr, ps);
    }

    /**
     * Associates an existing queue pair with the id, as if {@link #createQp} had created it: the
     * connection manager then moves it through RTR and RTS when the connection forms and to ERR
     * when it ends. For layers that own their QPs across connections (a DAT endpoint keeps its QP
     * through dat_ep_reset). The QP must be on the id's device, in RESET or INIT; it is moved to
     * INIT. {@link #detachQp()} gives it back without destroying it.
     *
     * @throws VerbsException EINVAL if the id is unbound, already has a QP, or the QP is on another
     *                        device or in another state
     */
    public void attachQp(QueuePair q) {
        Objects.requireNonNull(q, "qp");
        synchronized (this) {
            checkNotDestroyed();
            if (device == null || q.device() != device) {
                throw invalid("the QP must be on the id's device");
            }
            if (qpSlot.qp() != null) {
                throw invalid("an rdma_cm_id may only be associated with a single QP");
            }
            if (q.state() != QpState.RESET && q.state() != QpState.INIT) {
                throw invalid("only a QP in RESET or INIT can be attached; it is in " + q.state());
            }
        }
        qpSlot.attach(q);
    }

    /** Dissociates the QP attached with {@link #attachQp} (or created) from the id, without destroying it. */
    public QueuePair detachQp() {
        return qpSlot.detach();
    }

    /**
     * Destroys the id's queue pair (rdma_destroy_qp(3)) and the CQs the connection manager made for it.
     */
    public void destroyQp() {
        qpSlot.destroy();
    }

    // ------------------------------------------------------------------ passive side

    /**
     * Listens for connection requests (rdma_listen(3)). An unbound id binds to the wildcard
     * address with a free port first. At most {@code backlog} requests wait for accept or reject;
     * further REQs are dropped, so their senders retry (a backlog of 0 or less means 1024).
     *
     * @throws VerbsException EINVAL in a wrong state
     */
    public void listen(int backlog) {
        synchronized (this) {
            checkNotDestroyed();
            if (state == State.IDLE) {
                bindLocked(new InetSocketAddress(RdmaCm.WILDCARD, 0));
            }
            if (state != State.ADDR_BOUND) {
                throw invalid("rdma_listen on an id in state " + state);
            }
            listenQueue.open(backlog);
            state = State.LISTEN;
        }
        cm.listen(this);
    }

    /**
     * Waits for the next connection request of a synchronous listening id (rdma_get_request(3)).
     * The returned id carries the request as its {@link #event()}, and, if this id was created by
     * {@link RdmaCm#createEp} with QP attributes, a queue pair made with them.
     *
     * @throws VerbsException EINVAL unless this is a synchronous listening id
     */
    public CmId getRequest() {
        return getRequest(-1, TimeUnit.NANOSECONDS);
    }

    /** {@link #getRequest()} waiting at most {@code timeout}; null if no request came in time. */
    public CmId getRequest(long timeout, TimeUnit unit) {
        if (isSync() && state == State.DEVICE_REMOVAL && listenQueue.backlog() > 0) {
            throw new VerbsException(Errno.ENODEV, "the listening id's device was removed");
        }
        if (!isSync() || state != State.LISTEN) {
            throw invalid("rdma_get_request needs a synchronous listening id");
        }
        long nanos = timeout < 0 ? -1 : unit.toNanos(timeout);
        CmId child = listenQueue.take(nanos);
        if (child == null) {
            if (state == State.DEVICE_REMOVAL) {
                throw new VerbsException(Errno.ENODEV, "the listening id's device was removed");
            }
            return null;
        }
        if (epQpInitAttr != null) {
            child.createQp(epPd, epQpInitAttr);
        }
        return child;
    }

    /**
     * Accepts the connection request of this id (rdma_accept(3)): moves its QP to RTR and RTS
     * with the negotiated parameters and sends the REP; ESTABLISHED follows when the RTU arrives.
     * {@code param} null takes the request's values, adjusted down to the local limits.
     *
     * @throws VerbsException EINVAL if the id holds no pending request, the private data exceeds
     *                        196 bytes, or the resources exceed the local device or the request
     */
    public void accept(ConnParam param) {
        Device d = device;
        ConnParam p;
        synchronized (this) {
            checkNotDestroyed();
            if (listener == null || d == null) {
                throw invalid("rdma_accept is called on the id of a connection request");
            }
            ConnParam req = connection.requestParam;
            if (ps == PortSpace.UDP) {
                // rdma_accept(3): a UD accept answers with a SIDR REP: private data only, at most 136 bytes.
                p = param != null
                        ? param
                        : ConnParam.defaults().responderResources(0).initiatorDepth(0);
                if (p.privateData().length > MAX_UDP_ACCEPT_PRIVATE_DATA) {
                    throw invalid("accept private data of " + p.privateData().length + " bytes exceeds "
                            + MAX_UDP_ACCEPT_PRIVATE_DATA + " for RDMA_PS_UDP (rdma_accept(3))");
                }
            } else {
                p = param != null ? param : ConnParamLimits.acceptDefaults(req, d, qp() != null && qp().srq() != null);
                ConnParamLimits.checkAccept(p, req, d);
            }
        }
        cm.agent(d).accept(this, p);
        if (isSync() && ps != PortSpace.UDP) {
            CmEvent e = events.awaitSync(
                    t -> t == CmEventType.ESTABLISHED
                            || t == CmEventType.CONNECT_ERROR
                            || t == CmEventType.REJECTED
                            || t == CmEventType.DISCONNECTED
                            || t == CmEventType.DEVICE_REMOVAL,
                    -1);
            if (e.type() != CmEventType.ESTABLISHED) {
                throw new CmException(
                        Errno.ECONNABORTED, "accept ended with " + e.type().text(), e);
            }
        }
    }

    /**
     * Rejects the connection request of this id (rdma_reject(3)) with a consumer-defined reject
     * carrying {@code privateData} (at most 148 bytes).
     *
     * @throws VerbsException EINVAL if the id holds no pending request or the data is too long
     */
    public void reject(byte[] privateData) {
        byte[] pd = ConnParamLimits.rejectData(privateData);
        if (ps == PortSpace.UDP && pd.length > MAX_UDP_ACCEPT_PRIVATE_DATA) {
            throw invalid("reject private data of " + pd.length + " bytes exceeds " + MAX_UDP_ACCEPT_PRIVATE_DATA
                    + " for RDMA_PS_UDP (a SIDR REP's)");
        }
        synchronized (this) {
            checkNotDestroyed();
            if (listener == null) {
                throw invalid("rdma_reject is called on the id of a connection request");
            }
        }
        cm.agent(device).reject(this, pd);
    }

    // ------------------------------------------------------------------ active side

    /**
     * Sends a connection request (rdma_connect(3)). With a QP, the connection is ESTABLISHED when
     * the peer accepts (the QP moved to RTR and RTS); without one, CONNECT_RESPONSE arrives and
     * {@link #establish()} completes it. REJECTED carries the peer's reject; UNREACHABLE ends a
     * request nobody answered after the configured CM retries. A peer whose application takes its
     * time to accept acknowledges the resent request with an MRA, after which each resend waits
     * the MRA's service timeout longer ({@link #requestAcknowledged}).
     *
     * @throws VerbsException EINVAL unless the route is resolved, or for private data over 56
     *                        bytes or resources over the local device limits; for a synchronous id,
     *                        {@link CmException} ECONNREFUSED (rejected) or ETIMEDOUT (unreachable)
     */
    public void connect(ConnParam param) {
        ConnParam p = param != null ? param : ConnParam.defaults();
        Device d = device;
        synchronized (this) {
            checkNotDestroyed();
            if (state != State.ROUTE_RESOLVED) {
                throw invalid(
                        "rdma_connect needs a resolved route (rdma_resolve_route or rdma_create_ep); state " + state);
            }
            ConnParamLimits.checkConnect(ps, p, d);
            state = State.CONNECT;
        }
        cm.agent(d).connect(this, p);
        if (isSync()) {
            CmEvent e = events.awaitSync(
                    t -> t == CmEventType.ESTABLISHED
                            || t == CmEventType.CONNECT_RESPONSE
                            || t == CmEventType.REJECTED
                            || t == CmEventType.UNREACHABLE
                            || t == CmEventType.CONNECT_ERROR
                            || t == CmEventType.DEVICE_REMOVAL,
                    -1);
            switch (e.type()) {
                case ESTABLISHED:
                case CONNECT_RESPONSE:
                    return;
                case REJECTED:
                    throw new CmException(Errno.ECONNREFUSED, "connection rejected, reason " + e.status(), e);
                case UNREACHABLE:
                    throw new CmException(Errno.ETIMEDOUT, "peer unreachable", e);
                default:
                    throw new CmException(
                            Errno.ECONNABORTED, "connect ended with " + e.type().text(), e);
            }
        }
    }

    /**
     * True once the peer's connection manager acknowledged this id's connection request with an
     * MRA (IBA 12.6.6): the request reached a listener whose application has not answered it yet,
     * and the connection manager waits longer for the answer. librdmacm does not report the MRA
     * (rdma_cm consumes it); a layer above rdma_cm uses this to tell a peer that is slow to accept
     * from one that never responded, as dat_ep_connect(3DAT) does for its timeout. False before
     * {@link #connect}, for a passive id, and when the peer answered at once.
     */
    public boolean requestAcknowledged() {
        return connection.requestAcknowledged;
    }

    /**
     * Completes an active connection of an id without a QP after CONNECT_RESPONSE
     * (rdma_establish(3)): sends the RTU, which gives the passive side ESTABLISHED.
     *
     * @throws VerbsException EINVAL if the id has a QP or no response is pending
     */
    public void establish() {
        synchronized (this) {
            checkNotDestroyed();
            if (qpSlot.qp() != null) {
                throw invalid("rdma_establish must not be used on an id with a QP (rdma_establish(3))");
            }
        }
        cm.agent(device).establish(this);
    }

    /**
     * Tells the connection manager of a QP event (rdma_notify(3)); COMM_EST completes a passive
     * connection whose RTU was lost.
     *
     * @throws VerbsException EISCONN if the connection was already established; EINVAL for
     *                        another event or an id not connecting
     */
    public void notify(AsyncEventType event) {
        if (event != AsyncEventType.COMM_EST) {
            throw invalid("rdma_notify reports COMM_EST only");
        }
        Device d = device;
        if (d == null) {
            throw invalid("id not bound");
        }
        cm.agent(d).notifyCommEst(this, true);
    }

    /**
     * Disconnects (rdma_disconnect(3)): moves the QP to ERR (flushing its work requests) and sends
     * a DREQ; DISCONNECTED follows on both sides. Called after the peer disconnected, it only
     * moves the QP to ERR. During connection establishment it abandons the attempt with a reject.
     *
     * @throws VerbsException EINVAL if the id is not connected or connecting
     */
    public void disconnect() {
        Device d = device;
        synchronized (this) {
            checkNotDestroyed();
            if (d == null) {
                throw invalid("rdma_disconnect on an unconnected id");
            }
        }
        boolean waits = cm.agent(d).disconnect(this);
        if (isSync() && waits) {
            events.awaitSync(t -> t == CmEventType.DISCONNECTED || t == CmEventType.DEVICE_REMOVAL, -1);
        }
    }

    // ------------------------------------------------------------------ channels and teardown

    /**
     * Moves the id to another event channel, or to synchronous operation with null
     * (rdma_migrate_id(3)), taking its queued events along. Waits while events of this id
     * returned by the old channel are unacknowledged.
     */
    public void migrate(CmEventChannel to) {
        if (to != null) {
            to.checkUsable();
        }
        events.awaitAcknowledged();
        synchronized (this) {
            checkNotDestroyed();
            events.moveTo(to);
        }
    }

    /**
     * Destroys the id (rdma_destroy_id(3)), cancelling what it has outstanding: a listening id
     * stops listening and rejects the requests not yet accepted; a connected id sends a DREQ.
     *
     * @throws VerbsException EBUSY while it has a QP (destroy it first, rdma_destroy_qp(3)) or
     *                        events returned by its channel are unacknowledged; EINVAL if destroyed
     */
    public void destroy() {
        synchronized (this) {
            checkNotDestroyed();
            if (qpSlot.qp() != null) {
                throw new VerbsException(Errno.EBUSY, "destroy the id's QP first (rdma_destroy_qp(3))");
            }
            if (events.unacked() > 0) {
                throw new VerbsException(
                        Errno.EBUSY, events.unacked() + " event(s) of this id not acknowledged (rdma_ack_cm_event(3))");
            }
        }
        Device d = device;
        if (d != null) {
            cm.agent(d).destroyed(this);
        } else if (state == State.LISTEN) {
            // A wildcard listener's requests arrived on any device: the CM of each refuses those it holds.
            for (Device dev : listenQueue.devices()) {
                cm.agent(dev).destroyed(this);
            }
        }
        cm.released(this);
        synchronized (this) {
            state = State.DESTROYED;
            events.leaveChannel();
        }
        events.signal().signalAll();
    }

    /**
     * Destroys the id and everything {@link RdmaCm#createEp} or {@link #createQp} made for it:
     * its QP and the CQs the connection manager created (rdma_destroy_ep(3)).
     */
    public void destroyEp() {
        destroyQp();
        destroy();
    }

    // ------------------------------------------------------------------ for the connection manager

    boolean isSync() {
        return events.isSync();
    }

    /** rdma_create_ep(3) made this id: keeps the PD and QP attributes for the ids of its requests. */
    void markEp(ProtectionDomain pd, QpInitAttr attr) {
        epPd = pd;
        epQpInitAttr = attr;
    }

    /** The ack timeout for this id's QP. */
    int ackTimeoutFor(CmConfig config) {
        return ackTimeout >= 0 ? ackTimeout : config.ackTimeout();
    }

    private void checkNotDestroyed() {
        if (state == State.DESTROYED) {
            throw invalid("rdma_cm_id was destroyed");
        }
    }

    private static VerbsException invalid(String message) {
        return new VerbsException(Errno.EINVAL, message);
    }

    @Override
    public String toString() {
        return "CmId#" + handle + "[" + state + "/" + connection.state + (local != null ? " " + local : "") + "]";
    }
}
