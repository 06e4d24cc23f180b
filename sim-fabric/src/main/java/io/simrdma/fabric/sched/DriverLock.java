package io.simrdma.fabric.sched;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The deterministic scheduler's guard: a reentrant mutual-exclusion lock made for one driving
 * thread that takes it millions of times a second (every poll, every post, every task that queues
 * another). Taking it is one compare-and-set; a nested hold is a plain counter increment; letting
 * it go is a release store, not the full fence {@link java.util.concurrent.locks.ReentrantLock}'s
 * volatile state write costs on every unlock, nested or not.
 *
 * <p>Another thread that finds it held (a stray call, which the scheduler permits but does not
 * replay) spins briefly, then yields, then parks for growing intervals up to a millisecond and
 * tries again: there is no queue of waiters to wake, so release never has to look for one.
 * Interrupts are ignored, as by {@code ReentrantLock.lock()}.
 *
 * <p>Thread safety: thread-safe; that is its purpose.
 */
final class DriverLock {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(DriverLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int SPINS = 100;
    private static final int YIELDS = 10;
    private static final long MAX_PARK_NANOS = 1_000_000L;

    /** 0 free, 1 held; written by compare-and-set to take it and a release store to let it go. */
    @SuppressWarnings("unused")
    private volatile int state;

    /** The holder, or null. Written only by the holder while it holds the lock. */
    private Thread owner;

    /** Nested holds beyond the first; touched only by the holder. */
    private int nested;

    /** Takes the lock, waiting for another holder to let it go; reentrant. */
    void lock() {
        Thread me = Thread.currentThread();
        if (owner == me) {
            // Only this thread ever writes owner = me, and it clears it before letting go, so a
            // stale read can never show this thread as the holder when it is not.
            nested++;
            return;
        }
        if (!STATE.compareAndSet(this, 0, 1)) {
            contend();
        }
        owner = me;
    }

    private void contend() {
        int tries = 0;
        long park = 1_000L;
        while (!STATE.compareAndSet(this, 0, 1)) {
            tries++;
            if (tries < SPINS) {
                Thread.onSpinWait();
            } else if (tries < SPINS + YIELDS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(this, park);
                park = Math.min(MAX_PARK_NANOS, park * 2);
            }
        }
    }

    /** Lets go of one hold; the last one frees the lock. Only the holder may call it. */
    void unlock() {
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("the deterministic scheduler's lock is not held by this thread");
        }
        if (nested > 0) {
            nested--;
            return;
        }
        owner = null;
        STATE.setRelease(this, 0);
    }

    /** True if the calling thread holds the lock. */
    boolean isHeldByCurrentThread() {
        return owner == Thread.currentThread();
    }
}
