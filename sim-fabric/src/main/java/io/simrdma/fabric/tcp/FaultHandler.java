package io.simrdma.fabric.tcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FaultGate;
import io.simrdma.fabric.internal.link.FaultInjector;
import io.simrdma.fabric.internal.link.HeldPackets;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Applies the fault rules of a {@link TcpLink} to the packets its connection writes, with the
 * same {@link FaultInjector} decisions as an in-process link: rewrite (the frame then carries a
 * fresh, correct ICRC over the new bytes), drop, duplicate, delay, reorder or hold until a time
 * (held back on the event loop), hold on a {@link FaultGate} (written when it opens), corrupt
 * (an ICRC attached, then one bit flipped, so the receiving port drops it). The index a
 * {@link io.simrdma.fabric.PacketMatcher} sees counts the packets that reached the peer's
 * connections, from 1. Injected packets pass by.
 *
 * <p>Packets held back when the connection closes are dropped (link down).
 *
 * <p>Thread safety: one instance per channel, used on its event loop.
 */
final class FaultHandler extends ChannelOutboundHandlerAdapter {

    private final Connection connection;
    private final Set<Delayed> held = new HashSet<>();
    private ChannelHandlerContext context;
    private HeldPackets gated;

    FaultHandler(Connection connection) {
        this.connection = connection;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        TcpLink link = connection.link();
        if (!(msg instanceof Packet) || link == null) {
            ctx.write(msg, promise);
            return;
        }
        Packet p = (Packet) msg;
        if (p.isBurst() && link.hasFaults()) {
            // A rule was added while the burst was on its way here: the rules see each packet.
            while (p.isBurst()) {
                write(ctx, p.splitFirst(), ctx.voidPromise());
            }
        }
        FaultInjector.Decision d = link.decide(p);
        if (d == null) {
            ctx.write(p, promise);
            return;
        }
        if (d.rewritten()) {
            link.countRewritten(p);
        }
        if (d.drop()) {
            link.dropOutbound(p, DropReason.FAULT);
            promise.trySuccess();
            return;
        }
        if (d.corrupt()) {
            FaultInjector.corrupt(p, link.random());
            link.countCorrupted(p);
        } else if (d.rewritten()) {
            FaultInjector.seal(p);
        }
        if (d.gate() != null) {
            Packet copy = d.duplicate() ? p.duplicate() : null;
            holdOnGate(ctx, link, d.gate(), p);
            if (copy != null) {
                link.countDuplicated(copy);
                holdOnGate(ctx, link, d.gate(), copy);
            }
            promise.trySuccess();
            return;
        }
        Packet copy = null;
        if (d.duplicate()) {
            copy = p.duplicate();
            link.countDuplicated(copy);
        }
        long delay = d.waitNanos();
        if (delay > 0) {
            if (d.extraDelayNanos() > 0) {
                link.countDelayed(p);
            }
            if (d.holdNanos() > 0) {
                link.countHeld(p);
            }
            hold(ctx, p, delay);
            if (copy != null) {
                hold(ctx, copy, delay);
            }
            promise.trySuccess();
            return;
        }
        ctx.write(p, promise);
        if (copy != null) {
            ctx.write(copy, ctx.voidPromise());
        }
    }

    private void holdOnGate(ChannelHandlerContext ctx, TcpLink link, FaultGate gate, Packet p) {
        link.countHeld(p);
        if (gated == null) {
            gated = new HeldPackets(
                    r -> {
                        try {
                            ctx.executor().execute(r);
                        } catch (RejectedExecutionException e) {
                            // The loop is gone; handlerRemoved dropped what was held.
                        }
                    },
                    this::releaseFromGate);
        }
        if (!gated.hold(gate, p)) {
            link.dropOutbound(p, DropReason.LINK_DOWN);
        }
    }

    /** A packet whose gate opened: written now, or dropped if the connection closed. Event loop. */
    private void releaseFromGate(Packet p) {
        TcpLink link = connection.link();
        if (link == null) {
            p.release();
            return;
        }
        if (!context.channel().isActive()) {
            link.dropOutbound(p, DropReason.LINK_DOWN);
            return;
        }
        link.traceReleased(p);
        context.write(p, context.voidPromise());
        context.flush();
    }

    private void hold(ChannelHandlerContext ctx, Packet p, long delayNanos) {
        Delayed d = new Delayed(p);
        held.add(d);
        d.future = ctx.executor().schedule(d, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    /** Drops the packets still held back (the connection closed). */
    void releaseHeld() {
        TcpLink link = connection.link();
        if (gated != null) {
            for (Packet p : gated.close()) {
                drop(link, p);
            }
        }
        if (held.isEmpty()) {
            return;
        }
        List<Delayed> all = new ArrayList<>(held);
        held.clear();
        for (Delayed d : all) {
            d.future.cancel(false);
            drop(link, d.packet);
        }
    }

    private static void drop(TcpLink link, Packet p) {
        if (link != null) {
            link.dropOutbound(p, DropReason.LINK_DOWN);
        } else {
            p.release();
        }
    }

    /** A packet held back by a DELAY, REORDER or HOLD-until-a-time rule. */
    private final class Delayed implements Runnable {
        final Packet packet;
        ScheduledFuture<?> future;

        Delayed(Packet packet) {
            this.packet = packet;
        }

        @Override
        public void run() {
            if (!held.remove(this)) {
                return;
            }
            TcpLink link = connection.link();
            if (!context.channel().isActive() && link != null) {
                link.dropOutbound(packet, DropReason.LINK_DOWN);
                return;
            }
            context.write(packet, context.voidPromise());
            context.flush();
        }

        @Override
        public String toString() {
            return "delayed " + packet;
        }
    }
}
