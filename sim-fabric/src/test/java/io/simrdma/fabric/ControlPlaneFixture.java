package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;

/**
 * Helpers of the control-plane tests (ControlPlane*Test, Cq*Test, Srq*Test, MemoryWindow*Test,
 * DeviceTest, AsyncEventTest): one fabric per scheduler, QPs connected by hand the way
 * ibv_rc_pingpong does it, and waits with deadlines on the fabric's clock.
 */
final class ControlPlaneFixture {

    /** Deadline of every wait that is expected to succeed: fabric time (virtual or real). */
    static final long WAIT_MS = 5_000;

    static final EnumSet<AccessFlag> ALL = EnumSet.of(
            AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_ATOMIC,
            AccessFlag.MW_BIND);

    static final EnumSet<AccessFlag> QP_ACCESS =
            EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    /** The two schedulers every scheduler-independent contract runs on. */
    enum Mode {
        DETERMINISTIC,
        THREADED;

        Fabric fabric() {
            return this == DETERMINISTIC ? Fabric.deterministic(0x5EED) : Fabric.threaded();
        }
    }

    private ControlPlaneFixture() {}

    /** A device with a PD, a CQ and a 64 KiB buffer registered with every right. */
    static final class Node {
        final Device dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final ByteBuffer buf;
        final MemoryRegion mr;

        Node(Device dev, CompletionQueue cq) {
            this.dev = dev;
            this.pd = dev.allocPd();
            this.cq = cq;
            this.buf = ByteBuffer.allocate(64 * 1024);
            this.mr = pd.registerMemory(buf, ALL);
        }

        static Node of(Fabric f, String name) {
            return new Node(f.createDevice(name));
        }

        /** {@code d} with a CQ of 256 entries. */
        Node(Device d) {
            this(d, d.createCq(256));
        }

        /** A device whose CQ reports to a completion channel. */
        static Node withChannel(Fabric f, String name, int cqe) {
            Device d = f.createDevice(name);
            CompletionChannel ch = d.createCompletionChannel();
            return new Node(d, d.createCq(cqe, ch, name + "-cq"));
        }

        QueuePair qp() {
            return pd.createQp(QpInitAttr.rc(cq, cq));
        }

        QueuePair qp(SharedReceiveQueue srq) {
            return pd.createQp(QpInitAttr.rc(cq, cq).srq(srq));
        }

        /** A new QP of this node connected to a new QP of {@code peer}; returns this node's. */
        QueuePair connectedTo(Node peer) {
            QueuePair mine = qp();
            connect(mine, peer.qp());
            return mine;
        }

        long addr(long offset) {
            return mr.address() + offset;
        }
    }

    /**
     * Two connections between a and b: qa1-qb1 and qa2-qb2, all four QPs in one PD per side
     * and on one CQ per side; b also has {@code target}, a 16 KiB region registered with every
     * right, for memory windows.
     */
    static final class Pairs implements AutoCloseable {
        final Fabric fabric;
        final Node a;
        final Node b;
        final QueuePair qa1;
        final QueuePair qb1;
        final QueuePair qa2;
        final QueuePair qb2;
        final ByteBuffer targetBuf = ByteBuffer.allocate(16 * 1024);
        final MemoryRegion target;

        Pairs(Mode mode) {
            this(mode, DeviceProfile.DEFAULT);
        }

        /** The same with both devices on {@code profile}. */
        Pairs(Mode mode, DeviceProfile profile) {
            fabric = mode.fabric();
            a = new Node(fabric.createDevice(DeviceConfig.named("a").profile(profile)));
            b = new Node(fabric.createDevice(DeviceConfig.named("b").profile(profile)));
            qa1 = a.qp();
            qb1 = b.qp();
            qa2 = a.qp();
            qb2 = b.qp();
            connect(qa1, qb1);
            connect(qa2, qb2);
            target = b.pd.registerMemory(targetBuf, ALL);
        }

        /** Address {@code offset} bytes into {@link #target}. */
        long t(long offset) {
            return target.address() + offset;
        }

        /** qa RDMA WRITEs {@code len} bytes of a pattern to {@code remoteAddr}; returns a's completion. */
        WorkCompletion write(QueuePair qa, long remoteAddr, int rkey, int len, long seed) {
            RcPair.fill(a.buf, 0, len, seed);
            qa.postSend(ControlPlaneFixture.write(a, seed, 0, len, remoteAddr, rkey));
            return pollOne(a.cq);
        }

        /** qa RDMA READs {@code len} bytes from {@code remoteAddr} into a's buffer at 32 KiB; returns a's completion. */
        WorkCompletion read(QueuePair qa, long remoteAddr, int rkey, int len, long id) {
            qa.postSend(ControlPlaneFixture.read(a, id, 32 * 1024, len, remoteAddr, rkey));
            return pollOne(a.cq);
        }

        @Override
        public void close() {
            fabric.close();
        }
    }

    /** Connects x and y (INIT, RTR, RTS on both), like ibv_rc_pingpong. */
    static void connect(QueuePair x, QueuePair y) {
        connectWithPeerInRtr(x, y);
        toRts(y);
    }

    /** Moves x to RTS but y only to RTR, so that x's first packet raises COMM_EST on y. */
    static void connectWithPeerInRtr(QueuePair x, QueuePair y) {
        toInit(x);
        toInit(y);
        toRtr(x, y);
        toRtr(y, x);
        toRts(x);
    }

    static void toInit(QueuePair qp) {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(QP_ACCESS));
    }

    static void toRtr(QueuePair qp, QueuePair peer) {
        qp.modify(new QpAttr()
                .state(QpState.RTR)
                .av(AhAttr.to(peer.device().gid()))
                .pathMtu(Mtu.MTU_1024)
                .destQpn(peer.qpNum())
                .rqPsn(psnOf(peer))
                .maxDestRdAtomic(4)
                .minRnrTimer(1));
    }

    static void toRts(QueuePair qp) {
        qp.modify(new QpAttr()
                .state(QpState.RTS)
                .sqPsn(psnOf(qp))
                .timeout(14)
                .retryCnt(7)
                .rnrRetry(7)
                .maxRdAtomic(4));
    }

    /** The first PSN a QP sends with: fixed per QP number so that runs replay. */
    static int psnOf(QueuePair qp) {
        return (qp.qpNum() * 0x3D1) & 0xFFFFFF;
    }

    /** Waits for and polls exactly one completion. */
    static WorkCompletion pollOne(CompletionQueue cq) {
        WorkCompletion[] wc = WorkCompletion.array(1);
        assertTrue(
                cq.awaitCompletions(1, WAIT_MS, TimeUnit.MILLISECONDS),
                "no completion on " + cq + " within " + WAIT_MS + " ms of fabric time");
        assertEquals(1, cq.poll(wc, 1));
        return wc[0];
    }

    /** Waits for the next async event of {@code dev}, which must come. */
    static AsyncEvent nextEvent(Device dev) {
        AsyncEvent e = dev.getAsyncEvent(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(e, "no async event on " + dev.name() + " within " + WAIT_MS + " ms of fabric time");
        return e;
    }

    /** Waits for the next async event and checks its type; acknowledges it. */
    static AsyncEvent expectEvent(Device dev, AsyncEventType type) {
        AsyncEvent e = nextEvent(dev);
        assertEquals(type, e.type(), e.toString());
        dev.ackAsyncEvent(e);
        return e;
    }

    /** Runs a deterministic fabric until nothing is left to do; a threaded fabric is left alone. */
    static void settle(Fabric f) {
        if (f.scheduler().isDeterministic()) {
            f.deterministicScheduler().runUntilIdle();
        }
    }

    /** Asserts that {@code call} fails with a {@link VerbsException} carrying {@code errno}. */
    static VerbsException assertErrno(Errno errno, Executable call) {
        VerbsException e = assertThrows(VerbsException.class, call);
        assertEquals(errno, e.errno(), e.getMessage());
        return e;
    }

    /** A signaled SEND of {@code len} bytes at {@code offset} of the node's region. */
    static SendWr send(Node n, long wrId, int offset, int len) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.SEND)
                .sge(n.mr, offset, len)
                .flag(SendFlag.SIGNALED);
    }

    /** A signaled RDMA WRITE from the node's region to {@code remoteAddr} through {@code rkey}. */
    static SendWr write(Node n, long wrId, int offset, int len, long remoteAddr, int rkey) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(n.mr, offset, len)
                .remote(remoteAddr, rkey)
                .flag(SendFlag.SIGNALED);
    }

    /** A signaled RDMA READ into the node's region from {@code remoteAddr} through {@code rkey}. */
    static SendWr read(Node n, long wrId, int offset, int len, long remoteAddr, int rkey) {
        return new SendWr()
                .wrId(wrId)
                .opcode(WrOpcode.RDMA_READ)
                .sge(n.mr, offset, len)
                .remote(remoteAddr, rkey)
                .flag(SendFlag.SIGNALED);
    }

    static RecvWr recv(Node n, long wrId, int offset, int len) {
        return new RecvWr().wrId(wrId).sge(n.mr, offset, len);
    }

    /** Asserts a completion's status (with the completion in the message). */
    static WorkCompletion assertStatus(WcStatus expected, WorkCompletion wc) {
        assertEquals(expected, wc.status(), wc.toString());
        return wc;
    }
}
