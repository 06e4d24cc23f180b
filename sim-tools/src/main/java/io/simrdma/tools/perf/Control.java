package io.simrdma.tools.perf;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * The control connection of a TCP run (perftest's out-of-band socket): one line of words per
 * message, each a command or a reply, written with {@link DataOutputStream#writeUTF}. A reply
 * {@code ERROR <text>} reports the peer's failure.
 *
 * <p>Thread safety: one thread uses a control connection.
 */
final class Control implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    Control(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /** Sends one message of {@code words}. */
    void send(Object... words) {
        StringBuilder b = new StringBuilder();
        for (Object w : words) {
            b.append(b.length() == 0 ? "" : " ").append(w);
        }
        try {
            out.writeUTF(b.toString());
            out.flush();
        } catch (IOException e) {
            throw new PerfFailure("control connection lost while sending: " + e.getMessage(), e);
        }
    }

    /** The next message's words; waits at most {@code timeoutMillis} (0: no limit). */
    String[] receive(int timeoutMillis) {
        try {
            socket.setSoTimeout(timeoutMillis);
            return in.readUTF().split(" ");
        } catch (SocketTimeoutException e) {
            throw new PerfFailure("the peer did not answer within " + timeoutMillis + " ms", e);
        } catch (IOException e) {
            throw new PerfFailure("control connection lost: " + e.getMessage(), e);
        }
    }

    /** The next message, which must start with {@code word}; an ERROR reply is the peer's failure. */
    String[] expect(String word, int timeoutMillis) {
        String[] m = receive(timeoutMillis);
        if (m[0].equals("ERROR")) {
            throw new PerfFailure("the peer failed: " + String.join(" ", m).substring(6));
        }
        if (!m[0].equals(word)) {
            throw new PerfFailure("expected " + word + " from the peer, got " + String.join(" ", m));
        }
        return m;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
