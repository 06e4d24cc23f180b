package io.simrdma.fabric.internal;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Counters;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counters of a device or queue pair: written by the owning engine thread, readable from any
 * thread; a queue pair's set adds to its device's.
 *
 * <p>Thread safety: {@link #get} and {@link #snapshot} from any thread; increments only from the
 * owning device's executor.
 */
public final class CounterSet implements Counters {

    private static final Counter[] ALL = Counter.values();

    private final AtomicLongArray values = new AtomicLongArray(ALL.length);
    private final CounterSet parent;

    public CounterSet(CounterSet parent) {
        this.parent = parent;
    }

    public void increment(Counter c) {
        add(c, 1);
    }

    public void add(Counter c, long n) {
        int i = c.ordinal();
        values.lazySet(i, values.get(i) + n);
        if (parent != null) {
            parent.add(c, n);
        }
    }

    /** Current value of {@code c}. */
    @Override
    public long get(Counter c) {
        return values.get(c.ordinal());
    }

    /** All counters at this moment. */
    @Override
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
