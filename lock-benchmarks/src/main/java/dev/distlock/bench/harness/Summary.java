package dev.distlock.bench.harness;

import java.util.Arrays;

/**
 * One figure across measured iterations: the median, with the minimum and maximum as the stated error.
 *
 * @param median the median (the mean of the two middle values for an even count)
 * @param min the smallest iteration's value
 * @param max the largest iteration's value
 * @param count how many iterations
 */
public record Summary(double median, double min, double max, int count) {

    public static final Summary EMPTY = new Summary(Double.NaN, Double.NaN, Double.NaN, 0);

    /** Summarises the values, ignoring NaNs (an iteration without that figure). */
    public static Summary of(double... values) {
        double[] sorted = Arrays.stream(values).filter(value -> !Double.isNaN(value)).sorted().toArray();
        if (sorted.length == 0) {
            return EMPTY;
        }
        int middle = sorted.length / 2;
        double median = (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        return new Summary(median, sorted[0], sorted[sorted.length - 1], sorted.length);
    }

    public boolean isEmpty() {
        return this.count == 0;
    }
}
