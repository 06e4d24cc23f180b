package io.simrdma.fabric.internal.cq;

import io.simrdma.fabric.AsyncEventType;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Scheduler;

/**
 * What completion queues and channels need from the device that owns them: its executor and
 * scheduler, its limits, the asynchronous event queue (CQ_ERR on overrun) and its resource table.
 *
 * <p>Implemented by the device; this layer names it only through this interface.
 */
public interface CqContext {

    /** The device as the application sees it. */
    Device device();

    /** The device's name, for messages. */
    String name();

    /** The executor that owns the device's state. */
    EngineExecutor executor();

    /** The fabric's scheduler: wait signals, and progress under the deterministic scheduler. */
    Scheduler scheduler();

    /** The device's limits. */
    DeviceAttributes attributes();

    /** How the device behaves where real devices differ. */
    DeviceProfile profile();

    /** Queues an asynchronous event (ibv_get_async_event(3)). Any thread. */
    void raiseAsync(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq);

    /** The fabric's observer (see {@link FabricObserver}), or null. Any thread. */
    FabricObserver observer();

    /**
     * Reports a completion added to {@code cq} to the fabric's trace listeners
     * ({@code TraceListener.onCompletion}). Engine thread; costs nothing without listeners.
     */
    void traceCompletion(CompletionQueue cq, int qpNum, long wrId, WcStatus status, WcOpcode opcode, int byteLen);

    /** Forgets a destroyed CQ. Engine thread. */
    void cqDestroyed(CqImpl cq);

    /** Forgets a destroyed channel. Engine thread. */
    void channelDestroyed(CompChannelImpl channel);
}
