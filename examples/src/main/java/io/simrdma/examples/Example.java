package io.simrdma.examples;

import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * One runnable example. Every example runs on a deterministic fabric with a fixed seed, so its
 * output (virtual timestamps included) is the same on every run; a check that fails throws
 * {@link ExampleFailure}.
 *
 * <p>Thread safety: an example instance keeps no state between runs; run it from one thread.
 */
public interface Example {

    /** The name {@code ./simrdma example NAME} takes. */
    String name();

    /** One line saying what the example shows. */
    String summary();

    /** Runs the example, printing to {@code context.out()}. */
    void run(Context context);

    /**
     * Where an example writes.
     *
     * @param out    its text output
     * @param pcap   where to write a capture of its packets, or null
     * @param ladder print the packet ladder of the run
     */
    record Context(PrintWriter out, Path pcap, boolean ladder) {}

    /** A check of an example failed. */
    final class ExampleFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ExampleFailure(String message) {
            super(message);
        }
    }
}
