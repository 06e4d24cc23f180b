package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Test fixture: a fabric with two devices, each with a PD, a CQ, a QP and a registered buffer,
 * connected the way ibv_rc_pingpong does it (QPN, PSN and GID exchanged out of band, both QPs
 * moved through INIT, RTR and RTS by hand).
 */
final class RcPair implements AutoCloseable {

    static final int BUF = 64 * 1024;
    static final EnumSet<AccessFlag> ALL = EnumSet.of(
            AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_ATOMIC,
            AccessFlag.MW_BIND);

    /** One end. */
    static final class Side {
        Device dev;
        ProtectionDomain pd;
        CompletionQueue cq;
        QueuePair qp;
        ByteBuffer buf;
        MemoryRegion mr;

        WorkCompletion poll(long timeoutMillis) {
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertTrue(
                    cq.awaitCompletions(1, timeoutMillis, TimeUnit.MILLISECONDS),
                    "no completion on " + dev.name() + " within " + timeoutMillis + " ms of fabric time");
            assertEquals(1, cq.poll(wc, 1));
            return wc[0];
        }

        WorkCompletion poll() {
            return poll(5_000);
        }

        long addr(long offset) {
            return mr.address() + offset;
        }
    }

    final Fabric fabric;
    final Side a = new Side();
    final Side b = new Side();

    /** Connection parameters; tests change them before {@link #connect()}. */
    Mtu mtu = Mtu.MTU_1024;

    int timeout = 14;
    int retryCnt = 7;
    int rnrRetry = 7;
    int minRnrTimer = 1;
    int maxRdAtomic = 4;
    int psnA = 0x123;
    int psnB = 0xABCDE;
    EnumSet<AccessFlag> qpAccess =
            EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    RcPair(Fabric fabric) {
        this(fabric, QpCaps.defaults(), 1024, false);
    }

    RcPair(Fabric fabric, QpCaps caps, int cqe, boolean direct) {
        this(fabric, DeviceProfile.DEFAULT, DeviceProfile.DEFAULT, caps, cqe, direct);
    }

    /** A pair whose devices a and b behave as {@code profileA} and {@code profileB}. */
    RcPair(Fabric fabric, DeviceProfile profileA, DeviceProfile profileB, QpCaps caps, int cqe, boolean direct) {
        this.fabric = fabric;
        setUp(a, DeviceConfig.named("a").profile(profileA), caps, cqe, direct);
        setUp(b, DeviceConfig.named("b").profile(profileB), caps, cqe, direct);
    }

    static RcPair deterministic(long seed) {
        return new RcPair(Fabric.deterministic(seed));
    }

    static RcPair threaded() {
        return new RcPair(Fabric.threaded());
    }

    private void setUp(Side s, DeviceConfig config, QpCaps caps, int cqe, boolean direct) {
        s.dev = fabric.createDevice(config);
        s.pd = s.dev.allocPd();
        s.cq = s.dev.createCq(cqe);
        s.qp = s.pd.createQp(QpInitAttr.rc(s.cq, s.cq).caps(caps));
        s.buf = direct ? ByteBuffer.allocateDirect(BUF) : ByteBuffer.allocate(BUF);
        s.mr = s.pd.registerMemory(s.buf, ALL);
    }

    RcPair configure(Consumer<RcPair> c) {
        c.accept(this);
        return this;
    }

    /** ibv_rc_pingpong's connect: INIT, then RTR and RTS with the peer's GID, QPN and PSN. */
    RcPair connect() {
        connect(a.qp, psnA, b.qp, psnB);
        return this;
    }

    /** Connects {@code x} and {@code y} the same way, with this pair's MTU and limits. */
    void connect(QueuePair x, int psnX, QueuePair y, int psnY) {
        toInit(x);
        toInit(y);
        toRtr(x, y.device(), y.qpNum(), psnY);
        toRtr(y, x.device(), x.qpNum(), psnX);
        toRts(x, psnX);
        toRts(y, psnY);
    }

    void toInit(QueuePair qp) {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(qpAccess));
    }

    void toRtr(QueuePair qp, Device peer, int peerQpn, int peerPsn) {
        qp.modify(new QpAttr()
                .state(QpState.RTR)
                .av(AhAttr.to(peer.gid()))
                .pathMtu(mtu)
                .destQpn(peerQpn)
                .rqPsn(peerPsn)
                .maxDestRdAtomic(maxRdAtomic)
                .minRnrTimer(minRnrTimer));
    }

    void toRts(QueuePair qp, int myPsn) {
        qp.modify(new QpAttr()
                .state(QpState.RTS)
                .sqPsn(myPsn)
                .timeout(timeout)
                .retryCnt(retryCnt)
                .rnrRetry(rnrRetry)
                .maxRdAtomic(maxRdAtomic));
    }

    Link link() {
        return fabric.link(a.dev, b.dev);
    }

    static void fill(ByteBuffer buf, int index, int len, long seed) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            buf.put(index + i, (byte) r.nextInt(256));
        }
    }

    static void assertBytes(ByteBuffer expected, int ei, ByteBuffer actual, int ai, int len) {
        for (int i = 0; i < len; i++) {
            if (expected.get(ei + i) != actual.get(ai + i)) {
                fail("byte " + i + " differs: expected " + expected.get(ei + i) + " but was " + actual.get(ai + i));
            }
        }
    }

    @Override
    public void close() {
        fabric.close();
    }
}
