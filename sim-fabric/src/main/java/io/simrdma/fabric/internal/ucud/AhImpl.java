package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.AddressHandle;
import io.simrdma.fabric.AhAttr;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.internal.mem.PdImpl;

/**
 * An address handle (ibv_create_ah(3)): an immutable address vector in a PD. Created and destroyed
 * on the device executor; read by UD senders there.
 *
 * <p>Thread safety: thread-safe.
 */
public final class AhImpl implements AddressHandle {

    private final PdImpl pd;
    private final AhAttr attr;
    private volatile boolean valid = true;
    /** The route its sends take, found once; engine thread. */
    io.simrdma.fabric.internal.link.PacketRoute route;

    private AhImpl(PdImpl pd, AhAttr attr) {
        this.pd = pd;
        this.attr = attr;
    }

    /**
     * Checks {@code attr} as ibv_create_ah(3) and the kernel do, then makes the handle and counts
     * it as a resource of {@code pd} (its dealloc is EBUSY while the handle lives). Engine thread.
     *
     * @throws VerbsException EINVAL for a bad port, sgid_index, SL, flow label, hop limit or traffic class
     */
    public static AhImpl create(PdImpl pd, AhAttr attr) {
        if (attr.portNum() != 1) {
            throw VerbsException.invalid(
                    "ibv_create_ah(3): port_num " + attr.portNum() + ": the device has one port, numbered 1");
        }
        if (attr.sgidIndex() != 0) {
            throw VerbsException.invalid(
                    "ibv_create_ah(3): sgid_index " + attr.sgidIndex() + " outside the GID table (1 entry)");
        }
        VerbsException.checkRange("ibv_create_ah(3): sl", attr.sl(), 0, 15);
        VerbsException.checkRange("ibv_create_ah(3): flow_label", attr.flowLabel(), 0, (1 << 20) - 1);
        VerbsException.checkRange("ibv_create_ah(3): hop_limit", attr.hopLimit(), 0, 255);
        VerbsException.checkRange("ibv_create_ah(3): traffic_class", attr.trafficClass(), 0, 255);
        AhImpl ah = new AhImpl(pd, attr);
        pd.resources++;
        return ah;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    public PdImpl pdImpl() {
        return pd;
    }

    @Override
    public AhAttr attr() {
        return attr;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public void destroy() {
        pd.owner().executor().call(() -> {
            if (!valid) {
                throw VerbsException.stale("address handle already destroyed");
            }
            valid = false;
            pd.resources--;
            return null;
        });
        io.simrdma.fabric.FabricObserver o = pd.owner().observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    @Override
    public String toString() {
        return "AH[" + attr.dgid() + ", sl " + attr.sl() + "]";
    }
}
