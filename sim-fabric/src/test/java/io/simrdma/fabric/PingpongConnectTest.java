package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.assertSuccess;
import static io.simrdma.fabric.DataPathSupport.expect;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.poll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.DataPathSupport.PacketLog;
import io.simrdma.fabric.DataPathSupport.PacketLog.Entry;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Psn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connecting RC queue pairs by hand, the way ibv_rc_pingpong(1) does: each side creates its QP,
 * moves it to INIT, exchanges (LID, QPN, PSN, GID) out of band in pingpong's text form, then
 * moves to RTR with the peer's QPN/PSN/GID and to RTS with its own PSN (ibv_modify_qp(3)); then
 * ping-pong traffic. Also: initial PSNs just below the 24-bit wrap (IBA 9.7.1: PSNs are modulo
 * 2^24), and loopback: QPs of one device connected to each other, or a QP to itself.
 */
class PingpongConnectTest {

    private static final String SCHEDULERS = "io.simrdma.fabric.DataPathSupport#schedulers";

    /** What ibv_rc_pingpong's pp_client_exch_dest / pp_server_exch_dest carry. */
    private record Dest(int lid, int qpn, int psn, Gid gid) {

        /** pingpong's message: "%04x:%06x:%06x:%s" with the GID as 32 hex digits. */
        String toWire() {
            StringBuilder g = new StringBuilder();
            for (byte b : gid.toBytes()) {
                g.append(String.format("%02x", b & 0xFF));
            }
            return String.format("%04x:%06x:%06x:%s", lid, qpn, psn, g);
        }

        static Dest fromWire(String msg) {
            String[] f = msg.split(":");
            byte[] raw = new byte[16];
            for (int i = 0; i < 16; i++) {
                raw[i] = (byte) Integer.parseInt(f[3].substring(2 * i, 2 * i + 2), 16);
            }
            return new Dest(
                    Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16), Gid.of(raw));
        }
    }

    /** One ibv_rc_pingpong process: its context (pp_init_ctx) and its half of the connection. */
    private static final class Pingpong {
        static final int RX_DEPTH = 100;
        final Device dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf;
        final MemoryRegion mr;
        final int size;
        int psn;

        Pingpong(Fabric fabric, String name, int size, SplittableRandom rnd) {
            this.size = size;
            dev = fabric.createDevice(name);
            pd = dev.allocPd();
            // Two halves: what this side sends, and where it receives (pingpong -c validates the receive buffer).
            buf = ByteBuffer.allocate(2 * size);
            mr = pd.registerMemory(buf, EnumSet.of(AccessFlag.LOCAL_WRITE));
            cq = dev.createCq(RX_DEPTH + 1);
            qp = pd.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(1, RX_DEPTH, 1, 1, 0)));
            qp.modify(new QpAttr()
                    .state(QpState.INIT)
                    .pkeyIndex(0)
                    .port(1)
                    .accessFlags(EnumSet.noneOf(AccessFlag.class)));
            psn = rnd.nextInt() & 0xFFFFFF; // lrand48() & 0xffffff
        }

        /** On an Ethernet (RoCE) port pingpong sends LID 0 and relies on the GID (gid index 0 here). */
        Dest myDest() {
            PortAttributes port = dev.queryPort(1);
            assertEquals("Ethernet", port.linkLayer());
            assertEquals(PortState.ACTIVE, port.state());
            return new Dest(0, qp.qpNum(), psn, dev.gid());
        }

        /** pp_connect_ctx: RTR with the remote's QPN, PSN and GID, then RTS with our PSN. */
        void connect(Dest rem, Mtu mtu) {
            qp.modify(new QpAttr()
                    .state(QpState.RTR)
                    .pathMtu(mtu)
                    .destQpn(rem.qpn())
                    .rqPsn(rem.psn())
                    .maxDestRdAtomic(1)
                    .minRnrTimer(12)
                    .av(AhAttr.to(rem.gid())));
            qp.modify(new QpAttr()
                    .state(QpState.RTS)
                    .timeout(14)
                    .retryCnt(7)
                    .rnrRetry(7)
                    .sqPsn(psn)
                    .maxRdAtomic(1));
        }

        void postRecv(long wrId) {
            qp.postRecv(new RecvWr().wrId(wrId).sge(mr, size, size));
        }

        void send(long wrId) {
            qp.postSend(new SendWr()
                    .wrId(wrId)
                    .opcode(WrOpcode.SEND)
                    .sge(mr, 0, size)
                    .flag(SendFlag.SIGNALED));
        }
    }

    static Stream<Arguments> pingpongModes() {
        return DataPathSupport.schedulersWith("await", "busy-poll");
    }

    /**
     * Takes {@code n} completions: waiting on the CQ, or the way ibv_rc_pingpong does by default,
     * calling poll in a loop (under the deterministic scheduler each empty poll runs one engine
     * step, so the loop makes progress on the test thread). Both with a deadline.
     */
    private static List<WorkCompletion> take(CompletionQueue cq, int n, String how) {
        if (how.equals("await")) {
            return poll(cq, n);
        }
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wc = WorkCompletion.array(n);
        long deadline =
                System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(DataPathSupport.TIMEOUT_MS);
        while (out.size() < n) {
            int got = cq.poll(wc, n - out.size());
            for (int i = 0; i < got; i++) {
                out.add(new WorkCompletion().copyFrom(wc[i]));
            }
            if (got == 0) {
                assertTrue(
                        System.nanoTime() - deadline < 0, () -> "busy-polling " + cq + ": " + out.size() + " of " + n);
                Thread.onSpinWait();
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pingpongModes")
    @DisplayName(
            "ibv_rc_pingpong(1): QPN/PSN/GID exchanged as text, INIT/RTR/RTS by hand; 200 ping-pongs of 4096 bytes arrive intact")
    void shouldPingPongWhenConnectedByHandLikeRcPingpong(String mode, String how) {
        try (Fabric fabric = DataPathSupport.fabric(mode)) {
            SplittableRandom rnd = new SplittableRandom(DataPathSupport.SEED);
            int size = 4096;
            Pingpong server = new Pingpong(fabric, "server", size, rnd);
            Pingpong client = new Pingpong(fabric, "client", size, rnd);
            for (int i = 0; i < Pingpong.RX_DEPTH; i++) {
                server.postRecv(i);
                client.postRecv(i);
            }
            // The out-of-band exchange: client -> server, server -> client.
            String fromClient = client.myDest().toWire();
            String fromServer = server.myDest().toWire();
            assertTrue(fromClient.matches("[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{32}"), fromClient);
            Dest clientAtServer = Dest.fromWire(fromClient);
            Dest serverAtClient = Dest.fromWire(fromServer);
            assertEquals(client.myDest(), clientAtServer);
            server.connect(clientAtServer, Mtu.MTU_1024);
            client.connect(serverAtClient, Mtu.MTU_1024);

            int iters = 200;
            long recvPosted = Pingpong.RX_DEPTH;
            ByteBuffer expected = ByteBuffer.allocate(size);
            for (int it = 0; it < iters; it++) {
                // ping: client -> server
                fill(client.buf, 0, size, it * 2L);
                client.send(10_000 + it);
                WorkCompletion r = take(server.cq, 1, how).get(0);
                // Receives are consumed in the order posted: the it-th message takes receive wr_id it.
                assertSuccess(r, it, WcOpcode.RECV);
                assertEquals(size, r.byteLen());
                fill(expected, 0, size, it * 2L);
                assertBytes("ping " + it, expected, 0, server.buf, size, size);
                server.postRecv(recvPosted);
                // pong: server -> client
                fill(server.buf, 0, size, it * 2L + 1);
                server.send(20_000 + it);
                assertSuccess(take(server.cq, 1, how).get(0), 20_000 + it, WcOpcode.SEND);
                // The client's CQ gets its SEND's completion and the pong's receive, in either order.
                for (WorkCompletion c : take(client.cq, 2, how)) {
                    if (c.opcode() == WcOpcode.SEND) {
                        assertSuccess(c, 10_000 + it, WcOpcode.SEND);
                    } else {
                        assertSuccess(c, it, WcOpcode.RECV);
                        assertEquals(size, c.byteLen());
                    }
                }
                fill(expected, 0, size, it * 2L + 1);
                assertBytes("pong " + it, expected, 0, client.buf, size, size);
                client.postRecv(recvPosted);
                recvPosted++;
            }
            QpAttr q = client.qp.query();
            assertEquals(QpState.RTS, q.state());
            assertEquals(server.qp.qpNum(), q.destQpn());
            assertEquals(Mtu.MTU_1024, q.pathMtu());
            assertEquals(server.psn, q.rqPsn());
            assertEquals(client.psn, q.sqPsn());
            assertEquals(server.dev.gid(), q.av().dgid());
            assertEngineHealthy(fabric);
        }
    }

    static Stream<Arguments> wrapStarts() {
        return DataPathSupport.schedulersWith(0xFFFFF0, 0xFFFFFE, 0xFFFFFF);
    }

    @ParameterizedTest(name = "{0} psn=0x{1}")
    @MethodSource("wrapStarts")
    @DisplayName(
            "PSNs starting just below 2^24 wrap to 0 (IBA 9.7.1): READ responses, SEND/WRITE segments and atomics across the wrap, both directions")
    void shouldCarryTrafficAcrossPsnWrapWhenStartingNearTop(String mode, int start) {
        try (RcPair p = DataPathSupport.pair(mode)) {
            p.mtu = Mtu.MTU_256;
            p.psnA = start;
            p.psnB = start;
            p.connect();
            PacketLog log = PacketLog.attach(p.fabric);
            // A READ of 32 MTUs first: its response PSNs straddle the wrap.
            fill(p.b.buf, 0, 8192, 41);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.a.mr, 0, 8192)
                    .remote(p.b.addr(0), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            expect(p.a.cq, 1, WcOpcode.RDMA_READ);
            assertBytes("READ across the wrap", p.b.buf, 0, p.a.buf, 0, 8192);

            // Then multi-packet SENDs and WRITEs and atomics from both sides.
            fill(p.a.buf, 10_000, 5000, 42);
            fill(p.b.buf, 10_000, 5000, 43);
            p.b.buf.putLong(20_000, 0);
            p.a.buf.putLong(20_000, 0);
            for (int i = 0; i < 10; i++) {
                p.b.qp.postRecv(new RecvWr().wrId(i).sge(p.b.mr, 30_000 + 1000L * (i % 2), 1000));
                p.a.qp.postRecv(new RecvWr().wrId(i).sge(p.a.mr, 30_000 + 1000L * (i % 2), 1000));
            }
            for (int i = 0; i < 10; i++) {
                int len = 700 + 31 * i;
                p.a.qp.postSend(new SendWr()
                        .wrId(100 + i)
                        .opcode(WrOpcode.SEND)
                        .sge(p.a.mr, 10_000 + i, len)
                        .flag(SendFlag.SIGNALED)
                        .next(new SendWr()
                                .wrId(200 + i)
                                .opcode(WrOpcode.RDMA_WRITE)
                                .sge(p.a.mr, 10_000, 5000)
                                .remote(p.b.addr(40_000), p.b.mr.rkey())
                                .next(new SendWr()
                                        .wrId(300 + i)
                                        .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                                        .sge(p.a.mr, 21_000 + 8L * i, 8)
                                        .remote(p.b.addr(20_000), p.b.mr.rkey())
                                        .atomic(1, 0)
                                        .flag(SendFlag.SIGNALED))));
                p.b.qp.postSend(new SendWr()
                        .wrId(100 + i)
                        .opcode(WrOpcode.SEND_WITH_IMM)
                        .immData(i)
                        .sge(p.b.mr, 10_000 + i, len)
                        .flag(SendFlag.SIGNALED)
                        .next(new SendWr()
                                .wrId(300 + i)
                                .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                                .sge(p.b.mr, 21_000 + 8L * i, 8)
                                .remote(p.a.addr(20_000), p.a.mr.rkey())
                                .atomic(i, i + 1)
                                .flag(SendFlag.SIGNALED)));
                // Each CQ serves both queues of its QP: the receive and the two send completions
                // interleave in any order, each queue's own completions in order.
                List<WorkCompletion> atA = poll(p.a.cq, 3);
                List<WorkCompletion> atB = poll(p.b.cq, 3);
                WorkCompletion ra = receives(atB).get(0);
                assertSuccess(ra, i, WcOpcode.RECV);
                assertEquals(len, ra.byteLen());
                assertBytes("SEND a->b " + i, p.a.buf, 10_000 + i, p.b.buf, 30_000 + 1000 * (i % 2), len);
                WorkCompletion rb = receives(atA).get(0);
                assertSuccess(rb, i, WcOpcode.RECV);
                assertEquals(i, rb.immData());
                assertBytes("SEND b->a " + i, p.b.buf, 10_000 + i, p.a.buf, 30_000 + 1000 * (i % 2), len);
                assertSuccess(sends(atA).get(0), 100 + i, WcOpcode.SEND);
                assertSuccess(sends(atA).get(1), 300 + i, WcOpcode.FETCH_ADD);
                assertSuccess(sends(atB).get(0), 100 + i, WcOpcode.SEND);
                assertSuccess(sends(atB).get(1), 300 + i, WcOpcode.COMP_SWAP);
                assertEquals(i, p.a.buf.getLong(21_000 + 8 * i), "FETCH_AND_ADD #" + i);
                assertEquals(i, p.b.buf.getLong(21_000 + 8 * i), "CMP_AND_SWP #" + i);
                assertBytes("WRITE " + i, p.a.buf, 10_000, p.b.buf, 40_000, 5000);
            }
            assertEquals(10, p.b.buf.getLong(20_000));
            assertEquals(10, p.a.buf.getLong(20_000));

            // The requests of each side used consecutive PSNs through the wrap (a READ takes one per response).
            for (String side : List.of("a", "b")) {
                List<Entry> req = log.sent(side, Opcode::isRequest);
                int expectedPsn = start;
                boolean wrapped = false;
                for (Entry e : req) {
                    assertEquals(expectedPsn, e.psn(), () -> side + ": request PSN of " + e);
                    int used = e.opcode() == Opcode.RC_RDMA_READ_REQUEST ? 32 : 1;
                    int next = Psn.add(expectedPsn, used);
                    wrapped |= next < expectedPsn;
                    expectedPsn = next;
                }
                assertTrue(wrapped, side + " never wrapped its PSN");
            }
            log.assertCleanWhenDeterministic(p.fabric);
            assertEngineHealthy(p.fabric);
        }
    }

    private static List<WorkCompletion> receives(List<WorkCompletion> wcs) {
        return wcs.stream().filter(w -> w.opcode().isReceive()).toList();
    }

    private static List<WorkCompletion> sends(List<WorkCompletion> wcs) {
        return wcs.stream().filter(w -> !w.opcode().isReceive()).toList();
    }

    /** A device with one PD, CQ and region, and QPs connected among themselves. */
    private static final class Loopback {
        final Device dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
        final MemoryRegion mr;

        Loopback(Fabric fabric) {
            dev = fabric.createDevice("lo");
            pd = dev.allocPd();
            cq = dev.createCq(256);
            mr = pd.registerMemory(buf, RcPair.ALL);
        }

        QueuePair qp() {
            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, cq));
            qp.modify(new QpAttr()
                    .state(QpState.INIT)
                    .pkeyIndex(0)
                    .port(1)
                    .accessFlags(
                            EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC)));
            return qp;
        }

        static void connect(QueuePair qp, QueuePair peer, int myPsn, int peerPsn) {
            qp.modify(new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(peer.device().gid()))
                    .pathMtu(Mtu.MTU_1024)
                    .destQpn(peer.qpNum())
                    .rqPsn(peerPsn)
                    .maxDestRdAtomic(4)
                    .minRnrTimer(1));
            qp.modify(new QpAttr()
                    .state(QpState.RTS)
                    .sqPsn(myPsn)
                    .timeout(14)
                    .retryCnt(7)
                    .rnrRetry(7)
                    .maxRdAtomic(4));
        }

        long addr(long off) {
            return mr.address() + off;
        }
    }

    /**
     * Every opcode from {@code x} to {@code y} on one device; one region, disjoint ranges from
     * {@code base}: source 0..6000, SEND target 8000..14000, atomic 14000 (result 14008), WRITE
     * with immediate's receive 15000, READ target 16000..22000, WRITE target 22000..25000.
     */
    private static void exerciseLoopback(Loopback lo, QueuePair x, QueuePair y, int base) {
        fill(lo.buf, base, 6000, base);
        lo.buf.putLong(base + 14_000, 7);
        y.postRecv(new RecvWr().wrId(base + 1).sge(lo.mr, base + 8000, 6000));
        y.postRecv(new RecvWr().wrId(base + 2).sge(lo.mr, base + 15_000, 16));
        x.postSend(new SendWr()
                .wrId(1)
                .opcode(WrOpcode.SEND_WITH_IMM)
                .immData(base)
                .sge(lo.mr, base, 6000)
                .flag(SendFlag.SIGNALED)
                .next(new SendWr()
                        .wrId(2)
                        .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                        .immData(base + 1)
                        .sge(lo.mr, base, 3000)
                        .remote(lo.addr(base + 22_000L), lo.mr.rkey())
                        .flag(SendFlag.SIGNALED)));
        // One CQ serves every QP of the device: receive and send completions interleave.
        List<WorkCompletion> wcs = poll(lo.cq, 4);
        WorkCompletion r1 = receives(wcs).get(0);
        assertSuccess(r1, base + 1, WcOpcode.RECV);
        assertEquals(6000, r1.byteLen());
        assertEquals(base, r1.immData());
        assertEquals(y.qpNum(), r1.qpNum());
        assertEquals(x.qpNum(), r1.srcQp());
        WorkCompletion r2 = receives(wcs).get(1);
        assertSuccess(r2, base + 2, WcOpcode.RECV_RDMA_WITH_IMM);
        assertEquals(3000, r2.byteLen());
        assertEquals(base + 1, r2.immData());
        assertSuccess(sends(wcs).get(0), 1, WcOpcode.SEND);
        assertSuccess(sends(wcs).get(1), 2, WcOpcode.RDMA_WRITE);
        assertEquals(x.qpNum(), sends(wcs).get(0).qpNum());
        assertBytes("loopback SEND", lo.buf, base, lo.buf, base + 8000, 6000);
        assertBytes("loopback WRITE", lo.buf, base, lo.buf, base + 22_000, 3000);
        x.postSend(new SendWr()
                .wrId(3)
                .opcode(WrOpcode.RDMA_READ)
                .sge(lo.mr, base + 16_000, 6000)
                .remote(lo.addr(base), lo.mr.rkey())
                .flag(SendFlag.SIGNALED)
                .next(new SendWr()
                        .wrId(4)
                        .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                        .sge(lo.mr, base + 14_008, 8)
                        .remote(lo.addr(base + 14_000), lo.mr.rkey())
                        .atomic(5, 0)
                        .flag(SendFlag.SIGNALED)));
        expect(x.sendCq(), 3, WcOpcode.RDMA_READ);
        expect(x.sendCq(), 4, WcOpcode.FETCH_ADD);
        assertBytes("loopback READ", lo.buf, base, lo.buf, base + 16_000, 6000);
        assertEquals(7, lo.buf.getLong(base + 14_008));
        assertEquals(12, lo.buf.getLong(base + 14_000));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "Loopback: two QPs of one device connected to each other (av = the device's own GID) carry every opcode both ways")
    void shouldCarryEveryOpcodeWhenTwoQpsOfOneDeviceAreConnected(String mode) {
        try (Fabric fabric = DataPathSupport.fabric(mode)) {
            Loopback lo = new Loopback(fabric);
            QueuePair x = lo.qp();
            QueuePair y = lo.qp();
            Loopback.connect(x, y, 0x100, 0x200);
            Loopback.connect(y, x, 0x200, 0x100);
            exerciseLoopback(lo, x, y, 0);
            exerciseLoopback(lo, y, x, 30_000);
            assertTrue(
                    fabric.link(lo.dev, lo.dev).stats(lo.dev).delivered() > 0, "traffic went over the loopback link");
            assertEngineHealthy(fabric);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(SCHEDULERS)
    @DisplayName(
            "Loopback: a QP connected to itself (dest_qp_num = its own QPN) sends to its own receive queue and reads its own region")
    void shouldCarryEveryOpcodeWhenQpIsConnectedToItself(String mode) {
        try (Fabric fabric = DataPathSupport.fabric(mode)) {
            Loopback lo = new Loopback(fabric);
            QueuePair x = lo.qp();
            Loopback.connect(x, x, 0xFFFFFA, 0xFFFFFA);
            exerciseLoopback(lo, x, x, 0);
            exerciseLoopback(lo, x, x, 30_000);
            assertEngineHealthy(fabric);
        }
    }
}
