package io.simrdma.fabric;

import static io.simrdma.fabric.ControlPlaneFixture.WAIT_MS;
import static io.simrdma.fabric.ControlPlaneFixture.connect;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.recv;
import static io.simrdma.fabric.ControlPlaneFixture.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link FabricObserver}: what a test tool sees of the life of verbs objects and of the memory a
 * work request lends the device between ibv_post_send(3)/ibv_post_recv(3) and its retirement.
 */
class FabricObserverTest {

    /** Records every call as one line, in order. */
    static final class Recorder implements FabricObserver {
        final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        public void created(Object o) {
            lines.add("created " + kind(o));
        }

        @Override
        public void destroyed(Object o) {
            lines.add("destroyed " + kind(o));
        }

        @Override
        public void sendPosted(QueuePair qp, SendWr wr) {
            lines.add("sendPosted " + wr.wrId() + " " + wr.opcode());
        }

        @Override
        public void recvPosted(QueuePair qp, SharedReceiveQueue srq, RecvWr wr) {
            lines.add("recvPosted " + wr.wrId() + (qp == null ? " srq" : " qp"));
        }

        @Override
        public void recvStarted(QueuePair qp) {
            lines.add("recvStarted");
        }

        @Override
        public void sendRetired(QueuePair qp, long wrId, WcStatus status, boolean completion) {
            lines.add("sendRetired " + wrId + " " + status + " " + completion);
        }

        @Override
        public void recvCompleted(QueuePair qp, long wrId, WcStatus status, WcOpcode opcode, int byteLength) {
            lines.add("recvCompleted " + wrId + " " + status + " " + opcode + " " + byteLength);
        }

        @Override
        public void deviceWrote(MemoryRegion mr, int offset, int length) {
            lines.add("deviceWrote " + mr.lkey() + " " + offset + " " + length);
        }

        @Override
        public void queuesDiscarded(QueuePair qp) {
            lines.add("queuesDiscarded");
        }

        List<String> take() {
            synchronized (lines) {
                List<String> copy = new ArrayList<>(lines);
                lines.clear();
                return copy;
            }
        }

        private static String kind(Object o) {
            if (o instanceof ProtectionDomain) {
                return "pd";
            } else if (o instanceof MemoryRegion) {
                return "mr";
            } else if (o instanceof CompletionQueue) {
                return "cq";
            } else if (o instanceof CompletionChannel) {
                return "channel";
            } else if (o instanceof QueuePair) {
                return "qp";
            } else if (o instanceof SharedReceiveQueue) {
                return "srq";
            } else if (o instanceof MemoryWindow) {
                return "mw";
            }
            return o.getClass().getSimpleName();
        }
    }

    static Fabric fabric(Mode mode, Recorder r) {
        Fabric.Builder b = Fabric.builder().observer(r);
        return (mode == Mode.DETERMINISTIC ? b.deterministic(0x5EED) : b.threaded()).build();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_alloc_pd/ibv_reg_mr/ibv_create_cq/ibv_create_qp and their destroy verbs are reported once each, after they succeed")
    void shouldReportCreationAndDestructionWhenVerbsSucceed(Mode mode) {
        Recorder r = new Recorder();
        try (Fabric f = fabric(mode, r)) {
            Device d = f.createDevice("a");
            CompletionChannel ch = d.createCompletionChannel();
            CompletionQueue cq = d.createCq(8, ch, null);
            ProtectionDomain pd = d.allocPd();
            MemoryRegion mr = pd.registerMemory(ByteBuffer.allocate(4096), ControlPlaneFixture.ALL);
            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, cq));
            SharedReceiveQueue srq = pd.createSrq(new SrqAttr(4, 1, 0), null);
            assertEquals(
                    List.of("created channel", "created cq", "created pd", "created mr", "created qp", "created srq"),
                    r.take(),
                    "creations in order");
            srq.destroy();
            qp.destroy();
            mr.deregister();
            pd.dealloc();
            cq.destroy();
            ch.destroy();
            assertEquals(
                    List.of(
                            "destroyed srq",
                            "destroyed qp",
                            "destroyed mr",
                            "destroyed pd",
                            "destroyed cq",
                            "destroyed channel"),
                    r.take(),
                    "destructions in order");
            // A verb that fails is not reported: the PD is gone already.
            org.junit.jupiter.api.Assertions.assertThrows(VerbsException.class, pd::dealloc);
            assertEquals(List.of(), r.take(), "a failed dealloc reports nothing");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_post_send/ibv_post_recv: posts, the start of a receive, and the retirement of each WR are reported; unsignaled WRs retire without a completion (IBA 10.8.3)")
    void shouldReportPostsAndRetirementsWhenMessagesFlow(Mode mode) {
        Recorder r = new Recorder();
        try (Fabric f = fabric(mode, r)) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb);
            qb.postRecv(recv(b, 21, 0, 256));
            qb.postRecv(recv(b, 22, 256, 256));
            SendWr unsignaled = new SendWr().wrId(11).opcode(WrOpcode.SEND).sge(a.mr, 0, 100);
            qa.postSend(unsignaled.next(send(a, 12, 128, 50)));
            WorkCompletion sc = pollOne(a.cq);
            assertEquals(12, sc.wrId());
            assertEquals(21, pollOne(b.cq).wrId());
            assertEquals(22, pollOne(b.cq).wrId());
            ControlPlaneFixture.settle(f);
            List<String> seen = r.take();
            seen.removeIf(s -> s.startsWith("created"));
            assertEquals(
                    List.of("recvPosted 21 qp", "recvPosted 22 qp", "sendPosted 11 SEND", "sendPosted 12 SEND"),
                    seen.subList(0, 4),
                    "posts, in posting order: " + seen);
            List<String> engine = seen.subList(4, seen.size());
            assertEquals(
                    List.of("sendRetired 11 SUCCESS false", "sendRetired 12 SUCCESS true"),
                    engine.stream().filter(s -> s.startsWith("sendRetired")).toList(),
                    "send retirements: " + seen);
            assertEquals(
                    List.of(
                            "recvStarted",
                            "recvCompleted 21 SUCCESS RECV 100",
                            "recvStarted",
                            "recvCompleted 22 SUCCESS RECV 50"),
                    engine.stream().filter(s -> s.startsWith("recv")).toList(),
                    "receive hand-backs: " + seen);
        }
    }

    @Test
    @DisplayName(
            "ibv_modify_qp(3) to RESET discards the posted WRs without completions; flushed receives of a QP in ERR are reported as completed")
    void shouldReportDiscardAndFlushWhenQpIsReset() {
        Recorder r = new Recorder();
        try (Fabric f = fabric(Mode.DETERMINISTIC, r)) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb);
            qb.postRecv(recv(b, 31, 0, 64));
            qb.modify(new QpAttr().state(QpState.ERR));
            assertEquals(WcStatus.WR_FLUSH_ERR, pollOne(b.cq).status());
            qb.modify(new QpAttr().state(QpState.RESET));
            ControlPlaneFixture.settle(f);
            List<String> seen = r.take();
            assertTrue(seen.contains("recvCompleted 31 WR_FLUSH_ERR RECV 0"), seen.toString());
            assertEquals("queuesDiscarded", seen.get(seen.size() - 1), seen.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "the device's writes into memory are reported per packet: a 2-packet receive, a READ response, a peer's RDMA WRITE")
    void shouldReportDeviceWritesWhenDataLands(Mode mode) {
        Recorder r = new Recorder();
        try (Fabric f = fabric(mode, r)) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb); // path MTU 1024
            qb.postRecv(recv(b, 1, 100, 2000));
            qa.postSend(send(a, 2, 0, 1500));
            pollOne(a.cq);
            pollOne(b.cq);
            qa.postSend(ControlPlaneFixture.read(a, 3, 4000, 10, b.mr.address() + 8, b.mr.rkey()));
            pollOne(a.cq);
            qa.postSend(ControlPlaneFixture.write(a, 4, 0, 16, b.mr.address() + 5000, b.mr.rkey()));
            pollOne(a.cq);
            ControlPlaneFixture.settle(f);
            List<String> writes =
                    r.take().stream().filter(s -> s.startsWith("deviceWrote")).toList();
            assertEquals(
                    List.of(
                            "deviceWrote " + b.mr.lkey() + " 100 1024",
                            "deviceWrote " + b.mr.lkey() + " 1124 476",
                            "deviceWrote " + a.mr.lkey() + " 4000 10",
                            "deviceWrote " + b.mr.lkey() + " 5000 16"),
                    writes);
        }
    }

    @Test
    @DisplayName(
            "MemoryRegion.buffer(): a view of the registered bytes, index 0 at the region's address, shared with the application")
    void shouldShareBytesWhenBufferViewIsTaken() {
        try (Fabric f = Fabric.deterministic(1)) {
            Device d = f.createDevice("a");
            ByteBuffer app = ByteBuffer.allocate(1024);
            app.position(100);
            MemoryRegion mr = d.allocPd().registerMemory(app.slice(), ControlPlaneFixture.ALL);
            ByteBuffer view = mr.buffer();
            assertEquals(0, view.position());
            assertEquals(mr.length(), view.limit(), "limit is the region's length");
            app.put(100, (byte) 0x5A);
            assertEquals(0x5A, view.get(0), "the view sees the application's write at the region's first byte");
            assertFalse(view == mr.buffer(), "each call returns a new view");
        }
    }

    @Test
    @DisplayName("a fabric without an observer runs as before (WAIT_MS budget)")
    void shouldRunWithoutObserverWhenNoneInstalled() {
        try (Fabric f = Fabric.deterministic(3)) {
            assertEquals(null, Fabric.builder().observer());
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.qp();
            QueuePair qb = b.qp();
            connect(qa, qb);
            qb.postRecv(recv(b, 1, 0, 64));
            qa.postSend(send(a, 2, 0, 64));
            assertTrue(b.cq.awaitCompletions(1, WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS));
        }
    }
}
