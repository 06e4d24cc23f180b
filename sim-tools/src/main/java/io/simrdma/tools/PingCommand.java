package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.Timeout;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code simrdma ping}: connects to a {@code simrdma node} over TCP and checks messages and RDMA transfers. */
@Command(
        name = "ping",
        mixinStandardHelpOptions = true,
        versionProvider = Simrdma.Version.class,
        description = {
            "Opens a TCP node with a DAT IA, connects to 'simrdma node' at --peer, sends messages and checks "
                    + "each echo, then RDMA-WRITEs a block into the node's memory and RDMA-READs it back, checking every byte.",
            "Long runs print their progress every 2 s (not with -q). Ctrl-C or SIGTERM stops the run, disconnects "
                    + "and reports what was done."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success: every echo and every byte verified",
            "1:failure: no connection (the message says why), a wrong echo, a failed transfer, a missing event",
            "2:usage error: an unknown option or a bad value (the message names it)",
            "130, 143:stopped by Ctrl-C or SIGTERM, after disconnecting cleanly"
        })
final class PingCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CliOutput.Verbosity verbosity;

    @Mixin
    TcpIaOptions tcp;

    @Option(
            names = "--listen",
            paramLabel = "HOST:PORT",
            defaultValue = "127.0.0.1:0",
            description = "this side's listen address (default: ${DEFAULT-VALUE})")
    String listen;

    @Option(names = "--peer", required = true, paramLabel = "HOST:PORT", description = "the node's listen address")
    String peer;

    @Option(
            names = "--qualifier",
            defaultValue = "1",
            description = "the node's connection qualifier (default: ${DEFAULT-VALUE})")
    long qualifier;

    @Option(
            names = "--count",
            defaultValue = "1000",
            description = "messages to send, 0 or more (default: ${DEFAULT-VALUE})")
    int count;

    @Option(
            names = "--size",
            defaultValue = "64",
            description = "bytes per message, 1 to 65536 (default: ${DEFAULT-VALUE})")
    int size;

    @Option(
            names = "--rdma-size",
            defaultValue = "1048576",
            description = "bytes to RDMA WRITE and READ back, 1 to 1048576 (default: ${DEFAULT-VALUE})")
    int rdmaSize;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "seed of the message contents (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
            names = "--timeout",
            defaultValue = "10000",
            paramLabel = "MS",
            description = "milliseconds to wait for any one event, 1 to 4294967 (default: ${DEFAULT-VALUE})")
    long timeoutMillis;

    @Option(
            names = "--pcap",
            paramLabel = "FILE",
            description = "write every packet of this side to FILE (pcapng, RoCEv2)")
    Path pcap;

    @Option(names = "--ladder", description = "print the packet ladder of the run (use a small --count)")
    boolean ladder;

    @Option(
            names = "--html",
            paramLabel = "FILE",
            description =
                    "write the run viewer to FILE: one page, zoomable, each packet clickable (use a small --count)")
    Path html;

    @Override
    public Integer call() {
        if (count < 0) {
            throw bad("--count must be 0 or more, not " + count);
        }
        if (size < 1 || size > EchoNode.SLOT_SIZE) {
            throw bad("--size must be 1 to " + EchoNode.SLOT_SIZE + " bytes, not " + size);
        }
        if (rdmaSize < 1 || rdmaSize > 1 << 20) {
            throw bad("--rdma-size must be 1 to 1048576 bytes, not " + rdmaSize);
        }
        if (timeoutMillis < 1 || timeoutMillis > Timeout.INFINITE_MICROS / 1000) {
            throw bad("--timeout must be 1 to " + Timeout.INFINITE_MICROS / 1000 + " ms, not " + timeoutMillis);
        }
        if (qualifier < 0) {
            throw bad("--qualifier must not be negative, not " + qualifier);
        }
        HostPort self = hostPort("--listen", listen, true);
        HostPort target = hostPort("--peer", peer, false);
        PrintWriter out = spec.commandLine().getOut();
        String iaName = tcp.iaName(self, "ping@" + self, this::bad);
        try (SignalStop stop = SignalStop.install()) {
            InterfaceAdapter ia = Dat.openIa(iaName, 16);
            try (Observation seen = Observation.start(
                    ia, pcap, ladder, html, "simrdma ping " + target.host() + ":" + target.port(), out)) {
                PingClient client = new PingClient(ia, out, CliOutput.quiet(), stop::requested);
                PingClient.Result r = client.run(new PingClient.Plan(
                        new InetSocketAddress(target.host(), target.port()),
                        qualifier,
                        count,
                        size,
                        rdmaSize,
                        seed,
                        Timeout.ofMillis(timeoutMillis)));
                PingClient.report(r, size, out);
                return CliOutput.OK;
            } catch (PingClient.PingFailure e) {
                out.flush();
                spec.commandLine().getErr().println("simrdma ping: FAILED: " + e.getMessage());
                spec.commandLine().getErr().flush();
                return CliOutput.FAILED;
            } finally {
                ia.close(CloseFlag.ABRUPT);
            }
        }
    }

    private HostPort hostPort(String option, String text, boolean portZero) {
        try {
            return HostPort.parse(option, text, portZero);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
