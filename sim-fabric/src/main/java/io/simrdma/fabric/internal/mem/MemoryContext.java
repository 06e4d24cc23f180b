package io.simrdma.fabric.internal.mem;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceAttributes;
import io.simrdma.fabric.DeviceProfile;
import io.simrdma.fabric.FabricObserver;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.SrqAttr;
import io.simrdma.fabric.sched.EngineExecutor;

/**
 * What the memory layer needs from the device that owns it: its executor, limits and memory
 * table, and the creation of the objects a protection domain makes but this layer does not
 * implement (queue pairs and shared receive queues live in the RC engine above it).
 *
 * <p>Implemented by the device; the layers below it name it only through this interface, so
 * that imports run one way (device, then engine, then memory).
 */
public interface MemoryContext {

    /** The device as the application sees it. */
    Device device();

    /** The device's name, for messages. */
    String name();

    /** The executor that owns the device's state; control operations run on it. */
    EngineExecutor executor();

    /** The device's limits. */
    DeviceAttributes attributes();

    /** How the device behaves where real devices differ. */
    DeviceProfile profile();

    /** Throws ENODEV once the device is closed. */
    void checkOpen();

    /** The device's memory keys, regions and windows. */
    MemoryTable memory();

    /** The fabric's observer (see {@link FabricObserver}), or null. Any thread. */
    FabricObserver observer();

    /** Creates a queue pair in {@code pd} (ibv_create_qp(3)). Engine thread. */
    QueuePair createQp(PdImpl pd, QpInitAttr attr);

    /** Creates an address handle of {@code pd} (ibv_create_ah(3)). Engine thread. */
    io.simrdma.fabric.AddressHandle createAh(PdImpl pd, io.simrdma.fabric.AhAttr attr);

    /** Creates a shared receive queue in {@code pd} (ibv_create_srq(3)). Engine thread. */
    SharedReceiveQueue createSrq(PdImpl pd, SrqAttr attr, Object context);

    /** Forgets a deallocated PD. Engine thread. */
    void pdDeallocated(PdImpl pd);
}
