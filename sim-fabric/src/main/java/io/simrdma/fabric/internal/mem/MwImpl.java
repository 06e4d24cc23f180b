package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.MemoryWindow;
import io.simrdma.fabric.MwType;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WrOpcode;

/**
 * A memory window (struct ibv_mw): a remotely accessible window onto part of a memory region,
 * with its own R_Key and rights (ibv_alloc_mw(3), ibv_bind_mw(3)).
 *
 * <ul>
 *   <li>Type 1: bound with {@link io.simrdma.fabric.QueuePair#bindMw}; the R_Key changes on every bind
 *       ({@link #incrementRkey(int)}); a bind of length 0 unbinds it; bound to the PD.</li>
 *   <li>Type 2: bound with a posted {@link WrOpcode#BIND_MW} work request carrying the new R_Key;
 *       bound to the QP that bound it, usable only through that QP; invalidated by LOCAL_INV or
 *       by a remote SEND_WITH_INV; must be invalidated before it is bound again.</li>
 * </ul>
 *
 * <p>Thread safety: thread-safe.
 */
public final class MwImpl implements MemoryWindow {

    private final PdImpl pd;
    private final MwType type;
    /** The R_Key as the application sees it: updated when a bind is posted (ibv_bind_mw(3)). */
    private volatile int rkey;
    /** The R_Key the engine honours: updated when a bind executes. Engine thread only. */
    public int activeRkey;

    public boolean bound;
    public MrImpl mr;
    public long addr;
    public long length;
    public int access;
    public WindowOwner boundQp;
    public volatile boolean deallocated;

    public MwImpl(PdImpl pd, MwType type, int rkey) {
        this.pd = pd;
        this.type = type;
        this.rkey = rkey;
        this.activeRkey = rkey;
    }

    public PdImpl pd() {
        return pd;
    }

    public MwType type() {
        return type;
    }

    /** The window's R_Key: after a bind is posted, the key it will have once the bind completes. */
    public int rkey() {
        return rkey;
    }

    /** Sets the R_Key the application sees (when a bind is posted). */
    public void rkey(int k) {
        this.rkey = k;
    }

    /**
     * Deallocates the window (ibv_dealloc_mw(3)), unbinding it first if bound.
     *
     * @throws VerbsException ENOENT if already deallocated
     */
    public void dealloc() {
        pd.owner().executor().call(() -> {
            pd.owner().memory().destroyMw(this);
            return null;
        });
        FabricObserver o = pd.owner().observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    @Override
    public String toString() {
        return "MW[type=" + type + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
