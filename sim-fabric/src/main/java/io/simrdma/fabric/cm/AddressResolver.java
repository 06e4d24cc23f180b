package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.Mtu;
import io.simrdma.fabric.PortState;
import io.simrdma.fabric.sched.Task;
import io.simrdma.fabric.wire.Gid;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Address and route resolution (rdma_resolve_addr(3), rdma_resolve_route(3)) on one device. A
 * query completes soon after the call if the device's port is active, else when the port becomes
 * active; if that does not happen within the call's timeout_ms, the query fails with ADDR_ERROR
 * or ROUTE_ERROR and the id goes back to its state before the call. The route's path MTU is the
 * smaller of the two ports' active MTUs when the destination is a device of this fabric. Like
 * IB's path resolution, neither query probes the destination.
 *
 * <p>Thread safety: thread-safe. Queries start on the application's thread; they complete, time
 * out or are cancelled on the device executor, as scheduled tasks, so the event always follows
 * the call's return. A query is identified by a token, so a late timeout of an earlier query of
 * the same id does nothing.
 *
 * <p>Who calls it: {@link CmAgent}, for {@link CmId#resolveAddr} and {@link CmId#resolveRoute}, for
 * the device's PORT_ACTIVE event and for the device's removal.
 */
final class AddressResolver {

    private final RdmaCm cm;
    private final Device device;
    /** Address and route queries waiting for the port to become active, with their tokens. */
    private final Map<CmId, Object> waitingForPort = new ConcurrentHashMap<>();

    AddressResolver(RdmaCm cm, Device device) {
        this.cm = cm;
        this.device = device;
    }

    /** Completes the address query of {@code id}, in ADDR_QUERY: ADDR_RESOLVED, or ADDR_ERROR back to ADDR_BOUND. */
    void resolveAddr(CmId id, int timeoutMs) {
        resolve(id, timeoutMs, "addr", CmId.State.ADDR_QUERY, CmId.State.ADDR_BOUND, CmEventType.ADDR_ERROR);
    }

    /**
     * Fixes the path MTU of {@code id} and completes its route query, in ROUTE_QUERY:
     * ROUTE_RESOLVED, or ROUTE_ERROR back to ADDR_RESOLVED.
     */
    void resolveRoute(CmId id, int timeoutMs) {
        Gid dst = RdmaCm.gidOf(id.peer);
        Mtu mtu = device.queryPort(1).activeMtu();
        Device remote = cm.fabric().device(dst);
        if (remote != null && remote.queryPort(1).activeMtu().bytes() < mtu.bytes()) {
            mtu = remote.queryPort(1).activeMtu();
        }
        id.pathMtuCode = mtu.code();
        resolve(id, timeoutMs, "route", CmId.State.ROUTE_QUERY, CmId.State.ADDR_RESOLVED, CmEventType.ROUTE_ERROR);
    }

    /** The device's port became active: every waiting query completes. Device executor. */
    void portActive() {
        for (CmId id : new ArrayList<>(waitingForPort.keySet())) {
            if (waitingForPort.remove(id) != null) {
                queryResolved(id);
            }
        }
    }

    /** Forgets the waiting query of {@code id}, if any, without an event (device removal). */
    void cancel(CmId id) {
        waitingForPort.remove(id);
    }

    /**
     * Completes the address or route query of {@code id} (in state {@code query}): soon if the port is active, else
     * when it becomes active; if it does not within {@code timeoutMs}, the query fails with {@code error} and the id
     * goes back to state {@code failed}.
     */
    private void resolve(CmId id, int timeoutMs, String what, CmId.State query, CmId.State failed, CmEventType error) {
        if (device.portState() == PortState.ACTIVE) {
            later(0, what + " resolved", () -> queryResolved(id));
            return;
        }
        Object token = waitForPort(id);
        later(Math.max(0, timeoutMs) * 1_000_000L, what + " error", () -> {
            if (waitingForPort.remove(id, token) && id.state == query) {
                id.state = failed;
                id.events.report(device, error, -Errno.EHOSTUNREACH.value(), null);
            }
        });
    }

    /**
     * Keeps an address or route query of an id whose port is down until the port becomes active
     * or the query times out: timeout_ms is the time to wait for the resolution to complete
     * (rdma_resolve_addr(3), rdma_resolve_route(3)). Returns the query's token.
     */
    private Object waitForPort(CmId id) {
        Object query = new Object();
        waitingForPort.put(id, query);
        if (device.portState() == PortState.ACTIVE) {
            later(0, "port active", () -> {
                if (waitingForPort.remove(id, query)) {
                    queryResolved(id);
                }
            });
        }
        return query;
    }

    /** The local port is active: the address or route query of {@code id} completes. Device executor. */
    private void queryResolved(CmId id) {
        if (id.state == CmId.State.ADDR_QUERY) {
            id.state = CmId.State.ADDR_RESOLVED;
            id.events.report(device, CmEventType.ADDR_RESOLVED, 0, null);
        } else if (id.state == CmId.State.ROUTE_QUERY) {
            id.state = CmId.State.ROUTE_RESOLVED;
            id.events.report(device, CmEventType.ROUTE_RESOLVED, 0, null);
        }
    }

    /** Runs {@code r} on the device's executor after {@code delayNanos}, after the current call returns. */
    private void later(long delayNanos, String what, Runnable r) {
        device.executor()
                .schedule(
                        new Task() {
                            @Override
                            public void run() {
                                r.run();
                            }

                            @Override
                            public String toString() {
                                return what;
                            }
                        },
                        delayNanos);
    }
}
