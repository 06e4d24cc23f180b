package io.simrdma.fabric.tcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A man in the middle on loopback, on plain blocking sockets: it forwards bytes between two TCP
 * connections, keeps a copy of everything it forwarded, and can flip one byte on the way. It
 * either splices two connections it dials itself ({@link #splice}), or listens and forwards each
 * connection it accepts to a target ({@link #listen}). Its threads end when both sides have
 * closed; {@link #close()} closes everything.
 */
final class Relay implements AutoCloseable {

    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final ByteArrayOutputStream seen = new ByteArrayOutputStream();
    private ServerSocket server;
    /** Flip the byte at this offset of the first direction's stream (-1: never). */
    private final long flipAt;

    private Relay(long flipAt) {
        this.flipAt = flipAt;
    }

    /** Dials {@code x} and {@code y} and forwards each one's bytes to the other. */
    static Relay splice(InetSocketAddress x, InetSocketAddress y) {
        Relay r = new Relay(-1);
        Socket a = r.dial(x);
        Socket b = r.dial(y);
        r.pump(a, b, -1);
        r.pump(b, a, -1);
        return r;
    }

    /**
     * Listens on a loopback port; each connection accepted is forwarded to {@code target}. With
     * {@code flipAt >= 0}, the byte at that offset of what the target sends back is inverted.
     */
    static Relay listen(InetSocketAddress target, long flipAt) {
        Relay r = new Relay(flipAt);
        try {
            r.server = new ServerSocket();
            r.server.bind(new InetSocketAddress("127.0.0.1", 0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread t = new Thread(
                () -> {
                    try {
                        while (true) {
                            Socket in = r.server.accept();
                            Socket out = r.dial(target);
                            synchronized (r.sockets) {
                                r.sockets.add(in);
                            }
                            r.pump(in, out, -1);
                            r.pump(out, in, flipAt);
                        }
                    } catch (IOException e) {
                        // closed
                    }
                },
                "relay-accept");
        t.setDaemon(true);
        t.start();
        r.threads.add(t);
        return r;
    }

    /** The relay's listen address as "127.0.0.1:port". */
    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    private Socket dial(InetSocketAddress to) {
        try {
            Socket s = new Socket();
            s.connect(to, 10_000);
            synchronized (sockets) {
                sockets.add(s);
            }
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void pump(Socket from, Socket to, long flip) {
        Thread t = new Thread(
                () -> {
                    long offset = 0;
                    byte[] buf = new byte[8192];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            if (flip >= offset && flip < offset + n) {
                                buf[(int) (flip - offset)] ^= (byte) 0xFF;
                            }
                            offset += n;
                            synchronized (seen) {
                                seen.write(buf, 0, n);
                            }
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // one side closed
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "relay-pump");
        t.setDaemon(true);
        t.start();
        synchronized (threads) {
            threads.add(t);
        }
    }

    /** True if the bytes the relay forwarded contain {@code text} (UTF-8). */
    boolean saw(String text) {
        byte[] all;
        synchronized (seen) {
            all = seen.toByteArray();
        }
        return new String(all, StandardCharsets.ISO_8859_1)
                .contains(new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
    }

    /** How many bytes the relay forwarded. */
    int forwarded() {
        synchronized (seen) {
            return seen.size();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
        synchronized (sockets) {
            sockets.forEach(Relay::closeQuietly);
        }
        List<Thread> all;
        synchronized (threads) {
            all = new ArrayList<>(threads);
        }
        for (Thread t : all) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
