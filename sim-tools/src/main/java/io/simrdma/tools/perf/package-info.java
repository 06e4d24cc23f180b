/**
 * {@code simrdma perf}: perftest's bandwidth and latency tests (ib_write_bw, ib_read_lat, ...) on the
 * simulated fabric, over the verbs or the DAT layer, in one JVM or between two, each figure printed
 * beside a baseline measured in the same run. Part of the command line, not a library.
 */
package io.simrdma.tools.perf;
