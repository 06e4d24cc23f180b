package io.simrdma.junit.example;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * The example application's client: {@link #put} writes a value into the server's slot for the key
 * with one RDMA WRITE; {@link #get} reads it back with one RDMA READ.
 *
 * <p>Its history has a classic mistake (see {@code KvStoreTest}): the first {@code put} posted an
 * unsignaled WRITE from its one staging buffer and returned at once, so the next {@code put}
 * overwrote the staging buffer while the NIC might not have read it yet. It worked on a fast
 * simulator and wrote the wrong value on hardware. This version waits for the WRITE's completion
 * before the staging buffer is used again.
 *
 * <p>Not thread-safe: one thread uses a client.
 */
public class KvClient implements AutoCloseable {

    /** How long a client waits for a completion, on the fabric's clock. */
    static final long WAIT_MS = 5_000;

    protected final ProtectionDomain pd;
    protected final CompletionQueue cq;
    protected final QueuePair qp;
    /** Staging buffer of put: the value in a slot's format. */
    protected final ByteBuffer staging = ByteBuffer.allocateDirect(KvServer.SLOT);

    protected final MemoryRegion stagingMr;
    private final ByteBuffer readBuf = ByteBuffer.allocateDirect(KvServer.SLOT);
    private final MemoryRegion readMr;
    protected final long tableAddress;
    protected final int tableRkey;
    protected final SendWr wr = new SendWr();
    private final WorkCompletion[] wc = WorkCompletion.array(1);
    private long nextId;

    /** Connects a client on {@code device} to {@code server} (both QPs go to RTS, as ibv_rc_pingpong does). */
    public KvClient(Device device, KvServer server) {
        pd = device.allocPd();
        cq = device.createCq(64);
        stagingMr = pd.registerMemory(staging, EnumSet.of(AccessFlag.LOCAL_WRITE));
        readMr = pd.registerMemory(readBuf, EnumSet.of(AccessFlag.LOCAL_WRITE));
        qp = pd.createQp(QpInitAttr.rc(cq, cq));
        RcConnect.connect(qp, server.qp());
        tableAddress = server.tableAddress();
        tableRkey = server.tableRkey();
    }

    /** Stores {@code value} under {@code key}: one RDMA WRITE, waited for. */
    public void put(int key, String value) {
        encode(value);
        wr.clear()
                .wrId(++nextId)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(stagingMr, 0, KvServer.SLOT)
                .remote(slotAddress(key), tableRkey)
                .flag(SendFlag.SIGNALED);
        qp.postSend(wr);
        awaitCompletion(nextId);
    }

    /** The value under {@code key} ("" if none was put): one RDMA READ. */
    public String get(int key) {
        wr.clear()
                .wrId(++nextId)
                .opcode(WrOpcode.RDMA_READ)
                .sge(readMr, 0, KvServer.SLOT)
                .remote(slotAddress(key), tableRkey)
                .flag(SendFlag.SIGNALED);
        qp.postSend(wr);
        awaitCompletion(nextId);
        int len = readBuf.getInt(0);
        byte[] b = new byte[len];
        readBuf.get(4, b);
        return new String(b, StandardCharsets.UTF_8);
    }

    protected final void encode(String value) {
        byte[] b = value.getBytes(StandardCharsets.UTF_8);
        if (b.length > KvServer.VALUE_MAX) {
            throw new IllegalArgumentException("value longer than " + KvServer.VALUE_MAX + " bytes: " + value);
        }
        staging.clear();
        staging.putInt(b.length).put(b);
    }

    protected final long slotAddress(int key) {
        return tableAddress + (long) Math.floorMod(key, KvServer.SLOTS) * KvServer.SLOT;
    }

    protected final long nextId() {
        return ++nextId;
    }

    /** Polls until the completion of WR {@code id} (earlier unsignaled WRs complete with it). */
    protected final void awaitCompletion(long id) {
        while (true) {
            if (!cq.awaitCompletions(1, WAIT_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("no completion for WR " + id + " within " + WAIT_MS + " ms");
            }
            cq.poll(wc, 1);
            if (wc[0].status() != WcStatus.SUCCESS) {
                throw new IllegalStateException("WR " + wc[0].wrId() + " failed: " + wc[0].status());
            }
            if (wc[0].wrId() == id) {
                return;
            }
        }
    }

    @Override
    public void close() {
        qp.destroy();
        stagingMr.deregister();
        readMr.deregister();
        cq.destroy();
        pd.dealloc();
    }
}
