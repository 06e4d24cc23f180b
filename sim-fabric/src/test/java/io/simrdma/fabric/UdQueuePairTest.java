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
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * UD queue pairs and address handles (IBV_QPT_UD, ibv_create_ah(3), ibv_post_send(3)'s wr.ud,
 * IBA 9.8.4 and 10.2.5): datagrams to an address handle, remote QPN and Q_Key; the 40-byte GRH
 * before the data; Q_Key checks; loss instead of errors; the port MTU as the message limit.
 */
class UdQueuePairTest {

    static final int QKEY = 0x1111_2222;

    /** Two devices, each with a UD QP in RTS (Q_Key {@link #QKEY}) and an AH to the other. */
    static final class UdPair implements AutoCloseable {
        final Fabric fabric;
        final Device da;
        final Device db;
        final ProtectionDomain pa;
        final ProtectionDomain pb;
        final CompletionQueue ca;
        final CompletionQueue cb;
        final ByteBuffer ba = ByteBuffer.allocate(16 * 1024);
        final ByteBuffer bb = ByteBuffer.allocate(16 * 1024);
        final MemoryRegion ma;
        final MemoryRegion mb;
        final QueuePair qa;
        final QueuePair qb;
        final AddressHandle toB;

        UdPair(Fabric fabric, DeviceProfile profile) {
            this.fabric = fabric;
            da = fabric.createDevice(DeviceConfig.named("a").profile(profile).maxMtu(Mtu.MTU_1024));
            db = fabric.createDevice(DeviceConfig.named("b").profile(profile).maxMtu(Mtu.MTU_1024));
            pa = da.allocPd();
            pb = db.allocPd();
            ca = da.createCq(64);
            cb = db.createCq(64);
            ma = pa.registerMemory(ba, ALL);
            mb = pb.registerMemory(bb, ALL);
            qa = pa.createQp(QpInitAttr.ud(ca, ca));
            qb = pb.createQp(QpInitAttr.ud(cb, cb));
            toRts(qa, QKEY);
            toRts(qb, QKEY);
            toB = pa.createAh(AhAttr.to(db.gid()));
        }

        /** INIT (pkey_index, port, qkey), RTR (nothing), RTS (sq_psn): the UD column of table 91. */
        static void toRts(QueuePair qp, int qkey) {
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(qkey));
            qp.modify(new QpAttr().state(QpState.RTR));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0x123));
        }

        SendWr datagram(long id, int len, int qkey) {
            return new SendWr()
                    .wrId(id)
                    .opcode(WrOpcode.SEND)
                    .sge(ma, 0, len)
                    .ud(toB, qb.qpNum(), qkey)
                    .flag(SendFlag.SIGNALED);
        }

        void fill(int len, int seed) {
            for (int i = 0; i < len; i++) {
                ba.put(i, (byte) (seed + 3 * i));
            }
        }

        @Override
        public void close() {
            fabric.close();
        }
    }

    private static byte[] slice(ByteBuffer b, int off, int len) {
        byte[] out = new byte[len];
        b.get(off, out);
        return out;
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_post_recv(3) / ibv_poll_cq(3), UD: the receive buffer holds the 40-byte GRH, then the data; the completion has byte_len 40 + data, src_qp, IBV_WC_GRH, pkey_index 0 and the immediate data")
    void shouldPlaceGrhThenDataWhenDatagramArrives(Mode mode) {
        try (UdPair p = new UdPair(mode.fabric(), DeviceProfile.IBTA)) {
            p.fill(500, 7);
            p.qb.postRecv(new RecvWr().wrId(5).sge(p.mb, 0, 1024 + AddressHandle.GRH_LENGTH));
            p.qa.postSend(
                    p.datagram(1, 500, QKEY).opcode(WrOpcode.SEND_WITH_IMM).immData(77));
            WorkCompletion s = assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertEquals(WcOpcode.SEND, s.opcode());
            WorkCompletion r = assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertEquals(5, r.wrId());
            assertEquals(AddressHandle.GRH_LENGTH + 500, r.byteLen(), "byte_len counts the GRH");
            assertEquals(p.qa.qpNum(), r.srcQp(), "src_qp is the sender's QP (DETH)");
            assertTrue(r.hasFlag(WcFlag.GRH), "IBV_WC_GRH");
            assertTrue(r.hasFlag(WcFlag.WITH_IMM));
            assertEquals(77, r.immData());
            assertEquals(0, r.pkeyIndex());
            assertEquals(0, r.slid(), "RoCE: no LIDs");
            assertArrayEquals(slice(p.ba, 0, 500), slice(p.bb, AddressHandle.GRH_LENGTH, 500), "data after the GRH");
            // IBA 8.3: IPVer 6, NxtHdr 0x1B (BTH), SGID the sender's port, DGID the receiver's.
            assertEquals(0x60, p.bb.get(0) & 0xF0, "GRH IPVer 6");
            assertEquals(0x1B, p.bb.get(6) & 0xFF, "GRH NxtHdr");
            assertArrayEquals(p.da.gid().toBytes(), slice(p.bb, 8, 16), "GRH SGID");
            assertArrayEquals(p.db.gid().toBytes(), slice(p.bb, 24, 16), "GRH DGID");
        }
    }

    @Test
    @DisplayName(
            "IBA 10.2.5 Q_Keys: a datagram whose Q_Key differs from the receiver's is dropped and counted; a WR Q_Key with the high bit set sends the QP's own Q_Key")
    void shouldDropMismatchedQkeyAndUseQpQkeyWhenHighBitSet() {
        try (UdPair p = new UdPair(Fabric.deterministic(21), DeviceProfile.IBTA)) {
            p.qb.postRecv(new RecvWr().wrId(1).sge(p.mb, 0, 256));
            p.qa.postSend(p.datagram(1, 16, QKEY + 1));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            settle(p.fabric);
            assertEquals(1, p.qb.counters().get(Counter.QKEY_VIOLATIONS));
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertEquals(0, p.cb.poll(wc, 1), "nothing delivered");
            p.qa.postSend(p.datagram(2, 16, 0x8000_0000));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertEquals(
                    1,
                    assertStatus(WcStatus.SUCCESS, pollOne(p.cb)).wrId(),
                    "the QP's Q_Key went out and matched; the receive WQE was still there");
        }
    }

    @Test
    @DisplayName(
            "IBA 9.8.4: no receive posted is no RNR on UD: the datagram is dropped silently and counted; the sender completes SUCCESS; both QPs stay in RTS")
    void shouldDropSilentlyWhenNoReceiveIsPosted() {
        try (UdPair p = new UdPair(Fabric.deterministic(22), DeviceProfile.IBTA)) {
            p.qa.postSend(p.datagram(1, 64, QKEY));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            settle(p.fabric);
            assertEquals(1, p.qb.counters().get(Counter.DATAGRAMS_NO_RECEIVE));
            assertEquals(QpState.RTS, p.qa.state());
            assertEquals(QpState.RTS, p.qb.state());
            p.qb.postRecv(new RecvWr().wrId(9).sge(p.mb, 0, 256));
            p.qa.postSend(p.datagram(2, 64, QKEY));
            assertEquals(9, assertStatus(WcStatus.SUCCESS, pollOne(p.cb)).wrId());
        }
    }

    @Test
    @DisplayName(
            "IBA C10-93.1.1 (ibta, rxe): a UD message over the port MTU emits no packet and reports no error; mlx5: LOC_LEN_ERR, the QP to SQE, later sends flushed until SQE -> RTS")
    void shouldFollowProfileWhenMessageExceedsMtu() {
        try (UdPair p = new UdPair(Fabric.deterministic(23), DeviceProfile.IBTA)) {
            p.qb.postRecv(new RecvWr().wrId(1).sge(p.mb, 0, 4096));
            p.qa.postSend(p.datagram(1, 1025, QKEY));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            settle(p.fabric);
            assertEquals(0, p.qa.counters().get(Counter.PACKETS_SENT), "nothing emitted");
            assertEquals(QpState.RTS, p.qa.state());
            p.qa.postSend(p.datagram(2, 1024, QKEY));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertEquals(
                    AddressHandle.GRH_LENGTH + 1024,
                    assertStatus(WcStatus.SUCCESS, pollOne(p.cb)).byteLen(),
                    "exactly the MTU is allowed");
        }
        try (UdPair p = new UdPair(Fabric.deterministic(24), DeviceProfile.MLX5)) {
            p.qa.postSend(p.datagram(1, 1025, QKEY).next(p.datagram(2, 8, QKEY)));
            assertStatus(WcStatus.LOC_LEN_ERR, pollOne(p.ca));
            assertStatus(WcStatus.WR_FLUSH_ERR, pollOne(p.ca));
            assertEquals(QpState.SQE, p.qa.state());
            p.qa.modify(new QpAttr().state(QpState.RTS));
            p.qb.postRecv(new RecvWr().wrId(3).sge(p.mb, 0, 256));
            p.qa.postSend(p.datagram(3, 8, QKEY));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
        }
    }

    @Test
    @DisplayName(
            "ibv_poll_cq(3): a UD receive too small for the GRH and the data completes IBV_WC_LOC_LEN_ERR and the receiver's QP goes to ERR, where a new receive is flushed")
    void shouldCompleteLocLenErrWhenReceiveIsTooSmall() {
        try (UdPair p = new UdPair(Fabric.deterministic(25), DeviceProfile.IBTA)) {
            p.qb.postRecv(new RecvWr().wrId(1).sge(p.mb, 0, 100));
            p.qa.postSend(p.datagram(1, 61, QKEY));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertStatus(WcStatus.LOC_LEN_ERR, pollOne(p.cb));
            assertEquals(QpState.ERR, p.qb.state());
            // IBA 10.3.1: a receive posted to a QP in ERR completes with a flush error.
            p.qb.postRecv(new RecvWr().wrId(2).sge(p.mb, 0, 100));
            WorkCompletion flushed = assertStatus(WcStatus.WR_FLUSH_ERR, pollOne(p.cb));
            assertEquals(2, flushed.wrId());
        }
    }

    @Test
    @DisplayName(
            "IBA 11.2.5.2 table 91 (UD): INIT needs pkey_index, port and qkey; RTR takes no path; RTS needs sq_psn; RC attributes are refused with EINVAL")
    void shouldFollowUdColumnWhenModified() {
        try (Fabric f = Fabric.deterministic(26)) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(8);
            QueuePair qp = pd.createQp(QpInitAttr.ud(cq, cq));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(
                            new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1)));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr()
                            .state(QpState.INIT)
                            .pkeyIndex(0)
                            .port(1)
                            .qkey(1)
                            .accessFlags(EnumSet.noneOf(AccessFlag.class))));
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).port(1).qkey(1));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr().state(QpState.RTR).av(AhAttr.to(d.gid()))));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr().state(QpState.RTR).destQpn(5)));
            qp.modify(new QpAttr().state(QpState.RTR).qkey(9));
            assertErrno(Errno.EINVAL, () -> qp.modify(new QpAttr().state(QpState.RTS)));
            assertErrno(
                    Errno.EINVAL,
                    () -> qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0).retryCnt(7)));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            assertEquals(9, qp.query().qkey());
            assertEquals(QpState.RTS, qp.query().state());
        }
    }

    @Test
    @DisplayName(
            "ibv_post_send(3), UD: only SEND (with or without immediate); a WR without a live address handle of the QP's PD is EINVAL")
    void shouldRefuseBadWorkRequestsWhenPosted() {
        try (UdPair p = new UdPair(Fabric.deterministic(27), DeviceProfile.IBTA)) {
            for (WrOpcode op : EnumSet.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD)) {
                PostException e = assertThrows(
                        PostException.class,
                        () -> p.qa.postSend(p.datagram(1, 8, QKEY).opcode(op).remote(p.mb.address(), p.mb.rkey())));
                assertEquals(Errno.EINVAL, e.errno(), op.toString());
            }
            assertErrno(Errno.EINVAL, () -> p.qa.postSend(p.datagram(1, 8, QKEY).ud(null, p.qb.qpNum(), QKEY)));
            AddressHandle otherPd = p.da.allocPd().createAh(AhAttr.to(p.db.gid()));
            assertErrno(Errno.EINVAL, () -> p.qa.postSend(p.datagram(1, 8, QKEY).ud(otherPd, p.qb.qpNum(), QKEY)));
            AddressHandle gone = p.pa.createAh(AhAttr.to(p.db.gid()));
            gone.destroy();
            assertErrno(Errno.EINVAL, () -> p.qa.postSend(p.datagram(1, 8, QKEY).ud(gone, p.qb.qpNum(), QKEY)));
            assertEquals(0, p.qa.sendQueueDepth());
        }
    }

    @Test
    @DisplayName(
            "ibv_create_ah(3): port, sgid_index, SL, flow label, hop limit and traffic class are checked (EINVAL); ibv_destroy_ah twice is ENOENT; the PD is busy while an AH lives")
    void shouldCheckAttributesWhenCreatingAddressHandle() {
        try (Fabric f = Fabric.deterministic(28)) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            var gid = d.gid();
            assertErrno(Errno.EINVAL, () -> pd.createAh(new AhAttr(gid, 0, 64, 0, 0, 0, 2)));
            assertErrno(Errno.EINVAL, () -> pd.createAh(new AhAttr(gid, 1, 64, 0, 0, 0, 1)));
            assertErrno(Errno.EINVAL, () -> pd.createAh(new AhAttr(gid, 0, 64, 0, 0, 16, 1)));
            assertErrno(Errno.EINVAL, () -> pd.createAh(new AhAttr(gid, 0, 64, 0, 1 << 20, 0, 1)));
            assertErrno(Errno.EINVAL, () -> pd.createAh(new AhAttr(gid, 0, 256, 0, 0, 0, 1)));
            assertErrno(Errno.EINVAL, () -> pd.createAh(new AhAttr(gid, 0, 64, 256, 0, 0, 1)));
            AhAttr good = new AhAttr(gid, 0, 1, 0xB8, 0xFFFFF, 15, 1);
            AddressHandle ah = pd.createAh(good);
            assertEquals(good, ah.attr());
            assertTrue(ah.isValid());
            assertErrno(Errno.EBUSY, pd::dealloc);
            ah.destroy();
            assertFalse(ah.isValid());
            assertErrno(Errno.ENOENT, ah::destroy);
            pd.dealloc();
            assertErrno(Errno.ENOENT, () -> pd.createAh(AhAttr.to(gid)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_modify_qp(3) RTS -> SQD with en_sqd_async_notify: IBV_EVENT_SQ_DRAINED (sends complete as they leave); ibv_destroy_qp(3) is EBUSY until the event is acknowledged; SQD -> RTS sends again")
    void shouldRaiseSqDrainedAndHoldDestroyWhenEventIsUnacknowledged(Mode mode) {
        try (UdPair p = new UdPair(mode.fabric(), DeviceProfile.IBTA)) {
            p.qa.modify(new QpAttr().state(QpState.SQD).enSqdAsyncNotify(true));
            AsyncEvent e = ControlPlaneFixture.nextEvent(p.da);
            assertEquals(AsyncEventType.SQ_DRAINED, e.type());
            assertEquals(p.qa, e.qp());
            p.qa.modify(new QpAttr().state(QpState.RTS));
            p.qb.postRecv(new RecvWr().wrId(4).sge(p.mb, 0, 256));
            p.qa.postSend(p.datagram(1, 8, QKEY));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertErrno(Errno.EBUSY, p.qa::destroy);
            p.da.ackAsyncEvent(e);
            p.qa.destroy();
            assertErrno(Errno.ENOENT, p.qa::destroy);
            assertErrno(Errno.ENOENT, () -> p.qa.postSend(p.datagram(2, 8, QKEY)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_create_qp(3) NOTES: a UD QP may take its receives from an SRQ (checked against the SRQ's PD), a UC QP may not (EINVAL); ibv_post_recv on the UD QP itself is EINVAL")
    void shouldReceiveFromSrqWhenUdQpHasOne(Mode mode) {
        try (UdPair p = new UdPair(mode.fabric(), DeviceProfile.IBTA)) {
            ProtectionDomain srqPd = p.db.allocPd();
            ByteBuffer srqBuf = ByteBuffer.allocate(4096);
            MemoryRegion srqMr = srqPd.registerMemory(srqBuf, ALL);
            SharedReceiveQueue srq = srqPd.createSrq(new SrqAttr(8, 1, 0));
            QueuePair viaSrq = p.pb.createQp(QpInitAttr.ud(p.cb, p.cb).srq(srq));
            assertEquals(srq, viaSrq.srq());
            assertEquals(0, viaSrq.caps().maxRecvWr(), "max_recv_wr reads 0 with an SRQ");
            UdPair.toRts(viaSrq, QKEY);
            assertErrno(Errno.EINVAL, () -> viaSrq.postRecv(new RecvWr().wrId(1).sge(p.mb, 0, 64)));
            assertErrno(
                    Errno.EINVAL, () -> p.pb.createQp(QpInitAttr.uc(p.cb, p.cb).srq(srq)));
            srq.postRecv(new RecvWr().wrId(77).sge(srqMr, 0, 1024));
            p.fill(100, 9);
            p.qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.ma, 0, 100)
                    .ud(p.toB, viaSrq.qpNum(), QKEY)
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.ca));
            WorkCompletion r = assertStatus(WcStatus.SUCCESS, pollOne(p.cb));
            assertEquals(77, r.wrId());
            assertEquals(viaSrq.qpNum(), r.qpNum());
            assertEquals(AddressHandle.GRH_LENGTH + 100, r.byteLen());
            assertArrayEquals(
                    slice(p.ba, 0, 100),
                    slice(srqBuf, AddressHandle.GRH_LENGTH, 100),
                    "written through the SRQ's PD, which is not the QP's");
            viaSrq.modify(new QpAttr().state(QpState.ERR));
            assertEquals(
                    AsyncEventType.QP_LAST_WQE_REACHED,
                    ControlPlaneFixture.expectEvent(p.db, AsyncEventType.QP_LAST_WQE_REACHED)
                            .type(),
                    "IBA 11.6.3: Last WQE Reached");
            viaSrq.destroy();
            srq.destroy();
        }
    }
}
