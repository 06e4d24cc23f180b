package io.simrdma.fabric.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Fabric CAs and node credentials for tests, made once per JVM by {@link FabricPki} in a temporary
 * directory that is deleted when the JVM exits.
 */
final class TestPki {

    /** The CA of the tests' fabric. */
    static final TestPki FABRIC = new TestPki(TcpPair.FABRIC);
    /** Another CA: its nodes are strangers to {@link #FABRIC}'s. */
    static final TestPki STRANGER = new TestPki("stranger");

    private static final Path ROOT = root();

    private final String fabric;
    private final Map<String, TlsCredentials> nodes = new ConcurrentHashMap<>();
    private Path ca;

    private TestPki(String fabric) {
        this.fabric = fabric;
    }

    /** Credentials of a node named {@code name} whose certificate names {@code ips} (default 127.0.0.1). */
    TlsCredentials node(String name, String... ips) {
        String[] addresses = ips.length == 0 ? new String[] {"127.0.0.1"} : ips;
        return nodes.computeIfAbsent(name + "@" + String.join(",", addresses), k -> make(name, addresses));
    }

    /** The directory of the CA (ca.crt, ca.key). */
    synchronized Path caDirectory() {
        if (ca == null) {
            ca = ROOT.resolve("ca-" + fabric);
            FabricPki.createCa(ca, fabric, FabricPki.DEFAULT_CA_VALIDITY);
        }
        return ca;
    }

    private TlsCredentials make(String name, String[] ips) {
        Path dir = ROOT.resolve(fabric + "-" + name + "-" + String.join("_", ips));
        List<InetAddress> addresses = new ArrayList<>();
        try {
            for (String ip : ips) {
                addresses.add(InetAddress.getByName(ip));
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
        FabricPki.createNode(caDirectory(), dir, name, addresses, FabricPki.DEFAULT_NODE_VALIDITY);
        return TlsCredentials.load(dir);
    }

    private static Path root() {
        try {
            Path r = Files.createTempDirectory("simrdma-test-pki");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(r), "test-pki-cleanup"));
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path r) {
        try (Stream<Path> all = Files.walk(r)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort at exit
        }
    }
}
