package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.InterfaceAdapter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code simrdma node}: a DAT node over TCP that echoes messages and offers RDMA memory to {@code simrdma ping}. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Runs a TCP node with a DAT IA (simtcp:HOST:PORT) that accepts connections on a PSP, echoes "
                + "every message, and offers each connection a region for RDMA WRITE and READ.",
                "Pair it with 'simrdma ping --peer HOST:PORT' in another JVM or on another host."})
final class NodeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    TcpIaOptions tcp;

    @Option(names = "--qualifier", defaultValue = "1", description = "connection qualifier of the PSP (default: ${DEFAULT-VALUE})")
    long qualifier;

    @Option(names = "--region", defaultValue = "1048576", description = "bytes of RDMA memory per connection, up to 1 MiB (default: ${DEFAULT-VALUE})")
    int region;

    @Option(names = "--connections", defaultValue = "0", description = "exit after this many connections ended (default: 0, serve until killed)")
    int connections;

    @Option(names = "--pcap", paramLabel = "FILE", description = "write every packet of the node to FILE (pcapng, RoCEv2)")
    Path pcap;

    @Override
    public Integer call() {
        if (tcp.listen == null) {
            tcp.listen = "127.0.0.1:7471";
        }
        if (region < 1 || region > 1 << 20) {
            throw new ParameterException(spec.commandLine(), "--region must be 1 to 1048576 bytes");
        }
        PrintWriter out = spec.commandLine().getOut();
        InterfaceAdapter ia = Dat.openIa(tcp.iaName("node@" + tcp.listen), 64);
        try (Observation seen = Observation.start(ia, pcap, false, "simrdma node " + tcp.listen, out)) {
            EchoNode node = new EchoNode(ia, qualifier, region, out);
            node.serve(connections);
            node.close();
            return 0;
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }
}
