package io.simrdma.fabric.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Creates the credentials of a TLS fabric ({@code simrdma keygen} runs it): a fabric CA, and for
 * each node a key pair and a certificate the CA signs. Nodes trust each other through the CA
 * ({@link TlsCredentials}); a node's certificate names the IPv4 addresses it may listen on, and a
 * peer may claim only a GID whose address its certificate names.
 * <pre>
 *   CA directory:    ca.crt  (the fabric CA's certificate)   ca.key (its private key: keep it off the nodes)
 *   node directory:  node.crt (the node's certificate)       node.key (its private key, mode 0600)
 *                    ca.crt  (a copy of the CA certificate: the trust anchor)
 * </pre>
 * Keys are EC P-256, certificates are signed with SHA256withECDSA and written as PEM; private keys
 * are unencrypted PKCS#8 PEM files readable by their owner only (where the file system has POSIX
 * permissions). The certificates are built with BouncyCastle's bcpkix (an optional dependency of
 * sim-fabric: only this class needs it; the keys come from the JDK).
 *
 * <p>Thread safety: the static methods are thread-safe; two calls writing the same directory race.
 */
public final class FabricPki {

    /** The CA certificate's file name (in the CA directory and, as trust anchor, in each node's). */
    public static final String CA_CERT = "ca.crt";
    /** The CA private key's file name. */
    public static final String CA_KEY = "ca.key";
    /** A node certificate's file name. */
    public static final String NODE_CERT = "node.crt";
    /** A node private key's file name. */
    public static final String NODE_KEY = "node.key";
    /** Default validity of a CA certificate. */
    public static final Duration DEFAULT_CA_VALIDITY = Duration.ofDays(3650);
    /** Default validity of a node certificate. */
    public static final Duration DEFAULT_NODE_VALIDITY = Duration.ofDays(825);

    private static final String SIGNATURE = "SHA256withECDSA";
    private static final SecureRandom RANDOM = new SecureRandom();

    private FabricPki() {}

    /**
     * Creates a fabric CA in {@code dir} (created if needed): {@value #CA_CERT} and {@value #CA_KEY}.
     *
     * @return the CA certificate
     * @throws IllegalArgumentException if a file to write exists already, or the validity is not positive
     * @throws UncheckedIOException     if a file cannot be written (the message names it)
     */
    public static X509Certificate createCa(Path dir, String fabric, Duration validity) {
        Objects.requireNonNull(fabric, "fabric");
        checkValidity(validity);
        Path cert = dir.resolve(CA_CERT);
        Path key = dir.resolve(CA_KEY);
        refuseExisting(cert, key);
        KeyPair pair = newKeyPair();
        X500Name subject = name("simrdma fabric CA " + fabric);
        Instant now = Instant.now();
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                            subject,
                            serial(),
                            Date.from(now.minusSeconds(300)),
                            Date.from(now.plus(validity)),
                            subject,
                            pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
            X509Certificate c = sign(b, pair.getPrivate());
            mkdirs(dir);
            writeKey(key, pair.getPrivate());
            writeCertificates(cert, c);
            return c;
        } catch (CertIOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the CA certificate: " + e.getMessage(), e);
        }
    }

    /**
     * Creates a node's credentials in {@code dir} (created if needed): a key pair, a certificate
     * for {@code node} signed by the CA in {@code caDir} whose subject alternative names are
     * {@code addresses} (the IPv4 addresses the node may listen on), and a copy of the CA
     * certificate.
     *
     * @return the node certificate
     * @throws IllegalArgumentException if the CA files are missing or unreadable, a file to write
     *                                  exists already, no address or a non-IPv4 address is given,
     *                                  or the validity is not positive
     * @throws UncheckedIOException     if a file cannot be written (the message names it)
     */
    public static X509Certificate createNode(
            Path caDir, Path dir, String node, List<InetAddress> addresses, Duration validity) {
        Objects.requireNonNull(node, "node");
        checkValidity(validity);
        if (node.isEmpty()) {
            throw new IllegalArgumentException("a node name must not be empty");
        }
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException(
                    "a node certificate names at least one IPv4 address the node listens on");
        }
        for (InetAddress a : addresses) {
            if (!(a instanceof Inet4Address) || a.isAnyLocalAddress()) {
                throw new IllegalArgumentException("a node listens on one IPv4 address, not " + a.getHostAddress());
            }
        }
        X509Certificate ca = Pem.readCertificates(caDir.resolve(CA_CERT)).get(0);
        PrivateKey caKey = Pem.readPrivateKey(caDir.resolve(CA_KEY));
        Path cert = dir.resolve(NODE_CERT);
        Path key = dir.resolve(NODE_KEY);
        Path anchor = dir.resolve(CA_CERT);
        refuseExisting(cert, key, anchor);
        KeyPair pair = newKeyPair();
        Instant now = Instant.now();
        GeneralName[] sans = new GeneralName[addresses.size()];
        for (int i = 0; i < sans.length; i++) {
            sans[i] = new GeneralName(GeneralName.iPAddress, addresses.get(i).getHostAddress());
        }
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                            ca,
                            serial(),
                            Date.from(now.minusSeconds(300)),
                            Date.from(now.plus(validity)),
                            name(node),
                            pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(new KeyPurposeId[] {
                        KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth
                    }))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca));
            X509Certificate c = sign(b, caKey);
            c.verify(ca.getPublicKey());
            mkdirs(dir);
            writeKey(key, pair.getPrivate());
            writeCertificates(cert, c);
            writeCertificates(anchor, ca);
            return c;
        } catch (CertIOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the node certificate: " + e.getMessage(), e);
        }
    }

    private static void checkValidity(Duration validity) {
        if (validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("a certificate's validity must be positive, not " + validity);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot generate EC P-256 keys", e);
        }
    }

    private static X500Name name(String commonName) {
        return new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "simrdma")
                .addRDN(BCStyle.CN, commonName)
                .build();
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer) throws GeneralSecurityException {
        try {
            ContentSigner s = new JcaContentSignerBuilder(SIGNATURE).build(signer);
            return new JcaX509CertificateConverter().getCertificate(b.build(s));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static void refuseExisting(Path... files) {
        for (Path f : files) {
            if (Files.exists(f)) {
                throw new IllegalArgumentException(f + " exists already; remove it or choose another directory");
            }
        }
    }

    private static void mkdirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void writeKey(Path file, PrivateKey key) {
        try {
            try {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(file);
            }
            Files.writeString(
                    file,
                    Pem.encode("PRIVATE KEY", key.getEncoded()),
                    StandardCharsets.US_ASCII,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalArgumentException(file + " exists already; remove it or choose another directory", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static void writeCertificates(Path file, X509Certificate c) throws GeneralSecurityException {
        try {
            Files.writeString(
                    file,
                    Pem.encode("CERTIFICATE", c.getEncoded()),
                    StandardCharsets.US_ASCII,
                    StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalArgumentException(file + " exists already; remove it or choose another directory", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
