package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.MwType;

/**
 * The memory protection checks of IBA 10.6 (key, PD, access rights, bounds), done on every
 * local and remote access before any byte moves. A check that fails leaves memory untouched;
 * the caller turns the failure into a completion status or a NAK.
 *
 * <p>The result of a successful check is left in {@link #mr} and {@link #index} (the byte index
 * in the region's buffer), so that checking allocates nothing. Each engine role owns one.
 *
 * <p>Thread safety: not thread-safe; one per engine role.
 */
public final class MemoryAccess {

    public MrImpl mr;
    public int index;

    /**
     * Checks a local access through an L_Key (IBA 10.6.3.1): the key names a valid MR of
     * {@code pd}, the range lies inside it, and a write needs LOCAL_WRITE. Local read access is
     * always granted (ibv_reg_mr(3)).
     */
    public boolean local(KeyTable keys, PdImpl pd, int lkey, long addr, long len, boolean write) {
        Object o = keys.lookup(lkey);
        if (!(o instanceof MrImpl)) {
            return false;
        }
        MrImpl m = (MrImpl) o;
        if (m.lkey() != lkey || !m.valid || m.pd() != pd) {
            return false;
        }
        if (write && (m.accessMask() & AccessFlag.LOCAL_WRITE.bit()) == 0) {
            return false;
        }
        if (!inRange(m.address(), m.length(), addr, len)) {
            return false;
        }
        mr = m;
        index = m.indexOf(addr);
        return true;
    }

    /**
     * Checks a remote access through an R_Key (IBA 10.6.3.2, 10.6.7): the key names a valid MR or
     * a bound MW of the QP's PD (a type 2 window only through the QP it is bound to), with the
     * {@code requiredAccess} right, and the range lies inside it.
     */
    public boolean remote(KeyTable keys, WindowOwner qp, int rkey, long va, long len, int requiredAccess) {
        Object o = keys.lookup(rkey);
        if (o instanceof MrImpl) {
            MrImpl m = (MrImpl) o;
            if (m.rkey() != rkey || !m.valid || m.pd() != qp.pd()) {
                return false;
            }
            if ((m.accessMask() & requiredAccess) != requiredAccess) {
                return false;
            }
            if (!inRange(m.address(), m.length(), va, len)) {
                return false;
            }
            mr = m;
            index = m.indexOf(va);
            return true;
        }
        if (o instanceof MwImpl) {
            MwImpl w = (MwImpl) o;
            if (w.activeRkey != rkey || !w.bound || w.deallocated || w.pd() != qp.pd()) {
                return false;
            }
            if (w.type() == MwType.TYPE_2 && w.boundQp != qp) {
                return false;
            }
            if ((w.access & requiredAccess) != requiredAccess) {
                return false;
            }
            long effective = (w.access & AccessFlag.ZERO_BASED.bit()) != 0 ? w.addr + va : va;
            if ((w.access & AccessFlag.ZERO_BASED.bit()) != 0 && Long.compareUnsigned(va, w.length) > 0) {
                return false;
            }
            if (!inRange(w.addr, w.length, effective, len) || !w.mr.valid) {
                return false;
            }
            mr = w.mr;
            index = w.mr.indexOf(effective);
            return true;
        }
        return false;
    }

    /**
     * True if [va, va + len) lies inside [base, base + length), computed in unsigned 64-bit
     * arithmetic without overflow.
     */
    public static boolean inRange(long base, long length, long va, long len) {
        if (Long.compareUnsigned(va, base) < 0) {
            return false;
        }
        long off = va - base;
        return Long.compareUnsigned(off, length) <= 0 && Long.compareUnsigned(len, length - off) <= 0;
    }
}
