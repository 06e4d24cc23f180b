package io.simrdma.tools.perf;

import java.io.PrintWriter;

/**
 * The progress line of a long run, on the error stream: nothing for a run shorter than two
 * seconds, then one update a second ("write-bw 1048576 B verbs: 41% (2050/5000)"), rewritten in
 * place on a terminal, and cleared when the run ends. Checking costs a counter test per call and a
 * clock read every 256 calls.
 *
 * <p>Thread safety: not thread-safe; one measuring thread calls it.
 */
final class Progress {

    private static final long QUIET_NANOS = 2_000_000_000L;
    private static final long EVERY_NANOS = 1_000_000_000L;

    private final PrintWriter err;
    private final boolean enabled;
    private final boolean terminal;
    private String label = "";
    private long start;
    private long lastPrint;
    private int calls;
    private boolean printed;

    Progress(PrintWriter err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
        this.terminal = System.console() != null;
    }

    /** Starts a run called {@code label}. */
    void begin(String label) {
        this.label = label;
        this.start = System.nanoTime();
        this.lastPrint = start;
        this.calls = 0;
        this.printed = false;
    }

    /** {@code done} of {@code total} units are done. */
    void tick(long done, long total) {
        if (!enabled || (++calls & 0xFF) != 0) {
            return;
        }
        long now = System.nanoTime();
        if (now - start < QUIET_NANOS || now - lastPrint < EVERY_NANOS) {
            return;
        }
        lastPrint = now;
        printed = true;
        String line = String.format("  %s: %d%% (%d/%d)", label, done * 100 / Math.max(1, total), done, total);
        if (terminal) {
            err.print("\r" + line + "   ");
        } else {
            err.println(line);
        }
        err.flush();
    }

    /** Ends the run: a progress line on a terminal is cleared. */
    void end() {
        if (printed && terminal) {
            err.print("\r" + " ".repeat(78) + "\r");
            err.flush();
        }
        printed = false;
    }
}
