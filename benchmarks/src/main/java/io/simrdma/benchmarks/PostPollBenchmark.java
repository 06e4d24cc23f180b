package io.simrdma.benchmarks;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One RDMA WRITE or SEND, posted and polled to its completion (ibv_post_send then ibv_poll_cq until
 * it returns the completion), on a deterministic fabric (the polling thread runs the whole engine:
 * the cost of the simulation itself) or a threaded one (a device thread per side: the cost of the
 * hand-offs as well). The verbs API only.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PostPollBenchmark {

    @Param({"deterministic", "threaded"})
    public String mode;

    @Param({"8", "65536"})
    public int size;

    @Param({"RDMA_WRITE", "SEND"})
    public String opcode;

    private Fabric fabric;
    private QueuePair qa;
    private QueuePair qb;
    private CompletionQueue cqa;
    private CompletionQueue cqb;
    private final SendWr wr = new SendWr();
    private final io.simrdma.fabric.RecvWr rwr = new io.simrdma.fabric.RecvWr();
    private final WorkCompletion[] wc = WorkCompletion.array(4);
    private boolean send;

    @Setup(Level.Trial)
    public void setUp() {
        fabric = mode.equals("threaded") ? Fabric.threaded() : Fabric.deterministic(1);
        Device a = fabric.createDevice("a");
        Device b = fabric.createDevice("b");
        EnumSet<AccessFlag> all = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        cqa = a.createCq(256);
        cqb = b.createCq(256);
        QpCaps caps = new QpCaps(64, 64, 1, 1, 0);
        qa = pa.createQp(QpInitAttr.rc(cqa, cqa).caps(caps));
        qb = pb.createQp(QpInitAttr.rc(cqb, cqb).caps(caps));
        RcConnect.connect(qa, qb, RcConnect.Options.defaults().withPathMtu(Mtu.MTU_4096));
        MemoryRegion ma = pa.registerMemory(ByteBuffer.allocateDirect(size), all);
        MemoryRegion mb = pb.registerMemory(ByteBuffer.allocateDirect(size), all);
        send = opcode.equals("SEND");
        wr.opcode(WrOpcode.valueOf(opcode)).wrId(1).sge(ma, 0, size).flag(SendFlag.SIGNALED);
        if (!send) {
            wr.remote(mb.address(), mb.rkey());
        }
        rwr.wrId(2).sge(mb, 0, size);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fabric.close();
    }

    @Benchmark
    public int postAndPoll() {
        if (send) {
            qb.postRecv(rwr);
        }
        qa.postSend(wr);
        int n;
        while ((n = cqa.poll(wc, 1)) == 0) {
            Thread.onSpinWait();
        }
        if (wc[0].status() != WcStatus.SUCCESS) {
            throw new IllegalStateException(wc[0].toString());
        }
        if (send) {
            while (cqb.poll(wc, 1) == 0) {
                Thread.onSpinWait();
            }
        }
        return n;
    }
}
