package io.simrdma.fabric;

import static io.simrdma.fabric.DataPathSupport.assertBytes;
import static io.simrdma.fabric.DataPathSupport.assertConstant;
import static io.simrdma.fabric.DataPathSupport.assertCqEmpty;
import static io.simrdma.fabric.DataPathSupport.assertEngineHealthy;
import static io.simrdma.fabric.DataPathSupport.expect;
import static io.simrdma.fabric.DataPathSupport.fill;
import static io.simrdma.fabric.DataPathSupport.fillConstant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.DataPathSupport.PacketLog;
import io.simrdma.fabric.DataPathSupport.PacketLog.Entry;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Psn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MTU segmentation (IBA 9.7.4.1.3: every packet of a multi-packet message but the last carries
 * exactly one path MTU of payload; First/Middle/Last or Only opcodes; consecutive PSNs; an RDMA
 * READ request takes the PSNs of all its responses, IBA 9.7.2) for every path MTU 256..4096 and
 * message sizes 0, 1, MTU-1, MTU, MTU+1, several MTUs and 1 MiB (in a larger buffer, at an
 * unaligned offset), for SEND, RDMA WRITE and RDMA READ, under both schedulers. The data is
 * checked byte for byte and the guard bytes around it must stay untouched; the packets are
 * checked through a trace listener.
 */
class MtuSegmentationTest {

    private static final int MIB = 1 << 20;
    private static final int BIG = MIB + 16 * 1024;
    private static final int SRC = 4099;
    private static final int DST = 2053;
    private static final byte GUARD = (byte) 0xE7;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String s : List.of(DataPathSupport.DETERMINISTIC, DataPathSupport.THREADED)) {
            for (Mtu m : Mtu.values()) {
                for (WrOpcode op : List.of(WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ)) {
                    out.add(Arguments.of(s, m, op));
                }
            }
        }
        return out.stream();
    }

    private static int[] sizes(int mtu) {
        return new int[] {0, 1, mtu - 1, mtu, mtu + 1, 5 * mtu + 7, MIB};
    }

    private static int packets(int n, int mtu) {
        return Math.max(1, (n + mtu - 1) / mtu);
    }

    /**
     * Checks one message's data packets: {@code count} packets, First/Middle.../Last or Only,
     * each full MTU but the last, consecutive PSNs from {@code firstPsn}.
     */
    private static void assertSegments(String what, List<Entry> pkts, int n, int mtu, int firstPsn) {
        int count = packets(n, mtu);
        assertEquals(count, pkts.size(), () -> what + ": packets " + pkts);
        for (int i = 0; i < count; i++) {
            Entry e = pkts.get(i);
            Opcode op = e.opcode();
            String at = what + " packet " + i + " of " + count + " (" + e + ")";
            if (count == 1) {
                assertTrue(op.isFirst() && op.isLast(), at + ": an Only opcode");
            } else if (i == 0) {
                assertTrue(op.isFirst() && !op.isLast(), at + ": a First opcode");
            } else if (i == count - 1) {
                assertTrue(op.isLast() && !op.isFirst(), at + ": a Last opcode");
            } else {
                assertTrue(op.isMiddle(), at + ": a Middle opcode");
            }
            int expectedPayload = i < count - 1 ? mtu : n - (count - 1) * mtu;
            assertEquals(expectedPayload, e.payload(), at + ": payload");
            assertEquals(Psn.add(firstPsn, i), e.psn(), at + ": PSN");
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    @DisplayName(
            "Messages of 0, 1, MTU-1, MTU, MTU+1, 5 MTU+7 bytes and 1 MiB are segmented at the path MTU and arrive intact")
    void shouldSegmentAtPathMtuAndDeliverIntactWhenMessageSizeVaries(String mode, Mtu mtu, WrOpcode op) {
        try (RcPair p = DataPathSupport.pair(mode)) {
            p.mtu = mtu;
            ByteBuffer aBig = ByteBuffer.allocateDirect(BIG);
            ByteBuffer bBig = ByteBuffer.allocate(BIG);
            MemoryRegion aMr = p.a.pd.registerMemory(aBig, RcPair.ALL);
            MemoryRegion bMr = p.b.pd.registerMemory(bBig, RcPair.ALL);
            p.connect();
            PacketLog log = PacketLog.attach(p.fabric);
            int m = mtu.bytes();
            // Requests carry the requester's PSNs, starting at the pair's initial PSN.
            int psn = p.psnA;
            long wrId = 0;

            for (int n : sizes(m)) {
                // Zero bytes are posted twice: without any SGE and with one empty SGE.
                int variants = n == 0 ? 2 : 1;
                for (int v = 0; v < variants; v++) {
                    String what = op + " of " + n + " bytes at MTU " + m
                            + (n == 0 ? (v == 0 ? ", no SGE" : ", one empty SGE") : "");
                    boolean read = op == WrOpcode.RDMA_READ;
                    ByteBuffer src = read ? bBig : aBig;
                    ByteBuffer dst = read ? aBig : bBig;
                    fill(src, SRC, n, n * 31L + m);
                    fillConstant(dst, DST - 64, n + 128, GUARD);
                    log.clear();
                    wrId++;

                    SendWr wr = new SendWr().wrId(wrId).opcode(op).flag(SendFlag.SIGNALED);
                    if (op == WrOpcode.SEND) {
                        RecvWr rwr = new RecvWr().wrId(1000 + wrId);
                        if (v == 0 || n > 0) {
                            rwr.sge(bMr, DST, BIG - DST);
                        }
                        p.b.qp.postRecv(rwr);
                    }
                    if (n > 0 || v == 1) {
                        wr.sge(aMr, read ? DST : SRC, n);
                    }
                    if (op != WrOpcode.SEND) {
                        wr.remote(read ? bMr.address() + SRC : bMr.address() + DST, bMr.rkey());
                    }
                    p.a.qp.postSend(wr);

                    WorkCompletion c;
                    try {
                        if (op == WrOpcode.SEND) {
                            WorkCompletion r = expect(p.b.cq, 1000 + wrId, WcOpcode.RECV);
                            assertEquals(n, r.byteLen(), what + ": receive byte_len");
                        }
                        c = expect(p.a.cq, wrId, op.completionOpcode());
                    } catch (AssertionError e) {
                        List<Entry> all = log.all();
                        throw new AssertionError(
                                what + ": " + e.getMessage() + "; last packets: "
                                        + all.subList(Math.max(0, all.size() - 8), all.size()),
                                e);
                    }
                    if (read) {
                        assertEquals(n, c.byteLen(), what + ": RDMA READ byte_len");
                    }
                    assertBytes(what, src, SRC, dst, DST, n);
                    assertConstant(what + ": guard before", dst, DST - 64, 64, GUARD);
                    assertConstant(what + ": guard after", dst, DST + n, 64, GUARD);

                    if (read) {
                        List<Entry> req = log.sent("a", Opcode::isRequest);
                        assertEquals(1, req.size(), () -> what + ": one READ request " + req);
                        assertEquals(Opcode.RC_RDMA_READ_REQUEST, req.get(0).opcode());
                        assertEquals(psn, req.get(0).psn(), what + ": READ request PSN");
                        assertSegments(what + " response", log.sent("b", Opcode::isRead), n, m, psn);
                    } else {
                        assertSegments(what, log.sent("a", Opcode::isRequest), n, m, psn);
                    }
                    psn = Psn.add(psn, packets(n, m));
                    log.assertCleanWhenDeterministic(p.fabric);
                }
            }
            assertCqEmpty(p.fabric, p.b.cq);
            assertEngineHealthy(p.fabric);
        }
    }
}
