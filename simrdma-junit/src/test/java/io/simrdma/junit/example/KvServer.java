package io.simrdma.junit.example;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import java.nio.ByteBuffer;
import java.util.EnumSet;

/**
 * The example application's server: a table of {@link #SLOTS} fixed-size slots in one registered
 * region that clients read and write with RDMA READ and RDMA WRITE, without the server's CPU. A slot
 * holds a 4-byte length and up to {@link #VALUE_MAX} bytes of value.
 *
 * <p>Not thread-safe: one thread sets it up and closes it.
 */
public final class KvServer implements AutoCloseable {

    /** Slots in the table. */
    public static final int SLOTS = 64;
    /** Bytes of a slot. */
    public static final int SLOT = 64;
    /** Bytes of a value. */
    public static final int VALUE_MAX = SLOT - 4;

    final ProtectionDomain pd;
    final CompletionQueue cq;
    final MemoryRegion table;
    final QueuePair qp;

    public KvServer(Device device) {
        pd = device.allocPd();
        cq = device.createCq(16);
        table = pd.registerMemory(
                ByteBuffer.allocateDirect(SLOTS * SLOT),
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        qp = pd.createQp(QpInitAttr.rc(cq, cq));
    }

    /** The QP a client connects to. */
    public QueuePair qp() {
        return qp;
    }

    /** The table's address and key, which a client learns out of band. */
    public long tableAddress() {
        return table.address();
    }

    public int tableRkey() {
        return table.rkey();
    }

    @Override
    public void close() {
        qp.destroy();
        table.deregister();
        cq.destroy();
        pd.dealloc();
    }
}
