package io.simrdma.fabric;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A set of {@link Counter}s. Written by one engine thread, readable from any thread.
 *
 * <p>Thread safety: {@link #get} and {@link #snapshot} from any thread; increments only from the
 * owning device's executor.
 */
public final class Counters {

    private static final Counter[] ALL = Counter.values();

    private final AtomicLongArray values = new AtomicLongArray(ALL.length);
    private final Counters parent;

    Counters(Counters parent) {
        this.parent = parent;
    }

    void increment(Counter c) {
        add(c, 1);
    }

    void add(Counter c, long n) {
        int i = c.ordinal();
        values.lazySet(i, values.get(i) + n);
        if (parent != null) {
            parent.add(c, n);
        }
    }

    /** Current value of {@code c}. */
    public long get(Counter c) {
        return values.get(c.ordinal());
    }

    /** All counters at this moment. */
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> m = new EnumMap<>(Counter.class);
        for (Counter c : ALL) {
            m.put(c, values.get(c.ordinal()));
        }
        return m;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Counters[");
        boolean first = true;
        for (Counter c : ALL) {
            long v = values.get(c.ordinal());
            if (v != 0) {
                sb.append(first ? "" : ", ").append(c).append('=').append(v);
                first = false;
            }
        }
        return sb.append(']').toString();
    }
}
