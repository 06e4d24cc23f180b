package io.simrdma.fabric.internal;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Counters;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.EnumMap;
import java.util.Map;

/**
 * The counters of a device or queue pair: written by the owning engine thread, readable from any
 * thread; a queue pair's set adds to its device's.
 *
 * <p>Cost: an increment is a plain read and an opaque write of one array slot per set (the queue
 * pair's, then its device's), without the ordering a volatile or release write costs: the values
 * are statistics, read by other threads as they come (each read sees a whole value that was
 * written, never a torn one), and order nothing else.
 *
 * <p>Thread safety: {@link #get} and {@link #snapshot} from any thread; increments only from the
 * owning device's executor.
 */
public final class CounterSet implements Counters {

    private static final Counter[] ALL = Counter.values();

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /** Written only by the owning executor (plain reads there), read opaquely by others. */
    private final long[] values = new long[ALL.length];

    private final CounterSet parent;

    public CounterSet(CounterSet parent) {
        this.parent = parent;
    }

    public void increment(Counter c) {
        add(c, 1);
    }

    public void add(Counter c, long n) {
        int i = c.ordinal();
        long[] v = values;
        SLOT.setOpaque(v, i, v[i] + n);
        CounterSet p = parent;
        if (p != null) {
            long[] pv = p.values;
            SLOT.setOpaque(pv, i, pv[i] + n);
            if (p.parent != null) {
                p.parent.add(c, n);
            }
        }
    }

    /** Current value of {@code c}. */
    @Override
    public long get(Counter c) {
        return (long) SLOT.getOpaque(values, c.ordinal());
    }

    /** All counters at this moment. */
    @Override
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> m = new EnumMap<>(Counter.class);
        for (Counter c : ALL) {
            m.put(c, get(c));
        }
        return m;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Counters[");
        boolean first = true;
        for (Counter c : ALL) {
            long v = get(c);
            if (v != 0) {
                sb.append(first ? "" : ", ").append(c).append('=').append(v);
                first = false;
            }
        }
        return sb.append(']').toString();
    }
}
