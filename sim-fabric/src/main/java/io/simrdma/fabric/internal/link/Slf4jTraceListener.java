package io.simrdma.fabric.internal.link;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.wire.Packet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a fabric's trace at debug level, one line per event, under the logger
 * {@code io.simrdma.fabric.trace}. A fabric installs one when that logger is debug-enabled.
 *
 * <p>Thread safety: stateless.
 */
public final class Slf4jTraceListener implements TraceListener {

    public static final Logger LOG = LoggerFactory.getLogger("io.simrdma.fabric.trace");

    @Override
    public void onPacket(PacketEvent event, DropReason reason, long time, Device from, Device to, Packet packet) {
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "{} {}->{} {}{} {}",
                    micros(time),
                    from == null ? "?" : from.name(),
                    to == null ? "?" : to.name(),
                    event,
                    reason == null ? "" : "(" + reason + ")",
                    packet);
        }
    }

    @Override
    public void onQpStateChange(long time, QueuePair qp, QpState from, QpState to) {
        LOG.debug("{} {} qp {}: {} -> {}", micros(time), qp.device().name(), qp.qpNum(), from, to);
    }

    @Override
    public void onLinkStateChange(long time, Link link, boolean up) {
        LOG.debug("{} link {} {}", micros(time), link, up ? "up" : "down");
    }

    @Override
    public void onAsyncEvent(long time, Device device, AsyncEvent event) {
        LOG.debug("{} {} {}", micros(time), device.name(), event);
    }

    @Override
    public void onFaultRule(long time, FaultRule rule, Device from, Device to, Packet packet) {
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "{} {}->{} fault {} on {}",
                    micros(time),
                    from == null ? "?" : from.name(),
                    to == null ? "?" : to.name(),
                    rule.label(),
                    packet);
        }
    }

    @Override
    public void onStateChange(long time, Device device, String object, String from, String to) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} {} {}: {} -> {}", micros(time), device.name(), object, from, to);
        }
    }

    private static String micros(long nanos) {
        return String.format("%.3fus", nanos / 1000.0);
    }
}
