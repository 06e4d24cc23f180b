package io.simrdma.fabric;

import io.simrdma.fabric.wire.Gid;

import java.util.Objects;

/**
 * How to create a simulated device: its name and its limits. Defaults resemble a small
 * Soft-RoCE device; every limit can be lowered (to test exhaustion) or raised.
 * <pre>{@code
 * Device a = fabric.createDevice(DeviceConfig.named("a").maxQp(4).maxCqe(16));
 * }</pre>
 *
 * <p>Thread safety: not thread-safe; validated once when the device is created.
 */
public final class DeviceConfig {

    private final String name;
    private long guid;
    private long maxMrSize = Integer.MAX_VALUE;
    private int maxQp = 1024;
    private int maxQpWr = 16384;
    private int maxSge = 32;
    private int maxSgeRd = 32;
    private int maxCq = 1024;
    private int maxCqe = 65535;
    private int maxMr = 65536;
    private int maxPd = 1024;
    private int maxQpRdAtom = 128;
    private int maxResRdAtom = 128 * 1024;
    private int maxQpInitRdAtom = 128;
    private int maxMw = 65536;
    private int maxSrq = 1024;
    private int maxSrqWr = 16384;
    private int maxSrqSge = 32;
    private int maxInlineData = 512;
    private Mtu maxMtu = Mtu.MTU_4096;
    private int maxUnackedPsns = 128;
    private Gid gid;

    private DeviceConfig(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** A device named {@code name}, unique within its fabric. */
    public static DeviceConfig named(String name) {
        return new DeviceConfig(name);
    }

    public String name() {
        return name;
    }

    /** Node GUID; 0 (the default) lets the fabric assign one from the device's index. */
    public DeviceConfig guid(long guid) {
        this.guid = guid;
        return this;
    }

    public DeviceConfig maxMrSize(long v) {
        this.maxMrSize = v;
        return this;
    }

    public DeviceConfig maxQp(int v) {
        this.maxQp = v;
        return this;
    }

    public DeviceConfig maxQpWr(int v) {
        this.maxQpWr = v;
        return this;
    }

    public DeviceConfig maxSge(int v) {
        this.maxSge = v;
        return this;
    }

    public DeviceConfig maxSgeRd(int v) {
        this.maxSgeRd = v;
        return this;
    }

    public DeviceConfig maxCq(int v) {
        this.maxCq = v;
        return this;
    }

    public DeviceConfig maxCqe(int v) {
        this.maxCqe = v;
        return this;
    }

    public DeviceConfig maxMr(int v) {
        this.maxMr = v;
        return this;
    }

    public DeviceConfig maxPd(int v) {
        this.maxPd = v;
        return this;
    }

    public DeviceConfig maxQpRdAtom(int v) {
        this.maxQpRdAtom = v;
        return this;
    }

    public DeviceConfig maxResRdAtom(int v) {
        this.maxResRdAtom = v;
        return this;
    }

    public DeviceConfig maxQpInitRdAtom(int v) {
        this.maxQpInitRdAtom = v;
        return this;
    }

    public DeviceConfig maxMw(int v) {
        this.maxMw = v;
        return this;
    }

    public DeviceConfig maxSrq(int v) {
        this.maxSrq = v;
        return this;
    }

    public DeviceConfig maxSrqWr(int v) {
        this.maxSrqWr = v;
        return this;
    }

    public DeviceConfig maxSrqSge(int v) {
        this.maxSrqSge = v;
        return this;
    }

    public DeviceConfig maxInlineData(int v) {
        this.maxInlineData = v;
        return this;
    }

    /** Largest MTU of the port; also its active MTU. */
    public DeviceConfig maxMtu(Mtu v) {
        this.maxMtu = Objects.requireNonNull(v);
        return this;
    }

    /** Packets a QP may send beyond the oldest unacknowledged one (the requester's window). */
    public DeviceConfig maxUnackedPsns(int v) {
        this.maxUnackedPsns = v;
        return this;
    }

    /**
     * The port's GID; by default the link-local GID of the node GUID (fe80::guid). A transport
     * that reaches the device from other JVMs sets one that encodes its address.
     */
    public DeviceConfig gid(Gid g) {
        this.gid = java.util.Objects.requireNonNull(g, "gid");
        return this;
    }

    /** The GID set with {@link #gid(Gid)}, or null for the default. */
    public Gid gid() {
        return gid;
    }

    /** The port's largest MTU. */
    public Mtu maxMtu() {
        return maxMtu;
    }

    /** How many PSNs a requester may have outstanding. */
    public int maxUnackedPsns() {
        return maxUnackedPsns;
    }

    /** The node GUID set, or 0 for one the fabric assigns. */
    public long guid() {
        return guid;
    }

    /**
     * The attributes a device built from this configuration reports (ibv_query_device(3)).
     *
     * @throws IllegalArgumentException if a limit is not positive
     */
    public DeviceAttributes attributes(long assignedGuid) {
        positive("maxQp", maxQp);
        positive("maxQpWr", maxQpWr);
        positive("maxSge", maxSge);
        positive("maxSgeRd", maxSgeRd);
        positive("maxCq", maxCq);
        positive("maxCqe", maxCqe);
        positive("maxMr", maxMr);
        positive("maxPd", maxPd);
        positive("maxMw", maxMw);
        positive("maxSrq", maxSrq);
        positive("maxSrqWr", maxSrqWr);
        positive("maxSrqSge", maxSrqSge);
        positive("maxUnackedPsns", maxUnackedPsns);
        if (maxQpRdAtom < 0 || maxQpInitRdAtom < 0 || maxResRdAtom < 0 || maxInlineData < 0) {
            throw new IllegalArgumentException("negative limit in " + name);
        }
        if (maxMrSize <= 0 || maxMrSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxMrSize must be in 1.." + Integer.MAX_VALUE + " (a ByteBuffer's limit)");
        }
        if (maxUnackedPsns > (1 << 22)) {
            throw new IllegalArgumentException("maxUnackedPsns must stay below 2^22 to keep PSN comparisons sound");
        }
        return new DeviceAttributes("simrdma 0.1", assignedGuid, assignedGuid, maxMrSize, 4096L, 0x0002c9,
                0x5352, 1, maxQp, maxQpWr, maxSge, maxSgeRd, maxCq, maxCqe, maxMr, maxPd, maxQpRdAtom, maxResRdAtom,
                maxQpInitRdAtom, maxMw, maxSrq, maxSrqWr, maxSrqSge, 1, maxInlineData, 15, 1);
    }

    private void positive(String what, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive in device " + name + ": " + v);
        }
    }
}
