package dev.distlock.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * A scenario's chart as a standalone SVG document, written with plain string building: one panel per figure
 * (cycles/s, Redis CPU per cycle, ...) side by side, one horizontal bar per implementation at the median over the
 * measured iterations, with a whisker from the smallest to the largest iteration. Each panel's axis starts at zero.
 */
public final class BarChart {

    private static final int PANEL_WIDTH = 450;

    private static final int LABEL_WIDTH = 180;

    private static final int VALUE_ROOM = 70;

    private static final int ROW_HEIGHT = 30;

    private static final int TOP = 58;

    private static final int BOTTOM = 34;

    private static final String[] COLOURS = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
            "#b07aa1", "#9c755f" };

    private BarChart() {
    }

    /**
     * One bar: an implementation's median and its range over the iterations. A NaN median draws "n/a"; NaN bounds
     * draw no whisker.
     */
    public record Bar(String label, double median, double min, double max) {
    }

    /**
     * One figure of the chart.
     *
     * @param title what is measured, e.g. "cycles/s"
     * @param note a short hint under the title, e.g. "higher is better"
     */
    public record Panel(String title, String note, List<Bar> bars) {

        public Panel {
            bars = List.copyOf(bars);
        }
    }

    /** The SVG document of {@code panels} under {@code title}. */
    public static String svg(String title, List<Panel> panels) {
        if (panels.isEmpty() || panels.stream().anyMatch(panel -> panel.bars().isEmpty())) {
            throw new IllegalArgumentException("a chart needs at least one panel, and every panel a bar");
        }
        int rows = panels.stream().mapToInt(panel -> panel.bars().size()).max().orElse(1);
        int width = PANEL_WIDTH * panels.size();
        int height = TOP + rows * ROW_HEIGHT + BOTTOM;
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width, height));
        out.append("<title>").append(escape(title)).append("</title>\n");
        out.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", width, height));
        out.append(String.format(Locale.ROOT, "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
                escape(title)));
        for (int i = 0; i < panels.size(); i++) {
            panel(out, panels.get(i), i * PANEL_WIDTH, rows);
        }
        out.append("</svg>\n");
        return out.toString();
    }

    private static void panel(StringBuilder out, Panel panel, int left, int rows) {
        int axisLeft = left + LABEL_WIDTH;
        int axisWidth = PANEL_WIDTH - LABEL_WIDTH - VALUE_ROOM;
        double top = panel.bars()
            .stream()
            .mapToDouble(bar -> Math.max(finite(bar.median()), finite(bar.max())))
            .max()
            .orElse(0);
        double step = niceStep(top / 4);
        double scaleMax = Math.max(step, Math.ceil(top / step) * step);
        int plotTop = TOP;
        int plotBottom = TOP + rows * ROW_HEIGHT;
        out.append(String.format(Locale.ROOT, "<g class=\"panel\"><text x=\"%d\" y=\"38\" font-weight=\"bold\">%s"
                + "</text><text x=\"%d\" y=\"52\" fill=\"#555555\" font-size=\"11\">%s</text>%n", left + 8,
                escape(panel.title()), left + 8, escape(panel.note())));
        for (double tick = 0; tick <= scaleMax + step / 2; tick += step) {
            double x = axisLeft + tick / scaleMax * axisWidth;
            out.append(String.format(Locale.ROOT, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                    + "stroke=\"#dddddd\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\" "
                    + "font-size=\"10\">%s</text>%n", x, plotTop, x, plotBottom, x, plotBottom + 14, tickLabel(tick)));
        }
        for (int i = 0; i < panel.bars().size(); i++) {
            Bar bar = panel.bars().get(i);
            int y = plotTop + i * ROW_HEIGHT;
            int middle = y + ROW_HEIGHT / 2;
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    axisLeft - 6, middle + 4, escape(bar.label())));
            if (Double.isNaN(bar.median())) {
                out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555555\">n/a</text>%n",
                        axisLeft + 4, middle + 4));
                continue;
            }
            double end = axisLeft + bar.median() / scaleMax * axisWidth;
            out.append(String.format(Locale.ROOT, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
                    + "height=\"%d\" fill=\"%s\"><title>%s: %s%s</title></rect>%n", axisLeft, y + 6,
                    end - axisLeft, ROW_HEIGHT - 12, COLOURS[i % COLOURS.length], escape(bar.label()),
                    value(bar.median()), (Double.isNaN(bar.min()) && Double.isNaN(bar.max())) ? ""
                            : " (" + value(bar.min()) + "–" + value(bar.max()) + ")"));
            double textX = end;
            if (!Double.isNaN(bar.min()) && !Double.isNaN(bar.max())) {
                double low = axisLeft + bar.min() / scaleMax * axisWidth;
                double high = axisLeft + bar.max() / scaleMax * axisWidth;
                out.append(String.format(Locale.ROOT, "<path class=\"whisker\" d=\"M%.1f %dV%dM%.1f %dH%.1fM%.1f %dV%d\" "
                        + "stroke=\"#222222\" fill=\"none\"/>%n", low, middle - 5, middle + 5, low, middle, high, high,
                        middle - 5, middle + 5));
                textX = Math.max(textX, high);
            }
            out.append(String.format(Locale.ROOT, "<text class=\"value\" x=\"%.1f\" y=\"%d\">%s</text>%n", textX + 4,
                    middle + 4, value(bar.median())));
        }
        out.append("</g>\n");
    }

    private static double finite(double value) {
        return (Double.isNaN(value) || Double.isInfinite(value)) ? 0 : value;
    }

    /** 1, 2 or 5 times a power of ten, at least {@code rough}. */
    static double niceStep(double rough) {
        if (!(rough > 0)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(rough)));
        for (double factor : new double[] { 1, 2, 5, 10 }) {
            if (factor * power >= rough) {
                return factor * power;
            }
        }
        return 10 * power;
    }

    private static String tickLabel(double tick) {
        if (tick >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", tick);
        }
        return (tick == Math.rint(tick)) ? String.format(Locale.ROOT, "%.0f", tick)
                : String.format(Locale.ROOT, "%.2g", tick);
    }

    private static String value(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return (Math.abs(value) >= 100) ? String.format(Locale.ROOT, "%,.0f", value)
                : String.format(Locale.ROOT, "%.1f", value);
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
