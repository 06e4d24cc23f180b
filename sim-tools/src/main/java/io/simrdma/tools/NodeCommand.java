package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.InterfaceAdapter;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code simrdma node}: a DAT node over TCP that echoes messages and offers RDMA memory to {@code simrdma ping}. */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        versionProvider = Simrdma.Version.class,
        description = {
            "Runs a TCP node with a DAT IA (simtcp:HOST:PORT) that accepts connections on a PSP, echoes "
                    + "every message, and offers each connection a region for RDMA WRITE and READ.",
            "Pair it with 'simrdma ping --peer HOST:PORT' in another JVM or on another host. Between hosts, give "
                    + "both --tls with credentials from 'simrdma keygen' (see the README).",
            "A client that vanishes (its JVM or host dies) is noticed by a zero-byte RDMA WRITE sent every "
                    + "--keepalive; what it held is freed within the keepalive plus 4.3 s of RC retries.",
            "Ctrl-C or SIGTERM disconnects every client, frees everything and exits."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:failure: the command could not do its work (the message says why)",
            "2:usage error: an unknown option or a bad value (the message names it)",
            "130, 143:stopped by Ctrl-C or SIGTERM, after disconnecting cleanly"
        })
final class NodeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CliOutput.Verbosity verbosity;

    @Mixin
    TcpIaOptions tcp;

    @Option(
            names = "--listen",
            paramLabel = "HOST:PORT",
            defaultValue = "127.0.0.1:7471",
            description = "listen address (default: ${DEFAULT-VALUE}); port 0: any free port")
    String listen;

    @Option(
            names = "--qualifier",
            defaultValue = "1",
            description = "connection qualifier of the PSP (default: ${DEFAULT-VALUE})")
    long qualifier;

    @Option(
            names = "--region",
            defaultValue = "1048576",
            description = "bytes of RDMA memory per connection, 1 to 1048576 (default: ${DEFAULT-VALUE})")
    int region;

    @Option(
            names = "--connections",
            defaultValue = "0",
            description = "exit after this many connections ended; 0 serves until stopped (default: ${DEFAULT-VALUE})")
    int connections;

    @Option(
            names = "--keepalive",
            defaultValue = "2000",
            paramLabel = "MS",
            description = "milliseconds between the zero-byte RDMA WRITEs that find vanished clients, 100 to 3600000 "
                    + "(default: ${DEFAULT-VALUE})")
    long keepaliveMillis;

    @Option(
            names = "--pcap",
            paramLabel = "FILE",
            description = "write every packet of the node to FILE (pcapng, RoCEv2)")
    Path pcap;

    @Override
    public Integer call() {
        if (region < 1 || region > 1 << 20) {
            throw bad("--region must be 1 to 1048576 bytes, not " + region);
        }
        if (connections < 0) {
            throw bad("--connections must be 0 (serve until stopped) or more, not " + connections);
        }
        if (qualifier < 0) {
            throw bad("--qualifier must not be negative, not " + qualifier);
        }
        if (keepaliveMillis < 100 || keepaliveMillis > 3_600_000) {
            throw bad("--keepalive must be 100 to 3600000 ms, not " + keepaliveMillis);
        }
        HostPort address = hostPort(listen);
        PrintWriter out = spec.commandLine().getOut();
        String iaName = tcp.iaName(address, "node@" + address, this::bad);
        try (SignalStop stop = SignalStop.install()) {
            InterfaceAdapter ia = Dat.openIa(iaName, 64);
            try (Observation seen = Observation.start(ia, pcap, false, null, "simrdma node " + address, out)) {
                EchoNode node = new EchoNode(ia, qualifier, region, keepaliveMillis, CliOutput.quiet(), out);
                boolean stopped = node.serve(connections, stop::requested);
                if (stopped) {
                    int n = node.disconnectAll();
                    out.printf(
                            "node stopping (signal): disconnected %d connection%s, freed everything%n",
                            n, n == 1 ? "" : "s");
                    out.flush();
                }
                node.close();
                return CliOutput.OK;
            } finally {
                ia.close(CloseFlag.ABRUPT);
            }
        }
    }

    private HostPort hostPort(String text) {
        try {
            return HostPort.parse("--listen", text, true);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
    }

    private ParameterException bad(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
