package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.VerbsException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A registered memory region (struct ibv_mr): an application buffer the HCA may access through
 * its L_Key (locally) and R_Key (remotely), within the rights it was registered with.
 *
 * <p>Addresses: the region occupies the simulated virtual range
 * [{@link #address()}, {@code address() + length()}); SGEs and remote addresses name bytes in that
 * range, never Java indexes.
 *
 * <p>Byte order: atomic operations on the region read and write their 8-byte operand in the
 * byte order the buffer had when it was registered (big-endian by default in Java; register a
 * buffer set to {@link ByteOrder#LITTLE_ENDIAN} to match what a C program on x86 sees).
 *
 * <p>Thread safety: thread-safe. The buffer itself stays the application's.
 */
public final class MrImpl implements MemoryRegion {

    private final PdImpl pd;
    public final ByteBuffer buf;
    private final long iova;
    private final int length;
    private final int access;
    private final int key;
    public volatile boolean valid = true;
    public int boundWindows;

    public MrImpl(PdImpl pd, ByteBuffer buf, long iova, int length, int access, int key) {
        this.pd = pd;
        this.buf = buf;
        this.iova = iova;
        this.length = length;
        this.access = access;
        this.key = key;
    }

    public PdImpl pd() {
        return pd;
    }

    /** Start of the region's virtual address range (0 for a ZERO_BASED region). */
    public long address() {
        return iova;
    }

    /** Length in bytes. */
    public int length() {
        return length;
    }

    /** The local key, for SGEs. */
    public int lkey() {
        return key;
    }

    /** The remote key, for the remote side's RDMA and atomic work requests. */
    public int rkey() {
        return key;
    }

    /** The access rights the region was registered with. */
    public java.util.Set<AccessFlag> access() {
        return AccessFlag.fromMask(access);
    }

    public int accessMask() {
        return access;
    }

    /** Byte order used for atomic operands in this region. */
    public ByteOrder byteOrder() {
        return buf.order();
    }

    @Override
    public ByteBuffer buffer() {
        return buf.duplicate().clear().order(buf.order());
    }

    /** False once deregistered. */
    public boolean isValid() {
        return valid;
    }

    /**
     * Deregisters the region (ibv_dereg_mr(3)). Work still referring to it afterwards fails with
     * a protection error.
     *
     * @throws VerbsException EBUSY while a memory window is bound to it; ENOENT if already deregistered
     */
    public void deregister() {
        pd.owner().executor().call(() -> {
            pd.owner().memory().destroyMr(this);
            return null;
        });
        FabricObserver o = pd.owner().observer();
        if (o != null) {
            o.destroyed(this);
        }
    }

    /** Buffer index of virtual address {@code va}; the caller has checked bounds. */
    public int indexOf(long va) {
        return (int) (va - iova);
    }

    @Override
    public String toString() {
        return "MR[lkey=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(iova) + ", len=" + length + "]";
    }
}
