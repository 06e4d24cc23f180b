package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.ALL;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.settle;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.wire.Opcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * UC queue pairs (IBV_QPT_UC; IBA 9.8.3 unreliable connection): SEND and RDMA WRITE without
 * acknowledgements, the UC column of the state machine (IBA 11.2.5.2 table 91), READ and atomics
 * refused at post, and a lost packet losing its message silently.
 */
class UcQueuePairTest {

    /** Two devices with a connected UC pair at MTU 1024. */
    static final class UcPair implements AutoCloseable {
        final Fabric fabric;
        final Device da;
        final Device db;
        final CompletionQueue ca;
        final CompletionQueue cb;
        final ByteBuffer ba = ByteBuffer.allocate(16 * 1024);
        final ByteBuffer bb = ByteBuffer.allocate(16 * 1024);
        final MemoryRegion ma;
        final MemoryRegion mb;
        final QueuePair qa;
        final QueuePair qb;

        UcPair(Fabric fabric) {
            this.fabric = fabric;
            da = fabric.createDevice("a");
            db = fabric.createDevice("b");
            ProtectionDomain pa = da.allocPd();
            ProtectionDomain pb = db.allocPd();
            ca = da.createCq(64);
            cb = db.createCq(64);
            ma = pa.registerMemory(ba, ALL);
            mb = pb.registerMemory(bb, ALL);
            qa = pa.createQp(QpInitAttr.uc(ca, ca));
            qb = pb.createQp(QpInitAttr.uc(cb, cb));
            connect(qa, qb, 100, 200);
            connect(qb, qa, 200, 100);
        }

        /** INIT, RTR, RTS with only the attributes UC needs (IBA 11.2.5.2 table 91, UC column). */
        static void connect(QueuePair qp, QueuePair peer, int sqPsn, int rqPsn) {
            qp.modify(new QpAttr()
                    .state(QpState.INIT)
                    .pkeyIndex(0)
                    .port(1)
                    .accessFlags(EnumSet.of(AccessFlag.REMOTE_WRITE)));
            qp.modify(new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(peer.device().gid()))
                    .pathMtu(Mtu.MTU_1024)
                    .destQpn(peer.qpNum())
                    .rqPsn(rqPsn));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(sqPsn));
        }

        void fill(int off, int len, int seed) {
            for (int i = 0; i < len; i++) {
                ba.put(off + i, (byte) (seed + i * 7));
            }
        }

        byte[] bytes(ByteBuffer b, int off, int len) {
            byte[] out = new byte[len];
            b.get(off, out);
            return out;
        }

        @Override
        public void close() {
            fabric.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 9.8.3: a UC SEND of three MTU packets and an RDMA WRITE with immediate arrive whole; the sender completes without any acknowledgement")
    void shouldDeliverSendAndWriteWithImmediateWhenConnected(Mode mode) {
        try (UcPair p = new UcPair(mode.fabric())) {
            p.fill(0, 3000, 5);
            p.qb.postRecv(new RecvWr().wrId(1).sge(p.mb, 0, 4096));
            p.qa.postSend(new SendWr()
                    .wrId(10)
                    .opcode(WrOpcode.SEND)
                    .sge(p.ma, 0, 3000)
                    .flag(SendFlag.SIGNALED));
            WorkCompletion s = assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertEquals(WcOpcode.SEND, s.opcode());
            WorkCompletion r = assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertEquals(1, r.wrId());
            assertEquals(3000, r.byteLen());
            assertEquals(WcOpcode.RECV, r.opcode());
            assertEquals(p.qa.qpNum(), r.srcQp());
            assertArrayEquals(p.bytes(p.ba, 0, 3000), p.bytes(p.bb, 0, 3000));

            p.qb.postRecv(new RecvWr().wrId(2).sge(p.mb, 0, 16));
            p.fill(0, 1500, 9);
            p.qa.postSend(new SendWr()
                    .wrId(11)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(0xCAFE)
                    .sge(p.ma, 0, 1500)
                    .remote(p.mb.address() + 8192, p.mb.rkey())
                    .flag(SendFlag.SIGNALED));
            assertEquals(
                    WcOpcode.RDMA_WRITE,
                    assertStatus(WcStatus.SUCCESS, pollOne(p.ca)).opcode());
            WorkCompletion w = assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, w.opcode());
            assertEquals(0xCAFE, w.immData());
            assertTrue(w.hasFlag(WcFlag.WITH_IMM));
            assertArrayEquals(p.bytes(p.ba, 0, 1500), p.bytes(p.bb, 8192, 1500));
            assertEquals(
                    0,
                    p.qa.counters().get(Counter.ACKS_RECEIVED) + p.qb.counters().get(Counter.ACKS_SENT),
                    "UC sends no acknowledgements");
        }
    }

    @Test
    @DisplayName(
            "IBA 9.8.3: UC has no RDMA READ, no atomics and no SEND with invalidate: ibv_post_send(3) refuses them with EINVAL")
    void shouldRefuseReadAndAtomicsWhenPosted() {
        try (UcPair p = new UcPair(Fabric.deterministic(7))) {
            for (WrOpcode op : EnumSet.of(
                    WrOpcode.RDMA_READ,
                    WrOpcode.ATOMIC_CMP_AND_SWP,
                    WrOpcode.ATOMIC_FETCH_AND_ADD,
                    WrOpcode.SEND_WITH_INV)) {
                SendWr wr = new SendWr().wrId(1).opcode(op).sge(p.ma, 0, 8).remote(p.mb.address(), p.mb.rkey());
                PostException e = assertThrows(PostException.class, () -> p.qa.postSend(wr), op.toString());
                assertEquals(Errno.EINVAL, e.errno(), op + ": " + e.getMessage());
            }
            assertEquals(0, p.qa.sendQueueDepth(), "nothing was queued");
            assertEquals(QpState.RTS, p.qa.state());
        }
    }

    @Test
    @DisplayName(
            "IBA 11.2.5.2 table 91 (UC): RTR needs only AV, path MTU, dest QPN and RQ PSN, RTS only SQ PSN; the RC-only attributes (rd_atomic, RNR timer, timeout, retry counts) are refused with EINVAL")
    void shouldFollowUcColumnWhenModified() {
        try (Fabric f = Fabric.deterministic(3)) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(8);
            QueuePair qp = pd.createQp(QpInitAttr.uc(cq, cq));
            assertEquals(QpType.UC, QpType.valueOf("UC"));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr()
                            .state(QpState.INIT)
                            .pkeyIndex(0)
                            .port(1)
                            .qkey(5)
                            .accessFlags(EnumSet.noneOf(AccessFlag.class))));
            qp.modify(new QpAttr()
                    .state(QpState.INIT)
                    .pkeyIndex(0)
                    .port(1)
                    .accessFlags(EnumSet.noneOf(AccessFlag.class)));
            QpAttr rtr = new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(d.gid()))
                    .pathMtu(Mtu.MTU_1024)
                    .destQpn(0x99)
                    .rqPsn(1);
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr()
                            .state(QpState.RTR)
                            .av(AhAttr.to(d.gid()))
                            .pathMtu(Mtu.MTU_1024)
                            .destQpn(0x99)
                            .rqPsn(1)
                            .maxDestRdAtomic(1)));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr()
                            .state(QpState.RTR)
                            .av(AhAttr.to(d.gid()))
                            .pathMtu(Mtu.MTU_1024)
                            .destQpn(0x99)
                            .rqPsn(1)
                            .minRnrTimer(1)));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr()
                            .state(QpState.RTR)
                            .pathMtu(Mtu.MTU_1024)
                            .destQpn(0x99)
                            .rqPsn(1)));
            qp.modify(rtr);
            assertEquals(QpState.RTR, qp.state());
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr().state(QpState.RTS).sqPsn(1).timeout(14)));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr().state(QpState.RTS).sqPsn(1).retryCnt(7)));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr().state(QpState.RTS).sqPsn(1).rnrRetry(7)));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr().state(QpState.RTS).sqPsn(1).maxRdAtomic(1)));
            assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().state(QpState.RTS)));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(1));
            assertEquals(QpState.RTS, qp.state());
            QpAttr q = qp.query();
            assertEquals(0x99, q.destQpn());
            assertEquals(Mtu.MTU_1024, q.pathMtu());
            qp.destroy();
            assertErrno(Errno.ENOENT, qp::query);
        }
    }

    @Test
    @DisplayName(
            "IBA 9.8.3 (UC): a lost middle packet loses its SEND silently: the sender completes SUCCESS, the receiver drops the rest and its receive WQE takes the next message")
    void shouldLoseMessageSilentlyWhenMiddlePacketIsLost() {
        try (UcPair p = new UcPair(Fabric.deterministic(11))) {
            FaultRule lose =
                    FaultRule.drop(PacketMatcher.opcode(Opcode.UC_SEND_MIDDLE)).times(1);
            p.fabric.link(p.da, p.db).addFault(lose);
            p.qb.postRecv(new RecvWr().wrId(1).sge(p.mb, 0, 4096));
            p.fill(0, 3000, 1);
            p.qa.postSend(new SendWr()
                    .wrId(10)
                    .opcode(WrOpcode.SEND)
                    .sge(p.ma, 0, 3000)
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            settle(p.fabric);
            assertEquals(1, lose.hits());
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertEquals(0, p.cb.poll(wc, 1), "the receiver completes nothing for the lost message");
            assertEquals(1, p.qb.counters().get(Counter.MESSAGES_ABANDONED));

            p.fill(0, 100, 50);
            p.qa.postSend(new SendWr()
                    .wrId(11)
                    .opcode(WrOpcode.SEND)
                    .sge(p.ma, 0, 100)
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            WorkCompletion r = assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertEquals(1, r.wrId(), "the WQE of the lost message serves the next one");
            assertEquals(100, r.byteLen());
            assertArrayEquals(p.bytes(p.ba, 0, 100), p.bytes(p.bb, 0, 100));
            assertEquals(QpState.RTS, p.qb.state());
        }
    }

    @Test
    @DisplayName(
            "IBA 9.8.3 (UC): an RDMA WRITE with a bad R_Key, or a SEND with no receive posted, is dropped at the receiver; the sender still completes SUCCESS and both QPs stay in RTS")
    void shouldDropSilentlyWhenRkeyIsBadOrNoReceiveIsPosted() {
        try (UcPair p = new UcPair(Fabric.deterministic(13))) {
            p.fill(0, 64, 3);
            p.qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.ma, 0, 64)
                    .remote(p.mb.address(), p.mb.rkey() ^ 0x100)
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            p.qa.postSend(
                    new SendWr().wrId(2).opcode(WrOpcode.SEND).sge(p.ma, 0, 64).flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            settle(p.fabric);
            assertEquals(0, p.bb.get(0), "nothing was written");
            assertEquals(1, p.qb.counters().get(Counter.MESSAGES_ABANDONED));
            assertEquals(1, p.qb.counters().get(Counter.DATAGRAMS_NO_RECEIVE));
            assertEquals(QpState.RTS, p.qa.state());
            assertEquals(QpState.RTS, p.qb.state());
            assertFalse(p.cb.awaitCompletions(1, 10, TimeUnit.MILLISECONDS));
        }
    }

    @Test
    @DisplayName(
            "ibv_create_qp(3) / siw_create_qp: a device whose profile has no UC or UD QPs (siw) refuses them with EOPNOTSUPP")
    void shouldRefuseUcAndUdWhenProfileLacksThem() {
        try (Fabric f = Fabric.deterministic(1)) {
            Device d = f.createDevice(DeviceConfig.named("s").profile(DeviceProfile.SIW));
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(8);
            assertErrno(Errno.EOPNOTSUPP, () -> pd.createQp(QpInitAttr.uc(cq, cq)));
            assertErrno(Errno.EOPNOTSUPP, () -> pd.createQp(QpInitAttr.ud(cq, cq)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "RcConnect connects UC QPs with the UC column's attributes only (ibv_modify_qp(3)); a UD QP has no peer: EINVAL")
    void shouldConnectUcQueuePairsWhenUsingRcConnect(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device a = f.createDevice("a");
            Device b = f.createDevice("b");
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue ca = a.createCq(8);
            CompletionQueue cb = b.createCq(8);
            ByteBuffer src = ByteBuffer.allocate(4096);
            ByteBuffer dst = ByteBuffer.allocate(4096);
            MemoryRegion ms = pa.registerMemory(src, ALL);
            MemoryRegion md = pb.registerMemory(dst, ALL);
            QueuePair qa = pa.createQp(QpInitAttr.uc(ca, ca));
            QueuePair qb = pb.createQp(QpInitAttr.uc(cb, cb));
            assertEquals(QpType.UC, qa.qpType());
            RcConnect.connect(qa, qb);
            assertEquals(QpState.RTS, qa.state());
            assertEquals(QpState.RTS, qb.state());
            for (int i = 0; i < 2500; i++) {
                src.put(i, (byte) (i * 13));
            }
            qb.postRecv(new RecvWr().wrId(9).sge(md, 0, 0));
            qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(3)
                    .sge(ms, 0, 2500)
                    .remote(md.address() + 100, md.rkey())
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(ca));
            assertEquals(
                    WcOpcode.RECV_RDMA_WITH_IMM,
                    assertStatus(WcStatus.SUCCESS, pollOne(cb)).opcode());
            byte[] want = new byte[2500];
            src.get(0, want);
            byte[] got = new byte[2500];
            dst.get(100, got);
            assertArrayEquals(want, got, "the UC WRITE of three packets landed");
            QueuePair ud = pa.createQp(QpInitAttr.ud(ca, ca));
            assertEquals(QpType.UD, ud.qpType());
            assertErrno(Errno.EINVAL, () -> RcConnect.connect(ud, qb));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_bind_mw(3): 'the QP Transport Service Type must be either UC, RC or XRC_SEND': a type 1 window bound through a UC QP serves a UC WRITE; a UD QP refuses the bind (EINVAL)")
    void shouldBindType1WindowWhenPostedOnUcQp(Mode mode) {
        try (UcPair p = new UcPair(mode.fabric())) {
            MemoryWindow mw = p.mb.pd().allocMw(MwType.TYPE_1);
            int key = p.qb.bindMw(
                    mw,
                    p.mb,
                    p.mb.address() + 1024,
                    512,
                    EnumSet.of(AccessFlag.REMOTE_WRITE),
                    5,
                    EnumSet.of(SendFlag.SIGNALED));
            assertEquals(key, mw.rkey());
            WorkCompletion b = assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertEquals(WcOpcode.BIND_MW, b.opcode());
            p.fill(0, 100, 4);
            p.qb.postRecv(new RecvWr().wrId(6).sge(p.mb, 0, 0));
            p.qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .sge(p.ma, 0, 100)
                    .remote(p.mb.address() + 1024, key)
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertArrayEquals(p.bytes(p.ba, 0, 100), p.bytes(p.bb, 1024, 100), "written through the window");

            CompletionQueue cq = p.db.createCq(4);
            QueuePair ud = p.mb.pd().createQp(QpInitAttr.ud(cq, cq));
            MemoryWindow other = p.mb.pd().allocMw(MwType.TYPE_1);
            assertErrno(
                    Errno.EINVAL,
                    () -> ud.bindMw(
                            other,
                            p.mb,
                            p.mb.address(),
                            64,
                            EnumSet.of(AccessFlag.REMOTE_READ),
                            1,
                            EnumSet.of(SendFlag.SIGNALED)));
        }
    }

    @Test
    @DisplayName(
            "IBA 10.6.7: a type 2 window bound by a BIND_MW on a UC QP serves that QP's peer, is refused after LOCAL_INV, and holds the QP's destroy (EBUSY) while bound")
    void shouldBindAndInvalidateType2WindowWhenPostedOnUcQp() {
        try (UcPair p = new UcPair(Fabric.deterministic(17))) {
            MemoryWindow mw = p.mb.pd().allocMw(MwType.TYPE_2);
            int key = MemoryWindow.incrementRkey(mw.rkey());
            p.qb.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.BIND_MW)
                    .flag(SendFlag.SIGNALED)
                    .bind(mw, key, p.mb, p.mb.address(), 256, EnumSet.of(AccessFlag.REMOTE_WRITE)));
            assertEquals(
                    WcOpcode.BIND_MW,
                    assertStatus(WcStatus.SUCCESS, pollOne(p.cb)).opcode());
            assertErrno(Errno.EBUSY, p.qb::destroy);
            p.fill(0, 32, 8);
            p.qa.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.ma, 0, 32)
                    .remote(p.mb.address(), key)
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            settle(p.fabric);
            assertArrayEquals(p.bytes(p.ba, 0, 32), p.bytes(p.bb, 0, 32));
            p.qb.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.LOCAL_INV)
                    .invalidateRkey(key)
                    .flag(SendFlag.SIGNALED));
            assertEquals(
                    WcOpcode.LOCAL_INV,
                    assertStatus(WcStatus.SUCCESS, pollOne(p.cb)).opcode());
            p.fill(0, 32, 99);
            p.qa.postSend(new SendWr()
                    .wrId(4)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.ma, 0, 32)
                    .remote(p.mb.address(), key)
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            settle(p.fabric);
            assertEquals(1, p.qb.counters().get(Counter.MESSAGES_ABANDONED), "the invalidated key dropped the WRITE");
            p.qb.destroy();
        }
    }
}
