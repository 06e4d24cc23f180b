package io.simrdma.provider;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.AsyncEvdRequest;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.IaAttributes;
import io.simrdma.dat.IaQueryResult;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.NamedAttribute;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.ProviderAttributes;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import io.simrdma.dat.WaitProxyAgent;
import io.simrdma.dat.spi.IaOpenRequest;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.RdmaCm;
import io.simrdma.fabric.tcp.TcpNode;
import io.simrdma.fabric.wire.Gid;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Interface Adapter instance: a DAT view of one simulated device (dat_ia_open(3DAT)). It
 * creates and owns every object of the IA (dat_ia_close(3DAT) frees them), its asynchronous EVD,
 * its connection-manager event channel, and the {@link IaEventRouter} that carries completions,
 * connection-manager events and device events from the fabric to those objects.
 *
 * <p>Threading: state changes of endpoints and service points run on the device's executor
 * ({@link #call}), where connection-manager events and device events also arrive, so they never
 * race; posts run on the caller's thread.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimIa extends SimHandle implements InterfaceAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(SimIa.class);

    final SimProvider provider;
    final IaOpenRequest request;
    final IaName name;
    final Fabric fabric;
    /** The fabric's registry entry (released when the IA closes) and, for a simtcp: IA, its TCP node. */
    final SimFabrics.Entry fabricEntry;

    final Device device;
    final RdmaCm cm;
    volatile boolean closed;
    volatile SimEvd asyncEvd;
    private boolean ownsAsyncEvd;
    private final IaAttributes attributes;
    private final InetSocketAddress address;
    private final InetSocketAddress cmAddress;

    private final Set<SimHandle> handles = new LinkedHashSet<>();
    /** The kinds of handle an IA limit counts (dat_ia_query(3DAT) max_eps, max_evds, ...). */
    private static final List<Class<? extends SimHandle>> COUNTED =
            List.of(SimEp.class, SimEvd.class, SimPz.class, SimLmr.class, SimSrq.class, SimRmr.class);
    /** Handles of each kind of {@link #COUNTED}; guarded by the handles' lock. */
    private final int[] counted = new int[COUNTED.size()];
    /** LMRs by the index of their lmr_context (the L_Key's upper 24 bits), read by every post. */
    private final IntTable<SimLmr> lmrs = new IntTable<>();

    private final Map<Long, SimServicePoint> servicePoints = new ConcurrentHashMap<>();
    /** Routes completions, connection-manager and device events to the objects of this IA. */
    final IaEventRouter router = new IaEventRouter(this);

    private final AtomicInteger nextId = new AtomicInteger(1);
    private CmEventChannel cmChannel;

    SimIa(SimProvider provider, IaOpenRequest request, IaName name, SimFabrics.Entry fabric, Device device) {
        super(null, HandleType.IA);
        this.provider = provider;
        this.request = request;
        this.name = name;
        this.fabricEntry = fabric;
        this.fabric = fabric.fabric;
        this.device = device;
        this.cm = fabric.cm();
        this.cmAddress = RdmaCm.addressOf(device, 0);
        this.address = fabric.node != null ? fabric.node.listenAddress() : cmAddress;
        this.attributes = buildAttributes(request.iaName(), device.query(), address);
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_IA;
    }

    /** Opens the IA: the async EVD and the glue to the device and the connection manager. */
    void open() {
        AsyncEvdRequest a = request.asyncEvd();
        if (a instanceof AsyncEvdRequest.Create c) {
            range(c.minQlen(), 1, attributes.maxEvdQlen(), "async EVD length");
            asyncEvd = new SimEvd(this, c.minQlen(), null, java.util.EnumSet.of(EvdFlag.ASYNC));
            ownsAsyncEvd = true;
        } else if (a instanceof AsyncEvdRequest.Use u) {
            if (!(u.evd() instanceof SimEvd e) || e.freed || !e.flags().contains(EvdFlag.ASYNC)) {
                throw new DatException(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                        "the async EVD must be a live EVD with the async stream");
            }
            asyncEvd = e;
        }
        if (asyncEvd != null) {
            asyncEvd.addUser();
        }
        cmChannel = cm.createEventChannel(router::onCmEvent);
        router.startDeviceEvents();
    }

    // ------------------------------------------------------------------ dat_ia_query, dat_ia_close

    @Override
    public IaQueryResult query() {
        checkHandle();
        ProviderAttributes pa = provider.attributes();
        TraceDigest digest = fabricEntry.digest;
        if (digest != null) {
            List<NamedAttribute> specific = new java.util.ArrayList<>(pa.providerSpecificAttributes());
            specific.add(new NamedAttribute(TraceDigest.ATTRIBUTE, digest.value()));
            pa = pa.toBuilder().providerSpecificAttributes(specific).build();
        }
        return new IaQueryResult(java.util.Optional.ofNullable(asyncEvd), attributes, pa);
    }

    IaAttributes attributes() {
        return attributes;
    }

    /**
     * The IA's address (dat_ia_query(3DAT) ia_address_ptr): its device's GID as an IPv6 address on
     * an in-process fabric; the node's listen address (IPv4 and port) for a {@code simtcp:} IA.
     */
    InetSocketAddress address() {
        return address;
    }

    /** The address the connection manager knows the device by: its GID as an IPv6 address, port 0. */
    InetSocketAddress cmAddress() {
        return cmAddress;
    }

    /**
     * The connection-manager address of a remote IA address a consumer gave: a TCP node's listen
     * address (IPv4 and port) becomes the node's GID; a GID address is taken as it is.
     *
     * @throws DatException DAT_INVALID_ADDRESS (DAT_INVALID_ADDRESS_UNSUPPORTED) for an address this
     *         IA's fabric cannot carry, which dat_ep_connect(3DAT) lets the provider refuse at once
     *         ("cannot be converted to a Transport-specific address"): an IPv4 address on an
     *         in-process fabric (whose IA addresses are GIDs) that no device of it owns, or on a
     *         TCP node an IPv6 address that is no TCP node's GID, or an IPv4 one with port 0 (no
     *         node listens there)
     */
    InetAddress toCm(InetSocketAddress remote) {
        InetAddress ip = remote.getAddress();
        if (fabricEntry.node != null) {
            if (ip instanceof Inet4Address) {
                if (remote.getPort() == 0) {
                    throw unsupportedAddress(remote, "a TCP node's IA address has the port it listens on");
                }
                return RdmaCm.inetOf(TcpNode.gidOf(remote));
            }
            if (ip.getAddress().length != 16 || !TcpNode.isTcpGid(Gid.of(ip.getAddress()))) {
                throw unsupportedAddress(
                        remote,
                        "a TCP node's IA reaches TCP nodes: an IPv4 address and port "
                                + "(dat_ia_query ia_address) or a TCP node's GID");
            }
            return ip;
        }
        if (ip instanceof Inet4Address && fabric.device(Gid.parse(ip.getHostAddress())) == null) {
            throw unsupportedAddress(
                    remote,
                    "the IA addresses of in-process fabric " + fabric.name()
                            + " are GIDs (IPv6, dat_ia_query ia_address)");
        }
        return ip;
    }

    private static DatException unsupportedAddress(InetSocketAddress remote, String why) {
        return new DatException(
                DatReturnType.INVALID_ADDRESS,
                DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                remote + " cannot be converted to an address of this fabric: " + why + " (dat_ep_connect(3DAT))");
    }

    /** The IA address of a peer the connection manager reports (the inverse of {@link #toCm}). */
    InetSocketAddress fromCm(InetSocketAddress peer) {
        byte[] raw = peer.getAddress().getAddress();
        Gid gid = raw.length == 16 ? Gid.of(raw) : null;
        if (gid != null && TcpNode.isTcpGid(gid)) {
            return TcpNode.addressOf(gid);
        }
        return new InetSocketAddress(peer.getAddress(), 0);
    }

    /**
     * Closes the IA (dat_ia_close(3DAT)). GRACEFUL refuses while the consumer still holds objects
     * of the IA (DAT_INVALID_STATE, IA in use); ABRUPT frees every object of the IA, in dependency
     * order, aborting waiters.
     */
    @Override
    public void close(CloseFlag flag) {
        if (flag == null) {
            throw DatException.invalidParameter("close flag is null");
        }
        List<SimHandle> all;
        synchronized (handles) {
            if (closed) {
                throw new DatException(
                        DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, "IA already closed");
            }
            if (flag == CloseFlag.GRACEFUL && !handles.isEmpty()) {
                throw invalidState(
                        DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                        handles.size() + " object(s) of this IA are not freed (dat_ia_close(3DAT) graceful)");
            }
            all = new ArrayList<>(handles);
        }
        // Dependency order: connections and service points, then memory, queues, dispatchers. A request
        // can still arrive on a service point not yet destroyed (threaded fabric) and add a CR: passes
        // repeat until none finds a live handle (a bounded number of times, should a destroy keep failing).
        for (int pass = 0; pass < 4 && !all.isEmpty(); pass++) {
            for (Class<?> kind : new Class<?>[] {
                SimCr.class,
                SimEp.class,
                SimRsp.class,
                SimPsp.class,
                SimRmr.class,
                SimLmr.class,
                SimSrq.class,
                SimPz.class,
                SimEvd.class,
                SimCno.class
            }) {
                for (SimHandle h : all) {
                    if (kind.isInstance(h)) {
                        try {
                            h.destroy();
                        } catch (RuntimeException e) {
                            LOG.debug(
                                    "abrupt close of {}: {} not released cleanly: {}",
                                    name.redacted(),
                                    h,
                                    e.getMessage());
                        }
                    }
                }
            }
            synchronized (handles) {
                all = new ArrayList<>();
                for (SimHandle h : handles) {
                    if (!h.freed) {
                        all.add(h);
                    }
                }
            }
        }
        synchronized (handles) {
            handles.clear();
            java.util.Arrays.fill(counted, 0);
            closed = true;
        }
        router.stopDeviceEvents();
        if (asyncEvd != null) {
            asyncEvd.removeUser();
            if (ownsAsyncEvd) {
                asyncEvd.destroy();
            }
        }
        // On the device executor, after any id release a request refused during the close queued there.
        // dat_ia_close(3DAT): the close must complete under all conditions, so a failure is only logged.
        try {
            run(cmChannel::destroy);
        } catch (RuntimeException e) {
            LOG.debug(
                    "abrupt close of {}: connection-manager channel not destroyed: {}",
                    name.redacted(),
                    e.getMessage());
        }
        freed = true;
        request.notifyClosed();
        provider.iaClosed(this);
    }

    /** The IA itself is released by an abrupt close. */
    @Override
    void destroy() {
        close(CloseFlag.ABRUPT);
    }

    // ------------------------------------------------------------------ object creation

    private void checkOpen() {
        if (closed) {
            throw new DatException(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, "IA is closed");
        }
    }

    <T extends SimHandle> T remember(T h) {
        if (SimProvider.RECORD_SITES && h.createdAt == null) {
            h.createdAt = new Throwable("created here");
        }
        synchronized (handles) {
            if (handles.add(h)) {
                count(h, 1);
            }
        }
        return h;
    }

    /** The handles not freed yet, oldest first (see {@link SimProvider#openHandles}). */
    List<io.simrdma.dat.DatHandle> openHandles() {
        synchronized (handles) {
            List<io.simrdma.dat.DatHandle> open = new ArrayList<>();
            for (SimHandle h : handles) {
                if (!h.freed) {
                    open.add(h);
                }
            }
            return open;
        }
    }

    void forget(SimHandle h) {
        synchronized (handles) {
            if (handles.remove(h)) {
                count(h, -1);
            }
        }
    }

    /** Keeps the count of each limited kind of handle. Holds the handles' lock. */
    private void count(SimHandle h, int delta) {
        for (int i = 0; i < COUNTED.size(); i++) {
            if (COUNTED.get(i).isInstance(h)) {
                counted[i] += delta;
            }
        }
    }

    /**
     * Objects of {@code kind} the IA holds, for its limits (max_eps, max_evds, ...): a count kept as
     * they come and go for the kinds with a limit, so creating the n-th endpoint does not walk the
     * n - 1 before it.
     */
    int handleCount(Class<? extends SimHandle> kind) {
        synchronized (handles) {
            int k = COUNTED.indexOf(kind);
            if (k >= 0) {
                return counted[k];
            }
            int n = 0;
            for (SimHandle h : handles) {
                if (kind.isInstance(h)) {
                    n++;
                }
            }
            return n;
        }
    }

    @Override
    public EventDispatcher createEvd(int minQlen, ConsumerNotificationObject cno, Set<EvdFlag> flags) {
        checkOpen();
        if (flags == null) {
            throw DatException.invalidParameter("EVD flags are null");
        }
        if (minQlen < 1 || minQlen > attributes.maxEvdQlen()) {
            throw new DatException(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG2,
                    "EVD length " + minQlen + " not in 1.." + attributes.maxEvdQlen());
        }
        SimCno c = SimHandle.checkOptional(cno, SimCno.class, this, DatReturnSubtype.INVALID_HANDLE_CNO);
        if (handleCount(SimEvd.class) >= attributes.maxEvds()) {
            throw insufficient(DatReturnSubtype.RESOURCE_TEVD, "max_evds (" + attributes.maxEvds() + ") reached");
        }
        return remember(new SimEvd(this, minQlen, c, flags));
    }

    @Override
    public ConsumerNotificationObject createCno(WaitProxyAgent agent) {
        checkOpen();
        return remember(new SimCno(this, agent));
    }

    @Override
    public ProtectionZone createPz() {
        checkOpen();
        if (handleCount(SimPz.class) >= attributes.maxPzs()) {
            throw insufficient(
                    DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN, "max_pzs (" + attributes.maxPzs() + ") reached");
        }
        try {
            return remember(new SimPz(this, device.allocPd()));
        } catch (VerbsException e) {
            throw resources(e, DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN);
        }
    }

    @Override
    public LocalMemoryRegion createLmr(RegionDescription region, ProtectionZone pz, Set<MemoryPrivilege> privileges) {
        checkOpen();
        SimPz z = SimHandle.check(pz, SimPz.class, this, DatReturnSubtype.INVALID_HANDLE_PZ);
        if (region == null || privileges == null) {
            throw DatException.invalidParameter("region and privileges must not be null");
        }
        if (handleCount(SimLmr.class) >= attributes.maxLmrs()) {
            throw insufficient(
                    DatReturnSubtype.RESOURCE_MEMORY_REGION, "max_lmrs (" + attributes.maxLmrs() + ") reached");
        }
        SimLmr lmr = SimLmr.create(this, region, z, privileges);
        lmrs.put(lmr.lmrContext() >>> 8, lmr);
        return remember(lmr);
    }

    void lmrFreed(SimLmr lmr) {
        lmrs.remove(lmr.lmrContext() >>> 8, lmr);
    }

    /** Lowest port an active endpoint takes once the ephemeral ports are all in use (below: well-known qualifiers). */
    static final int ACTIVE_PORT_LOW = 1024;
    /** First port below the connection manager's ephemeral range (49152-65535, RFC 6335). */
    static final int ACTIVE_PORT_HIGH = 49151;
    /** Next port to try below the ephemeral range; device executor only. */
    private int nextLowPort = ACTIVE_PORT_HIGH;
    /** The ephemeral range was found full; device executor only. */
    private boolean ephemeralFull;

    /**
     * Binds the connection-manager id of a connecting endpoint (dat_ep_connect(3DAT)) to a local
     * port of this IA: an ephemeral one while the connection manager has one (49152-65535, 16,384
     * ports), then one below it, from 49151 down to 1024, so that an IA connects more endpoints than
     * the ephemeral range holds. The port is the endpoint's local_port_qual; only a port that no
     * other endpoint or service point of the IA holds is taken. Device executor.
     *
     * @throws VerbsException EADDRINUSE when every port from 1024 to 65535 is taken
     */
    void bindActive(CmId id) {
        if (!ephemeralFull) {
            try {
                id.bind(cmAddress);
                return;
            } catch (VerbsException e) {
                if (e.errno() != Errno.EADDRINUSE) {
                    throw e;
                }
                ephemeralFull = true;
            }
        }
        for (int tried = 0; tried <= ACTIVE_PORT_HIGH - ACTIVE_PORT_LOW; tried++) {
            int port = nextLowPort;
            nextLowPort = port == ACTIVE_PORT_LOW ? ACTIVE_PORT_HIGH : port - 1;
            try {
                id.bind(RdmaCm.addressOf(device, port));
                return;
            } catch (VerbsException e) {
                if (e.errno() != Errno.EADDRINUSE) {
                    throw e;
                }
            }
        }
        // Every port below the range is taken: try the ephemeral range again (ports there may have come free).
        ephemeralFull = false;
        id.bind(cmAddress);
    }

    /** The LMR of an lmr_context, or null. */
    SimLmr lmr(int lmrContext) {
        SimLmr l = lmrs.get(lmrContext >>> 8);
        return l != null && l.lmrContext() == lmrContext ? l : null;
    }

    @Override
    public void syncRdmaRead(List<LmrTriplet> segments) {
        checkSync(segments);
        // Memory of one JVM is coherent; a full fence orders the consumer's reads after the RDMA writes.
        VarHandle.fullFence();
    }

    @Override
    public void syncRdmaWrite(List<LmrTriplet> segments) {
        checkSync(segments);
        VarHandle.fullFence();
    }

    private void checkSync(List<LmrTriplet> segments) {
        checkOpen();
        if (segments == null) {
            throw DatException.invalidParameter("segments are null");
        }
        for (LmrTriplet t : segments) {
            if (t == null) {
                throw DatException.invalidParameter("null segment");
            }
            if (t.segmentLength() == 0) {
                continue; // LmrTriplet: the other fields of a zero-length segment are irrelevant, as when posting
            }
            SimLmr l = lmr(t.lmrContext());
            if (l == null || !l.covers(t.virtualAddress(), t.segmentLength())) {
                throw DatException.invalidParameter("segment " + t + " is not inside an LMR of this IA");
            }
        }
    }

    @Override
    public Endpoint createEndpoint(
            ProtectionZone pz,
            EventDispatcher recvEvd,
            EventDispatcher requestEvd,
            EventDispatcher connectEvd,
            EpAttributes attributes) {
        checkOpen();
        return remember(SimEp.create(this, pz, recvEvd, requestEvd, connectEvd, null, attributes, false));
    }

    @Override
    public Endpoint createEndpointWithSrq(
            ProtectionZone pz,
            EventDispatcher recvEvd,
            EventDispatcher requestEvd,
            EventDispatcher connectEvd,
            SharedReceiveQueue srq,
            EpAttributes attributes) {
        checkOpen();
        SimSrq s = SimHandle.check(srq, SimSrq.class, this, DatReturnSubtype.INVALID_HANDLE_SRQ);
        if (attributes == null) {
            throw DatException.invalidParameter(
                    "dat_ep_create_with_srq needs EP attributes (dat_ep_create_with_srq(3DAT))");
        }
        return remember(SimEp.create(this, pz, recvEvd, requestEvd, connectEvd, s, attributes, false));
    }

    /** A new id for an endpoint or SRQ: the owner field of its wr_ids ({@link WrId}). */
    int newId() {
        return nextId.getAndIncrement();
    }

    void registerServicePoint(SimServicePoint sp) {
        servicePoints.put(sp.qual(), sp);
    }

    void unregisterServicePoint(SimServicePoint sp) {
        servicePoints.remove(sp.qual(), sp);
    }

    /** The live service point of this IA on {@code connQual}, or null. */
    SimServicePoint servicePoint(long connQual) {
        return servicePoints.get(connQual);
    }

    @Override
    public PublicServicePoint createPsp(long connQual, EventDispatcher evd, PspFlag flag) {
        checkOpen();
        return remember(SimPsp.create(this, connQual, evd, flag, false));
    }

    @Override
    public PublicServicePoint createPspAny(EventDispatcher evd, PspFlag flag) {
        checkOpen();
        return remember(SimPsp.create(this, 0, evd, flag, true));
    }

    @Override
    public ReservedServicePoint createRsp(long connQual, Endpoint ep, EventDispatcher evd) {
        checkOpen();
        return remember(SimRsp.create(this, connQual, ep, evd));
    }

    @Override
    public SharedReceiveQueue createSrq(ProtectionZone pz, SrqAttributes attrs) {
        checkOpen();
        SimPz z = SimHandle.check(pz, SimPz.class, this, DatReturnSubtype.INVALID_HANDLE_PZ);
        if (attrs == null) {
            throw DatException.invalidParameter("SRQ attributes are null");
        }
        if (handleCount(SimSrq.class) >= attributes.maxSrqs()) {
            throw insufficient(DatReturnSubtype.RESOURCE_SRQ, "max_srqs (" + attributes.maxSrqs() + ") reached");
        }
        return remember(SimSrq.create(this, z, attrs));
    }

    // ------------------------------------------------------------------ the device executor, async events

    /** Runs {@code c} on the device's executor (inline when already there). */
    <T> T call(Callable<T> c) {
        return device.executor().call(c);
    }

    /** Runs {@code r} on the device's executor. */
    void run(Runnable r) {
        device.executor().call(() -> {
            r.run();
            return null;
        });
    }

    CmEventChannel cmChannel() {
        return cmChannel;
    }

    /** Posts an asynchronous event on the IA's async EVD. */
    void postAsync(EventNumber number, DatHandle handle, AsyncErrorReason reason) {
        SimEvd a = asyncEvd;
        if (a != null) {
            a.enqueue(new AsyncErrorEvent(a, number, handle, reason), true);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Maps a verbs failure to a DAT error: exhausted limits are insufficient resources. */
    DatException resources(VerbsException e, DatReturnSubtype subtype) {
        if (e.errno() == Errno.ENOMEM) {
            return insufficient(subtype, e.getMessage());
        }
        return new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.NO_SUBTYPE, e.getMessage());
    }

    private static IaAttributes buildAttributes(String iaName, DeviceAttributes d, InetSocketAddress address) {
        return IaAttributes.builder()
                .adapterName(iaName) // dat_ia_query(3DAT): "The same as ia_name_ptr."
                .vendorName("simrdma")
                .hardwareVersionMajor(d.hwVer())
                .hardwareVersionMinor(0)
                .firmwareVersionMajor(0)
                .firmwareVersionMinor(1)
                .iaAddress(address)
                .maxEps(d.maxQp())
                .maxDtoPerEp(d.maxQpWr())
                .maxRdmaReadPerEpIn(d.maxQpRdAtom())
                .maxRdmaReadPerEpOut(d.maxQpInitRdAtom())
                .maxEvds(d.maxCq())
                .maxEvdQlen(d.maxCqe())
                .maxIovSegmentsPerDto(d.maxSge())
                .maxLmrs(d.maxMr())
                .maxLmrBlockSize(d.maxMrSize())
                .maxLmrVirtualAddress(Long.MAX_VALUE)
                .maxPzs(d.maxPd())
                .maxMessageSize(Integer.MAX_VALUE)
                .maxRdmaSize(Integer.MAX_VALUE)
                .maxRmrs(d.maxMw())
                .maxRmrTargetAddress(Long.MAX_VALUE)
                .maxSrqs(d.maxSrq())
                .maxEpPerSrq(d.maxQp())
                .maxRecvPerSrq(d.maxSrqWr())
                // An RDMA Read WR is a send-queue WR: its SGEs are bounded by max_sge_rd and the QP's max_send_sge.
                .maxIovSegmentsPerRdmaRead(Math.min(d.maxSgeRd(), d.maxSge()))
                .maxIovSegmentsPerRdmaWrite(d.maxSge())
                .maxRdmaReadIn(d.maxQpRdAtom())
                .maxRdmaReadOut(d.maxQpInitRdAtom())
                .maxRdmaReadPerEpInGuaranteed(true)
                .maxRdmaReadPerEpOutGuaranteed(true)
                .transportAttributes(List.of(new NamedAttribute("transport", "InfiniBand RC (simulated)")))
                .vendorAttributes(List.of())
                .build();
    }

    @Override
    public String toString() {
        return "IA[" + name.redacted() + "]";
    }
}
