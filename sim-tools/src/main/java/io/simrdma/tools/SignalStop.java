package io.simrdma.tools;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A clean stop on Ctrl-C or SIGTERM: a shutdown hook asks the running command to stop (it checks
 * {@link #requested()} between its waits), then waits up to {@link #GRACE_SECONDS} for it to
 * disconnect and say so. The JVM then exits with the signal's status (130 for SIGINT, 143 for
 * SIGTERM).
 *
 * <p>Thread safety: thread-safe.
 */
final class SignalStop implements AutoCloseable {

    /** How long the hook waits for the command to disconnect. */
    static final long GRACE_SECONDS = 10;

    private final Thread hook;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean requested;

    private SignalStop() {
        hook = new Thread(
                () -> {
                    requested = true;
                    try {
                        finished.await(GRACE_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "simrdma-cli-stop");
    }

    /** Installs the hook. */
    static SignalStop install() {
        SignalStop s = new SignalStop();
        Runtime.getRuntime().addShutdownHook(s.hook);
        return s;
    }

    /** True once a signal asked the command to stop. */
    boolean requested() {
        return requested;
    }

    /** The command finished (stopped or not): the hook may let the JVM exit; removes the hook if no signal came. */
    @Override
    public void close() {
        finished.countDown();
        if (!requested) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down already
            }
        }
    }
}
