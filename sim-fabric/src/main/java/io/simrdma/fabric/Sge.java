package io.simrdma.fabric;

/**
 * One scatter/gather element (struct ibv_sge): {@code length} bytes at virtual address
 * {@code addr} of the memory region whose L_Key is {@code lkey}. Mutable and reusable.
 *
 * <p>Thread safety: not thread-safe; owned by the work request that holds it.
 */
public final class Sge {

    long addr;
    int length;
    int lkey;

    /** Sets all three fields. */
    public Sge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    public long addr() {
        return addr;
    }

    /** Length in bytes, an unsigned 32-bit value as in C; lengths above 2^31-1 are rejected when posted. */
    public int length() {
        return length;
    }

    public int lkey() {
        return lkey;
    }

    @Override
    public String toString() {
        return "Sge[addr=0x" + Long.toHexString(addr) + ", length=" + Integer.toUnsignedString(length) + ", lkey=0x"
                + Integer.toHexString(lkey) + "]";
    }
}
