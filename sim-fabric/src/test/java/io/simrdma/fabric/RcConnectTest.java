package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertSuccess;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RcConnect}: two RC QPs connected out of band in one call, with ibv_rc_pingpong(1)'s
 * attributes (ibv_modify_qp(3): RESET, INIT, RTR, RTS), or each side from the other's endpoint.
 */
class RcConnectTest {

    private static final String SCHEDULERS = "io.simrdma.fabric.DataPathSupport#schedulers";
    private static final EnumSet<AccessFlag> ALL = EnumSet.of(
            AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    /** One side: device, PD, CQ, QP and a registered buffer. */
    private record Side(Device dev, CompletionQueue cq, QueuePair qp, ByteBuffer buf, MemoryRegion mr) {
        static Side open(Fabric f, String name) {
            Device d = f.createDevice(name);
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(64);
            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, cq));
            ByteBuffer buf = ByteBuffer.allocateDirect(8192);
            return new Side(d, cq, qp, buf, pd.registerMemory(buf, ALL));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName("ibv_rc_pingpong(1): connect(a, b) leaves both QPs in RTS and a SEND arrives")
    void shouldCarryASendWhenTwoQpsAreConnectedInOneCall(String mode) {
        try (Fabric f = DataPathSupport.fabric(mode)) {
            Side a = Side.open(f, "a");
            Side b = Side.open(f, "b");
            RcConnect.connect(a.qp(), b.qp());
            assertEquals(QpState.RTS, a.qp().state());
            assertEquals(QpState.RTS, b.qp().state());

            fill(a.buf(), 0, 4096, 11);
            b.qp().postRecv(new RecvWr().wrId(2).sge(b.mr(), 0, 4096));
            a.qp().postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(a.mr(), 0, 4096)
                    .flag(SendFlag.SIGNALED));
            assertSuccess(poll(a.cq()), 1, WcOpcode.SEND);
            WorkCompletion recv = poll(b.cq());
            assertSuccess(recv, 2, WcOpcode.RECV);
            assertEquals(4096, recv.byteLen(), "bytes received");
            assertBytes("SEND payload", a.buf(), 0, b.buf(), 0, 4096);
        }
    }

    @Test
    @DisplayName(
            "RcConnect.Options.defaults(): ibv_rc_pingpong's mtu 1024, timeout 14, retry 7/7, min_rnr_timer 12, rd_atomic 1")
    void shouldSetPingpongAttributesWhenConnectingWithDefaults() {
        try (Fabric f = Fabric.deterministic(1)) {
            Side a = Side.open(f, "a");
            Side b = Side.open(f, "b");
            RcConnect.connect(a.qp(), b.qp());
            QpAttr q = a.qp().query();
            assertEquals(Mtu.MTU_1024, q.pathMtu(), "path_mtu");
            assertEquals(14, q.timeout(), "timeout");
            assertEquals(7, q.retryCnt(), "retry_cnt");
            assertEquals(7, q.rnrRetry(), "rnr_retry");
            assertEquals(12, q.minRnrTimer(), "min_rnr_timer");
            assertEquals(1, q.maxRdAtomic(), "max_rd_atomic");
            assertEquals(1, q.maxDestRdAtomic(), "max_dest_rd_atomic");
            assertEquals(b.qp().qpNum(), q.destQpn(), "dest_qp_num");
            assertEquals(b.dev().gid(), q.av().dgid(), "ah_attr.dgid");
            assertEquals(
                    EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC),
                    q.accessFlags(),
                    "qp_access_flags");
            assertEquals(b.qp().query().rqPsn(), q.sqPsn(), "a's first PSN is the one b expects");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "ibv_rc_pingpong(1): endpoints exchanged out of band, each side connects its own QP; an RDMA WRITE lands")
    void shouldConnectEachSideFromThePeersEndpoint(String mode) {
        try (Fabric f = DataPathSupport.fabric(mode)) {
            Side a = Side.open(f, "a");
            Side b = Side.open(f, "b");
            RcConnect.Endpoint ea = RcConnect.Endpoint.of(a.qp(), 0x10);
            RcConnect.Endpoint eb = RcConnect.Endpoint.of(b.qp(), 0xFFFFF0);
            RcConnect.Options o =
                    RcConnect.Options.defaults().withPathMtu(Mtu.MTU_256).withRdAtomic(4);
            RcConnect.connect(a.qp(), ea.psn(), eb, o);
            RcConnect.connect(b.qp(), eb.psn(), ea, o);
            assertEquals(0x10, a.qp().query().sqPsn(), "sq_psn is the PSN a announced");
            assertEquals(0x10, b.qp().query().rqPsn(), "rq_psn is the PSN b was told");
            assertEquals(Mtu.MTU_256, b.qp().query().pathMtu(), "options apply");

            fill(a.buf(), 0, 3000, 5);
            a.qp().postSend(new SendWr()
                    .wrId(9)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(a.mr(), 0, 3000)
                    .remote(b.mr().address(), b.mr().rkey())
                    .flag(SendFlag.SIGNALED));
            assertSuccess(poll(a.cq()), 9, WcOpcode.RDMA_WRITE);
            assertBytes("RDMA WRITE payload across the PSN wrap", a.buf(), 0, b.buf(), 0, 3000);
        }
    }

    @Test
    @DisplayName(
            "ibv_modify_qp(3): connecting a QP that is not in RESET fails with EINVAL (RTS -> INIT is not a transition)")
    void shouldRefuseAQpThatIsAlreadyConnected() {
        try (Fabric f = Fabric.deterministic(1)) {
            Side a = Side.open(f, "a");
            Side b = Side.open(f, "b");
            RcConnect.connect(a.qp(), b.qp());
            VerbsException e = assertThrows(VerbsException.class, () -> RcConnect.connect(a.qp(), b.qp()));
            assertEquals(Errno.EINVAL, e.errno());
        }
    }

    @Test
    @DisplayName("connect(a, b) picks the same first PSNs for the same QPs, and different ones for different QPs")
    void shouldReplayFirstPsnsAndKeepThemApart() {
        int[] first = psns(3);
        int[] again = psns(3);
        assertEquals(first[0], again[0], "same seed, same PSN of a");
        assertEquals(first[1], again[1], "same seed, same PSN of b");
        assertNotEquals(first[0], first[1], "the two sides start at different PSNs");
    }

    private static int[] psns(long seed) {
        try (Fabric f = Fabric.deterministic(seed)) {
            Side a = Side.open(f, "a");
            Side b = Side.open(f, "b");
            RcConnect.connect(a.qp(), b.qp());
            return new int[] {a.qp().query().sqPsn(), b.qp().query().sqPsn()};
        }
    }

    @Test
    @DisplayName("RcConnect.Options: an attribute out of its ibv_modify_qp(3) range is EINVAL, named")
    void shouldRefuseOptionsOutOfRange() {
        VerbsException e = assertThrows(
                VerbsException.class, () -> RcConnect.Options.defaults().withRetryCnt(8));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("EINVAL: retry_cnt 8 not in 0..7", e.getMessage());
        assertThrows(VerbsException.class, () -> RcConnect.Options.defaults().withTimeout(32));
        assertThrows(
                VerbsException.class,
                () -> new RcConnect.Endpoint(io.simrdma.fabric.wire.Gid.parse("::1"), 1, 1 << 24));
    }

    @Test
    @DisplayName("ibv_post_send(3): a flag set on a reused SendWr stays until cleared; clearFlag removes only that one")
    void shouldClearOneFlagAndKeepTheOthers() {
        SendWr wr = new SendWr().flag(SendFlag.SIGNALED).flag(SendFlag.SOLICITED);
        wr.clearFlag(SendFlag.SIGNALED);
        assertEquals(SendFlag.SOLICITED.bit(), wr.flagBits(), "SOLICITED stays, SIGNALED is gone");
        wr.clearFlag(SendFlag.SIGNALED);
        assertEquals(SendFlag.SOLICITED.bit(), wr.flagBits(), "clearing an absent flag changes nothing");
    }
}
