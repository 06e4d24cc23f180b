package io.simrdma.provider;

import io.simrdma.dat.DatException;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.Mtu;

import java.util.HashMap;
import java.util.Map;

/**
 * The fabrics IAs run on, by name. A fabric named by an IA is created on first use and closed
 * when its last IA closes; a fabric registered by the application stays the application's.
 *
 * <p>Thread safety: all methods synchronized.
 */
final class SimFabrics {

    private static final class Entry {
        final Fabric fabric;
        final boolean owned;
        int users;

        Entry(Fabric fabric, boolean owned) {
            this.fabric = fabric;
            this.owned = owned;
        }
    }

    private static final Map<String, Entry> FABRICS = new HashMap<>();

    private SimFabrics() {
    }

    static synchronized void register(String name, Fabric fabric) {
        Entry e = FABRICS.get(name);
        if (e != null && e.fabric != fabric) {
            throw DatException.invalidParameter("a fabric named " + name + " is already in use by the sim provider");
        }
        if (e == null) {
            FABRICS.put(name, new Entry(fabric, false));
        }
    }

    static synchronized void unregister(String name) {
        Entry e = FABRICS.get(name);
        if (e != null && !e.owned) {
            FABRICS.remove(name);
        }
    }

    /** The fabric of {@code n}, created if needed; counts one more user. */
    static synchronized Fabric acquire(IaName n) {
        Entry e = FABRICS.get(n.fabric());
        if (e == null) {
            Fabric f = n.threaded() ? Fabric.builder().name(n.fabric()).threaded().seed(n.seed()).build()
                    : Fabric.builder().name(n.fabric()).deterministic(n.seed()).build();
            e = new Entry(f, true);
            FABRICS.put(n.fabric(), e);
        }
        e.users++;
        return e.fabric;
    }

    /** The device of {@code n} on {@code fabric}, created with the name's limits if needed. */
    static Device device(Fabric fabric, IaName n) {
        synchronized (SimFabrics.class) {
            Device d = fabric.device(n.device());
            if (d != null) {
                return d;
            }
            DeviceConfig c = DeviceConfig.named(n.device());
            if (n.options().containsKey("maxQp")) {
                c.maxQp(n.intOption("maxQp", 0));
            }
            if (n.options().containsKey("maxCq")) {
                c.maxCq(n.intOption("maxCq", 0));
            }
            if (n.options().containsKey("maxCqe")) {
                c.maxCqe(n.intOption("maxCqe", 0));
            }
            if (n.options().containsKey("maxMr")) {
                c.maxMr(n.intOption("maxMr", 0));
            }
            if (n.options().containsKey("maxPd")) {
                c.maxPd(n.intOption("maxPd", 0));
            }
            if (n.options().containsKey("maxMw")) {
                c.maxMw(n.intOption("maxMw", 0));
            }
            if (n.options().containsKey("maxSrq")) {
                c.maxSrq(n.intOption("maxSrq", 0));
            }
            if (n.options().containsKey("maxQpWr")) {
                c.maxQpWr(n.intOption("maxQpWr", 0));
            }
            if (n.options().containsKey("maxSge")) {
                c.maxSge(n.intOption("maxSge", 0));
            }
            if (n.options().containsKey("maxSrqWr")) {
                c.maxSrqWr(n.intOption("maxSrqWr", 0));
            }
            if (n.options().containsKey("maxInline")) {
                c.maxInlineData(n.intOption("maxInline", 0));
            }
            if (n.options().containsKey("mtu")) {
                try {
                    c.maxMtu(Mtu.ofBytes(n.intOption("mtu", 4096)));
                } catch (IllegalArgumentException e) {
                    throw DatException.invalidParameter(e.getMessage());
                }
            }
            try {
                return fabric.createDevice(c);
            } catch (IllegalArgumentException e) {
                throw DatException.invalidParameter(e.getMessage());
            }
        }
    }

    /** One user of {@code fabric} is gone; an owned fabric with no user left is closed. */
    static void release(Fabric fabric) {
        Fabric toClose = null;
        synchronized (SimFabrics.class) {
            for (Map.Entry<String, Entry> me : FABRICS.entrySet()) {
                Entry e = me.getValue();
                if (e.fabric == fabric) {
                    e.users--;
                    if (e.users <= 0 && e.owned) {
                        FABRICS.remove(me.getKey());
                        toClose = fabric;
                    }
                    break;
                }
            }
        }
        if (toClose != null) {
            toClose.close();
        }
    }
}
