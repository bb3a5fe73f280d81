package dev.distlock.bench.harness;

import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/** Latency histograms in nanoseconds: 2 significant digits (1% resolution) up to 10 minutes. */
public final class Latencies {

    private static final long HIGHEST = TimeUnit.MINUTES.toNanos(10);

    private Latencies() {
    }

    public static Histogram newHistogram() {
        return new Histogram(HIGHEST, 2);
    }

    public static void record(Histogram histogram, long nanos) {
        histogram.recordValue(Math.max(0, Math.min(nanos, HIGHEST)));
    }

    /** The percentile in microseconds, or NaN for an empty histogram. */
    public static double percentileMicros(Histogram histogram, double percentile) {
        if (histogram == null || histogram.getTotalCount() == 0) {
            return Double.NaN;
        }
        return histogram.getValueAtPercentile(percentile) / 1000.0;
    }
}
