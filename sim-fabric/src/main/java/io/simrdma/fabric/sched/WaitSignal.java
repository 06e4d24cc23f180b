package io.simrdma.fabric.sched;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Wakes threads blocked on one waitable object (a CQ, a completion channel, an event queue).
 * Producers call {@link #signalAll()} after making a waited-for condition true; it costs one
 * volatile read when nobody waits.
 *
 * <p>Thread safety: safe for any number of producers and waiters.
 */
public final class WaitSignal {

    private final Scheduler scheduler;
    private final Object lock = new Object();
    private volatile int waiters;

    WaitSignal(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Wakes every thread waiting on this signal so that it re-checks its condition. */
    public void signalAll() {
        if (waiters > 0) {
            synchronized (lock) {
                lock.notifyAll();
            }
        }
    }

    /** Waits for {@code condition}; see {@link Scheduler#await}. */
    public boolean await(BooleanSupplier condition, long timeoutNanos) {
        return scheduler.await(condition, timeoutNanos, this);
    }

    /** Blocking wait in real time; used by the threaded scheduler. */
    boolean blockingAwait(BooleanSupplier condition, long timeoutNanos) {
        if (condition.getAsBoolean()) {
            return true;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (lock) {
            waiters++;
            try {
                while (!condition.getAsBoolean()) {
                    long waitNanos;
                    if (timeoutNanos < 0) {
                        waitNanos = TimeUnit.MILLISECONDS.toNanos(100);
                    } else {
                        waitNanos = deadline - System.nanoTime();
                        if (waitNanos <= 0) {
                            return false;
                        }
                    }
                    // A bounded wait also covers a producer that signalled between our check and wait.
                    long millis = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(waitNanos), 100));
                    try {
                        lock.wait(millis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return condition.getAsBoolean();
                    }
                }
                return true;
            } finally {
                waiters--;
            }
        }
    }
}
