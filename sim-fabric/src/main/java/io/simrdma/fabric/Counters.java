package io.simrdma.fabric;

import java.util.Map;

/**
 * A set of {@link Counter}s of a device or queue pair ({@link Device#counters()},
 * {@link QueuePair#counters()}): what happened to its packets and work requests, counted by the
 * engine as it happens.
 *
 * <p>Thread safety: readable from any thread; a read sees each counter's value at some recent
 * moment (counters are written by the owning device's executor without locking).
 */
public interface Counters {

    /** Current value of {@code c}. */
    long get(Counter c);

    /** All counters at this moment. */
    Map<Counter, Long> snapshot();
}
