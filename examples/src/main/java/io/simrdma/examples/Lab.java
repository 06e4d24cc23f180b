package io.simrdma.examples;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.capture.PacketCapture;
import io.simrdma.fabric.view.Ladder;
import io.simrdma.fabric.view.RunRecording;
import io.simrdma.provider.SimProvider;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What the verbs examples share: a deterministic fabric, a host per device (PD, CQ, memory), a
 * line printer stamped with virtual time, and the capture and ladder the context asks for.
 */
final class Lab implements AutoCloseable {

    /** Every right a region can give: local write, remote write, read and atomics. */
    static final Set<AccessFlag> ALL = EnumSet.of(
            AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    final Fabric fabric;
    private final Example.Context context;
    private final Watch watch;

    Lab(String name, long seed, Example.Context context) {
        this.fabric = Fabric.builder().name(name).deterministic(seed).build();
        this.context = context;
        this.watch = new Watch(fabric, name, context);
    }

    /**
     * The capture and the ladder the context asks for, on one fabric (a verbs example's, or the
     * one under a DAT example's IAs); closing it stops the capture and prints the ladder.
     */
    static final class Watch implements AutoCloseable {
        private final Example.Context context;
        private final PacketCapture capture;
        private final RunRecording run;

        Watch(Fabric fabric, String name, Example.Context context) {
            this.context = context;
            this.capture = context.pcap() != null ? PacketCapture.on(fabric).start(context.pcap()) : null;
            this.run = context.ladder() ? RunRecording.start(fabric, name) : null;
        }

        /**
         * Watches the fabric the DAT provider runs {@code ia} on. {@code SimProvider.fabricOf} is
         * simrdma's, not DAT's: the DAT examples themselves use the DAT API only.
         */
        static Watch dat(InterfaceAdapter ia, String name, Example.Context context) {
            return new Watch(SimProvider.fabricOf(ia), name, context);
        }

        @Override
        public void close() {
            if (run != null) {
                run.stop();
                context.out().println();
                context.out().print(Ladder.render(run));
            }
            if (capture != null) {
                capture.stop();
                context.out().println("capture: " + capture.frames() + " packets written to " + context.pcap());
            }
        }
    }

    /** One simulated host: a device (an HCA), its protection domain, a completion queue and memory. */
    final class Host {
        final Device device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final ByteBuffer buf;
        final MemoryRegion mr;

        Host(String name, int bytes) {
            device = fabric.createDevice(DeviceConfig.named(name).maxMtu(Mtu.MTU_1024));
            pd = device.allocPd(); // ibv_alloc_pd
            cq = device.createCq(64); // ibv_create_cq
            buf = ByteBuffer.allocateDirect(bytes); // the application's memory ...
            mr = pd.registerMemory(buf, ALL); // ... registered: ibv_reg_mr gives an lkey and an rkey
        }

        /** An RC queue pair whose sends and receives complete on this host's CQ (ibv_create_qp). */
        QueuePair qp() {
            return pd.createQp(QpInitAttr.rc(cq, cq).caps(QpCaps.defaults()));
        }

        /** An RC queue pair that takes its receives from {@code srq}. */
        QueuePair qp(SharedReceiveQueue srq) {
            return pd.createQp(QpInitAttr.rc(cq, cq).srq(srq).caps(QpCaps.defaults()));
        }

        /** Waits for the next completion on this host's CQ and checks it succeeded (ibv_poll_cq). */
        WorkCompletion await() {
            WorkCompletion[] wc = WorkCompletion.array(1);
            check(cq.awaitCompletions(1, 5, TimeUnit.SECONDS), device.name() + ": no completion within 5 s");
            cq.poll(wc, 1);
            check(wc[0].status() == WcStatus.SUCCESS, device.name() + ": " + wc[0]);
            return wc[0];
        }
    }

    Host host(String name, int bytes) {
        return new Host(name, bytes);
    }

    /** Prints a line stamped with the fabric's virtual time. */
    void say(String line) {
        context.out().printf("[%9.3f us] %s%n", fabric.now() / 1000.0, line);
    }

    PrintWriter out() {
        return context.out();
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new Example.ExampleFailure(what);
        }
    }

    /** Stops the capture, prints the ladder if asked, closes the fabric. */
    @Override
    public void close() {
        try {
            watch.close();
        } finally {
            fabric.close();
        }
        context.out().flush();
    }
}
