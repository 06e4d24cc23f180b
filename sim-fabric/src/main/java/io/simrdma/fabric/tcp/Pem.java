package io.simrdma.fabric.tcp;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * PEM files (RFC 7468) of certificates and unencrypted PKCS#8 private keys, read and written with
 * the JDK alone. Errors name the file and never show its contents.
 *
 * <p>Thread safety: stateless.
 */
final class Pem {

    private static final String KEY_LABEL = "PRIVATE KEY";

    private Pem() {}

    /** The PEM text of one DER object, base64 in lines of 64 characters. */
    static String encode(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    /**
     * The certificates in a PEM file, in order.
     *
     * @throws IllegalArgumentException if the file is missing, unreadable or holds no certificate
     */
    static List<X509Certificate> readCertificates(Path file) {
        byte[] bytes = read(file);
        try {
            CertificateFactory f = CertificateFactory.getInstance("X.509");
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : f.generateCertificates(new ByteArrayInputStream(bytes))) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException(file + " holds no certificate");
            }
            return out;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(file + " is not a PEM certificate file", e);
        }
    }

    /**
     * The private key of an unencrypted PKCS#8 PEM file ("BEGIN PRIVATE KEY"), EC or RSA.
     *
     * @throws IllegalArgumentException if the file is missing, unreadable or holds no such key;
     *                                  the message never shows the file's contents
     */
    static PrivateKey readPrivateKey(Path file) {
        String text = new String(read(file), StandardCharsets.US_ASCII);
        String begin = "-----BEGIN " + KEY_LABEL + "-----";
        String end = "-----END " + KEY_LABEL + "-----";
        int b = text.indexOf(begin);
        int e = text.indexOf(end);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException(
                    file + " is not an unencrypted PKCS#8 private key (BEGIN " + KEY_LABEL + ")");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(b + begin.length(), e));
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(file + ": the private key is not valid base64");
        }
        for (String algorithm : new String[] {"EC", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException ex) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(file + " holds no EC or RSA private key the JDK can read");
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
        }
    }
}
