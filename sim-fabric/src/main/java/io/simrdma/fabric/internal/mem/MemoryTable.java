package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.MwType;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.WcStatus;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A device's memory: its key table, the memory regions and windows registered on it, the
 * simulated virtual addresses regions get, and the memory window operations (bind, invalidate)
 * of IBA 10.6.7, which the RC engine executes when it reaches a BIND_MW or LOCAL_INV work request
 * or receives a SEND with invalidate.
 *
 * <p>Thread safety: every method runs on the owning device's executor; key lookups
 * ({@link #keys()}) are safe from any thread.
 */
public final class MemoryTable {

    private static final long VA_BASE = 0x7f00_0000_0000L;
    private static final long PAGE = 4096;

    private final DeviceAttributes attributes;
    private final KeyTable keys;
    private long nextVa = VA_BASE;
    /**
     * The valid regions, for finding memory by address alone (an inline SGE, whose L_Key is not
     * checked): a copy-on-write snapshot, replaced on the engine thread, read from posting threads.
     */
    private volatile MrImpl[] regions = new MrImpl[0];

    private int mrCount;
    private int mwCount;

    public MemoryTable(DeviceAttributes attributes, int keySeed) {
        this.attributes = attributes;
        this.keys = new KeyTable(keySeed);
    }

    /** The key table: L_Keys and R_Keys to regions and windows. */
    public KeyTable keys() {
        return keys;
    }

    /**
     * Registers a region (ibv_reg_mr(3)) of {@code pd} over {@code view}; a negative {@code iova}
     * takes the next free simulated virtual address range.
     *
     * @throws VerbsException ENOMEM beyond max_mr
     */
    public MrImpl createMr(PdImpl pd, ByteBuffer view, long iova, int length, int access) {
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
        MrImpl[] r = regions;
        MrImpl[] grown = java.util.Arrays.copyOf(r, r.length + 1);
        grown[r.length] = mr;
        regions = grown;
        mrCount++;
        pd.resources++;
        return mr;
    }

    /**
     * Deregisters a region (ibv_dereg_mr(3)).
     *
     * @throws VerbsException ENOENT if already deregistered; EBUSY while a window is bound to it
     */
    public void destroyMr(MrImpl mr) {
        if (!mr.valid) {
            throw VerbsException.stale("memory region already deregistered");
        }
        // ibv_dereg_mr(3): fails while a memory window is bound to the region.
        if (mr.boundWindows > 0) {
            throw VerbsException.busy(mr.boundWindows + " memory window(s) still bound to " + mr);
        }
        mr.valid = false;
        keys.release(mr.lkey());
        MrImpl[] r = regions;
        MrImpl[] shrunk = new MrImpl[r.length - 1];
        for (int i = 0, j = 0; i < r.length; i++) {
            if (r[i] != mr) {
                shrunk[j++] = r[i];
            }
        }
        regions = shrunk;
        mrCount--;
        mr.pd().resources--;
    }

    /**
     * Re-registers {@code mr} (ibv_rereg_mr(3)) with the checked arguments: the region gets new
     * keys (reserved before the old ones are freed, so they differ), moves to {@code pd}, and
     * with {@code translation} takes {@code view} at the next free simulated virtual range.
     *
     * @throws VerbsException ENOENT if the region was deregistered; EBUSY while a window is bound
     *                        to it (uverbs refuses a region in use)
     */
    public void reregister(MrImpl mr, PdImpl pd, ByteBuffer view, boolean translation, int length, int access) {
        if (!mr.valid) {
            throw VerbsException.stale("memory region was deregistered");
        }
        if (mr.boundWindows > 0) {
            throw VerbsException.busy(mr.boundWindows + " memory window(s) still bound to " + mr);
        }
        long base = mr.address();
        boolean zeroBased = (access & AccessFlag.ZERO_BASED.bit()) != 0;
        boolean wasZeroBased = (mr.accessMask() & AccessFlag.ZERO_BASED.bit()) != 0;
        if (zeroBased) {
            base = 0;
        } else if (translation || wasZeroBased) {
            base = nextVa;
            nextVa += ((length + PAGE - 1) / PAGE + 1) * PAGE;
        }
        int oldKey = mr.lkey();
        int key = keys.reserve();
        keys.release(oldKey);
        mr.pd().resources--;
        pd.resources++;
        mr.rebind(pd, view, base, length, access, key);
        keys.install(key, mr);
    }

    /**
     * The registered region of this device holding [{@code addr}, {@code addr + len}) as a
     * virtual address, whatever its PD, or null: how inline data is found, whose L_Key the HCA
     * does not check (ibv_post_send(3) IBV_SEND_INLINE) because the CPU copies it from the
     * process's memory. ZERO_BASED regions have no address of their own and are never found.
     * Any thread; not on the hot path (a post tries the L_Key's region first).
     */
    public MrImpl regionAt(long addr, long len) {
        for (MrImpl m : regions) {
            if (m.valid
                    && (m.accessMask() & AccessFlag.ZERO_BASED.bit()) == 0
                    && MemoryAccess.inRange(m.address(), m.length(), addr, len)) {
                return m;
            }
        }
        return null;
    }

    /**
     * Allocates a window (ibv_alloc_mw(3)).
     *
     * @throws VerbsException ENOMEM beyond max_mw
     */
    public MwImpl createMw(PdImpl pd, MwType type) {
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

    /**
     * Deallocates a window (ibv_dealloc_mw(3)), unbinding it first.
     *
     * @throws VerbsException ENOENT if already deallocated
     */
    public void destroyMw(MwImpl mw) {
        if (mw.deallocated) {
            throw VerbsException.stale("memory window already deallocated");
        }
        if (mw.bound) {
            unbind(mw);
        }
        mw.deallocated = true;
        keys.release(mw.activeRkey);
        mwCount--;
        mw.pd().resources--;
    }

    private static void unbind(MwImpl mw) {
        if (mw.boundQp != null) {
            mw.boundQp.windowsBound(-1);
        }
        mw.bound = false;
        mw.mr.boundWindows--;
        mw.mr = null;
        mw.boundQp = null;
        mw.addr = 0;
        mw.length = 0;
        mw.access = 0;
    }

    /**
     * Executes a bind of {@code mw} posted on {@code qp} when the requester reaches it: a type 1
     * bind (ibv_bind_mw(3)) or a BIND_MW work request of a type 2 window.
     *
     * @return SUCCESS, or MW_BIND_ERR ("memory management operation error") when the rules of
     *         ibv_bind_mw(3) / ibv_alloc_mw(3) / IBA 10.6.7 are broken
     */
    public WcStatus bind(
            WindowOwner qp, MwImpl mw, MrImpl mr, int bindRkey, long bindAddr, long bindLength, int bindAccess) {
        if (mw.deallocated || mw.pd() != qp.pd()) {
            return WcStatus.MW_BIND_ERR;
        }
        if (mw.type() == MwType.TYPE_1 && bindLength == 0) {
            // ibv_alloc_mw(3): a zero-length bind invalidates a type 1 window.
            if (mw.bound) {
                unbind(mw);
            }
            return WcStatus.SUCCESS;
        }
        if (mw.type() == MwType.TYPE_2) {
            if (mw.bound) {
                // A type 2 window must be invalidated before it is bound again.
                return WcStatus.MW_BIND_ERR;
            }
            if (bindLength == 0 || mr == null) {
                // IBA o10-37.2.40 (rxe_check_bind_mw): a type 2 window is unbound by LOCAL_INV or
                // SEND_WITH_INV, never by a zero-length bind.
                return WcStatus.MW_BIND_ERR;
            }
            if ((bindRkey & 0xFFFFFF00) != (mw.activeRkey & 0xFFFFFF00)) {
                // The new R_Key may change only its low 8 bits (ibv_inc_rkey(3)).
                return WcStatus.MW_BIND_ERR;
            }
        }
        // IBA o10-36.2.2: only type 2 windows may be zero based.
        int allowed = AccessFlag.REMOTE_READ.bit()
                | AccessFlag.REMOTE_WRITE.bit()
                | AccessFlag.REMOTE_ATOMIC.bit()
                | (mw.type() == MwType.TYPE_2 ? AccessFlag.ZERO_BASED.bit() : 0);
        if ((bindAccess & ~allowed) != 0) {
            return WcStatus.MW_BIND_ERR;
        }
        if (!mr.valid || mr.pd() != qp.pd() || (mr.accessMask() & AccessFlag.MW_BIND.bit()) == 0) {
            return WcStatus.MW_BIND_ERR;
        }
        // ibv_bind_mw(3): remote write and atomic access through a window need local write on the region.
        if ((bindAccess & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0
                && (mr.accessMask() & AccessFlag.LOCAL_WRITE.bit()) == 0) {
            return WcStatus.MW_BIND_ERR;
        }
        if (bindLength < 0 || !MemoryAccess.inRange(mr.address(), mr.length(), bindAddr, bindLength)) {
            return WcStatus.MW_BIND_ERR;
        }
        if (mw.bound) {
            unbind(mw);
        }
        mw.bound = true;
        mw.mr = mr;
        mr.boundWindows++;
        mw.addr = bindAddr;
        mw.length = bindLength;
        mw.access = bindAccess;
        mw.boundQp = mw.type() == MwType.TYPE_2 ? qp : null;
        if (mw.boundQp != null) {
            qp.windowsBound(1);
        }
        mw.activeRkey = bindRkey;
        mw.rkey(bindRkey);
        return WcStatus.SUCCESS;
    }

    /**
     * Invalidates the window whose R_Key a LOCAL_INV (IBA 10.6.7.2.5) or a SEND_WITH_INV
     * (IBA 10.6.7.2.6) names: it must be a bound type 2 window of {@code qp} (a type 2B window is
     * invalidated through the QP it is bound to).
     *
     * @return false, leaving everything as it was, if it is not
     */
    public boolean invalidate(WindowOwner qp, int rkey) {
        Object o = keys.lookup(rkey);
        if (!(o instanceof MwImpl)) {
            // Only type 2 windows can be invalidated; regions are not fast-registered here.
            return false;
        }
        MwImpl mw = (MwImpl) o;
        if (mw.type() != MwType.TYPE_2
                || mw.activeRkey != rkey
                || !mw.bound
                || mw.deallocated
                || mw.pd() != qp.pd()
                || mw.boundQp != qp) {
            return false;
        }
        unbind(mw);
        return true;
    }

    /** Deallocates every window, then deregisters every region: the device is closing. */
    public void destroyAll() {
        List<Object> owners = keys.owners();
        for (Object o : owners) {
            if (o instanceof MwImpl && !((MwImpl) o).deallocated) {
                destroyMw((MwImpl) o);
            }
        }
        for (Object o : owners) {
            if (o instanceof MrImpl && ((MrImpl) o).valid) {
                destroyMr((MrImpl) o);
            }
        }
    }
}
