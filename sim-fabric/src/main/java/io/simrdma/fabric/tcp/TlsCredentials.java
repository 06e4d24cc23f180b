package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLException;

/**
 * A node's TLS credentials: its certificate and private key, and the fabric CA certificate it
 * trusts peers through, loaded from a directory {@link FabricPki} (or {@code simrdma keygen})
 * wrote: {@value FabricPki#NODE_CERT}, {@value FabricPki#NODE_KEY}, {@value FabricPki#CA_CERT}.
 * Connections of a node configured with credentials ({@link TcpConfig.Builder#tls}) run TLS 1.3
 * with mutual authentication (Netty's {@link SslHandler} on the JDK's TLS provider) before any
 * simrdma frame.
 *
 * <p><b>Roles.</b> The node that dials a connection is the TLS <em>server</em> and the node that
 * accepted it the TLS <em>client</em>: in TLS 1.3 the server proves its identity first and the
 * client sends its certificate only after checking the server's, so a listening node shows
 * nothing about itself (not even its certificate) to a party that has not proved it belongs to
 * the fabric.
 *
 * <p><b>Identity.</b> A peer is accepted if its certificate chains to the fabric CA, is valid now,
 * and names (as an IP subject alternative name) the IPv4 address of the GID it claims in its
 * HELLO; a dialled peer must also claim the GID dialled.
 *
 * <p>The private key is never shown: {@link #toString()} names the directory, the certificate's
 * subject and its SHA-256 fingerprint.
 *
 * <p>Thread safety: immutable; the SSL contexts are thread-safe.
 */
public final class TlsCredentials {

    private static final String TLS_1_3 = "TLSv1.3";

    private final Path directory;
    private final X509Certificate certificate;
    private final X509Certificate ca;
    private final SslContext dialling;
    private final SslContext accepting;

    private TlsCredentials(Path directory, X509Certificate certificate, PrivateKey key, X509Certificate ca) {
        this.directory = directory;
        this.certificate = certificate;
        this.ca = ca;
        try {
            // The dialler is the TLS server (it proves first); the accepting node the TLS client.
            this.dialling = SslContextBuilder.forServer(key, certificate)
                    .trustManager(ca)
                    .clientAuth(ClientAuth.REQUIRE)
                    .protocols(TLS_1_3)
                    .sslProvider(SslProvider.JDK)
                    .build();
            this.accepting = SslContextBuilder.forClient()
                    .keyManager(key, certificate)
                    .trustManager(ca)
                    .endpointIdentificationAlgorithm(null)
                    .protocols(TLS_1_3)
                    .sslProvider(SslProvider.JDK)
                    .build();
        } catch (SSLException e) {
            throw new IllegalArgumentException(
                    "cannot use the TLS credentials in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Loads the credentials in {@code directory}.
     *
     * @throws IllegalArgumentException naming the file, if a file is missing or unreadable, the
     *                                  certificate is not signed by the CA, is not valid now, or
     *                                  does not match the key
     */
    public static TlsCredentials load(Path directory) {
        Objects.requireNonNull(directory, "directory");
        List<X509Certificate> chain = Pem.readCertificates(directory.resolve(FabricPki.NODE_CERT));
        PrivateKey key = Pem.readPrivateKey(directory.resolve(FabricPki.NODE_KEY));
        X509Certificate ca =
                Pem.readCertificates(directory.resolve(FabricPki.CA_CERT)).get(0);
        X509Certificate cert = chain.get(0);
        try {
            cert.checkValidity();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(directory.resolve(FabricPki.NODE_CERT) + " is not valid now (valid "
                    + cert.getNotBefore() + " to " + cert.getNotAfter() + ")");
        }
        try {
            cert.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(directory.resolve(FabricPki.NODE_CERT) + " is not signed by the CA in "
                    + directory.resolve(FabricPki.CA_CERT));
        }
        if (!key.getAlgorithm().equals(cert.getPublicKey().getAlgorithm())) {
            throw new IllegalArgumentException(directory.resolve(FabricPki.NODE_KEY) + " is not the key of "
                    + directory.resolve(FabricPki.NODE_CERT));
        }
        return new TlsCredentials(directory, cert, key, ca);
    }

    /** The directory the credentials were loaded from. */
    public Path directory() {
        return directory;
    }

    /** The node's certificate. */
    public X509Certificate certificate() {
        return certificate;
    }

    /** The fabric CA's certificate. */
    public X509Certificate caCertificate() {
        return ca;
    }

    /** The SHA-256 fingerprint of the node's certificate, as colon-separated hex. */
    public String fingerprint() {
        return fingerprint(certificate);
    }

    /** True if the node's certificate names {@code address} (an IPv4 address it may listen on). */
    public boolean names(InetAddress address) {
        return addresses(certificate).contains(address);
    }

    /** The SHA-256 fingerprint of {@code c}, as colon-separated hex. */
    public static String fingerprint(X509Certificate c) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(c.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(d);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** The IPv4 addresses among {@code c}'s subject alternative names. */
    static List<InetAddress> addresses(X509Certificate c) {
        List<InetAddress> out = new ArrayList<>();
        try {
            Collection<List<?>> sans = c.getSubjectAlternativeNames();
            if (sans == null) {
                return out;
            }
            for (List<?> san : sans) {
                if (san.size() >= 2 && Integer.valueOf(7).equals(san.get(0)) && san.get(1) instanceof String ip) {
                    InetAddress a = InetAddress.getByName(ip); // a literal: no lookup
                    if (a instanceof Inet4Address) {
                        out.add(a);
                    }
                }
            }
        } catch (CertificateParsingException | UnknownHostException e) {
            return out;
        }
        return out;
    }

    /** A TLS handler for a connection this node dials (the TLS server). */
    SslHandler newDiallingHandler(ByteBufAllocator alloc) {
        return dialling.newHandler(alloc);
    }

    /** A TLS handler for a connection this node accepted (the TLS client). */
    SslHandler newAcceptingHandler(ByteBufAllocator alloc) {
        return accepting.newHandler(alloc);
    }

    @Override
    public String toString() {
        return "TlsCredentials[" + directory + ", "
                + certificate.getSubjectX500Principal().getName() + ", SHA-256 " + fingerprint() + "]";
    }
}
