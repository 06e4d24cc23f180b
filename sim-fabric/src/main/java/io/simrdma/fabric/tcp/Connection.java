package io.simrdma.fabric.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection of a node, the last handler of its pipeline: waits for TLS (on a TLS node),
 * runs the HELLO exchange ({@link Handshake}), checks that the peer is who it claims to be, then
 * checks each packet the decoder delivers against the connection (its GIDs, a QP number the device
 * allocated) and hands it to the peer's {@link TcpLink}. Bad input closes this connection only,
 * with a logged reason and a counter; nothing else is disturbed.
 * <pre>
 *   socket --&gt; [SslHandler] --&gt; FlushConsolidationHandler --&gt; FrameDecoder -----------------&gt; Connection --&gt; TcpLink --&gt; Device
 *   socket &lt;-- [SslHandler] &lt;-- FlushConsolidationHandler &lt;-- FrameEncoder &lt;-- FaultHandler &lt;-- TcpLink.transmit (Connection.write)
 * </pre>
 *
 * <p><b>Who the peer is.</b> A peer's HELLO claims a GID; the connection accepts the claim if
 * <ul>
 *   <li>on a TLS node: the peer's certificate (which TLS has checked against the fabric CA) names
 *       the claimed GID's IPv4 address;</li>
 *   <li>on a plain node: for a connection this node dialled, the GID is the one dialled (the
 *       address proved it); for an accepted one, the GID's address is the connection's source
 *       address (any loopback address for a loopback source). An accepted plain connection only
 *       ever carries packets <em>from</em> the peer: its claim is not proof, so this node sends the
 *       peer's packets over a connection it dials itself ({@link TcpLink}).</li>
 * </ul>
 *
 * <p><b>Bounds.</b> The handshake must complete within the handshake timeout; the node's
 * housekeeping ({@link #checkTimers}) closes a connection whose started frame stops arriving or
 * that carries nothing for the idle timeout.
 *
 * <p>Thread safety: confined to the channel's event loop (the device's executor), except
 * {@link #close}, which any thread may call.
 */
final class Connection extends ChannelInboundHandlerAdapter implements FrameEncoder.Peer {

    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    private enum State {
        OPENING,
        TLS,
        HELLO_WAIT,
        ESTABLISHED,
        CLOSED
    }

    private final TcpNode node;
    private final TcpLink dialled;
    private volatile Channel channel;
    private State state = State.OPENING;
    private Handshake.Hello peer;
    private X509Certificate peerCertificate;
    private volatile TcpLink link;
    private boolean receiveOnly;
    private ScheduledFuture<?> timeout;
    private volatile boolean closedHere;
    private boolean deliberate;
    private boolean handshaking;
    private HandshakeFailure refusal;
    private volatile String closeReason = "closed by the peer";
    private FrameDecoder decoder;
    // ---- housekeeping (event loop)
    private long activity;
    private long activitySeen;
    private long activeSinceNanos = System.nanoTime();

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

    /** True for an accepted plain connection: it delivers the peer's packets but never carries this node's. */
    boolean isReceiveOnly() {
        return receiveOnly;
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

    /** Why the handshake failed, if it was refused (by either side); else null. */
    HandshakeFailure refusal() {
        return refusal;
    }

    String closeReason() {
        return closeReason;
    }

    /** Called once the channel exists (before it is active). */
    void attach(Channel ch, FrameDecoder frameDecoder) {
        this.channel = ch;
        this.decoder = frameDecoder;
        this.handshaking = dialled == null;
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
        timeout = ctx.executor().schedule(this::onTimeout, node.config().handshakeTimeoutNanos(), TimeUnit.NANOSECONDS);
        if (node.config().isTls()) {
            state = State.TLS; // the SslHandler runs; userEventTriggered tells how it ended
        } else {
            sendHello();
        }
    }

    private void sendHello() {
        state = State.HELLO_WAIT;
        channel.writeAndFlush(
                new Handshake.Hello(
                        Handshake.MAGIC,
                        Handshake.VERSION,
                        node.config().isTls(),
                        node.config().maxFrameLength(),
                        node.gid(),
                        node.incarnation(),
                        node.newNonce(),
                        node.fabric().name(),
                        node.name()),
                channel.voidPromise());
    }

    private void onTimeout() {
        if (state == State.TLS || state == State.HELLO_WAIT) {
            refuse(
                    HandshakeFailure.TIMEOUT,
                    "no " + (state == State.TLS ? "TLS handshake" : "HELLO") + " within "
                            + TimeUnit.NANOSECONDS.toMillis(node.config().handshakeTimeoutNanos()) + " ms");
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent e) {
            if (state != State.TLS) {
                return;
            }
            if (e.isSuccess()) {
                try {
                    Certificate[] chain = ctx.pipeline()
                            .get(SslHandler.class)
                            .engine()
                            .getSession()
                            .getPeerCertificates();
                    peerCertificate = (X509Certificate) chain[0];
                } catch (SSLPeerUnverifiedException | ClassCastException ex) {
                    refuse(HandshakeFailure.UNTRUSTED, "the peer presented no X.509 certificate");
                    return;
                }
                sendHello();
            } else {
                tlsFailed(e.cause());
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** The TLS handshake failed: the peer is not TLS, or one side does not trust the other. */
    private void tlsFailed(Throwable cause) {
        if (state == State.CLOSED) {
            return;
        }
        Throwable c = unwrap(cause);
        if (c instanceof NotSslRecordException) {
            refuse(HandshakeFailure.NO_TLS, "the peer does not speak TLS (it has no TLS credentials)");
        } else if (c instanceof SSLException && String.valueOf(c.getMessage()).contains("Received fatal alert")) {
            // the peer's TLS refused us (its alert): it does not trust our certificate
            refusedByPeer(HandshakeFailure.UNTRUSTED, c.getMessage());
        } else if (c instanceof SSLException) {
            refuse(HandshakeFailure.UNTRUSTED, "TLS handshake failed: " + c.getMessage());
        } else if (c instanceof IOException) {
            closeReason = "I/O error during the TLS handshake: " + c.getMessage();
            closeNow();
        } else {
            refuse(HandshakeFailure.UNTRUSTED, "TLS handshake failed: " + c);
        }
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while (c instanceof DecoderException && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        activity++;
        if (msg instanceof Packet) {
            onPacket((Packet) msg);
        } else if (state != State.HELLO_WAIT && state != State.ESTABLISHED) {
            ReferenceCountUtil.release(msg);
        } else if (msg instanceof Handshake.Hello) {
            onHello((Handshake.Hello) msg);
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
            refuse(
                    HandshakeFailure.BAD_VERSION,
                    h.magic() != Handshake.MAGIC
                            ? "not a simrdma peer (magic 0x" + Integer.toHexString(h.magic()) + ")"
                            : "protocol version " + h.version() + ", this node speaks " + Handshake.VERSION);
            return;
        }
        if (!node.fabric().name().equals(h.fabric())) {
            refuse(
                    HandshakeFailure.WRONG_FABRIC,
                    "peer " + h.node() + " is in fabric '" + h.fabric() + "', this node in '"
                            + node.fabric().name() + "'");
            return;
        }
        Gid g = h.gid();
        if (!TcpNode.isTcpGid(g) || g.equals(node.gid()) || (dialled != null && !g.equals(dialled.peer()))) {
            refuse(
                    HandshakeFailure.WRONG_PEER,
                    "peer " + h.node() + " claims GID " + g + (dialled != null ? ", dialled " + dialled.peer() : ""));
            return;
        }
        if (h.tls() != node.config().isTls()) {
            refuse(HandshakeFailure.NO_TLS, "peer " + h.node() + (h.tls() ? " runs TLS" : " runs plain TCP"));
            return;
        }
        InetAddress claimed = TcpNode.addressOf(g).getAddress();
        if (peerCertificate != null) {
            if (!TlsCredentials.addresses(peerCertificate).contains(claimed)) {
                refuse(
                        HandshakeFailure.WRONG_PEER,
                        "peer " + h.node() + " claims GID " + g + " but its certificate ("
                                + peerCertificate.getSubjectX500Principal().getName() + ") names "
                                + TlsCredentials.addresses(peerCertificate) + ", not " + claimed.getHostAddress());
                return;
            }
        } else if (dialled == null && !sameHost(claimed)) {
            refuse(HandshakeFailure.WRONG_PEER, "peer " + h.node() + " claims GID " + g + " from " + remoteAddress());
            return;
        }
        peer = h;
        established();
    }

    /** A plain accepted connection's claim: the claimed address is the source address (loopback for loopback). */
    private boolean sameHost(InetAddress claimed) {
        SocketAddress r = channel.remoteAddress();
        if (!(r instanceof InetSocketAddress)) {
            return false;
        }
        InetAddress source = ((InetSocketAddress) r).getAddress();
        return source != null
                && (source.equals(claimed) || (source.isLoopbackAddress() && claimed.isLoopbackAddress()));
    }

    private void established() {
        state = State.ESTABLISHED;
        handshakeEnded();
        node.count(TcpCounter.HANDSHAKES_COMPLETED);
        TcpLink l = node.linkFor(peer.gid());
        if (l == null) {
            close("node closed");
            return;
        }
        link = l;
        if (dialled == null && !node.config().isTls()) {
            receiveOnly = true;
            l.inboundEstablished(this);
        } else {
            l.established(this);
        }
    }

    private void handshakeEnded() {
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (handshaking) {
            handshaking = false;
            node.handshakeEnded(this);
        }
    }

    private void onRefuse(Handshake.Refuse r) {
        String why = r.reason() != null ? r.reason().name() : "code " + r.code();
        refusedByPeer(r.reason(), why);
    }

    /** The peer refused our handshake (a REFUSE frame, or a TLS alert). */
    private void refusedByPeer(HandshakeFailure reason, String why) {
        node.count(TcpCounter.REFUSED_BY_PEER);
        refusal = reason;
        node.logRefusal(true, describePeer(), why);
        node.event(new TcpEvent(TcpEvent.Type.REFUSED_BY_PEER, peerGid(), remoteAddress(), why));
        closeReason = "refused by the peer: " + why;
        closeNow();
    }

    /** Refuses the peer: counted, logged (rate-limited), a REFUSE frame sent where possible, then the connection closes. */
    private void refuse(HandshakeFailure reason, String detail) {
        node.count(reason.counter());
        refusal = reason;
        node.logRefusal(false, describePeer(), reason + " (" + detail + ")");
        node.event(new TcpEvent(TcpEvent.Type.REFUSED, peerGid(), remoteAddress(), reason.name() + ": " + detail));
        closeReason = "refused: " + reason;
        // a REFUSE frame reaches a peer that reads frames: not before TLS, not a peer of the other kind
        boolean canTell = state == State.HELLO_WAIT && reason != HandshakeFailure.NO_TLS;
        state = State.CLOSED;
        closedHere = true;
        handshakeEnded();
        if (canTell && channel.isActive()) {
            channel.writeAndFlush(new Handshake.Refuse(reason.code(), reason)).addListener(ChannelFutureListener.CLOSE);
        } else {
            channel.close();
        }
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
        activity++;
        Channel c = channel;
        c.writeAndFlush(p, c.voidPromise());
    }

    @Override
    public void packetWritten(int packets) {
        TcpLink l = link;
        if (l != null) {
            l.countWritten(packets);
        }
    }

    /**
     * How many packets of {@code mtu} bytes one BURST frame to the peer may carry: what the
     * longest frame its HELLO accepts holds (at most a run's u16 count); below 2 the peer gets
     * packets one by one. Event loop.
     */
    @Override
    public int burstLimit(int mtu) {
        Handshake.Hello h = peer;
        if (h == null || mtu <= 0) {
            return 1;
        }
        long room = (long) h.maxFrameLength() - PacketCodec.burstBodyLength(0, mtu);
        return (int) Math.max(1, Math.min(0xFFFF, room / mtu));
    }

    // ------------------------------------------------------------------ housekeeping

    /**
     * Closes the connection if a started frame has not arrived in full within the frame timeout,
     * or if nothing was read or written for the idle timeout. Called by the node's housekeeping
     * on the event loop.
     */
    void checkTimers(long now) {
        if (state == State.CLOSED || state == State.OPENING) {
            return;
        }
        if (activity != activitySeen) {
            activitySeen = activity;
            activeSinceNanos = now;
        }
        FrameDecoder d = decoder;
        if (d != null
                && d.hasPartialFrame()
                && now - d.lastReadNanos() > node.config().frameTimeoutNanos()) {
            node.count(TcpCounter.CLOSED_FRAME_TIMEOUT);
            node.logClosed(
                    describePeer(),
                    "a frame stopped arriving: nothing more for "
                            + TimeUnit.NANOSECONDS.toMillis(node.config().frameTimeoutNanos()) + " ms");
            closeReason = "frame timeout";
            closeNow();
            return;
        }
        if (state == State.ESTABLISHED && now - activeSinceNanos > node.config().idleTimeoutNanos()) {
            node.count(TcpCounter.CLOSED_IDLE);
            LOG.debug(
                    "{}: closing the connection with {}: idle for {} ms",
                    node.name(),
                    describePeer(),
                    TimeUnit.NANOSECONDS.toMillis(now - activeSinceNanos));
            deliberate = true;
            closeReason = "idle";
            closeNow();
        }
    }

    // ------------------------------------------------------------------ errors and closing

    private void badInput(FrameError kind, String detail) {
        node.count(kind.counter());
        node.logClosed(describePeer(), detail);
        node.event(new TcpEvent(TcpEvent.Type.BAD_INPUT, peerGid(), remoteAddress(), kind.name() + ": " + detail));
        closeReason = "bad input: " + kind;
        closeNow();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = unwrap(cause);
        if (c instanceof FrameDecoder.PeerSpeaksTls) {
            if (state != State.CLOSED) {
                refuse(HandshakeFailure.NO_TLS, c.getMessage());
            }
            return;
        }
        if (state == State.TLS && (c instanceof SSLException || c instanceof NotSslRecordException)) {
            tlsFailed(c);
            return;
        }
        FrameException bad = frameException(cause);
        if (bad != null) {
            if (!closedHere) {
                // also after channelInactive: a stream that ended inside a frame
                badInput(bad.kind(), bad.getMessage());
            }
            return;
        }
        if (c instanceof IOException) {
            LOG.debug("{}: connection with {} failed: {}", node.name(), describePeer(), c.toString());
            if (!closedHere) {
                closeReason = "I/O error: " + c.getMessage();
            }
        } else if (closedHere) {
            LOG.debug("{}: after closing the connection with {}: {}", node.name(), describePeer(), c.toString());
        } else {
            LOG.warn(
                    "{}: unexpected failure on the connection with {}; closing it", node.name(), describePeer(), cause);
            closeReason = "failure: " + c;
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
        handshakeEnded();
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
        handshakeEnded();
        channel.close();
    }

    private String describePeer() {
        Channel c = channel;
        String remote =
                c != null && c.remoteAddress() != null ? c.remoteAddress().toString() : "?";
        return peer != null ? peer.node() + " (" + remote + ")" : remote;
    }

    @Override
    public String toString() {
        return "Connection[" + node.name() + (isOutbound() ? " -> " : " <- ") + describePeer() + ", " + state + "]";
    }
}
