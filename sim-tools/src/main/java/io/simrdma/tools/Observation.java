package io.simrdma.tools;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.capture.PacketCapture;
import io.simrdma.fabric.view.Ladder;
import io.simrdma.fabric.view.RunRecording;
import io.simrdma.provider.SimProvider;

import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * What {@code --pcap FILE} and {@code --ladder} do for a command that runs on a DAT IA (node,
 * ping): a capture of the IA's fabric and a recording of it, started before the traffic and
 * finished after it.
 */
final class Observation implements AutoCloseable {

    private final PacketCapture capture;
    private final RunRecording run;
    private final Path pcap;
    private final PrintWriter out;

    private Observation(PacketCapture capture, RunRecording run, Path pcap, PrintWriter out) {
        this.capture = capture;
        this.run = run;
        this.pcap = pcap;
        this.out = out;
    }

    /** Starts what the options ask for on {@code ia}'s fabric (nothing if both are off). */
    static Observation start(InterfaceAdapter ia, Path pcap, boolean ladder, String title, PrintWriter out) {
        Fabric fabric = pcap != null || ladder ? SimProvider.fabricOf(ia) : null;
        PacketCapture c = pcap != null ? PacketCapture.on(fabric).interfaceName(title).start(pcap) : null;
        RunRecording r = ladder ? RunRecording.start(fabric, title) : null;
        return new Observation(c, r, pcap, out);
    }

    /** Stops the capture (saying how many packets it wrote) and prints the ladder. */
    @Override
    public void close() {
        if (run != null) {
            run.stop();
            out.println();
            out.print(Ladder.render(run));
        }
        if (capture != null) {
            capture.stop();
            out.println("capture: " + capture.frames() + " packets written to " + pcap);
        }
        out.flush();
    }
}
