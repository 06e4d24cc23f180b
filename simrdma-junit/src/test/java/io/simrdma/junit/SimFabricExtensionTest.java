package io.simrdma.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.sched.DeterministicScheduler;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * Tests of {@link SimFabricExtension} itself: each case below is a small test class run through the
 * JUnit engine ({@link EngineTestKit}), and the test checks what its user would see: the seed and
 * re-run command of a failure, the message naming a leaked handle, an ownership violation, a WR
 * never completed, a leaked thread. The cases are nested classes whose names end in "Case", so
 * Surefire does not run them on their own.
 */
class SimFabricExtensionTest {

    static final EnumSet<AccessFlag> ALL =
            EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);

    /** The build's seed (simrdma-junit's pom sets one), restored after the tests that set their own. */
    private final String buildSeed = System.getProperty(SimFabricExtension.SEED_PROPERTY);

    @AfterEach
    void restoreSeed() {
        if (buildSeed == null) {
            System.clearProperty(SimFabricExtension.SEED_PROPERTY);
        } else {
            System.setProperty(SimFabricExtension.SEED_PROPERTY, buildSeed);
        }
    }

    /** Runs {@code testClass} and returns its test events. */
    static Events run(Class<?> testClass) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(testClass))
                .execute()
                .testEvents();
    }

    /** The one failure of a run: its exception. */
    static Throwable onlyFailure(Events events) {
        List<Event> failed = events.failed().list();
        assertEquals(1, failed.size(), "expected one failed test, saw " + failed);
        return failed.get(0)
                .getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .orElseThrow()
                .getThrowable()
                .orElseThrow();
    }

    // ------------------------------------------------------------------ the seed of a failing test

    @SimFabricTest
    static class FailingCase {
        @Test
        void shouldFail(Fabric fabric) {
            assertEquals(1, 2, "the application's assertion");
        }
    }

    @Test
    @DisplayName("a failing test carries its seed and the one command that re-runs exactly it with that seed")
    void shouldReportSeedAndCommandWhenTestFails() {
        System.setProperty(SimFabricExtension.SEED_PROPERTY, "4242");
        Throwable t = onlyFailure(run(FailingCase.class));
        assertTrue(t.getMessage().startsWith("the application's assertion"), "the test's own failure first: " + t);
        assertEquals(1, t.getSuppressed().length, "one suppressed report");
        SeedReport r = assertInstanceOf(SeedReport.class, t.getSuppressed()[0]);
        System.out.println("what the user sees (failing seed):\n" + r.getMessage());
        assertEquals(
                "simrdma-junit: seed 4242 (deterministic fabric, profile ibta, devices [a, b])."
                        + " Re-run exactly this test with it:\n"
                        + "  mvn test -Dtest='SimFabricExtensionTest$FailingCase#shouldFail' -Dsimrdma.seed=4242",
                r.getMessage());
    }

    @SimFabricTest
    static class SeedCase {
        static long seen;

        @Test
        void shouldSeeSeed(Fabric fabric, TestFabric net) {
            seen = fabric.seed();
            assertEquals(net.seed(), fabric.seed());
            assertTrue(fabric.scheduler().isDeterministic(), "deterministic by default");
        }
    }

    @Test
    @DisplayName("-Dsimrdma.seed fixes the fabric's seed; without it each run draws one")
    void shouldBuildFabricWithPropertySeedWhenSet() {
        System.setProperty(SimFabricExtension.SEED_PROPERTY, "77");
        run(SeedCase.class).assertStatistics(s -> s.succeeded(1));
        assertEquals(77, SeedCase.seen);
        System.clearProperty(SimFabricExtension.SEED_PROPERTY);
        run(SeedCase.class).assertStatistics(s -> s.succeeded(1));
        long first = SeedCase.seen;
        run(SeedCase.class).assertStatistics(s -> s.succeeded(1));
        assertTrue(first != SeedCase.seen, "two runs without a seed drew " + first + " and " + SeedCase.seen);
    }

    // ------------------------------------------------------------------ leaks

    @SimFabricTest
    static class LeakedDatHandleCase {
        @Test
        void shouldLeakPz(InterfaceAdapter ia) {
            ProtectionZone pz = ia.createPz();
            assertNotNull(pz);
        }
    }

    @Test
    @DisplayName("dat_ia_close(3DAT): a DAT handle the test did not free fails it, named with the line that created it")
    void shouldFailTestWhenDatHandleIsNotFreed() {
        System.setProperty(SimFabricExtension.SEED_PROPERTY, "5");
        Throwable t = onlyFailure(run(LeakedDatHandleCase.class));
        String m = t.getMessage();
        System.out.println("what the user sees (leaked handle):\n" + m);
        assertTrue(
                m.startsWith("simrdma-junit: 1 problem at the end of shouldLeakPz(InterfaceAdapter):\n"
                        + "  - DAT handle not freed on IA a: DAT_PZ_HANDLE, created at io.simrdma.junit.SimFabricExtensionTest$"
                        + "LeakedDatHandleCase.shouldLeakPz(SimFabricExtensionTest.java:"),
                m);
        assertTrue(
                m.endsWith(
                        "mvn test -Dtest='SimFabricExtensionTest$LeakedDatHandleCase#shouldLeakPz' -Dsimrdma.seed=5"),
                m);
    }

    @SimFabricTest
    static class UnreapedEventCase {
        @Test
        void shouldLeaveEvent(InterfaceAdapter ia) {
            EventDispatcher evd = ia.createEvd(4, EnumSet.of(EvdFlag.SOFTWARE));
            evd.postSoftwareEvent("never dequeued");
        }
    }

    @Test
    @DisplayName("dat_evd_dequeue(3DAT): events left on an EVD are reported with the EVD")
    void shouldFailTestWhenEventsAreNotReaped() {
        String m = onlyFailure(run(UnreapedEventCase.class)).getMessage();
        assertTrue(
                m.contains("DAT handle not freed on IA a: DAT_EVD_HANDLE EVD")
                        && m.contains(
                                "with 1 event(s) never dequeued, created at io.simrdma.junit.SimFabricExtensionTest$UnreapedEventCase"),
                m);
    }

    @SimFabricTest
    static class LeakedVerbsCase {
        @Test
        void shouldLeakPdAndRecv(@Node("a") Device a, @Node("b") Device b) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue cq = a.createCq(4);
            MemoryRegion mr = pd.registerMemory(ByteBuffer.allocate(64), ALL);
            QueuePair qp = pd.createQp(QpInitAttr.rc(cq, cq));
            qp.modify(new io.simrdma.fabric.QpAttr()
                    .state(io.simrdma.fabric.QpState.INIT)
                    .pkeyIndex(0)
                    .port(1)
                    .accessFlags(EnumSet.noneOf(AccessFlag.class)));
            qp.postRecv(new RecvWr().wrId(5).sge(mr, 0, 64));
        }
    }

    @Test
    @DisplayName(
            "ibv_dealloc_pd(3) and friends: verbs objects not destroyed and receives never completed fail the test")
    void shouldFailTestWhenVerbsObjectsLeak() {
        String m = onlyFailure(run(LeakedVerbsCase.class)).getMessage();
        assertTrue(m.startsWith("simrdma-junit: 5 problems at the end of shouldLeakPdAndRecv(Device, Device):\n"), m);
        assertTrue(
                m.contains(
                        "\n  - verbs object not destroyed: PD of device a, created at "
                                + "io.simrdma.junit.SimFabricExtensionTest$LeakedVerbsCase.shouldLeakPdAndRecv(SimFabricExtensionTest.java:"),
                m);
        assertTrue(m.contains("\n  - verbs object not destroyed: CQ (4 entries) of device a"), m);
        assertTrue(m.contains("\n  - verbs object not destroyed: MR lkey 0x"), m);
        assertTrue(m.contains("\n  - verbs object not destroyed: QP 0x"), m);
        assertTrue(m.contains("\n  - work request posted and never completed: WR 5 (RECV) on QP 0x"), m);
    }

    @SimFabricTest
    static class UnpolledCqCase {
        @Test
        void shouldDestroyCqWithCompletion(@Node("a") Device a, @Node("b") Device b) {
            Pair p = new Pair(a, b);
            p.qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.ma, 0, 8)
                    .remote(p.mb.address(), p.mb.rkey())
                    .flag(SendFlag.SIGNALED));
            assertTrue(p.ca.awaitCompletions(1, 5, TimeUnit.SECONDS));
            p.close();
        }
    }

    @Test
    @DisplayName("ibv_poll_cq(3): a CQ destroyed with completions nobody polled fails the test")
    void shouldFailTestWhenCompletionsAreNotPolled() {
        String m = onlyFailure(run(UnpolledCqCase.class)).getMessage();
        assertTrue(
                m.contains(
                        "\n  - completions not reaped: CQ (16 entries) of device a was destroyed with 1 completion(s)"
                                + " nobody polled (ibv_poll_cq)"),
                m);
    }

    static final List<Fabric> LEAKED_FABRICS = new java.util.concurrent.CopyOnWriteArrayList<>();

    @SimFabricTest
    static class LeakedThreadCase {
        @Test
        void shouldLeaveFabricOpen() {
            Fabric f = Fabric.builder().name("forgotten").threaded().build();
            LEAKED_FABRICS.add(f);
            f.createDevice("x").allocPd(); // the device's thread starts with its first task
        }
    }

    @Test
    @DisplayName("a threaded fabric the test opened and did not close leaves threads: the test fails naming them")
    void shouldFailTestWhenThreadsLeak() {
        try {
            String m = onlyFailure(run(LeakedThreadCase.class)).getMessage();
            assertTrue(m.contains("\n  - thread still running after the test's fabric closed: simrdma-"), m);
        } finally {
            LEAKED_FABRICS.forEach(Fabric::close);
        }
    }

    @SimFabricTest
    static class NettyLeakCase {
        @Test
        void shouldDropBufferUnreleased() {
            io.netty.buffer.ByteBuf b = io.netty.buffer.UnpooledByteBufAllocator.DEFAULT.directBuffer(16);
            b.writeInt(1); // dropped without release()
        }
    }

    @Test
    @DisplayName(
            "Netty (-Dio.netty.leakDetection.level=paranoid, as this build runs): a ByteBuf collected without release() fails the test")
    void shouldFailTestWhenNettyBufferLeaks() {
        try {
            String m = onlyFailure(run(NettyLeakCase.class)).getMessage();
            assertTrue(
                    m.contains("\n  - Netty ByteBuf garbage-collected without release()")
                            || m.contains("\n  - Netty AbstractByteBuf garbage-collected without release()"),
                    m);
        } finally {
            // test-support's detector saw the same leak: it is this test's, not the class's
            io.simrdma.testsupport.ResourceCheckExtension.collectNettyLeaks();
        }
    }

    // ------------------------------------------------------------------ buffer ownership

    /** Two connected QPs, a on device a and b on device b, each with a CQ and 4 KiB registered. */
    static final class Pair {
        final ProtectionDomain pa;
        final ProtectionDomain pb;
        final CompletionQueue ca;
        final CompletionQueue cb;
        final MemoryRegion ma;
        final MemoryRegion mb;
        final QueuePair qa;
        final QueuePair qb;
        final ByteBuffer bufA = ByteBuffer.allocate(4096);
        final ByteBuffer bufB = ByteBuffer.allocate(4096);

        Pair(Device a, Device b) {
            pa = a.allocPd();
            pb = b.allocPd();
            ca = a.createCq(16);
            cb = b.createCq(16);
            ma = pa.registerMemory(bufA, ALL);
            mb = pb.registerMemory(bufB, ALL);
            qa = pa.createQp(QpInitAttr.rc(ca, ca));
            qb = pb.createQp(QpInitAttr.rc(cb, cb));
            RcConnect.connect(qa, qb);
        }

        static WorkCompletion poll(CompletionQueue cq) {
            WorkCompletion[] wc = WorkCompletion.array(1);
            assertTrue(cq.awaitCompletions(1, 5, TimeUnit.SECONDS), "a completion");
            assertEquals(1, cq.poll(wc, 1));
            return wc[0];
        }

        void close() {
            qa.destroy();
            qb.destroy();
            ma.deregister();
            mb.deregister();
            ca.destroy();
            cb.destroy();
            pa.dealloc();
            pb.dealloc();
        }
    }

    @SimFabricTest
    static class SendBufferCase {
        @Test
        void shouldWriteIntoPostedSend(@Node("a") Device a, @Node("b") Device b) {
            Pair p = new Pair(a, b);
            p.qb.postRecv(new RecvWr().wrId(70).sge(p.mb, 0, 64));
            p.bufA.put(16, (byte) 0x11).put(17, (byte) 0x22);
            p.qa.postSend(
                    new SendWr().wrId(7).opcode(WrOpcode.SEND).sge(p.ma, 0, 32).flag(SendFlag.SIGNALED));
            p.bufA.put(16, (byte) 0xAA).put(17, (byte) 0xBB); // the mistake: the SEND is not complete yet
            Pair.poll(p.ca);
            Pair.poll(p.cb);
            p.close();
        }
    }

    @Test
    @DisplayName(
            "ibv_post_send(3): writing into a posted SEND's buffer before its completion is reported with WR, QP, opcode, range and bytes")
    void shouldReportViolationWhenSendBufferIsWrittenBeforeCompletion() {
        System.setProperty(SimFabricExtension.SEED_PROPERTY, "9");
        String m = onlyFailure(run(SendBufferCase.class)).getMessage();
        System.out.println("what the user sees (ownership violation):\n" + m);
        assertTrue(
                m.startsWith("simrdma-junit: 1 problem at the end of shouldWriteIntoPostedSend(Device, Device):\n"
                        + "  - buffer ownership violation: WR 7 (SEND) on QP 0x"),
                m);
        assertTrue(m.contains(" of device a, source buffer sge 0 = MR lkey 0x"), m);
        assertTrue(
                m.contains(" (4096 bytes) of device a bytes [0, 32): bytes [16, 18) of the region written by the"
                        + " application after ibv_post_send and before the WR completed"),
                m);
        assertTrue(m.contains("\n      posted: 11 22\n      now:    aa bb\n"), m);
        assertTrue(
                m.endsWith("-Dtest='SimFabricExtensionTest$SendBufferCase#shouldWriteIntoPostedSend' -Dsimrdma.seed=9"),
                m);
    }

    @SimFabricTest
    static class RecvBufferCase {
        @Test
        void shouldWriteIntoPostedRecv(@Node("a") Device a, @Node("b") Device b) {
            Pair p = new Pair(a, b);
            p.qb.postRecv(new RecvWr().wrId(80).sge(p.mb, 100, 64));
            p.bufB.put(130, (byte) 0x5A); // the mistake: the receive is the device's until it completes
            p.qa.postSend(
                    new SendWr().wrId(8).opcode(WrOpcode.SEND).sge(p.ma, 0, 16).flag(SendFlag.SIGNALED));
            Pair.poll(p.ca);
            Pair.poll(p.cb);
            p.close();
        }
    }

    @Test
    @DisplayName("ibv_post_recv(3): writing into a posted receive buffer before its completion is reported")
    void shouldReportViolationWhenRecvBufferIsWrittenBeforeCompletion() {
        String m = onlyFailure(run(RecvBufferCase.class)).getMessage();
        assertTrue(m.contains("buffer ownership violation: WR 80 (RECV) on QP 0x"), m);
        assertTrue(
                m.contains("posted receive buffer sge 0 = MR lkey 0x")
                        && m.contains(
                                "bytes [100, 164): bytes [130, 131)"
                                        + " of the region written by the application after ibv_post_recv and before its completion"),
                m);
        assertTrue(m.contains("posted: 00\n      now:    5a"), m);
    }

    @SimFabricTest
    static class DeregInFlightCase {
        @Test
        void shouldDeregisterWhileReceivePosted(@Node("a") Device a, @Node("b") Device b) {
            Pair p = new Pair(a, b);
            p.qb.postRecv(new RecvWr().wrId(90).sge(p.mb, 0, 64));
            p.mb.deregister();
            p.qa.destroy();
            p.qb.destroy();
            p.ma.deregister();
            p.ca.destroy();
            p.cb.destroy();
            p.pa.dealloc();
            p.pb.dealloc();
        }
    }

    @Test
    @DisplayName("ibv_dereg_mr(3): deregistering memory a posted WR still uses is reported")
    void shouldReportViolationWhenMemoryIsDeregisteredInFlight() {
        String m = onlyFailure(run(DeregInFlightCase.class)).getMessage();
        assertTrue(
                m.contains("buffer ownership violation: MR lkey 0x")
                        && m.contains(" (4096 bytes) of device b was"
                                + " deregistered (ibv_dereg_mr) while WR 90 (RECV) on QP 0x")
                        && m.contains(
                                " had bytes [0, 64) of it in" + " flight: the device may still read or write them"),
                m);
    }

    @SimFabricTest
    static class ReadTargetCase {
        @Test
        void shouldWriteIntoReadDestination(@Node("a") Device a, @Node("b") Device b) {
            Pair p = new Pair(a, b);
            p.bufB.put(0, (byte) 0x42);
            p.qa.postSend(new SendWr()
                    .wrId(12)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(p.ma, 256, 2048)
                    .remote(p.mb.address(), p.mb.rkey())
                    .flag(SendFlag.SIGNALED));
            // the mistake: the READ's destination is the device's until it completes (here in its second response)
            p.bufA.put(1800, (byte) 0x99);
            Pair.poll(p.ca);
            p.close();
        }
    }

    @Test
    @DisplayName("ibv_post_send(3): writing into an RDMA READ's destination before its completion is reported")
    void shouldReportViolationWhenReadDestinationIsWrittenBeforeCompletion() {
        String m = onlyFailure(run(ReadTargetCase.class)).getMessage();
        assertTrue(m.startsWith("simrdma-junit: 1 problem at the end of"), m);
        assertTrue(
                m.contains("buffer ownership violation: WR 12 (RDMA_READ) on QP 0x")
                        && m.contains("destination buffer sge 0 = MR lkey 0x")
                        && m.contains("bytes [256, 2304): bytes [1800, 1801) of the region"
                                + " written by the application after ibv_post_send and before the RDMA_READ completed: the NIC writes"
                                + " them until then\n      posted: 00\n      now:    99"),
                m);
    }

    @SimFabricTest
    static class SrqRecvCase {
        @Test
        void shouldWriteIntoSrqReceive(@Node("a") Device a, @Node("b") Device b) {
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            CompletionQueue ca = a.createCq(8);
            CompletionQueue cb = b.createCq(8);
            ByteBuffer bufA = ByteBuffer.allocate(256);
            ByteBuffer bufB = ByteBuffer.allocate(256);
            MemoryRegion ma = pa.registerMemory(bufA, ALL);
            MemoryRegion mb = pb.registerMemory(bufB, ALL);
            io.simrdma.fabric.SharedReceiveQueue srq = pb.createSrq(new io.simrdma.fabric.SrqAttr(8, 1, 0), null);
            QueuePair qa = pa.createQp(QpInitAttr.rc(ca, ca));
            QueuePair qb = pb.createQp(QpInitAttr.rc(cb, cb).srq(srq));
            RcConnect.connect(qa, qb);
            srq.postRecv(new RecvWr().wrId(30).sge(mb, 0, 64));
            srq.postRecv(new RecvWr().wrId(31).sge(mb, 64, 64));
            bufB.put(70, (byte) 0x66); // the mistake: into the second receive, before any message
            qa.postSend(new SendWr()
                    .wrId(32)
                    .opcode(WrOpcode.SEND)
                    .sge(ma, 0, 8)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(33)
                            .opcode(WrOpcode.SEND)
                            .sge(ma, 8, 8)
                            .flag(SendFlag.SIGNALED)));
            Pair.poll(ca);
            Pair.poll(ca);
            Pair.poll(cb);
            Pair.poll(cb);
            qa.destroy();
            qb.destroy();
            srq.destroy();
            ma.deregister();
            mb.deregister();
            ca.destroy();
            cb.destroy();
            pa.dealloc();
            pb.dealloc();
        }
    }

    @Test
    @DisplayName(
            "ibv_post_srq_recv(3): a receive taken from an SRQ is checked like a QP's: the second one, written early, is reported")
    void shouldReportViolationWhenSrqReceiveIsWrittenEarly() {
        String m = onlyFailure(run(SrqRecvCase.class)).getMessage();
        assertTrue(m.startsWith("simrdma-junit: 1 problem at the end of"), m);
        assertTrue(
                m.contains("buffer ownership violation: WR 31 (RECV) on SRQ of device b, posted receive buffer sge 0")
                        && m.contains("bytes [64, 128): bytes [70, 71) of the region written by the application after"
                                + " ibv_post_recv and before its completion\n      posted: 00\n      now:    66"),
                m);
    }

    @SimFabricTest
    static class FlushedRecvCase {
        @Test
        void shouldWriteIntoFlushedRecv(@Node("a") Device a, @Node("b") Device b) {
            Pair p = new Pair(a, b);
            p.qb.postRecv(new RecvWr().wrId(13).sge(p.mb, 0, 32));
            p.bufB.put(3, (byte) 0x33); // the mistake, seen when the flush hands the buffer back
            p.qb.modify(new io.simrdma.fabric.QpAttr().state(io.simrdma.fabric.QpState.ERR));
            Pair.poll(p.cb);
            p.close();
        }
    }

    @Test
    @DisplayName("ibv_post_recv(3): a receive buffer written before its flush completion is reported at the completion")
    void shouldReportViolationWhenFlushedRecvBufferWasWritten() {
        String m = onlyFailure(run(FlushedRecvCase.class)).getMessage();
        assertTrue(
                m.contains("buffer ownership violation: WR 13 (RECV) on QP 0x")
                        && m.contains("bytes [0, 32): bytes"
                                + " [3, 4) of the region written by the application after ibv_post_recv and before the receive completed"
                                + "\n      posted: 00\n      now:    33"),
                m);
    }

    @SimFabricTest
    static class CleanTrafficCase {
        @Test
        void shouldMoveDataCorrectly(@Node("a") Device a, @Node("b") Device b) {
            Pair p = new Pair(a, b);
            for (int i = 0; i < 4096; i++) {
                p.bufB.put(i, (byte) (i * 7));
            }
            // a multi-packet receive and a multi-packet READ into a: the device writes, the application waits
            p.qb.postRecv(new RecvWr().wrId(20).sge(p.mb, 0, 1500));
            p.qa.postSend(new SendWr()
                    .wrId(22)
                    .opcode(WrOpcode.SEND)
                    .sge(p.ma, 0, 3000 - 1500)
                    .flag(SendFlag.SIGNALED)
                    .next(new SendWr()
                            .wrId(23)
                            .opcode(WrOpcode.RDMA_READ)
                            .sge(p.ma, 1024, 3000)
                            .remote(p.mb.address(), p.mb.rkey())
                            .flag(SendFlag.SIGNALED)));
            Pair.poll(p.ca);
            Pair.poll(p.ca);
            Pair.poll(p.cb);
            p.close();
        }
    }

    @Test
    @DisplayName(
            "traffic that leaves posted buffers alone passes: the bytes the device writes are not the application's")
    void shouldPassWhenOnlyTheDeviceWritesPostedBuffers() {
        run(CleanTrafficCase.class).assertStatistics(s -> s.succeeded(1).failed(0));
    }

    @SimFabricTest(checkOwnership = false)
    static class OptOutCase {
        @Test
        void shouldWriteIntoPostedSend(@Node("a") Device a, @Node("b") Device b) {
            new SendBufferCase().shouldWriteIntoPostedSend(a, b);
        }
    }

    @Test
    @DisplayName("@SimFabricTest(checkOwnership = false) turns the ownership checker off")
    void shouldPassWhenOwnershipCheckIsOff() {
        run(OptOutCase.class).assertStatistics(s -> s.succeeded(1).failed(0));
    }

    // ------------------------------------------------------------------ modes, profiles, injection

    @SimFabricTest(
            devices = {"x", "y", "z"},
            profile = "rxe")
    static class MatrixCase {
        static final List<String> SEEN = new java.util.concurrent.CopyOnWriteArrayList<>();

        @FabricMatrix(profiles = {"mlx5", "siw"})
        void shouldRun(TestFabric net, @Node("z") Device z, @Node("y") InterfaceAdapter ia) {
            SEEN.add(net.mode() + "/" + net.profile().name() + "/" + z.name() + "/"
                    + z.profile().name() + "/" + net.deviceNames());
            ia.createPz().free();
        }

        @Test
        @SimFabricTest(
                devices = {"x", "y", "z"},
                profile = "siw",
                mode = FabricMode.THREADED)
        void shouldUseMethodSettings(TestFabric net, Fabric fabric) {
            SEEN.add("method " + net.mode() + "/" + net.profile().name() + "/"
                    + fabric.scheduler().isDeterministic());
        }
    }

    @Test
    @DisplayName(
            "@FabricMatrix runs once per mode and profile, each on a fresh fabric; a method's @SimFabricTest overrides the class's")
    void shouldRunEveryCellWhenMatrixNamesModesAndProfiles() {
        MatrixCase.SEEN.clear();
        run(MatrixCase.class).assertStatistics(s -> s.succeeded(7).failed(0));
        assertEquals(
                List.of(
                        "DETERMINISTIC/mlx5/z/mlx5/[x, y, z]", "DETERMINISTIC/siw/z/siw/[x, y, z]",
                        "THREADED/mlx5/z/mlx5/[x, y, z]", "THREADED/siw/z/siw/[x, y, z]",
                        "TCP_LOOPBACK/mlx5/z/mlx5/[x, y, z]", "TCP_LOOPBACK/siw/z/siw/[x, y, z]"),
                MatrixCase.SEEN.stream()
                        .filter(s -> !s.startsWith("method"))
                        .sorted(java.util.Comparator.comparing(
                                s -> List.of("DET", "THR", "TCP").indexOf(s.substring(0, 3))))
                        .toList());
        assertTrue(MatrixCase.SEEN.contains("method THREADED/siw/false"), MatrixCase.SEEN.toString());
    }

    @SimFabricTest(faults = "drop 1st ACK")
    static class AnnotatedFaultCase {
        static long hits;

        @Test
        void shouldRetryWhenAckIsDropped(@Node("a") Device a, @Node("b") Device b, Faults faults) {
            Pair p = new Pair(a, b);
            p.qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.ma, 0, 8)
                    .remote(p.mb.address(), p.mb.rkey())
                    .flag(SendFlag.SIGNALED));
            Pair.poll(p.ca);
            hits = faults.scripts().get(0).hits();
            p.close();
        }
    }

    @Test
    @DisplayName(
            "@SimFabricTest(faults = ...) applies the scripts before the test; the write completes after the ACK is lost")
    void shouldApplyAnnotationFaultsWhenTestStarts() {
        run(AnnotatedFaultCase.class).assertStatistics(s -> s.succeeded(1));
        assertEquals(1, AnnotatedFaultCase.hits);
    }

    @SimFabricTest
    static class DeterminismCase {
        static final List<Long> TIMES = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Test
        void shouldReplay(@Node("a") Device a, @Node("b") Device b, Faults faults, Fabric fabric) {
            faults.add("loss 30%");
            Pair p = new Pair(a, b);
            for (int i = 0; i < 5; i++) {
                p.qa.postSend(new SendWr()
                        .wrId(i)
                        .opcode(WrOpcode.RDMA_WRITE)
                        .sge(p.ma, 0, 8)
                        .remote(p.mb.address(), p.mb.rkey())
                        .flag(SendFlag.SIGNALED));
                Pair.poll(p.ca);
            }
            TIMES.add(fabric.now());
            p.close();
        }
    }

    @Test
    @DisplayName("the same seed replays the same run: a lossy run ends at the same virtual time")
    void shouldReplayRunWhenSeedIsTheSame() {
        DeterminismCase.TIMES.clear();
        System.setProperty(SimFabricExtension.SEED_PROPERTY, "31337");
        run(DeterminismCase.class).assertStatistics(s -> s.succeeded(1));
        run(DeterminismCase.class).assertStatistics(s -> s.succeeded(1));
        assertEquals(2, DeterminismCase.TIMES.size());
        assertEquals(DeterminismCase.TIMES.get(0), DeterminismCase.TIMES.get(1), "virtual end time of both runs");
        assertTrue(DeterminismCase.TIMES.get(0) > 0);
        assertNotNull(DeterministicScheduler.class);
    }
}
