package io.simrdma.fabric.sched;

import java.util.concurrent.TimeUnit;

/**
 * What a threaded fabric's device thread does when it runs out of work: it busy-spins for
 * {@code spinNanos} after its last task, then gives up its time slice ({@link Thread#yield()})
 * until {@code spinNanos + yieldNanos} have passed, then parks until new work or its next timer
 * wakes it (the back-off of Aeron's {@code BackoffIdleStrategy}, measured in time rather than in
 * iterations). Work arriving while the thread spins or yields is picked up without a wake-up,
 * which on a virtual machine costs tens of microseconds; a parked thread costs no CPU.
 *
 * <p>Because the spin and yield phases start again only after work, an idle fabric parks all its
 * threads within {@code spinNanos + yieldNanos}: the default (20 us spinning, no yielding) keeps
 * a 2-core machine free when nothing is sent, and still avoids a wake-up between the packets of
 * a conversation. The default does not yield: on a loaded 2-core machine, measured with
 * {@code simrdma perf}, a yielding device thread took CPU from the threads doing the work (1 MiB
 * RDMA WRITE bandwidth fell 5-10x) without lowering latency. A thread that busy-polls a CQ also
 * runs the device's queued work itself ({@link EngineExecutor#help()}), so that most hand-offs
 * need no wake-up whatever the strategy. {@link #park()} parks at once (no CPU used for waiting);
 * {@link #busySpin()} never parks (lowest latency, one core per device thread, for benchmarks on
 * machines with cores to spare).
 *
 * <p>Used only by the threaded scheduler; the deterministic scheduler runs everything on the
 * caller's thread. Immutable and thread-safe.
 *
 * @param spinNanos  how long to busy-spin after the last task, at least 0
 * @param yieldNanos how long to yield after spinning before parking, at least 0;
 *                   {@link Long#MAX_VALUE} with spinning never parks
 */
public record IdleStrategy(long spinNanos, long yieldNanos) {

    private static final IdleStrategy DEFAULT = new IdleStrategy(TimeUnit.MICROSECONDS.toNanos(20), 0);

    public IdleStrategy {
        if (spinNanos < 0 || yieldNanos < 0) {
            throw new IllegalArgumentException("negative idle time: spin " + spinNanos + " ns, yield " + yieldNanos + " ns");
        }
    }

    /** Spin 20 us, then park: the default. */
    public static IdleStrategy backoff() {
        return DEFAULT;
    }

    /** Parks as soon as there is no work (a Netty event executor's behaviour). */
    public static IdleStrategy park() {
        return new IdleStrategy(0, 0);
    }

    /** Never parks: spins while there is no work. */
    public static IdleStrategy busySpin() {
        return new IdleStrategy(Long.MAX_VALUE, 0);
    }

    /** True when the thread never parks. */
    public boolean neverParks() {
        return spinNanos == Long.MAX_VALUE || yieldNanos == Long.MAX_VALUE;
    }
}
