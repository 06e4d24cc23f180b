package io.simrdma.tools.perf;

import org.HdrHistogram.Histogram;

/**
 * One row of a report: what the fabric did for one layer and size, and what the baseline measured
 * beside it in the same run.
 */
sealed interface Figure permits Figure.Bw, Figure.Lat {

    PerfSettings.Layer layer();

    int size();

    int iterations();

    /** What the baseline is, in words (for the report's header). */
    String baseline();

    /**
     * A bandwidth figure; rates in bytes and messages per second.
     *
     * @param baseBytesPerSecond    the baseline's bandwidth (a copy of the same size, or the Netty stream)
     * @param baseMessagesPerSecond the baseline's message rate (the thread hand-off, or the Netty stream)
     */
    record Bw(
            PerfSettings.Layer layer,
            int size,
            int iterations,
            double peakMessagesPerSecond,
            double messagesPerSecond,
            double baseBytesPerSecond,
            double baseMessagesPerSecond,
            String baseline)
            implements Figure {

        double bytesPerSecond() {
            return messagesPerSecond * size;
        }

        double peakBytesPerSecond() {
            return peakMessagesPerSecond * size;
        }

        /** Bandwidth over the baseline's bandwidth. */
        double bwRatio() {
            return bytesPerSecond() / baseBytesPerSecond;
        }

        /** Message rate over the baseline's message rate. */
        double rateRatio() {
            return messagesPerSecond / baseMessagesPerSecond;
        }
    }

    /**
     * A latency figure: samples in nanoseconds, reported divided by {@code rttFactor}, as perftest does.
     *
     * @param samples   the test's samples
     * @param base      the baseline's samples (spin round trips, or Netty ping-pongs)
     * @param rttFactor 2 for a ping-pong, 1 for a READ or an atomic
     */
    record Lat(
            PerfSettings.Layer layer,
            int size,
            int iterations,
            Histogram samples,
            Histogram base,
            int rttFactor,
            String baseline)
            implements Figure {

        /** A percentile in microseconds, divided by the RTT factor. */
        double micros(Histogram h, double percentile) {
            return h.getValueAtPercentile(percentile) / 1000.0 / rttFactor;
        }

        double typical() {
            return micros(samples, 50);
        }

        double baseTypical() {
            return micros(base, 50);
        }

        /** Median over the baseline's median: how many times slower. */
        double ratio() {
            return typical() / baseTypical();
        }
    }
}
