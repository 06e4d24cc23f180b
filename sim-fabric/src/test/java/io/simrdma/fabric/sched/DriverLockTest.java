package io.simrdma.fabric.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The deterministic scheduler's lock: reentrant for the driving thread, mutually exclusive between
 * threads (stray calls from other threads are safe, ARCHITECTURE.md "Scheduler and clock"), and
 * released only by its holder.
 */
class DriverLockTest {

    private static final long DEADLINE_SECONDS = 30;

    @Test
    @DisplayName("A holder may take the lock again; it stays held until every hold is let go")
    void shouldStayHeldUntilEveryNestedHoldIsReleasedWhenTakenReentrantly() {
        DriverLock lock = new DriverLock();
        assertFalse(lock.isHeldByCurrentThread(), "a new lock is free, seen: held");
        lock.lock();
        lock.lock();
        lock.lock();
        lock.unlock();
        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread(), "one of three holds is left, expected held, seen free");
        lock.unlock();
        assertFalse(lock.isHeldByCurrentThread(), "all holds let go, expected free, seen held");
    }

    @Test
    @DisplayName("A thread that does not hold the lock cannot let it go")
    void shouldRefuseUnlockWhenCalledByAThreadThatDoesNotHoldIt() {
        DriverLock lock = new DriverLock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "unlocking a free lock");
        lock.lock();
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                lock.unlock();
            } catch (Throwable t) {
                seen.set(t);
            }
        });
        other.start();
        join(other);
        assertTrue(
                seen.get() instanceof IllegalMonitorStateException,
                "expected IllegalMonitorStateException from a non-holder's unlock, seen " + seen.get());
        assertTrue(lock.isHeldByCurrentThread(), "the holder still holds the lock");
        lock.unlock();
    }

    @Test
    @DisplayName("Another thread waits while the lock is held and gets it once the holder lets go")
    void shouldMakeAnotherThreadWaitWhenTheLockIsHeld() throws InterruptedException {
        DriverLock lock = new DriverLock();
        CountDownLatch trying = new CountDownLatch(1);
        CountDownLatch acquired = new CountDownLatch(1);
        AtomicBoolean heldByOther = new AtomicBoolean();
        lock.lock();
        Thread other = new Thread(() -> {
            trying.countDown();
            lock.lock();
            heldByOther.set(lock.isHeldByCurrentThread());
            acquired.countDown();
            lock.unlock();
        });
        other.start();
        assertTrue(trying.await(DEADLINE_SECONDS, TimeUnit.SECONDS), "the other thread started");
        // While this thread holds the lock the other one cannot have it, whatever the timing.
        assertEquals(1, acquired.getCount(), "the other thread took a held lock");
        lock.unlock();
        assertTrue(acquired.await(DEADLINE_SECONDS, TimeUnit.SECONDS), "the other thread got the freed lock");
        assertTrue(heldByOther.get(), "the other thread saw itself as the holder");
        join(other);
        assertFalse(lock.isHeldByCurrentThread(), "this thread let go of the lock");
    }

    @Test
    @DisplayName("Threads taking the lock in turn never run their critical sections at the same time")
    void shouldExcludeEachOtherWhenThreadsIncrementUnderTheLock() {
        DriverLock lock = new DriverLock();
        int perThread = 20_000;
        long[] counter = new long[1];
        AtomicBoolean overlap = new AtomicBoolean();
        AtomicBoolean inside = new AtomicBoolean();
        Runnable work = () -> {
            for (int i = 0; i < perThread; i++) {
                lock.lock();
                try {
                    if (!inside.compareAndSet(false, true)) {
                        overlap.set(true);
                    }
                    counter[0]++;
                    inside.set(false);
                } finally {
                    lock.unlock();
                }
            }
        };
        Thread a = new Thread(work);
        Thread b = new Thread(work);
        a.start();
        b.start();
        join(a);
        join(b);
        assertFalse(overlap.get(), "two threads were inside the lock at once");
        lock.lock();
        try {
            assertEquals(2L * perThread, counter[0], "increments under the lock, none lost");
        } finally {
            lock.unlock();
        }
    }

    private static void join(Thread t) {
        try {
            t.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        assertFalse(t.isAlive(), t.getName() + " did not finish within " + DEADLINE_SECONDS + " s");
    }
}
