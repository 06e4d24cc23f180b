package io.simrdma.junit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.provider.SimProvider;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The end-of-test checks of {@link SimFabricExtension}, each returning the problems it found as
 * lines of a report (empty when all is well):
 * <ul>
 *   <li>DAT handles of the test's IAs not freed (dat_ia_close(3DAT) graceful would refuse), with the
 *       application's line that created each, and the events left on its EVDs;</li>
 *   <li>verbs objects not destroyed, with where they were created;</li>
 *   <li>work requests posted and never completed; CQs destroyed with completions nobody polled;</li>
 *   <li>simrdma threads (named {@code simrdma-...}) still running after the test's fabric closed;</li>
 *   <li>Netty buffers garbage-collected without release() (needs
 *       {@code -Dio.netty.leakDetection.level=paranoid}; at other levels Netty samples, and the check
 *       reports only what it happened to sample).</li>
 * </ul>
 *
 * <p>Thread safety: the Netty listener is shared by the JVM and synchronized; the rest is called
 * from the test's thread.
 */
final class LeakChecks {

    /** Threads of the fabric, its devices and TCP nodes are named so. */
    static final String THREAD_PREFIX = "simrdma-";
    /** How long, in real time, a closed fabric's threads get to end. */
    static final long THREAD_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final List<String> NETTY_LEAKS = new ArrayList<>();
    private static volatile boolean nettyListening;

    private LeakChecks() {}

    /** DAT handles of {@code ia} not freed, with the events queued on its EVDs. */
    static List<String> datHandles(String iaName, InterfaceAdapter ia) {
        List<String> out = new ArrayList<>();
        for (DatHandle h : SimProvider.openHandles(ia)) {
            io.simrdma.dat.HandleType type = h.handleType();
            StringBuilder line = new StringBuilder("DAT_").append(type).append("_HANDLE");
            if (type != io.simrdma.dat.HandleType.PZ && type != io.simrdma.dat.HandleType.CNO) {
                line.append(' ').append(h);
            }
            if (h instanceof EventDispatcher evd) {
                int n = SimProvider.queuedEvents(evd);
                if (n > 0) {
                    line.append(", with ").append(n).append(" event(s) never dequeued");
                }
            }
            String site = site(SimProvider.creationSite(h));
            if (site != null) {
                line.append(", created ").append(site);
            }
            out.add("DAT handle not freed on IA " + iaName + ": " + line);
        }
        return out;
    }

    /** Verbs objects created and not destroyed. */
    static List<String> verbsObjects(OwnershipChecker checker) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<Object, Throwable> e : checker.liveObjects().entrySet()) {
            String site = site(e.getValue());
            out.add("verbs object not destroyed: " + OwnershipChecker.describe(e.getKey())
                    + (site == null ? "" : ", created " + site));
        }
        return out;
    }

    /** The first frame of the application's code in {@code t}: "at com.x.Y.m(Y.java:12)". */
    static String site(Throwable t) {
        if (t == null) {
            return null;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            String c = e.getClassName();
            if (!(c.startsWith("io.simrdma.fabric.")
                    || c.startsWith("io.simrdma.provider.")
                    || c.startsWith("io.simrdma.dat.")
                    || isToolkit(c)
                    || c.startsWith("java.")
                    || c.startsWith("jdk.")
                    || c.startsWith("sun.")
                    || c.startsWith("org.junit."))) {
                return "at " + e;
            }
        }
        return null;
    }

    /** The toolkit's own classes (its tests and examples, in the same package, are application code). */
    private static boolean isToolkit(String className) {
        if (!className.startsWith("io.simrdma.junit.")) {
            return false;
        }
        String simple = className.substring("io.simrdma.junit.".length());
        int nested = simple.indexOf('$');
        String top = nested < 0 ? simple : simple.substring(0, nested);
        return TOOLKIT.contains(top);
    }

    private static final Set<String> TOOLKIT = Set.of(
            "SimFabricExtension",
            "TestFabric",
            "Faults",
            "ScriptedFault",
            "OwnershipChecker",
            "LeakChecks",
            "SeedReport",
            "FaultScript");

    /** Live threads named simrdma-... */
    static Set<Thread> simrdmaThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(THREAD_PREFIX)) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * simrdma threads alive now that were not before, after waiting up to {@link #THREAD_GRACE_NANOS}
     * for them to end (executors of a closed fabric stop asynchronously).
     */
    static List<String> leakedThreads(Set<Thread> before) {
        long deadline = System.nanoTime() + THREAD_GRACE_NANOS;
        List<Thread> leaked = new ArrayList<>();
        while (true) {
            leaked.clear();
            for (Thread t : simrdmaThreads()) {
                if (!before.contains(t)) {
                    leaked.add(t);
                }
            }
            if (leaked.isEmpty() || System.nanoTime() >= deadline) {
                break;
            }
            try {
                leaked.get(0).join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<String> out = new ArrayList<>();
        for (Thread t : leaked) {
            out.add("thread still running after the test's fabric closed: " + t.getName()
                    + " (a Fabric, TcpNode or IA the test opened and did not close?)");
        }
        return out;
    }

    /**
     * Listens to the leak reports of Netty's ByteBuf detector (once per JVM). ByteBuf's detector is
     * a static of AbstractByteBuf that Netty does not expose, read by reflection; when it cannot be
     * reached (a Netty that renamed it, a module path that closes it) the Netty check is off.
     */
    static synchronized boolean listenToNetty() {
        if (nettyListening) {
            return true;
        }
        try {
            java.lang.reflect.Field f =
                    Class.forName("io.netty.buffer.AbstractByteBuf").getDeclaredField("leakDetector");
            f.setAccessible(true);
            ResourceLeakDetector<?> d = (ResourceLeakDetector<?>) f.get(null);
            d.setLeakListener((resourceType, records) -> {
                synchronized (NETTY_LEAKS) {
                    NETTY_LEAKS.add("Netty " + resourceType + " garbage-collected without release()"
                            + (records == null || records.isEmpty() ? "" : ":" + records));
                }
            });
            nettyListening = true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            nettyListening = false;
        }
        return nettyListening;
    }

    private static void release(ByteBuf b) {
        b.release();
    }

    /** Forgets leaks reported so far (before a test). */
    static void clearNettyLeaks() {
        synchronized (NETTY_LEAKS) {
            NETTY_LEAKS.clear();
        }
    }

    /** Netty buffers leaked since {@link #clearNettyLeaks}: collects garbage and lets the detector report. */
    static List<String> nettyLeaks() {
        if (!nettyListening || ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.DISABLED) {
            return List.of();
        }
        for (int i = 0; i < 3; i++) {
            System.gc();
            // the collector's reference handler enqueues what it collected on its own thread
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            // the detector reports collected leaks when it tracks a new buffer
            for (int k = 0; k < 4; k++) {
                release(ByteBufAllocator.DEFAULT.directBuffer(8));
                release(ByteBufAllocator.DEFAULT.heapBuffer(8));
                release(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT.directBuffer(8));
                release(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT.heapBuffer(8));
            }
        }
        synchronized (NETTY_LEAKS) {
            List<String> out = new ArrayList<>(NETTY_LEAKS);
            NETTY_LEAKS.clear();
            return out;
        }
    }
}
