package dev.distlock.bench.report;

import java.util.Locale;

import dev.distlock.bench.harness.Summary;

/** Number formats of the report. Every missing figure prints as an em dash, never as zero. */
public final class Fmt {

    public static final String NONE = "—";

    private Fmt() {
    }

    /** A count or rate with thousands separators. */
    public static String count(double value) {
        return Double.isNaN(value) ? NONE : String.format(Locale.ROOT, "%,.0f", value);
    }

    /** Median with the min–max range: {@code 12,345 (11,900–12,800)}. */
    public static String countRange(Summary summary) {
        if (summary.isEmpty()) {
            return NONE;
        }
        return count(summary.median()) + " (" + count(summary.min()) + "–" + count(summary.max()) + ")";
    }

    /** A time given in microseconds: in µs below 10 ms, in ms below 1 s, else in s. */
    public static String micros(double micros) {
        if (Double.isNaN(micros)) {
            return NONE;
        }
        if (micros < 10) {
            return String.format(Locale.ROOT, "%.1f µs", micros);
        }
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%.0f µs", micros);
        }
        if (micros < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f ms", micros / 1000);
        }
        return String.format(Locale.ROOT, "%.2f s", micros / 1_000_000);
    }

    /** Median latency with the min–max range across iterations. */
    public static String microsRange(Summary summary) {
        if (summary.isEmpty()) {
            return NONE;
        }
        return micros(summary.median()) + " (" + micros(summary.min()) + "–" + micros(summary.max()) + ")";
    }

    /** A per-cycle figure with two decimals. */
    public static String decimal(double value) {
        return Double.isNaN(value) ? NONE : String.format(Locale.ROOT, "%.2f", value);
    }

    /** A ratio such as {@code 1.23×}. */
    public static String ratio(double value) {
        return (Double.isNaN(value) || Double.isInfinite(value)) ? NONE
                : String.format(Locale.ROOT, "%.2f×", value);
    }

    /**
     * A ratio judged against {@code threshold}: {@link #ratio}, with as many more decimals (up to six) as it takes not
     * to print the threshold itself for a value on either side of it ({@code 0.997×}, never a missed {@code 1.00×}).
     */
    public static String ratio(double value, double threshold) {
        return (Double.isNaN(value) || Double.isInfinite(value)) ? NONE : close(value, threshold) + "×";
    }

    /** {@link #decimal}, with more decimals as {@link #ratio(double, double)} gives them. */
    public static String decimal(double value, double threshold) {
        return Double.isNaN(value) ? NONE : close(value, threshold);
    }

    private static String close(double value, double threshold) {
        String text = String.format(Locale.ROOT, "%.2f", value);
        for (int decimals = 3; decimals <= 6 && value != threshold
                && text.equals(String.format(Locale.ROOT, "%." + (decimals - 1) + "f", threshold)); decimals++) {
            text = String.format(Locale.ROOT, "%." + decimals + "f", value);
        }
        return text;
    }
}
