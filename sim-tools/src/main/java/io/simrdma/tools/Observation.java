package io.simrdma.tools;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.capture.PacketCapture;
import io.simrdma.fabric.view.HtmlView;
import io.simrdma.fabric.view.Ladder;
import io.simrdma.fabric.view.RunRecording;
import io.simrdma.provider.SimProvider;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@code --pcap FILE}, {@code --ladder} and {@code --html FILE} do for a command that runs on
 * a DAT IA (node, ping): a capture of the IA's fabric and a recording of it, started before the
 * traffic and finished after it.
 */
final class Observation implements AutoCloseable {

    private final PacketCapture capture;
    private final RunRecording run;
    private final Path pcap;
    private final boolean ladder;
    private final Path html;
    private final String title;
    private final PrintWriter out;

    private Observation(
            PacketCapture capture,
            RunRecording run,
            Path pcap,
            boolean ladder,
            Path html,
            String title,
            PrintWriter out) {
        this.capture = capture;
        this.run = run;
        this.pcap = pcap;
        this.ladder = ladder;
        this.html = html;
        this.title = title;
        this.out = out;
    }

    /** Starts what the options ask for on {@code ia}'s fabric (nothing if all are off). */
    static Observation start(InterfaceAdapter ia, Path pcap, boolean ladder, Path html, String title, PrintWriter out) {
        boolean record = ladder || html != null;
        Fabric fabric = pcap != null || record ? SimProvider.fabricOf(ia) : null;
        PacketCapture c =
                pcap != null ? PacketCapture.on(fabric).interfaceName(title).start(pcap) : null;
        RunRecording r = record ? RunRecording.start(fabric, title) : null;
        return new Observation(c, r, pcap, ladder, html, title, out);
    }

    /** Stops the capture (saying how many packets it wrote), prints the ladder and writes the page. */
    @Override
    public void close() {
        if (run != null) {
            run.stop();
            if (ladder) {
                out.println();
                out.print(Ladder.render(run));
            }
            if (html != null) {
                HtmlView.write(html, title, List.of(run));
                out.println("run viewer: " + html + " (open it in a browser; click a packet for its headers)");
            }
        }
        if (capture != null) {
            capture.stop();
            out.println("capture: " + capture.frames() + " packets written to " + pcap);
        }
        out.flush();
    }
}
