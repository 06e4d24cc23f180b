package io.simrdma.fabric.internal.link;

import io.simrdma.fabric.FaultGate;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The packets one link direction holds on {@link FaultGate}s (HOLD rules): per gate, in the order
 * held. When a gate opens, its packets are handed, in that order, to the release action on the
 * direction's own executor; a link that closes drops what it still holds.
 *
 * <p>Thread safety: thread-safe (holding and releasing run on the direction's executor; a gate
 * may open, and the link close, on any thread). Allocates only while something is held.
 */
public final class HeldPackets {

    private final Consumer<Runnable> executor;
    private final Consumer<Packet> release;
    private final Map<FaultGate, ArrayDeque<Packet>> held = new IdentityHashMap<>();
    private boolean closed;

    /**
     * @param executor runs a task on the direction's executor
     * @param release  sends a released packet on (called on that executor; takes ownership)
     */
    public HeldPackets(Consumer<Runnable> executor, Consumer<Packet> release) {
        this.executor = executor;
        this.release = release;
    }

    /**
     * Holds {@code p} until {@code gate} opens (released at once, in order behind earlier ones,
     * if it opened meanwhile). Takes ownership; false (the caller keeps it) if the direction is
     * closed.
     */
    public boolean hold(FaultGate gate, Packet p) {
        boolean first;
        synchronized (this) {
            if (closed) {
                return false;
            }
            ArrayDeque<Packet> q = held.get(gate);
            first = q == null;
            if (first) {
                q = new ArrayDeque<>();
                held.put(gate, q);
            }
            q.add(p);
        }
        if (first) {
            gate.whenOpen(() -> executor.accept(() -> releaseAll(gate)));
        }
        return true;
    }

    /** Number of packets held now. */
    public synchronized int size() {
        int n = 0;
        for (ArrayDeque<Packet> q : held.values()) {
            n += q.size();
        }
        return n;
    }

    private void releaseAll(FaultGate gate) {
        ArrayDeque<Packet> q;
        synchronized (this) {
            q = held.remove(gate);
        }
        if (q == null) {
            return;
        }
        Packet p;
        while ((p = q.poll()) != null) {
            release.accept(p);
        }
    }

    /** Stops holding: returns every packet held (the caller drops them); later holds are refused. */
    public List<Packet> close() {
        List<Packet> all = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (ArrayDeque<Packet> q : held.values()) {
                all.addAll(q);
            }
            held.clear();
        }
        return all;
    }
}
