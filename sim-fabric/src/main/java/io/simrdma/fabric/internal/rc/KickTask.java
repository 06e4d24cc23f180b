package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Task;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an engine role (requester, responder, completer) on its device's executor when kicked;
 * kicks while it is already queued coalesce, so a burst of posts schedules it once. A packet's
 * arrival runs the responder or completer in its own task instead ({@link #runHereOrKick()}).
 */
public final class KickTask extends Task {

    private final AtomicBoolean queued = new AtomicBoolean();
    private final EngineExecutor executor;
    private final Runnable body;
    private final String name;
    /** True while the body runs; read and written only by the thread running the executor's tasks. */
    private boolean running;

    KickTask(EngineExecutor executor, String name, Runnable body) {
        this.executor = executor;
        this.name = name;
        this.body = body;
    }

    /** Makes the role run soon; any thread. */
    void kick() {
        if (!queued.get() && queued.compareAndSet(false, true)) {
            executor.execute(this);
        }
    }

    /**
     * Runs the role here and now if the calling thread runs the executor's tasks (a packet's
     * arrival) and the role is neither queued nor running; kicks it otherwise. Running it in the
     * arrival's task instead of a task of its own saves a scheduler step per packet or burst: the
     * same work in the same order on the device's one logical thread, only without the hand-off.
     */
    void runHereOrKick() {
        if (!running && !queued.get() && executor.inExecutor()) {
            runBody();
        } else {
            kick();
        }
    }

    @Override
    public void run() {
        queued.set(false);
        runBody();
    }

    private void runBody() {
        running = true;
        try {
            body.run();
        } finally {
            running = false;
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
