package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.internal.mem.MemoryAccess;
import io.simrdma.fabric.internal.mem.MemoryTable;
import io.simrdma.fabric.internal.mem.PdImpl;
import io.simrdma.fabric.wire.Packet;

/**
 * Places bytes of an incoming message into a receive WQE's scatter list, at a message offset,
 * checking each SGE's L_Key for local write (IBA 10.6.3.1) before anything is written.
 *
 * <p>Thread safety: engine thread only; one per receiver.
 */
final class ReceiveScatter {

    private final MemoryAccess access = new MemoryAccess();

    /**
     * Copies {@code len} bytes of {@code src} (a packet's payload from {@code srcOff}, or the
     * array {@code bytes} when {@code p} is null) to message offset {@code at} of {@code w}.
     *
     * @return false if an SGE's key, range or rights do not allow it (nothing more is written)
     */
    boolean place(MemoryTable memory, PdImpl pd, RecvRing.Wqe w, long at, Packet p, byte[] bytes, int srcOff, int len) {
        long skip = at;
        int done = 0;
        for (int i = 0; i < w.numSge && done < len; i++) {
            int l = w.len[i];
            if (skip >= l) {
                skip -= l;
                continue;
            }
            int n = (int) Math.min(l - skip, len - done);
            if (!access.local(memory.keys(), pd, w.lkey[i], w.addr[i] + skip, n, true)) {
                return false;
            }
            if (p != null) {
                p.copyPayload(srcOff + done, access.mr.buf, access.index, n);
            } else {
                for (int k = 0; k < n; k++) {
                    access.mr.buf.put(access.index + k, bytes[srcOff + done + k]);
                }
            }
            done += n;
            skip = 0;
        }
        return done == len;
    }
}
