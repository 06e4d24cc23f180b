package io.simrdma.fabric.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One TCP connection of a node, the last handler of its pipeline: runs the handshake
 * ({@link Handshake}), then checks each packet the decoder delivers against the connection (its
 * GIDs, a QP number the device allocated) and hands it to the peer's {@link TcpLink}. Bad input
 * closes this connection only, with a logged reason and a counter; nothing else is disturbed.
 * <pre>
 *   socket --&gt; FlushConsolidationHandler --&gt; FrameDecoder ---------------------------&gt; Connection --&gt; TcpLink --&gt; Device
 *   socket &lt;-- FlushConsolidationHandler &lt;-- FrameEncoder &lt;-- FaultHandler &lt;-- TcpLink.transmit (Connection.write)
 * </pre>
 *
 * <p>Thread safety: confined to the channel's event loop (the device's executor), except
 * {@link #close}, which any thread may call.
 */
final class Connection extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    private enum State { OPENING, HELLO_WAIT, AUTH_WAIT, ESTABLISHED, CLOSED }

    private final TcpNode node;
    private final TcpLink dialled;
    private volatile Channel channel;
    private State state = State.OPENING;
    private byte[] nonce;
    private Handshake.Hello peer;
    private volatile TcpLink link;
    private ScheduledFuture<?> timeout;
    private volatile boolean closedHere;
    private boolean deliberate;
    private volatile String closeReason = "closed by the peer";

    /**
     * @param dialled the link this node dials for (an outbound connection), or null for an
     *                accepted one
     */
    Connection(TcpNode node, TcpLink dialled) {
        this.node = node;
        this.dialled = dialled;
    }

    boolean isOutbound() {
        return dialled != null;
    }

    /** The link this outbound connection was opened for; null for an accepted one. */
    TcpLink dialled() {
        return dialled;
    }

    /** The link the connection carries packets for, once the handshake completed; else null. */
    TcpLink link() {
        return link;
    }

    long peerIncarnation() {
        return peer.incarnation();
    }

    String peerName() {
        return peer != null ? peer.node() : "?";
    }

    SocketAddress remoteAddress() {
        Channel c = channel;
        return c == null ? (dialled != null ? dialled.remoteAddress() : null) : c.remoteAddress();
    }

    /** True if this side closed the connection (refusal, bad input, tie-break, disconnect). */
    boolean isClosedHere() {
        return closedHere;
    }

    /** True if closed on purpose (by the application, the tie-break or the node closing), not after a failure. */
    boolean isDeliberate() {
        return deliberate;
    }

    String closeReason() {
        return closeReason;
    }

    /** Called once the channel exists (before it is active). */
    void attach(Channel ch) {
        this.channel = ch;
    }

    Channel channel() {
        return channel;
    }

    // ------------------------------------------------------------------ handshake

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        if (!node.connectionOpened(this)) {
            return;
        }
        state = State.HELLO_WAIT;
        nonce = node.newNonce();
        ctx.writeAndFlush(new Handshake.Hello(Handshake.MAGIC, Handshake.VERSION, node.config().hasPreSharedKey(),
                node.gid(), node.incarnation(), nonce, node.fabric().name(), node.name()), ctx.voidPromise());
        timeout = ctx.executor().schedule(this::onTimeout, node.config().handshakeTimeoutNanos(), TimeUnit.NANOSECONDS);
    }

    private void onTimeout() {
        if (state == State.HELLO_WAIT || state == State.AUTH_WAIT) {
            refuse(HandshakeFailure.TIMEOUT, "no " + (state == State.HELLO_WAIT ? "HELLO" : "AUTH") + " within "
                    + TimeUnit.NANOSECONDS.toMillis(node.config().handshakeTimeoutNanos()) + " ms");
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Packet) {
            onPacket((Packet) msg);
        } else if (state == State.CLOSED || state == State.OPENING) {
            ReferenceCountUtil.release(msg);
        } else if (msg instanceof Handshake.Hello) {
            onHello((Handshake.Hello) msg);
        } else if (msg instanceof Handshake.Auth) {
            onAuth((Handshake.Auth) msg);
        } else if (msg instanceof Handshake.Refuse) {
            onRefuse((Handshake.Refuse) msg);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHello(Handshake.Hello h) {
        if (state != State.HELLO_WAIT) {
            badInput(FrameError.UNEXPECTED_FRAME, "HELLO in state " + state);
            return;
        }
        if (!h.compatible()) {
            refuse(HandshakeFailure.BAD_VERSION, h.magic() != Handshake.MAGIC
                    ? "not a simrdma peer (magic 0x" + Integer.toHexString(h.magic()) + ")"
                    : "protocol version " + h.version() + ", this node speaks " + Handshake.VERSION);
            return;
        }
        if (!node.fabric().name().equals(h.fabric())) {
            refuse(HandshakeFailure.WRONG_FABRIC, "peer " + h.node() + " is in fabric '" + h.fabric() + "', this node in '"
                    + node.fabric().name() + "'");
            return;
        }
        Gid g = h.gid();
        if (!TcpNode.isTcpGid(g) || g.equals(node.gid()) || (dialled != null && !g.equals(dialled.peer()))) {
            refuse(HandshakeFailure.WRONG_PEER, "peer " + h.node() + " claims GID " + g
                    + (dialled != null ? ", dialled " + dialled.peer() : ""));
            return;
        }
        boolean keyed = node.config().hasPreSharedKey();
        if (keyed != h.keyed()) {
            refuse(HandshakeFailure.MISSING_KEY, keyed ? "peer " + h.node() + " has no pre-shared key"
                    : "peer " + h.node() + " requires a pre-shared key this node does not have");
            return;
        }
        peer = h;
        if (keyed) {
            byte[] proof = Handshake.mac(node.config().preSharedKey(), node.gid(), g, h.nonce(), nonce, node.fabric().name());
            channel.writeAndFlush(new Handshake.Auth(proof), channel.voidPromise());
            state = State.AUTH_WAIT;
        } else {
            established();
        }
    }

    private void onAuth(Handshake.Auth a) {
        if (state != State.AUTH_WAIT) {
            badInput(FrameError.UNEXPECTED_FRAME, "AUTH in state " + state);
            return;
        }
        byte[] expected = Handshake.mac(node.config().preSharedKey(), peer.gid(), node.gid(), nonce, peer.nonce(),
                node.fabric().name());
        if (!Handshake.sameMac(expected, a.mac())) {
            refuse(HandshakeFailure.BAD_KEY, "peer " + peer.node() + " did not prove the pre-shared key");
            return;
        }
        established();
    }

    private void established() {
        state = State.ESTABLISHED;
        if (timeout != null) {
            timeout.cancel(false);
        }
        node.count(TcpCounter.HANDSHAKES_COMPLETED);
        TcpLink l = node.linkFor(peer.gid());
        if (l == null) {
            close("node closed");
            return;
        }
        link = l;
        l.established(this);
    }

    private void onRefuse(Handshake.Refuse r) {
        node.count(TcpCounter.REFUSED_BY_PEER);
        String why = r.reason() != null ? r.reason().name() : "code " + r.code();
        LOG.warn("{}: {} refused the handshake: {}", node.name(), describePeer(), why);
        node.event(new TcpEvent(TcpEvent.Type.REFUSED_BY_PEER, peerGid(), remoteAddress(), why));
        closeReason = "refused by the peer: " + why;
        closeNow();
    }

    /** Refuses the peer: counted, logged, a REFUSE frame sent, then the connection closes. */
    private void refuse(HandshakeFailure reason, String detail) {
        node.count(reason.counter());
        LOG.warn("{}: refused the handshake of {}: {} ({})", node.name(), describePeer(), reason, detail);
        node.event(new TcpEvent(TcpEvent.Type.REFUSED, peerGid(), remoteAddress(),
                reason.name() + ": " + detail));
        closeReason = "refused: " + reason;
        state = State.CLOSED;
        closedHere = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        channel.writeAndFlush(new Handshake.Refuse(reason.code(), reason)).addListener(ChannelFutureListener.CLOSE);
    }

    /** The peer's GID: the one its HELLO claimed, else the one dialled, else null. */
    private Gid peerGid() {
        return peer != null ? peer.gid() : dialled != null ? dialled.peer() : null;
    }

    // ------------------------------------------------------------------ packets

    private void onPacket(Packet p) {
        if (state != State.ESTABLISHED) {
            p.release();
            if (state != State.CLOSED && state != State.OPENING) {
                badInput(FrameError.UNEXPECTED_FRAME, "a packet before the handshake completed");
            }
            return;
        }
        if (!peer.gid().equals(p.sourceGid()) || !node.gid().equals(p.destinationGid())) {
            String what = "packet from " + p.sourceGid() + " to " + p.destinationGid() + " on the connection of "
                    + peer.gid() + " and " + node.gid();
            p.release();
            badInput(FrameError.WRONG_ADDRESS, what);
            return;
        }
        // A packet a fault corrupted on the way goes to the port, which drops it on its ICRC
        // check; its (possibly damaged) QP number proves nothing about the peer.
        boolean damaged = p.icrcPresent() && !p.icrcValid();
        if (!damaged && !node.deviceImpl().qpnEverAllocated(p.destQp())) {
            int qpn = p.destQp();
            p.release();
            badInput(FrameError.UNKNOWN_QP, "packet for QP " + qpn + ", which the device never allocated");
            return;
        }
        link.receive(p);
    }

    /** Writes a packet to the peer (takes ownership); the flush is coalesced per event-loop batch. */
    void write(Packet p) {
        Channel c = channel;
        c.writeAndFlush(p, c.voidPromise());
    }

    void packetWritten() {
        TcpLink l = link;
        if (l != null) {
            l.countWritten();
        }
    }

    // ------------------------------------------------------------------ errors and closing

    private void badInput(FrameError kind, String detail) {
        node.count(kind.counter());
        LOG.warn("{}: closing the connection with {}: {}", node.name(), describePeer(), detail);
        node.event(new TcpEvent(TcpEvent.Type.BAD_INPUT, peerGid(), remoteAddress(),
                kind.name() + ": " + detail));
        closeReason = "bad input: " + kind;
        closeNow();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FrameException bad = frameException(cause);
        if (bad != null) {
            if (!closedHere) {
                // also after channelInactive: a stream that ended inside a frame
                badInput(bad.kind(), bad.getMessage());
            }
            return;
        }
        if (cause instanceof IOException) {
            LOG.debug("{}: connection with {} failed: {}", node.name(), describePeer(), cause.toString());
            if (!closedHere) {
                closeReason = "I/O error: " + cause.getMessage();
            }
        } else {
            LOG.warn("{}: unexpected failure on the connection with {}; closing it", node.name(), describePeer(), cause);
            closeReason = "failure: " + cause;
            closedHere = true;
        }
        ctx.close();
    }

    private static FrameException frameException(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof FrameException) {
                return (FrameException) c;
            }
            if (!(c instanceof DecoderException)) {
                return null;
            }
        }
        return null;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        if (timeout != null) {
            timeout.cancel(false);
        }
        node.connectionClosed(this);
    }

    /** The connect attempt failed before the channel became active. Event loop. */
    void connectFailed(Throwable cause) {
        state = State.CLOSED;
        closeReason = "connect failed: " + cause.getMessage();
        node.connectionClosed(this);
    }

    /** Closes the connection on purpose (application, node closing). Any thread. */
    void close(String reason) {
        deliberate = true;
        closeReason = reason;
        closedHere = true;
        Channel c = channel;
        if (c != null) {
            c.close();
        }
    }

    /** Closes the losing connection of the tie-break. Event loop. */
    void closeAsDuplicate() {
        deliberate = true;
        closeReason = "duplicate connection";
        closeNow();
    }

    private void closeNow() {
        state = State.CLOSED;
        closedHere = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        channel.close();
    }

    private String describePeer() {
        Channel c = channel;
        String remote = c != null && c.remoteAddress() != null ? c.remoteAddress().toString() : "?";
        return peer != null ? peer.node() + " (" + remote + ")" : remote;
    }

    @Override
    public String toString() {
        return "Connection[" + node.name() + (isOutbound() ? " -> " : " <- ") + describePeer() + ", " + state + "]";
    }
}
