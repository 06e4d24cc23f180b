package io.simrdma.tools;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code simrdma demo}: verbs, the connection manager and DAT on an in-process fabric. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Connects two simulated devices and moves verified data with SEND, RDMA WRITE, RDMA READ and an "
                    + "atomic over a lossy link, then does the same through the DAT provider.",
            "The deterministic fabric (default) prints the same output, virtual timestamps included, on every run "
                    + "with the same seed."
        })
final class DemoCommand implements Callable<Integer> {

    /** How the fabric runs. */
    enum Mode {
        deterministic,
        threaded
    }

    @Spec
    CommandSpec spec;

    @Option(
            names = "--mode",
            defaultValue = "deterministic",
            description = "deterministic or threaded (default: ${DEFAULT-VALUE})")
    Mode mode;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "seed of the deterministic fabric and of the link faults (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
            names = "--loss",
            defaultValue = "0.1",
            description = "share of request packets the link loses, 0 to 0.5 (default: ${DEFAULT-VALUE})")
    double loss;

    @Option(
            names = "--trace",
            description =
                    "print every packet the fabric sends, loses or retransmits, and the DAT endpoints' state changes")
    boolean trace;

    @Option(
            names = "--pcap",
            paramLabel = "FILE",
            description = "write every packet to FILE (pcapng, RoCEv2: open it with Wireshark or tshark)")
    Path pcap;

    @Option(names = "--ladder", description = "print each part's packet ladder: a column per QP, an arrow per packet")
    boolean ladder;

    @Option(
            names = "--html",
            paramLabel = "FILE",
            description = "write the run viewer to FILE: one page, zoomable, each packet clickable")
    Path html;

    @Override
    public Integer call() {
        if (loss < 0 || loss > 0.5) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--loss must be between 0 and 0.5");
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            new Demo(new Demo.Options(mode == Mode.threaded, seed, loss, trace, pcap, ladder, html), out).run();
            return 0;
        } catch (Demo.DemoFailure e) {
            out.flush();
            spec.commandLine().getErr().println("demo FAILED: " + e.getMessage());
            return 1;
        }
    }
}
