package io.simrdma.fabric.internal.rc;

import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.sched.Task;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an engine role (requester, responder, completer) on its device's executor when kicked;
 * kicks while it is already queued coalesce, so a burst of posts schedules it once.
 */
public final class KickTask extends Task {

    private final AtomicBoolean queued = new AtomicBoolean();
    private final EngineExecutor executor;
    private final Runnable body;
    private final String name;

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

    @Override
    public void run() {
        queued.set(false);
        body.run();
    }

    @Override
    public String toString() {
        return name;
    }
}
