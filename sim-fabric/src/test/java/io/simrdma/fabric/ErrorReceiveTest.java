package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.CANARY;
import static io.simrdma.fabric.ErrorPathSupport.assertNoEvent;
import static io.simrdma.fabric.ErrorPathSupport.assertUntouched;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.fill;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Errors found by the responder while consuming a receive WQE (IBA 9.9.3.1, class C for RC): the
 * error is reported on the receive WQE it holds (no async event), the requester gets the NAK's
 * status, both QPs move to ERR and the remaining receives are flushed.
 */
class ErrorReceiveTest {

    static Stream<Arguments> tooSmall() {
        // mode, receive buffer, message: one packet one byte too long; a 3-packet message (MTU 1024)
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(Arguments.of(m, 100, 101), Arguments.of(m, 2048, 3000)));
    }

    @ParameterizedTest(name = "{0}: {2} bytes into {1}")
    @MethodSource("tooSmall")
    @DisplayName(
            "IBA 9.7.5.2.1 / ibv_poll_cq(3): a SEND longer than the receive buffer: receiver LOC_LEN_ERR, sender REM_INV_REQ_ERR")
    void shouldCompleteLocLenErrAndRemInvReqErrWhenReceiveBufferIsTooSmall(String mode, int recvLen, int msgLen) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.b.buf, 0, 8192, CANARY);
            RcPair.fill(p.a.buf, 0, msgLen, 11);
            p.b.qp.postRecv(new RecvWr()
                    .wrId(50)
                    .sge(p.b.mr, 1024, recvLen)
                    .next(new RecvWr().wrId(51).sge(p.b.mr, 6000, 2000)));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, msgLen)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.SEND)
                            .sge(p.a.mr, 0, 10)
                            .flag(SendFlag.SIGNALED)));

            expect(p.b, 50, WcStatus.LOC_LEN_ERR);
            expect(p.b, 51, WcStatus.WR_FLUSH_ERR);
            expect(p.a, 1, WcStatus.REM_INV_REQ_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            assertNoEvent(p.b.dev); // reported on the receive WQE, not as an async event
            assertEquals(1, p.b.qp.counters().get(Counter.NAK_INV_REQ_SENT));
            assertEquals(1, p.a.qp.counters().get(Counter.NAK_INV_REQ_RECEIVED));
            assertUntouched(p.b.buf, 0, 1024, CANARY, "bytes before the receive buffer");
            assertUntouched(p.b.buf, 1024 + recvLen, 8192 - 1024 - recvLen, CANARY, "bytes after the receive buffer");
            if (msgLen <= 1024) {
                // one packet: the length is checked before anything is placed
                assertUntouched(p.b.buf, 1024, recvLen, CANARY, "receive buffer of a refused one-packet SEND");
            }
        }
    }

    /** How the receive WQE's SGE is unusable. */
    enum BadSge {
        /** The L_Key's tag does not match its region. */
        WRONG_KEY,
        /** The region belongs to another PD. */
        OTHER_PD,
        /** The region was deregistered before the SEND arrived. */
        DEREGISTERED,
        /** The region lacks LOCAL_WRITE, which placing received data needs (ibv_reg_mr(3)). */
        NO_LOCAL_WRITE,
        /** The SGE runs one byte past the end of its region. */
        OUT_OF_BOUNDS
    }

    static Stream<Arguments> badSges() {
        return ErrorPathSupport.modesWith((Object[]) BadSge.values());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badSges")
    @DisplayName("IBA 9.7.5.2.1: a receive SGE failing its local checks: receiver LOC_PROT_ERR, sender REM_OP_ERR")
    void shouldCompleteLocProtErrAndRemOpErrWhenReceiveSgeIsUnusable(String mode, BadSge kind) {
        try (RcPair p = pair(mode).connect()) {
            ByteBuffer target = ByteBuffer.allocate(1024);
            fill(target, 0, 1024, CANARY);
            ByteBuffer region = target.duplicate();
            region.position(256).limit(512);
            long addr;
            int lkey;
            switch (kind) {
                case WRONG_KEY: {
                    MemoryRegion mr = p.b.pd.registerMemory(region, RcPair.ALL);
                    addr = mr.address();
                    lkey = mr.lkey() ^ 0x1;
                    break;
                }
                case OTHER_PD: {
                    MemoryRegion mr = p.b.dev.allocPd().registerMemory(region, RcPair.ALL);
                    addr = mr.address();
                    lkey = mr.lkey();
                    break;
                }
                case DEREGISTERED: {
                    MemoryRegion mr = p.b.pd.registerMemory(region, RcPair.ALL);
                    addr = mr.address();
                    lkey = mr.lkey();
                    p.b.qp.postRecv(new RecvWr().wrId(50).sge(addr, 200, lkey));
                    mr.deregister();
                    break;
                }
                case NO_LOCAL_WRITE: {
                    MemoryRegion mr = p.b.pd.registerMemory(region, EnumSet.of(AccessFlag.REMOTE_READ));
                    addr = mr.address();
                    lkey = mr.lkey();
                    break;
                }
                default: {
                    MemoryRegion mr = p.b.pd.registerMemory(region, RcPair.ALL);
                    addr = mr.address() + 57; // 200 bytes from offset 57 end one byte past the 256-byte region
                    lkey = mr.lkey();
                    break;
                }
            }
            if (kind != BadSge.DEREGISTERED) {
                p.b.qp.postRecv(new RecvWr().wrId(50).sge(addr, 200, lkey));
            }
            p.b.qp.postRecv(new RecvWr().wrId(51).sge(p.b.mr, 0, 1000));
            RcPair.fill(p.a.buf, 0, 200, 12);
            // 200 bytes: the message fills the whole SGE, so even its last byte would be placed
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 200)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr().wrId(2).opcode(WrOpcode.SEND).sge(p.a.mr, 0, 10)));

            expect(p.b, 50, WcStatus.LOC_PROT_ERR);
            expect(p.b, 51, WcStatus.WR_FLUSH_ERR);
            expect(p.a, 1, WcStatus.REM_OP_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            assertNoEvent(p.b.dev);
            assertEquals(1, p.b.qp.counters().get(Counter.NAK_REM_OP_SENT));
            assertEquals(1, p.a.qp.counters().get(Counter.NAK_REM_OP_RECEIVED));
            assertUntouched(target, 0, 1024, CANARY, kind + ": receive target and its surroundings");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ErrorPathSupport.DET, ErrorPathSupport.THREADED})
    @DisplayName(
            "ibv_poll_cq(3) IBV_WC_LOC_ACCESS_ERR / IBA 9.7.5.2.1: an RDMA WRITE with immediate through a bad R_Key: the receive WQE it consumed completes LOC_ACCESS_ERR (a local error), the sender REM_ACCESS_ERR")
    void shouldCompleteReceiveLocAccessErrWhenWriteWithImmediateRkeyIsBad(String mode) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.b.buf, 0, 8192, CANARY);
            p.b.qp.postRecv(new RecvWr()
                    .wrId(50)
                    .sge(p.b.mr, 0, 64)
                    .next(new RecvWr().wrId(51).sge(p.b.mr, 64, 64)));
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(7)
                    .sge(p.a.mr, 0, 64)
                    .remote(p.b.addr(1024), p.b.mr.rkey() ^ 0x1)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(2)
                            .opcode(WrOpcode.SEND)
                            .sge(p.a.mr, 0, 10)
                            .flag(SendFlag.SIGNALED)));

            WorkCompletion r = expect(p.b, 50, WcStatus.LOC_ACCESS_ERR);
            assertEquals(0, r.wcFlags(), "an error completion reports no immediate data: " + r);
            expect(p.b, 51, WcStatus.WR_FLUSH_ERR);
            expect(p.a, 1, WcStatus.REM_ACCESS_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            assertNoEvent(p.b.dev); // reported on the receive WQE, not as an async event
            assertEquals(1, p.b.qp.counters().get(Counter.NAK_REM_ACCESS_SENT));
            assertUntouched(p.b.buf, 0, 8192, CANARY, "receiver memory");
        }
    }
}
