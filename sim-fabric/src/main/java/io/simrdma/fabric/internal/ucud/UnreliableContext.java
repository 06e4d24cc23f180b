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

    /** Sends a packet of {@code qp} to {@code destination}. Engine thread; takes ownership. */
    void transmit(UnreliableQueuePair qp, Packet p, Gid destination);

    /** Drops a received packet: counts it, traces it and releases it. Engine thread. */
    void drop(Packet p, DropReason reason, Counter counter);

    /** Reports a state change. Engine thread. */
    void qpStateChanged(QueuePair qp, QpState from, QpState to);

    /** Forgets a destroyed QP. Engine thread. */
    void qpDestroyed(UnreliableQueuePair qp);
}
