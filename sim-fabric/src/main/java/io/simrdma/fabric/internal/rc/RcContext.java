package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.DropReason;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.internal.CounterSet;
import io.simrdma.fabric.internal.mem.MemoryTable;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.wire.Packet;

/**
 * What the RC engine needs from the device that owns its queue pairs: the executor they run on,
 * the port (transmit, MTU, drops), the memory table, the asynchronous event queue, the device's
 * counters and resource table. Like rxe's QP code calling back into its rxe_dev, the engine names
 * the device only through this interface, so imports run one way.
 *
 * <p>Implemented by the device. Methods marked "engine thread" run on {@link #executor()}.
 */
public interface RcContext {

    /** The device as the application sees it. */
    Device device();

    /** The device's name, for messages. */
    String name();

    /** The executor the device's engine runs on. */
    EngineExecutor executor();

    /** The device's limits. */
    DeviceAttributes attributes();

    /** How the device behaves where real devices differ. */
    DeviceProfile profile();

    /** Device-wide counters; a QP's counters add to them. */
    CounterSet counters();

    /** The device's memory keys, regions and windows. */
    MemoryTable memory();

    /** The port's active MTU: the largest path MTU a QP may use. */
    Mtu activeMtu();

    /** How many PSNs a requester may have sent and not yet seen acknowledged. */
    int maxUnackedPsns();

    /** Queues an asynchronous event (ibv_get_async_event(3)). Any thread. */
    void raiseAsync(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq);

    /** Sends a packet of {@code qp} out of the port, towards its destination. Engine thread; takes ownership. */
    void transmit(RcQueuePair qp, Packet p);

    /**
     * True if a burst of {@code qp}'s packets (a run of consecutive packets of one message, see
     * {@link Packet#burst}) sent now would travel to its destination as one unit. Engine thread.
     */
    boolean carriesBursts(RcQueuePair qp);

    /** Drops a received packet: counts it, traces it and releases it. Engine thread. */
    void drop(Packet p, DropReason reason, Counter counter);

    /** Reports a state change of {@code qp} to the trace and the device's listeners. Engine thread. */
    void qpStateChanged(RcQueuePair qp, QpState from, QpState to);

    /** The fabric's observer (see {@link FabricObserver}), or null. Any thread. */
    FabricObserver observer();

    /** Forgets a destroyed QP. Engine thread. */
    void qpDestroyed(RcQueuePair qp);

    /** Forgets a destroyed SRQ. Engine thread. */
    void srqDestroyed(SrqImpl srq);
}
