package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ports of a fabric's connection manager, per port space: which ids are bound to each
 * (rdma_bind_addr(3)) and which listen on it (rdma_listen(3)). A port space and a port form the
 * IB CM service ID a REQ names ({@link PortSpace}), so this is also where a REQ finds its
 * listener. An id bound to the wildcard address holds the port on every device; two ids may share
 * a port of the same device only if both set REUSEADDR (rdma_set_option(3)). Port 0 takes the next
 * free port of the ephemeral range 49152..65535, round robin.
 *
 * <p>Thread safety: thread-safe; every method holds the table's monitor, and nothing else is
 * called with it held.
 *
 * <p>Who calls it: {@link RdmaCm} (listen, release), {@link CmId} through RdmaCm (bind) and the
 * device's {@link ConnectionMachine} through RdmaCm (the listener of a REQ).
 */
final class PortTable {

    private static final int EPHEMERAL_LOW = 49152;

    private record PortKey(PortSpace ps, int port) {}

    private final Map<PortKey, List<CmId>> bindings = new LinkedHashMap<>();
    private final Map<PortKey, List<CmId>> listeners = new LinkedHashMap<>();
    private int nextEphemeral = EPHEMERAL_LOW;

    /**
     * Reserves {@code port} (0: a free one) of the id's port space for {@code id} on
     * {@code device} (null: every device).
     *
     * @return the port
     * @throws VerbsException EADDRINUSE if the port is taken, or no port is free
     */
    synchronized int bind(CmId id, Device device, int port) {
        if (port == 0) {
            for (int i = 0; i < 0x10000 - EPHEMERAL_LOW; i++) {
                int candidate = nextEphemeral;
                nextEphemeral = nextEphemeral == 0xFFFF ? EPHEMERAL_LOW : nextEphemeral + 1;
                if (!conflicts(id, device, candidate)) {
                    port = candidate;
                    break;
                }
            }
            if (port == 0) {
                throw new VerbsException(Errno.EADDRINUSE, "no free port");
            }
        } else if (conflicts(id, device, port)) {
            throw new VerbsException(Errno.EADDRINUSE, "port " + port + " is in use");
        }
        bindings.computeIfAbsent(new PortKey(id.ps, port), k -> new ArrayList<>())
                .add(id);
        return port;
    }

    private boolean conflicts(CmId id, Device device, int port) {
        List<CmId> l = bindings.get(new PortKey(id.ps, port));
        if (l == null) {
            return false;
        }
        for (CmId other : l) {
            boolean overlap = other.device == null || device == null || other.device == device;
            if (overlap && !(other.reuseAddr && id.reuseAddr)) {
                return true;
            }
        }
        return false;
    }

    /** The bound {@code id} listens on its port. */
    synchronized void listen(CmId id) {
        listeners
                .computeIfAbsent(new PortKey(id.ps, id.local.getPort()), k -> new ArrayList<>())
                .add(id);
    }

    /** The id listening on {@code port} of {@code device}: one bound to the device first, then a wildcard one. */
    synchronized CmId findListener(PortSpace ps, Device device, int port) {
        List<CmId> l = listeners.get(new PortKey(ps, port));
        if (l == null) {
            return null;
        }
        CmId wildcard = null;
        for (CmId id : l) {
            if (id.state != CmId.State.LISTEN) {
                continue;
            }
            if (id.device == device) {
                return id;
            }
            if (id.device == null && wildcard == null) {
                wildcard = id;
            }
        }
        return wildcard;
    }

    /** {@code id} is gone: frees its port and its listener entry. The id of a request holds neither. */
    synchronized void release(CmId id) {
        InetSocketAddress l = id.local;
        if (l != null && id.listener == null) {
            PortKey k = new PortKey(id.ps, l.getPort());
            List<CmId> b = bindings.get(k);
            if (b != null) {
                b.remove(id);
                if (b.isEmpty()) {
                    bindings.remove(k);
                }
            }
            List<CmId> li = listeners.get(k);
            if (li != null) {
                li.remove(id);
                if (li.isEmpty()) {
                    listeners.remove(k);
                }
            }
        }
    }
}
