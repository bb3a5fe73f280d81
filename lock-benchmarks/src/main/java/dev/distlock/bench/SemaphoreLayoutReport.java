package dev.distlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

import dev.distlock.bench.SemaphoreWindow.Result;
import dev.distlock.bench.SemaphoreWindow.Shape;

/** {@link SemaphoreLayoutCost}'s Markdown: per shape, each set's medians and ranges, and the ratios within rounds. */
final class SemaphoreLayoutReport {

    private SemaphoreLayoutReport() {
    }

    static String render(List<SemaphoreScriptSet> sets, Map<Shape, List<Map<SemaphoreScriptSet, Result>>> results,
            int rounds, Duration window, String connections) {
        SemaphoreScriptSet a = sets.get(0);
        SemaphoreScriptSet b = sets.get(1);
        SemaphoreScriptSet c = sets.get(2);
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT,
                "%d rounds, windows of %.1f s (at most %,d cycles) after a %.1f s warm-up, each on a fresh redis-server; "
                        + "%d callers on %s Lettuce connection(s); a refused acquire retried after %d ms.",
                rounds, window.toMillis() / 1000.0, SemaphoreLayoutCost.MAX_CYCLES,
                SemaphoreLayoutCost.WARM_UP.toMillis() / 1000.0, SemaphoreWindow.CALLERS,
                connections.equals("scenario") ? "scenario 11's (1 for distlock's scripts, 16 for Redisson's)"
                        : connections,
                SemaphoreWindow.PAUSE.toMillis()));
        lines.add("");
        lines.add("| shape | script set | Redis CPU µs/cycle, median (min–max) | main thread µs/cycle | commands/cycle "
                + "| socket reads/cycle | cycles/s | refused acquires/cycle |");
        lines.add("| --- | --- | --- | --- | --- | --- | --- | --- |");
        results.forEach((shape, rows) -> {
            for (SemaphoreScriptSet set : sets) {
                List<Result> mine = rows.stream().map(row -> row.get(set)).toList();
                lines.add(String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %.2f | %.2f | %,.0f | %.2f |", shape.label,
                        set.label, range(mine.stream().mapToDouble(Result::cpuPerCycle).toArray(), "%.2f"),
                        median(mine, Result::mainThreadPerCycle), median(mine, Result::commandsPerCycle),
                        median(mine, Result::readsPerCycle),
                        median(mine, Result::cyclesPerSecond),
                        median(mine, result -> (double) result.refusals() / result.cycles())));
            }
        });
        lines.add("");
        lines.add("Ratios of Redis CPU per cycle within each round, median (min–max):");
        lines.add("");
        lines.add("| shape | (a) today ÷ (c) Redisson | (b) layout 2 ÷ (c) Redisson | (b) layout 2 ÷ (a) today |");
        lines.add("| --- | --- | --- | --- |");
        results.forEach((shape, rows) -> lines.add(String.format(Locale.ROOT, "| %s | %s | %s | %s |", shape.label,
                ratio(rows, a, c), ratio(rows, b, c), ratio(rows, b, a))));
        lines.add("");
        results.forEach((shape, rows) -> {
            for (int i = 0; i < rows.size(); i++) {
                Map<SemaphoreScriptSet, Result> row = rows.get(i);
                lines.add(String.format(Locale.ROOT, "- %s, round %d: %s", shape.label, i + 1,
                        row.entrySet()
                            .stream()
                            .map(entry -> String.format(Locale.ROOT, "%s %.2f µs (%,.0f cycles/s)",
                                    entry.getKey().label, entry.getValue().cpuPerCycle(),
                                    entry.getValue().cyclesPerSecond()))
                            .collect(Collectors.joining(", "))));
            }
            for (SemaphoreScriptSet set : sets) {
                Result last = rows.get(rows.size() - 1).get(set);
                lines.add(String.format(Locale.ROOT, "- %s, %s, commands per cycle (last round): %s", shape.label,
                        set.label, perCycle(last)));
            }
        });
        return String.join("\n", lines) + "\n";
    }

    private static String perCycle(Result result) {
        return result.calls()
            .entrySet()
            .stream()
            .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
            .map(entry -> String.format(Locale.ROOT, "%s %.2f", entry.getKey(),
                    entry.getValue() / (double) result.cycles()))
            .collect(Collectors.joining(", "));
    }

    private static String ratio(List<Map<SemaphoreScriptSet, Result>> rows, SemaphoreScriptSet top,
            SemaphoreScriptSet bottom) {
        double[] ratios = rows.stream()
            .mapToDouble(row -> row.get(top).cpuPerCycle() / row.get(bottom).cpuPerCycle())
            .toArray();
        return range(ratios, "%.2f×");
    }

    private static double median(List<Result> results, ToDoubleFunction<Result> value) {
        return median(results.stream().mapToDouble(value).toArray());
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String range(double[] values, String format) {
        double min = java.util.Arrays.stream(values).min().orElse(Double.NaN);
        double max = java.util.Arrays.stream(values).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, format + " (" + format + "–" + format + ")", median(values), min, max);
    }
}
