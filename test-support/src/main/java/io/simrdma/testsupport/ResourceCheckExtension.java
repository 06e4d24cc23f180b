package io.simrdma.testsupport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaked a Netty buffer or left a simrdma thread running.
 *
 * <p>Registered for every test class through JUnit's extension auto-detection
 * (enabled in the root pom's surefire configuration, listed in
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension}).
 *
 * <p>Threads: every thread simrdma starts has a name beginning with {@code simrdma-}.
 * Any such thread alive after the class that was not alive before it fails the class,
 * after a grace period in which a thread still shutting down may end.
 *
 * <p>Buffers: after the class, the collector runs and a few buffers are allocated, which
 * makes Netty's paranoid detector report buffers that were collected unreleased; any report
 * fails the class.
 *
 * <p>Thread safety: JUnit calls it on the thread that runs the test class; what it keeps between
 * the calls lives in that class's extension store.
 */
public final class ResourceCheckExtension implements BeforeAllCallback, AfterAllCallback {

    /** Prefix of the name of every thread simrdma starts. */
    public static final String THREAD_PREFIX = "simrdma-";

    private static final long THREAD_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(ResourceCheckExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        FailingLeakDetector.drain();
        context.getStore(NS).put("threads", simrdmaThreads());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        @SuppressWarnings("unchecked")
        Set<Thread> before = context.getStore(NS).get("threads", Set.class);
        List<String> problems = new ArrayList<>();

        long deadline = System.nanoTime() + THREAD_GRACE_NANOS;
        List<Thread> leaked = leakedThreads(before);
        while (!leaked.isEmpty() && System.nanoTime() - deadline < 0) {
            for (Thread t : leaked) {
                try {
                    t.join(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            leaked = leakedThreads(before);
        }
        for (Thread t : leaked) {
            problems.add("thread left running: " + t.getName() + " (" + t.getState() + ")");
        }

        problems.addAll(collectNettyLeaks());
        if (!problems.isEmpty()) {
            throw new AssertionError(
                    "resources leaked by " + context.getDisplayName() + ":\n  " + String.join("\n  ", problems));
        }
    }

    /** Runs the collector and lets Netty's detector report what was collected unreleased. */
    public static List<String> collectNettyLeaks() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            // Each allocation polls the detector's reference queue and reports leaks.
            for (int i = 0; i < 4; i++) {
                release(PooledByteBufAllocator.DEFAULT.directBuffer(8));
                release(PooledByteBufAllocator.DEFAULT.heapBuffer(8));
                release(UnpooledByteBufAllocator.DEFAULT.directBuffer(8));
                release(UnpooledByteBufAllocator.DEFAULT.heapBuffer(8));
            }
        }
        return FailingLeakDetector.drain();
    }

    private static void release(ByteBuf b) {
        b.release();
    }

    private static Set<Thread> simrdmaThreads() {
        Set<Thread> result = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(THREAD_PREFIX)) {
                result.add(t);
            }
        }
        return result;
    }

    private static List<Thread> leakedThreads(Set<Thread> before) {
        List<Thread> result = new ArrayList<>();
        for (Thread t : simrdmaThreads()) {
            if (before == null || !before.contains(t)) {
                result.add(t);
            }
        }
        return result;
    }
}
