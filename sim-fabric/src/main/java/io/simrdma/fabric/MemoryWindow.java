package io.simrdma.fabric;

/**
 * A memory window (struct ibv_mw): a remotely accessible window onto part of a memory region,
 * with its own R_Key and rights (ibv_alloc_mw(3), ibv_bind_mw(3)).
 *
 * <ul>
 *   <li>Type 1: bound with {@link QueuePair#bindMw}; the R_Key changes on every bind
 *       ({@link #incrementRkey(int)}); a bind of length 0 unbinds it; bound to the PD.</li>
 *   <li>Type 2: bound with a posted {@link WrOpcode#BIND_MW} work request carrying the new R_Key;
 *       bound to the QP that bound it, usable only through that QP; invalidated by LOCAL_INV or
 *       by a remote SEND_WITH_INV; must be invalidated before it is bound again.</li>
 * </ul>
 *
 * <p>Thread safety: thread-safe.
 */
public interface MemoryWindow {

    /** Returns {@code rkey} with its low 8 bits (the tag) incremented (ibv_inc_rkey(3)). */
    static int incrementRkey(int rkey) {
        return (rkey & 0xFFFFFF00) | ((rkey + 1) & 0xFF);
    }

    ProtectionDomain pd();

    MwType type();

    /** The window's R_Key: after a bind is posted, the key it will have once the bind completes. */
    int rkey();

    /**
     * Deallocates the window (ibv_dealloc_mw(3)), unbinding it first if bound.
     *
     * @throws VerbsException ENOENT if already deallocated
     */
    void dealloc();
}
