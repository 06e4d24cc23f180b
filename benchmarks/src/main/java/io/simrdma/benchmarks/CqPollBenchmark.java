package io.simrdma.benchmarks;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Draining a CQ of {@value #DEPTH} completions with ibv_poll_cq(3) in batches of {@code batch}
 * entries, per completion. Before each invocation the engine (deterministic, not measured) fills
 * the CQ with the completions of {@value #DEPTH} signalled 8-byte RDMA WRITEs. The verbs API only.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CqPollBenchmark {

    static final int DEPTH = 64;

    @Param({"1", "16", "64"})
    public int batch;

    private Fabric fabric;
    private QueuePair qa;
    private CompletionQueue cq;
    private final SendWr[] chain = new SendWr[DEPTH];
    private WorkCompletion[] wc;

    @Setup(Level.Trial)
    public void setUp() {
        fabric = Fabric.deterministic(1);
        Device a = fabric.createDevice("a");
        Device b = fabric.createDevice("b");
        EnumSet<AccessFlag> all = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        cq = a.createCq(DEPTH);
        CompletionQueue cqb = b.createCq(DEPTH);
        qa = pa.createQp(QpInitAttr.rc(cq, cq).caps(new QpCaps(DEPTH, 1, 1, 1, 0)));
        QueuePair qb = pb.createQp(QpInitAttr.rc(cqb, cqb).caps(new QpCaps(1, 1, 1, 1, 0)));
        RcConnect.connect(qa, qb);
        MemoryRegion ma = pa.registerMemory(ByteBuffer.allocateDirect(8), all);
        MemoryRegion mb = pb.registerMemory(ByteBuffer.allocateDirect(8), all);
        for (int i = 0; i < DEPTH; i++) {
            chain[i] = new SendWr()
                    .opcode(WrOpcode.RDMA_WRITE)
                    .wrId(i)
                    .sge(ma, 0, 8)
                    .remote(mb.address(), mb.rkey())
                    .flag(SendFlag.SIGNALED);
            if (i > 0) {
                chain[i - 1].next(chain[i]);
            }
        }
        wc = WorkCompletion.array(batch);
    }

    @Setup(Level.Invocation)
    public void fill() {
        qa.postSend(chain[0]);
        if (!cq.awaitCompletions(DEPTH, 10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the CQ did not fill");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fabric.close();
    }

    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public int drain() {
        int total = 0;
        while (total < DEPTH) {
            total += cq.poll(wc, batch);
        }
        return total;
    }
}
