package dev.distlock.bench.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.harness.Summary;
import dev.distlock.bench.report.BarChart;

/**
 * A scenario's section of the report, and its figures for the target assessment.
 *
 * @param markdown the table and notes
 * @param measurements per implementation, for timed scenarios
 * @param renewals per implementation, for the watchdog scenario
 * @param chart the panels of its SVG chart, empty for none
 */
public record ScenarioReport(Scenario scenario, String markdown, Map<Implementation, Measurement> measurements,
        Map<Implementation, RenewalResult> renewals, List<BarChart.Panel> chart) {

    public ScenarioReport {
        chart = List.copyOf(chart);
    }

    /** A report whose chart shows cycles/s and Redis CPU per cycle of each measured implementation. */
    public ScenarioReport(Scenario scenario, String markdown, Map<Implementation, Measurement> measurements,
            Map<Implementation, RenewalResult> renewals) {
        this(scenario, markdown, measurements, renewals, cyclePanels(measurements, Implementation::label));
    }

    /** The two panels of a timed scenario: cycles/s and Redis CPU µs per cycle, median with the iterations' range. */
    static <K> List<BarChart.Panel> cyclePanels(Map<K, Measurement> measurements, Function<K, String> labels) {
        if (measurements.isEmpty()) {
            return List.of();
        }
        List<BarChart.Bar> throughput = new ArrayList<>();
        List<BarChart.Bar> cpu = new ArrayList<>();
        measurements.forEach((key, measurement) -> {
            throughput.add(bar(labels.apply(key), measurement.cyclesPerSecond()));
            cpu.add(bar(labels.apply(key), measurement.redisCpuMicrosPerCycleByIteration()));
        });
        return List.of(new BarChart.Panel("cycles/s", "median, whisker: min–max of the iterations; higher is better",
                throughput),
                new BarChart.Panel("Redis CPU µs per cycle", "median, whisker: min–max of the iterations; lower is "
                        + "better", cpu));
    }

    static BarChart.Bar bar(String label, Summary summary) {
        return new BarChart.Bar(label, summary.median(), summary.min(), summary.max());
    }
}
