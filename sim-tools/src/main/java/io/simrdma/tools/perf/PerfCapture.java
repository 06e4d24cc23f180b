package io.simrdma.tools.perf;

import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.capture.PacketCapture;
import io.simrdma.provider.SimProvider;
import java.nio.file.Path;

/**
 * What {@code perf --pcap FILE} does: one pcapng capture of every fabric this side of the run
 * opens (a layer's fabric, or the TCP node under a layer's side), in the order the layers run. It
 * starts on the first fabric a run opens and takes the next ones in ({@link PacketCapture#attach}),
 * so {@code --layer both} writes verbs then DAT into one file. Without a file it does nothing.
 *
 * <p>Thread safety: not thread-safe; the thread that runs the test opens the fabrics and closes it.
 */
final class PerfCapture implements AutoCloseable {

    private final Path file;
    private final String title;
    private PacketCapture capture;

    /** A capture into {@code file} (null: none) whose interface is named {@code title}. */
    PerfCapture(Path file, String title) {
        this.file = file;
        this.title = title;
    }

    /** Whether the run writes a capture. */
    boolean enabled() {
        return file != null;
    }

    /** Captures {@code fabric}'s packets from now on. */
    void add(Fabric fabric) {
        if (file == null) {
            return;
        }
        if (capture == null) {
            capture = PacketCapture.on(fabric).interfaceName(title).start(file);
        } else {
            capture.attach(fabric);
        }
    }

    /** Captures the packets of the fabric under {@code ia} (an in-process fabric or a TCP node's). */
    void add(InterfaceAdapter ia) {
        if (file != null) {
            add(SimProvider.fabricOf(ia));
        }
    }

    /** Frames written; 0 before the first fabric. */
    long frames() {
        return capture == null ? 0 : capture.frames();
    }

    /** The file, or null. */
    Path file() {
        return file;
    }

    /** Writes what is still on a link and closes the file. */
    @Override
    public void close() {
        if (capture != null) {
            capture.stop();
        }
    }
}
