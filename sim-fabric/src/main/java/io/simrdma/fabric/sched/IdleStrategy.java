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
 * threads within {@code spinNanos + yieldNanos}, so an idle fabric costs no CPU. The default
 * ({@link #backoff()}) spins 20 us after work and never yields on a machine with more than 2
 * cores, and parks at once on 2 cores or fewer: on a loaded 2-core machine, measured with
 * {@code simrdma perf}, spinning or yielding device threads took the CPU from the threads doing
 * the work (8-byte SEND/RECV latency 4x worse with a 20 us spin, 1 MiB RDMA WRITE bandwidth 5-10x
 * lower with yielding). A thread that busy-polls a CQ runs the device's queued work itself
 * ({@link EngineExecutor#help()}), so a conversation between polling threads needs no wake-up
 * whatever the strategy. {@link #park()} parks at once (no CPU used for waiting);
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

    /** Spinning pays only with a core to spare for it: measured on 2 cores, it cost more than it saved. */
    private static final IdleStrategy DEFAULT = Runtime.getRuntime().availableProcessors() > 2
            ? new IdleStrategy(TimeUnit.MICROSECONDS.toNanos(20), 0)
            : new IdleStrategy(0, 0);

    public IdleStrategy {
        if (spinNanos < 0 || yieldNanos < 0) {
            throw new IllegalArgumentException(
                    "negative idle time: spin " + spinNanos + " ns, yield " + yieldNanos + " ns");
        }
    }

    /** The default: spin 20 us after work, then park; park at once on a machine with 2 cores or fewer. */
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
