package io.simrdma.tools;

import io.simrdma.fabric.tcp.FabricPki;
import io.simrdma.fabric.tcp.TlsCredentials;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code simrdma keygen}: the credentials of a TLS fabric, made with {@link FabricPki}: a fabric CA
 * ({@code keygen ca}), then one directory per node ({@code keygen node}) to give its
 * {@code --tls} option.
 */
@Command(
        name = "keygen",
        mixinStandardHelpOptions = true,
        versionProvider = Simrdma.Version.class,
        description = {
            "Makes the TLS credentials of a fabric: first a fabric CA ('keygen ca'), then, signed by it, a "
                    + "directory per node ('keygen node') to give to that node's --tls. Nodes trust each other through the CA; "
                    + "a node's certificate names the IPv4 addresses it may listen on.",
            "Keys are EC P-256, certificates X.509 signed with SHA256withECDSA, written as PEM. Keep ca.key off the "
                    + "nodes; copy each node's directory to its host only."
        },
        subcommands = {KeygenCommand.Ca.class, KeygenCommand.Node.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:failure: a file exists already, the CA cannot be read, a file cannot be written",
            "2:usage error: an unknown option or a bad value (the message names it)"
        })
final class KeygenCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "say what to make: 'keygen ca' or 'keygen node'");
    }

    /** {@code simrdma keygen ca}. */
    @Command(
            name = "ca",
            mixinStandardHelpOptions = true,
            description = "Makes a fabric CA: ca.crt and ca.key in --out.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:success", "1:failure: a file exists already or cannot be written", "2:usage error"})
    static final class Ca implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CliOutput.Verbosity verbosity;

        @Option(
                names = "--out",
                required = true,
                paramLabel = "DIR",
                description = "directory for ca.crt and ca.key (created if needed)")
        Path out;

        @Option(
                names = "--fabric",
                defaultValue = "simrdma",
                paramLabel = "NAME",
                description = "fabric name, written into the CA's name (default: ${DEFAULT-VALUE})")
        String fabric;

        @Option(
                names = "--days",
                defaultValue = "3650",
                description = "validity in days, 1 to 36500 (default: ${DEFAULT-VALUE})")
        int days;

        @Override
        public Integer call() {
            checkDays(spec, days);
            X509Certificate c = FabricPki.createCa(out, fabric, Duration.ofDays(days));
            PrintWriter w = spec.commandLine().getOut();
            w.printf(
                    "wrote %s and %s (keep ca.key off the nodes)%n",
                    out.resolve(FabricPki.CA_CERT), out.resolve(FabricPki.CA_KEY));
            w.printf(
                    "CA certificate SHA-256 %s, valid until %s%n",
                    TlsCredentials.fingerprint(c), c.getNotAfter().toInstant());
            w.printf("next, for each node: simrdma keygen node --ca %s --name NAME --ip IPV4 --out DIR%n", out);
            w.flush();
            return CliOutput.OK;
        }
    }

    /** {@code simrdma keygen node}. */
    @Command(
            name = "node",
            mixinStandardHelpOptions = true,
            description =
                    "Makes a node's credentials in --out: node.crt (signed by the CA), node.key, and a copy of ca.crt.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {
                "0:success",
                "1:failure: a file exists already, the CA cannot be read, a file cannot be written",
                "2:usage error"
            })
    static final class Node implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CliOutput.Verbosity verbosity;

        @Option(
                names = "--ca",
                required = true,
                paramLabel = "DIR",
                description = "the CA's directory ('keygen ca --out')")
        Path ca;

        @Option(
                names = "--out",
                required = true,
                paramLabel = "DIR",
                description = "directory for the node's files (created if needed)")
        Path out;

        @Option(
                names = "--name",
                required = true,
                paramLabel = "NAME",
                description = "the node's name, written into its certificate")
        String name;

        @Option(
                names = "--ip",
                required = true,
                paramLabel = "IPV4",
                description = "an IPv4 address the node listens on (repeat for several; 127.0.0.1 for loopback)")
        List<String> ips;

        @Option(
                names = "--days",
                defaultValue = "825",
                description = "validity in days, 1 to 36500 (default: ${DEFAULT-VALUE})")
        int days;

        @Override
        public Integer call() {
            checkDays(spec, days);
            List<InetAddress> addresses = new ArrayList<>();
            for (String ip : ips) {
                addresses.add(ipv4(spec, ip));
            }
            X509Certificate c = FabricPki.createNode(ca, out, name, addresses, Duration.ofDays(days));
            PrintWriter w = spec.commandLine().getOut();
            w.printf(
                    "wrote %s, %s and %s%n",
                    out.resolve(FabricPki.NODE_CERT), out.resolve(FabricPki.NODE_KEY), out.resolve(FabricPki.CA_CERT));
            w.printf(
                    "node certificate for %s at %s, SHA-256 %s, valid until %s%n",
                    name,
                    String.join(", ", ips),
                    TlsCredentials.fingerprint(c),
                    c.getNotAfter().toInstant());
            w.printf("use it: simrdma node --tls %s --listen %s:7471%n", out, ips.get(0));
            w.flush();
            return CliOutput.OK;
        }
    }

    private static void checkDays(CommandSpec spec, int days) {
        if (days < 1 || days > 36_500) {
            throw new ParameterException(spec.commandLine(), "--days must be 1 to 36500, not " + days);
        }
    }

    /** An IPv4 literal (no name lookup: a certificate names addresses). */
    private static InetAddress ipv4(CommandSpec spec, String ip) {
        if (!ip.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new ParameterException(
                    spec.commandLine(), "--ip must be an IPv4 address such as 10.0.0.5, not '" + ip + "'");
        }
        try {
            InetAddress a = InetAddress.getByName(ip);
            if (a.isAnyLocalAddress()) {
                throw new ParameterException(
                        spec.commandLine(), "--ip " + ip + " is the wildcard; give the address the node listens on");
            }
            return a;
        } catch (UnknownHostException e) {
            throw new ParameterException(spec.commandLine(), "--ip must be an IPv4 address, not '" + ip + "'");
        }
    }
}
