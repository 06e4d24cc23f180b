package io.simrdma.fabric;

import io.simrdma.fabric.sched.DeterministicScheduler;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.IdleStrategy;
import io.simrdma.fabric.sched.Scheduler;
import io.simrdma.fabric.wire.Gid;
import java.util.List;
import java.util.Objects;

/**
 * A simulated RDMA fabric: devices (simulated HCAs), the links between them, a clock and a
 * scheduler. Every pair of devices is connected by a {@link Link} created on first use with the
 * fabric's default link configuration; {@link #link} returns it to change its timing or faults.
 *
 * <pre>{@code
 * try (Fabric fabric = Fabric.deterministic(42)) {       // or Fabric.threaded()
 *     Device a = fabric.createDevice("a");
 *     Device b = fabric.createDevice("b");
 *     fabric.link(a, b).addFault(FaultRule.drop(PacketMatcher.any(), 0.1));
 *     ...
 * }
 * }</pre>
 *
 * <p>Deterministic fabrics run all engine work on the application's thread in virtual time when
 * it waits or polls; the same seed replays the same run. Threaded fabrics run each device on a
 * thread of its own in real time.
 *
 * <p>Thread safety: thread-safe.
 */
public interface Fabric extends AutoCloseable {

    /** A deterministic fabric: virtual time, every choice drawn from {@code seed}. */
    static Fabric deterministic(long seed) {
        return builder().deterministic(seed).build();
    }

    /** A threaded fabric: real time, a thread per device. */
    static Fabric threaded() {
        return builder().threaded().build();
    }

    static Builder builder() {
        return new Builder();
    }

    String name();

    Scheduler scheduler();

    /** The seed the fabric was built with. */
    long seed();

    /** Current time on the fabric's clock, in nanoseconds (virtual for deterministic fabrics). */
    long now();

    /** The deterministic scheduler, to run or advance virtual time explicitly. */
    DeterministicScheduler deterministicScheduler();

    /** Creates a device with default limits. */
    Device createDevice(String deviceName);

    /**
     * Creates a device (a simulated HCA) from {@code config}.
     *
     * @throws IllegalArgumentException if the name is taken or a limit is invalid
     */
    Device createDevice(DeviceConfig config);

    /**
     * Creates a device whose engine runs on {@code executor}, an executor of this fabric's scheduler
     * (a transport passes the event loop of its sockets, so that I/O and engine share a thread).
     *
     * @throws IllegalArgumentException if the executor belongs to another scheduler, the name is
     *                                  taken or a limit is invalid
     */
    Device createDevice(DeviceConfig config, EngineExecutor executor);

    /** The device named {@code deviceName}, or null. */
    Device device(String deviceName);

    /** The device that owns {@code gid}, or null. */
    Device device(Gid gid);

    /** All devices, in creation order. */
    List<Device> devices();

    /** The link between {@code x} and {@code y} (the same link either way round), created if needed. */
    Link link(Device x, Device y);

    /**
     * The GID of a node: the name of a device of this fabric, a name a remote transport knows
     * (such as "host:port" of a TCP node), or a numeric GID / IPv6 / IPv4 address.
     *
     * @return the GID, or null if the name means nothing here
     */
    Gid resolve(String node);

    /**
     * The fabric-wide instance of a service (the connection manager, a capture writer...), created
     * by {@code factory} on first use. Services that are {@link AutoCloseable} are closed, newest
     * first, when the fabric closes, before its devices.
     */
    <T> T service(Class<T> type, java.util.function.Function<Fabric, T> factory);

    /** The instance of a service if one was created, or null. */
    <T> T serviceIfPresent(Class<T> type);

    void addTraceListener(TraceListener l);

    void removeTraceListener(TraceListener l);

    /**
     * Reports a state change of an object of a layer above verbs (a DAT endpoint, say) to the
     * trace listeners ({@link TraceListener#onStateChange}), stamped with the fabric's clock. Costs
     * nothing when no listener is registered. Any thread.
     *
     * @param device the device the object lives on
     * @param object a short name of the object
     * @param from   the state it left
     * @param to     the state it entered
     */
    void traceStateChange(Device device, String object, String from, String to);

    /**
     * Closes the fabric: destroys every object of every device (without completions), stops the
     * executors and releases their threads.
     */
    @Override
    void close();

    /** Fabric configuration, checked once in {@link #build()}. */
    final class Builder {
        private String name = "fabric";
        private boolean deterministic = true;
        private long seed;
        private LinkConfig linkConfig;
        private IdleStrategy idleStrategy = IdleStrategy.backoff();
        private FabricObserver observer;

        private Builder() {}

        public Builder name(String n) {
            this.name = Objects.requireNonNull(n, "name");
            return this;
        }

        /** Virtual time and seeded choices (the default, seed 0). */
        public Builder deterministic(long s) {
            this.deterministic = true;
            this.seed = s;
            return this;
        }

        /** Real time and a thread per device. */
        public Builder threaded() {
            this.deterministic = false;
            return this;
        }

        /** Seed for the fault decisions of a threaded fabric (reproducible only up to timing). */
        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** Timing of every link unless changed per link; default 1 us / 100 Gb/s deterministic, instant threaded. */
        public Builder defaultLink(LinkConfig c) {
            this.linkConfig = Objects.requireNonNull(c, "link config");
            return this;
        }

        /**
         * How a threaded fabric's device threads wait for work (spin, yield, park); default
         * {@link IdleStrategy#backoff()}. Ignored by a deterministic fabric,
         * whose engine runs on the application's thread.
         */
        public Builder idleStrategy(IdleStrategy s) {
            this.idleStrategy = Objects.requireNonNull(s, "idle strategy");
            return this;
        }

        /**
         * Installs {@code o} to watch the fabric's verbs objects and the memory its work requests
         * hand over ({@link FabricObserver}); for test tools. None by default.
         */
        public Builder observer(FabricObserver o) {
            this.observer = Objects.requireNonNull(o, "observer");
            return this;
        }

        /** The fabric's name. */
        public String name() {
            return name;
        }

        /** True for virtual time (the default). */
        public boolean isDeterministic() {
            return deterministic;
        }

        /** The seed. */
        public long seed() {
            return seed;
        }

        /** How a threaded fabric's device threads wait for work. */
        public IdleStrategy idleStrategy() {
            return idleStrategy;
        }

        /** The default link configuration, or null for the mode's default. */
        public LinkConfig defaultLink() {
            return linkConfig;
        }

        /** The observer, or null. */
        public FabricObserver observer() {
            return observer;
        }

        /**
         * Builds the fabric.
         *
         * @throws IllegalArgumentException if the name is empty
         */
        public Fabric build() {
            if (name.isEmpty()) {
                throw new IllegalArgumentException("fabric name is empty");
            }
            // The one place the API names its implementation (as java.net.http.HttpClient.newBuilder does).
            return new io.simrdma.fabric.internal.device.FabricImpl(this);
        }
    }
}
