package io.simrdma.tools;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.Timeout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code simrdma ping}: connects to a {@code simrdma node} over TCP and checks messages and RDMA transfers. */
@Command(name = "ping", mixinStandardHelpOptions = true,
        description = {"Opens a TCP node with a DAT IA, connects to 'simrdma node' at --peer, sends messages and checks "
                + "each echo, then RDMA-WRITEs a block into the node's memory and RDMA-READs it back, checking every byte."})
final class PingCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    TcpIaOptions tcp;

    @Option(names = "--peer", required = true, paramLabel = "HOST:PORT", description = "the node's listen address")
    String peer;

    @Option(names = "--qualifier", defaultValue = "1", description = "the node's connection qualifier (default: ${DEFAULT-VALUE})")
    long qualifier;

    @Option(names = "--count", defaultValue = "1000", description = "messages to send (default: ${DEFAULT-VALUE})")
    int count;

    @Option(names = "--size", defaultValue = "64", description = "bytes per message, 1 to 65536 (default: ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--rdma-size", defaultValue = "1048576", description = "bytes to RDMA WRITE and READ back (default: ${DEFAULT-VALUE})")
    int rdmaSize;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the message contents (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--timeout", defaultValue = "10000", description = "milliseconds to wait for any one event (default: ${DEFAULT-VALUE})")
    long timeoutMillis;

    @Option(names = "--pcap", paramLabel = "FILE", description = "write every packet of this side to FILE (pcapng, RoCEv2)")
    Path pcap;

    @Option(names = "--ladder", description = "print the packet ladder of the run (use a small --count)")
    boolean ladder;

    @Override
    public Integer call() {
        if (tcp.listen == null) {
            tcp.listen = "127.0.0.1:0";
        }
        if (size < 1 || size > EchoNode.SLOT_SIZE || rdmaSize < 1 || rdmaSize > 1 << 20 || count < 0) {
            throw new ParameterException(spec.commandLine(), "--size must be 1 to 65536, --rdma-size 1 to 1048576, --count >= 0");
        }
        InetSocketAddress node = parse(peer);
        PrintWriter out = spec.commandLine().getOut();
        InterfaceAdapter ia = Dat.openIa(tcp.iaName("ping@" + tcp.listen), 16);
        try (Observation seen = Observation.start(ia, pcap, ladder, "simrdma ping " + peer, out)) {
            PingClient.Result r = new PingClient(ia, out).run(new PingClient.Plan(node, qualifier, count, size, rdmaSize,
                    seed, Timeout.ofMillis(timeoutMillis)));
            PingClient.report(r, size, out);
            return 0;
        } catch (PingClient.PingFailure e) {
            out.flush();
            spec.commandLine().getErr().println("ping FAILED: " + e.getMessage());
            return 1;
        } finally {
            ia.close(CloseFlag.ABRUPT);
        }
    }

    private InetSocketAddress parse(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        try {
            return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw new ParameterException(spec.commandLine(), "--peer must be HOST:PORT, not " + hostPort);
        }
    }
}
