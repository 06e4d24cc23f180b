package io.simrdma.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A hand-driven peer on a plain blocking socket, for feeding a node bytes no real node sends.
 * Reads wait at most {@link RcEnd#WAIT_SECONDS}.
 */
final class RawPeer implements AutoCloseable {

    final Socket socket;
    final Gid gid;

    RawPeer(TcpNode node) {
        try {
            socket = new Socket();
            socket.setSoTimeout((int) (RcEnd.WAIT_SECONDS * 1000));
            socket.connect(node.listenAddress(), (int) (RcEnd.WAIT_SECONDS * 1000));
            gid = TcpNode.gidOf(new InetSocketAddress("127.0.0.1", socket.getLocalPort()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    RawPeer send(byte[] bytes) {
        try {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    RawPeer send(ByteBuf frame) {
        return send(Frames.bytes(frame));
    }

    /** Sends a HELLO of this protocol version from this peer's GID (no key). */
    RawPeer hello(String fabric) {
        return send(Handshake.encode(Frames.hello(fabric, gid, false), ByteBufAllocator.DEFAULT));
    }

    /** Sends a packet from {@code source} to {@code node}'s QP {@code qpn}. */
    RawPeer packet(Gid source, TcpNode node, int qpn) {
        Packet p = Packet.allocate(io.simrdma.fabric.wire.Opcode.RC_SEND_ONLY)
                .destQp(qpn)
                .psn(1)
                .pkey(0xFFFF)
                .route(source, node.gid())
                .addSegment(ByteBuffer.allocate(8), 0, 8)
                .updatePadCount();
        return send(Frames.encode(p));
    }

    /** Connects to {@code node} without sending anything. */
    static RawPeer idle(TcpNode node) {
        return new RawPeer(node);
    }

    /** The next frame the node sends (type byte first), waiting at most {@link RcEnd#WAIT_SECONDS}; null if it closed. */
    byte[] readFrame() {
        try {
            java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
            int len = in.readInt();
            byte[] body = new byte[len];
            in.readFully(body);
            return body;
        } catch (java.io.EOFException e) {
            return null;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the node sent no frame within " + RcEnd.WAIT_SECONDS + " s", e);
        } catch (IOException e) {
            return null;
        }
    }

    /** Everything the node sends until it closes the connection, as frames (type byte first). */
    List<byte[]> readUntilClosed() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try {
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) >= 0) {
                all.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the node did not close the connection within " + RcEnd.WAIT_SECONDS + " s", e);
        } catch (IOException e) {
            // a reset also ends the connection
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

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
