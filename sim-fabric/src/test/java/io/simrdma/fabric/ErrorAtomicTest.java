package io.simrdma.fabric;

import static io.simrdma.fabric.ErrorPathSupport.CANARY;
import static io.simrdma.fabric.ErrorPathSupport.assertNoEvent;
import static io.simrdma.fabric.ErrorPathSupport.assertUntouched;
import static io.simrdma.fabric.ErrorPathSupport.awaitState;
import static io.simrdma.fabric.ErrorPathSupport.expect;
import static io.simrdma.fabric.ErrorPathSupport.expectEvent;
import static io.simrdma.fabric.ErrorPathSupport.fill;
import static io.simrdma.fabric.ErrorPathSupport.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Atomic operations with bad arguments (IBA 9.4.5: one 8-byte SGE, an 8-byte aligned remote
 * address), which are completion errors, not post errors, and atomics refused by the initiator or
 * responder depth (max_rd_atomic, max_dest_rd_atomic).
 */
class ErrorAtomicTest {

    static Stream<Arguments> misaligned() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)
                .flatMap(m -> Stream.of(WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD)
                        .flatMap(op -> Stream.of(1, 4, 7).map(off -> Arguments.of(m, op, off))));
    }

    private static SendWr atomic(RcPair p, long wrId, WrOpcode op, long localOff, long remoteOff) {
        return new SendWr()
                .wrId(wrId)
                .opcode(op)
                .sge(p.a.mr, localOff, 8)
                .remote(p.b.addr(remoteOff), p.b.mr.rkey())
                .atomic(1, 2)
                .flag(SendFlag.SIGNALED);
    }

    @ParameterizedTest(name = "{0} {1} +{2}")
    @MethodSource("misaligned")
    @DisplayName(
            "IBA 9.4.5 / 9.7.5.2.1: an atomic at a remote address not 8-byte aligned is posted; the responder NAKs it as an invalid request: REM_INV_REQ_ERR, both QPs in ERR, nothing changed")
    void shouldCompleteRemInvReqErrWhenAtomicRemoteAddressIsMisaligned(String mode, WrOpcode op, int misalign) {
        try (RcPair p = pair(mode).connect()) {
            p.b.buf.putLong(0, 10);
            fill(p.b.buf, 64, 24, CANARY);
            SendWr good = atomic(p, 1, WrOpcode.ATOMIC_FETCH_AND_ADD, 0, 0);
            SendWr bad = atomic(p, 2, op, 8, 64 + misalign);
            SendWr after = atomic(p, 3, WrOpcode.ATOMIC_FETCH_AND_ADD, 16, 0);
            p.a.qp.postSend(good.next(bad.next(after))); // the post itself succeeds
            expect(p.a, 1, WcStatus.SUCCESS);
            expect(p.a, 2, WcStatus.REM_INV_REQ_ERR);
            expect(p.a, 3, WcStatus.WR_FLUSH_ERR);
            assertEquals(11, p.b.buf.getLong(0), "only the WR before the bad one executed");
            assertUntouched(p.b.buf, 64, 24, CANARY, "the words around the misaligned address");
            expectEvent(p.b.dev, AsyncEventType.QP_REQ_ERR, p.b.qp);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
        }
    }

    enum BadAtomicSge {
        FOUR_BYTES,
        SIXTEEN_BYTES,
        NO_SGE,
        TWO_SGES_OF_FOUR
    }

    static Stream<Arguments> badSges() {
        return ErrorPathSupport.modesWith((Object[]) BadAtomicSge.values());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badSges")
    @DisplayName(
            "IBA 9.4.5: an atomic whose gather list is not exactly one 8-byte SGE is posted and completes LOC_LEN_ERR; nothing is sent or changed")
    void shouldCompleteLocLenErrWhenAtomicSgeIsNotOneEightByteElement(String mode, BadAtomicSge kind) {
        try (RcPair p = pair(mode).connect()) {
            fill(p.a.buf, 0, 64, CANARY);
            p.b.buf.putLong(64, 0);
            SendWr wr = new SendWr()
                    .wrId(9)
                    .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .atomic(0, 1)
                    .flag(SendFlag.SIGNALED);
            switch (kind) {
                case FOUR_BYTES:
                    wr.sge(p.a.mr, 0, 4);
                    break;
                case SIXTEEN_BYTES:
                    wr.sge(p.a.mr, 0, 16);
                    break;
                case NO_SGE:
                    break;
                default:
                    wr.sge(p.a.mr, 0, 4).sge(p.a.mr, 4, 4);
                    break;
            }
            p.a.qp.postSend(wr); // the post itself succeeds
            expect(p.a, 9, WcStatus.LOC_LEN_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(0, p.a.qp.counters().get(Counter.PACKETS_SENT), "nothing reaches the wire");
            assertEquals(0, p.b.buf.getLong(64), "the remote word did not change");
            assertUntouched(p.a.buf, 0, 64, CANARY, "the local buffer");
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoEvent(p.b.dev);
        }
    }

    static Stream<Arguments> readOrAtomic() {
        return ErrorPathSupport.modesWith(
                WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("readOrAtomic")
    @DisplayName(
            "ibv_modify_qp(3) max_rd_atomic = 0: an RDMA READ or atomic can never be issued: LOC_QP_OP_ERR, later WRs flush")
    void shouldCompleteLocQpOpErrWhenMaxRdAtomicIsZero(String mode, WrOpcode op) {
        try (RcPair p = pair(mode)) {
            p.maxRdAtomic = 0;
            p.connect();
            fill(p.a.buf, 0, 64, CANARY);
            p.b.buf.putLong(64, 77);
            SendWr wr = new SendWr()
                    .wrId(1)
                    .opcode(op)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .atomic(77, 5)
                    .flag(SendFlag.SIGNALED);
            SendWr later = new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 1024, 8)
                    .remote(p.b.addr(2048), p.b.mr.rkey())
                    .flag(SendFlag.SIGNALED);
            p.a.qp.postSend(wr.next(later));
            expect(p.a, 1, WcStatus.LOC_QP_OP_ERR);
            expect(p.a, 2, WcStatus.WR_FLUSH_ERR);
            awaitState(p.fabric, p.a.qp, QpState.ERR);
            assertEquals(0, p.a.qp.counters().get(Counter.PACKETS_SENT), "nothing may reach the wire");
            assertEquals(77, p.b.buf.getLong(64));
            assertUntouched(p.a.buf, 0, 64, CANARY, "local result buffer");
            assertEquals(QpState.RTS, p.b.qp.state());
            assertNoEvent(p.b.dev);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("readOrAtomic")
    @DisplayName(
            "IBA 9.7.5.2.1: a responder with max_dest_rd_atomic = 0 NAKs a READ or atomic as invalid: REM_INV_REQ_ERR")
    void shouldCompleteRemInvReqErrWhenResponderHasNoReadAtomicResources(String mode, WrOpcode op) {
        try (RcPair p = pair(mode)) {
            p.toInit(p.a.qp);
            p.toInit(p.b.qp);
            p.toRtr(p.a.qp, p.b.dev, p.b.qp.qpNum(), p.psnB);
            p.b.qp.modify(new QpAttr()
                    .state(QpState.RTR)
                    .av(AhAttr.to(p.a.dev.gid()))
                    .pathMtu(p.mtu)
                    .destQpn(p.a.qp.qpNum())
                    .rqPsn(p.psnA)
                    .maxDestRdAtomic(0)
                    .minRnrTimer(p.minRnrTimer));
            p.toRts(p.a.qp, p.psnA);
            p.toRts(p.b.qp, p.psnB);
            assertEquals(0, p.b.qp.query().maxDestRdAtomic());
            fill(p.a.buf, 0, 64, CANARY);
            p.b.buf.putLong(64, 77);
            p.a.qp.postSend(new SendWr()
                    .wrId(1)
                    .opcode(op)
                    .sge(p.a.mr, 0, 8)
                    .remote(p.b.addr(64), p.b.mr.rkey())
                    .atomic(77, 5)
                    .flag(SendFlag.SIGNALED));
            expect(p.a, 1, WcStatus.REM_INV_REQ_ERR);
            expectEvent(p.b.dev, AsyncEventType.QP_REQ_ERR, p.b.qp);
            awaitState(p.fabric, p.b.qp, QpState.ERR);
            assertEquals(77, p.b.buf.getLong(64));
            assertUntouched(p.a.buf, 0, 64, CANARY, "local result buffer");
        }
    }
}
