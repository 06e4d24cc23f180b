package io.simrdma.fabric.internal.link;

import io.simrdma.fabric.AsyncEvent;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.TraceListener;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.sched.Scheduler;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric's trace: hands every packet event, QP state change, link state change and
 * asynchronous event to the {@link TraceListener}s, stamped with the fabric's clock. A listener
 * that throws is logged and skipped; it never disturbs the engine.
 *
 * <p>Thread safety: thread-safe. Listeners are called on the thread that owns the traced object
 * (a device's executor); adding and removing them copies the array, so tracing takes no lock.
 */
public final class Tracer {

    private static final Logger LOG = LoggerFactory.getLogger(Tracer.class);

    private final Scheduler scheduler;
    private volatile TraceListener[] listeners = new TraceListener[0];

    public Tracer(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Adds a listener. */
    public synchronized void add(TraceListener l) {
        Objects.requireNonNull(l, "listener");
        TraceListener[] n = Arrays.copyOf(listeners, listeners.length + 1);
        n[n.length - 1] = l;
        listeners = n;
    }

    /** Removes a listener added with {@link #add}. */
    public synchronized void remove(TraceListener l) {
        List<TraceListener> n = new ArrayList<>(Arrays.asList(listeners));
        n.remove(l);
        listeners = n.toArray(new TraceListener[0]);
    }

    /** True if anyone listens (so a caller can skip building what it would trace). */
    public boolean isActive() {
        return listeners.length != 0;
    }

    /**
     * Reports what happened to a packet ({@code to} is null for a device in another JVM, {@code from}
     * null for a packet arriving from one). Call it on the executor that owns the packet.
     */
    public void packet(PacketEvent e, DropReason reason, Device from, Device to, Packet p) {
        TraceListener[] ls = listeners;
        if (ls.length == 0) {
            return;
        }
        long t = scheduler.nanoTime();
        for (TraceListener l : ls) {
            try {
                l.onPacket(e, reason, t, from, to, p);
            } catch (RuntimeException ex) {
                LOG.error("trace listener {} failed", l, ex);
            }
        }
    }

    /** Reports a QP state change. */
    public void qpState(QueuePair qp, QpState from, QpState to) {
        for (TraceListener l : listeners) {
            try {
                l.onQpStateChange(scheduler.nanoTime(), qp, from, to);
            } catch (RuntimeException ex) {
                LOG.error("trace listener {} failed", l, ex);
            }
        }
    }

    /** Reports a link going up or down. */
    public void link(Link link, boolean up) {
        for (TraceListener l : listeners) {
            try {
                l.onLinkStateChange(scheduler.nanoTime(), link, up);
            } catch (RuntimeException ex) {
                LOG.error("trace listener {} failed", l, ex);
            }
        }
    }

    /**
     * Reports each rule of {@code decision} that fired on {@code p}, before the packet events they
     * cause. Call it on the executor that owns the packet.
     */
    public void faultRules(FaultInjector.Decision decision, Device from, Device to, Packet p) {
        TraceListener[] ls = listeners;
        if (ls.length == 0) {
            return;
        }
        long t = scheduler.nanoTime();
        for (int i = 0; i < decision.firedCount(); i++) {
            FaultRule rule = decision.fired(i);
            for (TraceListener l : ls) {
                try {
                    l.onFaultRule(t, rule, from, to, p);
                } catch (RuntimeException ex) {
                    LOG.error("trace listener {} failed", l, ex);
                }
            }
        }
    }

    /** Reports a work completion added to {@code cq}. Engine thread. */
    public void completion(CompletionQueue cq, int qpNum, long wrId, WcStatus status, WcOpcode opcode, int byteLen) {
        TraceListener[] ls = listeners;
        if (ls.length == 0) {
            return;
        }
        long t = scheduler.nanoTime();
        for (TraceListener l : ls) {
            try {
                l.onCompletion(t, cq, qpNum, wrId, status, opcode, byteLen);
            } catch (RuntimeException ex) {
                LOG.error("trace listener {} failed", l, ex);
            }
        }
    }

    /** Reports a state change of an object of a layer above verbs. Any thread. */
    public void stateChange(Device device, String object, String from, String to) {
        TraceListener[] ls = listeners;
        if (ls.length == 0) {
            return;
        }
        long t = scheduler.nanoTime();
        for (TraceListener l : ls) {
            try {
                l.onStateChange(t, device, object, from, to);
            } catch (RuntimeException ex) {
                LOG.error("trace listener {} failed", l, ex);
            }
        }
    }

    /** Reports an asynchronous event of {@code d}. */
    public void async(Device d, AsyncEvent e) {
        for (TraceListener l : listeners) {
            try {
                l.onAsyncEvent(scheduler.nanoTime(), d, e);
            } catch (RuntimeException ex) {
                LOG.error("trace listener {} failed", l, ex);
            }
        }
    }
}
