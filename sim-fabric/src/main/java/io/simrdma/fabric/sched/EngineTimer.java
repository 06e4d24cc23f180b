package io.simrdma.fabric.sched;

/**
 * A restartable one-shot timer owned by one executor, cheap to re-arm: arming only records a
 * deadline; a firing that finds the deadline moved later re-schedules itself for it. Re-arming
 * on every acknowledgement therefore costs a field write, not a scheduler operation.
 *
 * <p>Thread safety: use only from the owning executor's thread.
 */
public final class EngineTimer {

    private static final long NONE = Long.MIN_VALUE;

    private final EngineExecutor executor;
    private final Runnable action;
    private final String name;
    private final Firing primary = new Firing();
    private long deadline = NONE;
    private boolean primaryPending;
    private long primaryFireAt;
    private int extraPending;

    /**
     * @param executor the executor the action runs on
     * @param name     for traces and debugging
     * @param action   run on the executor when the deadline passes while armed
     */
    public EngineTimer(EngineExecutor executor, String name, Runnable action) {
        this.executor = executor;
        this.name = name;
        this.action = action;
    }

    /** Arms the timer to expire {@code delayNanos} from now, replacing any earlier deadline. */
    public void start(long delayNanos) {
        long now = executor.scheduler().nanoTime();
        deadline = now + Math.max(0, delayNanos);
        ensureFiring(now);
    }

    /** Disarms the timer; a pending firing will find nothing to do. */
    public void stop() {
        deadline = NONE;
    }

    /** True while armed. */
    public boolean isArmed() {
        return deadline != NONE;
    }

    /** The armed deadline on the scheduler's clock; meaningful only while {@link #isArmed()}. */
    public long deadline() {
        return deadline;
    }

    private void ensureFiring(long now) {
        if (!primaryPending) {
            primaryPending = true;
            primaryFireAt = deadline;
            executor.schedule(primary, deadline - now);
        } else if (primaryFireAt > deadline) {
            // Rare: the deadline moved earlier than the pending firing.
            extraPending++;
            executor.schedule(new Firing(), deadline - now);
        }
    }

    private void fired(Firing f) {
        if (f == primary) {
            primaryPending = false;
        } else {
            extraPending--;
        }
        if (deadline == NONE) {
            return;
        }
        long now = executor.scheduler().nanoTime();
        if (now >= deadline) {
            deadline = NONE;
            action.run();
        } else if (!primaryPending) {
            ensureFiring(now);
        }
    }

    @Override
    public String toString() {
        return "EngineTimer[" + name + ", armed=" + isArmed() + ", extra=" + extraPending + "]";
    }

    private final class Firing extends Task {
        @Override
        public void run() {
            fired(this);
        }

        @Override
        public String toString() {
            return name + "-firing";
        }
    }
}
