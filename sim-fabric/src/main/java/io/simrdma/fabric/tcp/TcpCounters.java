package io.simrdma.fabric.tcp;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/** The counters of one node. Thread-safe. */
final class TcpCounters {

    private static final TcpCounter[] ALL = TcpCounter.values();
    private final AtomicLongArray values = new AtomicLongArray(ALL.length);

    void increment(TcpCounter c) {
        values.incrementAndGet(c.ordinal());
    }

    void add(TcpCounter c, long n) {
        values.addAndGet(c.ordinal(), n);
    }

    long get(TcpCounter c) {
        return values.get(c.ordinal());
    }

    Map<TcpCounter, Long> snapshot() {
        Map<TcpCounter, Long> m = new EnumMap<>(TcpCounter.class);
        for (TcpCounter c : ALL) {
            m.put(c, values.get(c.ordinal()));
        }
        return m;
    }
}
