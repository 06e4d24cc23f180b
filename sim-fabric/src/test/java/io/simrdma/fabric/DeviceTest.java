package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Device attributes and limits (ibv_query_device(3), ibv_query_port(3)): what DeviceConfig sets
 * is what query reports, and every limit is enforced: a count beyond its limit fails with
 * ENOMEM, a size beyond its limit with EINVAL; freeing an object makes room for another.
 */
class DeviceTest {

    private static final EnumSet<AccessFlag> RW = EnumSet.of(AccessFlag.LOCAL_WRITE);

    private static DeviceConfig small(String name) {
        return DeviceConfig.named(name)
                .guid(0x1122334455667788L)
                .maxQp(3)
                .maxQpWr(32)
                .maxSge(3)
                .maxSgeRd(2)
                .maxCq(2)
                .maxCqe(64)
                .maxMr(2)
                .maxPd(2)
                .maxQpRdAtom(5)
                .maxQpInitRdAtom(6)
                .maxResRdAtom(50)
                .maxMw(2)
                .maxSrq(2)
                .maxSrqWr(16)
                .maxSrqSge(2)
                .maxInlineData(40)
                .maxMtu(Mtu.MTU_2048)
                .maxMrSize(8192);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_query_device(3): the attributes are those DeviceConfig set")
    void shouldReportConfiguredAttributesWhenQueried(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            DeviceAttributes a = d.query();
            assertEquals(0x1122334455667788L, a.nodeGuid());
            assertEquals(d.guid(), a.nodeGuid());
            assertEquals(8192, a.maxMrSize());
            assertEquals(3, a.maxQp());
            assertEquals(32, a.maxQpWr());
            assertEquals(3, a.maxSge());
            assertEquals(2, a.maxSgeRd());
            assertEquals(2, a.maxCq());
            assertEquals(64, a.maxCqe());
            assertEquals(2, a.maxMr());
            assertEquals(2, a.maxPd());
            assertEquals(5, a.maxQpRdAtom());
            assertEquals(6, a.maxQpInitRdAtom());
            assertEquals(50, a.maxResRdAtom());
            assertEquals(2, a.maxMw());
            assertEquals(2, a.maxSrq());
            assertEquals(16, a.maxSrqWr());
            assertEquals(2, a.maxSrqSge());
            assertEquals(40, a.maxInlineData());
            assertEquals(1, a.physPortCnt());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_query_port(3): one port, numbered 1, active, MTU as configured; port 2 is EINVAL")
    void shouldReportPortAttributesWhenQueried(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            PortAttributes p = d.queryPort(1);
            assertEquals(PortState.ACTIVE, p.state());
            assertEquals(Mtu.MTU_2048, p.maxMtu());
            assertEquals(Mtu.MTU_2048, p.activeMtu());
            assertEquals("Ethernet", p.linkLayer());
            assertEquals(1, p.gidTblLen());
            assertEquals(1, p.pkeyTblLen());
            assertErrno(Errno.EINVAL, () -> d.queryPort(2));
            assertErrno(Errno.EINVAL, () -> d.queryPort(0));
        }
    }

    @Test
    @DisplayName("DeviceConfig is validated once: a limit of 0 is refused when the device is created")
    void shouldRefuseDeviceWhenALimitIsNotPositive() {
        try (Fabric f = Fabric.deterministic(1)) {
            org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class,
                    () -> f.createDevice(DeviceConfig.named("d").maxQp(0)));
            org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class,
                    () -> f.createDevice(DeviceConfig.named("d").maxMrSize(0)));
            assertNotNull(f.createDevice(DeviceConfig.named("d")));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("max_pd: ENOMEM beyond it, room again after ibv_dealloc_pd")
    void shouldFailWithEnomemWhenMaxPdReached(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            ProtectionDomain p1 = d.allocPd();
            d.allocPd();
            assertErrno(Errno.ENOMEM, d::allocPd);
            p1.dealloc();
            assertNotNull(d.allocPd());
            assertErrno(Errno.ENOMEM, d::allocPd);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("max_cq: ENOMEM beyond it, room again after ibv_destroy_cq")
    void shouldFailWithEnomemWhenMaxCqReached(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            CompletionQueue c1 = d.createCq(1);
            d.createCq(64);
            assertErrno(Errno.ENOMEM, () -> d.createCq(4));
            c1.destroy();
            assertNotNull(d.createCq(4));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_create_cq(3) / ibv_resize_cq(3): cqe must be in 1..max_cqe, else EINVAL")
    void shouldFailWithEinvalWhenCqeOutOfRange(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            assertErrno(Errno.EINVAL, () -> d.createCq(0));
            assertErrno(Errno.EINVAL, () -> d.createCq(-1));
            assertErrno(Errno.EINVAL, () -> d.createCq(65));
            CompletionQueue cq = d.createCq(64);
            assertEquals(64, cq.capacity());
            assertErrno(Errno.EINVAL, () -> cq.resize(65));
            assertErrno(Errno.EINVAL, () -> cq.resize(0));
            assertEquals(64, cq.capacity());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("max_mr: ENOMEM beyond it, room again after ibv_dereg_mr")
    void shouldFailWithEnomemWhenMaxMrReached(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            ProtectionDomain pd = d.allocPd();
            MemoryRegion m1 = pd.registerMemory(ByteBuffer.allocate(100), RW);
            pd.registerMemory(ByteBuffer.allocate(100), RW);
            assertErrno(Errno.ENOMEM, () -> pd.registerMemory(ByteBuffer.allocate(100), RW));
            m1.deregister();
            assertTrue(pd.registerMemory(ByteBuffer.allocate(100), RW).isValid());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("max_mr_size: a larger buffer is EINVAL; one of exactly max_mr_size registers")
    void shouldFailWithEinvalWhenRegionExceedsMaxMrSize(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            ProtectionDomain pd = d.allocPd();
            assertErrno(Errno.EINVAL, () -> pd.registerMemory(ByteBuffer.allocate(8193), RW));
            assertEquals(8192, pd.registerMemory(ByteBuffer.allocate(8192), RW).length());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("max_mw: ENOMEM beyond it (ibv_alloc_mw(3)), room again after ibv_dealloc_mw")
    void shouldFailWithEnomemWhenMaxMwReached(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            ProtectionDomain pd = d.allocPd();
            MemoryWindow w1 = pd.allocMw(MwType.TYPE_1);
            pd.allocMw(MwType.TYPE_2);
            assertErrno(Errno.ENOMEM, () -> pd.allocMw(MwType.TYPE_1));
            w1.dealloc();
            assertEquals(MwType.TYPE_2, pd.allocMw(MwType.TYPE_2).type());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("max_qp: ENOMEM beyond it, room again after ibv_destroy_qp")
    void shouldFailWithEnomemWhenMaxQpReached(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(8);
            QpInitAttr attr = QpInitAttr.rc(cq, cq).caps(new QpCaps(4, 4, 1, 1, 0));
            List<QueuePair> qps = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                qps.add(pd.createQp(attr));
            }
            assertErrno(Errno.ENOMEM, () -> pd.createQp(attr));
            qps.get(1).destroy();
            QueuePair again = pd.createQp(attr);
            assertEquals(QpState.RESET, again.state());
            assertErrno(Errno.ENOMEM, () -> pd.createQp(attr));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_create_qp(3): max_send_wr/max_recv_wr beyond max_qp_wr, SGEs beyond max_sge, inline beyond max_inline_data are EINVAL")
    void shouldFailWithEinvalWhenQpCapsExceedLimits(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(8);
            assertErrno(Errno.EINVAL, () -> pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(33, 4, 1, 1, 0))));
            assertErrno(Errno.EINVAL, () -> pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(4, 33, 1, 1, 0))));
            assertErrno(Errno.EINVAL, () -> pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(4, 4, 4, 1, 0))));
            assertErrno(Errno.EINVAL, () -> pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(4, 4, 1, 4, 0))));
            assertErrno(Errno.EINVAL, () -> pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(4, 4, 1, 1, 41))));
            // Exactly at every limit is fine, and nothing was counted by the failed attempts.
            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(32, 32, 3, 3, 40)));
            assertEquals(new QpCaps(32, 32, 3, 3, 40), qp.caps());
            pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(1, 1, 0, 0, 0)));
            pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(1, 1, 0, 0, 0)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_create_qp(3): max_send_wr 0 makes a receive-only QP: it is created, connects and receives; a send posted to it is ENOMEM")
    void shouldCreateReceiveOnlyQpWhenMaxSendWrIsZero(Mode mode) {
        try (Fabric f = mode.fabric()) {
            ControlPlaneFixture.Node a = ControlPlaneFixture.Node.of(f, "a");
            ControlPlaneFixture.Node b = ControlPlaneFixture.Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.pd.createQp(QpInitAttr.rc(b.cq, b.cq).caps(new QpCaps(0, 4, 1, 1, 0)));
            assertEquals(0, qb.caps().maxSendWr());
            connect(qa, qb);
            assertEquals(0, qb.query().cap().maxSendWr(), "ibv_query_qp(3) reports max_send_wr 0");
            qb.postRecv(ControlPlaneFixture.recv(b, 1, 0, 64));
            a.buf.putLong(0, 42);
            qa.postSend(ControlPlaneFixture.send(a, 2, 0, 8));
            ControlPlaneFixture.assertStatus(WcStatus.SUCCESS, ControlPlaneFixture.pollOne(a.cq));
            WorkCompletion r = ControlPlaneFixture.assertStatus(WcStatus.SUCCESS, ControlPlaneFixture.pollOne(b.cq));
            assertEquals(1, r.wrId());
            assertEquals(42, b.buf.getLong(0));
            PostException e = org.junit.jupiter.api.Assertions.assertThrows(
                    PostException.class, () -> qb.postSend(ControlPlaneFixture.send(b, 3, 0, 8)));
            assertEquals(Errno.ENOMEM, e.errno(), e.getMessage());
            assertEquals(0, e.badIndex());
            assertEquals(0, qb.sendQueueDepth());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("max_srq (ENOMEM), max_srq_wr and max_srq_sge (EINVAL) of ibv_create_srq(3)")
    void shouldEnforceSrqLimitsWhenCreatingSrqs(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice(small("d"));
            ProtectionDomain pd = d.allocPd();
            assertErrno(Errno.EINVAL, () -> pd.createSrq(new SrqAttr(17, 1, 0)));
            assertErrno(Errno.EINVAL, () -> pd.createSrq(new SrqAttr(0, 1, 0)));
            assertErrno(Errno.EINVAL, () -> pd.createSrq(new SrqAttr(4, 3, 0)));
            SharedReceiveQueue s1 = pd.createSrq(new SrqAttr(16, 2, 0));
            assertEquals(new SrqAttr(16, 2, 0), s1.query());
            pd.createSrq(new SrqAttr(1, 1, 0));
            assertErrno(Errno.ENOMEM, () -> pd.createSrq(new SrqAttr(1, 1, 0)));
            s1.destroy();
            assertNotNull(pd.createSrq(new SrqAttr(1, 1, 0)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_modify_qp(3): max_rd_atomic beyond max_qp_init_rd_atom, max_dest_rd_atomic beyond max_qp_rd_atom are EINVAL")
    void shouldFailWithEinvalWhenRdAtomicBeyondDeviceLimits(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device a = f.createDevice(small("a"));
            Device b = f.createDevice(small("b").guid(0x99));
            CompletionQueue ca = a.createCq(8);
            CompletionQueue cb = b.createCq(8);
            QpCaps caps = new QpCaps(8, 8, 1, 1, 0);
            QueuePair x = a.allocPd().createQp(QpInitAttr.rc(ca, ca).caps(caps));
            QueuePair y = b.allocPd().createQp(QpInitAttr.rc(cb, cb).caps(caps));
            ControlPlaneFixture.toInit(x);
            QpAttr rtr = new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(b.gid()))
                    .pathMtu(Mtu.MTU_1024)
                    .destQpn(y.qpNum())
                    .rqPsn(0)
                    .minRnrTimer(1);
            assertErrno(Errno.EINVAL, () -> x.modify(rtr.maxDestRdAtomic(6)));
            assertEquals(QpState.INIT, x.state());
            x.modify(rtr.maxDestRdAtomic(5));
            assertEquals(QpState.RTR, x.state());
            QpAttr rts = new QpAttr()
                    .state(QpState.RTS)
                    .sqPsn(0)
                    .timeout(14)
                    .retryCnt(7)
                    .rnrRetry(7);
            assertErrno(Errno.EINVAL, () -> x.modify(rts.maxRdAtomic(7)));
            assertEquals(QpState.RTR, x.state());
            x.modify(rts.maxRdAtomic(6));
            QpAttr q = x.query();
            assertEquals(QpState.RTS, q.state());
            assertEquals(6, q.maxRdAtomic());
            assertEquals(5, q.maxDestRdAtomic());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_post_send(3): an RDMA READ may have at most max_sge_rd SGEs, other WRs max_send_sge (EINVAL beyond)")
    void shouldFailWithEinvalWhenReadHasMoreSgesThanMaxSgeRd(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device a = f.createDevice(small("a"));
            Device b = f.createDevice(small("b").guid(0x99));
            CompletionQueue ca = a.createCq(8);
            CompletionQueue cb = b.createCq(8);
            ProtectionDomain pa = a.allocPd();
            QpCaps caps = new QpCaps(8, 8, 3, 3, 0);
            QueuePair x = pa.createQp(QpInitAttr.rc(ca, ca).caps(caps));
            QueuePair y = b.allocPd().createQp(QpInitAttr.rc(cb, cb).caps(caps));
            connect(x, y);
            MemoryRegion mr = pa.registerMemory(ByteBuffer.allocate(4096), ControlPlaneFixture.ALL);
            SendWr read = new SendWr()
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(mr, 0, 8)
                    .sge(mr, 8, 8)
                    .sge(mr, 16, 8)
                    .remote(0x1000, 1);
            PostException e =
                    org.junit.jupiter.api.Assertions.assertThrows(PostException.class, () -> x.postSend(read));
            assertEquals(Errno.EINVAL, e.errno());
            SendWr send4 = new SendWr()
                    .opcode(WrOpcode.SEND)
                    .sge(mr, 0, 8)
                    .sge(mr, 8, 8)
                    .sge(mr, 16, 8)
                    .sge(mr, 24, 8);
            assertErrno(Errno.EINVAL, () -> x.postSend(send4));
            assertEquals(0, ca.size());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_modify_qp(3): path_mtu above the port's active MTU (DeviceConfig.maxMtu) is EINVAL")
    void shouldFailWithEinvalWhenPathMtuAboveActiveMtu(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device a = f.createDevice(DeviceConfig.named("a").maxMtu(Mtu.MTU_1024));
            CompletionQueue ca = a.createCq(8);
            QueuePair x = a.allocPd().createQp(QpInitAttr.rc(ca, ca));
            ControlPlaneFixture.toInit(x);
            QpAttr rtr = new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(a.gid()))
                    .destQpn(x.qpNum())
                    .rqPsn(0)
                    .maxDestRdAtomic(1)
                    .minRnrTimer(1);
            assertErrno(Errno.EINVAL, () -> x.modify(rtr.pathMtu(Mtu.MTU_2048)));
            assertEquals(QpState.INIT, x.state());
            x.modify(rtr.pathMtu(Mtu.MTU_1024));
            assertEquals(Mtu.MTU_1024, x.query().pathMtu());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_close_device(3): EBUSY while PDs, CQs or channels exist; closes once all are freed")
    void shouldRefuseToCloseDeviceWhenObjectsExist(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            CompletionChannel ch = d.createCompletionChannel();
            CompletionQueue cq = d.createCq(4, ch, null);
            assertErrno(Errno.EBUSY, d::close);
            assertFalse(d.isClosed());
            pd.dealloc();
            assertErrno(Errno.EBUSY, d::close);
            cq.destroy();
            assertErrno(Errno.EBUSY, d::close);
            ch.destroy();
            d.close();
            assertTrue(d.isClosed());
            assertErrno(Errno.ENODEV, d::allocPd);
            assertErrno(Errno.ENODEV, () -> d.createCq(1));
            assertEquals(null, f.device("d"), "a closed device leaves its fabric");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("Fabric.close destroys every object of every device: all of them refuse further use")
    void shouldFreeEveryObjectWhenFabricCloses(Mode mode) {
        Fabric f = mode.fabric();
        Device a = f.createDevice("a");
        Device b = f.createDevice("b");
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        CompletionChannel ch = a.createCompletionChannel();
        CompletionQueue ca = a.createCq(16, ch, null);
        CompletionQueue cb = b.createCq(16);
        ByteBuffer buf = ByteBuffer.allocate(4096);
        MemoryRegion mr = pa.registerMemory(buf, ControlPlaneFixture.ALL);
        MemoryWindow mw = pa.allocMw(MwType.TYPE_1);
        SharedReceiveQueue srq = pa.createSrq(new SrqAttr(8, 1, 0));
        QueuePair x = pa.createQp(QpInitAttr.rc(ca, ca).srq(srq));
        QueuePair y = pb.createQp(QpInitAttr.rc(cb, cb));
        connect(x, y);
        srq.postRecv(new RecvWr().wrId(1).sge(mr, 0, 64));
        f.close();

        assertTrue(a.isClosed());
        assertTrue(b.isClosed());
        assertTrue(f.devices().isEmpty());
        assertFalse(mr.isValid(), "the fabric deregistered the region");
        assertErrno(
                Errno.ENOENT,
                () -> x.postSend(new SendWr().opcode(WrOpcode.SEND).flag(SendFlag.SIGNALED)));
        assertErrno(Errno.ENOENT, () -> y.postRecv(new RecvWr().wrId(2)));
        assertErrno(Errno.ENOENT, () -> x.modify(new QpAttr().state(QpState.ERR)));
        assertErrno(Errno.ENOENT, () -> ca.poll(WorkCompletion.array(1)));
        assertErrno(Errno.ENOENT, () -> srq.postRecv(new RecvWr().wrId(3).sge(mr, 0, 64)));
        assertErrno(Errno.ENOENT, () -> srq.query());
        assertErrno(Errno.ENOENT, () -> ch.getCqEvent(1, java.util.concurrent.TimeUnit.MILLISECONDS));
        assertErrno(Errno.ENODEV, () -> pa.allocMw(MwType.TYPE_1));
        assertErrno(Errno.ENODEV, a::allocPd);
        // Freeing what the fabric already freed is a double free.
        assertErrno(Errno.ENOENT, mw::dealloc);
        assertErrno(Errno.ENOENT, mr::deregister);
        f.close();
    }
}
