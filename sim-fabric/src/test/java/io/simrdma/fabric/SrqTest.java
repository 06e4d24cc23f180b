package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static io.simrdma.fabric.ControlPlaneFixture.expectEvent;
import static io.simrdma.fabric.ControlPlaneFixture.nextEvent;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.recv;
import static io.simrdma.fabric.ControlPlaneFixture.send;
import static io.simrdma.fabric.ControlPlaneFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shared receive queues (ibv_create_srq(3), ibv_modify_srq(3), ibv_query_srq(3),
 * ibv_post_srq_recv(3)): QPs created with an SRQ take its WQEs in posting order; MAX_WR
 * resizes it; the limit arms a one-shot SRQ_LIMIT_REACHED.
 *
 * <p>Setup: device b has one SRQ shared by QPs qb1 and qb2, connected to qa1 and qa2 on a.
 */
class SrqTest {

    private Fabric fabric;
    private Node a;
    private Node b;
    private SharedReceiveQueue srq;
    private QueuePair qa1;
    private QueuePair qa2;
    private QueuePair qb1;
    private QueuePair qb2;

    private void setUp(Mode mode, int maxWr) {
        fabric = mode.fabric();
        a = Node.of(fabric, "a");
        b = Node.of(fabric, "b");
        srq = b.pd.createSrq(new SrqAttr(maxWr, 2, 0));
        qa1 = a.qp();
        qa2 = a.qp();
        qb1 = b.qp(srq);
        qb2 = b.qp(srq);
        connect(qa1, qb1);
        connect(qa2, qb2);
    }

    @AfterEach
    void closeFabric() {
        if (fabric != null) {
            fabric.close();
        }
    }

    /** Posts receives {@code from..to} to the SRQ, receive i at offset 1024 * i. */
    private void postRecvs(int from, int to) {
        RecvWr head = null;
        for (int i = to; i >= from; i--) {
            head = recv(b, i, 1024 * i, 1024).next(head);
        }
        srq.postRecv(head);
    }

    /** qa SENDs 16 bytes to its peer and waits for b's receive completion, which it returns. */
    private WorkCompletion sendFrom(QueuePair qa, long id) {
        a.buf.putLong(0, id);
        qa.postSend(send(a, id, 0, 16));
        WorkCompletion wc = pollOne(b.cq);
        assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        return assertStatus(WcStatus.SUCCESS, wc);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_create_srq(3): QPs sharing an SRQ consume its receive WRs in posting order, whichever QP the message comes on")
    void shouldConsumeInPostingOrderWhenTwoQpsShareSrq(Mode mode) {
        setUp(mode, 16);
        postRecvs(1, 4);
        assertEquals(4, srq.size());
        QueuePair[] from = {qa1, qa2, qa2, qa1};
        QueuePair[] at = {qb1, qb2, qb2, qb1};
        for (int i = 0; i < 4; i++) {
            WorkCompletion wc = sendFrom(from[i], 100 + i);
            assertEquals(i + 1, wc.wrId(), "receive WR " + (i + 1) + " is taken " + (i + 1) + "th");
            assertEquals(at[i].qpNum(), wc.qpNum());
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertEquals(16, wc.byteLen());
            assertEquals(100 + i, b.buf.getLong(1024 * (i + 1)), "the message landed in receive WR " + (i + 1));
        }
        assertEquals(0, srq.size());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_post_recv(3): a QP created with an SRQ has no receive queue of its own (EINVAL); its caps read 0")
    void shouldRefusePostRecvWhenQpUsesSrq(Mode mode) {
        setUp(mode, 4);
        PostException e = assertThrows(PostException.class, () -> qb1.postRecv(recv(b, 1, 0, 64)));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(0, e.badIndex());
        assertSame(srq, qb1.srq());
        assertEquals(0, qb1.caps().maxRecvWr());
        assertEquals(0, qb1.caps().maxRecvSge());
        assertEquals(0, srq.size());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_post_srq_recv(3): a list stops at the first WR that fails: too many SGEs (EINVAL) or a full SRQ (ENOMEM)")
    void shouldStopPostingAtFirstBadWrWhenPostingToSrq(Mode mode) {
        setUp(mode, 3);
        RecvWr bad = new RecvWr().wrId(2).sge(b.mr, 0, 8).sge(b.mr, 8, 8).sge(b.mr, 16, 8);
        PostException e = assertThrows(
                PostException.class, () -> srq.postRecv(recv(b, 1, 0, 64).next(bad.next(recv(b, 3, 64, 64)))));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(1, e.badIndex());
        assertSame(bad, e.badWr());
        assertEquals(1, srq.size(), "the WR before the bad one was posted, the ones after it were not");
        PostException full = assertThrows(
                PostException.class,
                () -> srq.postRecv(recv(b, 4, 0, 64).next(recv(b, 5, 0, 64).next(recv(b, 6, 0, 64)))));
        assertEquals(Errno.ENOMEM, full.errno());
        assertEquals(2, full.badIndex());
        assertEquals(3, srq.size());
        assertEquals(1, sendFrom(qa1, 7).wrId());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_modify_srq(3) IBV_SRQ_MAX_WR: grows and shrinks the SRQ, keeping posted WRs; below the posted count is EINVAL")
    void shouldResizeWhenMaxWrModified(Mode mode) {
        setUp(mode, 4);
        postRecvs(1, 4);
        assertThrows(PostException.class, () -> srq.postRecv(recv(b, 5, 0, 64)));
        srq.modify(new SrqAttr(8, 0, 0), EnumSet.of(SrqAttrMask.MAX_WR));
        assertEquals(new SrqAttr(8, 2, 0), srq.query());
        postRecvs(5, 8);
        assertEquals(8, srq.size());
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttr(7, 0, 0), EnumSet.of(SrqAttrMask.MAX_WR)));
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttr(0, 0, 0), EnumSet.of(SrqAttrMask.MAX_WR)));
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttr(16385, 0, 0), EnumSet.of(SrqAttrMask.MAX_WR)));
        assertEquals(8, srq.query().maxWr());
        for (int i = 1; i <= 3; i++) {
            assertEquals(i, sendFrom(i % 2 == 0 ? qa2 : qa1, i).wrId());
        }
        srq.modify(new SrqAttr(5, 0, 0), EnumSet.of(SrqAttrMask.MAX_WR));
        assertEquals(5, srq.query().maxWr());
        assertThrows(PostException.class, () -> srq.postRecv(recv(b, 9, 0, 64)));
        // The WRs kept across both resizes come out in the order they were posted.
        for (int i = 4; i <= 8; i++) {
            assertEquals(i, sendFrom(qa1, i).wrId());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_modify_srq(3) IBV_SRQ_LIMIT: one SRQ_LIMIT_REACHED when the count drops below the limit; the limit then reads 0; re-arming works")
    void shouldRaiseLimitEventOnceWhenCountDropsBelowLimit(Mode mode) {
        setUp(mode, 8);
        postRecvs(1, 6);
        srq.modify(new SrqAttr(0, 0, 4), EnumSet.of(SrqAttrMask.LIMIT));
        assertEquals(4, srq.query().srqLimit());
        sendFrom(qa1, 1);
        sendFrom(qa2, 2);
        assertEquals(4, srq.size());
        assertNull(b.dev.pollAsyncEvent(), "4 WRs left is not below the limit of 4");
        sendFrom(qa1, 3);
        AsyncEvent e = expectEvent(b.dev, AsyncEventType.SRQ_LIMIT_REACHED);
        assertSame(srq, e.srq());
        assertNull(e.qp());
        assertEquals(0, srq.query().srqLimit(), "the event disarms the limit");
        sendFrom(qa2, 4);
        assertNull(b.dev.pollAsyncEvent(), "one-shot: no second event without re-arming");

        srq.modify(new SrqAttr(0, 0, 2), EnumSet.of(SrqAttrMask.LIMIT));
        assertEquals(2, srq.query().srqLimit());
        sendFrom(qa1, 5);
        assertSame(srq, expectEvent(b.dev, AsyncEventType.SRQ_LIMIT_REACHED).srq());
        assertEquals(0, srq.query().srqLimit());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_modify_srq(3): a limit above max_wr is EINVAL, and if any attribute is invalid none is modified")
    void shouldChangeNothingWhenAnyModifiedAttributeInvalid(Mode mode) {
        setUp(mode, 8);
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttr(0, 0, 9), EnumSet.of(SrqAttrMask.LIMIT)));
        assertErrno(
                Errno.EINVAL,
                () -> srq.modify(new SrqAttr(4, 0, 6), EnumSet.of(SrqAttrMask.MAX_WR, SrqAttrMask.LIMIT)));
        assertEquals(new SrqAttr(8, 2, 0), srq.query());
        postRecvs(1, 3);
        assertErrno(
                Errno.EINVAL,
                () -> srq.modify(new SrqAttr(2, 0, 1), EnumSet.of(SrqAttrMask.MAX_WR, SrqAttrMask.LIMIT)));
        assertEquals(new SrqAttr(8, 2, 0), srq.query(), "a valid limit is not applied when max_wr is refused");
        srq.modify(new SrqAttr(4, 0, 4), EnumSet.of(SrqAttrMask.MAX_WR, SrqAttrMask.LIMIT));
        assertEquals(new SrqAttr(4, 2, 4), srq.query());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_async_event(3): QP_LAST_WQE_REACHED when a QP of an SRQ enters ERR; the SRQ keeps its WRs for the other QPs")
    void shouldRaiseLastWqeReachedWhenSrqQpEntersError(Mode mode) {
        setUp(mode, 8);
        postRecvs(1, 4);
        qb1.modify(new QpAttr().state(QpState.ERR));
        AsyncEvent e = expectEvent(b.dev, AsyncEventType.QP_LAST_WQE_REACHED);
        assertSame(qb1, e.qp());
        assertEquals(4, srq.size(), "WRs of an SRQ are not flushed by one of its QPs");
        assertEquals(1, sendFrom(qa2, 1).wrId());
        assertEquals(qb2.qpNum(), sendFrom(qa2, 2).qpNum());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 11.6.3: an SRQ QP moved to ERR by a remote access error reports QP_ACCESS_ERR, then QP_LAST_WQE_REACHED")
    void shouldRaiseAccessErrorThenLastWqeWhenSrqQpFailsOnRemoteAccess(Mode mode) {
        setUp(mode, 8);
        postRecvs(1, 2);
        qa1.postSend(write(a, 1, 0, 8, b.addr(0), b.mr.rkey() + 0x100));
        assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(a.cq));
        AsyncEvent first = nextEvent(b.dev);
        assertEquals(AsyncEventType.QP_ACCESS_ERR, first.type(), first.toString());
        assertSame(qb1, first.qp());
        b.dev.ackAsyncEvent(first);
        assertSame(qb1, expectEvent(b.dev, AsyncEventType.QP_LAST_WQE_REACHED).qp());
        assertEquals(QpState.ERR, qb1.query().state());
        assertEquals(2, srq.size());
    }

    /**
     * Device b with an SRQ in a PD of its own (pdS, with region srqMr) and a QP in b's usual PD
     * (b.pd, region b.mr) that takes its receives from it, connected to a new QP of a.
     */
    private QueuePair qpWithSrqInOtherPd(ProtectionDomain pdS) {
        srq = pdS.createSrq(new SrqAttr(8, 2, 0));
        QueuePair qa = a.qp();
        QueuePair qb = b.qp(srq);
        connect(qa, qb);
        return qa;
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 10.2.9 / ibv_create_srq(3): a receive WQE from an SRQ is checked against the SRQ's PD; RDMA WRITE targets against the QP's")
    void shouldCheckReceiveAgainstSrqPdWhenQpIsInAnotherPd(Mode mode) {
        fabric = mode.fabric();
        a = Node.of(fabric, "a");
        b = Node.of(fabric, "b");
        ProtectionDomain pdS = b.dev.allocPd();
        java.nio.ByteBuffer srqBuf = java.nio.ByteBuffer.allocate(4096);
        MemoryRegion srqMr = pdS.registerMemory(srqBuf, ControlPlaneFixture.ALL);
        QueuePair qa = qpWithSrqInOtherPd(pdS);
        srq.postRecv(new RecvWr().wrId(1).sge(srqMr, 0, 64));
        a.buf.putLong(0, 0x5151L);
        qa.postSend(send(a, 10, 0, 16));
        assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        WorkCompletion r = assertStatus(WcStatus.SUCCESS, pollOne(b.cq));
        assertEquals(1, r.wrId());
        assertEquals(0x5151L, srqBuf.getLong(0), "the SEND landed in the SRQ's region");
        // The QP's own PD still governs remote access: a WRITE into b.mr (the QP's PD) works ...
        a.buf.putLong(8, 0x7777L);
        qa.postSend(write(a, 11, 8, 8, b.addr(0), b.mr.rkey()));
        assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        assertEquals(0x7777L, b.buf.getLong(0), "the WRITE landed in the QP's PD region");
        // ... and one into the SRQ's PD region is a remote access error.
        qa.postSend(write(a, 12, 8, 8, srqMr.address() + 512, srqMr.rkey()));
        assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(a.cq));
        assertEquals(0L, srqBuf.getLong(512), "nothing written through the SRQ PD's R_Key");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 10.2.9 / 9.7.5.2.1: a receive WQE of an SRQ whose buffer is in the QP's PD (not the SRQ's): receiver LOC_PROT_ERR, sender REM_OP_ERR")
    void shouldFailReceiveWithLocProtErrWhenSrqBufferIsInQpPdNotSrqPd(Mode mode) {
        fabric = mode.fabric();
        a = Node.of(fabric, "a");
        b = Node.of(fabric, "b");
        QueuePair qa = qpWithSrqInOtherPd(b.dev.allocPd());
        b.buf.putLong(0, -1L);
        srq.postRecv(recv(b, 1, 0, 64)); // b.mr belongs to b.pd, the QP's PD, not the SRQ's
        qa.postSend(send(a, 10, 0, 16));
        WorkCompletion s = assertStatus(WcStatus.REM_OP_ERR, pollOne(a.cq));
        assertEquals(10, s.wrId());
        WorkCompletion r = assertStatus(WcStatus.LOC_PROT_ERR, pollOne(b.cq));
        assertEquals(1, r.wrId());
        assertEquals(-1L, b.buf.getLong(0), "nothing was written into the buffer of the wrong PD");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_create_qp(3): an SRQ of another device is EINVAL")
    void shouldRefuseQpWhenSrqOfAnotherDevice(Mode mode) {
        setUp(mode, 4);
        assertErrno(Errno.EINVAL, () -> a.pd.createQp(QpInitAttr.rc(a.cq, a.cq).srq(srq)));
        assertEquals(0, a.cq.size());
        assertNull(a.dev.getAsyncEvent(1, TimeUnit.MILLISECONDS));
    }
}
