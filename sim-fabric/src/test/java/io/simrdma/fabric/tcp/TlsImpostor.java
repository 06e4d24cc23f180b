package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBufAllocator;
import io.simrdma.fabric.wire.Gid;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A party that dials a TLS node with some certificate (its own CA's, or the fabric's for another
 * address), trusts whatever the node shows, and claims a GID of its choice in its HELLO. Blocking,
 * on the JDK's SSLSocket (as the dialler, the TLS server).
 */
final class TlsImpostor {

    /**
     * What happened: the TLS failure (null if TLS completed), the frames the node sent until it
     * closed, and whether the node (the TLS client) ever showed its certificate.
     */
    record Outcome(SSLException tlsFailure, List<byte[]> frames, boolean nodeShowedCertificate) {}

    private TlsImpostor() {}

    static Outcome claim(TcpNode target, TlsCredentials credentials, Gid claimed) {
        try (Socket plain = new Socket()) {
            plain.setSoTimeout((int) (RcEnd.WAIT_SECONDS * 1000));
            plain.connect(target.listenAddress(), (int) (RcEnd.WAIT_SECONDS * 1000));
            boolean[] shown = new boolean[1];
            SSLSocket tls = (SSLSocket) context(credentials, shown)
                    .getSocketFactory()
                    .createSocket(
                            plain,
                            target.listenAddress().getHostString(),
                            target.listenAddress().getPort(),
                            true);
            tls.setUseClientMode(false);
            tls.setNeedClientAuth(true);
            tls.setEnabledProtocols(new String[] {"TLSv1.3"});
            try {
                tls.startHandshake();
                tls.getOutputStream()
                        .write(Frames.bytes(Handshake.encode(
                                Frames.hello(TcpPair.FABRIC, claimed, true), ByteBufAllocator.DEFAULT)));
                tls.getOutputStream().flush();
                return new Outcome(null, readUntilClosed(tls.getInputStream()), shown[0]);
            } catch (SSLException e) {
                return new Outcome(e, List.of(), shown[0]);
            }
        } catch (IOException | GeneralSecurityException e) {
            throw new AssertionError("the impostor could not even try: " + e, e);
        }
    }

    private static SSLContext context(TlsCredentials c, boolean[] shown) throws GeneralSecurityException, IOException {
        char[] pw = "x".toCharArray();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry(
                "node", Pem.readPrivateKey(c.directory().resolve(FabricPki.NODE_KEY)), pw, new X509Certificate[] {
                    c.certificate()
                });
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, pw);
        TrustManager trustAll = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
                shown[0] = chain != null && chain.length > 0;
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext ctx = SSLContext.getInstance("TLSv1.3");
        ctx.init(kmf.getKeyManagers(), new TrustManager[] {trustAll}, null);
        return ctx;
    }

    private static List<byte[]> readUntilClosed(InputStream in) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try {
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) >= 0) {
                all.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the node did not close the connection within " + RcEnd.WAIT_SECONDS + " s", e);
        } catch (IOException e) {
            // a reset or an alert also ends it
        }
        ByteBuffer b = ByteBuffer.wrap(all.toByteArray());
        List<byte[]> frames = new ArrayList<>();
        while (b.remaining() >= 4) {
            int len = b.getInt();
            byte[] body = new byte[Math.min(len, b.remaining())];
            b.get(body);
            frames.add(body);
        }
        return frames;
    }
}
