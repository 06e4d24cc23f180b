package io.simrdma.tools;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The options that make a {@code simtcp:} IA name: where the node listens, its fabric and key. */
final class TcpIaOptions {

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "address the node listens on (default: ${DEFAULT-VALUE}; port 0 picks a free one)")
    String listen;

    @Option(names = "--fabric", defaultValue = "simrdma",
            description = "fabric name; nodes only talk to nodes of the same fabric (default: ${DEFAULT-VALUE})")
    String fabric;

    @Option(names = "--key-file", paramLabel = "FILE",
            description = "pre-shared key (the file's bytes, at least 16) that every node of the fabric must prove")
    Path keyFile;

    /** The IA name, for a node with the given name. */
    String iaName(String node) {
        StringBuilder b = new StringBuilder("simtcp:").append(listen).append("?node=").append(plain("node", node))
                .append("&fabric=").append(plain("--fabric", fabric));
        if (keyFile != null) {
            b.append("&keyFile=").append(plain("--key-file", keyFile.toAbsolutePath().toString()));
        }
        return b.toString();
    }

    /** IA name option values cannot hold the name's separators. */
    private static String plain(String what, String v) {
        if (v.isEmpty() || v.contains("&") || v.contains("?")) {
            throw new IllegalArgumentException(what + " must be non-empty and contain neither '&' nor '?': " + v);
        }
        return v;
    }
}
