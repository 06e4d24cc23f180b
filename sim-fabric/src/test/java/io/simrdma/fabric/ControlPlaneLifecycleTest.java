package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.ALL;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static io.simrdma.fabric.ControlPlaneFixture.nextEvent;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.recv;
import static io.simrdma.fabric.ControlPlaneFixture.send;
import static io.simrdma.fabric.ControlPlaneFixture.settle;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Destroy rules of the verbs objects, with the exact errno: an object in use by another is
 * EBUSY, an object already freed is a stale handle (ENOENT for every call); retrieved async events and CQ events must be
 * acknowledged before their object can go; events not yet retrieved go with their object.
 */
class ControlPlaneLifecycleTest {

    // ------------------------------------------------------------------ PD

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_alloc_pd(3): ibv_dealloc_pd is EBUSY while an MR, MW, QP or SRQ of the PD exists")
    void shouldRefusePdDeallocWhenResourcesExist(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(4);

            MemoryRegion mr = pd.registerMemory(ByteBuffer.allocate(64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            assertErrno(Errno.EBUSY, pd::dealloc);
            mr.deregister();

            MemoryWindow mw = pd.allocMw(MwType.TYPE_2);
            assertErrno(Errno.EBUSY, pd::dealloc);
            mw.dealloc();

            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, cq));
            assertErrno(Errno.EBUSY, pd::dealloc);
            qp.destroy();

            SharedReceiveQueue srq = pd.createSrq(new SrqAttr(4, 1, 0));
            assertErrno(Errno.EBUSY, pd::dealloc);
            srq.destroy();

            pd.dealloc();
            assertErrno(Errno.ENOENT, pd::dealloc);
            assertErrno(Errno.ENOENT, () -> pd.createQp(QpInitAttr.rc(cq, cq)));
            assertErrno(
                    Errno.ENOENT, () -> pd.registerMemory(ByteBuffer.allocate(8), EnumSet.noneOf(AccessFlag.class)));
        }
    }

    // ------------------------------------------------------------------ stale handles

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "stale handles (uverbs: a freed handle is no longer found): freeing a PD, MR, MW, CQ, completion channel or SRQ a second time is ENOENT")
    void shouldFailWithEnoentWhenObjectIsFreedTwice(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            MemoryRegion mr = pd.registerMemory(ByteBuffer.allocate(64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            MemoryWindow mw = pd.allocMw(MwType.TYPE_1);
            SharedReceiveQueue srq = pd.createSrq(new SrqAttr(4, 1, 0));
            CompletionChannel ch = d.createCompletionChannel();
            CompletionQueue cq = d.createCq(4, ch, null);
            mr.deregister();
            assertErrno(Errno.ENOENT, mr::deregister);
            mw.dealloc();
            assertErrno(Errno.ENOENT, mw::dealloc);
            srq.destroy();
            assertErrno(Errno.ENOENT, srq::destroy);
            assertErrno(Errno.ENOENT, srq::query);
            assertErrno(Errno.ENOENT, () -> srq.modify(new SrqAttr(8, 1, 0), EnumSet.of(SrqAttrMask.MAX_WR)));
            cq.destroy();
            assertErrno(Errno.ENOENT, cq::destroy);
            assertErrno(Errno.ENOENT, () -> cq.requestNotify(false));
            assertErrno(Errno.ENOENT, () -> cq.resize(8));
            ch.destroy();
            assertErrno(Errno.ENOENT, ch::destroy);
            pd.dealloc();
            assertErrno(Errno.ENOENT, pd::dealloc);
            assertErrno(Errno.ENOENT, () -> pd.allocMw(MwType.TYPE_2));
            assertErrno(Errno.ENOENT, () -> pd.createSrq(new SrqAttr(4, 1, 0)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_destroy_qp(3): a destroyed QP is a stale handle: query, modify, post send, post receive, bind and destroy all fail with ENOENT")
    void shouldFailEveryQpCallWithEnoentWhenQpWasDestroyed(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb);
            MemoryWindow mw = a.pd.allocMw(MwType.TYPE_1);
            qa.destroy();
            assertErrno(Errno.ENOENT, qa::query);
            assertErrno(Errno.ENOENT, () -> qa.modify(new QpAttr().state(QpState.ERR)));
            PostException s = (PostException) assertErrno(Errno.ENOENT, () -> qa.postSend(send(a, 1, 0, 8)));
            assertEquals(0, s.badIndex(), "bad_wr of a post to a destroyed QP");
            PostException r = (PostException) assertErrno(Errno.ENOENT, () -> qa.postRecv(recv(a, 2, 0, 8)));
            assertEquals(0, r.badIndex());
            assertErrno(
                    Errno.ENOENT,
                    () -> qa.bindMw(
                            mw,
                            a.mr,
                            a.addr(0),
                            64,
                            EnumSet.of(AccessFlag.REMOTE_READ),
                            3,
                            EnumSet.of(SendFlag.SIGNALED)));
            assertErrno(Errno.ENOENT, qa::destroy);
            assertEquals(0, a.cq.size(), "nothing reached the CQ");
            mw.dealloc();
            assertErrno(
                    Errno.ENOENT,
                    () -> qb.bindMw(
                            mw,
                            b.mr,
                            b.addr(0),
                            64,
                            EnumSet.of(AccessFlag.REMOTE_READ),
                            4,
                            EnumSet.of(SendFlag.SIGNALED)));
        }
    }

    // ------------------------------------------------------------------ MR

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_reg_mr(3) / ibv_alloc_mw(3): ibv_dereg_mr is EBUSY while a memory window is bound to the MR")
    void shouldRefuseMrDeregWhenWindowBound(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb);
            MemoryRegion mr = b.pd.registerMemory(ByteBuffer.allocate(4096), ALL);
            MemoryWindow mw = b.pd.allocMw(MwType.TYPE_1);
            qb.bindMw(mw, mr, mr.address(), 1024, EnumSet.of(AccessFlag.REMOTE_READ), 1, EnumSet.of(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(b.cq));
            assertErrno(Errno.EBUSY, mr::deregister);
            assertTrue(mr.isValid());
            mw.dealloc();
            mr.deregister();
            assertFalse(mr.isValid());
            assertErrno(Errno.ENOENT, mr::deregister);
        }
    }

    // ------------------------------------------------------------------ CQ and channel

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_destroy_cq: EBUSY while a QP uses the CQ as send or receive CQ; ENOENT when destroyed twice")
    void shouldRefuseCqDestroyWhenQpUsesIt(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            CompletionQueue scq = d.createCq(4);
            CompletionQueue rcq = d.createCq(4);
            QueuePair qp = pd.createQp(QpInitAttr.rc(scq, rcq));
            assertErrno(Errno.EBUSY, scq::destroy);
            assertErrno(Errno.EBUSY, rcq::destroy);
            qp.destroy();
            scq.destroy();
            rcq.destroy();
            assertErrno(Errno.ENOENT, scq::destroy);
            assertErrno(Errno.ENOENT, () -> pd.createQp(QpInitAttr.rc(scq, scq)));
            assertErrno(Errno.ENOENT, () -> scq.poll(WorkCompletion.array(1)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_cq_event(3): destroying a CQ waits for its events to be acknowledged (EBUSY until ibv_ack_cq_events)")
    void shouldRefuseCqDestroyWhenCqEventsUnacknowledged(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.withChannel(f, "a", 16);
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb);
            a.cq.requestNotify(false);
            qb.postRecv(recv(b, 1, 0, 64));
            qa.postSend(send(a, 2, 0, 64));
            CompletionChannel ch = a.cq.channel();
            assertSame(a.cq, ch.getCqEvent(ControlPlaneFixture.WAIT_MS, TimeUnit.MILLISECONDS));
            assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
            qa.destroy();
            assertErrno(Errno.EBUSY, a.cq::destroy);
            a.cq.ackEvents(1);
            a.cq.destroy();
            assertErrno(Errno.ENOENT, a.cq::destroy);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_create_comp_channel(3): ibv_destroy_comp_channel is EBUSY while a CQ uses the channel")
    void shouldRefuseChannelDestroyWhenCqUsesIt(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice("d");
            CompletionChannel ch = d.createCompletionChannel();
            CompletionQueue c1 = d.createCq(4, ch, "one");
            CompletionQueue c2 = d.createCq(4, ch, "two");
            assertEquals("one", c1.context());
            assertSame(ch, c2.channel());
            assertErrno(Errno.EBUSY, ch::destroy);
            c1.destroy();
            assertErrno(Errno.EBUSY, ch::destroy);
            c2.destroy();
            ch.destroy();
            assertErrno(Errno.ENOENT, ch::destroy);
            assertErrno(Errno.ENOENT, () -> d.createCq(4, ch, null));
            assertErrno(Errno.ENOENT, () -> ch.getCqEvent(1, TimeUnit.MILLISECONDS));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_create_cq(3): a completion channel of another device is EINVAL")
    void shouldRefuseCqWhenChannelOfAnotherDevice(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice("d");
            Device e = f.createDevice("e");
            CompletionChannel ch = e.createCompletionChannel();
            assertErrno(Errno.EINVAL, () -> d.createCq(4, ch, null));
            ch.destroy();
        }
    }

    // ------------------------------------------------------------------ SRQ

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_create_srq(3): ibv_destroy_srq fails (EBUSY) while a QP is associated with the SRQ")
    void shouldRefuseSrqDestroyWhenQpUsesIt(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Device d = f.createDevice("d");
            ProtectionDomain pd = d.allocPd();
            CompletionQueue cq = d.createCq(4);
            SharedReceiveQueue srq = pd.createSrq(new SrqAttr(4, 1, 0), "ctx");
            assertEquals("ctx", srq.context());
            QueuePair q1 = pd.createQp(QpInitAttr.rc(cq, cq).srq(srq));
            QueuePair q2 = pd.createQp(QpInitAttr.rc(cq, cq).srq(srq));
            assertSame(srq, q1.srq());
            assertErrno(Errno.EBUSY, srq::destroy);
            q1.destroy();
            assertErrno(Errno.EBUSY, srq::destroy);
            q2.destroy();
            srq.destroy();
            assertErrno(Errno.ENOENT, srq::destroy);
            assertErrno(Errno.ENOENT, () -> pd.createQp(QpInitAttr.rc(cq, cq).srq(srq)));
            assertErrno(Errno.ENOENT, () -> srq.postRecv(new RecvWr().wrId(1)));
        }
    }

    // ------------------------------------------------------------------ QP and async events

    /** Two QPs where b's QP is left in RTR, so that a's first SEND raises COMM_EST on b. */
    private static QueuePair[] commEstablished(Node a, Node b) {
        QueuePair qa = a.qp();
        QueuePair qb = b.qp();
        ControlPlaneFixture.connectWithPeerInRtr(qa, qb);
        qb.postRecv(recv(b, 1, 0, 64));
        qa.postSend(send(a, 2, 0, 64));
        assertStatus(WcStatus.SUCCESS, pollOne(b.cq));
        assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
        return new QueuePair[] {qa, qb};
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_async_event(3): ibv_destroy_qp is EBUSY while a retrieved event of the QP is not acknowledged")
    void shouldRefuseQpDestroyWhenRetrievedEventUnacknowledged(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qb = commEstablished(a, b)[1];
            AsyncEvent e = nextEvent(b.dev);
            assertEquals(AsyncEventType.COMM_EST, e.type());
            assertSame(qb, e.qp());
            assertErrno(Errno.EBUSY, qb::destroy);
            assertEquals(QpState.RTR, qb.state(), "a refused destroy leaves the QP as it was");
            b.dev.ackAsyncEvent(e);
            qb.destroy();
            assertErrno(Errno.ENOENT, qb::destroy);
            assertErrno(Errno.ENOENT, () -> qb.postRecv(recv(b, 3, 0, 8)));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_get_async_event(3): events of a QP not yet retrieved are discarded when it is destroyed")
    void shouldDiscardUnretrievedEventsWhenQpDestroyed(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qb = commEstablished(a, b)[1];
            settle(f);
            qb.destroy();
            b.dev.setPortActive(false);
            // The next event is the port's: COMM_EST went with its QP.
            AsyncEvent e = nextEvent(b.dev);
            assertEquals(AsyncEventType.PORT_ERR, e.type(), e.toString());
            b.dev.ackAsyncEvent(e);
            assertNull(b.dev.pollAsyncEvent());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_async_event(3): CQ_ERR retrieved and not acknowledged makes ibv_destroy_cq EBUSY; unretrieved it is discarded")
    void shouldHoldCqDestroyWhenCqErrorEventUnacknowledged(Mode mode) {
        try (Fabric f = mode.fabric()) {
            for (boolean retrieve : new boolean[] {true, false}) {
                String suffix = retrieve ? "1" : "2";
                Device ad = f.createDevice("a" + suffix);
                Node a = new Node(ad, ad.createCq(1));
                Node b = Node.of(f, "b" + suffix);
                QueuePair qa = a.connectedTo(b);
                // Two signaled writes into a CQ of one entry: the second overruns it.
                qa.postSend(ControlPlaneFixture.write(a, 1, 0, 8, b.addr(0), b.mr.rkey())
                        .next(ControlPlaneFixture.write(a, 2, 0, 8, b.addr(8), b.mr.rkey())));
                if (retrieve) {
                    AsyncEvent e = nextEvent(a.dev);
                    assertEquals(AsyncEventType.CQ_ERR, e.type(), e.toString());
                    assertSame(a.cq, e.cq());
                    qa.destroy();
                    assertErrno(Errno.EBUSY, a.cq::destroy);
                    a.dev.ackAsyncEvent(e);
                    a.cq.destroy();
                } else {
                    assertTrue(awaitError(a.cq), "CQ overrun expected");
                    settle(f);
                    qa.destroy();
                    a.cq.destroy();
                    a.dev.setPortActive(false);
                    assertEquals(AsyncEventType.PORT_ERR, nextEvent(a.dev).type(), "CQ_ERR went with its CQ");
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_get_async_event(3): ibv_destroy_srq is EBUSY while SRQ_LIMIT_REACHED is retrieved and not acknowledged; unretrieved it is discarded")
    void shouldHoldSrqDestroyWhenLimitEventUnacknowledged(Mode mode) {
        try (Fabric f = mode.fabric()) {
            for (boolean retrieve : new boolean[] {true, false}) {
                String suffix = retrieve ? "1" : "2";
                Node a = Node.of(f, "a" + suffix);
                Node b = Node.of(f, "b" + suffix);
                SharedReceiveQueue srq = b.pd.createSrq(new SrqAttr(4, 1, 0));
                QueuePair qa = a.qp();
                QueuePair qb = b.qp(srq);
                connect(qa, qb);
                srq.postRecv(recv(b, 1, 0, 64).next(recv(b, 2, 64, 64)));
                srq.modify(new SrqAttr(0, 0, 2), EnumSet.of(SrqAttrMask.LIMIT));
                qa.postSend(send(a, 3, 0, 16));
                assertStatus(WcStatus.SUCCESS, pollOne(b.cq));
                assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
                qb.destroy();
                if (retrieve) {
                    AsyncEvent e = nextEvent(b.dev);
                    assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type(), e.toString());
                    assertSame(srq, e.srq());
                    assertErrno(Errno.EBUSY, srq::destroy);
                    b.dev.ackAsyncEvent(e);
                    srq.destroy();
                } else {
                    srq.destroy();
                    b.dev.setPortActive(false);
                    assertEquals(
                            AsyncEventType.PORT_ERR, nextEvent(b.dev).type(), "SRQ_LIMIT_REACHED went with its SRQ");
                }
            }
        }
    }

    private static boolean awaitError(CompletionQueue cq) {
        cq.awaitCompletions(Integer.MAX_VALUE, ControlPlaneFixture.WAIT_MS, TimeUnit.MILLISECONDS);
        return cq.isInError();
    }
}
