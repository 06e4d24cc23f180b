package io.simrdma.tools;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options that make a {@code simtcp:} IA name besides the listen address: the fabric, TLS, insecure. */
final class TcpIaOptions {

    @Option(
            names = "--fabric",
            defaultValue = "simrdma",
            paramLabel = "NAME",
            description = "fabric name; nodes only talk to nodes of the same fabric (default: ${DEFAULT-VALUE})")
    String fabric;

    @Option(
            names = "--tls",
            paramLabel = "DIR",
            description =
                    "TLS credentials made by 'simrdma keygen node' (node.crt, node.key, ca.crt): every connection "
                            + "then runs TLS 1.3 with mutual authentication through the fabric CA (default: none, plain TCP, "
                            + "loopback only)")
    Path tls;

    @Option(
            names = "--insecure",
            description = "allow plain TCP (no --tls) on an address other than loopback: anyone who can reach it can "
                    + "join the fabric and read or alter its traffic")
    boolean insecure;

    /**
     * The IA name for a node listening on {@code listen} with the given name; option values are
     * percent-encoded, so any fabric or node name survives.
     *
     * @throws picocli.CommandLine.ParameterException (through {@code bad}) for an empty or too long
     *         fabric name, or a --tls directory that does not exist
     */
    String iaName(HostPort listen, String node, java.util.function.Function<String, RuntimeException> bad) {
        if (fabric.isEmpty() || fabric.getBytes(StandardCharsets.UTF_8).length > 255) {
            throw bad.apply("--fabric must have 1 to 255 bytes, not " + fabric.getBytes(StandardCharsets.UTF_8).length);
        }
        StringBuilder b = new StringBuilder("simtcp:")
                .append(listen)
                .append("?node=")
                .append(encode(node))
                .append("&fabric=")
                .append(encode(fabric));
        if (tls != null) {
            if (!Files.isDirectory(tls)) {
                throw bad.apply("--tls " + tls + ": no such directory (make one with 'simrdma keygen node')");
            }
            b.append("&tls=").append(encode(tls.toAbsolutePath().toString()));
        }
        if (insecure) {
            b.append("&insecure=true");
        }
        return b.toString();
    }

    /** {@code v} percent-encoded for an IA name's query (the JDK's URI encoding, with '&', '=' and '+' escaped too). */
    static String encode(String v) {
        try {
            String s = new URI(null, null, "/", v, null).getRawQuery();
            return s.replace("&", "%26").replace("=", "%3D").replace("+", "%2B").replace("#", "%23");
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot encode '" + v + "'", e);
        }
    }
}
