package io.simrdma.fabric.internal.device;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.LinkConfig;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.internal.link.LinkImpl;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.internal.link.RemoteTransport;
import io.simrdma.fabric.internal.link.Slf4jTraceListener;
import io.simrdma.fabric.internal.link.Tracer;
import io.simrdma.fabric.sched.DeterministicScheduler;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Scheduler;
import io.simrdma.fabric.sched.ThreadedScheduler;
import io.simrdma.fabric.wire.Gid;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The implementation of {@link Fabric}: its scheduler and clock, its devices (by name and by
 * GID), the {@link LinkImpl} between each pair of them (created on first use with the default
 * link configuration), the remote transports that reach devices in other JVMs, the fabric's
 * {@link Tracer} and its services.
 *
 * <p>Thread safety: thread-safe.
 */
public final class FabricImpl implements Fabric {

    private static final Logger LOG = LoggerFactory.getLogger(FabricImpl.class);
    private static final long GUID_BASE = 0x0002_c903_0000_0000L;

    private final String name;
    private final Scheduler scheduler;
    private final long seed;
    private final SplittableRandom threadedSeeds;
    private final LinkConfig defaultLink;
    private final Map<String, DeviceImpl> devices = new LinkedHashMap<>();
    private final Map<Gid, DeviceImpl> byGid = new ConcurrentHashMap<>();
    private final Map<String, LinkImpl> links = new ConcurrentHashMap<>();
    private final EngineExecutor control;
    private final Tracer tracer;
    private final FabricObserver observer;
    private final Map<Class<?>, Object> services = new LinkedHashMap<>();
    private final List<RemoteTransport> transports = new java.util.concurrent.CopyOnWriteArrayList<>();
    private int deviceIndex;
    private volatile boolean closed;

    /** A fabric as {@code b} describes it; see {@link Fabric#builder()}. */
    public FabricImpl(Fabric.Builder b) {
        this.name = b.name();
        this.seed = b.seed();
        this.scheduler =
                b.isDeterministic() ? new DeterministicScheduler(b.seed()) : new ThreadedScheduler(b.idleStrategy());
        this.threadedSeeds = new SplittableRandom(b.seed());
        this.defaultLink = b.defaultLink() != null
                ? b.defaultLink()
                : b.isDeterministic() ? LinkConfig.dataCenter() : LinkConfig.instant();
        this.control = scheduler.newExecutor(name + "-control");
        this.tracer = new Tracer(scheduler);
        this.observer = b.observer();
        if (Slf4jTraceListener.LOG.isDebugEnabled()) {
            addTraceListener(new Slf4jTraceListener());
        }
    }

    public String name() {
        return name;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** The seed the fabric was built with. */
    public long seed() {
        return seed;
    }

    /** Current time on the fabric's clock, in nanoseconds (virtual for deterministic fabrics). */
    public long now() {
        return scheduler.nanoTime();
    }

    /** The observer the fabric was built with ({@link Fabric.Builder#observer}), or null. */
    public FabricObserver observer() {
        return observer;
    }

    /** The deterministic scheduler, to run or advance virtual time explicitly. */
    public DeterministicScheduler deterministicScheduler() {
        if (!(scheduler instanceof DeterministicScheduler)) {
            throw new IllegalStateException("fabric " + name + " is threaded");
        }
        return (DeterministicScheduler) scheduler;
    }

    /** Creates a device with default limits. */
    public DeviceImpl createDevice(String deviceName) {
        return createDevice(DeviceConfig.named(deviceName));
    }

    /**
     * Creates a device (a simulated HCA) from {@code config}.
     *
     * @throws IllegalArgumentException if the name is taken or a limit is invalid
     */
    public DeviceImpl createDevice(DeviceConfig config) {
        return createDevice(config, null);
    }

    /**
     * Creates a device whose engine runs on {@code executor}, an executor of this fabric's scheduler
     * (a transport passes the event loop of its sockets, so that I/O and engine share a thread).
     *
     * @throws IllegalArgumentException if the executor belongs to another scheduler, the name is
     *                                  taken or a limit is invalid
     */
    public DeviceImpl createDevice(DeviceConfig config, EngineExecutor executor) {
        Objects.requireNonNull(config, "config");
        if (executor != null && executor.scheduler() != scheduler) {
            throw new IllegalArgumentException("executor " + executor.name() + " belongs to another scheduler");
        }
        synchronized (devices) {
            checkOpen();
            if (devices.containsKey(config.name())) {
                throw new IllegalArgumentException("fabric " + name + " already has a device named " + config.name());
            }
            int index = ++deviceIndex;
            long guid = config.guid() != 0 ? config.guid() : GUID_BASE + index;
            EngineExecutor ex = executor != null ? executor : scheduler.newExecutor(name + "-" + config.name());
            DeviceImpl d = new DeviceImpl(this, config, guid, ex, (int) (seed * 31 + index));
            if (byGid.putIfAbsent(d.gid(), d) != null) {
                throw new IllegalArgumentException(
                        "GUID 0x" + Long.toHexString(guid) + " is already used in fabric " + name);
            }
            devices.put(config.name(), d);
            return d;
        }
    }

    /** The device named {@code deviceName}, or null. */
    public DeviceImpl device(String deviceName) {
        synchronized (devices) {
            return devices.get(deviceName);
        }
    }

    /** The device that owns {@code gid}, or null. */
    public DeviceImpl device(Gid gid) {
        return byGid.get(gid);
    }

    /** All devices, in creation order. */
    public List<Device> devices() {
        synchronized (devices) {
            return new ArrayList<>(devices.values());
        }
    }

    /** The link between {@code x} and {@code y} (the same link either way round), created if needed. */
    public LinkImpl link(Device dx, Device dy) {
        if (!(dx instanceof DeviceImpl) || !(dy instanceof DeviceImpl)) {
            throw new IllegalArgumentException("device of another fabric");
        }
        DeviceImpl x = (DeviceImpl) dx;
        DeviceImpl y = (DeviceImpl) dy;
        if (x.fabric() != this || y.fabric() != this) {
            throw new IllegalArgumentException("device of another fabric");
        }
        String key =
                x.name().compareTo(y.name()) <= 0 ? x.name() + "\u0000" + y.name() : y.name() + "\u0000" + x.name();
        return links.computeIfAbsent(key, k -> x.name().compareTo(y.name()) <= 0 ? newLink(x, y) : newLink(y, x));
    }

    private LinkImpl newLink(DeviceImpl a, DeviceImpl b) {
        // One random source per direction, drawn in this order (a loopback link has one direction).
        SplittableRandom ab = newRandom();
        SplittableRandom ba = a == b ? null : newRandom();
        return new LinkImpl(tracer, scheduler, control, a, b, defaultLink, ab, ba);
    }

    /**
     * The route from {@code from} to the port owning {@code to}: the link to a local device, or
     * a remote transport's route; null if nobody owns it.
     */
    PacketRoute route(DeviceImpl from, Gid to) {
        DeviceImpl d = byGid.get(to);
        if (d != null) {
            return d.isClosed() ? null : link(from, d);
        }
        for (RemoteTransport t : transports) {
            PacketRoute r = t.route(from, to);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    /** Adds a transport that reaches devices in other JVMs. */
    public void addRemoteTransport(RemoteTransport transport) {
        transports.add(Objects.requireNonNull(transport, "transport"));
    }

    /** Removes a transport added with {@link #addRemoteTransport}. */
    public void removeRemoteTransport(RemoteTransport transport) {
        transports.remove(transport);
    }

    /**
     * The GID of a node: the name of a device of this fabric, a name a remote transport knows
     * (such as "host:port" of a TCP node), or a numeric GID / IPv6 / IPv4 address.
     *
     * @return the GID, or null if the name means nothing here
     */
    public Gid resolve(String node) {
        Objects.requireNonNull(node, "node");
        DeviceImpl d = device(node);
        if (d != null) {
            return d.gid();
        }
        for (RemoteTransport t : transports) {
            Gid g = t.resolve(node);
            if (g != null) {
                return g;
            }
        }
        if (node.indexOf(':') >= 0 || node.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            try {
                return Gid.parse(node);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return null;
    }

    private SplittableRandom newRandom() {
        if (scheduler instanceof DeterministicScheduler) {
            return ((DeterministicScheduler) scheduler).newRandom();
        }
        synchronized (threadedSeeds) {
            return threadedSeeds.split();
        }
    }

    void deviceClosed(DeviceImpl d) {
        byGid.remove(d.gid(), d);
        for (LinkImpl l : links.values()) {
            if (l.a() == d || l.b() == d) {
                l.remove();
            }
        }
        synchronized (devices) {
            devices.remove(d.name(), d);
        }
    }

    /**
     * The fabric-wide instance of a service (the connection manager, a capture writer...), created
     * by {@code factory} on first use. Services that are {@link AutoCloseable} are closed, newest
     * first, when the fabric closes, before its devices.
     */
    public <T> T service(Class<T> type, java.util.function.Function<Fabric, T> factory) {
        synchronized (services) {
            checkOpen();
            Object s = services.get(type);
            if (s == null) {
                s = Objects.requireNonNull(factory.apply(this), "service");
                services.put(type, s);
            }
            return type.cast(s);
        }
    }

    /** The instance of a service if one was created, or null. */
    public <T> T serviceIfPresent(Class<T> type) {
        synchronized (services) {
            return type.cast(services.get(type));
        }
    }

    // ------------------------------------------------------------------ tracing

    @Override
    public void addTraceListener(TraceListener l) {
        tracer.add(l);
    }

    @Override
    public void removeTraceListener(TraceListener l) {
        tracer.remove(l);
    }

    /** The fabric's trace, for the devices, links and transports that report to it. */
    public void traceStateChange(Device device, String object, String from, String to) {
        tracer.stateChange(device, object, from, to);
    }

    public Tracer tracer() {
        return tracer;
    }

    // ------------------------------------------------------------------ lifecycle

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("fabric " + name + " is closed");
        }
    }

    /**
     * Closes the fabric: destroys every object of every device (without completions), stops the
     * executors and releases their threads.
     */
    @Override
    public void close() {
        List<DeviceImpl> all;
        synchronized (devices) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(devices.values());
        }
        List<Object> svc;
        synchronized (services) {
            svc = new ArrayList<>(services.values());
            services.clear();
        }
        java.util.Collections.reverse(svc);
        for (Object s : svc) {
            if (s instanceof AutoCloseable) {
                try {
                    ((AutoCloseable) s).close();
                } catch (Exception e) {
                    LOG.error("closing service {} failed", s, e);
                }
            }
        }
        for (DeviceImpl d : all) {
            try {
                d.forceClose();
            } catch (RuntimeException e) {
                LOG.error("closing device {} failed", d.name(), e);
            }
        }
        for (LinkImpl l : links.values()) {
            l.remove();
        }
        scheduler.close();
        byGid.clear();
        synchronized (devices) {
            devices.clear();
        }
    }

    @Override
    public String toString() {
        return "Fabric[" + name + ", " + (scheduler.isDeterministic() ? "deterministic seed " + seed : "threaded")
                + "]";
    }
}
