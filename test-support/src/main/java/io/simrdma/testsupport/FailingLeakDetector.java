package io.simrdma.testsupport;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty leak detector that remembers every leak it reports, so that
 * {@link ResourceCheckExtension} can fail the test class that caused it.
 *
 * <p>Installed for every test JVM through the system property
 * {@code io.netty.customResourceLeakDetector} (see the root pom's {@code test.argLine}),
 * together with {@code io.netty.leakDetection.level=paranoid}. Netty instantiates it
 * reflectively through one of the two public constructors.
 *
 * <p>Thread safety: reports may arrive from any thread; the record is synchronized.
 *
 * @param <T> the tracked resource type
 */
public final class FailingLeakDetector<T> extends ResourceLeakDetector<T> {

    private static final List<String> LEAKS = new ArrayList<>();

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    public FailingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        record("LEAK of " + resourceType + ": release() was not called before it was garbage-collected." + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        record("LEAK of " + resourceType + ": release() was not called before it was garbage-collected.");
        super.reportUntracedLeak(resourceType);
    }

    private static void record(String leak) {
        synchronized (LEAKS) {
            LEAKS.add(leak);
        }
    }

    /** Returns and forgets every leak reported so far. */
    static List<String> drain() {
        synchronized (LEAKS) {
            List<String> copy = new ArrayList<>(LEAKS);
            LEAKS.clear();
            return copy;
        }
    }
}
