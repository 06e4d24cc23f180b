package io.simrdma.fabric.internal.ucud;

import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.internal.CounterSet;
import io.simrdma.fabric.internal.link.PacketRoute;
import io.simrdma.fabric.internal.mem.MemoryTable;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;

/**
 * What UC and UD queue pairs need from the device that owns them, as {@code rc.RcContext} is for
 * RC: the executor, limits, profile, memory, port. Implemented by the device.
 *
 * <p>Methods marked "engine thread" run on {@link #executor()}.
 */
public interface UnreliableContext {

    Device device();

    String name();

    EngineExecutor executor();

    DeviceAttributes attributes();

    DeviceProfile profile();

    CounterSet counters();

    MemoryTable memory();

    /** The port's active MTU: the largest UD message, the largest UC path MTU. */
    Mtu activeMtu();

    /** The port's GID (the source GID of a GRH). */
    Gid gid();

    /** Queues an asynchronous event. Any thread. */
    void raiseAsync(AsyncEventType type, QueuePair qp);

    /** The route toward {@code destination} now, or null if none; callers cache it. Engine thread. */
    PacketRoute route(Gid destination);

    /**
     * Sends a packet to {@code destination} over {@code route} (null: dropped, no route). Engine
     * thread; takes ownership.
     */
    void transmit(Packet p, Gid destination, PacketRoute route);

    /** Drops a received packet: counts it, traces it and releases it. Engine thread. */
    void drop(Packet p, DropReason reason, Counter counter);

    /** Reports a state change. Engine thread. */
    void qpStateChanged(QueuePair qp, QpState from, QpState to);

    /** The fabric's observer (see {@link io.simrdma.fabric.FabricObserver}), or null. Any thread. */
    io.simrdma.fabric.FabricObserver observer();

    /** Forgets a destroyed QP. Engine thread. */
    void qpDestroyed(UnreliableQueuePair qp);
}
