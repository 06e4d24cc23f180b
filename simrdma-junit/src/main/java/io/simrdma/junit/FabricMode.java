package io.simrdma.junit;

/**
 * How a test's fabric runs. Only {@link #DETERMINISTIC} replays a run from its seed; the others
 * run in real time on threads, as an application does in production. Immutable (an enum).
 */
public enum FabricMode {
    /** Virtual time on the test's thread; every choice drawn from the seed, so a seed replays the run. */
    DETERMINISTIC,
    /** Real time, a thread per device (Fabric.threaded()). */
    THREADED,
    /**
     * Each device a TCP node on 127.0.0.1 in a threaded fabric of its own: packets cross real sockets
     * through Netty, as between two JVMs.
     */
    TCP_LOOPBACK
}
