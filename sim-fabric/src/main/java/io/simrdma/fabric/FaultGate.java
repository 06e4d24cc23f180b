package io.simrdma.fabric;

import java.util.ArrayList;
import java.util.List;

/**
 * A condition a {@link FaultRule#hold hold rule} keeps packets back on: closed when made, open
 * once {@link #open()} is called (by a test, at any moment) or once a trigger rule fires
 * ({@link #openOnHit}). Opening releases every packet held on the gate, each link direction's
 * packets in the order they were held, with the link's latency from then on; packets sent
 * after it opened pass. A gate never closes again.
 * <pre>{@code
 * // hold the READ responses to QP x until the requester has sent the READ again
 * FaultGate retried = new FaultGate();
 * link.addFault(FaultRule.hold(PacketMatcher.readResponses().and(PacketMatcher.toQp(x)), retried));
 * link.addFault(FaultRule.observe(PacketMatcher.readRequests().and(PacketMatcher.retransmissions()))
 *         .onHit(retried::open));
 * }</pre>
 *
 * <p>Releases run on the executor of the device that sent the packets, so under the
 * deterministic scheduler an opening replays like everything else.
 *
 * <p>Thread safety: thread-safe.
 */
public final class FaultGate {

    private final String name;
    private boolean open;
    private List<Runnable> onOpen = new ArrayList<>();

    /** A closed gate. */
    public FaultGate() {
        this("gate");
    }

    /** A closed gate with a name for traces and {@link #toString()}. */
    public FaultGate(String name) {
        this.name = java.util.Objects.requireNonNull(name, "name");
    }

    /** Opens the gate (again is harmless): held packets are released. Any thread. */
    public void open() {
        List<Runnable> run;
        synchronized (this) {
            if (open) {
                return;
            }
            open = true;
            run = onOpen;
            onOpen = null;
        }
        for (Runnable r : run) {
            r.run();
        }
    }

    /** True once opened. */
    public synchronized boolean isOpen() {
        return open;
    }

    /** Opens this gate the first time {@code trigger} fires (on the thread that sends its packet); returns this. */
    public FaultGate openOnHit(FaultRule trigger) {
        trigger.onHit(this::open);
        return this;
    }

    /**
     * Runs {@code action} once the gate opens, or at once if it is open. Links register here
     * the release of the packets they hold; the action must only hand work to an executor.
     */
    public void whenOpen(Runnable action) {
        java.util.Objects.requireNonNull(action, "action");
        synchronized (this) {
            if (!open) {
                onOpen.add(action);
                return;
            }
        }
        action.run();
    }

    @Override
    public String toString() {
        return name + (isOpen() ? " (open)" : " (closed)");
    }
}
