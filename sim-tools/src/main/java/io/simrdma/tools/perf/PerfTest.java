package io.simrdma.tools.perf;

/**
 * The tests of {@code simrdma perf}, after perftest's programs: which operation each moves, whether
 * it measures bandwidth or latency, and how perftest turns a round trip into its latency figure.
 *
 * <table>
 *   <caption>tests and their perftest counterparts</caption>
 *   <tr><th>test</th><th>perftest</th><th>what one iteration is</th></tr>
 *   <tr><td>write-bw</td><td>ib_write_bw</td><td>an RDMA WRITE of {@code size} bytes, up to tx-depth outstanding</td></tr>
 *   <tr><td>read-bw</td><td>ib_read_bw</td><td>an RDMA READ, up to tx-depth outstanding</td></tr>
 *   <tr><td>send-bw</td><td>ib_send_bw</td><td>a SEND into a receive the server keeps posted</td></tr>
 *   <tr><td>write-lat</td><td>ib_write_lat</td><td>a WRITE ping-pong: each side polls its memory for the peer's write,
 *       then writes back; half the round trip</td></tr>
 *   <tr><td>read-lat</td><td>ib_read_lat</td><td>one RDMA READ, posted and completed</td></tr>
 *   <tr><td>send-lat</td><td>ib_send_lat</td><td>a SEND/RECV ping-pong, busy-polling the CQ; half the round trip</td></tr>
 *   <tr><td>atomic-lat</td><td>ib_atomic_lat</td><td>one 8-byte FETCH_AND_ADD, posted and completed</td></tr>
 * </table>
 */
enum PerfTest {
    WRITE_BW("write-bw", Verb.WRITE, false),
    READ_BW("read-bw", Verb.READ, false),
    SEND_BW("send-bw", Verb.SEND, false),
    WRITE_LAT("write-lat", Verb.WRITE, true),
    READ_LAT("read-lat", Verb.READ, true),
    SEND_LAT("send-lat", Verb.SEND, true),
    ATOMIC_LAT("atomic-lat", Verb.ATOMIC, true);

    /** The operation a test moves data with. */
    enum Verb {
        WRITE,
        READ,
        SEND,
        ATOMIC
    }

    private final String label;
    private final Verb verb;
    private final boolean latency;

    PerfTest(String label, Verb verb, boolean latency) {
        this.label = label;
        this.verb = verb;
        this.latency = latency;
    }

    /** The name on the command line. */
    String label() {
        return label;
    }

    Verb verb() {
        return verb;
    }

    boolean isLatency() {
        return latency;
    }

    /**
     * What perftest divides a sample by: a ping-pong (write, send) measures a round trip and reports
     * half of it; a READ or an atomic is one operation, reported whole (perftest's rtt_factor).
     */
    int rttFactor() {
        return verb == Verb.READ || verb == Verb.ATOMIC ? 1 : 2;
    }

    /** perftest's default message size: 64 KiB for bandwidth, 2 bytes for latency, 8 for atomics. */
    int defaultSize() {
        if (verb == Verb.ATOMIC) {
            return 8;
        }
        return latency ? 2 : 65536;
    }

    /** perftest's default iterations: 5000 for bandwidth, 1000 for latency. */
    int defaultIterations() {
        return latency ? 1000 : 5000;
    }

    /** The test named {@code label}, or null. */
    static PerfTest of(String label) {
        for (PerfTest t : values()) {
            if (t.label.equals(label)) {
                return t;
            }
        }
        return null;
    }
}
