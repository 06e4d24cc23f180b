package io.simrdma.fabric;

import io.simrdma.fabric.wire.Gid;
import java.util.Objects;

/**
 * How to create a simulated device: its name, its {@link DeviceProfile} (how it behaves where real
 * devices differ, and its default limits) and any limit set apart from the profile's. A limit set
 * here overrides the profile's, in whatever order the calls come; every limit can be lowered (to
 * test exhaustion) or raised.
 * <pre>{@code
 * Device a = fabric.createDevice(DeviceConfig.named("a").profile(DeviceProfile.MLX5).maxQp(4).maxCqe(16));
 * }</pre>
 *
 * <p>Thread safety: not thread-safe; validated once when the device is created.
 */
public final class DeviceConfig {

    private final String name;
    private DeviceProfile profile = DeviceProfile.DEFAULT;
    private long guid;
    private Long maxMrSize;
    private Integer maxQp;
    private Integer maxQpWr;
    private Integer maxSge;
    private Integer maxSgeRd;
    private Integer maxCq;
    private Integer maxCqe;
    private Integer maxMr;
    private Integer maxPd;
    private Integer maxQpRdAtom;
    private Integer maxResRdAtom;
    private Integer maxQpInitRdAtom;
    private Integer maxMw;
    private Integer maxSrq;
    private Integer maxSrqWr;
    private Integer maxSrqSge;
    private Integer maxInlineData;
    private Integer numCompVectors;
    private Mtu maxMtu;
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

    /**
     * The device's profile: how it behaves where real devices differ, and its default limits
     * (default {@link DeviceProfile#DEFAULT}).
     */
    public DeviceConfig profile(DeviceProfile p) {
        this.profile = Objects.requireNonNull(p, "profile");
        return this;
    }

    /** The profile set with {@link #profile(DeviceProfile)}. */
    public DeviceProfile profile() {
        return profile;
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

    /** Completion vectors of the device (num_comp_vectors; default: the profile's). */
    public DeviceConfig numCompVectors(int v) {
        this.numCompVectors = v;
        return this;
    }

    /** Largest MTU of the port; also its active MTU (default: the profile's). */
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

    /** The port's largest MTU: the one set, else the profile's. */
    public Mtu maxMtu() {
        return maxMtu != null ? maxMtu : profile.limits().maxMtu();
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
     * The attributes a device built from this configuration reports (ibv_query_device(3)): the
     * profile's limits, each replaced by the one set here if any.
     *
     * @throws IllegalArgumentException if a limit is not positive
     */
    public DeviceAttributes attributes(long assignedGuid) {
        DeviceProfile.Limits l = profile.limits();
        int qp = or(maxQp, l.maxQp());
        int qpWr = or(maxQpWr, l.maxQpWr());
        int sge = or(maxSge, l.maxSge());
        int sgeRd = or(maxSgeRd, l.maxSgeRd());
        int cq = or(maxCq, l.maxCq());
        int cqe = or(maxCqe, l.maxCqe());
        int mr = or(maxMr, l.maxMr());
        int pd = or(maxPd, l.maxPd());
        int qpRdAtom = or(maxQpRdAtom, l.maxQpRdAtom());
        int resRdAtom = or(maxResRdAtom, l.maxResRdAtom());
        int qpInitRdAtom = or(maxQpInitRdAtom, l.maxQpInitRdAtom());
        int mw = or(maxMw, l.maxMw());
        int srq = or(maxSrq, l.maxSrq());
        int srqWr = or(maxSrqWr, l.maxSrqWr());
        int srqSge = or(maxSrqSge, l.maxSrqSge());
        int inline = or(maxInlineData, l.maxInlineData());
        int compVectors = or(numCompVectors, l.numCompVectors());
        long mrSize = maxMrSize != null ? maxMrSize : l.maxMrSize();
        positive("maxQp", qp);
        positive("maxQpWr", qpWr);
        positive("maxSge", sge);
        positive("maxSgeRd", sgeRd);
        positive("maxCq", cq);
        positive("maxCqe", cqe);
        positive("maxMr", mr);
        positive("maxPd", pd);
        positive("maxSrq", srq);
        positive("maxSrqWr", srqWr);
        positive("maxSrqSge", srqSge);
        positive("maxUnackedPsns", maxUnackedPsns);
        positive("numCompVectors", compVectors);
        if (mw < 0 || qpRdAtom < 0 || qpInitRdAtom < 0 || resRdAtom < 0 || inline < 0) {
            throw new IllegalArgumentException("negative limit in " + name);
        }
        if (mrSize <= 0 || mrSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "maxMrSize must be in 1.." + Integer.MAX_VALUE + " (a ByteBuffer's limit)");
        }
        if (maxUnackedPsns > (1 << 22)) {
            throw new IllegalArgumentException("maxUnackedPsns must stay below 2^22 to keep PSN comparisons sound");
        }
        return new DeviceAttributes(
                l.fwVer(),
                assignedGuid,
                assignedGuid,
                mrSize,
                4096L,
                l.vendorId(),
                l.vendorPartId(),
                l.hwVer(),
                qp,
                qpWr,
                sge,
                sgeRd,
                cq,
                cqe,
                mr,
                pd,
                qpRdAtom,
                resRdAtom,
                qpInitRdAtom,
                mw,
                srq,
                srqWr,
                srqSge,
                l.maxPkeys(),
                inline,
                l.localCaAckDelay(),
                1,
                profile.atomicCap(),
                profile.capabilities(),
                compVectors);
    }

    private static int or(Integer set, int profileValue) {
        return set != null ? set : profileValue;
    }

    private void positive(String what, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive in device " + name + ": " + v);
        }
    }
}
