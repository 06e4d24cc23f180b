package io.simrdma.provider;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.wire.Packet;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A SHA-256 digest of everything a fabric's trace reports: each packet event (time, what happened,
 * why it was dropped, sending and receiving device, the packet's header and payload bytes), each QP
 * state change, link change and async event, in order. Two runs with the same digest saw
 * byte-identical traces. Enabled by the IA-name option {@code traceDigest=true} and read through
 * dat_ia_query's provider-specific attribute {@value #ATTRIBUTE}; the conformance suite compares it
 * when it replays a seed on the deterministic fabric.
 *
 * <p>Thread safety: synchronized; under the threaded scheduler the order of events, and so the
 * digest, is not reproducible.
 */
final class TraceDigest implements TraceListener {

    /** The provider-specific attribute carrying the digest. */
    static final String ATTRIBUTE = "simrdma.trace.sha256";

    private final MessageDigest sha;
    private final byte[] header = new byte[Packet.MAX_HEADER_LENGTH];
    private byte[] payload = new byte[4096];
    private long events;

    TraceDigest() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from the JDK", e);
        }
    }

    @Override
    public synchronized void onPacket(
            PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
        text("P " + time + " " + event + " " + reason + " " + (from == null ? "-" : from.name()) + " "
                + (to == null ? "-" : to.name()) + " ");
        int h = packet.headerLength();
        packet.copyHeaderTo(header, 0);
        sha.update(header, 0, h);
        int n = packet.payloadLength();
        if (payload.length < n) {
            payload = new byte[n];
        }
        packet.copyPayload(0, payload, 0, n);
        sha.update(payload, 0, n);
        events++;
    }

    @Override
    public synchronized void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {
        text("Q " + time + " " + qp.device().name() + " " + qp.qpNum() + " " + from + " " + to);
    }

    @Override
    public synchronized void onLinkStateChange(long time, Link link, boolean up) {
        text("L " + time + " " + link.a().name() + " " + link.b().name() + " " + up);
    }

    @Override
    public synchronized void onAsyncEvent(long time, Device device, AsyncEvent event) {
        text("A " + time + " " + device.name() + " " + event.type());
    }

    private void text(String s) {
        sha.update(s.getBytes(StandardCharsets.UTF_8));
        events++;
    }

    /** The digest of the events so far (and their number), as hex. */
    synchronized String value() {
        try {
            MessageDigest copy = (MessageDigest) sha.clone();
            return HexFormat.of().formatHex(copy.digest()) + " (" + events + " events)";
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("SHA-256 digest cannot be cloned", e);
        }
    }
}
